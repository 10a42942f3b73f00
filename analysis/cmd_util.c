#include "cmd_util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <corecap/run_format.h>

void corecap_analysis_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "corecap: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
}

int corecap_run_dir_check(const char *run)
{
	struct stat st;
	char *manifest, *trace;
	bool has_manifest, has_trace;

	if (stat(run, &st) != 0) {
		int ret = -errno;

		corecap_analysis_error("cannot open run directory '%s': %s", run, strerror(-ret));
		return ret;
	}
	if (!S_ISDIR(st.st_mode)) {
		corecap_analysis_error("cannot open run directory '%s': %s (a run is the directory "
				       "`corecap record -o` writes)",
				       run, strerror(ENOTDIR));
		return -ENOTDIR;
	}
	manifest = corecap_path_in(run, CORECAP_RUN_MANIFEST);
	trace = corecap_path_in(run, CORECAP_RUN_TRACE);
	if (!manifest || !trace) {
		free(manifest);
		free(trace);
		return -ENOMEM;
	}
	has_manifest = lstat(manifest, &st) == 0 || errno != ENOENT;
	has_trace = lstat(trace, &st) == 0 || errno != ENOENT;
	free(manifest);
	free(trace);
	if (!has_manifest && !has_trace) {
		corecap_analysis_error(
			"'%s' is not a run directory: it holds neither " CORECAP_RUN_MANIFEST " "
			"nor " CORECAP_RUN_TRACE "/ (empty, or not written by `corecap record`)",
			run);
		return -ENOENT;
	}
	return 0;
}

void corecap_analysis_warn_torn(const char *path)
{
	fprintf(stderr,
		"corecap: warning: '%s' ends in a torn line (its collector was killed while "
		"writing it): read up to its last whole line; the run is partial\n",
		path);
}

char *corecap_path_in(const char *dir, const char *name)
{
	char *p;

	return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}

int corecap_list_split(const char *list, char ***out, size_t *n)
{
	char *copy = strdup(list), *tok, *save;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		char **grown = realloc(*out, (*n + 1) * sizeof(*grown));

		if (!grown) {
			ret = -ENOMEM;
			break;
		}
		*out = grown;
		if (!(grown[*n] = strdup(tok)))
			ret = -ENOMEM;
		else
			(*n)++;
	}
	free(copy);
	return ret;
}

void corecap_list_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
