/* relayd_cmdline: a running lttng-relayd's command line, read strictly (relayd_cmdline.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "relayd_cmdline.h"

#define WORDS_MAX 64

static int fail(struct corecap_relayd_cmdline *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct corecap_relayd_cmdline *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->error, sizeof(c->error), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/*
 * The words of buf (each ended by a NUL, the last one too), printable
 * ASCII each and shorter than CORECAP_RELAYD_OUTPUT_MAX: their count, or
 * -EINVAL.
 */
static int split(struct corecap_relayd_cmdline *c, const char *buf, size_t len, const char *what,
		 const char *words[], int max)
{
	int n = 0;
	size_t i = 0;

	if (!len || len > CORECAP_RELAYD_CMDLINE_MAX || buf[len - 1] != '\0')
		return fail(c, "its %s is empty, over %d bytes or not ended", what,
			    CORECAP_RELAYD_CMDLINE_MAX);
	while (i < len) {
		size_t w = strlen(buf + i);

		if (n == max)
			return fail(c, "its %s has over %d words", what, max);
		if (w >= CORECAP_RELAYD_OUTPUT_MAX)
			return fail(c, "its %s has a word of %zu bytes", what, w);
		for (size_t k = 0; k < w; k++)
			if ((unsigned char)buf[i + k] < 0x20 || (unsigned char)buf[i + k] > 0x7e)
				return fail(c, "its %s has a byte that is not printable", what);
		words[n++] = buf + i;
		i += w + 1;
	}
	return n;
}

/* "1".."65535", decimal digits alone, no leading zero: the port, or 0. */
static unsigned port_of(const char *s)
{
	unsigned v = 0;
	size_t n = strlen(s);

	if (!n || n > 5 || s[0] == '0')
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	return v <= 65535 ? v : 0;
}

/* "tcp://IPV4:PORT" into addr (16 bytes) and port; 0 or -EINVAL. */
static int parse_url(struct corecap_relayd_cmdline *c, const char *opt, const char *url, char *addr,
		     unsigned *port)
{
	const char *a = url + 6, *colon;
	struct in_addr in;
	size_t n;

	if (strncmp(url, "tcp://", 6) != 0 || !(colon = strchr(a, ':')) ||
	    (n = (size_t)(colon - a)) == 0 || n > 15)
		return fail(c, "%s '%.80s' is not tcp://IPV4:PORT", opt, url);
	memcpy(addr, a, n);
	addr[n] = '\0';
	if (inet_pton(AF_INET, addr, &in) != 1 || !(*port = port_of(colon + 1)))
		return fail(c, "%s '%.80s' is not tcp://IPV4:PORT (PORT 1 to 65535)", opt, url);
	return 0;
}

/* An absolute path without "." or ".." parts, empty parts or a trailing '/'. */
static bool plain_path(const char *p)
{
	size_t n = strnlen(p, CORECAP_RELAYD_OUTPUT_MAX);

	for (size_t i = 0; i < n; i++)
		if ((unsigned char)p[i] < 0x20 || (unsigned char)p[i] > 0x7e)
			return false;
	if (n >= CORECAP_RELAYD_OUTPUT_MAX || p[0] != '/' || n < 2 || p[n - 1] == '/' ||
	    strstr(p, "//"))
		return false;
	for (const char *s = p; s; s = strchr(s + 1, '/'))
		if (strncmp(s, "/./", 3) == 0 || strcmp(s, "/.") == 0 ||
		    strncmp(s, "/../", 4) == 0 || strcmp(s, "/..") == 0)
			return false;
	return true;
}

static int set_output(struct corecap_relayd_cmdline *c, const char *what, const char *dir,
		      const char *tail)
{
	if (!plain_path(dir))
		return fail(c,
			    "%s is not an absolute path of plain parts (printable, no '.', '..' or "
			    "empty parts)",
			    what);
	if ((size_t)snprintf(c->output, sizeof(c->output), "%s%s", dir, tail) >= sizeof(c->output))
		return fail(c, "%s '%.80s' is too long", what, dir);
	return 0;
}

enum opt_kind { OPT_FLAG, OPT_ARG, OPT_REFUSED };

struct relayd_opt {
	char short_name; /* 0: long only */
	const char *long_name;
	enum opt_kind kind;
};

/* lttng-relayd 2.13's options (lttng-relayd(8)); --help and the like never leave one running. */
static const struct relayd_opt relayd_opts[] = {
	{'b', "background", OPT_FLAG},
	{'d', "daemonize", OPT_FLAG},
	{'x', "disallow-clear", OPT_FLAG},
	{'v', "verbose", OPT_FLAG},
	{'p', "group-output-by-host", OPT_FLAG},
	{'s', "group-output-by-session", OPT_REFUSED},
	{'f', "config", OPT_REFUSED},
	{0, "fd-pool-size", OPT_ARG},
	{'g', "group", OPT_ARG},
	{'w', "working-directory", OPT_ARG},
	{'o', "output", OPT_ARG},
	{'C', "control-port", OPT_ARG},
	{'D', "data-port", OPT_ARG},
	{'L', "live-port", OPT_ARG},
};

/* An option's argument: what is taken. */
static int take_arg(struct corecap_relayd_cmdline *c, char name, const char *arg)
{
	char live_addr[16];

	switch (name) {
	case 'o':
		return set_output(c, "-o", arg, "");
	case 'C':
		return parse_url(c, "-C", arg, c->ctrl_addr, &c->ctrl_port);
	case 'D':
		return parse_url(c, "-D", arg, c->data_addr, &c->data_port);
	case 'L':
		return parse_url(c, "-L", arg, live_addr, &c->live_port);
	case 'F': /* --fd-pool-size */
		return port_of(arg) || strcmp(arg, "0") == 0
			       ? 0
			       : fail(c, "--fd-pool-size '%.20s' is not a number", arg);
	default: /* -g GROUP, -w DIR: nothing of ours depends on them */
		return 0;
	}
}

/* One option at words[*i]; *i moves past its argument. 0 or -EINVAL. */
static int parse_opt(struct corecap_relayd_cmdline *c, const char *const words[], int n, int *i)
{
	const char *w = words[*i], *arg = NULL;
	const struct relayd_opt *o = NULL;
	size_t count = sizeof(relayd_opts) / sizeof(relayd_opts[0]);

	if (w[0] != '-' || !w[1])
		return fail(c, "an unexpected word '%.40s'", w);
	if (w[1] == '-') {
		const char *eq = strchr(w + 2, '=');
		size_t len = eq ? (size_t)(eq - w - 2) : strlen(w + 2);

		for (size_t k = 0; k < count && !o; k++)
			if (strlen(relayd_opts[k].long_name) == len &&
			    strncmp(relayd_opts[k].long_name, w + 2, len) == 0)
				o = &relayd_opts[k];
		if (o && eq)
			arg = eq + 1;
		if (o && o->kind == OPT_FLAG && eq)
			return fail(c, "'%.40s' takes no value", w);
	} else if (strspn(w + 1, "v") == strlen(w + 1)) {
		return 0; /* -v, -vv, -vvv */
	} else {
		for (size_t k = 0; k < count && !o; k++)
			if (relayd_opts[k].short_name == w[1])
				o = &relayd_opts[k];
		if (o && o->kind == OPT_ARG && w[2])
			arg = w + 2;
		else if (o && w[2])
			return fail(c, "'%.40s': grouped short options are not read", w);
	}
	if (!o)
		return fail(c, "an option it does not know, '%.40s'", w);
	if (o->kind == OPT_REFUSED)
		return fail(c, "--%s: %s", o->long_name,
			    o->short_name == 'f' ? "a configuration file could set anything"
						 : "its output is laid out by session");
	if (o->kind == OPT_FLAG)
		return 0;
	if (!arg) {
		if (*i + 1 >= n)
			return fail(c, "'%.40s' without its value", w);
		arg = words[++*i];
	}
	return take_arg(c, o->short_name ? o->short_name : 'F', arg);
}

int corecap_relayd_cmdline_parse(struct corecap_relayd_cmdline *c, const char *buf, size_t len)
{
	const char *words[WORDS_MAX], *base;
	int n, ret = 0;

	memset(c, 0, sizeof(*c));
	c->ctrl_port = CORECAP_RELAYD_CTRL_PORT;
	c->data_port = CORECAP_RELAYD_DATA_PORT;
	c->live_port = CORECAP_RELAYD_LIVE_PORT;
	snprintf(c->ctrl_addr, sizeof(c->ctrl_addr), "0.0.0.0");
	snprintf(c->data_addr, sizeof(c->data_addr), "0.0.0.0");
	n = split(c, buf, len, "command line", words, WORDS_MAX);
	if (n < 0)
		return n;
	base = strrchr(words[0], '/');
	base = base ? base + 1 : words[0];
	if (strcmp(base, "lttng-relayd") != 0)
		return fail(c, "its command '%.60s' is not lttng-relayd", words[0]);
	for (int i = 1; i < n && ret == 0; i++) {
		if (strcmp(words[i], "--") == 0)
			return fail(c, "a '--' in its command line");
		ret = parse_opt(c, words, n, &i);
	}
	if (ret == 0 && (c->ctrl_port == c->data_port || c->ctrl_port == c->live_port ||
			 c->data_port == c->live_port))
		ret = fail(c, "two of its ports are the same (%u, %u, %u)", c->ctrl_port,
			   c->data_port, c->live_port);
	return ret;
}

int corecap_relayd_cmdline_env(struct corecap_relayd_cmdline *c, const char *buf, size_t len)
{
	const char *lttng_home = NULL, *home = NULL, *h;
	bool had_output = *c->output;

	/* Other variables may hold any byte: only the two read are checked (set_output). */
	if (!len || len > CORECAP_RELAYD_ENVIRON_MAX || buf[len - 1] != '\0')
		return fail(c, "its environment is empty, over %d bytes or not ended",
			    CORECAP_RELAYD_ENVIRON_MAX);
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1) {
		if (strncmp(buf + i, "LTTNG_HOME=", 11) == 0)
			lttng_home = buf + i + 11;
		else if (strncmp(buf + i, "HOME=", 5) == 0)
			home = buf + i + 5;
	}
	h = lttng_home && *lttng_home ? lttng_home : home && *home ? home : NULL;
	if (!h)
		return had_output
			       ? 0
			       : fail(c, "neither -o nor LTTNG_HOME or HOME say where it writes");
	if (!plain_path(h))
		return fail(c, "its %s is not an absolute path of plain parts",
			    h == lttng_home ? "LTTNG_HOME" : "HOME");
	snprintf(c->home, sizeof(c->home), "%s", h);
	return had_output ? 0
			  : set_output(c, h == lttng_home ? "its LTTNG_HOME" : "its HOME", h,
				       "/lttng-traces");
}
