/*
 * heap: the sift-down of a binary min-heap of indices, ordered by the
 * caller's less(ctx, a, b). Inline, so that a constant less inlines with
 * it: the kernel records' cursor and the trace's merge run it for every
 * record and message.
 */
#ifndef CORECAP_HEAP_H
#define CORECAP_HEAP_H

#include <stdbool.h>
#include <stdint.h>

typedef bool (*corecap_heap_less_fn)(const void *ctx, uint32_t a, uint32_t b);

/* Moves heap[i] down until neither child of it is less (heap[0..n)). */
static inline void corecap_heap_down(uint32_t *heap, uint32_t n, uint32_t i,
				     corecap_heap_less_fn less, const void *ctx)
{
	for (;;) {
		uint32_t l = 2 * i + 1, m = i, t;

		if (l < n && less(ctx, heap[l], heap[m]))
			m = l;
		if (l + 1 < n && less(ctx, heap[l + 1], heap[m]))
			m = l + 1;
		if (m == i)
			return;
		t = heap[i];
		heap[i] = heap[m];
		heap[m] = t;
		i = m;
	}
}

#endif
