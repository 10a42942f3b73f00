/*
 * options: refosd's command line, parsed into struct osd_options.
 *
 * osd_options_init() sets the defaults (docs/refosd.md); after a
 * successful osd_options_parse() every field is within its documented
 * range and the strings point into argv (nothing is allocated).
 */
#ifndef REFOSD_OPTIONS_H
#define REFOSD_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define OSD_MAX_DEBUG 20

struct osd_options {
	unsigned port;		    /* 0: let the kernel choose */
	const char *pidfile;	    /* NULL: none */
	unsigned msgr_threads;	    /* epoll threads msgr-worker-N */
	unsigned shards;	    /* op queues */
	unsigned threads_per_shard; /* tp_osd_tp workers per queue */
	unsigned pgs;		    /* placement groups, one mutex each */
	const char *store_dir;	    /* NULL: memory store */
	bool fsync;		    /* dir store only */
	unsigned debug;		    /* log level 0..20 */
	const char *log_file;	    /* NULL: entries are written to /dev/null */
	bool big_lock;		    /* one global mutex around each op */
	unsigned op_cpu_us;	    /* CPU burnt per op */
	unsigned msgr_cpu_us;	    /* by the messenger per request */
	unsigned finisher_cpu_us;   /* by the finisher per reply */
	unsigned log_cpu_us;	    /* by the log thread per entry written */
	bool help;		    /* --help: print usage, exit 0 */
};

void osd_options_init(struct osd_options *o);

/*
 * Parse argv into o (on top of the defaults already there). Returns 0, or
 * -EINVAL with a one-line reason in err (e.g. "option '--shards': value
 * 'x' is not a number").
 */
int osd_options_parse(struct osd_options *o, int argc, char **argv, char *err, size_t errlen);

void osd_options_usage(FILE *f);

#endif /* REFOSD_OPTIONS_H */
