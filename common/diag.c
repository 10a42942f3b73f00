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
