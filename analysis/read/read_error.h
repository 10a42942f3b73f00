/*
 * read_error: how the readers of analysis/read/ hand an error back to
 * their caller: a malloc'd message in *err (NULL if even that allocation
 * failed) and a negative errno as the result, so one line does both:
 *	return corecap_read_error(err, -EINVAL, "'%s': bad magic", path);
 */
#ifndef CORECAP_READ_ERROR_H
#define CORECAP_READ_ERROR_H

#include <stdarg.h>
#include <stdio.h>

static inline int corecap_read_error(char **err, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline int corecap_read_error(char **err, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(err, fmt, ap) < 0)
		*err = NULL;
	va_end(ap);
	return ret;
}

#endif
