/*
 * A CTF stream index (index/NAME.idx, LTTng's) against its stream file's
 * size, as corecap checks a trace before reading it (read/ctf_check.c,
 * corecap_ctf_check_index): the input is the stream's size (8 bytes,
 * little-endian), then the index file. The figures must add up: no more
 * packets missing than listed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "read/ctf_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctf_check c;
	uint64_t stream_bytes = 0;

	if (size < sizeof(stream_bytes))
		return 0;
	memcpy(&stream_bytes, data, sizeof(stream_bytes));
	memset(&c, 0, sizeof(c));
	corecap_ctf_check_index(fuzz_file(0, data + 8, size - 8), stream_bytes, "stream_0", &c);
	if (c.missing_packets > c.index_packets || (c.missing_packets && c.streams_cut != 1))
		abort();
	return 0;
}
