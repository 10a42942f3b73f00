/*
 * struct optracker_drain: a Ceph OSD's OpTracker history read during the
 * window in small pieces, so that the daemon never formats a large
 * history under its history lock (docs/ceph.md, "The OpTracker drained").
 *
 * `dump_historic_ops` formats every op of the history while it holds
 * OpHistory's lock, and the thread that files finished ops
 * (OpHistory::_insert_delayed, cleanup) waits meanwhile: one dump of
 * 10000 ops at the window's end held it 471 ms, and the formatting costs
 * the OSD about 47 us per op on this VM. The drain instead takes slices of
 * the window, on a thread of its own: a slice starts with the history's
 * size raised, and ends with a dump of the ops finished in it (about
 * DRAIN_TARGET_OPS: the slice follows the OSD's rate) and the size set to
 * 0 for a gap, where each op filed is trimmed as it is filed (one at a
 * time, never formatted). A corecap killed in a gap leaves the size at 0:
 * the stop watchdog (stop_watchdog.h) puts the OSD's settings back.
 * Slices take a share DRAIN_BUDGET_OPS / rate of the time, all of it
 * below that rate: the OSD formats at most about
 * DRAIN_BUDGET_OPS ops per second. The ops kept are the ops of time
 * slices, whatever their duration (Ceph's own trimming past its size
 * drops the shortest ops; here the history never fills); those filed
 * while a dump formats are trimmed with the gap's. What is kept is a
 * uniform sample of what was drained (reservoir sampling, at most cap
 * ops), written as one dump_historic_ops document with a "corecap_drain"
 * object saying how it was taken.
 */
#ifndef CORECAP_COLLECTOR_OPTRACKER_DRAIN_H
#define CORECAP_COLLECTOR_OPTRACKER_DRAIN_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Compact JSON: the admin socket's default is indented (json-pretty), about
 * 1.7 times the bytes for the OSD to format under its history lock, and for
 * the drain to read and parse. */
#define OPTRACKER_DUMP_CMD "{\"prefix\": \"dump_historic_ops\", \"format\": \"json\"}"

/* About this many ops per dump: a few ms of the OSD's formatting on this VM. */
#define DRAIN_TARGET_OPS   50
#define DRAIN_MIN_INTERVAL 5  /* ms: a slice's bounds */
#define DRAIN_MAX_INTERVAL 20 /* ms */
#define DRAIN_IDLE_GAP	   50 /* ms: the gap after a slice without an op */
/* At most about this many ops formatted per second: a few % of a core. */
#define DRAIN_BUDGET_OPS 500

struct optracker_drain {
	const char *asok; /* the admin socket's path (the caller's, outliving the drain) */
	const char *size; /* the history's size between cycles ("10000") */
	pthread_t thread;
	bool running;
	int stop; /* atomic: the thread ends its loop */
	/* The thread's until joined. */
	struct drained_op {
		char *json;	 /* the op as the dump gave it */
		const char *key; /* in json: its "initiated_at", the file's order; "" none */
	} * kept;		 /* at most cap */
	size_t n_kept, cap;
	uint64_t seen, dumps;	    /* ops drained, dumps that gave ops */
	uint64_t longest_dump_ns;   /* the longest dump's round trip: the stall's upper bound */
	uint64_t slice_ns, gap_ns;  /* the current slice and the gap after it */
	double rate;		    /* ops filed per second, averaged over the slices */
	uint64_t slices, sliced_ns; /* slices taken, and their time */
	uint64_t window_start_ns, window_ns;
	uint64_t rng;
	struct json_tokener *tok; /* the thread's: one op parsed at a time */
	int err;		  /* a command failed: draining stopped (0: none) */
};

/* Starts the drain thread; the asok outlives it. 0 or -errno (nothing started). */
int optracker_drain_start(struct optracker_drain *d, const char *asok, size_t cap,
			  const char *size);
/* Stops the thread (ending the slice it is in). 0, or the first command's error. */
int optracker_drain_stop(struct optracker_drain *d);
/* The kept ops as one dump_historic_ops document, given piece by piece
 * to put(ctx, bytes, len) (0 or -errno). 0 or put's first error. */
int optracker_drain_write(const struct optracker_drain *d,
			  int (*put)(void *ctx, const void *p, size_t n), void *ctx,
			  const char *duration);
void optracker_drain_release(struct optracker_drain *d);
/* One dump's reply (len bytes, NUL-terminated) into the reservoir, each op
 * as the dump wrote it; the ops' count, or -EPROTO (not a dump, or an op
 * not a whole JSON object) or -ENOMEM. The drain thread's; public for the
 * tests (kept, cap and tok set, as optracker_drain_start sets them). */
int optracker_drain_take(struct optracker_drain *d, const char *reply, size_t len);

#endif
