#include "cmd_util.h"

#include <stdarg.h>
#include <stdio.h>

void corecap_analysis_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "corecap: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
}

char *corecap_path_in(const char *dir, const char *name)
{
	char *p;

	return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}
