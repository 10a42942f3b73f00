/*
 * `corecap clock`: each host's monotonic clock against this one's, with
 * its bound (clock_sync.h, docs/hosts.md); and `corecap clock-serve`, the
 * hidden remote end it runs through the remote shell.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <corecap/collector.h>
#include <corecap/diag.h>
#include <corecap/opt_table.h>

#include "clock_sync.h"
#include "host_spec.h"

const char corecap_clock_usage[] =
	"usage: corecap clock [--rsh CMD] [--corecap-path PATH] [-n PINGS] [-d SECONDS]\n"
	"                     [--json] HOST...\n"
	"\n"
	"Measures each HOST's CLOCK_MONOTONIC against this host's: runs\n"
	"'CMD HOST PATH clock-serve' and times PINGS request/reply exchanges over\n"
	"its stdin and stdout. Each exchange bounds the offset by half its round\n"
	"trip; the exchanges of least round trip give the offset (remote minus\n"
	"local) and the bound. With -d, a second burst SECONDS later gives the\n"
	"drift in parts per million.\n"
	"\n"
	"options:\n";

/* The options, in the help's order; getopt_long's array and string come from it. */
static const struct corecap_opt clock_options[] = {
	CORECAP_OPT_ARG('r', 0, "rsh", "CMD", "the remote shell, split at blanks (default: ssh)"),
	CORECAP_OPT_ARG('P', 0, "corecap-path", "PATH",
			"corecap on the remote hosts (default: corecap)"),
	CORECAP_OPT_ARG('n', 'n', "pings", "N", "pings per burst, 10-100000 (default 200)"),
	CORECAP_OPT_ARG('d', 'd', "duration", "S", "a second burst S seconds later, for the drift"),
	CORECAP_OPT_FLAG('j', 0, "json", "one JSON object on stdout"),
	CORECAP_OPT_FLAG('h', 'h', "help", "this help"),
};

CORECAP_OPT_TABLE(corecap_clock_help, corecap_clock_usage, clock_options,
		  "\n"
		  "See also: corecap-clock(1), docs/hosts.md.\n",
		  .help_col = 23, .shorts = CORECAP_SHORTS_INLINE);

struct clock_result {
	struct corecap_clock_estimate start, end;
	bool have_end;
	bool ok;
};

/* Writes s as a JSON string (the host's destination: printable, no spaces). */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

static int measure(const char *rsh, const char *path, const char *host, size_t pings,
		   double duration_s, struct clock_result *r)
{
	const char *cmd[] = {path, "clock-serve", NULL};
	char *words[CORECAP_RSH_WORDS_MAX + 4], *copy = NULL;
	struct corecap_clock_sync cs;
	int ret, status;

	if (!corecap_host_reach_ok(host)) {
		corecap_error("bad host '%s': printable, without blanks, not starting with '-'",
			      host);
		return -EINVAL;
	}
	ret = corecap_rsh_argv(rsh, host, cmd, &copy, words, sizeof(words) / sizeof(words[0]));
	if (ret < 0) {
		corecap_error("bad --rsh '%s': empty or over %d words", rsh, CORECAP_RSH_WORDS_MAX);
		goto out_free;
	}
	ret = corecap_clock_sync_open(&cs, words, -1);
	if (ret == 0)
		ret = corecap_clock_sync_burst(&cs, pings, &r->start);
	if (ret == 0 && duration_s > 0) {
		usleep((useconds_t)(duration_s * 1e6));
		ret = corecap_clock_sync_burst(&cs, pings, &r->end);
		r->have_end = ret == 0;
	}
	status = corecap_clock_sync_release(&cs);
	if (ret < 0) {
		if (status > 0 && status != 128 + 9)
			corecap_error("cannot measure host '%s': %s (the remote shell exited with "
				      "status %d)",
				      host, cs.error, status);
		else
			corecap_error("cannot measure host '%s': %s", host, cs.error);
	}
	r->ok = ret == 0;
out_free:
	free(copy);
	return ret;
}

int corecap_cmd_clock(int argc, char **argv)
{
	struct corecap_getopt g;
	const char *rsh = "ssh", *path = "corecap";
	size_t pings = CORECAP_CLOCK_PINGS_DEFAULT;
	double duration_s = 0;
	bool json = false, first = true;
	struct clock_result *res;
	int c, status = 0, n;
	char *end;

	corecap_opts_start(&g, &corecap_clock_help, "+", NULL);
	opterr = 0; /* our own message, one line, then the usage */
	while ((c = corecap_opts_next(&g, argc, argv)) != -1) {
		switch (c) {
		case 'r':
			rsh = optarg;
			break;
		case 'P':
			path = optarg;
			break;
		case 'n': {
			unsigned long v;

			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || optarg[0] < '0' || optarg[0] > '9' || v < 10 ||
			    v > CORECAP_CLOCK_PINGS_MAX)
				return corecap_usage_error(corecap_clock_usage,
							   "bad -n '%s': 10 to %d pings", optarg,
							   CORECAP_CLOCK_PINGS_MAX);
			pings = v;
			break;
		}
		case 'd':
			errno = 0;
			duration_s = strtod(optarg, &end);
			if (errno || *end || !(duration_s >= 0.1 && duration_s <= 3600))
				return corecap_usage_error(corecap_clock_usage,
							   "bad -d '%s': 0.1 to 3600 seconds",
							   optarg);
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			corecap_cmd_help(stdout, &corecap_clock_help);
			return 0;
		default:
			return corecap_usage_error(corecap_clock_usage,
						   "unknown option or missing value: '%s'",
						   argv[optind - 1]);
		}
	}
	n = argc - optind;
	if (n < 1)
		return corecap_usage_error(corecap_clock_usage, "expected at least one HOST");
	res = calloc((size_t)n, sizeof(*res));
	if (!res) {
		corecap_error("cannot allocate: %s", strerror(ENOMEM));
		return 1;
	}
	for (int i = 0; i < n; i++)
		if (measure(rsh, path, argv[optind + i], pings, duration_s, &res[i]) < 0)
			status = 1;
	if (json)
		printf("{\"pings\": %zu, \"hosts\": [", pings);
	for (int i = 0; i < n; i++) {
		const struct clock_result *r = &res[i];
		double drift = 0, drift_bound = 0;

		if (!r->ok)
			continue;
		if (r->have_end)
			drift = corecap_clock_drift_ppm(&r->start, &r->end, &drift_bound);
		if (json) {
			printf("%s{\"host\": ", first ? "" : ", ");
			json_str(argv[optind + i]);
			printf(", \"offset_ns\": %" PRId64 ", \"bound_ns\": %" PRIu64
			       ", \"rtt_min_ns\": %" PRIu64 ", \"used\": %zu",
			       r->start.offset_ns, r->start.bound_ns, r->start.rtt_min_ns,
			       r->start.used);
			if (r->have_end)
				printf(", \"end_offset_ns\": %" PRId64 ", \"drift_ppm\": %.3f, "
				       "\"drift_bound_ppm\": %.3f",
				       r->end.offset_ns, drift, drift_bound);
			printf("}");
		} else {
			printf("%s: offset %+.9f s, bound %.1f us (least round trip %.1f us; %zu "
			       "of "
			       "%zu pings kept)",
			       argv[optind + i], (double)r->start.offset_ns / 1e9,
			       (double)r->start.bound_ns / 1e3, (double)r->start.rtt_min_ns / 1e3,
			       r->start.used, pings);
			if (r->have_end)
				printf("; drift %+.3f ppm +- %.3f", drift, drift_bound);
			printf("\n");
		}
		first = false;
	}
	if (json)
		printf("]}\n");
	free(res);
	return status;
}

int corecap_cmd_clock_serve(int argc, char **argv)
{
	int ret;

	(void)argv;
	if (argc != 1)
		return corecap_usage_error(corecap_clock_serve_usage, "takes no arguments");
	ret = corecap_clock_serve(STDIN_FILENO, STDOUT_FILENO);
	if (ret < 0) {
		corecap_error("cannot serve clock pings: %s",
			      ret == -EPROTO ? "a request that is not 'p SEQ'" : strerror(-ret));
		return 1;
	}
	return 0;
}

const char corecap_clock_serve_usage[] =
	"usage: corecap clock-serve\n"
	"\n"
	"Internal: the remote end of 'corecap clock' and 'corecap record --hosts'.\n"
	"Answers each line 'p SEQ' on stdin with 't SEQ NS' on stdout, NS this\n"
	"host's CLOCK_MONOTONIC in nanoseconds, until EOF.\n";
