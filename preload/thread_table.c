#include <string.h>

#include "thread_table.h"
#include "util.h"

static void copy_name(char *dst, const char *name)
{
	size_t n = strnlen(name, CORECAP_STATS_NAME_LEN - 1);

	memcpy(dst, name, n);
	memset(dst + n, 0, CORECAP_STATS_NAME_LEN - n);
}

/* An exited slot to reuse, scanning round-robin; lock held. */
static struct corecap_stats_thread *find_exited(struct stats_shm *s)
{
	for (uint32_t n = 0; n < CORECAP_STATS_MAX_THREADS; n++) {
		uint32_t i = (s->reuse_cursor + n) % CORECAP_STATS_MAX_THREADS;
		struct corecap_stats_thread *t = stats_shm_thread(s, i);

		if (t->state == CORECAP_THREAD_EXITED) {
			s->reuse_cursor = (i + 1) % CORECAP_STATS_MAX_THREADS;
			return t;
		}
	}
	return NULL;
}

struct corecap_stats_thread *thread_table_claim(struct stats_shm *s, int tid, uint64_t pthread_id,
						const char *name, uint64_t now)
{
	struct corecap_stats_header *h = s->hdr;
	struct corecap_stats_thread *t = NULL;

	if (!stats_shm_lock(s)) {
		shared_add(&h->threads_dropped, 1);
		return NULL;
	}
	if (s->next_free_thread < CORECAP_STATS_MAX_THREADS) {
		t = stats_shm_thread(s, s->next_free_thread++);
		stats_shm_seq_begin(s);
	} else {
		t = find_exited(s);
		if (!t) {
			shared_add(&h->threads_dropped, 1);
			goto out_unlock;
		}
		stats_shm_seq_begin(s);
		corecap_stats_counters_add(&h->retired, &t->c);
		shared_add(&h->retired_ops, __atomic_load_n(&t->ops, __ATOMIC_RELAXED));
		shared_add(&h->retired_replies, __atomic_load_n(&t->replies, __ATOMIC_RELAXED));
		h->retired_threads++;
	}
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->pthread_id = pthread_id;
	t->start_ns = now;
	copy_name(t->name, name);
	t->state = CORECAP_THREAD_LIVE;
	stats_shm_seq_end(s);
out_unlock:
	stats_shm_unlock(s);
	return t;
}

void thread_table_release(struct stats_shm *s, struct corecap_stats_thread *slot, uint64_t now)
{
	/* Two single-word stores: no seq needed, exit_ns first. */
	__atomic_store_n(&slot->exit_ns, now, __ATOMIC_RELAXED);
	__atomic_store_n(&slot->state, CORECAP_THREAD_EXITED, __ATOMIC_RELEASE);
	(void)s;
}

void thread_table_set_name(struct stats_shm *s, struct corecap_stats_thread *slot, const char *name)
{
	if (!stats_shm_lock(s))
		return; /* a signal handler renaming mid-change: keep the old name */
	stats_shm_seq_begin(s);
	copy_name(slot->name, name);
	stats_shm_seq_end(s);
	stats_shm_unlock(s);
}

struct corecap_stats_thread *thread_table_find(struct stats_shm *s, uint64_t pthread_id)
{
	uint32_t used = __atomic_load_n(&s->next_free_thread, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < used; i++) {
		struct corecap_stats_thread *t = stats_shm_thread(s, i);

		if (t->state == CORECAP_THREAD_LIVE && t->pthread_id == pthread_id)
			return t;
	}
	return NULL;
}
