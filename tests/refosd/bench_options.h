/*
 * bench_options: refbench's command line, parsed into struct
 * bench_options. After a successful parse every field is in range and
 * the mode is set; strings point into argv.
 */
#ifndef REFOSD_BENCH_OPTIONS_H
#define REFOSD_BENCH_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define BENCH_MAX_CONCURRENCY 1024

enum bench_mode {
	BENCH_NONE,
	BENCH_WRITE,
	BENCH_SEQ,
	BENCH_RAND,
};

struct bench_options {
	const char *host;     /* default 127.0.0.1 */
	unsigned port;	      /* required */
	unsigned concurrency; /* -t: ops in flight, one connection each (default 16) */
	unsigned bytes;	      /* -b: write size (default 4 MiB, like rados bench) */
	unsigned seconds;     /* -d: run time (default 10) */
	bool progress;	      /* the per-second table (on unless --no-progress) */
	const char *op_log;   /* --op-log: each op's times (op_log.h); NULL: none */
	enum bench_mode mode;
	bool help;
};

void bench_options_init(struct bench_options *o);

/* Returns 0, or -EINVAL with a one-line reason in err. */
int bench_options_parse(struct bench_options *o, int argc, char **argv, char *err, size_t errlen);

void bench_options_usage(FILE *f);

const char *bench_mode_name(enum bench_mode mode);

#endif /* REFOSD_BENCH_OPTIONS_H */
