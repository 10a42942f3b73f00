#include <corecap/diag.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool corecap_diag_quiet;

static char prefix[64] = "corecap";
static unsigned long warnings;
/* The pending error's causes, innermost first, "; "-free: ": " joins them. */
static char causes[2048];

void corecap_diag_begin(const char *command)
{
	snprintf(prefix, sizeof(prefix), command ? "corecap %s" : "corecap", command);
	warnings = 0;
	causes[0] = '\0';
}

const char *corecap_diag_prefix(void)
{
	return prefix;
}

unsigned long corecap_diag_warnings(void)
{
	return warnings;
}

static void vsay(const char *kind, const char *fmt, va_list ap, const char *tail)
{
	char buf[2048];
	int saved = errno;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	fprintf(stderr, "%s: %s%s%s%s\n", prefix, kind, buf, tail[0] ? ": " : "", tail);
	errno = saved;
}

void corecap_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", fmt, ap, causes);
	va_end(ap);
	causes[0] = '\0';
}

void corecap_warn(const char *fmt, ...)
{
	va_list ap;

	warnings++;
	va_start(ap, fmt);
	vsay("warning: ", fmt, ap, "");
	va_end(ap);
}

void corecap_note(const char *fmt, ...)
{
	va_list ap;

	if (corecap_diag_quiet)
		return;
	va_start(ap, fmt);
	vsay("", fmt, ap, "");
	va_end(ap);
}

void corecap_cause(const char *fmt, ...)
{
	char buf[sizeof(causes)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* The later a cause, the further out: it goes first. */
	if (causes[0]) {
		size_t n = strlen(buf), left = sizeof(buf) - 1 - n;
		size_t c = strlen(causes);

		if (left >= 2) {
			memcpy(buf + n, ": ", 2);
			n += 2;
			left -= 2;
			memcpy(buf + n, causes, c < left ? c : left);
			buf[n + (c < left ? c : left)] = '\0';
		}
	}
	memcpy(causes, buf, sizeof(causes));
}

void corecap_cause_take(char *buf, size_t size)
{
	snprintf(buf, size, "%s", causes);
	causes[0] = '\0';
}

int corecap_diag_end(int status)
{
	if (causes[0]) {
		fprintf(stderr, "%s: %s\n", prefix, causes);
		causes[0] = '\0';
	}
	if (warnings)
		fprintf(stderr, "%s: %lu warning%s\n", prefix, warnings, warnings == 1 ? "" : "s");
	return status;
}

int corecap_verr(char **err, int ret, const char *fmt, va_list ap)
{
	if (vasprintf(err, fmt, ap) < 0)
		*err = NULL;
	return ret;
}

int corecap_err(char **err, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	corecap_verr(err, ret, fmt, ap);
	va_end(ap);
	return ret;
}

int corecap_err_wrap(char **err, int ret, const char *fmt, ...)
{
	char *context, *both;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&context, fmt, ap) < 0)
		context = NULL;
	va_end(ap);
	if (!context)
		return ret;
	if (asprintf(&both, "%s: %s", context, *err ? *err : strerror(-ret)) < 0)
		both = NULL;
	free(context);
	if (both) {
		free(*err);
		*err = both;
	}
	return ret;
}

/* The content of the bracket group that opens at s ('['), and its end. */
static const char *group_end(const char *s)
{
	int depth = 0;

	for (; *s; s++) {
		if (*s == '[')
			depth++;
		else if (*s == ']' && --depth == 0)
			return s + 1;
	}
	return s;
}

/*
 * An option group: "[-x ...]" or "[--long ...]", not "[--]" nor
 * "[-- BENCHMARK ARGS...]", which stand for the operands.
 */
static bool option_group(const char *s)
{
	if (strncmp(s, "[options]", 9) == 0)
		return true;
	if (s[1] != '-')
		return false;
	return !(s[2] == '-' && (s[3] == ']' || s[3] == ' '));
}

void corecap_usage_short(const char *usage, char *buf, size_t size)
{
	const char *s = strstr(usage, "usage: ");
	size_t n = 0;
	bool folded = false, space = false;

	if (!size)
		return;
	buf[0] = '\0';
	if (!s)
		return;
	s += 7;
	/* The first synopsis: its line and the indented lines that continue it. */
	for (; *s && n + 1 < size; s++) {
		if (*s == '\n') {
			const char *t = s + 1;

			while (*t == ' ' || *t == '\t')
				t++;
			if (t == s + 1 || *t == '\n' || !*t || strncmp(t, "corecap ", 8) == 0)
				break;
			space = true;
			s = t - 1;
			continue;
		}
		if (*s == ' ' || *s == '\t') {
			space = true;
			continue;
		}
		if (*s == '[' && (n == 0 || space) && option_group(s)) {
			s = group_end(s);
			if (strncmp(s, "...", 3) == 0) /* "[--event NAME]..." */
				s += 3;
			s--;
			if (folded)
				continue;
			folded = true;
			n += (size_t)snprintf(buf + n, size - n, "%s[options]", n ? " " : "");
			if (n >= size)
				n = size - 1;
			space = false;
			continue;
		}
		if (space && n) {
			buf[n++] = ' ';
			if (n + 1 >= size)
				break;
		}
		space = false;
		buf[n++] = *s;
	}
	buf[n] = '\0';
}

int corecap_usage_hint(const char *usage)
{
	char line[512];

	corecap_usage_short(usage, line, sizeof(line));
	fprintf(stderr, "usage: %s; see '%s --help'\n", line, prefix);
	return 2;
}

int corecap_usage_error(const char *usage, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", fmt, ap, causes);
	va_end(ap);
	causes[0] = '\0';
	return corecap_usage_hint(usage);
}
