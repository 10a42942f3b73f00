/* options: refosd's command line; see options.h. */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "parse.h"

enum {
	OPT_PORT = 256,
	OPT_PIDFILE,
	OPT_MSGR_THREADS,
	OPT_SHARDS,
	OPT_THREADS_PER_SHARD,
	OPT_PGS,
	OPT_STORE,
	OPT_FSYNC,
	OPT_DEBUG,
	OPT_LOG_FILE,
	OPT_BIG_LOCK,
	OPT_OP_CPU_US,
	OPT_MSGR_CPU_US,
	OPT_FINISHER_CPU_US,
	OPT_LOG_CPU_US,
	OPT_HELP,
};

static const struct option long_options[] = {
	{"port", required_argument, NULL, OPT_PORT},
	{"pidfile", required_argument, NULL, OPT_PIDFILE},
	{"msgr-threads", required_argument, NULL, OPT_MSGR_THREADS},
	{"shards", required_argument, NULL, OPT_SHARDS},
	{"threads-per-shard", required_argument, NULL, OPT_THREADS_PER_SHARD},
	{"pgs", required_argument, NULL, OPT_PGS},
	{"store", required_argument, NULL, OPT_STORE},
	{"fsync", no_argument, NULL, OPT_FSYNC},
	{"debug", required_argument, NULL, OPT_DEBUG},
	{"log-file", required_argument, NULL, OPT_LOG_FILE},
	{"big-lock", no_argument, NULL, OPT_BIG_LOCK},
	{"op-cpu-us", required_argument, NULL, OPT_OP_CPU_US},
	{"msgr-cpu-us", required_argument, NULL, OPT_MSGR_CPU_US},
	{"finisher-cpu-us", required_argument, NULL, OPT_FINISHER_CPU_US},
	{"log-cpu-us", required_argument, NULL, OPT_LOG_CPU_US},
	{"help", no_argument, NULL, OPT_HELP},
	{NULL, 0, NULL, 0},
};

void osd_options_init(struct osd_options *o)
{
	*o = (struct osd_options){
		.port = 0,
		.msgr_threads = 3,
		.shards = 5,
		.threads_per_shard = 2,
		.pgs = 32,
		.debug = 1,
		.op_cpu_us = 0,
	};
}

void osd_options_usage(FILE *f)
{
	fputs("usage: refosd [options]\n"
	      "  --port N               TCP port on 127.0.0.1 (0: choose one; default 0)\n"
	      "  --pidfile PATH         write the pid there, remove it on exit\n"
	      "  --msgr-threads N       messenger (epoll) threads, 1-64 (default 3)\n"
	      "  --shards S             op queue shards, 1-64 (default 5)\n"
	      "  --threads-per-shard T  workers per shard, 1-64 (default 2)\n"
	      "  --pgs P                placement groups (one lock each), 1-65536 (default 32)\n"
	      "  --store mem|dir:PATH   object store (default mem)\n"
	      "  --fsync                fsync each object written (dir store only)\n"
	      "  --debug N              log level 0-20 (default 1)\n"
	      "  --log-file PATH        log file (default: entries go to /dev/null)\n"
	      "  --big-lock             hold one global mutex around each op\n"
	      "  --op-cpu-us U          burn U us of CPU per op, 0-1000000 (default 0)\n"
	      "  --msgr-cpu-us U        the messenger burns U us per request, 0-1000000 (default 0)\n"
	      "  --finisher-cpu-us U    the finisher burns U us per reply, 0-1000000 (default 0)\n"
	      "  --log-cpu-us U         the log thread burns U us per entry, 0-1000000 (default 0)\n"
	      "  --help                 print this and exit\n",
	      f);
}

/* Parse an unsigned option value into *out, or describe the error. */
static int opt_uint(const char *opt, const char *val, unsigned long min, unsigned long max,
		    unsigned *out, char *err, size_t errlen)
{
	unsigned long v;
	int r = parse_ulong(val, min, max, false, &v);

	if (r < 0) {
		parse_error(err, errlen, opt, val, r, min, max);
		return -EINVAL;
	}
	*out = (unsigned)v;
	return 0;
}

int osd_options_parse(struct osd_options *o, int argc, char **argv, char *err, size_t errlen)
{
	int c, r = 0;

	/* optind = 0 makes glibc's getopt start afresh, so parsing can be repeated (tests). */
	optind = 0;
	opterr = 0;
	while (r == 0 && (c = getopt_long(argc, argv, ":", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_PORT:
			r = opt_uint("--port", optarg, 0, 65535, &o->port, err, errlen);
			break;
		case OPT_PIDFILE:
			o->pidfile = optarg;
			break;
		case OPT_MSGR_THREADS:
			r = opt_uint("--msgr-threads", optarg, 1, 64, &o->msgr_threads, err,
				     errlen);
			break;
		case OPT_SHARDS:
			r = opt_uint("--shards", optarg, 1, 64, &o->shards, err, errlen);
			break;
		case OPT_THREADS_PER_SHARD:
			r = opt_uint("--threads-per-shard", optarg, 1, 64, &o->threads_per_shard,
				     err, errlen);
			break;
		case OPT_PGS:
			r = opt_uint("--pgs", optarg, 1, 65536, &o->pgs, err, errlen);
			break;
		case OPT_STORE:
			if (strcmp(optarg, "mem") == 0) {
				o->store_dir = NULL;
			} else if (strncmp(optarg, "dir:", 4) == 0 && optarg[4]) {
				o->store_dir = optarg + 4;
			} else {
				snprintf(err, errlen,
					 "option '--store': value '%s' is neither 'mem' nor "
					 "'dir:PATH'",
					 optarg);
				r = -EINVAL;
			}
			break;
		case OPT_FSYNC:
			o->fsync = true;
			break;
		case OPT_DEBUG:
			r = opt_uint("--debug", optarg, 0, OSD_MAX_DEBUG, &o->debug, err, errlen);
			break;
		case OPT_LOG_FILE:
			o->log_file = optarg;
			break;
		case OPT_BIG_LOCK:
			o->big_lock = true;
			break;
		case OPT_OP_CPU_US:
			r = opt_uint("--op-cpu-us", optarg, 0, 1000000, &o->op_cpu_us, err, errlen);
			break;
		case OPT_MSGR_CPU_US:
			r = opt_uint("--msgr-cpu-us", optarg, 0, 1000000, &o->msgr_cpu_us, err,
				     errlen);
			break;
		case OPT_FINISHER_CPU_US:
			r = opt_uint("--finisher-cpu-us", optarg, 0, 1000000, &o->finisher_cpu_us,
				     err, errlen);
			break;
		case OPT_LOG_CPU_US:
			r = opt_uint("--log-cpu-us", optarg, 0, 1000000, &o->log_cpu_us, err, errlen);
			break;
		case OPT_HELP:
			o->help = true;
			break;
		case ':':
			snprintf(err, errlen, "option '%s' needs a value", argv[optind - 1]);
			r = -EINVAL;
			break;
		default:
			/*
			 * getopt sets optopt to a long option's value when that option
			 * was given a value it takes none of.
			 */
			if (optopt >= OPT_PORT)
				snprintf(err, errlen, "option '%s' takes no value",
					 argv[optind - 1]);
			else if (optopt)
				snprintf(err, errlen, "unknown option '-%c'", optopt);
			else
				snprintf(err, errlen, "unknown option '%s'", argv[optind - 1]);
			r = -EINVAL;
			break;
		}
	}
	if (r == 0 && optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
		r = -EINVAL;
	}
	if (r == 0 && o->fsync && !o->store_dir) {
		snprintf(err, errlen, "option '--fsync' needs '--store dir:PATH'");
		r = -EINVAL;
	}
	return r;
}
