/*
 * stats_shm.h: the region that holds the live counters: a memfd named
 * corecap.<pid>, sized once and sealed against shrinking and growing,
 * mapped shared and kept open (close-on-exec) so that corecap reaches it
 * through /proc/PID/fd (corecap/stats_path.h), laid out as
 * corecap/stats_layout.h says; or, when the memfd cannot be made or
 * CORECAP_STATS=off, the same layout in private memory so the exit
 * summary still works. No file is created anywhere: nothing is left
 * behind by a killed process, and there is nothing to sweep.
 *
 * Invariants: hdr is NULL only before creation (or if even private
 * memory could not be had); once set, the layout never moves. `lock`
 * serializes structural changes (inserting a site or hot lock, claiming
 * or renaming a thread slot) among the daemon's threads; readers never
 * take it, they use header.seq (see the layout header).
 */
#ifndef CORECAP_PRELOAD_STATS_SHM_H
#define CORECAP_PRELOAD_STATS_SHM_H

#include <corecap/stats_layout.h>
#include <stdbool.h>
#include <sys/types.h>

#include "settings.h"

struct stats_shm {
	struct corecap_stats_header *hdr;
	size_t bytes;
	bool shared; /* memfd-backed, readable from outside */
	int fd;	     /* the memfd, -1 if none */
	dev_t dev;   /* and its identity: fd may since name another file */
	ino_t ino;
	char name[32];		   /* the memfd's name */
	int lock;		   /* structural spinlock, see above */
	unsigned long lock_owner;  /* pthread_self() of its holder */
	uint32_t next_free_thread; /* slots below it have been used */
	uint32_t reuse_cursor;	   /* where the search for an exited slot resumes */
};

extern struct stats_shm g_stats;

/*
 * Creates the region for the calling process. When the memfd cannot be
 * made it warns once (naming it and the cause) and falls back to private
 * memory. Returns 0 if a memfd backs it, a negative errno if not.
 */
int stats_shm_create(struct stats_shm *s, const struct settings *st, bool fork_child);

/*
 * Fork child: drop the parent's mapping (never write into it), close the
 * parent's memfd it inherited, and forget the state.
 */
void stats_shm_forget_parent(struct stats_shm *s);

/* At exit: flags the counters final; the mapping stays valid for late writers. */
void stats_shm_mark_exiting(struct stats_shm *s);

/*
 * Takes the structural lock. Returns false, without it, when the calling
 * thread holds it already: a signal handler that interrupted a structural
 * change and made a wrapped call. The caller then skips its change (and
 * counts the loss) rather than deadlock.
 */
bool stats_shm_lock(struct stats_shm *s);
void stats_shm_unlock(struct stats_shm *s);

/* Bracket a structural change readers must not see half done (lock held). */
void stats_shm_seq_begin(struct stats_shm *s);
void stats_shm_seq_end(struct stats_shm *s);

static inline bool stats_shm_ready(const struct stats_shm *s)
{
	return __atomic_load_n(&s->hdr, __ATOMIC_ACQUIRE) != NULL;
}

static inline struct corecap_stats_site *stats_shm_site(struct stats_shm *s, uint32_t i)
{
	return (struct corecap_stats_site *)(void *)((char *)s->hdr + CORECAP_STATS_SITES_OFFSET) +
	       i;
}

static inline struct corecap_stats_thread *stats_shm_thread(struct stats_shm *s, uint32_t i)
{
	return (struct corecap_stats_thread *)(void *)((char *)s->hdr +
						       CORECAP_STATS_THREADS_OFFSET) +
	       i;
}

static inline struct corecap_stats_lock *stats_shm_lock_entry(struct stats_shm *s, uint32_t i)
{
	return (struct corecap_stats_lock *)(void *)((char *)s->hdr + CORECAP_STATS_LOCKS_OFFSET) +
	       i;
}

#endif /* CORECAP_PRELOAD_STATS_SHM_H */
