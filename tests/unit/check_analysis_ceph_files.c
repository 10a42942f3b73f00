/*
 * analysis/read/ceph_files.c: a run's ceph/ directory, from the real 16.2
 * dump_historic_ops fixture (three 1-byte writes) and small perf dumps.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "read/ceph_files.h"

#include "check_run.h"

static char run[64];
static char sub[96];
static char *err; /* corecap_ceph_files_load's error value */

static void put_file(const char *name, const char *text)
{
	char p[160];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", sub, name);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void append_fixture(const char *from, FILE *out)
{
	FILE *in = fopen(from, "r");
	char buf[4096];
	size_t n;

	ck_assert_ptr_nonnull(in);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
}

static void copy_fixture(const char *from, const char *name)
{
	char p[160];
	FILE *out;

	snprintf(p, sizeof(p), "%s/%s", sub, name);
	out = fopen(p, "w");
	ck_assert_ptr_nonnull(out);
	append_fixture(from, out);
	ck_assert_int_eq(fclose(out), 0);
}

static void setup(void)
{
	strcpy(run, "/tmp/check_ceph_files_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(run));
	snprintf(sub, sizeof(sub), "%s/ceph", run);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", run);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(a_run_without_ceph_files_has_nothing)
{
	struct ceph_files c;

	rmdir(sub);
	ck_assert_int_eq(corecap_ceph_files_load(&c, run, &err), 0);
	ck_assert(!c.has_optracker && !c.has_perf);
	corecap_ceph_files_release(&c);
}
END_TEST

START_TEST(historic_ops_give_type_latency_and_phases_from_event_times)
{
	struct ceph_files c;
	const struct ceph_op_type *t;
	uint64_t queued = 0, throttled = 1;

	copy_fixture(CORECAP_TEST_DATA "/ceph/dump_historic_ops.json", "historic_ops.json");
	ck_assert_int_eq(corecap_ceph_files_load(&c, run, &err), 0);
	ck_assert(c.has_optracker);
	ck_assert_uint_eq(c.n_ops, 3);
	ck_assert_uint_eq(c.history_size, 10000);
	ck_assert_uint_eq(c.n_types, 1);
	t = &c.types[0];
	ck_assert_str_eq(t->name, "write"); /* set-alloc-hint is skipped */
	ck_assert_uint_eq(t->count, 3);
	/* durations 167.24, 143.0, 161.732 us */
	ck_assert_uint_eq(t->lat_avg_ns, (167240 + 143000 + 161732) / 3);
	ck_assert_uint_eq(t->lat_p50_ns, 161732);
	/* first event (header_read may come before initiated) to commit_sent: 125, 105, 125 us */
	ck_assert_uint_eq(t->reply_avg_ns, 355000 / 3);
	for (size_t i = 0; i < t->n_phases; i++) {
		if (strcmp(t->phases[i].name, "queued_for_pg") == 0)
			queued = t->phases[i].total_ns;
		if (strcmp(t->phases[i].name, "throttled") == 0)
			throttled = t->phases[i].total_ns;
	}
	ck_assert_uint_eq(queued, (22 + 11 + 16) * 1000);
	ck_assert_uint_eq(throttled, 0); /* header_read 1 us before: never negative */
	/* Spans by arrival, each with its 11 events; an event opens the phase
	 * of its name, the last (done) none. */
	ck_assert_uint_eq(c.n_spans, 3);
	ck_assert_uint_eq(c.n_events, 33);
	for (size_t i = 0; i < c.n_spans; i++) {
		const struct ceph_op_span *sp = &c.spans[i];

		ck_assert_uint_eq(sp->type, 0);
		ck_assert_uint_eq(sp->n_ev, 11);
		ck_assert(i == 0 || sp->arrival_ns > c.spans[i - 1].arrival_ns);
		for (uint32_t k = 0; k + 1 < sp->n_ev; k++)
			ck_assert_uint_lt(c.events[sp->ev0 + k].phase, t->n_phases);
		ck_assert_uint_eq(c.events[sp->ev0 + sp->n_ev - 1].phase, CEPH_NO_PHASE);
		ck_assert_str_eq(t->phases[c.events[sp->ev0 + 5].phase].name, "queued_for_pg");
	}
	/* header_read (the arrival) 1 us before initiated; commit_sent 125 us later */
	ck_assert_uint_eq(c.spans[1].reply_ns - c.spans[1].arrival_ns, 105000);
	/* Each its own request id; an event found by its name's start, the last none. */
	ck_assert(c.spans[0].reqid && c.spans[1].reqid && c.spans[2].reqid);
	ck_assert(c.spans[0].reqid != c.spans[1].reqid && c.spans[1].reqid != c.spans[2].reqid &&
		  c.spans[0].reqid != c.spans[2].reqid);
	ck_assert_uint_eq(corecap_ceph_files_event_ns(&c, &c.spans[1], "commit_sent"),
			  c.spans[1].reply_ns);
	ck_assert_uint_eq(corecap_ceph_files_event_ns(&c, &c.spans[1], "queued_for"),
			  c.events[c.spans[1].ev0 + 5].t_ns);
	ck_assert_uint_eq(corecap_ceph_files_event_ns(&c, &c.spans[1], "done"), 0);
	ck_assert_uint_eq(corecap_ceph_files_event_ns(&c, &c.spans[1], "waiting for subops"), 0);
	corecap_ceph_files_release(&c);
}
END_TEST

/* A client op and its replica's osd_repop share their request id; other shapes have none. */
START_TEST(a_request_id_is_the_descriptions_first_word_of_that_shape)
{
	uint64_t op = corecap_ceph_reqid_of("osd_op(client.4181.0:123 1.7 1:e2b1::: [write 0~4096] "
					    "snapc 0=[] ondisk+write e12)"),
		 rep = corecap_ceph_reqid_of("osd_repop(client.4181.0:123 1.7 e12/10 1:e2b1:::obj "
					     "v 12'5, mlcod=12'4)");

	ck_assert(op != 0);
	ck_assert_uint_eq(op, rep);
	ck_assert(op != corecap_ceph_reqid_of("osd_op(client.4181.0:124 1.7 [write 0~4096])"));
	ck_assert(op != corecap_ceph_reqid_of("osd_op(client.4182.0:123 1.7 [write 0~4096])"));
	ck_assert_uint_eq(corecap_ceph_reqid_of("osd_repop_reply(e12/10 1.7 ondisk)"), 0);
	ck_assert_uint_eq(corecap_ceph_reqid_of("osd_op(client.4181.0:12x 1.7)"), 0);
	ck_assert_uint_eq(corecap_ceph_reqid_of("osd_op(client.4181.0: 1.7)"), 0);
	ck_assert_uint_eq(corecap_ceph_reqid_of("osd_op client.4181.0:123"), 0);
	ck_assert_uint_eq(corecap_ceph_reqid_of("osd_op()"), 0);
	ck_assert_uint_eq(corecap_ceph_reqid_of(""), 0);
}
END_TEST

START_TEST(perf_dumps_give_window_deltas_and_means)
{
	struct ceph_files c;
	const struct ceph_perf_counter *w, *lat;

	put_file("perf-begin.json", "{\"osd\": {\"op_w\": 100, \"op_w_latency\": "
				    "{\"avgcount\": 100, \"sum\": 1.0, \"avgtime\": 0.01}, "
				    "\"subop_w\": 7, \"map_messages\": 3}, "
				    "\"mempool\": {\"op_w\": 5}}");
	put_file("perf-end.json", "{\"osd\": {\"op_w\": 110, \"op_w_latency\": "
				  "{\"avgcount\": 110, \"sum\": 1.002, \"avgtime\": 0.0091}, "
				  "\"subop_w\": 57, \"map_messages\": 4}}");
	ck_assert_int_eq(corecap_ceph_files_load(&c, run, &err), 0);
	ck_assert(c.has_perf && !c.has_optracker);
	w = corecap_ceph_files_perf(&c, "op_w");
	lat = corecap_ceph_files_perf(&c, "op_w_latency");
	ck_assert_ptr_nonnull(w);
	ck_assert_ptr_nonnull(lat);
	ck_assert(!w->is_avg);
	ck_assert_double_eq_tol(w->count_delta, 10, 1e-9);
	ck_assert(lat->is_avg);
	ck_assert_double_eq_tol(lat->count_delta, 10, 1e-9);
	ck_assert_double_eq_tol(lat->sum_s_delta / lat->count_delta, 0.0002, 1e-12);
	/* The replica writes' counters too (a primary's writes are its replicas' sub-ops); no
	 * other. */
	ck_assert_ptr_nonnull(corecap_ceph_files_perf(&c, "subop_w"));
	ck_assert_double_eq_tol(corecap_ceph_files_perf(&c, "subop_w")->count_delta, 50, 1e-9);
	ck_assert_ptr_null(corecap_ceph_files_perf(&c, "map_messages"));
	ck_assert_int_eq((int)c.n_perf, 3);
	corecap_ceph_files_release(&c);
}
END_TEST

/* The store's disk-timing counters, as "SECTION.KEY"; others are left out. */
START_TEST(perf_dumps_give_the_stores_disk_counters)
{
	struct ceph_files c;
	const struct ceph_perf_counter *kv, *jl;

	put_file("perf-begin.json",
		 "{\"osd\": {\"op_w\": 1}, \"bluestore\": {\"kv_commit_lat\": "
		 "{\"avgcount\": 4, \"sum\": 0.002}, \"onode_hits\": 3}, "
		 "\"filestore\": {\"journal_latency\": {\"avgcount\": 1, \"sum\": 0.5}}}");
	put_file("perf-end.json", "{\"osd\": {\"op_w\": 3}, \"bluestore\": {\"kv_commit_lat\": "
				  "{\"avgcount\": 6, \"sum\": 0.0032}, \"onode_hits\": 9}}");
	ck_assert_int_eq(corecap_ceph_files_load(&c, run, &err), 0);
	kv = corecap_ceph_files_perf(&c, "bluestore.kv_commit_lat");
	ck_assert_ptr_nonnull(kv);
	ck_assert(kv->is_avg);
	ck_assert_double_eq_tol(kv->count_delta, 2, 1e-9);
	ck_assert_double_eq_tol(kv->sum_s_delta / kv->count_delta, 0.0006, 1e-12);
	ck_assert_ptr_null(corecap_ceph_files_perf(&c, "bluestore.onode_hits"));
	/* In one dump only: not a delta. */
	jl = corecap_ceph_files_perf(&c, "filestore.journal_latency");
	ck_assert_ptr_null(jl);
	ck_assert_int_eq((int)c.n_perf, 2);
	corecap_ceph_files_release(&c);
}
END_TEST

START_TEST(a_broken_file_is_an_error)
{
	struct ceph_files c;

	put_file("historic_ops.json", "{\"ops\": [");
	ck_assert_int_lt(corecap_ceph_files_load(&c, run, &err), 0);
	/* The error is a value naming the file, printed by the caller, not here. */
	ck_assert_ptr_nonnull(err);
	ck_assert_msg(strstr(err, "historic_ops.json"), "%s", err);
	free(err);
}
END_TEST

/* The op history is the run's largest JSON (30.6 MB on a bare ceph-osd at
 * 10 000 ops): read past the 16 MiB of the other JSON files, refused past
 * its own bound by its size alone. */
START_TEST(a_large_op_history_is_read_up_to_its_own_bound)
{
	struct ceph_files c;
	char p[160];
	FILE *f;

	snprintf(p, sizeof(p), "%s/historic_ops.json", sub);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < 30 * 1024; i++)
		fprintf(f, "%1024s", "");
	append_fixture(CORECAP_TEST_DATA "/ceph/dump_historic_ops.json", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(corecap_ceph_files_load(&c, run, &err), 0);
	ck_assert(c.has_optracker);
	ck_assert_uint_eq(c.n_ops, 3);
	corecap_ceph_files_release(&c);

	ck_assert_int_eq(truncate(p, 200ll << 20), 0);
	ck_assert_int_lt(corecap_ceph_files_load(&c, run, &err), 0);
	ck_assert_ptr_nonnull(err);
	ck_assert_msg(strstr(err, "134217728"), "%s", err);
	free(err);
}
END_TEST

/* RUN/ceph/historic_ops.json.zst: len bytes at text in one zstd frame,
 * its last `cut` bytes left out, then `garbage` bytes of garbage. */
static void put_zst(const char *text, size_t len, size_t cut, size_t garbage)
{
	size_t bound = ZSTD_compressBound(len), z;
	unsigned char *buf = malloc(bound + garbage);
	char p[160];
	FILE *f;

	ck_assert_ptr_nonnull(buf);
	z = ZSTD_compress(buf, bound, text, len, 3);
	ck_assert(!ZSTD_isError(z));
	ck_assert_uint_lt(cut, z);
	memset(buf + z - cut, 0x5a, garbage);
	snprintf(p, sizeof(p), "%s/historic_ops.json.zst", sub);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf, 1, z - cut + garbage, f), z - cut + garbage);
	ck_assert_int_eq(fclose(f), 0);
	free(buf);
}

static char *fixture(size_t *len)
{
	FILE *in = fopen(CORECAP_TEST_DATA "/ceph/dump_historic_ops.json", "r");
	char *b = malloc(1u << 20);

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(b);
	*len = fread(b, 1, 1u << 20, in);
	fclose(in);
	return b;
}

/* The collector's compressed history reads as the plain one did. */
START_TEST(a_compressed_op_history_reads_as_the_plain_one)
{
	struct ceph_files a, b;
	size_t len;
	char *text = fixture(&len);

	copy_fixture(CORECAP_TEST_DATA "/ceph/dump_historic_ops.json", "historic_ops.json");
	ck_assert_int_eq(corecap_ceph_files_load(&a, run, &err), 0);
	put_zst(text, len, 0, 0);
	/* The compressed file is read first: spoil the plain one to show it. */
	put_file("historic_ops.json", "{\"ops\": [");
	ck_assert_int_eq(corecap_ceph_files_load(&b, run, &err), 0);
	ck_assert(b.has_optracker);
	ck_assert_uint_eq(b.n_ops, a.n_ops);
	ck_assert_uint_eq(b.n_types, a.n_types);
	ck_assert_uint_eq(b.types[0].lat_avg_ns, a.types[0].lat_avg_ns);
	ck_assert_uint_eq(b.n_events, a.n_events);
	corecap_ceph_files_release(&a);
	corecap_ceph_files_release(&b);
	free(text);
}
END_TEST

/* The load fails, the error naming the compressed file and saying why. */
static void expect_zst_error(const char *why)
{
	struct ceph_files c;

	ck_assert_int_lt(corecap_ceph_files_load(&c, run, &err), 0);
	ck_assert_ptr_nonnull(err);
	ck_assert_msg(strstr(err, "historic_ops.json.zst") && strstr(err, why),
		      "'%s' does not say '%s'", err, why);
	free(err);
	err = NULL;
}

START_TEST(a_hostile_compressed_op_history_is_refused)
{
	size_t len, big = 200u << 20;
	char *text = fixture(&len), *spaces = malloc(big);

	put_zst(text, len, 10, 0);
	expect_zst_error("cut short");
	put_zst(text, len, 0, 40);
	expect_zst_error("cannot decompress");
	put_file("historic_ops.json.zst", "not zstd at all");
	expect_zst_error("cannot decompress");
	/* A bomb: 200 MiB of spaces in a few KiB, refused at the plain
	 * file's bound (128 MiB) without holding more. */
	ck_assert_ptr_nonnull(spaces);
	memset(spaces, ' ', big);
	put_zst(spaces, big, 0, 0);
	expect_zst_error("decompresses to more than 134217728 bytes");
	free(spaces);
	free(text);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ceph_files");
	TCase *tc = tcase_create("load");

	/* The parse itself: no history from (or into) the run cache (check_analysis_ceph_cache). */
	setenv("CORECAP_RUNCACHE", "0", 1);

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, a_run_without_ceph_files_has_nothing);
	tcase_add_test(tc, historic_ops_give_type_latency_and_phases_from_event_times);
	tcase_add_test(tc, perf_dumps_give_window_deltas_and_means);
	tcase_add_test(tc, a_request_id_is_the_descriptions_first_word_of_that_shape);
	tcase_add_test(tc, perf_dumps_give_the_stores_disk_counters);
	tcase_add_test(tc, a_broken_file_is_an_error);
	tcase_add_test(tc, a_large_op_history_is_read_up_to_its_own_bound);
	tcase_add_test(tc, a_compressed_op_history_reads_as_the_plain_one);
	tcase_add_test(tc, a_hostile_compressed_op_history_is_refused);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
