/*
 * stats_probe.h: what the shim's tests use to look at the shim from
 * inside the process it runs in: is it loaded, and what do its live
 * counters (this process's stats segment, the shim's own mapping) say. Header
 * only; used by the Check suites that run under LD_PRELOAD and by the
 * end-to-end helper programs.
 */
#ifndef CORECAP_TESTS_STATS_PROBE_H
#define CORECAP_TESTS_STATS_PROBE_H

#include <corecap/stats_layout.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The shim publishes this symbol; without it a suite tests plain glibc. */
static inline bool probe_shim_loaded(void)
{
	return dlsym(RTLD_DEFAULT, "corecap_preload_version") != NULL;
}

/*
 * This process's live stats: the shim's own mapping of its memfd, found
 * in /proc/self/maps by its name (corecap/stats_path.h), so it follows a
 * fork (the child has its own). NULL if there is none.
 */
static inline const void *probe_stats(void)
{
	char want[64], line[512];
	const void *found = NULL;
	FILE *f;

	snprintf(want, sizeof(want), "/memfd:corecap.%d (deleted)", (int)getpid());
	f = fopen("/proc/self/maps", "re");
	while (f && !found && fgets(line, sizeof(line), f)) {
		unsigned long long start, end;
		size_t n = strcspn(line, "\n"), w = strlen(want);

		line[n] = '\0';
		if (n < w || strcmp(line + n - w, want) != 0 ||
		    sscanf(line, "%llx-%llx", &start, &end) != 2 ||
		    !corecap_stats_valid((const void *)(uintptr_t)start, (size_t)(end - start)))
			continue;
		found = (const void *)(uintptr_t)start;
	}
	if (f)
		fclose(f);
	return found;
}

/* The slot of a thread by tid (live or exited), or NULL. */
static inline const struct corecap_stats_thread *probe_thread(const void *s, int tid)
{
	const struct corecap_stats_header *h = s;

	for (uint32_t i = 0; s && i < h->max_threads; i++) {
		const struct corecap_stats_thread *t = corecap_stats_thread_at(s, i);

		if (t->state != CORECAP_THREAD_FREE && t->tid == tid)
			return t;
	}
	return NULL;
}

static inline const struct corecap_stats_thread *probe_self(void)
{
	return probe_thread(probe_stats(), (int)gettid());
}

static inline const struct corecap_stats_lock *probe_lock(const void *s, const void *lock)
{
	const struct corecap_stats_header *h = s;

	for (uint32_t i = 0; s && i < h->max_locks; i++) {
		const struct corecap_stats_lock *l = corecap_stats_lock_at(s, i);

		if (l->addr == (uint64_t)(uintptr_t)lock)
			return l;
	}
	return NULL;
}

struct probe_hot_arg {
	pthread_mutex_t *m;
	sem_t taken;
};

static inline void *probe_hold_5ms(void *p)
{
	struct probe_hot_arg *a = p;

	pthread_mutex_lock(a->m);
	sem_post(&a->taken);
	usleep(5000);
	/* Held until the other thread blocks on it (glibc marks a mutex with
	 * a waiter 2), not merely 5 ms: on a loaded machine the other thread
	 * could reach its lock after 5 ms and take it free (a lock never
	 * contended, so never hot: unit.check_wrap_cond failed so in a CI
	 * run). At most 5 s more. */
	for (int i = 0; i < 5000 && __atomic_load_n(&a->m->__data.__lock, __ATOMIC_ACQUIRE) != 2;
	     i++)
		usleep(1000);
	pthread_mutex_unlock(a->m);
	return NULL;
}

/*
 * Makes m hot: contends it once (another thread holds it for at least
 * 5 ms, until this one blocks on it), so that the shim measures its holds from then
 * on. Returns its entry in this process's stats, or NULL.
 */
static inline const struct corecap_stats_lock *probe_make_hot(pthread_mutex_t *m)
{
	struct probe_hot_arg a = {.m = m};
	pthread_t t;

	sem_init(&a.taken, 0, 0);
	pthread_create(&t, NULL, probe_hold_5ms, &a);
	sem_wait(&a.taken);
	pthread_mutex_lock(m);
	pthread_mutex_unlock(m);
	pthread_join(t, NULL);
	sem_destroy(&a.taken);
	return probe_lock(probe_stats(), m);
}

/*
 * The site of `kind` whose return address lies in the function named
 * `fn` (the test binary must export its symbols: ENABLE_EXPORTS), or NULL.
 */
static inline const struct corecap_stats_site *probe_site_in(const void *s, const char *fn,
							     uint32_t kind)
{
	const struct corecap_stats_header *h = s;

	for (uint32_t i = 0; s && i < h->max_sites; i++) {
		const struct corecap_stats_site *e = corecap_stats_site_at(s, i);
		Dl_info info;

		if (!e->addr || e->kind != kind)
			continue;
		if (dladdr((void *)(uintptr_t)(e->addr - 1), &info) && info.dli_sname &&
		    strcmp(info.dli_sname, fn) == 0)
			return e;
	}
	return NULL;
}

#endif /* CORECAP_TESTS_STATS_PROBE_H */
