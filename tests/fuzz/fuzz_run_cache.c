/*
 * The run cache's file (read/run_cache.c), as corecap_run_cache_load hands
 * a mapped file's bytes to corecap_run_cache_check (any key). The first
 * byte picks how: bit 0 clear, the bytes as they are (a hash guards them,
 * which the fuzzer rarely matches); set, with the footer's hash made right
 * first, so that the records are fuzzed too. A file that checks is
 * replayed, every string and stack of its events read, procnames asked
 * for by bit 1's rule; replay must then succeed with as many events as
 * the footer says. A refused file says why.
 */
#include <endian.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "read/run_cache.h"

#include "fuzz_util.h"

struct seen {
	uint64_t events, sum;
	int alternate;
};

static int consume(void *ctx, const struct model_event *ev)
{
	struct seen *s = ctx;

	s->events++;
	if (ev->comm)
		s->sum += strlen(ev->comm);
	if ((ev->kind == MEV_OP_BEGIN || ev->kind == MEV_OP_PHASE) && ev->op.str)
		s->sum += strlen(ev->op.str);
	if ((ev->kind == MEV_THREAD_NAME || ev->kind == MEV_THREAD_START) && ev->thread.name)
		s->sum += strlen(ev->thread.name);
	if (corecap_model_event_has_stack(ev)) {
		if (ev->lock.depth > 64)
			abort();
		for (uint32_t k = 0; k < ev->lock.depth; k++)
			s->sum += ev->lock.stack[k];
	}
	if ((ev->kind == MEV_IO || ev->kind == MEV_AIO) && ev->io.hdr_len > sizeof(ev->io.hdr))
		abort();
	return 0;
}

static bool wants(void *ctx, int32_t tid)
{
	struct seen *s = ctx;

	return s->alternate ? (tid & 1) : true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run_cache_view v;
	struct seen s = {0};
	uint64_t stack[64];
	const char *why = NULL;
	uint8_t *b;
	size_t len;

	if (!size)
		return 0;
	b = fuzz_hashed_copy(data, size, &len, corecap_run_cache_hash);
	s.alternate = data[0] & 2;
	if (corecap_run_cache_check(b, len, NULL, &v, &why) == 0) {
		if (corecap_run_cache_replay(&v, consume, wants, &s, stack) != 0 ||
		    s.events != v.tail.events)
			abort();
	} else if (!why) {
		abort(); /* refused: said why */
	}
	free(b);
	return 0;
}
