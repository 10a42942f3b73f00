/*
 * shim_stats: the shim's counters at the window's start and end (RUN's
 * stats-begin and stats-end, copies of /dev/shm/corecap.<pid>, layout
 * common/include/corecap/stats_layout.h), reduced to what the window did:
 * per hot lock, the difference end - begin of acquisitions, contentions,
 * wait and (exclusive) hold time, and per call site the same (a site's
 * acquisitions and holds count those of hot locks only). A lock that
 * became hot inside the window counts from then on. The copies are held
 * only while loading. `corecap stat` diffs two live copies the same way.
 */
#ifndef CORECAP_SHIM_STATS_H
#define CORECAP_SHIM_STATS_H

#include <corecap/stats_layout.h>
#include <stddef.h>
#include <stdint.h>

struct shim_lock_delta {
	uint64_t addr;
	uint8_t kind;
	uint64_t acquisitions, contentions, wait_ns, holds, hold_ns;
	uint64_t hot_since_ns; /* when it was first contended */
	uint64_t first_site;   /* the call site of that contention */
};

struct shim_site_delta {
	uint64_t addr;
	uint8_t kind;
	uint64_t acquisitions, contentions, wait_ns, holds, hold_ns;
};

/*
 * What the daemon's I/O of one class (enum corecap_io_class) did in the
 * window, summed over its threads (corecap_stats_totals, end - begin).
 */
struct shim_io_delta {
	uint64_t calls, ns, bytes;	      /* synchronous calls, io_submit included */
	uint64_t sync_calls, sync_ns;	      /* the fsync-like ones among them */
	uint64_t aio_done, aio_ns, aio_bytes; /* async completions: submission to reap */
};

struct shim_stats {
	struct shim_lock_delta *locks;
	size_t n_locks;
	struct shim_site_delta *sites;
	size_t n_sites;
	int32_t pid;
	uint64_t locks_dropped, holds_dropped, sites_dropped, threads_dropped;
	uint32_t hold_sample_every;
	/* The process's counters over the window (every thread, retired ones too). */
	uint64_t io_calls; /* I/O calls the shim wrapped, every class */
	uint64_t contentions, lock_wait_ns, cond_waits, cond_wait_ns;
	struct shim_io_delta io[CORECAP_IO_CLASSES];
	uint64_t aio_untimed; /* aio_untracked + aio_unmatched in the window */
};

void corecap_shim_stats_init(struct shim_stats *s);
/*
 * 0; -ENOENT when either copy is absent; another negative errno with
 * *err (malloc'd, naming the file) when a copy is unreadable or invalid.
 */
int corecap_shim_stats_load(struct shim_stats *s, const char *begin_path, const char *end_path,
			    char **err);
/*
 * The same from two valid copies in memory (corecap_stats_valid), begin
 * and end of one process, as `corecap stat` takes them live. 0 or -ENOMEM.
 */
int corecap_shim_stats_diff(struct shim_stats *s, const void *begin, const void *end);
void corecap_shim_stats_release(struct shim_stats *s);

#endif
