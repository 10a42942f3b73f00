/*
 * kernel_v2conv IN OUT [VERSION]: RUN/kernel/events.bin of version 1 (IN)
 * written as version VERSION (OUT; 2 by default, or 3), through
 * corecap/kernel_v2.h's encoder (and kernel_v3.h's frames), in flushes of
 * at most 1 MiB of records as the collector writes, or one of version 2
 * or 3 written back as version 1 through the decoders: the known answer
 * of the narrower and the compressed layouts (the same records, the same
 * report) on a run recorded with version 1, such as the committed golden
 * one. Prints "bytes <in> <out> records <n>".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <corecap/kernel_format.h>
#include <corecap/kernel_v2.h>
#include <corecap/kernel_v3.h>

#define CHUNK (1u << 20)

int main(int argc, char **argv)
{
	struct corecap_kfile_header h;
	unsigned char *buf, *enc, *zbuf;
	ZSTD_CCtx *cc;
	size_t len, off, out_bytes, n = 0;
	FILE *in, *out;
	long size;

	int to = argc == 4 ? atoi(argv[3]) : CORECAP_KERNEL_FORMAT_V2;

	if ((argc != 3 && argc != 4) ||
	    (to != CORECAP_KERNEL_FORMAT_V2 && to != CORECAP_KERNEL_FORMAT_VERSION)) {
		fprintf(stderr, "usage: kernel_v2conv IN OUT [2|3]\n");
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
	    (h.version != CORECAP_KERNEL_FORMAT_V1 && h.version != CORECAP_KERNEL_FORMAT_V2 &&
	     h.version != CORECAP_KERNEL_FORMAT_VERSION) ||
	    h.header_bytes < sizeof(h) || h.header_bytes > len) {
		fprintf(stderr, "corecap: '%s': not a kernel events file of version 1, 2 or 3\n",
			argv[1]);
		return 1;
	}
	out = fopen(argv[2], "wb");
	if (!out) {
		fprintf(stderr, "corecap: cannot write '%s': %s\n", argv[2], strerror(errno));
		return 1;
	}
	off = h.header_bytes;
	if (h.version != CORECAP_KERNEL_FORMAT_V1) {
		/* Back to version 1: each block decoded (version 3: each frame
		 * decompressed first; a trailing partial block or frame left out). */
		unsigned char *dec = malloc(CORECAP_KV2_DECODE_RATIO * CORECAP_KBLOCK_MAX);
		unsigned char *raw = malloc(CORECAP_KZFRAME_RAW_MAX);
		ZSTD_DCtx *dc = ZSTD_createDCtx();
		bool v3 = h.version == CORECAP_KERNEL_FORMAT_VERSION;
		uint64_t unknown = 0;

		h.version = CORECAP_KERNEL_FORMAT_V1;
		h.header_bytes = sizeof(h);
		fwrite(&h, sizeof(h), 1, out);
		out_bytes = sizeof(h);
		while (dec && raw && dc && off < len) {
			const unsigned char *blocks = buf + off;
			size_t blen = len - off, step = 0;
			struct corecap_kzframe f;
			const char *why = "";

			if (v3) {
				int c = corecap_kv3_frame_check(buf + off, len - off, &f, &why);

				if (c == 0)
					break;
				if (c < 0 || corecap_kv3_decompress(dc, buf + off, &f, raw, &why)) {
					fprintf(stderr, "corecap: '%s': frame at offset %zu: %s\n",
						argv[1], off, why);
					return 1;
				}
				blocks = raw;
				blen = f.raw_bytes;
			}
			while (step < blen) {
				size_t dlen, why_off;
				long b = corecap_kv2_decode_block(blocks + step, blen - step, dec,
								  &dlen, &unknown, &why, &why_off);

				if (b < 0 || (b == 0 && v3)) {
					fprintf(stderr,
						"corecap: '%s': block at offset %zu+%zu: %s at "
						"%zu\n",
						argv[1], off, step, b ? why : "cut short", why_off);
					return 1;
				}
				if (b == 0)
					break;
				for (size_t d = 0; d < dlen;
				     d += ((struct corecap_krec *)(void *)(dec + d))->size)
					n++;
				fwrite(dec, 1, dlen, out);
				out_bytes += dlen;
				step += (size_t)b;
			}
			if (!v3 && step == 0)
				break;
			off += v3 ? f.size : step;
		}
		if (!dec || fclose(out) != 0) {
			fprintf(stderr, "corecap: cannot write '%s': %s\n", argv[2],
				strerror(errno));
			return 1;
		}
		printf("bytes %zu %zu records %zu\n", len, out_bytes, n);
		return 0;
	}
	cc = ZSTD_createCCtx();
	zbuf = malloc(corecap_kv3_frame_bound(CORECAP_KV2_ENCODE_RATIO * (CHUNK + 65536) + 16));
	if (!cc || !zbuf) {
		fprintf(stderr, "corecap: out of memory\n");
		return 1;
	}
	h.version = (uint32_t)to;
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
		for (size_t done = 0; to == CORECAP_KERNEL_FORMAT_VERSION && done < e;) {
			/* Version 3: as the collector's kernel_out_flush cuts and compresses. */
			size_t cut = corecap_kv3_cut(enc + done, e - done, CORECAP_KZFRAME_RAW_MAX);
			const char *why = "";
			size_t z = cut ? corecap_kv3_compress(cc, CORECAP_KV3_LEVEL, enc + done,
							      cut, zbuf, &why)
				       : 0;

			if (!z) {
				fprintf(stderr, "corecap: cannot compress '%s': %s\n", argv[1],
					why);
				return 1;
			}
			fwrite(zbuf, 1, z, out);
			out_bytes += z;
			done += cut;
		}
		if (to != CORECAP_KERNEL_FORMAT_VERSION) {
			fwrite(enc, 1, e, out);
			out_bytes += e;
		}
		off = end;
	}
	if (fclose(out) != 0) {
		fprintf(stderr, "corecap: cannot write '%s': %s\n", argv[2], strerror(errno));
		return 1;
	}
	printf("bytes %zu %zu records %zu\n", len, out_bytes, n);
	return 0;
}
