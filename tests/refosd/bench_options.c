/* bench_options: refbench's command line; see bench_options.h. */
#include "bench_options.h"

#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "parse.h"
#include "protocol.h"

enum {
	OPT_NO_PROGRESS = 256,
	OPT_HELP,
	OPT_OP_LOG,
};

static const struct option long_options[] = {
	{"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
	{"help", no_argument, NULL, OPT_HELP},
	{"op-log", required_argument, NULL, OPT_OP_LOG},
	{NULL, 0, NULL, 0},
};

void bench_options_init(struct bench_options *o)
{
	*o = (struct bench_options){
		.host = "127.0.0.1",
		.concurrency = 16,
		.bytes = 4u << 20,
		.seconds = 10,
		.progress = true,
	};
}

void bench_options_usage(FILE *f)
{
	fputs("usage: refbench [-H HOST] -p PORT [-t CONCURRENCY] [-b BYTES] [-d SECONDS]\n"
	      "                [--no-progress] [--op-log FILE] write|seq|rand\n"
	      "  -H HOST         daemon address (default 127.0.0.1)\n"
	      "  -p PORT         daemon port (required)\n"
	      "  -t CONCURRENCY  ops in flight, one connection each, 1-1024 (default 16)\n"
	      "  -b BYTES        write size, K/M suffixes allowed, 1-64M (default 4M)\n"
	      "  -d SECONDS      run time, 1-86400 (default 10)\n"
	      "  --no-progress   no per-second table, only the summary\n"
	      "  --op-log FILE   append each op's id and times to FILE (default: the file\n"
	      "                  CORECAP_CLIENT_OPS names, which corecap record --hosts sets)\n"
	      "  write leaves its objects and a metadata object; seq and rand read them back\n",
	      f);
}

const char *bench_mode_name(enum bench_mode mode)
{
	switch (mode) {
	case BENCH_WRITE:
		return "write";
	case BENCH_SEQ:
		return "seq";
	case BENCH_RAND:
		return "rand";
	default:
		return "none";
	}
}

static int opt_uint(const char *opt, const char *val, unsigned long min, unsigned long max,
		    bool iec, unsigned *out, char *err, size_t errlen)
{
	unsigned long v;
	int r = parse_ulong(val, min, max, iec, &v);

	if (r < 0) {
		parse_error(err, errlen, opt, val, r, min, max);
		return -EINVAL;
	}
	*out = (unsigned)v;
	return 0;
}

int bench_options_parse(struct bench_options *o, int argc, char **argv, char *err, size_t errlen)
{
	bool have_port = false;
	int c, r = 0;

	optind = 0;
	opterr = 0;
	while (r == 0 && (c = getopt_long(argc, argv, ":H:p:t:b:d:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'H':
			o->host = optarg;
			break;
		case 'p':
			r = opt_uint("-p", optarg, 1, 65535, false, &o->port, err, errlen);
			have_port = true;
			break;
		case 't':
			r = opt_uint("-t", optarg, 1, BENCH_MAX_CONCURRENCY, false, &o->concurrency,
				     err, errlen);
			break;
		case 'b':
			r = opt_uint("-b", optarg, 1, PROTO_MAX_DATA, true, &o->bytes, err, errlen);
			break;
		case 'd':
			r = opt_uint("-d", optarg, 1, 86400, false, &o->seconds, err, errlen);
			break;
		case OPT_OP_LOG:
			o->op_log = optarg;
			break;
		case OPT_NO_PROGRESS:
			o->progress = false;
			break;
		case 'h':
		case OPT_HELP:
			o->help = true;
			break;
		case ':':
			if (optopt && optopt < 256)
				snprintf(err, errlen, "option '-%c' needs a value", optopt);
			else
				snprintf(err, errlen, "option '%s' needs a value",
					 argv[optind - 1]);
			r = -EINVAL;
			break;
		default:
			if (optopt >= 256)
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
	if (r < 0 || o->help)
		return r;
	if (optind >= argc) {
		snprintf(err, errlen, "missing mode: write, seq or rand");
		return -EINVAL;
	}
	if (strcmp(argv[optind], "write") == 0) {
		o->mode = BENCH_WRITE;
	} else if (strcmp(argv[optind], "seq") == 0) {
		o->mode = BENCH_SEQ;
	} else if (strcmp(argv[optind], "rand") == 0) {
		o->mode = BENCH_RAND;
	} else {
		snprintf(err, errlen, "unknown mode '%s': expected write, seq or rand",
			 argv[optind]);
		return -EINVAL;
	}
	if (optind + 1 < argc) {
		snprintf(err, errlen, "unexpected argument '%s'", argv[optind + 1]);
		return -EINVAL;
	}
	if (!have_port) {
		snprintf(err, errlen, "missing -p PORT");
		return -EINVAL;
	}
	return 0;
}
