/*
 * corecap/stats_layout.h: the shim's live counters, /dev/shm/corecap.<pid>.
 *
 * The shim (libcorecap-preload.so) writes this file while the daemon runs;
 * the collector copies it raw (RUN/stats-begin, RUN/stats-end); the
 * analysis parses the copies with this header alone. docs/shim.md, "stats
 * file format", says the same in prose.
 *
 * Guarantees a reader can rely on:
 *  - The file starts with struct corecap_stats_header: magic, version, the
 *    size and offset of each table and the stride of its entries. Readers
 *    locate entries with the offsets and strides of the header, never with
 *    sizeof, so a later minor revision may append fields to any struct
 *    without breaking them. `version` changes only when the meaning of an
 *    existing field changes, or when a reader must tell a zero from a
 *    field the writer did not have (version 3's op counter: version 2
 *    left that space zero, and a 0 there means "not counted", not "no
 *    op").
 *  - All integers are native-endian (the file never leaves the host it was
 *    written on, except as a copy read on the same architecture), 64-bit
 *    counters are naturally aligned, every table entry is a multiple of
 *    64 bytes (one thread's counters never share a cache line with
 *    another's).
 *  - Every counter only grows while the file exists, so the difference of
 *    two copies (end minus begin) is the activity of the window. The one
 *    exception is a thread slot reused after its thread exited: its
 *    counters are first folded into header.retired, then cleared (see
 *    below, and compare tid and start_ns of a slot across copies).
 *  - Counters are updated without locks: a thread's slot is written only
 *    by its own thread (plain 64-bit stores), sites and hot locks by atomic
 *    adds. Each 64-bit field is always read whole if it is read with one
 *    aligned 64-bit load, which corecap_stats_copy() does.
 *  - Slots are current. Site and lock entries are current for contended
 *    acquisitions and their holds; the holds of hot locks' uncontended
 *    acquisitions and condition-wait figures arrive in per-thread batches
 *    (at most 32 events, or 10 ms of the thread's activity, late; all of
 *    it at thread and process exit). See docs/shim.md.
 *  - Structural changes (claiming, reusing or renaming a thread slot) are
 *    bracketed by header.seq: odd while one is in progress, incremented
 *    again when done. A copy whose seq was odd, or differs between the
 *    start and the end of the copy, may be torn; corecap_stats_copy()
 *    retries it. Site and lock entries need no seq: an entry's fields are
 *    written before its non-zero `addr` is published, and a reader skips
 *    entries whose addr is 0. A site's stack is published the same way,
 *    by stack_depth after the frames.
 *  - Times are nanoseconds of CLOCK_MONOTONIC (header.clock_id), the clock
 *    LTTng-UST stamps events with, so they line up with the trace.
 *  - Addresses (site, stack frames, lock) are virtual addresses in the
 *    process with header.pid. Symbolize them with the run's maps file
 *    (/proc/<pid>/maps saved by the collector): the shim does not resolve
 *    modules on its hot or contended paths because the loader lock it
 *    would need can deadlock against a dlopen in progress. Sites and stack
 *    frames are return addresses: subtract 1 to land inside the call.
 *
 * This header needs only the C library; it has no link-time dependency.
 */
#ifndef CORECAP_STATS_LAYOUT_H
#define CORECAP_STATS_LAYOUT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "run_format.h"

#define CORECAP_STATS_MAGIC   UINT64_C(0x3174617473706363) /* "ccpstat1" read as bytes */
#define CORECAP_STATS_VERSION 4
/*
 * The oldest version this header reads. Version 2 is version 3 without
 * the op counter (thread.ops, header.retired_ops and ops_unslotted, the
 * ANNOTATED flag: zero there), so a reader takes both and asks
 * corecap_stats_has_ops() before it speaks of ops; version 3 is version 4
 * without the reply counter (thread.replies, header.retired_replies and
 * replies_unslotted: zero there; corecap_stats_has_replies()); version 1
 * had four I/O classes and 192-byte slots and is refused.
 */
#define CORECAP_STATS_VERSION_OLDEST 2

/* Table sizes of versions 2 to 4; a reader takes the actual ones from the header. */
#define CORECAP_STATS_MAX_SITES	   2048
#define CORECAP_STATS_MAX_THREADS  1024
#define CORECAP_STATS_MAX_LOCKS	   4096
#define CORECAP_STATS_HIST_BUCKETS 32
#define CORECAP_STATS_STACK_DEPTH  32
#define CORECAP_STATS_NAME_LEN	   16
#define CORECAP_STATS_EXE_LEN	   256
#define CORECAP_STATS_HEADER_BYTES 4096 /* the header is padded to one page */

/*
 * Lock kinds (enum corecap_stats_kind) and I/O classes (enum
 * corecap_io_class): run_format.h, shared with the events.
 */

enum corecap_stats_thread_state {
	CORECAP_THREAD_FREE = 0,   /* never used: ignore the slot */
	CORECAP_THREAD_LIVE = 1,   /* its thread runs */
	CORECAP_THREAD_EXITED = 2, /* its thread exited; counters final until reuse */
};

/* header.flags */
#define CORECAP_STATS_F_SHARED	0x1u /* backed by the file (not a private fallback) */
#define CORECAP_STATS_F_EXITING 0x2u /* the process is exiting; counters are final */
#define CORECAP_STATS_F_CHILD	0x4u /* created in a fork child; ppid is the parent */
/*
 * Version 3: the process's op annotations (corecap/annotate.h) found the
 * shim's op counter, so the op counts are its ops (0 when none ended); a
 * process without the flag calls no annotation the shim sees.
 */
#define CORECAP_STATS_F_ANNOTATED 0x8u

/*
 * What one thread did. Counted by the thread itself, in its slot; the
 * process totals are header.retired plus the sum over all non-free slots
 * (corecap_stats_totals()).
 */
struct corecap_stats_counters {
	uint64_t acquisitions; /* successful lock, trylock, timedlock ... of any kind */
	uint64_t trylock_busy; /* trylocks that returned EBUSY */
	uint64_t contentions;  /* acquisitions (or timed attempts) that had to wait */
	uint64_t lock_wait_ns; /* time spent waiting in them */
	uint64_t cond_waits;   /* condition-variable waits of any flavour */
	uint64_t cond_wait_ns; /* time spent in them (includes re-taking the mutex) */
	uint64_t io_calls[CORECAP_IO_CLASSES];
	uint64_t io_ns[CORECAP_IO_CLASSES];    /* time inside the I/O calls */
	uint64_t io_bytes[CORECAP_IO_CLASSES]; /* bytes moved (successful calls) */
	/*
	 * Asynchronous I/O (libaio's io_submit and io_getevents): each
	 * completion this thread reaped, by the class of its iocb's
	 * descriptor, with the time from its submission (by any thread) to
	 * its reaping. The io_submit call itself counts in io_calls/io_ns.
	 */
	uint64_t aio_done[CORECAP_IO_CLASSES];
	uint64_t aio_ns[CORECAP_IO_CLASSES];
	uint64_t aio_bytes[CORECAP_IO_CLASSES]; /* res of completions that succeeded */
	/* The fsync, fdatasync and sync_file_range calls among io_calls, and their time. */
	uint64_t sync_calls[CORECAP_IO_CLASSES];
	uint64_t sync_ns[CORECAP_IO_CLASSES];
};

struct corecap_stats_thread {
	uint32_t state;			   /* enum corecap_stats_thread_state */
	int32_t tid;			   /* kernel thread id */
	uint64_t pthread_id;		   /* pthread_t, to match pthread_setname_np(other, ...) */
	uint64_t start_ns;		   /* when the slot was claimed */
	uint64_t exit_ns;		   /* when the thread exited, 0 while live */
	char name[CORECAP_STATS_NAME_LEN]; /* comm, NUL-terminated */
	struct corecap_stats_counters c;
	/*
	 * Version 3: ops this thread ended (corecap_op_end, corecap_op_end_exit
	 * of corecap/annotate.h), by relaxed atomic adds (an annotation may
	 * run in a signal handler that interrupted the thread's own add).
	 * Not in struct corecap_stats_counters, so the header keeps version
	 * 2's offsets; an exited slot's ops fold into header.retired_ops.
	 */
	uint64_t ops;
	/*
	 * Version 4: replies this thread wrote, counted whether or not the
	 * daemon is annotated: a write, send or sendmsg that moved bytes on
	 * a socket on which a read, recv or recvmsg moved bytes since the
	 * socket's previous reply (the shim's fd table keeps that one bit
	 * per descriptor). It is the end of an op by the rule with which the
	 * analysis detects the ops of a daemon that marks none
	 * (analysis/model/net_ops.h), without that rule's timing and framing
	 * refinements. Its own adds (plain, as the counters'); an exited
	 * slot's replies fold into header.retired_replies.
	 */
	uint64_t replies;
	uint8_t reserved_[448 - 64 - sizeof(struct corecap_stats_counters)];
};

/*
 * One call site: the return address of a call into a pthread lock or wait
 * function, with the kind of call. Contention figures count every wait at
 * the site. `acquisitions`, `holds` and the hold times cover the hot locks
 * only (locks that had been contended at least once when acquired here),
 * which is what makes the contention ratio and hold utilization of the
 * locks that matter exact without a per-acquisition cost on the others;
 * holds sampled with CORECAP_HOLD_SAMPLE add to holds/hold_ns too.
 * For CORECAP_KIND_COND: contentions = waits, wait_ns = time waited,
 * timeouts = waits that timed out; acquisitions and holds stay 0.
 */
struct corecap_stats_site {
	uint64_t addr;	       /* return address; 0 = empty entry */
	uint32_t kind;	       /* enum corecap_stats_kind */
	uint32_t stack_depth;  /* frames in stack[], 0 until the first sample */
	uint64_t acquisitions; /* acquisitions of hot locks at this site */
	uint64_t contentions;  /* waits at this site (acquired or timed out) */
	uint64_t wait_ns;      /* total time waited */
	uint64_t max_wait_ns;
	uint64_t timeouts; /* timed waits that returned ETIMEDOUT */
	uint64_t holds;	   /* holds measured for locks acquired here */
	uint64_t hold_ns;  /* their total duration */
	uint64_t max_hold_ns;
	uint64_t wait_hist[CORECAP_STATS_HIST_BUCKETS]; /* see corecap_stats_hist_bucket() */
	uint64_t stack[CORECAP_STATS_STACK_DEPTH];	/* first sampled stack, innermost first */
	uint8_t reserved_[640 - 80 - 8 * CORECAP_STATS_HIST_BUCKETS -
			  8 * CORECAP_STATS_STACK_DEPTH];
};

/*
 * One hot lock: a lock address that has been contended at least once.
 * From then on its acquisitions and holds are counted here (1 in
 * hold_time_every uncontended ones sampled, weighted), so its hold
 * utilization over a window W is delta(hold_ns) / W (exclusive
 * holds; read holds of an rwlock overlap and are kept apart in
 * shared_hold_ns).
 */
struct corecap_stats_lock {
	uint64_t addr; /* lock address; 0 = empty entry */
	uint32_t kind; /* MUTEX, RWLOCK_WR (any rwlock) or SPIN */
	uint32_t reserved0_;
	uint64_t first_site;   /* site of its first contention */
	uint64_t hot_since_ns; /* time of its first contention */
	uint64_t acquisitions; /* acquisitions since it became hot */
	uint64_t contentions;
	uint64_t wait_ns;
	uint64_t holds; /* exclusive holds measured */
	uint64_t hold_ns;
	uint64_t max_hold_ns;
	uint64_t shared_holds; /* read holds of an rwlock */
	uint64_t shared_hold_ns;
	uint8_t reserved_[128 - 96];
};

struct corecap_stats_header {
	uint64_t magic;	       /* CORECAP_STATS_MAGIC */
	uint32_t version;      /* CORECAP_STATS_VERSION */
	uint32_t header_bytes; /* bytes before the first table */
	uint64_t file_bytes;   /* total size of the file */
	uint64_t seq;	       /* structural generation; odd while a change is in progress */

	uint64_t sites_offset; /* byte offset of the site table */
	uint64_t threads_offset;
	uint64_t locks_offset;
	uint32_t site_bytes; /* stride of one entry */
	uint32_t thread_bytes;
	uint32_t lock_bytes;
	uint32_t max_sites; /* entries in each table */
	uint32_t max_threads;
	uint32_t max_locks;
	uint32_t hist_buckets;
	uint32_t stack_depth;
	uint32_t name_len;
	uint32_t io_classes;

	int32_t pid;
	int32_t ppid;
	uint32_t clock_id;	      /* clockid_t of every *_ns time (CLOCK_MONOTONIC) */
	uint32_t flags;		      /* CORECAP_STATS_F_* */
	uint64_t created_ns;	      /* clock_id time when the file was created */
	uint64_t created_realtime_ns; /* CLOCK_REALTIME at the same moment */

	/* Settings in effect (docs/shim.md), so a reader knows what it sees. */
	uint64_t delay_site; /* CORECAP_DELAY site, 0 if none */
	uint64_t delay_ns;
	uint32_t stack_sample_every; /* CORECAP_STACK_SAMPLE */
	uint32_t hold_sample_every;  /* CORECAP_HOLD_SAMPLE, 0 = hot locks only */

	/* Losses: nothing is dropped silently. */
	uint64_t sites_dropped;	  /* waits not recorded per site: site table full */
	uint64_t locks_dropped;	  /* contended locks not made hot: lock table full */
	uint64_t threads_dropped; /* threads without a slot: thread table full */
	uint64_t holds_dropped;	  /* holds not measured: per-thread hold stack full */
	uint64_t stacks_sampled;  /* stacks captured (each costs an unwind) */

	uint64_t retired_threads;	       /* exited threads whose slot was reused */
	struct corecap_stats_counters retired; /* their counters */

	char exe[CORECAP_STATS_EXE_LEN]; /* /proc/self/exe at creation, for symbols */

	/*
	 * CORECAP_HOLD_TIME: 1 in N uncontended holds of a hot lock (drawn
	 * at random) is tracked and stands for N holds of its length, so the
	 * entries' acquisitions, holds and hold times are estimates (contended
	 * holds and those after a cond wait are all tracked, exactly); 1 or 0
	 * (a file from before it existed) means every hold is tracked.
	 */
	uint32_t hold_time_every;
	uint32_t reserved_end_;

	/* Asynchronous I/O not timed: nothing is dropped silently. */
	uint64_t aio_untracked; /* submissions whose time found no room (in-flight table full) */
	uint64_t aio_unmatched; /* completions with no submission time (untracked ones) */

	/*
	 * The delay control (struct corecap_stats_control), inside the
	 * header page at control_offset; 0 in a file from before it existed
	 * (then there is no runtime control). A reader checks control_bytes
	 * >= sizeof(struct corecap_stats_control) and control_version.
	 */
	uint32_t control_offset;
	uint32_t control_bytes;
	uint32_t control_version; /* CORECAP_STATS_CONTROL_VERSION */
	uint32_t reserved_end2_;

	/*
	 * Version 3, the op counter (with thread.ops and F_ANNOTATED): the
	 * ops of exited threads whose slot was reused, and the ops ended by
	 * threads without a slot (thread table full, or not attached yet
	 * while the shim's own code ran), by atomic adds.
	 */
	uint64_t retired_ops;
	uint64_t ops_unslotted;

	/* Version 4, the reply counter (with thread.replies), as the two above. */
	uint64_t retired_replies;
	uint64_t replies_unslotted;
};

/*
 * The runtime delay control: another process (corecap verify) asks the
 * shim to delay every acquisition made at one site by delay_ns, for as
 * long as it lives and renews its lease. docs/shim.md, "runtime delay
 * control", says the same in prose.
 *
 * The first cache line is the controller's, the second the shim's.
 *  - A controller writes: seq from even s to s + 1 (compare-and-swap, so
 *    two controllers never write at once), then site, delay_ns,
 *    owner_pid and lease_end_ns, then seq = s + 2 (release). The shim
 *    takes a control only when seq was even and unchanged across its
 *    read of the fields, so a half-written control is never applied.
 *  - site = 0 asks for no runtime delay (the CORECAP_DELAY one, if any,
 *    applies again). delay_ns may be 0: every acquisition at the site is
 *    then tracked as if delayed, at no delay (a baseline with the same
 *    bookkeeping cost).
 *  - The shim drops the delay (as if site were 0) once owner_pid no longer
 *    exists or CLOCK_MONOTONIC passes lease_end_ns, whichever comes first:
 *    a controller killed by SIGKILL leaves no delay behind.
 *  - The shim publishes what is in effect in the second line: applied_seq
 *    (the control seq it has read, applied or refused), active_site and
 *    active_ns (0 = no runtime delay), dropped (controls dropped for a
 *    dead owner or an expired lease), refused (controls refused: delay
 *    over CORECAP_STATS_CONTROL_MAX_NS, owner gone or lease over on
 *    arrival).
 * The shim reads seq on its slow paths only (contended waits, condition
 * waits, delayed acquisitions): a control takes effect at the next of
 * those, typically within milliseconds in a daemon that serves.
 */
#define CORECAP_STATS_CONTROL_VERSION 1
#define CORECAP_STATS_CONTROL_OFFSET  3584		 /* in the header page, after the header */
#define CORECAP_STATS_CONTROL_MAX_NS  UINT64_C(10000000) /* 10 ms per acquisition */

struct corecap_stats_control {
	uint64_t seq; /* odd while a controller writes */
	uint64_t site;
	uint64_t delay_ns;
	int32_t owner_pid;
	uint32_t reserved0_;
	uint64_t lease_end_ns; /* CLOCK_MONOTONIC */
	uint8_t reserved1_[64 - 40];
	uint64_t applied_seq;
	uint64_t active_site;
	uint64_t active_ns;
	uint64_t dropped;
	uint64_t refused;
	uint8_t reserved2_[64 - 40];
};

_Static_assert(sizeof(struct corecap_stats_thread) == 448, "thread slot is 7 cache lines");
_Static_assert(sizeof(struct corecap_stats_site) == 640, "site entry is 10 cache lines");
_Static_assert(sizeof(struct corecap_stats_lock) == 128, "lock entry is 2 cache lines");
_Static_assert(sizeof(struct corecap_stats_header) <= CORECAP_STATS_CONTROL_OFFSET,
	       "header fits before the control");
_Static_assert(sizeof(struct corecap_stats_control) == 128, "control is 2 cache lines");
_Static_assert(CORECAP_STATS_CONTROL_OFFSET + sizeof(struct corecap_stats_control) <=
		       CORECAP_STATS_HEADER_BYTES,
	       "control fits the header page");

/* Layout of version 4 (and 3 and 2) as the shim writes it. */
#define CORECAP_STATS_SITES_OFFSET ((uint64_t)CORECAP_STATS_HEADER_BYTES)
#define CORECAP_STATS_THREADS_OFFSET                                                               \
	(CORECAP_STATS_SITES_OFFSET +                                                              \
	 (uint64_t)CORECAP_STATS_MAX_SITES * sizeof(struct corecap_stats_site))
#define CORECAP_STATS_LOCKS_OFFSET                                                                 \
	(CORECAP_STATS_THREADS_OFFSET +                                                            \
	 (uint64_t)CORECAP_STATS_MAX_THREADS * sizeof(struct corecap_stats_thread))
#define CORECAP_STATS_FILE_BYTES                                                                   \
	(CORECAP_STATS_LOCKS_OFFSET +                                                              \
	 (uint64_t)CORECAP_STATS_MAX_LOCKS * sizeof(struct corecap_stats_lock))

/*
 * Histogram bucket of a wait: bucket b counts waits with 2^b <= ns < 2^(b+1)
 * (bucket 0 also holds 0 and 1 ns); the last bucket is open-ended
 * (>= 2^31 ns, about 2.1 s).
 */
static inline unsigned corecap_stats_hist_bucket(uint64_t ns)
{
	unsigned b = 63u - (unsigned)__builtin_clzll(ns | 1);

	return b < CORECAP_STATS_HIST_BUCKETS ? b : CORECAP_STATS_HIST_BUCKETS - 1;
}

/*
 * Does a table of n entries of stride bytes at offset lie after the
 * header and inside the file, with every entry 8-byte aligned? Written
 * without `offset + n * stride`, which a hostile header can wrap around
 * 2^64 (n * stride, two 32-bit values, cannot overflow 64 bits).
 */
static inline bool corecap_stats_table_valid(const struct corecap_stats_header *h, uint64_t offset,
					     uint32_t n, uint32_t stride)
{
	return offset >= h->header_bytes && offset <= h->file_bytes && offset % 8 == 0 &&
	       stride % 8 == 0 && (uint64_t)n * stride <= h->file_bytes - offset;
}

/*
 * Does buf (len bytes, a copy or a mapping) hold a stats file this header
 * can read? Checks magic, version (CORECAP_STATS_VERSION_OLDEST up to
 * CORECAP_STATS_VERSION), and that every table lies inside buf,
 * after the header, 8-byte aligned, with strides at least as large as the
 * structs declared here (buf itself must be 8-byte aligned, as malloc's
 * and mmap's memory is).
 */
static inline bool corecap_stats_valid(const void *buf, size_t len)
{
	const struct corecap_stats_header *h = (const struct corecap_stats_header *)buf;

	if (len < sizeof(*h) || h->magic != CORECAP_STATS_MAGIC ||
	    h->version < CORECAP_STATS_VERSION_OLDEST || h->version > CORECAP_STATS_VERSION ||
	    h->file_bytes > len)
		return false;
	if (h->header_bytes < sizeof(*h) || h->header_bytes > h->file_bytes ||
	    h->site_bytes < sizeof(struct corecap_stats_site) ||
	    h->thread_bytes < sizeof(struct corecap_stats_thread) ||
	    h->lock_bytes < sizeof(struct corecap_stats_lock))
		return false;
	if (h->hist_buckets != CORECAP_STATS_HIST_BUCKETS ||
	    h->stack_depth != CORECAP_STATS_STACK_DEPTH || h->name_len != CORECAP_STATS_NAME_LEN ||
	    h->io_classes != CORECAP_IO_CLASSES)
		return false;
	return corecap_stats_table_valid(h, h->sites_offset, h->max_sites, h->site_bytes) &&
	       corecap_stats_table_valid(h, h->threads_offset, h->max_threads, h->thread_bytes) &&
	       corecap_stats_table_valid(h, h->locks_offset, h->max_locks, h->lock_bytes);
}

static inline const struct corecap_stats_site *corecap_stats_site_at(const void *buf, uint32_t i)
{
	const struct corecap_stats_header *h = (const struct corecap_stats_header *)buf;

	return (const struct corecap_stats_site *)((const char *)buf + h->sites_offset +
						   (uint64_t)i * h->site_bytes);
}

static inline const struct corecap_stats_thread *corecap_stats_thread_at(const void *buf,
									 uint32_t i)
{
	const struct corecap_stats_header *h = (const struct corecap_stats_header *)buf;

	return (const struct corecap_stats_thread *)((const char *)buf + h->threads_offset +
						     (uint64_t)i * h->thread_bytes);
}

static inline const struct corecap_stats_lock *corecap_stats_lock_at(const void *buf, uint32_t i)
{
	const struct corecap_stats_header *h = (const struct corecap_stats_header *)buf;

	return (const struct corecap_stats_lock *)((const char *)buf + h->locks_offset +
						   (uint64_t)i * h->lock_bytes);
}

static inline void corecap_stats_counters_add(struct corecap_stats_counters *sum,
					      const struct corecap_stats_counters *c)
{
	sum->acquisitions += c->acquisitions;
	sum->trylock_busy += c->trylock_busy;
	sum->contentions += c->contentions;
	sum->lock_wait_ns += c->lock_wait_ns;
	sum->cond_waits += c->cond_waits;
	sum->cond_wait_ns += c->cond_wait_ns;
	for (int i = 0; i < CORECAP_IO_CLASSES; i++) {
		sum->io_calls[i] += c->io_calls[i];
		sum->io_ns[i] += c->io_ns[i];
		sum->io_bytes[i] += c->io_bytes[i];
		sum->aio_done[i] += c->aio_done[i];
		sum->aio_ns[i] += c->aio_ns[i];
		sum->aio_bytes[i] += c->aio_bytes[i];
		sum->sync_calls[i] += c->sync_calls[i];
		sum->sync_ns[i] += c->sync_ns[i];
	}
}

/* Process totals: retired threads plus every slot in use. buf must be valid. */
static inline void corecap_stats_totals(const void *buf, struct corecap_stats_counters *out)
{
	const struct corecap_stats_header *h = (const struct corecap_stats_header *)buf;

	memset(out, 0, sizeof(*out));
	corecap_stats_counters_add(out, &h->retired);
	for (uint32_t i = 0; i < h->max_threads; i++) {
		const struct corecap_stats_thread *t = corecap_stats_thread_at(buf, i);

		if (t->state != CORECAP_THREAD_FREE)
			corecap_stats_counters_add(out, &t->c);
	}
}

/* Does the file (valid) count ops? Version 2 has no op counter. */
static inline bool corecap_stats_has_ops(const void *buf)
{
	return ((const struct corecap_stats_header *)buf)->version >= 3;
}

/*
 * The ops the process ended since the file was created: retired slots',
 * threads without a slot, every slot in use. 0 for version 2. buf must
 * be valid.
 */
/* The sum of one 64-bit field (at offset `at` of the slot) over the slots in use. */
static inline uint64_t corecap_stats_slots_sum_(const void *buf, size_t at)
{
	const struct corecap_stats_header *h = (const struct corecap_stats_header *)buf;
	uint64_t n = 0, v;

	for (uint32_t i = 0; i < h->max_threads; i++) {
		const struct corecap_stats_thread *t = corecap_stats_thread_at(buf, i);

		if (t->state == CORECAP_THREAD_FREE)
			continue;
		memcpy(&v, (const char *)t + at, sizeof(v));
		n += v;
	}
	return n;
}

static inline uint64_t corecap_stats_ops_total(const void *buf)
{
	const struct corecap_stats_header *h = (const struct corecap_stats_header *)buf;

	if (!corecap_stats_has_ops(buf))
		return 0;
	return h->retired_ops + h->ops_unslotted +
	       corecap_stats_slots_sum_(buf, offsetof(struct corecap_stats_thread, ops));
}

/* Does the file (valid) count replies? Versions 2 and 3 have no reply counter. */
static inline bool corecap_stats_has_replies(const void *buf)
{
	return ((const struct corecap_stats_header *)buf)->version >= 4;
}

/*
 * The replies the process wrote since the file was created (see
 * thread.replies): retired slots', threads without a slot, every slot in
 * use. 0 before version 4. buf must be valid.
 */
static inline uint64_t corecap_stats_replies_total(const void *buf)
{
	const struct corecap_stats_header *h = (const struct corecap_stats_header *)buf;

	if (!corecap_stats_has_replies(buf))
		return 0;
	return h->retired_replies + h->replies_unslotted +
	       corecap_stats_slots_sum_(buf, offsetof(struct corecap_stats_thread, replies));
}

/*
 * Copy a live stats region (src, mapped from the file) into dst, 8 bytes
 * at a time so that no counter is torn, and only when no structural
 * change overlapped the copy (seq even and unchanged). len must be a
 * multiple of 8 and at most the file size. Retries up to `tries` times,
 * sleeping 100 us between attempts. Returns 0, or -EAGAIN if every
 * attempt overlapped a change, or -EINVAL if src is not a stats file.
 */
static inline int corecap_stats_copy(void *dst, const void *src, size_t len, int tries)
{
	const volatile uint64_t *s = (const volatile uint64_t *)src;
	const volatile uint64_t *seqp =
		(const volatile uint64_t *)((const char *)src +
					    offsetof(struct corecap_stats_header, seq));
	uint64_t *d = (uint64_t *)dst;
	const struct timespec pause = {0, 100000};

	if (len < sizeof(struct corecap_stats_header) || len % 8 || s[0] != CORECAP_STATS_MAGIC)
		return -EINVAL;
	for (int t = 0; t < tries; t++) {
		uint64_t before = __atomic_load_n(seqp, __ATOMIC_ACQUIRE);

		if (!(before & 1)) {
			for (size_t i = 0; i < len / 8; i++)
				d[i] = s[i];
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (__atomic_load_n(seqp, __ATOMIC_RELAXED) == before)
				return 0;
		}
		nanosleep(&pause, NULL);
	}
	return -EAGAIN;
}

/* The delay control of a valid stats file (buf writable for a controller), or NULL. */
static inline struct corecap_stats_control *corecap_stats_control_at(void *buf)
{
	struct corecap_stats_header *h = (struct corecap_stats_header *)buf;

	if (h->control_offset == 0 || h->control_version != CORECAP_STATS_CONTROL_VERSION ||
	    h->control_bytes < sizeof(struct corecap_stats_control) ||
	    (uint64_t)h->control_offset + h->control_bytes > h->header_bytes ||
	    h->control_offset % 64)
		return NULL;
	return (struct corecap_stats_control *)(void *)((char *)buf + h->control_offset);
}

/*
 * A controller's write of the delay control: seq to odd (only from even,
 * so two writers never interleave), the fields, seq to even. Returns 0,
 * or -EBUSY when another writer is in the middle of its write.
 */
static inline int corecap_stats_control_write(struct corecap_stats_control *c, uint64_t site,
					      uint64_t delay_ns, int32_t owner_pid,
					      uint64_t lease_end_ns)
{
	uint64_t s = __atomic_load_n(&c->seq, __ATOMIC_RELAXED);

	if (s & 1 || !__atomic_compare_exchange_n(&c->seq, &s, s + 1, false, __ATOMIC_ACQ_REL,
						  __ATOMIC_RELAXED))
		return -EBUSY;
	__atomic_store_n(&c->site, site, __ATOMIC_RELAXED);
	__atomic_store_n(&c->delay_ns, delay_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&c->owner_pid, owner_pid, __ATOMIC_RELAXED);
	__atomic_store_n(&c->lease_end_ns, lease_end_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&c->seq, s + 2, __ATOMIC_RELEASE);
	return 0;
}

#endif /* CORECAP_STATS_LAYOUT_H */
