/*
 * lines: a growing list of formatted sentences (a verdict's evidence, a
 * report's warnings), as a plain array and count so that renderers read
 * them without knowing this helper.
 */
#ifndef CORECAP_LINES_H
#define CORECAP_LINES_H

#include <stdarg.h>
#include <stddef.h>

/* Appends one formatted line to *v (count *n); 0 or -ENOMEM. */
int corecap_lines_vadd(char ***v, size_t *n, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
int corecap_lines_add(char ***v, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Appends the items of a comma-separated list, each a line; 0 or -ENOMEM. */
int corecap_lines_split(char ***v, size_t *n, const char *list);
/* Frees every line and the array; *v and *n are reset. */
void corecap_lines_release(char ***v, size_t *n);

#endif
