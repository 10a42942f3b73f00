/*
 * parse: strict number parsing for the option modules. A value is
 * accepted only if it is all digits (no sign, no trailing text) and lies
 * in [min, max]; an optional IEC suffix (K, M, G: powers of 1024) is
 * allowed where the caller says so.
 */
#ifndef REFOSD_PARSE_H
#define REFOSD_PARSE_H

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* Returns 0, or -EINVAL (not a number) / -ERANGE (out of [min, max]). */
static inline int parse_ulong(const char *s, unsigned long min, unsigned long max, bool iec,
			      unsigned long *out)
{
	char *end;
	unsigned long v, mult = 1;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (iec && *end) {
		switch (*end) {
		case 'K':
		case 'k':
			mult = 1UL << 10;
			break;
		case 'M':
		case 'm':
			mult = 1UL << 20;
			break;
		case 'G':
		case 'g':
			mult = 1UL << 30;
			break;
		default:
			return -EINVAL;
		}
		end++;
	}
	if (*end)
		return -EINVAL;
	if (v > max / mult)
		return -ERANGE;
	v *= mult;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* Format the error of parse_ulong for option `opt` into err. */
static inline void parse_error(char *err, size_t errlen, const char *opt, const char *val, int r,
			       unsigned long min, unsigned long max)
{
	if (r == -ERANGE)
		snprintf(err, errlen, "option '%s': value '%s' is out of range [%lu, %lu]", opt,
			 val, min, max);
	else
		snprintf(err, errlen, "option '%s': value '%s' is not a number", opt, val);
}

#endif /* REFOSD_PARSE_H */
