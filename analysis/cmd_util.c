#include "cmd_util.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int corecap_cmd_operands(int argc, int n, const char *what, const char *usage)
{
	int got = argc - optind;

	if (got == n)
		return 0;
	corecap_error("expected %s, got %d argument%s", what, got, got == 1 ? "" : "s");
	fputs(usage, stderr);
	return 2;
}

void corecap_analysis_warn_torn(const char *path)
{
	corecap_warn("'%s' ends in a torn line (its collector was killed while writing it): "
		     "read up to its last whole line; the run is partial",
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
