/*
 * kernel_v2conv IN OUT: RUN/kernel/events.bin of version 1 (IN) written
 * as version 2 (OUT), through corecap/kernel_v2.h's encoder, in flushes
 * of at most 1 MiB of records as the collector writes, or one of version
 * 2 written back as version 1 through its decoder: the known answer
 * of the narrower layout (the same records, the same report) on a run
 * recorded with version 1, such as the committed golden one. Prints
 * "bytes <in> <out> records <n>".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <corecap/kernel_format.h>
#include <corecap/kernel_v2.h>

#define CHUNK (1u << 20)

int main(int argc, char **argv)
{
	struct corecap_kfile_header h;
	unsigned char *buf, *enc;
	size_t len, off, out_bytes, n = 0;
	FILE *in, *out;
	long size;

	if (argc != 3) {
		fprintf(stderr, "usage: kernel_v2conv IN OUT\n");
		return 2;
	}
	in = fopen(argv[1], "rb");
	if (!in || fseek(in, 0, SEEK_END) || (size = ftell(in)) < 0 || fseek(in, 0, SEEK_SET)) {
		fprintf(stderr, "corecap: cannot read '%s': %s\n", argv[1], strerror(errno));
		return 1;
	}
	len = (size_t)size;
	buf = malloc(len + 1);
	enc = malloc(CORECAP_KV2_ENCODE_RATIO * (CHUNK + 65536) + 16);
	if (!buf || !enc || fread(buf, 1, len, in) != len) {
		fprintf(stderr, "corecap: cannot read '%s': %s\n", argv[1], strerror(errno));
		return 1;
	}
	fclose(in);
	memcpy(&h, buf, len < sizeof(h) ? len : sizeof(h));
	if (len < sizeof(h) || h.magic != CORECAP_KERNEL_MAGIC_EVENTS ||
	    (h.version != CORECAP_KERNEL_FORMAT_V1 && h.version != CORECAP_KERNEL_FORMAT_VERSION) ||
	    h.header_bytes < sizeof(h) || h.header_bytes > len) {
		fprintf(stderr, "corecap: '%s': not a kernel events file of version 1 or 2\n",
			argv[1]);
		return 1;
	}
	out = fopen(argv[2], "wb");
	if (!out) {
		fprintf(stderr, "corecap: cannot write '%s': %s\n", argv[2], strerror(errno));
		return 1;
	}
	off = h.header_bytes;
	if (h.version == CORECAP_KERNEL_FORMAT_VERSION) {
		/* Back to version 1: each block decoded (a trailing partial block left out). */
		unsigned char *dec = malloc(CORECAP_KV2_DECODE_RATIO * CORECAP_KBLOCK_MAX);
		uint64_t unknown = 0;

		h.version = CORECAP_KERNEL_FORMAT_V1;
		h.header_bytes = sizeof(h);
		fwrite(&h, sizeof(h), 1, out);
		out_bytes = sizeof(h);
		while (dec && off < len) {
			const char *why = "";
			size_t dlen, why_off;
			long b = corecap_kv2_decode_block(buf + off, len - off, dec, &dlen,
							  &unknown, &why, &why_off);

			if (b < 0) {
				fprintf(stderr, "corecap: '%s': block at offset %zu: %s at %zu\n",
					argv[1], off, why, why_off);
				return 1;
			}
			if (b == 0)
				break;
			for (size_t d = 0; d < dlen;
			     d += ((struct corecap_krec *)(void *)(dec + d))->size)
				n++;
			fwrite(dec, 1, dlen, out);
			out_bytes += dlen;
			off += (size_t)b;
		}
		if (!dec || fclose(out) != 0) {
			fprintf(stderr, "corecap: cannot write '%s': %s\n", argv[2],
				strerror(errno));
			return 1;
		}
		printf("bytes %zu %zu records %zu\n", len, out_bytes, n);
		return 0;
	}
	h.version = CORECAP_KERNEL_FORMAT_VERSION;
	h.header_bytes = sizeof(h);
	fwrite(&h, sizeof(h), 1, out);
	out_bytes = sizeof(h);
	while (off + sizeof(struct corecap_krec) <= len) {
		size_t end = off, e;

		/* Whole records, up to CHUNK bytes (a trailing fragment is left out). */
		while (end + sizeof(struct corecap_krec) <= len && end - off < CHUNK) {
			uint16_t rs;

			memcpy(&rs, buf + end + 2, sizeof(rs));
			if (rs < sizeof(struct corecap_krec) || rs % 8 || rs > len - end)
				break;
			end += rs;
			n++;
		}
		if (end == off)
			break;
		e = corecap_kv2_encode(buf + off, end - off, enc);
		fwrite(enc, 1, e, out);
		out_bytes += e;
		off = end;
	}
	if (fclose(out) != 0) {
		fprintf(stderr, "corecap: cannot write '%s': %s\n", argv[2], strerror(errno));
		return 1;
	}
	printf("bytes %zu %zu records %zu\n", len, out_bytes, n);
	return 0;
}
