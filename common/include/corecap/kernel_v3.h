/*
 * corecap/kernel_v3.h: events.bin of format version 3 (the layout is
 * described in corecap/kernel_format.h, "Version 3"): version 2's blocks
 * (corecap/kernel_v2.h) in zstd frames, in one place for the collector
 * (which writes version 3), the analysis and the tests (which read it).
 *
 * zstd and not an encoder of our own: the records are regular (the same
 * few tids, futex addresses and states again and again, times that grow
 * by small steps), which an entropy coder with a match finder shrinks
 * several times over at a few ns per byte, and libzstd is a maintained,
 * fuzzed library in Debian (libzstd-dev) whose frames any `zstd` tool
 * reads. Unlike kernel_v2.h this header needs libzstd: link PkgConfig::ZSTD.
 */
#ifndef CORECAP_KERNEL_V3_H
#define CORECAP_KERNEL_V3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <zstd.h>

#include "kernel_format.h"

/* The zstd level the collector writes with: measured in
 * docs/methodology.md, "What recording costs" (level 1 keeps most of
 * the gain at the least CPU; the collector runs beside the daemon). */
#define CORECAP_KV3_LEVEL 1

/* The most a frame of raw bytes takes in the file. */
static inline size_t corecap_kv3_frame_bound(size_t raw)
{
	return sizeof(struct corecap_kzframe) + ZSTD_compressBound(raw) + 8;
}

/*
 * The bytes of the longest run of whole version-2 blocks at the start of
 * [v2, v2 + len) that is at most max bytes (at least one block, if one is
 * whole): where the collector cuts a flush into frames.
 */
static inline size_t corecap_kv3_cut(const unsigned char *v2, size_t len, size_t max)
{
	size_t off = 0;

	while (len - off >= sizeof(struct corecap_kblock)) {
		uint32_t size;

		memcpy(&size, v2 + off + 4, sizeof(size));
		if (size < sizeof(struct corecap_kblock) || size > len - off ||
		    (off && off + size > max))
			break;
		off += size;
	}
	return off;
}

/*
 * One frame of the raw bytes [raw, raw + len) (whole version-2 blocks, at
 * most CORECAP_KZFRAME_RAW_MAX) at out, which holds
 * corecap_kv3_frame_bound(len) bytes: the frame's size, or 0 when zstd
 * failed (*why says why).
 */
static inline size_t corecap_kv3_compress(ZSTD_CCtx *cc, int level, const unsigned char *raw,
					  size_t len, unsigned char *out, const char **why)
{
	struct corecap_kzframe f = {.type = CORECAP_KREC_ZFRAME, .raw_bytes = (uint32_t)len};
	size_t z;

	/* One-shot compression writes the content size into the frame. */
	z = ZSTD_compressCCtx(cc, out + sizeof(f), ZSTD_compressBound(len), raw, len, level);
	if (ZSTD_isError(z)) {
		*why = ZSTD_getErrorName(z);
		return 0;
	}
	f.zbytes = (uint32_t)z;
	f.size = (uint32_t)((sizeof(f) + z + 7) & ~(size_t)7);
	memset(out + sizeof(f) + z, 0, f.size - sizeof(f) - z);
	memcpy(out, &f, sizeof(f));
	return f.size;
}

/*
 * The frame whose first min(avail, 16) bytes are at p (avail: the bytes
 * of the file from it), its header checked before anything is allocated
 * or decompressed: 1 when it is whole and its header sound (*f filled),
 * 0 when avail holds less than the whole frame (a collector killed
 * mid-write: a trailing partial frame), -1 with *why when its header
 * breaks the format. A frame is partial only if what is there could be
 * its start: a type of CORECAP_KREC_ZFRAME, sizes that agree.
 */
static inline int corecap_kv3_frame_check(const unsigned char *p, uint64_t avail,
					  struct corecap_kzframe *f, const char **why)
{
	uint16_t type;

	if (avail >= sizeof(type)) {
		memcpy(&type, p, sizeof(type));
		if (type != CORECAP_KREC_ZFRAME) {
			*why = "not a zstd frame header";
			return -1;
		}
	}
	if (avail < sizeof(*f))
		return 0;
	memcpy(f, p, sizeof(*f));
	if (f->flags) {
		*why = "unknown frame flags";
		return -1;
	}
	if (f->raw_bytes < sizeof(struct corecap_kblock) || f->raw_bytes % 8 ||
	    f->raw_bytes > CORECAP_KZFRAME_RAW_MAX) {
		*why = "bad decompressed size";
		return -1;
	}
	if (!f->zbytes || f->zbytes > ZSTD_compressBound(f->raw_bytes) ||
	    f->size != ((sizeof(*f) + f->zbytes + 7) & ~(size_t)7)) {
		*why = "bad compressed size";
		return -1;
	}
	return f->size <= avail;
}

/*
 * Decompresses the whole frame at p (its header checked by
 * corecap_kv3_frame_check) into out (f->raw_bytes bytes): 0, or -1 with *why. The zstd frame must
 * be one frame of exactly zbytes, declare raw_bytes as its content size
 * and decompress to exactly that: a frame that says less than it holds
 * (a bomb) fails in zstd against the bound of out, never writes past it.
 */
static inline int corecap_kv3_decompress(ZSTD_DCtx *dc, const unsigned char *p,
					 const struct corecap_kzframe *f, unsigned char *out,
					 const char **why)
{
	const unsigned char *z = p + sizeof(*f);
	unsigned long long content = ZSTD_getFrameContentSize(z, f->zbytes);
	size_t n;

	for (size_t i = sizeof(*f) + f->zbytes; i < f->size; i++)
		if (p[i]) {
			*why = "bad frame padding";
			return -1;
		}
	if (content == ZSTD_CONTENTSIZE_ERROR ||
	    ZSTD_findFrameCompressedSize(z, f->zbytes) != f->zbytes) {
		*why = "not one zstd frame of its compressed size";
		return -1;
	}
	if (content != f->raw_bytes) {
		*why = "its zstd frame declares another decompressed size";
		return -1;
	}
	n = ZSTD_decompressDCtx(dc, out, f->raw_bytes, z, f->zbytes);
	if (ZSTD_isError(n)) {
		*why = ZSTD_getErrorName(n);
		return -1;
	}
	if (n != f->raw_bytes) {
		*why = "decompressed to another size than declared";
		return -1;
	}
	return 0;
}

#endif
