/*
 * struct corecap_lttng_session: the LTTng-UST recording session of one
 * `corecap record`, through liblttng-ctl.
 *
 * Guarantees: after corecap_lttng_session_init() returns 0 a session
 * named as below exists, writing CTF
 * to `trace_dir` with per-UID buffers, one discard-mode channel "corecap"
 * (8 sub-buffers of 1 MiB per CPU), the corecap_op/lock/io/thread events
 * and any extra ones enabled, the vtid context added,
 * and the virtual-PID tracker limited to the daemon. A session daemon is
 * started when none answers (and the user is told). Sessions left behind by
 * a collector that was killed are destroyed first (corecap_lttng_reap_orphans).
 * The name is corecap-<pid>-<YYYYmmdd-HHMMSS>-s<collector start time>-<collector
 * pid>: the start time (/proc/PID/stat's, in clock ticks) tells a collector
 * that died from a process that got its PID since.
 * corecap_lttng_session_release() destroys the session on every
 * path; counts of discarded events and lost packets are read before that,
 * by corecap_lttng_session_stop().
 */
#ifndef CORECAP_COLLECTOR_LTTNG_SESSION_H
#define CORECAP_COLLECTOR_LTTNG_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct lttng_handle;

enum { CORECAP_LTTNG_MAX_EVENTS = 40 };

#define CORECAP_LTTNG_CHANNEL	   "corecap"
#define CORECAP_LTTNG_SUBBUF_BYTES (1u << 20)
#define CORECAP_LTTNG_NUM_SUBBUF   8u

struct corecap_lttng_session {
	char name[128];
	struct lttng_handle *handle;
	bool created;
	bool started;
	bool started_sessiond;
	bool counts_known;
	bool target_registered; /* the daemon was seen registered with the session daemon */
	bool target_has_probes; /* ... and it has corecap tracepoints */
	bool streamed;		/* the trace goes to an lttng-relayd, not trace_dir */
	uint64_t discarded_events;
	uint64_t lost_packets;
	size_t n_events;
	char *events[CORECAP_LTTNG_MAX_EVENTS];
};

extern const char *const corecap_lttng_default_events[];
extern const size_t corecap_lttng_n_default_events;

int corecap_lttng_session_init(struct corecap_lttng_session *s, pid_t pid, const char *trace_dir,
			       const char *const *extra_events, size_t n_extra);
/*
 * As corecap_lttng_session_init(), the trace streamed to the lttng-relayd
 * at relayd_url (net://ADDR:CTRL:DATA/PATH) when it is not NULL: a
 * relayd that cannot be reached is warned about, with the cause, and the
 * trace written to trace_dir instead (`streamed` says which).
 */
int corecap_lttng_session_init_url(struct corecap_lttng_session *s, pid_t pid,
				   const char *trace_dir, const char *relayd_url,
				   const char *const *extra_events, size_t n_extra);
int corecap_lttng_session_start(struct corecap_lttng_session *s);
/* Stops (waiting for the data to be written) and reads the loss counters. */
int corecap_lttng_session_stop(struct corecap_lttng_session *s);
/* Destroys the session if it exists. */
void corecap_lttng_session_release(struct corecap_lttng_session *s);

/*
 * Stops and destroys every LTTng session named by a corecap collector that
 * is gone (dead, both it and its stop watchdog killed), so that it no
 * longer writes into that run's trace, and writes CORECAP_RUN_ORPHANED
 * into the run when the run is this user's and its mark names that
 * collector. Asks only a session daemon that already runs. Returns how
 * many sessions it destroyed.
 */
int corecap_lttng_reap_orphans(void);

#endif
