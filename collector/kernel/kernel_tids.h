/*
 * The target's thread ids (struct corecap_kernel_events' tids): a sorted
 * set, grown from /proc/PID/task and from fork records; the reader
 * thread owns it once started.
 */
#ifndef CORECAP_COLLECTOR_KERNEL_TIDS_H
#define CORECAP_COLLECTOR_KERNEL_TIDS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct corecap_kernel_events;

/* Whether tid (> 0) is among the n sorted tids of v. */
bool kernel_tids_has_sorted(const pid_t *v, size_t n, pid_t tid);
bool kernel_tids_has(const struct corecap_kernel_events *k, pid_t tid);
/* 1 when tid was added (tids_changed set), 0 when known, -ENOMEM. */
int kernel_tids_add(struct corecap_kernel_events *k, pid_t tid);
/* Adds the threads of /proc/PID/task not known yet. */
void kernel_tids_scan(struct corecap_kernel_events *k);

#endif
