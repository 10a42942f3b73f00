#include "lines.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int corecap_lines_vadd(char ***v, size_t *n, const char *fmt, va_list ap)
{
	char **grown, *line;

	if (vasprintf(&line, fmt, ap) < 0)
		return -ENOMEM;
	grown = realloc(*v, (*n + 1) * sizeof(*grown));
	if (!grown) {
		free(line);
		return -ENOMEM;
	}
	*v = grown;
	(*v)[(*n)++] = line;
	return 0;
}

int corecap_lines_add(char ***v, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = corecap_lines_vadd(v, n, fmt, ap);
	va_end(ap);
	return ret;
}

void corecap_lines_release(char ***v, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		free((*v)[i]);
	free(*v);
	*v = NULL;
	*n = 0;
}

int corecap_lines_split(char ***v, size_t *n, const char *list)
{
	char *copy = strdup(list), *tok, *save;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		char **grown = realloc(*v, (*n + 1) * sizeof(*grown));

		if (!grown) {
			ret = -ENOMEM;
			break;
		}
		*v = grown;
		if (!(grown[*n] = strdup(tok)))
			ret = -ENOMEM;
		else
			(*n)++;
	}
	free(copy);
	return ret;
}
