/*
 * run_files: the run directory against common's table of run files
 * (corecap_run_files(), run_format.h), for e2e.format_run_files.
 *
 *   run_files names     every name of the table, one a line: NAME<TAB>FLAGS
 *                       (dir, tree, transient; "-" for none)
 *   run_files check DIR every entry under DIR, relative; an entry the table
 *                       does not know is printed as "unknown: PATH" and
 *                       makes the exit status 1. The contents of a tree
 *                       entry (trace/: LTTng's) are its writer's.
 */

#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <corecap/run_format.h>

static size_t root_len;
static int unknown, known;

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *rel = path + root_len;
	const struct corecap_run_file *f;
	size_t n;

	(void)st;
	if (ftw->level == 0)
		return FTW_CONTINUE;
	while (*rel == '/')
		rel++;
	f = corecap_run_file_find(rel);
	if (!f) {
		/* Inside a tree entry? */
		const struct corecap_run_file *all = corecap_run_files(&n);

		for (size_t i = 0; i < n; i++) {
			size_t l = strlen(all[i].name);

			if ((all[i].flags & CORECAP_RUN_F_TREE) &&
			    strncmp(rel, all[i].name, l) == 0 && rel[l] == '/')
				return FTW_CONTINUE;
		}
		printf("unknown: %s\n", rel);
		unknown++;
		return FTW_CONTINUE;
	}
	known++;
	if (((f->flags & CORECAP_RUN_F_DIR) != 0) != (type == FTW_D)) {
		printf("unknown: %s (a %s where the table has a %s)\n", rel,
		       type == FTW_D ? "directory" : "file",
		       f->flags & CORECAP_RUN_F_DIR ? "directory" : "file");
		unknown++;
	}
	return FTW_CONTINUE;
}

int main(int argc, char **argv)
{
	size_t n;
	const struct corecap_run_file *f = corecap_run_files(&n);

	if (argc == 2 && strcmp(argv[1], "names") == 0) {
		for (size_t i = 0; i < n; i++)
			printf("%s\t%s%s%s%s\n", f[i].name,
			       f[i].flags & CORECAP_RUN_F_DIR ? "dir " : "",
			       f[i].flags & CORECAP_RUN_F_TREE ? "tree " : "",
			       f[i].flags & CORECAP_RUN_F_TRANSIENT ? "transient " : "",
			       f[i].flags ? "" : "-");
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "check") == 0) {
		root_len = strlen(argv[2]);
		if (nftw(argv[2], visit, 16, FTW_PHYS | FTW_ACTIONRETVAL) != 0) {
			fprintf(stderr, "run_files: cannot walk '%s'\n", argv[2]);
			return 2;
		}
		printf("known: %d, unknown: %d\n", known, unknown);
		return unknown ? 1 : 0;
	}
	fprintf(stderr, "usage: run_files names | run_files check DIR\n");
	return 2;
}
