/*
 * ctf_traces: the CTF trace directories under a run's trace root (those
 * holding a `metadata` file), found for the reader (ctf_reader.h).
 */
#include "ctf_reader.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk(const char *dir, char ***dirs, size_t *n, size_t *cap, int depth)
{
	DIR *d;
	struct dirent *de;
	struct stat st;
	char *path;
	int ret = 0;

	if (depth > 16) /* LTTng nests 5 deep; deeper is a loop or not a trace */
		return 0;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && !ret) {
		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&path, "%s/%s", dir, de->d_name) < 0) {
			ret = -ENOMEM;
			break;
		}
		if (lstat(path, &st) != 0) {
			/* gone since readdir, or unreadable: not a trace of ours */
		} else if (S_ISDIR(st.st_mode)) {
			ret = walk(path, dirs, n, cap, depth + 1);
		} else if (strcmp(de->d_name, "metadata") == 0 && S_ISREG(st.st_mode)) {
			if (*n == *cap) {
				char **grown =
					realloc(*dirs, (*cap ? *cap * 2 : 4) * sizeof(**dirs));

				if (!grown) {
					ret = -ENOMEM;
				} else {
					*dirs = grown;
					*cap = *cap ? *cap * 2 : 4;
				}
			}
			if (!ret && !((*dirs)[(*n)] = strdup(dir)))
				ret = -ENOMEM;
			else if (!ret)
				(*n)++;
		}
		free(path);
	}
	closedir(d);
	return ret;
}

int corecap_ctf_reader_find_traces(const char *root, char ***dirs, size_t *n, char **err)
{
	size_t cap = 0;
	int ret;

	*dirs = NULL;
	*n = 0;
	ret = walk(root, dirs, n, &cap, 0);
	if (ret) {
		if (asprintf(err, "cannot open trace '%s': %s", root, strerror(-ret)) < 0)
			*err = NULL;
		corecap_ctf_reader_free_traces(*dirs, *n);
		*dirs = NULL;
		*n = 0;
		return ret;
	}
	if (*n) /* no trace found: *dirs is NULL, which qsort may not be given */
		qsort(*dirs, *n, sizeof(**dirs), cmp_str);
	return 0;
}

void corecap_ctf_reader_free_traces(char **dirs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
}
