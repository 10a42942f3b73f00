/*
 * clock_sync: one remote host's CLOCK_MONOTONIC against this host's, from
 * pings over a remote shell (docs/hosts.md).
 *
 * The remote runs `corecap clock --serve` behind the user's remote shell
 * (`RSH HOST corecap clock --serve`); it says CORECAP_CLOCK_HELLO, then for
 * each line "p SEQ" read on its stdin answers "t SEQ NS" on its stdout, NS
 * its CLOCK_MONOTONIC read right after the request arrived. Each exchange
 * gives this host's send and receive times around the remote's reading:
 * its offset (remote minus the midpoint of send and receive, NTP's) is
 * within half its round trip of the true offset whatever the delays each
 * way, since the remote read its clock between the two. A burst keeps the
 * exchanges of least round trip; the offset is their mean and the bound
 * half the largest round trip kept. Two bursts, at a window's start and
 * end, give the drift.
 *
 * Guarantees: the remote's replies are untrusted input: every line is at
 * most CORECAP_CLOCK_LINE_MAX bytes, parsed strictly (decimal, no sign, no
 * spaces but the one separator, the sequence number the one sent), and
 * every wait for it bounded (CORECAP_CLOCK_REPLY_TIMEOUT_MS); a remote
 * that breaks the protocol ends the session with -EPROTO.
 */
#ifndef CORECAP_COLLECTOR_CLOCK_SYNC_H
#define CORECAP_COLLECTOR_CLOCK_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "line_in.h"
#include <sys/types.h>

#define CORECAP_CLOCK_HELLO	       "corecap-clock 1"
#define CORECAP_CLOCK_LINE_MAX	       64
#define CORECAP_CLOCK_REPLY_TIMEOUT_MS 5000
/* The first reply waits for the remote shell to connect and start corecap. */
#define CORECAP_CLOCK_HELLO_TIMEOUT_MS 30000
#define CORECAP_CLOCK_PINGS_DEFAULT    200
#define CORECAP_CLOCK_PINGS_MAX	       100000
/* Exchanges kept: those within this share of the least round trip (and 1 us). */
#define CORECAP_CLOCK_KEEP_PCT 10

/* One ping: this host's send and receive times around the remote's reading. */
struct corecap_clock_exchange {
	uint64_t send_ns;
	uint64_t remote_ns;
	uint64_t recv_ns;
};

/* A burst's result: remote = local + offset_ns, within +-bound_ns. */
struct corecap_clock_estimate {
	int64_t offset_ns;
	uint64_t bound_ns;   /* half the largest round trip kept */
	uint64_t rtt_min_ns; /* the least round trip */
	uint64_t at_ns;	     /* this host's time of the least-round-trip exchange */
	size_t used;	     /* exchanges kept */
	size_t valid;	     /* exchanges that were well formed (receive after send) */
};

/* A session with one host's `corecap clock --serve`. */
struct corecap_clock_sync {
	pid_t pid; /* the remote shell, or -1 */
	int to_fd, from_fd;
	struct line_in in; /* from_fd's lines */
	uint32_t seq;
	char error[256]; /* the cause of the last failure */
};

/*
 * The estimate from n exchanges (pure arithmetic, no I/O): -EINVAL when
 * none is well formed.
 */
int corecap_clock_estimate(const struct corecap_clock_exchange *x, size_t n,
			   struct corecap_clock_estimate *out);
/*
 * The drift between two estimates, remote against local, in parts per
 * million; its uncertainty (the bounds over the span) in *bound_ppm.
 * 0 and a bound of 0 when the two are not apart in time.
 */
double corecap_clock_drift_ppm(const struct corecap_clock_estimate *start,
			       const struct corecap_clock_estimate *end, double *bound_ppm);
/* Parses one reply line "t SEQ NS" (no newline); 0 or -EPROTO. */
int corecap_clock_parse_reply(const char *line, uint32_t *seq, uint64_t *ns);

/*
 * Starts argv (the remote shell and `corecap clock --serve`) with pipes
 * for its stdin and stdout (its stderr to err_fd, or inherited when -1)
 * and reads the hello. 0, or -errno with the cause in cs->error.
 */
int corecap_clock_sync_open(struct corecap_clock_sync *cs, char *const argv[], int err_fd);
/* n pings and their estimate; 0, or -errno with the cause in cs->error. */
int corecap_clock_sync_burst(struct corecap_clock_sync *cs, size_t n,
			     struct corecap_clock_estimate *out);
/*
 * Ends the session (EOF to the remote) and reaps the remote shell, killing
 * it after a bounded wait; its exit status (or 128+signal), -1 if none.
 */
int corecap_clock_sync_release(struct corecap_clock_sync *cs);

/* The remote side: serves pings from in_fd to out_fd until EOF; 0 or -errno. */
int corecap_clock_serve(int in_fd, int out_fd);

#endif
