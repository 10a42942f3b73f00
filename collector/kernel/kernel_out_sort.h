/*
 * The order of a drain's records in events.bin: the one BPF ring holds
 * every CPU's records in the order they were reserved, and events.bin
 * keeps each CPU's records together and in time order, as a drain of the
 * perf rings writes them.
 */
#ifndef CORECAP_COLLECTOR_KERNEL_OUT_SORT_H
#define CORECAP_COLLECTOR_KERNEL_OUT_SORT_H

#include <stddef.h>

/*
 * The len bytes of records at out (struct corecap_krec, each of its own
 * size) sorted by CPU, then time, then place (the order of a stable sort
 * by CPU and time). Each CPU's records are put together in their order
 * (a counting sort by CPU), and only a CPU whose records are not already
 * in time order is sorted, by an insertion sort (the few out of place, a
 * program interrupted between its reservation and its stamp or a waking
 * its switch-in carried, lie near where they belong) that gives way to a
 * full sort past a budget of moves. A CPU of nr_cpus or above sorts
 * after every other. Left as they are when memory runs short (the reader
 * then sorts; only its spans grow).
 */
void corecap_kernel_out_sort(unsigned char *out, size_t len, int nr_cpus);

#endif
