/* cpu.prof, gperftools' legacy CPU profile (read/gperf_profile.c). */
#include <stdint.h>
#include <stdlib.h>

#include "read/gperf_profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gperf_profile p;
	char *err = NULL;

	corecap_gperf_profile_init(&p);
	corecap_gperf_profile_parse(&p, data, size, &err);
	free(err);
	corecap_gperf_profile_release(&p);
	return 0;
}
