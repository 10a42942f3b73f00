#include "lines.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

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

void corecap_lines_release(char ***v, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		free((*v)[i]);
	free(*v);
	*v = NULL;
	*n = 0;
}
