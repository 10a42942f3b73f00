#include "cmd_util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void corecap_analysis_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "corecap: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
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
