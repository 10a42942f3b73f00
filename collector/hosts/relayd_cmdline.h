/*
 * relayd_cmdline: where a running lttng-relayd listens and writes, as its
 * command line and environment say (host_relayd.c reuses a relayd only
 * when they say all of it plainly).
 *
 * corecap_relayd_cmdline_parse() reads /proc/PID/cmdline's bytes: words
 * each ended by a NUL, at most CORECAP_RELAYD_CMDLINE_MAX bytes, the
 * first naming lttng-relayd. It fills the control, data and live ports
 * (the relayd's defaults 5342, 5343 and 5344 when -C, -D or -L is not
 * given), the control and data addresses (IPv4 literals, default
 * 0.0.0.0) and the output directory when -o names one. It refuses, the
 * reason in c->error: a word that is not printable ASCII or too long; an
 * option it does not know, or a form of one it does not (a configuration
 * file, -f, among them: it could set anything); --group-output-by-session
 * (another layout of the output); a URL other than tcp://IPV4:PORT; a
 * port outside 1..65535 or with a sign, a leading zero or more than five
 * digits; two ports the same; an output directory that is not absolute,
 * has "." or ".." parts or an empty one.
 *
 * corecap_relayd_cmdline_env() then reads /proc/PID/environ's bytes (at
 * most CORECAP_RELAYD_ENVIRON_MAX, ended by a NUL): without -o, the output is
 * $LTTNG_HOME/lttng-traces, else $HOME/lttng-traces, as lttng-relayd does, the directory checked as
 * -o's; c->home is that LTTNG_HOME or HOME (where its own configuration file would be), checked as
 * well, with or without -o.
 */
#ifndef CORECAP_COLLECTOR_RELAYD_CMDLINE_H
#define CORECAP_COLLECTOR_RELAYD_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

#define CORECAP_RELAYD_CMDLINE_MAX 8192	 /* bytes of cmdline read */
#define CORECAP_RELAYD_ENVIRON_MAX 65536 /* bytes of environ read */
#define CORECAP_RELAYD_OUTPUT_MAX  1024	 /* the output directory's path, NUL included */
#define CORECAP_RELAYD_CTRL_PORT   5342	 /* lttng-relayd's defaults */
#define CORECAP_RELAYD_DATA_PORT   5343
#define CORECAP_RELAYD_LIVE_PORT   5344

struct corecap_relayd_cmdline {
	unsigned ctrl_port, data_port, live_port;
	char ctrl_addr[16], data_addr[16];	/* dotted IPv4 */
	char output[CORECAP_RELAYD_OUTPUT_MAX]; /* "" until -o or the environment names it */
	char home[CORECAP_RELAYD_OUTPUT_MAX];	/* its LTTNG_HOME, else HOME; "" unknown */
	char error[200];
};

/* 0, or -EINVAL with c->error. len: the bytes read (NULs included). */
int corecap_relayd_cmdline_parse(struct corecap_relayd_cmdline *c, const char *buf, size_t len);
/* Without -o: the output from the environment's bytes; 0, or -EINVAL with c->error. */
int corecap_relayd_cmdline_env(struct corecap_relayd_cmdline *c, const char *buf, size_t len);

#endif
