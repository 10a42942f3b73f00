/*
 * The OpTracker history's file in the run cache (read/ceph_cache.c), as
 * corecap_ceph_cache_load hands a mapped file's bytes to
 * corecap_ceph_cache_decode (any key). The first byte picks how: bit 0
 * clear, the bytes as they are (a hash guards them, which the fuzzer
 * rarely matches); set, with the hash made right first, so that the
 * contents are fuzzed too. A file that decodes holds what the models may
 * index without checks (every span's type and events, every event's
 * phase, within bounds) and encodes back to a file that decodes the same;
 * a refused file says why.
 */
#include <endian.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "read/ceph_cache.h"
#include "read/ceph_files.h"
#include "read/run_cache.h"

#include "fuzz_util.h"

static size_t touch(const struct ceph_files *c)
{
	size_t sum = 0;

	for (size_t i = 0; i < c->n_warnings; i++)
		sum += strlen(c->warnings[i]);
	for (size_t i = 0; i < c->n_types; i++) {
		sum += strlen(c->types[i].name);
		for (size_t k = 0; k < c->types[i].n_phases; k++)
			sum += strlen(c->types[i].phases[k].name);
	}
	for (size_t i = 0; i < c->n_spans; i++) {
		const struct ceph_op_span *sp = &c->spans[i];

		if (sp->type >= c->n_types || (uint64_t)sp->ev0 + sp->n_ev > c->n_events)
			abort();
		for (uint32_t k = 0; k < sp->n_ev; k++) {
			uint32_t ph = c->events[sp->ev0 + k].phase;

			if (ph != CEPH_NO_PHASE && ph >= c->types[sp->type].n_phases)
				abort();
			sum += ph != CEPH_NO_PHASE ? strlen(c->types[sp->type].phases[ph].name) : 0;
		}
	}
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ceph_files c, again;
	const char *why = NULL;
	unsigned char *b, *enc;
	size_t len, enc_len;

	if (!size)
		return 0;
	b = fuzz_hashed_copy(data, size, &len, corecap_run_cache_hash);
	if (corecap_ceph_cache_decode(&c, b, len, NULL, &why) == 0) {
		size_t sum = touch(&c);

		/* The key it was written for, read back by a second decode of its encoding. */
		if (corecap_ceph_cache_encode(&c, "fuzz", &enc, &enc_len) == 0) {
			if (corecap_ceph_cache_decode(&again, enc, enc_len, "fuzz", &why) != 0 ||
			    touch(&again) != sum || again.n_spans != c.n_spans ||
			    again.n_events != c.n_events || again.n_ops != c.n_ops)
				abort();
			corecap_ceph_files_release(&again);
			free(enc);
		}
		corecap_ceph_files_release(&c);
	} else if (!why) {
		abort(); /* refused: said why */
	}
	free(b);
	return 0;
}
