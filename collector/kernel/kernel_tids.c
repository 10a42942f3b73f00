/* The target's thread ids (kernel_tids.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernel_events.h"
#include "kernel_tids.h"

/* Thread ids of the target. */

static int cmp_tid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

bool kernel_tids_has_sorted(const pid_t *v, size_t n, pid_t tid)
{
	return tid > 0 && n > 0 && bsearch(&tid, v, n, sizeof(pid_t), cmp_tid) != NULL;
}

bool kernel_tids_has(const struct corecap_kernel_events *k, pid_t tid)
{
	return kernel_tids_has_sorted(k->tids, k->n_tids, tid);
}

int kernel_tids_add(struct corecap_kernel_events *k, pid_t tid)
{
	size_t i;

	if (kernel_tids_has(k, tid))
		return 0;
	if (k->n_tids == k->cap_tids) {
		size_t cap = k->cap_tids ? 2 * k->cap_tids : 256;
		pid_t *t = realloc(k->tids, cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		k->tids = t;
		k->cap_tids = cap;
	}
	for (i = k->n_tids; i > 0 && k->tids[i - 1] > tid; i--)
		k->tids[i] = k->tids[i - 1];
	k->tids[i] = tid;
	k->n_tids++;
	k->tids_changed = true;
	return 1;
}

/* Adds the threads of /proc/PID/task not known yet. */
void kernel_tids_scan(struct corecap_kernel_events *k)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)k->pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		long tid = strtol(de->d_name, NULL, 10);

		if (tid > 0)
			kernel_tids_add(k, (pid_t)tid);
	}
	closedir(d);
}
