/*
 * stats-begin and stats-end (read/shim_stats.c, corecap/stats_layout.h),
 * split at "--stats-end--". A valid copy's process totals are summed too,
 * as the collector does, over its thread table.
 */
#include <corecap/stats_layout.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "read/shim_stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *b, *e;
	size_t nb, ne;
	struct shim_stats s;
	char *err = NULL;
	const char *pb, *pe;

	fuzz_split(data, size, "--stats-end--", &b, &nb, &e, &ne);
	pb = fuzz_file(0, b, nb);
	pe = fuzz_file(1, e, ne);
	corecap_shim_stats_init(&s);
	corecap_shim_stats_load(&s, pb, pe, &err);
	free(err);
	corecap_shim_stats_release(&s);

	/* The header's own functions, on an aligned copy as a reader holds one. */
	if (nb >= sizeof(struct corecap_stats_header)) {
		uint64_t *copy = malloc(nb + 8);
		struct corecap_stats_counters tot;

		memcpy(copy, b, nb);
		if (corecap_stats_valid(copy, nb))
			corecap_stats_totals(copy, &tot);
		free(copy);
	}
	return 0;
}
