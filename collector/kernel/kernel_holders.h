/*
 * struct kernel_holders: the threads of other processes that took a CPU
 * from the target's (the next thread of a switch-out), met while the
 * kernel source records, so that the report can name whom the target's
 * threads waited behind (a benchmark client, the collector, a CPU hog):
 * HOLDER records (corecap/kernel_format.h). Only the reader thread of
 * struct corecap_kernel_events uses it.
 *
 * Meeting a thread costs a comparison when it is the one met last (a
 * switch-out's next thread mostly is), else a binary search; a new one is
 * inserted in order and queued to be named after the drain pass. At most
 * KERNEL_HOLDERS_MAX are kept; those met beyond (or when memory runs
 * short) are not named.
 */
#ifndef CORECAP_COLLECTOR_KERNEL_HOLDERS_H
#define CORECAP_COLLECTOR_KERNEL_HOLDERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KERNEL_HOLDERS_MAX 4096u

struct kernel_holders {
	int32_t *tid;	  /* met, sorted */
	char (*comm)[16]; /* by tid's place: the name written last ("": none yet) */
	size_t n, cap;
	int32_t *fresh; /* met since the last naming, in the order met */
	size_t n_fresh;
	int32_t last; /* the tid met last */
};

/* Notes that tid (> 0) took a CPU from the target. */
void kernel_holders_meet(struct kernel_holders *h, int32_t tid);
/* tid's name and process from /proc (false: it is gone). */
bool kernel_holders_lookup(int32_t tid, char comm[16], int32_t *tgid);
/* The place of tid among those met, or -1. */
long kernel_holders_find(const struct kernel_holders *h, int32_t tid);
void kernel_holders_release(struct kernel_holders *h);

#endif
