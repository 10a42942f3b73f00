/*
 * render/ceph_disk.c: a disk-backed OSD's I/O per write op from a report
 * built by hand (the shim's counters by class, the OSD's op_w and store
 * counters, a FileStore write type with its journal phase), as text, JSON
 * and HTML, with the figures computed by hand; and nothing without the
 * shim's counters, without disk I/O (memstore) or without write ops.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/ceph_disk.h"

#include "check_run.h"

static struct shim_io_delta io[CORECAP_IO_CLASSES];
static struct ceph_perf_counter perf[2];
static struct ceph_phase phases[2];
static struct ceph_op_type types[1];
static struct ceph_files ceph;
static struct report r;

/* 1000 writes; journal: 1000 aio of 650 us, no sync; data: 800 syncs, 180 ms. */
static void setup(void)
{
	memset(io, 0, sizeof(io));
	io[CORECAP_IO_JOURNAL] = (struct shim_io_delta){
		.calls = 1000, .ns = 40000000, .aio_done = 1000, .aio_ns = 650000000};
	io[CORECAP_IO_DATA] = (struct shim_io_delta){
		.calls = 2000, .ns = 200000000, .sync_calls = 800, .sync_ns = 180000000};
	perf[0] = (struct ceph_perf_counter){.name = "op_w", .count_delta = 1000};
	perf[1] = (struct ceph_perf_counter){.name = "filestore.journal_latency",
					     .is_avg = true,
					     .count_delta = 1000,
					     .sum_s_delta = 0.7};
	snprintf(phases[0].name, sizeof(phases[0].name), "started");
	phases[0].total_ns = 100000000;
	snprintf(phases[1].name, sizeof(phases[1].name), CORECAP_CEPH_JOURNAL_PHASE);
	phases[1].total_ns = 710000000;
	types[0] = (struct ceph_op_type){
		.name = "write", .count = 1000, .phases = phases, .n_phases = 2};
	ceph = (struct ceph_files){.has_optracker = true,
				   .has_perf = true,
				   .types = types,
				   .n_types = 1,
				   .perf = perf,
				   .n_perf = 2};
	r = (struct report){.shim_io = io, .ceph = &ceph};
}

static char *render(void (*fn)(const struct report *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	fn(&r, f);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

START_TEST(figures_per_write_op_by_class)
{
	struct ceph_disk d;

	ck_assert(corecap_ceph_disk_of(&r, &d));
	ck_assert_double_eq_tol(d.ops, 1000, 1e-9);
	ck_assert_str_eq(d.ops_from, "op_w");
	ck_assert_double_eq_tol(d.cls[CORECAP_IO_JOURNAL].aio_us, 650, 1e-9);
	ck_assert_double_eq_tol(d.cls[CORECAP_IO_JOURNAL].aio_mean_us, 650, 1e-9);
	ck_assert_double_eq_tol(d.cls[CORECAP_IO_JOURNAL].io_us, 40, 1e-9);
	ck_assert_double_eq_tol(d.cls[CORECAP_IO_DATA].sync_us, 180, 1e-9);
	ck_assert_uint_eq(d.cls[CORECAP_IO_DATA].sync_calls, 800);
	ck_assert(d.has_journal_phase);
	ck_assert_double_eq_tol(d.journal_phase_us, 710, 1e-9);
}
END_TEST

START_TEST(text_names_the_classes_the_phase_and_the_store_counters)
{
	char *t = render(corecap_ceph_disk_text);

	ck_assert_ptr_nonnull(strstr(t, "per write op (1000 op_w in the window)"));
	ck_assert_ptr_nonnull(
		strstr(t, "journal: aio 650.0 us/op (1000 aio, mean 650.0 us), sync 0.0 us/op"));
	ck_assert_ptr_nonnull(strstr(t, "data: aio 0.0 us/op (0 aio, mean 0.0 us), sync 180.0 "
					"us/op (800 syncs), calls 200.0 us/op"));
	ck_assert_ptr_nonnull(strstr(
		t, "journal write (FileStore's phase write_thread_in_journal_buffer): 710.0 us"));
	ck_assert_ptr_nonnull(strstr(t, "filestore.journal_latency: 1000, avg 700.0 us"));
	/* op_w is the osd's, not a store counter: not in this block's list. */
	ck_assert_ptr_null(strstr(t, "op_w: "));
	free(t);
}
END_TEST

START_TEST(json_goes_into_the_ceph_object)
{
	json_object *root = json_object_new_object(), *disk, *cls, *v;

	/* No ceph object: nothing added. */
	corecap_ceph_disk_json_put(&r, root);
	ck_assert(!json_object_object_get_ex(root, "ceph", NULL));
	json_object_object_add(root, "ceph", json_object_new_object());
	corecap_ceph_disk_json_put(&r, root);
	ck_assert(json_object_object_get_ex(json_object_object_get(root, "ceph"), "disk", &disk));
	ck_assert_int_eq(json_object_get_int(json_object_object_get(disk, "write_ops")), 1000);
	ck_assert(json_object_object_get_ex(json_object_object_get(disk, "classes"), "journal",
					    &cls));
	ck_assert(json_object_object_get_ex(cls, "aio_us_per_op", &v));
	ck_assert_double_eq_tol(json_object_get_double(v), 650, 1e-9);
	ck_assert(json_object_object_get_ex(disk, "journal_phase_us", &v));
	ck_assert_double_eq_tol(json_object_get_double(v), 710, 1e-9);
	json_object_put(root);
}
END_TEST

START_TEST(html_has_one_row_per_class)
{
	char *h = render(corecap_ceph_disk_html);

	ck_assert_ptr_nonnull(strstr(h, "<h2>Disk I/O per write op (1000 op_w in the window"));
	ck_assert_ptr_nonnull(strstr(h, "<tr><td>journal</td><td>650.0</td><td>1000</td>"));
	ck_assert_ptr_nonnull(strstr(h, "<tr><td>data</td><td>0.0</td><td>0</td><td>0.0</td>"
					"<td>180.0</td><td>800</td><td>200.0</td></tr>"));
	ck_assert_ptr_nonnull(strstr(h, "phase write_thread_in_journal_buffer): 710.0 us"));
	free(h);
}
END_TEST

START_TEST(nothing_without_the_shims_counters_disk_io_or_write_ops)
{
	struct ceph_disk d;
	char *t;

	r.shim_io = NULL;
	ck_assert(!corecap_ceph_disk_of(&r, &d));
	t = render(corecap_ceph_disk_text);
	ck_assert_str_eq(t, "");
	free(t);
	r.shim_io = io;
	/* A memstore OSD: I/O, but none of the journal or data class. */
	io[CORECAP_IO_JOURNAL] = io[CORECAP_IO_DATA] = (struct shim_io_delta){0};
	io[CORECAP_IO_NET].calls = 5000;
	ck_assert(!corecap_ceph_disk_of(&r, &d));
	io[CORECAP_IO_DATA].calls = 1;
	ck_assert(corecap_ceph_disk_of(&r, &d));
	perf[0].count_delta = 0; /* no op_w, and no benchmark ops (no manifest) */
	ck_assert(!corecap_ceph_disk_of(&r, &d));
	t = render(corecap_ceph_disk_html);
	ck_assert_str_eq(t, "");
	free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ceph_disk");
	TCase *tc = tcase_create("render");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, figures_per_write_op_by_class);
	tcase_add_test(tc, text_names_the_classes_the_phase_and_the_store_counters);
	tcase_add_test(tc, json_goes_into_the_ceph_object);
	tcase_add_test(tc, html_has_one_row_per_class);
	tcase_add_test(tc, nothing_without_the_shims_counters_disk_io_or_write_ops);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
