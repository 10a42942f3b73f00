/*
 * corecap/kernel_v2.h: events.bin of format version 2 (the layout is
 * described in corecap/kernel_format.h, "Version 2"), encoded from and
 * decoded to the records of version 1, in one place for the collector
 * (which writes version 2), the analysis and the tests (which read it).
 *
 * The encoding is lossless: decoding the blocks of an encoded buffer
 * gives back the same records, byte for byte, in the same order. A
 * record that has no compact form (a type without one, a field that
 * does not fit, a record longer than its struct) is carried whole.
 *
 * Like kernel_format.h it needs only the C library.
 */
#ifndef CORECAP_KERNEL_V2_H
#define CORECAP_KERNEL_V2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernel_format.h"

/* A compact record's header, 8 bytes: its type (a corecap_krec_type, or
 * CORECAP_KV2_WHOLE), its size in 4-byte words (0 for WHOLE), a field of
 * the type's, and its time as nanoseconds after the block's base_ns. */
struct corecap_kv2_rec {
	uint8_t type;
	uint8_t words;
	uint16_t aux;
	uint32_t dt_ns;
};

/* The compact records' sizes in bytes. */
#define CORECAP_KV2_SWITCH_BYTES      20 /* aux: prev_state_char | flags << 8 */
#define CORECAP_KV2_WAKING_BYTES      20 /* aux: flags */
#define CORECAP_KV2_FUTEX_SHORT_BYTES 28 /* aux: op; no uaddr2, no timeout */
#define CORECAP_KV2_FUTEX_LONG_BYTES  44 /* aux: op */
#define CORECAP_KV2_FEXIT_BYTES	      12 /* aux: flags; ret 0 */
#define CORECAP_KV2_FEXIT_RET_BYTES   16 /* aux: flags; ret as int32 */

/* A largest version-1 record decodes from a compact one to at most this
 * many times its size (a 12-byte futex end to 32 bytes: 2.67): a block's
 * records, decoded, fit in CORECAP_KV2_DECODE_RATIO * its size. */
#define CORECAP_KV2_DECODE_RATIO 3u
/* An encoded buffer is at most this many times its records' size plus
 * 16 (a whole record of 16 bytes in a block of its own: 16 + 8 + 16). */
#define CORECAP_KV2_ENCODE_RATIO 3u

static inline bool corecap_kv2_fits_i32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* The compact form of v1 record r into c (up to 44 bytes): its size in
 * bytes, or 0 when r has none (it is then carried whole). */
static inline size_t corecap_kv2_compact(const unsigned char *r, unsigned char *c)
{
	struct corecap_krec h;
	struct corecap_kv2_rec ch = {0};
	size_t n = 0;

	memcpy(&h, r, sizeof(h));
	ch.type = (uint8_t)h.type;
	switch (h.type) {
	case CORECAP_KREC_SWITCH: {
		struct corecap_krec_switch s;

		if (h.size != sizeof(s))
			return 0;
		memcpy(&s, r, sizeof(s));
		if (s.prev_state < 0 || s.prev_state > UINT32_MAX || s.pad[0] || s.pad[1] ||
		    s.pad[2] || s.pad[3] || s.pad[4] || s.pad[5])
			return 0;
		{
			uint32_t st = (uint32_t)s.prev_state;

			ch.aux = (uint16_t)(s.prev_state_char | (unsigned)s.flags << 8);
			memcpy(c + 8, &s.prev_tid, 4);
			memcpy(c + 12, &s.next_tid, 4);
			memcpy(c + 16, &st, 4);
		}
		n = CORECAP_KV2_SWITCH_BYTES;
		break;
	}
	case CORECAP_KREC_WAKING: {
		struct corecap_krec_waking w;

		if (h.size != sizeof(w))
			return 0;
		memcpy(&w, r, sizeof(w));
		if (w.flags > UINT16_MAX)
			return 0;
		ch.aux = (uint16_t)w.flags;
		memcpy(c + 8, &w.tid, 4);
		memcpy(c + 12, &w.waker_tid, 4);
		memcpy(c + 16, &w.target_cpu, 4);
		n = CORECAP_KV2_WAKING_BYTES;
		break;
	}
	case CORECAP_KREC_FUTEX_ENTER: {
		struct corecap_krec_futex_enter f;

		if (h.size != sizeof(f))
			return 0;
		memcpy(&f, r, sizeof(f));
		if (f.op > UINT16_MAX)
			return 0;
		ch.aux = (uint16_t)f.op;
		memcpy(c + 8, &f.tid, 4);
		memcpy(c + 12, &f.val, 4);
		memcpy(c + 16, &f.uaddr, 8);
		memcpy(c + 24, &f.val3, 4);
		n = CORECAP_KV2_FUTEX_SHORT_BYTES;
		if (f.uaddr2 || f.utime) {
			memcpy(c + 28, &f.uaddr2, 8);
			memcpy(c + 36, &f.utime, 8);
			n = CORECAP_KV2_FUTEX_LONG_BYTES;
		}
		break;
	}
	case CORECAP_KREC_FUTEX_EXIT: {
		struct corecap_krec_futex_exit e;

		if (h.size != sizeof(e))
			return 0;
		memcpy(&e, r, sizeof(e));
		if (e.flags > UINT16_MAX || !corecap_kv2_fits_i32(e.ret))
			return 0;
		ch.aux = (uint16_t)e.flags;
		memcpy(c + 8, &e.tid, 4);
		n = CORECAP_KV2_FEXIT_BYTES;
		if (e.ret) {
			int32_t ret = (int32_t)e.ret;

			memcpy(c + 12, &ret, 4);
			n = CORECAP_KV2_FEXIT_RET_BYTES;
		}
		break;
	}
	default:
		return 0;
	}
	ch.words = (uint8_t)(n / 4);
	memcpy(c, &ch, sizeof(ch));
	return n;
}

/*
 * Encodes the version-1 records in [v1, v1 + len) (whole records, as the
 * collector buffers them) into blocks at out, which must hold
 * CORECAP_KV2_ENCODE_RATIO * len + 16 bytes: the bytes written. A block
 * holds the records of one CPU whose times lie in [base_ns, base_ns +
 * 2^32); a record of another CPU, earlier than the base or 4.3 s after
 * it, or that would make the block larger than CORECAP_KBLOCK_MAX, starts
 * the next block. Records carried whole go in the current block whatever
 * their CPU and time.
 */
static inline size_t corecap_kv2_encode(const unsigned char *v1, size_t len, unsigned char *out)
{
	size_t off = 0, n = 0, blk = 0;
	struct corecap_kblock b = {0};
	bool open = false;

	while (off + sizeof(struct corecap_krec) <= len) {
		struct corecap_krec h;
		unsigned char c[48];
		size_t cn, need;

		memcpy(&h, v1 + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off)
			break;
		/* A block's CPU is 16 bits: a record of a larger one goes whole. */
		cn = h.cpu <= UINT16_MAX ? corecap_kv2_compact(v1 + off, c) : 0;
		need = cn ? cn : 8u + h.size;
		if (open && (b.size + need + 4 > CORECAP_KBLOCK_MAX ||
			     (cn && (h.cpu != b.cpu || h.time_ns < b.base_ns ||
				     h.time_ns - b.base_ns > UINT32_MAX)))) {
			/* Close it: zero padding to a multiple of 8. */
			while (b.size % 8)
				out[blk + b.size++] = 0;
			memcpy(out + blk, &b, sizeof(b));
			n = blk + b.size;
			open = false;
		}
		if (!open) {
			blk = n;
			b = (struct corecap_kblock){.type = CORECAP_KREC_BLOCK,
						    .cpu = (uint16_t)h.cpu,
						    .size = sizeof(b),
						    .base_ns = h.time_ns};
			open = true;
		}
		if (cn) {
			uint32_t dt = (uint32_t)(h.time_ns - b.base_ns);

			memcpy(c + 4, &dt, 4);
			memcpy(out + blk + b.size, c, cn);
		} else {
			struct corecap_kv2_rec w = {.type = CORECAP_KV2_WHOLE};

			memcpy(out + blk + b.size, &w, sizeof(w));
			memcpy(out + blk + b.size + 8, v1 + off, h.size);
		}
		b.size += (uint32_t)need;
		off += h.size;
	}
	if (open) {
		while (b.size % 8)
			out[blk + b.size++] = 0;
		memcpy(out + blk, &b, sizeof(b));
		n = blk + b.size;
	}
	return n;
}

/*
 * Decodes the block at b (avail bytes of the file from it) into version-1
 * records at out (CORECAP_KV2_DECODE_RATIO * CORECAP_KBLOCK_MAX bytes).
 * Returns the block's size and *out_len, the records' bytes (*unknown
 * counts the compact records of types this decoder does not know,
 * skipped); 0 when avail holds less than the whole block (a trailing
 * fragment); -1 with *why and *why_off (the offset in the block) when
 * the block breaks the format. The decoded records are not checked
 * beyond their encoding: the reader checks them as records of version 1.
 */
static inline long corecap_kv2_decode_block(const unsigned char *bp, size_t avail,
					    unsigned char *out, size_t *out_len, uint64_t *unknown,
					    const char **why, size_t *why_off)
{
	struct corecap_kblock b;
	size_t off = sizeof(b), n = 0;

	*out_len = 0;
	*why_off = 0;
	if (avail < sizeof(b))
		return 0;
	memcpy(&b, bp, sizeof(b));
	if (b.type != CORECAP_KREC_BLOCK) {
		*why = "not a block";
		return -1;
	}
	if (b.size < sizeof(b) || b.size % 8 || b.size > CORECAP_KBLOCK_MAX) {
		*why = "bad block size";
		return -1;
	}
	if (b.size > avail)
		return 0;
	while (off < b.size) {
		struct corecap_kv2_rec c;
		size_t left = b.size - off, cn;
		unsigned char *r = out + n;

		*why_off = off;
		if (left < sizeof(c)) {
			static const unsigned char zero[8];

			if (memcmp(bp + off, zero, left)) {
				*why = "bad block padding";
				return -1;
			}
			break;
		}
		memcpy(&c, bp + off, sizeof(c));
		if (c.type == CORECAP_KV2_WHOLE) {
			struct corecap_krec h;

			if (c.words || c.aux || c.dt_ns || left < 8 + sizeof(h)) {
				*why = "bad whole record";
				return -1;
			}
			memcpy(&h, bp + off + 8, sizeof(h));
			if (h.size < sizeof(h) || h.size % 8 || h.size > left - 8) {
				*why = "bad size of a whole record";
				return -1;
			}
			memcpy(r, bp + off + 8, h.size);
			n += h.size;
			off += 8u + h.size;
			continue;
		}
		cn = 4u * c.words;
		if (cn < sizeof(c) || cn > left) {
			*why = "bad record size";
			return -1;
		}
		{
			const unsigned char *p = bp + off;
			struct corecap_krec h = {
				.type = c.type, .cpu = b.cpu, .time_ns = b.base_ns + c.dt_ns};

			switch (c.type) {
			case CORECAP_KREC_SWITCH: {
				struct corecap_krec_switch s = {0};
				uint32_t st;

				if (cn != CORECAP_KV2_SWITCH_BYTES)
					goto bad_size;
				h.size = sizeof(s);
				s.h = h;
				memcpy(&s.prev_tid, p + 8, 4);
				memcpy(&s.next_tid, p + 12, 4);
				memcpy(&st, p + 16, 4);
				s.prev_state = st;
				s.prev_state_char = (uint8_t)(c.aux & 0xff);
				s.flags = (uint8_t)(c.aux >> 8);
				memcpy(r, &s, sizeof(s));
				n += sizeof(s);
				break;
			}
			case CORECAP_KREC_WAKING: {
				struct corecap_krec_waking w = {0};

				if (cn != CORECAP_KV2_WAKING_BYTES)
					goto bad_size;
				h.size = sizeof(w);
				w.h = h;
				memcpy(&w.tid, p + 8, 4);
				memcpy(&w.waker_tid, p + 12, 4);
				memcpy(&w.target_cpu, p + 16, 4);
				w.flags = c.aux;
				memcpy(r, &w, sizeof(w));
				n += sizeof(w);
				break;
			}
			case CORECAP_KREC_FUTEX_ENTER: {
				struct corecap_krec_futex_enter f = {0};

				if (cn != CORECAP_KV2_FUTEX_SHORT_BYTES &&
				    cn != CORECAP_KV2_FUTEX_LONG_BYTES)
					goto bad_size;
				h.size = sizeof(f);
				f.h = h;
				f.op = c.aux;
				memcpy(&f.tid, p + 8, 4);
				memcpy(&f.val, p + 12, 4);
				memcpy(&f.uaddr, p + 16, 8);
				memcpy(&f.val3, p + 24, 4);
				if (cn == CORECAP_KV2_FUTEX_LONG_BYTES) {
					memcpy(&f.uaddr2, p + 28, 8);
					memcpy(&f.utime, p + 36, 8);
				}
				memcpy(r, &f, sizeof(f));
				n += sizeof(f);
				break;
			}
			case CORECAP_KREC_FUTEX_EXIT: {
				struct corecap_krec_futex_exit e = {0};
				int32_t ret = 0;

				if (cn != CORECAP_KV2_FEXIT_BYTES &&
				    cn != CORECAP_KV2_FEXIT_RET_BYTES)
					goto bad_size;
				h.size = sizeof(e);
				e.h = h;
				e.flags = c.aux;
				memcpy(&e.tid, p + 8, 4);
				if (cn == CORECAP_KV2_FEXIT_RET_BYTES)
					memcpy(&ret, p + 12, 4);
				e.ret = ret;
				memcpy(r, &e, sizeof(e));
				n += sizeof(e);
				break;
			}
			default:
				(*unknown)++; /* a later revision's: skipped */
				break;
			}
		}
		off += cn;
	}
	*out_len = n;
	return (long)b.size;
bad_size:
	*why = "bad size for its type";
	return -1;
}

#endif
