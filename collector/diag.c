#include <stdarg.h>
#include <stdio.h>

#include "diag.h"

bool corecap_diag_quiet;

static void vsay(const char *prefix, const char *fmt, va_list ap)
{
	char buf[2048];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	fprintf(stderr, "corecap: %s%s\n", prefix, buf);
}

void corecap_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
}

void corecap_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("warning: ", fmt, ap);
	va_end(ap);
}

void corecap_note(const char *fmt, ...)
{
	va_list ap;

	if (corecap_diag_quiet)
		return;
	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
}
