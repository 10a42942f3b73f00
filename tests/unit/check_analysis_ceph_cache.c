/*
 * analysis/read/ceph_cache.c: the OpTracker part of a run's ceph_files
 * (the real 16.2 history fixture, with a drain and a rejected op added)
 * written and read back field for field; a second load of the run reads
 * the cache's file, not the history (the history's bytes are the key: one
 * byte changed is a miss); a file cut short at any length, with a flipped
 * byte, of another version or key, or crafted with a right hash but a
 * span, an event or a type out of bounds, is refused, and a refused or
 * linked file in the cache gives the parse's result and is rewritten.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/ceph_cache.h"
#include "read/ceph_files.h"
#include "read/run_cache.h"

#include "check_run.h"

#define KEY "corecap test; OpTracker history key"

static char run[64], sub[96], cache[96], runs[128];
static char *err;

static void setup(void)
{
	strcpy(run, "/tmp/check_ceph_cache_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(run));
	snprintf(sub, sizeof(sub), "%s/ceph", run);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	snprintf(cache, sizeof(cache), "%s/cache", run);
	ck_assert_int_eq(mkdir(cache, 0700), 0);
	snprintf(runs, sizeof(runs), "%s/corecap/runs", cache);
	setenv("XDG_CACHE_HOME", cache, 1);
	unsetenv("CORECAP_RUNCACHE");
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", run);
	ck_assert_int_eq(system(cmd), 0);
}

/* The fixture as RUN/ceph/historic_ops.json, with a drain, an op without a
 * description (rejected: a warning) and, when flip, one byte changed. */
static void put_history(bool flip)
{
	char path[160], *text;
	FILE *in = fopen(CORECAP_TEST_DATA "/ceph/dump_historic_ops.json", "r"), *out;
	long len;
	char *ops;

	ck_assert_ptr_nonnull(in);
	fseek(in, 0, SEEK_END);
	len = ftell(in);
	rewind(in);
	text = calloc(1, (size_t)len + 1);
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_eq(fread(text, 1, (size_t)len, in), (size_t)len);
	fclose(in);
	ops = strstr(text, "\"ops\": [");
	ck_assert_ptr_nonnull(ops);
	ops += strlen("\"ops\": [");
	snprintf(path, sizeof(path), "%s/historic_ops.json", sub);
	out = fopen(path, "w");
	ck_assert_ptr_nonnull(out);
	fprintf(out,
		"{\"corecap_drain\": {\"ops_seen\": 4, \"ops_kept\": 3, \"slices\": 2, "
		"\"sliced_ms\": 90.5, \"window_ms\": %s, \"longest_dump_ms\": 1.25, "
		"\"stopped\": false},\n%.*s{\"duration\": 1}, %s",
		flip ? "100.1" : "100.0", (int)(ops - text - 1), text + 1, ops);
	ck_assert_int_eq(fclose(out), 0);
	free(text);
}

/* path's bytes, malloc'd. */
static void read_whole(const char *path, char **raw, size_t *len)
{
	FILE *f = fopen(path, "r");
	long n;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	*raw = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(*raw);
	ck_assert_uint_eq(fread(*raw, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
}

/* a and b hold the same OpTracker part, field for field. */
static void expect_same(const struct ceph_files *a, const struct ceph_files *b)
{
	ck_assert_int_eq(a->has_optracker, b->has_optracker);
	ck_assert_uint_eq(a->n_ops, b->n_ops);
	ck_assert_uint_eq(a->history_size, b->history_size);
	ck_assert_int_eq(a->drain.drained, b->drain.drained);
	ck_assert_int_eq(a->drain.stopped, b->drain.stopped);
	ck_assert(a->drain.ops_seen == b->drain.ops_seen);
	ck_assert(a->drain.ops_kept == b->drain.ops_kept);
	ck_assert(a->drain.slices == b->drain.slices);
	ck_assert(a->drain.sliced_ms == b->drain.sliced_ms);
	ck_assert(a->drain.window_ms == b->drain.window_ms);
	ck_assert(a->drain.longest_dump_ms == b->drain.longest_dump_ms);
	ck_assert_uint_eq(a->ops_rejected, b->ops_rejected);
	ck_assert_uint_eq(a->ops_bad_duration, b->ops_bad_duration);
	ck_assert_uint_eq(a->n_warnings, b->n_warnings);
	for (size_t i = 0; i < a->n_warnings; i++)
		ck_assert_str_eq(a->warnings[i], b->warnings[i]);
	ck_assert_uint_eq(a->n_types, b->n_types);
	for (size_t i = 0; i < a->n_types; i++) {
		const struct ceph_op_type *x = &a->types[i], *y = &b->types[i];

		ck_assert_str_eq(x->name, y->name);
		ck_assert_uint_eq(x->count, y->count);
		ck_assert_uint_eq(x->lat_avg_ns, y->lat_avg_ns);
		ck_assert_uint_eq(x->lat_p50_ns, y->lat_p50_ns);
		ck_assert_uint_eq(x->lat_p99_ns, y->lat_p99_ns);
		ck_assert_uint_eq(x->reply_avg_ns, y->reply_avg_ns);
		ck_assert_uint_eq(x->span_ns, y->span_ns);
		ck_assert_uint_eq(x->reply_sum_ns, y->reply_sum_ns);
		ck_assert_uint_eq(x->n_phases, y->n_phases);
		for (size_t k = 0; k < x->n_phases; k++) {
			ck_assert_str_eq(x->phases[k].name, y->phases[k].name);
			ck_assert_uint_eq(x->phases[k].total_ns, y->phases[k].total_ns);
		}
	}
	ck_assert_uint_eq(a->n_spans, b->n_spans);
	for (size_t i = 0; i < a->n_spans; i++) {
		ck_assert_uint_eq(a->spans[i].arrival_ns, b->spans[i].arrival_ns);
		ck_assert_uint_eq(a->spans[i].reply_ns, b->spans[i].reply_ns);
		ck_assert_uint_eq(a->spans[i].type, b->spans[i].type);
		ck_assert_uint_eq(a->spans[i].ev0, b->spans[i].ev0);
		ck_assert_uint_eq(a->spans[i].n_ev, b->spans[i].n_ev);
	}
	ck_assert_uint_eq(a->n_events, b->n_events);
	for (size_t i = 0; i < a->n_events; i++) {
		ck_assert_uint_eq(a->events[i].t_ns, b->events[i].t_ns);
		ck_assert_uint_eq(a->events[i].phase, b->events[i].phase);
	}
}

/* The run's ceph_files parsed, without the cache. */
static void parsed(struct ceph_files *c)
{
	setenv("CORECAP_RUNCACHE", "0", 1);
	ck_assert_int_eq(corecap_ceph_files_load(c, run, &err), 0);
	unsetenv("CORECAP_RUNCACHE");
	ck_assert(c->has_optracker && c->drain.drained && c->ops_rejected == 1 &&
		  c->n_warnings == 1 && c->n_spans == 3);
}

/* The number of .oph files in the cache. */
static int oph_files(void)
{
	char cmd[256], out[32] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls '%s' 2>/dev/null | grep -c '\\.oph$'", runs);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(fgets(out, sizeof(out), p));
	pclose(p);
	return atoi(out);
}

START_TEST(a_history_round_trips_field_for_field)
{
	struct ceph_files a, b;
	unsigned char *buf;
	size_t len;
	const char *why = NULL;

	put_history(false);
	parsed(&a);
	ck_assert_int_eq(corecap_ceph_cache_encode(&a, KEY, &buf, &len), 0);
	ck_assert_int_eq(corecap_ceph_cache_decode(&b, buf, len, KEY, &why), 0);
	expect_same(&a, &b);
	corecap_ceph_files_release(&b);
	free(buf);
	corecap_ceph_files_release(&a);
}
END_TEST

START_TEST(the_second_load_reads_the_cache_and_a_changed_history_misses)
{
	struct ceph_files a, b, c;
	char path[160];

	put_history(false);
	parsed(&a);
	ck_assert_int_eq(corecap_ceph_files_load(&b, run, &err), 0);
	expect_same(&a, &b);
	ck_assert_int_eq(oph_files(), 1);
	/* The file under the history's key replaced by one that says
	 * otherwise (valid, a right hash): the next load can only have it
	 * from the cache. */
	{
		char key[CEPH_CACHE_KEY_MAX], name[64], *raw;
		size_t len;
		int dirfd = open(runs, O_RDONLY | O_DIRECTORY);
		unsigned char *buf;
		size_t blen;

		ck_assert_int_ge(dirfd, 0);
		snprintf(path, sizeof(path), "%s/historic_ops.json", sub);
		read_whole(path, &raw, &len);
		corecap_ceph_cache_key("historic_ops.json", raw, len, key, sizeof(key));
		free(raw);
		corecap_ceph_cache_file_name(key, name, sizeof(name));
		b.drain.window_ms = 42.0;
		ck_assert_int_eq(corecap_ceph_cache_encode(&b, key, &buf, &blen), 0);
		ck_assert_int_eq(corecap_run_cache_put_file(dirfd, name, buf, blen), 0);
		free(buf);
		close(dirfd);
	}
	corecap_ceph_files_release(&b);
	ck_assert_int_eq(corecap_ceph_files_load(&b, run, &err), 0);
	ck_assert(b.drain.window_ms == 42.0);
	b.drain.window_ms = a.drain.window_ms;
	expect_same(&a, &b);
	/* One byte changed: another key, a parse, a second file. */
	put_history(true);
	ck_assert_int_eq(corecap_ceph_files_load(&c, run, &err), 0);
	ck_assert(c.drain.window_ms == 100.1);
	ck_assert_int_eq(oph_files(), 2);
	corecap_ceph_files_release(&c);
	corecap_ceph_files_release(&b);
	corecap_ceph_files_release(&a);
}
END_TEST

START_TEST(a_file_cut_flipped_or_of_another_key_or_version_is_refused)
{
	struct ceph_files a, b;
	unsigned char *buf;
	size_t len;
	const char *why;

	put_history(false);
	parsed(&a);
	ck_assert_int_eq(corecap_ceph_cache_encode(&a, KEY, &buf, &len), 0);
	for (size_t cut = 0; cut < len; cut++) {
		why = NULL;
		ck_assert_int_eq(corecap_ceph_cache_decode(&b, buf, cut, KEY, &why), -EINVAL);
		ck_assert_ptr_nonnull(why);
		ck_assert_ptr_null(b.spans);
	}
	for (size_t at = 0; at < len; at += 7) {
		buf[at] ^= 0x10;
		ck_assert_int_eq(corecap_ceph_cache_decode(&b, buf, len, KEY, &why), -EINVAL);
		buf[at] ^= 0x10;
	}
	ck_assert_int_eq(corecap_ceph_cache_decode(&b, buf, len, "another key", &why), -EINVAL);
	ck_assert_str_eq(why, "another key");
	buf[8] = CORECAP_CEPH_CACHE_VERSION + 1;
	ck_assert_int_eq(corecap_ceph_cache_decode(&b, buf, len, KEY, &why), -EINVAL);
	ck_assert_str_eq(why, "another version");
	free(buf);
	corecap_ceph_files_release(&a);
}
END_TEST

/* c encoded (a right hash whatever it holds) is refused with why_want. */
static void expect_refused(const struct ceph_files *c, const char *why_want)
{
	struct ceph_files b;
	unsigned char *buf;
	size_t len;
	const char *why = NULL;

	ck_assert_int_eq(corecap_ceph_cache_encode(c, KEY, &buf, &len), 0);
	ck_assert_int_eq(corecap_ceph_cache_decode(&b, buf, len, KEY, &why), -EINVAL);
	ck_assert_str_eq(why, why_want);
	free(buf);
}

START_TEST(a_crafted_file_with_a_right_hash_is_refused)
{
	struct ceph_files a;
	struct ceph_op_span sp;
	uint32_t ph;
	size_t n_ops;

	put_history(false);
	parsed(&a);
	sp = a.spans[1];
	a.spans[1].type = (uint32_t)a.n_types;
	expect_refused(&a, "an op span out of bounds");
	a.spans[1] = sp;
	a.spans[1].ev0 = (uint32_t)a.n_events - 2;
	expect_refused(&a, "an op span out of bounds");
	a.spans[1] = sp;
	a.spans[1].arrival_ns = a.spans[2].arrival_ns + 1; /* not by arrival */
	a.spans[1].reply_ns = a.spans[1].arrival_ns + 1;
	expect_refused(&a, "an op span out of bounds");
	a.spans[1] = sp;
	a.spans[1].reply_ns = sp.arrival_ns;
	expect_refused(&a, "an op span out of bounds");
	a.spans[1] = sp;
	ph = a.events[sp.ev0].phase;
	a.events[sp.ev0].phase = (uint32_t)a.types[0].n_phases;
	expect_refused(&a, "an op event out of bounds");
	a.events[sp.ev0].phase = ph;
	n_ops = a.n_ops;
	a.n_ops++;
	expect_refused(&a, "op types that do not add up");
	a.n_ops = n_ops;
	a.types[0].count = 0;
	a.n_ops = 0;
	expect_refused(&a, "an op type out of bounds");
	a.types[0].count = n_ops;
	a.n_ops = n_ops;
	corecap_ceph_files_release(&a);
}
END_TEST

START_TEST(a_bad_or_linked_file_in_the_cache_is_replaced_by_the_parse)
{
	struct ceph_files a, b;
	char cmd[512], name[64], key[CEPH_CACHE_KEY_MAX], path[300];
	char *raw;
	size_t len;

	put_history(false);
	parsed(&a);
	ck_assert_int_eq(corecap_ceph_files_load(&b, run, &err), 0);
	corecap_ceph_files_release(&b);
	/* The file's name, from the history's bytes. */
	snprintf(path, sizeof(path), "%s/historic_ops.json", sub);
	read_whole(path, &raw, &len);
	corecap_ceph_cache_key("historic_ops.json", raw, len, key, sizeof(key));
	free(raw);
	corecap_ceph_cache_file_name(key, name, sizeof(name));
	snprintf(path, sizeof(path), "%s/%s", runs, name);
	ck_assert_int_eq(access(path, F_OK), 0);
	/* Garbage in its place. */
	snprintf(cmd, sizeof(cmd), "head -c 300 /dev/urandom > '%s'", path);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(corecap_ceph_files_load(&b, run, &err), 0);
	expect_same(&a, &b);
	corecap_ceph_files_release(&b);
	/* ... rewritten: valid again. */
	{
		int dirfd = open(runs, O_RDONLY | O_DIRECTORY);

		ck_assert_int_ge(dirfd, 0);
		ck_assert_int_eq(corecap_ceph_cache_load(dirfd, key, &b), 0);
		expect_same(&a, &b);
		corecap_ceph_files_release(&b);
		close(dirfd);
	}
	/* A symbolic link in its place is not followed, and replaced. */
	ck_assert_int_eq(unlink(path), 0);
	snprintf(cmd, sizeof(cmd), "%s/elsewhere", run);
	ck_assert_int_eq(symlink(cmd, path), 0);
	ck_assert_int_eq(corecap_ceph_files_load(&b, run, &err), 0);
	expect_same(&a, &b);
	corecap_ceph_files_release(&b);
	ck_assert_int_ne(access(cmd, F_OK), 0);
	corecap_ceph_files_release(&a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ceph_cache");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, a_history_round_trips_field_for_field);
	tcase_add_test(tc, the_second_load_reads_the_cache_and_a_changed_history_misses);
	tcase_add_test(tc, a_file_cut_flipped_or_of_another_key_or_version_is_refused);
	tcase_add_test(tc, a_crafted_file_with_a_right_hash_is_refused);
	tcase_add_test(tc, a_bad_or_linked_file_in_the_cache_is_replaced_by_the_parse);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
