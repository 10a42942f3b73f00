/* wall.samples (read/wall_samples.c): every sample handed to a consumer that reads it whole. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "read/wall_samples.h"

static int consume(void *ctx, const struct wall_sample *s)
{
	uint64_t *sum = ctx;

	for (uint32_t i = 0; i < s->depth; i++)
		*sum += s->ips[i];
	*sum += s->time_ns + s->stop_ns + (uint64_t)s->tid;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wall_samples w;
	uint64_t sum = 0;
	char *err = NULL;

	corecap_wall_samples_init(&w);
	corecap_wall_samples_read(&w, fuzz_file(0, data, size), consume, &sum, &err);
	free(err);
	corecap_wall_samples_release(&w);
	return 0;
}
