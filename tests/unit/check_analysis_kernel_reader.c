/*
 * analysis/read/kernel_reader.c: reads RUN/kernel/ written by hand; sorts
 * records across CPUs; joins stacks; and refuses hostile files with an
 * error naming the file and the cause (never a crash, never figures).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel_records.h"
#include "read/kernel_reader.h"
#include <corecap/kernel_v2.h>
#include <corecap/kernel_v3.h>

#include "check_run.h"

#define WS 1000000000ull
#define WE 2000000000ull

static char dir[64];
static struct kbuf ev, st;
static struct kernel_reader k;
static char *err;

static void setup(void)
{
	char path[128];

	snprintf(dir, sizeof(dir), "/tmp/check-kernel-events.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/kernel", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ev = st = (struct kbuf){0};
	kr_file_header(&ev, CORECAP_KERNEL_MAGIC_EVENTS, 42, 2);
	corecap_kernel_reader_init(&k);
	err = NULL;
}

static void teardown(void)
{
	char path[128];

	corecap_kernel_reader_release(&k);
	free(err);
	free(ev.p);
	free(st.p);
	snprintf(path, sizeof(path), "%s/%s", dir, CORECAP_KERNEL_EVENTS_FILE);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", dir, CORECAP_KERNEL_STACKS_FILE);
	unlink(path);
	snprintf(path, sizeof(path), "%s/kernel", dir);
	rmdir(path);
	rmdir(dir);
}

/* The records a cursor gives, in its order. */
#define MAX_RECS 1024
static size_t n_got;
static uint64_t got_time[MAX_RECS], got_off[MAX_RECS];
static uint16_t got_type[MAX_RECS];

static void read_all(void)
{
	struct kernel_cursor c;
	const struct corecap_krec *r;
	int ret;

	n_got = 0;
	ck_assert_int_eq(corecap_kernel_cursor_open(&c, &k), 0);
	while ((ret = corecap_kernel_cursor_next(&c, &r)) == 1) {
		ck_assert_uint_lt(n_got, MAX_RECS);
		got_time[n_got] = r->time_ns;
		got_type[n_got] = r->type;
		got_off[n_got++] = c.off;
	}
	ck_assert_int_eq(ret, 0);
	corecap_kernel_cursor_close(&c);
	ck_assert_uint_eq(n_got, k.n_recs);
}

static void put(const char *name, const struct kbuf *b, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(b->p, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

static int load(void)
{
	put(CORECAP_KERNEL_EVENTS_FILE, &ev, ev.len);
	if (st.len)
		put(CORECAP_KERNEL_STACKS_FILE, &st, st.len);
	return corecap_kernel_reader_load(&k, dir, WS, WE, &err);
}

/* The load fails and the error names the file and says `why`. */
static void expect_error(const char *why)
{
	ck_assert_int_lt(load(), 0);
	ck_assert_ptr_nonnull(err);
	ck_assert_msg(strstr(err, "kernel/events.bin") || strstr(err, "kernel/stacks.bin"),
		      "error without the file: %s", err);
	ck_assert_msg(strstr(err, why), "'%s' does not say '%s'", err, why);
}

START_TEST(records_are_sorted_across_cpus_and_stacks_joined)
{
	uint64_t frames[3] = {0x401000, 0x402000, 0x403000};

	/* CPU 1's ring drained after CPU 0's: the file is in per-CPU order only. */
	kr_futex_enter(&ev, 0, WS + 30, 7, 128, 0x5000);
	kr_switch(&ev, 0, WS + 40, 7, 'S', 0);
	kr_waking(&ev, 1, WS + 10, 7, 8);
	kr_waking(&ev, 1, WS + 12, 7, -1)->flags = CORECAP_KWAKING_HARDIRQ; /* waker unknown */
	kr_futex_exit(&ev, 1, WS + 35, 8, 0);
	kr_file_header(&st, CORECAP_KERNEL_MAGIC_STACKS, 42, 2);
	kr_stack(&st, WS + 30, 7, CORECAP_KSTACK_FUTEX, WS + 30, frames, 3);
	ck_assert_int_eq(load(), 0);
	ck_assert_uint_eq(k.n_recs, 5);
	read_all();
	for (size_t i = 1; i < n_got; i++)
		ck_assert_uint_le(got_time[i - 1], got_time[i]);
	ck_assert_uint_eq(got_type[0], CORECAP_KREC_WAKING);
	ck_assert_uint_eq(k.counts[CORECAP_KREC_SWITCH], 1);
	ck_assert(k.has_stacks);
	const struct corecap_krec_stack *s =
		corecap_kernel_reader_stack(&k, 7, WS + 30, CORECAP_KSTACK_FUTEX);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(corecap_kernel_stack_frames(s)[2], 0x403000);
	ck_assert_ptr_null(corecap_kernel_reader_stack(&k, 7, WS + 31, CORECAP_KSTACK_FUTEX));
	ck_assert_ptr_null(corecap_kernel_reader_stack(&k, 7, WS + 30, CORECAP_KSTACK_SWITCH));
}
END_TEST

/* The cursor's records in (time, file) order: the order of a stable sort
 * by time; every record once. */
static void expect_time_then_file_order(size_t n)
{
	ck_assert_uint_eq(k.n_recs, n);
	read_all();
	for (size_t i = 1; i < n_got; i++) {
		ck_assert_uint_le(got_time[i - 1], got_time[i]);
		if (got_time[i - 1] == got_time[i])
			ck_assert_uint_lt(got_off[i - 1], got_off[i]);
	}
}

/* The rings merged: ties across and within rings, and records earlier than
 * their ring's previous one (as the collector's window marks are) in between. */
START_TEST(rings_are_merged_in_time_then_file_order)
{
	uint64_t t[2] = {WS, WS};
	size_t n = 0;

	for (int i = 0; i < 600; i++) {
		uint32_t cpu = (uint32_t)(i * 7 % 3 == 0);

		t[cpu] += (uint64_t)(i * 13 % 5); /* steps of 0 give ties */
		if (i % 97 == 50)
			kr_futex_exit(&ev, cpu, t[cpu] - 40, 8, 0); /* a stray */
		else
			kr_futex_exit(&ev, cpu, t[cpu], 8, 0);
		n++;
	}
	ck_assert_int_eq(load(), 0);
	expect_time_then_file_order(n);
}
END_TEST

/* More rings than the merge takes: sorted all the same. */
START_TEST(many_rings_are_sorted)
{
	size_t n = 0;

	free(ev.p);
	ev = (struct kbuf){0};
	kr_file_header(&ev, CORECAP_KERNEL_MAGIC_EVENTS, 42, 40);
	for (int i = 0; i < 400; i++, n++)
		kr_futex_exit(&ev, (uint32_t)(i % 40), WS + (uint64_t)(i * 31 % 17), 8, 0);
	ck_assert_int_eq(load(), 0);
	expect_time_then_file_order(n);
}
END_TEST

/* A file whose CPUs alternate record by record: more stretches than the
 * index holds, so they are joined (reading more, never holding more), and
 * the order is the same; the collector's marks come out in between. */
START_TEST(an_index_beyond_its_bound_is_joined)
{
	size_t n = 0, stretches = KERNEL_INDEX_MAX_BYTES / sizeof(struct kernel_span) + 1000;
	struct kernel_cursor c;
	const struct corecap_krec *r;
	uint64_t last_t = 0, last_off = 0;
	size_t got = 0, marks = 0;
	int ret;

	for (size_t i = 0; i < stretches; i++, n++) {
		kr_futex_exit(&ev, (uint32_t)(i % 2), WS + i / 4, 8, 0);
		if (i % 100000 == 7) {
			kr_track(&ev, WS + i / 2, 9, "x"); /* ahead of the rings' times */
			n++;
		}
	}
	ck_assert_int_eq(load(), 0);
	ck_assert_uint_eq(k.n_recs, n);
	ck_assert_uint_gt(k.joins, 0);
	ck_assert_int_eq(corecap_kernel_cursor_open(&c, &k), 0);
	while ((ret = corecap_kernel_cursor_next(&c, &r)) == 1) {
		ck_assert(r->time_ns > last_t || (r->time_ns == last_t && c.off > last_off));
		last_t = r->time_ns;
		last_off = c.off;
		marks += r->type == CORECAP_KREC_TRACK;
		got++;
	}
	ck_assert_int_eq(ret, 0);
	ck_assert_uint_eq(got, n);
	ck_assert_uint_eq(marks, k.counts[CORECAP_KREC_TRACK]);
	corecap_kernel_cursor_close(&c);
}
END_TEST

/* events.bin cut after loading: the cursor fails, it never gives records
 * that were not checked, nor a short stream as if it were whole. */
START_TEST(a_file_changed_after_loading_fails_the_cursor)
{
	char path[160];
	struct kernel_cursor c;
	const struct corecap_krec *r;
	int ret;

	for (int i = 0; i < 20000; i++)
		kr_futex_exit(&ev, (uint32_t)(i % 2), WS + (uint64_t)i, 8, 0);
	ck_assert_int_eq(load(), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, CORECAP_KERNEL_EVENTS_FILE);
	ck_assert_int_eq(truncate(path, (off_t)(ev.len / 2)), 0);
	ck_assert_int_eq(corecap_kernel_cursor_open(&c, &k), 0);
	while ((ret = corecap_kernel_cursor_next(&c, &r)) == 1)
		;
	ck_assert_int_eq(ret, -EIO);
	corecap_kernel_cursor_close(&c);
}
END_TEST

START_TEST(no_kernel_directory_is_enoent)
{
	ck_assert_int_eq(corecap_kernel_reader_load(&k, "/nonexistent-run", WS, WE, &err), -ENOENT);
	ck_assert_ptr_null(err);
}
END_TEST

/* Unknown types are skipped, a trailing fragment ignored, losses summed. */
START_TEST(unknown_types_and_a_trailing_fragment_are_counted)
{
	struct corecap_krec *u = kr_add(&ev, 24);

	kr_head(u, 200, 24, 0, WS);
	kr_lost(&ev, 1, WS + 5, 17);
	kr_switch(&ev, 0, WS + 9, 7, 'R', 0);
	put(CORECAP_KERNEL_EVENTS_FILE, &ev, ev.len - 8); /* cut the last record */
	ck_assert_int_eq(corecap_kernel_reader_load(&k, dir, WS, WE, &err), 0);
	ck_assert_uint_eq(k.unknown_records, 1);
	ck_assert_uint_eq(k.trailing_bytes, 32);
	ck_assert_uint_eq(k.lost, 17);
	ck_assert_uint_eq(k.n_recs, 1);
	ck_assert(!k.has_stacks);
}
END_TEST

START_TEST(bad_magic)
{
	((struct corecap_kfile_header *)(void *)ev.p)->magic = 1;
	expect_error("bad magic");
}
END_TEST

START_TEST(bad_version)
{
	((struct corecap_kfile_header *)(void *)ev.p)->version = 9;
	expect_error("unsupported kernel format version 9");
}
END_TEST

START_TEST(short_header)
{
	put(CORECAP_KERNEL_EVENTS_FILE, &ev, 20);
	ck_assert_int_lt(corecap_kernel_reader_load(&k, dir, WS, WE, &err), 0);
	ck_assert_ptr_nonnull(strstr(err, "shorter than its 64-byte header"));
}
END_TEST

START_TEST(size_not_a_multiple_of_8)
{
	kr_switch(&ev, 0, WS, 7, 'R', 0)->h.size = 36;
	expect_error("bad size 36");
}
END_TEST

START_TEST(record_smaller_than_its_type)
{
	struct corecap_krec *r = kr_add(&ev, 24);

	kr_head(r, CORECAP_KREC_FUTEX_ENTER, 24, 0, WS);
	expect_error("expected at least 56");
}
END_TEST

START_TEST(cpu_beyond_the_header)
{
	kr_switch(&ev, 5, WS, 7, 'R', 0);
	expect_error("CPU 5 of 2");
}
END_TEST

START_TEST(negative_tid)
{
	kr_futex_exit(&ev, 0, WS, -3, 0);
	expect_error("bad tid");
}
END_TEST

/* Another process's thread named: its process too must be a valid tid. */
START_TEST(holder_with_a_bad_process)
{
	kr_holder(&ev, WS, 7, 0, "rados");
	expect_error("bad tid");
}
END_TEST

/* A holder's name is a mark, given in time order among the rings'
 * records whatever its place in the file. */
START_TEST(holders_are_marks_in_time_order)
{
	kr_switch(&ev, 0, WS + 10, 7, 'R', 300);
	kr_holder(&ev, WS + 30, 300, 299, "rados");
	kr_switch(&ev, 0, WS + 20, 300, 'R', 7);
	ck_assert_int_eq(load(), 0);
	ck_assert_uint_eq(k.counts[CORECAP_KREC_HOLDER], 1);
	ck_assert_uint_eq(k.n_side, 1);
	read_all();
	ck_assert_uint_eq(n_got, 3);
	ck_assert_uint_eq(got_type[2], CORECAP_KREC_HOLDER);
	ck_assert_uint_eq(got_time[2], WS + 30);
}
END_TEST

START_TEST(time_far_outside_the_window)
{
	kr_switch(&ev, 0, WE + KERNEL_TIME_SLACK_NS + 1, 7, 'R', 0);
	expect_error("far outside the recording window");
}
END_TEST

START_TEST(stack_with_too_many_frames)
{
	uint64_t frames[2] = {1, 2};

	kr_file_header(&st, CORECAP_KERNEL_MAGIC_STACKS, 42, 2);
	kr_stack(&st, WS, 7, CORECAP_KSTACK_FUTEX, WS, frames, 2);
	((struct corecap_krec_stack *)(void *)(st.p + 64))->nframes = 500;
	expect_error("500 frames in a record of 56 bytes");
}
END_TEST

START_TEST(stacks_of_another_process)
{
	kr_file_header(&st, CORECAP_KERNEL_MAGIC_STACKS, 43, 2);
	expect_error("stacks of pid 43, events of pid 42");
}
END_TEST

/* Version 2 of events.bin (corecap/kernel_format.h, "Version 2"). */

/* The version-1 file in `in` encoded as version 2, as the collector
 * writes it: its records in flushes of at most chunk bytes. */
static void to_v2(const unsigned char *in, size_t len, struct kbuf *out, size_t chunk)
{
	size_t off = sizeof(struct corecap_kfile_header);
	struct corecap_kfile_header *h;

	out->len = 0;
	h = kr_add(out, sizeof(*h));
	memcpy(h, in, sizeof(*h));
	h->version = CORECAP_KERNEL_FORMAT_V2;
	while (off < len) {
		size_t end = off, n;

		while (end < len && end - off < chunk)
			end += ((const struct corecap_krec *)(const void *)(in + end))->size;
		kr_add(out, CORECAP_KV2_ENCODE_RATIO * (end - off) + 16);
		out->len -= CORECAP_KV2_ENCODE_RATIO * (end - off) + 16;
		n = corecap_kv2_encode(in + off, end - off, out->p + out->len);
		out->len += n;
		off = end;
	}
}

/* Two loaded readers give the same records, byte for byte, in the same
 * order, with the same counts. */
static void expect_same_records(const struct kernel_reader *a, const struct kernel_reader *b)
{
	struct kernel_cursor ca, cb;
	const struct corecap_krec *ra, *rb;
	size_t n = 0;
	int ret;

	ck_assert_uint_eq(a->n_recs, b->n_recs);
	ck_assert_uint_eq(a->lost, b->lost);
	ck_assert_uint_eq(a->unknown_records, b->unknown_records);
	for (int t = 0; t < KERNEL_REC_TYPES; t++)
		ck_assert_uint_eq(a->counts[t], b->counts[t]);
	ck_assert_int_eq(corecap_kernel_cursor_open(&ca, a), 0);
	ck_assert_int_eq(corecap_kernel_cursor_open(&cb, b), 0);
	while ((ret = corecap_kernel_cursor_next(&ca, &ra)) == 1) {
		ck_assert_int_eq(corecap_kernel_cursor_next(&cb, &rb), 1);
		ck_assert_uint_eq(ra->size, rb->size);
		ck_assert_msg(!memcmp(ra, rb, ra->size), "record %zu (type %u) differs", n,
			      ra->type);
		n++;
	}
	ck_assert_int_eq(ret, 0);
	ck_assert_int_eq(corecap_kernel_cursor_next(&cb, &rb), 0);
	ck_assert_uint_eq(n, a->n_recs);
	corecap_kernel_cursor_close(&ca);
	corecap_kernel_cursor_close(&cb);
}

/* Every kind of record, compact and whole, on two CPUs, a mark out of
 * time order and a CPU's record earlier than its previous one. */
static void fill_every_kind(void)
{
	kr_track(&ev, WS + 50, 7, "worker");
	kr_switch(&ev, 0, WS + 10, 7, 'S', 0)->prev_state = 0x402;
	kr_switch(&ev, 0, WS + 11, 0, 'R', 8)->flags |= CORECAP_KSWITCH_PREEMPTED;
	kr_switch(&ev, 0, WS + 12, 8, '?', 7)->prev_state = (int64_t)1 << 40; /* whole */
	kr_waking(&ev, 0, WS + 13, 7, -1)->flags = CORECAP_KWAKING_HARDIRQ;
	kr_waking(&ev, 0, WS + 14, 8, 0)->target_cpu = 1;
	kr_futex_enter(&ev, 0, WS + 15, 7, 128 | 9, 0x7f0000001000)->val3 = 0xffffffffu;
	kr_futex_enter(&ev, 0, WS + 16, 7, 128, 0x7f0000001000)->utime = 0x7ffd0000;
	kr_futex_enter(&ev, 0, WS + 17, 8, 0x10000, 0x1000); /* op too wide: whole */
	kr_futex_exit(&ev, 0, WS + 18, 7, 0)->flags = CORECAP_KFUTEX_RESULT_UNKNOWN;
	kr_futex_exit(&ev, 0, WS + 19, 7, -110);
	kr_futex_exit(&ev, 0, WS + 20, 8, (int64_t)1 << 33); /* whole */
	kr_waking(&ev, 1, WS + 5, 7, 8);
	kr_lost(&ev, 1, WS + 6, 3);
	kr_fork(&ev, 1, WS + 7, 7, 9, "child");
	kr_switch(&ev, 1, WS + 4, 9, 'R', 0); /* earlier than its CPU's previous one */
	kr_switch(&ev, 1, WS + 1000000000ull, 9, 'S', 0);
	kr_switch(&ev, 1, WS + 5500000000ull, 0, 'R', 9); /* past a block's 4.3 s */
	kr_holder(&ev, WS + 1, 11, 12, "other");
}

START_TEST(version_2_gives_the_records_of_version_1)
{
	static const size_t chunks[] = {1, 100, 1u << 20};
	struct kernel_reader k1;
	struct kbuf v2 = {0};

	fill_every_kind();
	/* From bytes: the files below take events.bin's place. */
	ck_assert_int_eq(
		corecap_kernel_reader_load_buffers(&k, ev.p, ev.len, NULL, 0, WS, WE, &err), 0);
	for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		to_v2(ev.p, ev.len, &v2, chunks[i]);
		if (chunks[i] > 100) /* one block per record is no narrower */
			ck_assert_uint_lt(v2.len, ev.len);
		put(CORECAP_KERNEL_EVENTS_FILE, &v2, v2.len);
		corecap_kernel_reader_init(&k1);
		ck_assert_int_eq(corecap_kernel_reader_load(&k1, dir, WS, WE, &err), 0);
		ck_assert_uint_eq(k1.hdr.version, CORECAP_KERNEL_FORMAT_V2);
		ck_assert_uint_eq(k1.n_recs, 19);
		expect_same_records(&k, &k1);
		corecap_kernel_reader_release(&k1);
		/* From bytes too (the fuzz harness's entry). */
		ck_assert_int_eq(corecap_kernel_reader_load_buffers(&k1, v2.p, v2.len, NULL, 0, WS,
								    WE, &err),
				 0);
		expect_same_records(&k, &k1);
		corecap_kernel_reader_release(&k1);
	}
	free(v2.p);
}
END_TEST

/* The committed golden run's events.bin (version 1), converted to
 * version 2, gives the same records. */
START_TEST(the_golden_run_in_version_2_gives_the_same_records)
{
	const char *path = CORECAP_TEST_DATA "/analysis/golden-kernel/kernel/events.bin";
	struct kernel_reader k1;
	struct kbuf v1 = {0}, v2 = {0};
	FILE *f = fopen(path, "rb");
	long n;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	ck_assert_int_gt(n, 64);
	rewind(f);
	kr_add(&v1, (size_t)n);
	ck_assert_uint_eq(fread(v1.p, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	ck_assert_uint_eq(((struct corecap_kfile_header *)(void *)v1.p)->version,
			  CORECAP_KERNEL_FORMAT_V1);
	to_v2(v1.p, v1.len, &v2, 64u << 10);
	ck_assert_int_eq(corecap_kernel_reader_load_buffers(&k, v1.p, v1.len, NULL, 0, 0, 0, &err),
			 0);
	corecap_kernel_reader_init(&k1);
	ck_assert_int_eq(corecap_kernel_reader_load_buffers(&k1, v2.p, v2.len, NULL, 0, 0, 0, &err),
			 0);
	ck_assert_uint_gt(k.n_recs, 1000);
	expect_same_records(&k, &k1);
	/* Narrower: about half the bytes. */
	ck_assert_uint_lt(v2.len * 10, v1.len * 6);
	corecap_kernel_reader_release(&k1);
	free(v1.p);
	free(v2.p);
}
END_TEST

/* A block cut by a killed collector is a trailing fragment; an item that
 * is not a block, of a later revision, is skipped and counted. */
START_TEST(version_2_trailing_block_and_unknown_items)
{
	struct kbuf a = {0}, b = {0};
	unsigned char *u;
	size_t whole;

	kr_switch(&ev, 0, WS + 10, 7, 'S', 0);
	to_v2(ev.p, ev.len, &a, 1u << 20);
	u = kr_add(&a, 24);
	u[0] = 99; /* not a block */
	u[4] = 24;
	whole = a.len;
	ev.len = sizeof(struct corecap_kfile_header);
	kr_switch(&ev, 1, WS + 20, 8, 'R', 0);
	kr_switch(&ev, 1, WS + 30, 0, 'R', 8);
	to_v2(ev.p, ev.len, &b, 1u << 20);
	memcpy(kr_add(&a, b.len - 64), b.p + 64, b.len - 64);
	/* The second block cut 8 bytes short. */
	put(CORECAP_KERNEL_EVENTS_FILE, &a, a.len - 8);
	ck_assert_int_eq(corecap_kernel_reader_load(&k, dir, WS, WE, &err), 0);
	ck_assert_uint_eq(k.n_recs, 1);
	ck_assert_uint_eq(k.unknown_records, 1);
	ck_assert_uint_eq(k.trailing_bytes, a.len - 8 - whole);
	free(a.p);
	free(b.p);
}
END_TEST

/* A hostile version-2 file: errors naming the block's offset and the cause. */
static void expect_v2_error(void (*spoil)(unsigned char *blk), const char *why)
{
	struct kbuf v2 = {0};

	kr_switch(&ev, 0, WS + 10, 7, 'S', 0);
	kr_waking(&ev, 0, WS + 11, 7, 8);
	to_v2(ev.p, ev.len, &v2, 1u << 20);
	spoil(v2.p + 64);
	put(CORECAP_KERNEL_EVENTS_FILE, &v2, v2.len);
	ck_assert_int_lt(corecap_kernel_reader_load(&k, dir, WS, WE, &err), 0);
	ck_assert_ptr_nonnull(err);
	ck_assert_msg(strstr(err, "kernel/events.bin") && strstr(err, why),
		      "'%s' does not say '%s'", err, why);
	free(v2.p);
}

static void spoil_block_size(unsigned char *b)
{
	b[4] = 20;
}

static void spoil_record_size(unsigned char *b)
{
	b[16 + 1] = 200; /* the switch's words */
}

static void spoil_switch_size(unsigned char *b)
{
	b[16 + 1] = 4;
}

static void spoil_cpu(unsigned char *b)
{
	b[2] = 5;
}

static void spoil_tid(unsigned char *b)
{
	memset(b + 16 + 8, 0xff, 4); /* the switch's prev_tid: -1 */
}

START_TEST(version_2_hostile_blocks)
{
	expect_v2_error(spoil_block_size, "block at offset 64: bad size 20");
}
END_TEST

START_TEST(version_2_hostile_record_size)
{
	expect_v2_error(spoil_record_size, "block at offset 64: bad record size at 16");
}
END_TEST

START_TEST(version_2_hostile_size_for_type)
{
	expect_v2_error(spoil_switch_size, "bad size for its type");
}
END_TEST

START_TEST(version_2_hostile_cpu)
{
	expect_v2_error(spoil_cpu, "record at offset 64: CPU 5 of 2");
}
END_TEST

START_TEST(version_2_hostile_tid)
{
	expect_v2_error(spoil_tid, "bad tid");
}
END_TEST

/* Version 3 of events.bin (corecap/kernel_format.h, "Version 3"). */

/* The version-2 file in `in` written as version 3: its blocks in frames
 * of at most fmax bytes each (at least one block), as the collector cuts
 * a flush. */
static void v2_to_v3(const struct kbuf *in, struct kbuf *out, size_t fmax)
{
	size_t off = sizeof(struct corecap_kfile_header);
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	struct corecap_kfile_header *h;

	ck_assert_ptr_nonnull(cc);
	out->len = 0;
	h = kr_add(out, sizeof(*h));
	memcpy(h, in->p, sizeof(*h));
	h->version = CORECAP_KERNEL_FORMAT_VERSION;
	while (off < in->len) {
		size_t cut = corecap_kv3_cut(in->p + off, in->len - off, fmax), z;
		size_t bound = corecap_kv3_frame_bound(cut);
		const char *why = "";

		ck_assert_uint_gt(cut, 0);
		kr_add(out, bound);
		out->len -= bound;
		z = corecap_kv3_compress(cc, CORECAP_KV3_LEVEL, in->p + off, cut, out->p + out->len,
					 &why);
		ck_assert_msg(z > 0, "%s", why);
		out->len += z;
		off += cut;
	}
	ZSTD_freeCCtx(cc);
}

static void to_v3(const unsigned char *in, size_t len, struct kbuf *out, size_t fmax)
{
	struct kbuf v2 = {0};

	to_v2(in, len, &v2, 1u << 20);
	v2_to_v3(&v2, out, fmax);
	free(v2.p);
}

/* k and k1 hold the same index: spans, side records, joins, the end. */
static void expect_same_index(const struct kernel_reader *a, const struct kernel_reader *b)
{
	ck_assert_uint_eq(a->hdr.nr_cpus, b->hdr.nr_cpus);
	ck_assert_uint_eq(a->hdr.header_bytes, b->hdr.header_bytes);
	ck_assert_uint_eq(a->ev_end, b->ev_end);
	ck_assert_uint_eq(a->joins, b->joins);
	for (uint32_t c = 0; c < a->hdr.nr_cpus; c++) {
		ck_assert_uint_eq(a->spans[c].len, b->spans[c].len);
		ck_assert_uint_eq(a->spans[c].last_ns, b->spans[c].last_ns);
		for (size_t i = 0; i < a->spans[c].len; i++) {
			ck_assert_uint_eq(a->spans[c].v[i].start, b->spans[c].v[i].start);
			ck_assert_uint_eq(a->spans[c].v[i].end, b->spans[c].v[i].end);
		}
	}
	ck_assert_uint_eq(a->n_side, b->n_side);
	for (size_t i = 0; i < a->n_side; i++) {
		ck_assert_uint_eq(a->side[i].off, b->side[i].off);
		ck_assert(!memcmp(a->side[i].r, b->side[i].r, a->side[i].r->size));
	}
}

/* Versions 2 and 3 are indexed as they are decoded (no second walk over
 * the decoded records): the index is version 1's, record for record,
 * marks and strays aside, even when it had to be joined. */
START_TEST(versions_2_and_3_are_indexed_as_version_1)
{
	size_t stretches = KERNEL_INDEX_MAX_BYTES / sizeof(struct kernel_span) + 1000;
	struct kernel_reader k1;
	struct kbuf v = {0};

	kr_switch(&ev, 0, WS + 10, 7, 'S', 8);
	kr_waking(&ev, 1, WS + 11, 7, 8);
	kr_fork(&ev, 1, WS + 12, 7, 9, "child");
	kr_lost(&ev, 0, WS + 13, 3);
	kr_holder(&ev, WS + 1, 11, 12, "other");
	for (size_t i = 0; i < stretches; i++) {
		kr_futex_exit(&ev, (uint32_t)(i % 2), WS + 30 + i / 4, 8, 0);
		if (i % 100000 == 7)
			kr_track(&ev, WS + 30 + i / 2, 9, "x"); /* ahead of the rings' times */
	}
	kr_switch(&ev, 0, WS + 29, 7, 'R', 0); /* a stray: earlier than its CPU's last */
	ck_assert_int_eq(
		corecap_kernel_reader_load_buffers(&k, ev.p, ev.len, NULL, 0, WS, WE, &err), 0);
	ck_assert_uint_gt(k.joins, 0);
	ck_assert_uint_gt(k.n_side, 2);
	for (int version = 2; version <= 3; version++) {
		free(v.p);
		v = (struct kbuf){0};
		if (version == 2)
			to_v2(ev.p, ev.len, &v, 1u << 20);
		else
			to_v3(ev.p, ev.len, &v, CORECAP_KZFRAME_RAW_MAX);
		put(CORECAP_KERNEL_EVENTS_FILE, &v, v.len);
		corecap_kernel_reader_init(&k1);
		ck_assert_int_eq(corecap_kernel_reader_load(&k1, dir, WS, WE, &err), 0);
		expect_same_index(&k, &k1);
		expect_same_records(&k, &k1);
		corecap_kernel_reader_release(&k1);
	}
	free(v.p);
}
END_TEST

START_TEST(version_3_gives_the_records_of_version_1)
{
	static const size_t frames[] = {16, 200, CORECAP_KZFRAME_RAW_MAX};
	struct kernel_reader k1;
	struct kbuf v3 = {0};

	fill_every_kind();
	ck_assert_int_eq(
		corecap_kernel_reader_load_buffers(&k, ev.p, ev.len, NULL, 0, WS, WE, &err), 0);
	for (size_t i = 0; i < sizeof(frames) / sizeof(frames[0]); i++) {
		to_v3(ev.p, ev.len, &v3, frames[i]);
		put(CORECAP_KERNEL_EVENTS_FILE, &v3, v3.len);
		corecap_kernel_reader_init(&k1);
		ck_assert_int_eq(corecap_kernel_reader_load(&k1, dir, WS, WE, &err), 0);
		ck_assert_uint_eq(k1.hdr.version, CORECAP_KERNEL_FORMAT_VERSION);
		ck_assert_uint_eq(k1.n_recs, 19);
		ck_assert_uint_eq(k1.trailing_bytes, 0);
		expect_same_records(&k, &k1);
		corecap_kernel_reader_release(&k1);
		ck_assert_int_eq(corecap_kernel_reader_load_buffers(&k1, v3.p, v3.len, NULL, 0, WS,
								    WE, &err),
				 0);
		expect_same_records(&k, &k1);
		corecap_kernel_reader_release(&k1);
	}
	free(v3.p);
}
END_TEST

START_TEST(the_golden_run_in_version_3_gives_the_same_records)
{
	const char *path = CORECAP_TEST_DATA "/analysis/golden-kernel/kernel/events.bin";
	struct kernel_reader k1;
	struct kbuf v1 = {0}, v3 = {0};
	FILE *f = fopen(path, "rb");
	long n;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	kr_add(&v1, (size_t)n);
	ck_assert_uint_eq(fread(v1.p, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	to_v3(v1.p, v1.len, &v3, 8u << 10); /* several frames */
	ck_assert_int_eq(corecap_kernel_reader_load_buffers(&k, v1.p, v1.len, NULL, 0, 0, 0, &err),
			 0);
	corecap_kernel_reader_init(&k1);
	ck_assert_int_eq(corecap_kernel_reader_load_buffers(&k1, v3.p, v3.len, NULL, 0, 0, 0, &err),
			 0);
	ck_assert_uint_gt(k.n_recs, 1000);
	expect_same_records(&k, &k1);
	/* Compressed: at most a quarter of version 1's bytes. */
	ck_assert_uint_lt(v3.len * 4, v1.len);
	corecap_kernel_reader_release(&k1);
	free(v1.p);
	free(v3.p);
}
END_TEST

/* Two frames of one record each (fill_two), the offset of the second. */
static size_t two_frames(struct kbuf *v3)
{
	struct corecap_kzframe f;

	kr_switch(&ev, 0, WS + 10, 7, 'S', 0);
	kr_switch(&ev, 1, WS + 20, 8, 'R', 0);
	to_v3(ev.p, ev.len, v3, 16);
	memcpy(&f, v3->p + 64, sizeof(f));
	ck_assert_uint_lt(64 + f.size, v3->len);
	return 64 + f.size;
}

/* A collector killed mid-write: the last frame cut anywhere leaves the
 * first frame's record, the rest counted as a trailing fragment. */
START_TEST(version_3_torn_last_frame)
{
	struct kbuf v3 = {0};
	size_t second = two_frames(&v3);
	const size_t cuts[] = {1, 2, 15, 16, 17, v3.len - second - 1};

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		put(CORECAP_KERNEL_EVENTS_FILE, &v3, second + cuts[i]);
		corecap_kernel_reader_init(&k);
		ck_assert_int_eq(corecap_kernel_reader_load(&k, dir, WS, WE, &err), 0);
		ck_assert_uint_eq(k.n_recs, 1);
		ck_assert_uint_eq(k.trailing_bytes, cuts[i]);
		corecap_kernel_reader_release(&k);
	}
	put(CORECAP_KERNEL_EVENTS_FILE, &v3, v3.len);
	corecap_kernel_reader_init(&k);
	ck_assert_int_eq(corecap_kernel_reader_load(&k, dir, WS, WE, &err), 0);
	ck_assert_uint_eq(k.n_recs, 2);
	free(v3.p);
}
END_TEST

/* A hostile version-3 file: spoil(file, offset of the second frame) then
 * an error naming the file, the frame's offset and the cause. */
static void expect_v3_error(void (*spoil)(struct kbuf *v3, size_t second), const char *why)
{
	struct kbuf v3 = {0};
	size_t second = two_frames(&v3);
	char at[64];

	spoil(&v3, second);
	put(CORECAP_KERNEL_EVENTS_FILE, &v3, v3.len);
	ck_assert_int_lt(corecap_kernel_reader_load(&k, dir, WS, WE, &err), 0);
	ck_assert_ptr_nonnull(err);
	snprintf(at, sizeof(at), "frame at offset %zu", second);
	ck_assert_msg(strstr(err, "kernel/events.bin") && strstr(err, at) && strstr(err, why),
		      "'%s' does not say '%s' at '%s'", err, why, at);
	free(v3.p);
}

/* The second frame's header, to change and put back. */
static struct corecap_kzframe *frame_at(struct kbuf *v3, size_t off)
{
	return (struct corecap_kzframe *)(void *)(v3->p + off);
}

static void spoil_garbage_after(struct kbuf *v3, size_t second)
{
	/* A whole frame, then garbage where the next frame's header would be. */
	memset(v3->p + second, 0xab, v3->len - second);
}

static void spoil_flags(struct kbuf *v3, size_t second)
{
	frame_at(v3, second)->flags = 1;
}

static void spoil_raw_too_large(struct kbuf *v3, size_t second)
{
	frame_at(v3, second)->raw_bytes = CORECAP_KZFRAME_RAW_MAX + 8;
}

static void spoil_raw_unaligned(struct kbuf *v3, size_t second)
{
	frame_at(v3, second)->raw_bytes += 4;
}

static void spoil_zbytes(struct kbuf *v3, size_t second)
{
	frame_at(v3, second)->zbytes += 8; /* size no longer agrees */
}

static void spoil_raw_smaller(struct kbuf *v3, size_t second)
{
	frame_at(v3, second)->raw_bytes -= 8; /* the zstd frame declares more */
}

static void spoil_zstd_magic(struct kbuf *v3, size_t second)
{
	v3->p[second + sizeof(struct corecap_kzframe)] ^= 0xff;
}

static void spoil_padding(struct kbuf *v3, size_t second)
{
	struct corecap_kzframe *f = frame_at(v3, second);

	if (f->size == sizeof(*f) + f->zbytes) { /* no padding: make some */
		f->zbytes--;
		f->size = (uint32_t)((sizeof(*f) + f->zbytes + 7) & ~7u);
	}
	v3->p[second + f->size - 1] = 1;
}

/* Replaces the second frame with one of content raw (len bytes), whose
 * header says raw_bytes. */
static void put_frame(struct kbuf *v3, size_t second, const void *raw, size_t len,
		      uint32_t raw_bytes, bool content_size)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t bound = corecap_kv3_frame_bound(len), z;
	struct corecap_kzframe *f;

	v3->len = second;
	kr_add(v3, bound);
	ck_assert(!ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, content_size)));
	z = ZSTD_compress2(cc, v3->p + second + sizeof(*f), bound - sizeof(*f), raw, len);
	ck_assert(!ZSTD_isError(z));
	f = frame_at(v3, second);
	*f = (struct corecap_kzframe){.type = CORECAP_KREC_ZFRAME,
				      .raw_bytes = raw_bytes,
				      .zbytes = (uint32_t)z,
				      .size = (uint32_t)((sizeof(*f) + z + 7) & ~7u)};
	memset(v3->p + second + sizeof(*f) + z, 0, f->size - sizeof(*f) - z);
	v3->len = second + f->size;
	ZSTD_freeCCtx(cc);
}

/* A bomb: 64 MiB of zeros in a few KiB, its header saying the most a
 * frame may hold; the reader must refuse it without decompressing it. */
static void spoil_bomb(struct kbuf *v3, size_t second)
{
	size_t big = 64u << 20;
	unsigned char *zeros = calloc(1, big);

	ck_assert_ptr_nonnull(zeros);
	put_frame(v3, second, zeros, big, CORECAP_KZFRAME_RAW_MAX, true);
	free(zeros);
}

/* The same without a content size in the zstd frame (streaming's). */
static void spoil_bomb_no_size(struct kbuf *v3, size_t second)
{
	size_t big = 64u << 20;
	unsigned char *zeros = calloc(1, big);

	ck_assert_ptr_nonnull(zeros);
	put_frame(v3, second, zeros, big, CORECAP_KZFRAME_RAW_MAX, false);
	free(zeros);
}

/* Content that is not whole blocks: a block header whose size runs past it. */
static void spoil_cut_block(struct kbuf *v3, size_t second)
{
	struct corecap_kblock b = {.type = CORECAP_KREC_BLOCK, .size = 64, .base_ns = WS};

	put_frame(v3, second, &b, sizeof(b), sizeof(b), true);
}

START_TEST(version_3_hostile_trailing_garbage)
{
	expect_v3_error(spoil_garbage_after, "not a zstd frame header");
}
END_TEST

START_TEST(version_3_hostile_flags)
{
	expect_v3_error(spoil_flags, "unknown frame flags");
}
END_TEST

START_TEST(version_3_hostile_raw_size)
{
	expect_v3_error(spoil_raw_too_large, "bad decompressed size");
	corecap_kernel_reader_release(&k);
	free(err);
	err = NULL;
	ev.len = sizeof(struct corecap_kfile_header);
	expect_v3_error(spoil_raw_unaligned, "bad decompressed size");
}
END_TEST

START_TEST(version_3_hostile_compressed_size)
{
	expect_v3_error(spoil_zbytes, "bad compressed size");
}
END_TEST

START_TEST(version_3_hostile_declared_size)
{
	expect_v3_error(spoil_raw_smaller, "declares another decompressed size");
}
END_TEST

START_TEST(version_3_hostile_zstd_data)
{
	expect_v3_error(spoil_zstd_magic, "not one zstd frame of its compressed size");
}
END_TEST

START_TEST(version_3_hostile_padding)
{
	expect_v3_error(spoil_padding, "bad frame padding");
}
END_TEST

START_TEST(version_3_hostile_bomb)
{
	expect_v3_error(spoil_bomb, "declares another decompressed size");
	corecap_kernel_reader_release(&k);
	free(err);
	err = NULL;
	ev.len = sizeof(struct corecap_kfile_header);
	expect_v3_error(spoil_bomb_no_size, "declares another decompressed size");
}
END_TEST

START_TEST(version_3_hostile_blocks_inside)
{
	expect_v3_error(spoil_cut_block, "block at 0: bad size 64");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kernel_reader");
	TCase *ok = tcase_create("reading"), *bad = tcase_create("hostile");

	tcase_add_checked_fixture(ok, setup, teardown);
	/* The two indexes past their bound write 262k records each (the second
	 * in three versions): seconds on a loaded machine, not check's 4. */
	tcase_set_timeout(ok, 60);
	tcase_add_test(ok, records_are_sorted_across_cpus_and_stacks_joined);
	tcase_add_test(ok, rings_are_merged_in_time_then_file_order);
	tcase_add_test(ok, many_rings_are_sorted);
	tcase_add_test(ok, an_index_beyond_its_bound_is_joined);
	tcase_add_test(ok, a_file_changed_after_loading_fails_the_cursor);
	tcase_add_test(ok, no_kernel_directory_is_enoent);
	tcase_add_test(ok, unknown_types_and_a_trailing_fragment_are_counted);
	tcase_add_test(ok, holders_are_marks_in_time_order);
	tcase_add_test(ok, version_2_gives_the_records_of_version_1);
	tcase_add_test(ok, the_golden_run_in_version_2_gives_the_same_records);
	tcase_add_test(ok, version_2_trailing_block_and_unknown_items);
	tcase_add_test(ok, version_3_gives_the_records_of_version_1);
	tcase_add_test(ok, the_golden_run_in_version_3_gives_the_same_records);
	tcase_add_test(ok, versions_2_and_3_are_indexed_as_version_1);
	tcase_add_test(ok, version_3_torn_last_frame);
	tcase_add_checked_fixture(bad, setup, teardown);
	tcase_add_test(bad, bad_magic);
	tcase_add_test(bad, bad_version);
	tcase_add_test(bad, short_header);
	tcase_add_test(bad, size_not_a_multiple_of_8);
	tcase_add_test(bad, record_smaller_than_its_type);
	tcase_add_test(bad, cpu_beyond_the_header);
	tcase_add_test(bad, negative_tid);
	tcase_add_test(bad, holder_with_a_bad_process);
	tcase_add_test(bad, time_far_outside_the_window);
	tcase_add_test(bad, stack_with_too_many_frames);
	tcase_add_test(bad, stacks_of_another_process);
	tcase_add_test(bad, version_2_hostile_blocks);
	tcase_add_test(bad, version_2_hostile_record_size);
	tcase_add_test(bad, version_2_hostile_size_for_type);
	tcase_add_test(bad, version_2_hostile_cpu);
	tcase_add_test(bad, version_2_hostile_tid);
	tcase_add_test(bad, version_3_hostile_trailing_garbage);
	tcase_add_test(bad, version_3_hostile_flags);
	tcase_add_test(bad, version_3_hostile_raw_size);
	tcase_add_test(bad, version_3_hostile_compressed_size);
	tcase_add_test(bad, version_3_hostile_declared_size);
	tcase_add_test(bad, version_3_hostile_zstd_data);
	tcase_add_test(bad, version_3_hostile_padding);
	tcase_add_test(bad, version_3_hostile_bomb);
	tcase_add_test(bad, version_3_hostile_blocks_inside);
	suite_add_tcase(s, ok);
	suite_add_tcase(s, bad);
	return corecap_check_run(s);
}
