/*
 * The other processes' threads that took a CPU from the target's
 * (kernel_holders.h).
 */
#include "kernel_holders.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/proc_stat.h"

/* The first place whose tid is >= tid. */
static size_t lower_bound(const struct kernel_holders *h, int32_t tid)
{
	size_t lo = 0, hi = h->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->tid[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

long kernel_holders_find(const struct kernel_holders *h, int32_t tid)
{
	size_t i = lower_bound(h, tid);

	return i < h->n && h->tid[i] == tid ? (long)i : -1;
}

/* Room for one more (the three arrays grow together). */
static bool grow(struct kernel_holders *h)
{
	size_t cap = h->cap ? h->cap * 2 : 64;
	int32_t *tid, *fresh;
	char(*comm)[16];

	if (h->n < h->cap)
		return true;
	if (cap > KERNEL_HOLDERS_MAX)
		cap = KERNEL_HOLDERS_MAX;
	if (!(tid = realloc(h->tid, cap * sizeof(*tid))))
		return false;
	h->tid = tid;
	if (!(comm = realloc(h->comm, cap * sizeof(*comm))))
		return false;
	h->comm = comm;
	if (!(fresh = realloc(h->fresh, cap * sizeof(*fresh))))
		return false;
	h->fresh = fresh;
	h->cap = cap;
	return true;
}

void kernel_holders_meet(struct kernel_holders *h, int32_t tid)
{
	size_t i;

	if (tid <= 0 || tid == h->last)
		return;
	h->last = tid;
	i = lower_bound(h, tid);
	if (i < h->n && h->tid[i] == tid)
		return;
	if (h->n == KERNEL_HOLDERS_MAX || !grow(h))
		return;
	memmove(h->tid + i + 1, h->tid + i, (h->n - i) * sizeof(*h->tid));
	memmove(h->comm + i + 1, h->comm + i, (h->n - i) * sizeof(*h->comm));
	h->tid[i] = tid;
	memset(h->comm[i], 0, sizeof(h->comm[i]));
	h->n++;
	h->fresh[h->n_fresh++] = tid; /* n_fresh <= n <= cap */
}

bool kernel_holders_lookup(int32_t tid, char comm[16], int32_t *tgid)
{
	char path[64], buf[1024];
	const char *t;

	/* /proc/TID/ names any thread, not only a process's first. */
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (corecap_read_small_file(AT_FDCWD, path, buf, sizeof(buf)) < 0 ||
	    !(t = strstr(buf, "\nTgid:")) || (*tgid = (int32_t)strtol(t + 6, NULL, 10)) <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	return corecap_read_comm(path, comm);
}

void kernel_holders_release(struct kernel_holders *h)
{
	free(h->tid);
	free(h->comm);
	free(h->fresh);
	memset(h, 0, sizeof(*h));
}
