/*
 * folded and flame_stacks: stacks merge by name, totals add up, the
 * written form is sorted and reads back as the same stacks (one and two
 * columns), names can never break the format, and address stacks are
 * named outermost first with pprof's profiler frames dropped.
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/flame_stacks.h"
#include "model/folded.h"

#include "check_run.h"

/* The written form of f, as one string. */
static char *written(const struct folded *f, int columns)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(corecap_folded_write(f, out, columns), 0);
	fclose(out);
	return buf;
}

START_TEST(equal_stacks_merge_and_output_is_sorted)
{
	struct folded f;
	const char *s1[] = {"main", "work", "leaf"};
	const char *s2[] = {"main", "idle"};
	char *out;

	ck_assert_int_eq(corecap_folded_init(&f), 0);
	ck_assert_int_eq(corecap_folded_add(&f, s1, 3, 5, 0), 0);
	ck_assert_int_eq(corecap_folded_add(&f, s2, 2, 7, 0), 0);
	ck_assert_int_eq(corecap_folded_add(&f, s1, 3, 2, 0), 0);
	ck_assert_int_eq(corecap_folded_add(&f, s1, 2, 1, 0), 0); /* main;work itself */
	out = written(&f, 1);
	ck_assert_str_eq(out, "main;idle 7\nmain;work 1\nmain;work;leaf 7\n");
	ck_assert_uint_eq(f.nodes[FOLDED_ROOT].total[0], 15);
	ck_assert_uint_eq(f.max_depth, 3);
	free(out);
	corecap_folded_release(&f);
}
END_TEST

START_TEST(separators_in_names_cannot_split_frames)
{
	struct folded f;
	const char *s[] = {"operator;weird", "tab\there", "new\nline"};
	char *out;

	ck_assert_int_eq(corecap_folded_init(&f), 0);
	ck_assert_int_eq(corecap_folded_add(&f, s, 3, 1, 0), 0);
	out = written(&f, 1);
	ck_assert_str_eq(out, "operator:weird;tab?here;new?line 1\n");
	free(out);
	corecap_folded_release(&f);
}
END_TEST

START_TEST(written_lines_read_back_identically)
{
	struct folded a, b;
	const char *s1[] = {"a b(int, char)", "c"};
	const char *s2[] = {"x"};
	char *out1, *out2, *line, *save = NULL;

	ck_assert_int_eq(corecap_folded_init(&a), 0);
	ck_assert_int_eq(corecap_folded_add(&a, s1, 2, 123456789012ull, 0), 0);
	ck_assert_int_eq(corecap_folded_add(&a, s2, 1, 3, 0), 0);
	out1 = written(&a, 1);
	ck_assert_int_eq(corecap_folded_init(&b), 0);
	out2 = strdup(out1);
	for (line = strtok_r(out2, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		ck_assert_int_eq(corecap_folded_add_line(&b, line, 0), 0);
	free(out2);
	out2 = written(&b, 1);
	ck_assert_str_eq(out1, out2);
	free(out1);
	free(out2);
	corecap_folded_release(&a);
	corecap_folded_release(&b);
}
END_TEST

START_TEST(two_columns_keep_stacks_of_either_side)
{
	struct folded f;
	const char *common[] = {"main", "op"};
	const char *only_a[] = {"main", "old"};
	const char *only_b[] = {"main", "new"};
	char *out;

	ck_assert_int_eq(corecap_folded_init(&f), 0);
	ck_assert_int_eq(corecap_folded_add(&f, common, 2, 10, 0), 0);
	ck_assert_int_eq(corecap_folded_add(&f, common, 2, 30, 1), 0);
	ck_assert_int_eq(corecap_folded_add(&f, only_a, 2, 4, 0), 0);
	ck_assert_int_eq(corecap_folded_add(&f, only_b, 2, 6, 1), 0);
	out = written(&f, 2);
	ck_assert_str_eq(out, "main;new 0 6\nmain;old 4 0\nmain;op 10 30\n");
	free(out);
	/* A two-column line read back fills both columns. */
	ck_assert_int_eq(corecap_folded_add_line(&f, "main;op 1 2", 0), 0);
	ck_assert_uint_eq(f.nodes[FOLDED_ROOT].total[0], 15);
	ck_assert_uint_eq(f.nodes[FOLDED_ROOT].total[1], 38);
	ck_assert_int_eq(corecap_folded_add(&f, common, 2, 1, 2), -EINVAL);
	corecap_folded_release(&f);
}
END_TEST

/* A stack deeper than the parser's stack buffer (64 frames) moves to the heap whole. */
START_TEST(a_deep_line_reads_back_identically)
{
	char line[4096], *out;
	size_t n = 0;
	struct folded f;

	for (int i = 0; i < 300; i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%sf%d", i ? ";" : "", i);
	snprintf(line + n, sizeof(line) - n, " 7\n");
	ck_assert_int_eq(corecap_folded_init(&f), 0);
	ck_assert_int_eq(corecap_folded_add_line(&f, line, 0), 0);
	out = written(&f, 1);
	ck_assert_str_eq(out, line);
	free(out);
	corecap_folded_release(&f);
}
END_TEST

START_TEST(malformed_lines_are_rejected_and_counted)
{
	struct folded f;

	ck_assert_int_eq(corecap_folded_init(&f), 0);
	ck_assert_int_eq(corecap_folded_add_line(&f, "no-count", 0), -EINVAL);
	ck_assert_int_eq(corecap_folded_add_line(&f, "a;b x12", 0), -EINVAL);
	ck_assert_int_eq(corecap_folded_add_line(&f, " 12", 0), -EINVAL);
	ck_assert_int_eq(corecap_folded_add_line(&f, ";;; 12", 0), -EINVAL);
	ck_assert_int_eq(corecap_folded_add_line(&f, "a 99999999999999999999999", 0), -EINVAL);
	ck_assert_uint_eq(f.lines_rejected, 5);
	ck_assert_int_eq(corecap_folded_add_line(&f, "a;b 12\n", 0), 0);
	ck_assert(corecap_folded_empty(&f, 1));
	ck_assert(!corecap_folded_empty(&f, 0));
	corecap_folded_release(&f);
}
END_TEST

/* 0x4: two inlined calls in f4; 0x7000: a shim frame. */
static void test_namer(void *ctx, uint64_t addr, bool exact, struct flame_names *out)
{
	(void)ctx;
	if (addr == 0xdead) {
		snprintf(out->buf, sizeof(out->buf), "0x%" PRIx64, addr);
		out->names[out->n++] = out->buf;
		return;
	}
	out->resolved = true;
	out->shim = addr == 0x7000;
	if (addr == 0x5000) {
		out->names[out->n++] = "CpuProfiler::prof_handler(int, siginfo_t*, void*, void*)";
		return;
	}
	if (addr == 0x4) {
		out->inlined[out->n] = true;
		out->names[out->n++] = "leaf";
		out->inlined[out->n] = true;
		out->names[out->n++] = "mid";
	}
	snprintf(out->buf, sizeof(out->buf), "f%" PRIx64 "%s", addr, exact ? "" : "r");
	out->names[out->n++] = out->buf;
}

START_TEST(address_stacks_are_named_outermost_first)
{
	struct flame_stacks fs;
	const uint64_t pcs[] = {0x1, 0x5000, 0x2, 0xdead, 0x3}; /* innermost first */
	const char *prefix[] = {"tp_osd_tp"};
	char *out;

	ck_assert_int_eq(corecap_flame_stacks_init(&fs, FLAME_WALL, test_namer, NULL), 0);
	fs.skip_profiler_frames = true;
	ck_assert_int_eq(corecap_flame_stacks_add(&fs, prefix, 1, pcs, 5, true, false, 4, 0), 0);
	out = written(&fs.folded, 1);
	ck_assert_str_eq(out, "tp_osd_tp;f3r;0xdead;f2r;f1 4\n");
	ck_assert_uint_eq(fs.frames, 5);
	ck_assert_uint_eq(fs.unresolved_frames, 1);
	ck_assert_uint_eq(fs.skipped_frames, 1);
	ck_assert_uint_eq(fs.weight, 4);
	free(out);
	corecap_flame_stacks_release(&fs);
}
END_TEST

START_TEST(inlined_calls_are_frames_and_shim_frames_are_cut)
{
	struct flame_stacks fs;
	const uint64_t pcs[] = {0x7000, 0x4, 0x3}; /* innermost first */
	char *out;

	ck_assert_int_eq(corecap_flame_stacks_init(&fs, FLAME_CPU, test_namer, NULL), 0);
	ck_assert_int_eq(corecap_flame_stacks_add(&fs, NULL, 0, pcs, 3, true, true, 2, 0), 0);
	out = written(&fs.folded, 1);
	ck_assert_str_eq(out, "f3;f4;mid[inline];leaf[inline] 2\n");
	ck_assert_uint_eq(fs.shim_frames, 1);
	free(out);
	corecap_flame_stacks_release(&fs);
	ck_assert_int_eq(corecap_flame_stacks_init(&fs, FLAME_CPU, test_namer, NULL), 0);
	fs.keep_shim_frames = true;
	ck_assert_int_eq(corecap_flame_stacks_add(&fs, NULL, 0, pcs, 3, true, true, 2, 0), 0);
	out = written(&fs.folded, 1);
	ck_assert_str_eq(out, "f3;f4;mid[inline];leaf[inline];f7000 2\n");
	ck_assert_uint_eq(fs.shim_frames, 0);
	free(out);
	corecap_flame_stacks_release(&fs);
}
END_TEST

START_TEST(kinds_have_names)
{
	enum flame_kind k;

	ck_assert(corecap_flame_kind_parse("lock", &k));
	ck_assert_int_eq(k, FLAME_LOCK);
	ck_assert_str_eq(corecap_flame_kind_name(FLAME_OP), "op");
	ck_assert(!corecap_flame_kind_parse("heap", &k));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("folded");
	TCase *tc = tcase_create("folded");

	tcase_add_test(tc, equal_stacks_merge_and_output_is_sorted);
	tcase_add_test(tc, separators_in_names_cannot_split_frames);
	tcase_add_test(tc, written_lines_read_back_identically);
	tcase_add_test(tc, two_columns_keep_stacks_of_either_side);
	tcase_add_test(tc, a_deep_line_reads_back_identically);
	tcase_add_test(tc, malformed_lines_are_rejected_and_counted);
	tcase_add_test(tc, address_stacks_are_named_outermost_first);
	tcase_add_test(tc, inlined_calls_are_frames_and_shim_frames_are_cut);
	tcase_add_test(tc, kinds_have_names);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
