/*
 * The symbol cache's file (read/sym_cache.c), as corecap_sym_cache_open
 * hands a file's bytes to corecap_sym_cache_parse. The first byte picks
 * how: 0, the bytes as they are (a checksum guards the payload, which the
 * fuzzer rarely matches); 1, with the header's checksum made right first,
 * so that the records behind it are fuzzed too. A file that parses is
 * written again (corecap_sym_cache_serialize) and must parse back to the
 * same bytes, and every record it holds is looked up.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "read/sym_cache.h"

#define BID "0123456789abcdef0123456789abcdef01234567"
#define SRC "seed"

static uint32_t fnv(uint32_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The checksum field (offset 24) set to what the header's lengths say it covers. */
static void fix_checksum(uint8_t *b, size_t len)
{
	size_t bid, src, plen;
	uint32_t h;

	if (len < 28)
		return;
	bid = (size_t)(b[12] | b[13] << 8);
	src = (size_t)(b[14] | b[15] << 8);
	plen = le32(b + 20);
	if (28 + bid + src > len || plen > len - 28 - bid - src)
		return;
	h = fnv(2166136261u, (const uint8_t *)BID, strlen(BID));
	h = fnv(h, (const uint8_t *)SRC, strlen(SRC));
	h = fnv(h, b + 28 + bid + src, plen);
	for (int k = 0; k < 4; k++)
		b[24 + k] = (uint8_t)(h >> (8 * k));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sym_cache c, again;
	unsigned char *out, *out2;
	const char *why, *name;
	size_t len, len2;
	uint8_t *b;
	uint64_t k, v;

	if (!size)
		return 0;
	b = malloc(size);
	memcpy(b, data + 1, size - 1);
	if (data[0] & 1)
		fix_checksum(b, size - 1);
	if (corecap_sym_cache_open(&c, -1, BID, SRC))
		abort();
	if (corecap_sym_cache_parse(&c, b, size - 1, &why) == 0) {
		for (size_t i = 0; corecap_u64map_next(&c.frames, &i, &k, &v);) {
			const struct sym_cache_frames *f = corecap_sym_cache_frames(&c, k);

			if (!f || f->n > CORECAP_SYM_CACHE_MAX_N)
				abort();
			for (size_t j = 0; j < f->n; j++)
				if (!f->f[j].function[0] ||
				    (f->f[j].file && strlen(f->f[j].file) >= 0xffff))
					abort();
		}
		for (size_t i = 0; corecap_u64map_next(&c.data, &i, &k, &v);)
			if (!corecap_sym_cache_data(&c, k, &name) || (name && !*name))
				abort();
		/* Written again, it reads back to the same records and the same bytes. */
		out = corecap_sym_cache_serialize(&c, &len);
		if (out) {
			if (corecap_sym_cache_open(&again, -1, BID, SRC) ||
			    corecap_sym_cache_parse(&again, out, len, &why) != 0 ||
			    again.frames.len != c.frames.len || again.data.len != c.data.len)
				abort();
			out2 = corecap_sym_cache_serialize(&again, &len2);
			if (!out2 || len2 != len || memcmp(out, out2, len) != 0)
				abort();
			free(out2);
			corecap_sym_cache_release(&again);
			free(out);
		}
	} else if (!why || c.frames.len || c.data.len) {
		abort(); /* refused: said why, and nothing kept */
	}
	corecap_sym_cache_release(&c);
	free(b);
	return 0;
}
