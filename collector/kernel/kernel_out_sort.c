/* The order of a drain's records in events.bin (kernel_out_sort.h). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <corecap/kernel_format.h>
#include "kernel_out_sort.h"

struct rec_pos {
	uint32_t cpu;
	uint16_t size;
	uint64_t time_ns;
	size_t off;
};

static int cmp_pos(const void *a, const void *b)
{
	const struct rec_pos *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off; /* stable */
}

/*
 * One CPU's records, in ring order, into (time, ring offset) order: an
 * insertion sort, since the few out of place are near where they belong
 * (an interrupted program's, a held waking written at its switch-in);
 * past a budget of moves, a full sort (the order is the same: the ring
 * offset breaks ties).
 */
static void sort_cpu(struct rec_pos *v, size_t n)
{
	size_t budget = 8 * n + 64;

	for (size_t i = 1; i < n; i++) {
		struct rec_pos x = v[i];
		size_t j = i;

		while (j > 0 && cmp_pos(&v[j - 1], &x) > 0 && budget) {
			v[j] = v[j - 1];
			j--;
			budget--;
		}
		v[j] = x;
		if (!budget) {
			qsort(v, n, sizeof(*v), cmp_pos);
			return;
		}
	}
}

void corecap_kernel_out_sort(unsigned char *out, size_t len, int nr_cpus)
{
	size_t n = 0, ncpu = (size_t)(nr_cpus > 0 ? nr_cpus : 1);
	struct rec_pos *v = NULL;
	unsigned char *tmp = NULL;
	size_t *start = calloc(ncpu + 1, sizeof(*start));
	uint64_t *last = calloc(ncpu, sizeof(*last));
	bool *unsorted = calloc(ncpu, sizeof(*unsorted));
	bool any_unsorted = false;

	if (!start || !last || !unsorted)
		goto out;
	for (size_t off = 0; off < len; off += ((const struct corecap_krec *)(out + off))->size) {
		const struct corecap_krec *h = (const void *)(out + off);
		size_t c = h->cpu < ncpu ? h->cpu : ncpu - 1;

		if (h->cpu >= ncpu || h->time_ns < last[c])
			unsorted[c] = any_unsorted = true;
		last[c] = h->time_ns;
		start[c + 1]++;
		n++;
	}
	if (n < 2 || !(v = malloc(n * sizeof(*v))) || !(tmp = malloc(len)))
		goto out;
	for (size_t c = 0; c < ncpu; c++)
		start[c + 1] += start[c];
	for (size_t off = 0; off < len;) {
		const struct corecap_krec *h = (const void *)(out + off);
		size_t c = h->cpu < ncpu ? h->cpu : ncpu - 1;

		v[start[c]++] = (struct rec_pos){h->cpu, h->size, h->time_ns, off};
		off += h->size;
	}
	/* start[c] is now CPU c's end, CPU c + 1's start. */
	for (size_t c = 0; any_unsorted && c < ncpu; c++) {
		size_t b = c ? start[c - 1] : 0;

		if (unsorted[c])
			sort_cpu(v + b, start[c] - b);
	}
	for (size_t i = 0, at = 0; i < n; i++) {
		memcpy(tmp + at, out + v[i].off, v[i].size);
		at += v[i].size;
	}
	memcpy(out, tmp, len);
out:
	free(start);
	free(last);
	free(unsorted);
	free(v);
	free(tmp);
}
