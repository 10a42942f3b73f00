/*
 * A CTF trace's metadata, as corecap checks it before libbabeltrace2 sees
 * it (read/ctf_check.c): packetized or text, with and without the 2.0.4
 * event-context rule.
 */
#include <stdint.h>
#include <stdlib.h>

#include "read/ctf_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctf_check_opts o = {.refuse_context_sequence = true};
	char *err = NULL;

	corecap_ctf_check_metadata(data, size, &o, &err);
	free(err);
	err = NULL;
	o.refuse_context_sequence = false;
	corecap_ctf_check_metadata(data, size, &o, &err);
	free(err);
	return 0;
}
