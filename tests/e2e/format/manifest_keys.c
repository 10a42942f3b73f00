/*
 * manifest_keys: manifest.json's keys against common's list of them
 * (CORECAP_MANIFEST_KEY_LIST, manifest_keys.h), for e2e.format_manifest_keys.
 *
 *   manifest_keys names  every key of the list, one a line:
 *                        PATH<TAB>CORECAP_MK_ID<TAB>FLAGS (obj, array, open; "-")
 *   manifest_keys check  key paths on stdin, one a line, as a manifest holds
 *                        them ("machine.daemon_cpus", "devices[].name"); a path
 *                        the list does not have is printed as "unknown: PATH"
 *                        and makes the exit status 1. A key of an open object
 *                        (benchmark.summary) passes when the list allows it
 *                        there (corecap_manifest_key_open_ok).
 */

#include <stdio.h>
#include <string.h>

#include <corecap/manifest_keys.h>

#define ID_NAME_(id, parent, name, flags) [CORECAP_MK_##id] = "CORECAP_MK_" #id,

static const char *const ids[CORECAP_MK_COUNT] = {[CORECAP_MK_ROOT] = "CORECAP_MK_ROOT",
						  CORECAP_MANIFEST_KEY_LIST(ID_NAME_)};

static int check(void)
{
	const struct corecap_manifest_key_def *keys;
	char line[512];
	int known = 0, open = 0, unknown = 0;
	size_t n;

	keys = corecap_manifest_keys(&n);
	while (fgets(line, sizeof(line), stdin)) {
		char *dot;
		enum corecap_manifest_key parent;

		line[strcspn(line, "\n")] = '\0';
		if (!line[0])
			continue;
		if (corecap_manifest_key_of_path(line) != CORECAP_MK_ROOT) {
			known++;
			continue;
		}
		dot = strrchr(line, '.');
		if (dot) {
			*dot = '\0';
			parent = corecap_manifest_key_of_path(line);
			*dot = '.';
			if (parent != CORECAP_MK_ROOT && (keys[parent].flags & CORECAP_MK_F_OPEN) &&
			    corecap_manifest_key_open_ok(dot + 1)) {
				open++;
				continue;
			}
		}
		printf("unknown: %s\n", line);
		unknown++;
	}
	printf("known: %d, open: %d, unknown: %d\n", known, open, unknown);
	return unknown ? 1 : 0;
}

int main(int argc, char **argv)
{
	const struct corecap_manifest_key_def *keys;
	char buf[256];
	size_t n;

	keys = corecap_manifest_keys(&n);
	if (argc == 2 && strcmp(argv[1], "names") == 0) {
		for (size_t k = 1; k < n; k++)
			printf("%s\t%s\t%s%s%s%s\n",
			       corecap_manifest_key_path((enum corecap_manifest_key)k, buf,
							 sizeof(buf)),
			       ids[k], keys[k].flags & CORECAP_MK_F_OBJ ? "obj " : "",
			       keys[k].flags & CORECAP_MK_F_ARRAY ? "array " : "",
			       keys[k].flags & CORECAP_MK_F_OPEN ? "open " : "",
			       keys[k].flags ? "" : "-");
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "check") == 0)
		return check();
	fprintf(stderr, "usage: manifest_keys names | manifest_keys check <PATHS\n");
	return 2;
}
