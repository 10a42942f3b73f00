/*
 * analysis/read/run_cache.c: a file written from events of every kind
 * replays them field for field (procnames asked through wants_comm once
 * per CTF event, as the library's read asks); the committed golden trace
 * read twice through the CTF reader gives the same events and figures,
 * the second time from the cache without libbabeltrace2; a file cut
 * short at any length, of another version or key, with a bad hash, or
 * crafted with a right hash but records out of bounds, is refused before
 * any event is handed on; a change to a trace file changes the key.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/ctf_reader.h"
#include "read/run_cache.h"

#include "check_run.h"

#define GOLDEN_TRACE CORECAP_TEST_DATA "/analysis/golden-run/trace"
#define KEY	     "corecap test; run cache key"

/* Every event as one line, every field its kind carries. */
struct lines {
	char *buf;
	size_t len;
	FILE *f;
	unsigned asked; /* wants_comm calls */
};

static int keep(void *ctx, const struct model_event *ev)
{
	struct lines *l = ctx;

	fprintf(l->f, "%d %llu %d %d [%s]", ev->kind, (unsigned long long)ev->ts_ns, ev->tid,
		ev->pid, ev->comm ? ev->comm : "(null)");
	switch (ev->kind) {
	case MEV_OP_BEGIN:
	case MEV_OP_PHASE:
	case MEV_OP_END:
	case MEV_OP_ENTER:
	case MEV_OP_EXIT:
		fprintf(l->f, " op %llu %s %llu %lld", (unsigned long long)ev->op.id,
			ev->op.str ? ev->op.str : "(null)", (unsigned long long)ev->op.bytes,
			(long long)ev->op.result);
		break;
	case MEV_LOCK_CONTENDED:
	case MEV_LOCK_HOLD:
	case MEV_COND_WAIT:
	case MEV_COND_WAKE:
		fprintf(l->f, " lock %llx %llx %llx %llu %u %u %u %d",
			(unsigned long long)ev->lock.addr, (unsigned long long)ev->lock.mutex,
			(unsigned long long)ev->lock.site, (unsigned long long)ev->lock.dur_ns,
			ev->lock.kind, ev->lock.flag, ev->lock.depth, ev->lock.stack != NULL);
		for (uint32_t k = 0; ev->lock.stack && k < ev->lock.depth; k++)
			fprintf(l->f, " %llx", (unsigned long long)ev->lock.stack[k]);
		break;
	case MEV_IO:
	case MEV_AIO:
		fprintf(l->f, " io %u %u %d %lld %llu %u", ev->io.call, ev->io.io_class, ev->io.fd,
			(long long)ev->io.bytes, (unsigned long long)ev->io.dur_ns, ev->io.hdr_len);
		for (unsigned k = 0; k < ev->io.hdr_len; k++)
			fprintf(l->f, " %02x", ev->io.hdr[k]);
		break;
	case MEV_THREAD_NAME:
	case MEV_THREAD_START:
	case MEV_THREAD_EXIT:
		fprintf(l->f, " thread %d %d %s", ev->thread.tid, ev->thread.parent_tid,
			ev->thread.name ? ev->thread.name : "(null)");
		break;
	case MEV_DISCARDED:
		fprintf(l->f, " loss %llu %llu %llu %d", (unsigned long long)ev->loss.count,
			(unsigned long long)ev->loss.begin_ns, (unsigned long long)ev->loss.end_ns,
			ev->loss.packets);
		break;
	default:
		break;
	}
	fputc('\n', l->f);
	return 0;
}

/* Odd tids' procnames only. */
static bool odd_comm(void *ctx, int32_t tid)
{
	struct lines *l = ctx;

	l->asked++;
	return tid & 1;
}

static void lines_open(struct lines *l)
{
	memset(l, 0, sizeof(*l));
	l->f = open_memstream(&l->buf, &l->len);
	ck_assert_ptr_nonnull(l->f);
}

static void lines_close(struct lines *l)
{
	fclose(l->f);
}

static char tmpdir[64];

static int scratch(void)
{
	int fd;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/check-run-cache.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	fd = open(tmpdir, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(fd, 0);
	return fd;
}

static void scratch_done(int fd)
{
	char cmd[128];

	close(fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

static const uint64_t frames[3] = {0x401000, 0x402000, 0x7fffdeadbeef};

/* Events of every kind, written as the CTF reader would (the THEN pair shares its procname). */
static int sample(struct run_cache_writer *w, struct lines *expect)
{
	struct model_event ev[] = {
		{.kind = MEV_THREAD_NAME,
		 .ts_ns = 100,
		 .tid = 7,
		 .pid = 5,
		 .thread = {.tid = 7, .name = "worker-7"}},
		{.kind = MEV_OP_BEGIN,
		 .ts_ns = 200,
		 .tid = 7,
		 .pid = 5,
		 .op = {.id = 1, .str = "write", .bytes = 4096}},
		{.kind = MEV_OP_ENTER, .ts_ns = 200, .tid = 7, .pid = 5, .op = {.id = 1}},
		{.kind = MEV_LOCK_CONTENDED,
		 .ts_ns = 150,
		 .tid = 8,
		 .pid = 5,
		 .lock = {.addr = 0x1000,
			  .site = 0x401000,
			  .dur_ns = 99,
			  .kind = 2,
			  .flag = 1,
			  .depth = 3,
			  .stack = frames}},
		{.kind = MEV_LOCK_CONTENDED,
		 .ts_ns = 300,
		 .tid = 8,
		 .pid = 5,
		 .lock = {.addr = 0x1000, .depth = 0, .stack = frames}},
		{.kind = MEV_LOCK_HOLD,
		 .ts_ns = 310,
		 .tid = 9,
		 .pid = 5,
		 .lock = {.addr = 0x1000, .dur_ns = 5, .depth = 2}},
		{.kind = MEV_COND_WAIT,
		 .ts_ns = 320,
		 .tid = 9,
		 .pid = 5,
		 .lock = {.addr = 0x2000, .mutex = 0x1000, .flag = 1, .depth = 3, .stack = frames}},
		{.kind = MEV_IO,
		 .ts_ns = 400,
		 .tid = 7,
		 .pid = -1,
		 .io = {.call = 3,
			.io_class = 2,
			.fd = -1,
			.bytes = -11,
			.dur_ns = 1,
			.hdr_len = 24,
			.hdr = {1,  2,	3,  4,	5,  6,	7,  8,	9,  10, 11, 12,
				13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24}}},
		{.kind = MEV_AIO,
		 .ts_ns = 401,
		 .tid = 7,
		 .pid = 5,
		 .io = {.call = 1, .fd = 9, .bytes = 1 << 20, .dur_ns = 1234}},
		{.kind = MEV_OP_END,
		 .ts_ns = 500,
		 .tid = 7,
		 .pid = 5,
		 .op = {.id = 1, .result = -5}},
		{.kind = MEV_LOG_ENTER, .ts_ns = 501, .tid = -1, .pid = -1},
		{.kind = MEV_DISCARDED,
		 .ts_ns = 50,
		 .tid = -1,
		 .pid = -1,
		 .loss = {.count = UINT64_MAX, .begin_ns = 50, .end_ns = 60, .packets = 1}},
		{.kind = MEV_THREAD_START,
		 .ts_ns = 600,
		 .tid = 7,
		 .pid = 5,
		 .thread = {.tid = 10, .parent_tid = 7}},
		{.kind = MEV_OP_PHASE,
		 .ts_ns = 700,
		 .tid = 7,
		 .pid = 5,
		 .op = {.id = 2, .str = ""}},
	};
	/* comm, has_comm, then for each */
	const char *comm[] = {"w7", "w7", "w7", "w8", "w8", NULL, "w9",
			      "w7", "w7", "w7", NULL, NULL, "w7", "w7"};
	bool has[] = {1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 1};
	bool then[] = {0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	int n = (int)(sizeof(ev) / sizeof(ev[0]));
	int32_t decided = 0;

	for (int i = 0; i < n; i++) {
		struct model_event e = ev[i];

		corecap_run_cache_put(w, &ev[i], comm[i], has[i], then[i]);
		/* What replay must give with odd_comm: asked once per CTF event. */
		if (then[i])
			e.comm = decided ? comm[i] : NULL;
		else if (has[i])
			e.comm = (decided = e.tid & 1) ? comm[i] : NULL;
		if (has[i] && !then[i])
			expect->asked++;
		keep(expect, &e);
	}
	return n;
}

START_TEST(every_kind_round_trips_and_wants_comm_is_asked_as_the_reader_asks)
{
	int dirfd = scratch();
	struct run_cache_writer *w = corecap_run_cache_writer_open(dirfd, KEY);
	struct run_cache_tail t = {.foreign = 3,
				   .packets = 4,
				   .index_packets = 5,
				   .missing_packets = 1,
				   .missing_bytes = 77,
				   .streams_cut = 1};
	struct run_cache_view v;
	struct lines expect, got;
	uint64_t stack[64];
	void *map;
	size_t map_len;
	int n;

	ck_assert_ptr_nonnull(w);
	strcpy(t.cut_name, "chan_0_1");
	lines_open(&expect);
	n = sample(w, &expect);
	lines_close(&expect);
	ck_assert_int_eq(corecap_run_cache_commit(w, &t), 0);
	corecap_run_cache_writer_free(w);
	ck_assert_int_eq(corecap_run_cache_load(dirfd, KEY, &v, &map, &map_len), 0);
	ck_assert_uint_eq(v.tail.events, (uint64_t)n);
	ck_assert_uint_eq(v.tail.foreign, 3);
	ck_assert_uint_eq(v.tail.packets, 4);
	ck_assert_uint_eq(v.tail.index_packets, 5);
	ck_assert_uint_eq(v.tail.missing_packets, 1);
	ck_assert_uint_eq(v.tail.missing_bytes, 77);
	ck_assert_uint_eq(v.tail.streams_cut, 1);
	ck_assert_str_eq(v.tail.cut_name, "chan_0_1");
	lines_open(&got);
	ck_assert_int_eq(corecap_run_cache_replay(&v, keep, odd_comm, &got, stack), 0);
	lines_close(&got);
	ck_assert_str_eq(got.buf, expect.buf);
	ck_assert_uint_eq(got.asked, expect.asked);
	/* Another key: not this file. */
	ck_assert_int_eq(corecap_run_cache_load(dirfd, KEY "x", &v, &map, &map_len) < 0, 1);
	corecap_run_cache_unload(map, map_len);
	free(expect.buf);
	free(got.buf);
	scratch_done(dirfd);
}
END_TEST

/* Odd tids' procnames only, and a tid on every slot of the writer's
 * per-thread names: a name the thread changed, one it went back to, one
 * its slot's other thread gave in between, the same bytes from another
 * buffer; the replay gives each event's own. */
START_TEST(a_thread_renamed_keeps_each_events_name)
{
	int dirfd = scratch();
	struct run_cache_writer *w = corecap_run_cache_writer_open(dirfd, KEY);
	struct run_cache_tail t = {0};
	struct run_cache_view v;
	struct lines expect, got;
	uint64_t stack[64];
	char other[8];
	void *map;
	size_t map_len;
	static const struct {
		int32_t tid;
		const char *comm;
	} seq[] = {{7, "a"},	{7, "a"},     {7, "b"},	 {263, "c"}, {7, "b"},	{263, "c"},
		   {7, "a"},	{263, "a"},   {7, "ab"}, {7, ""},    {7, "a"},	{519, "b"},
		   {7, "a"},	{-1, "idle"}, {255, "a"}, {-1, "x"}, {7, NULL}, {7, "a"}};
	int n = (int)(sizeof(seq) / sizeof(seq[0]));

	ck_assert_ptr_nonnull(w);
	lines_open(&expect);
	for (int i = 0; i < n; i++) {
		struct model_event e = {.kind = MEV_LOG_ENTER, .ts_ns = 10u + (unsigned)i,
					.tid = seq[i].tid, .pid = 5};
		const char *c = seq[i].comm;

		if (c && i == 12) { /* the same bytes at another address */
			strcpy(other, c);
			c = other;
		}
		corecap_run_cache_put(w, &e, c, true, false);
		e.comm = (seq[i].tid & 1) ? (c ? c : "") : NULL;
		expect.asked++;
		keep(&expect, &e);
	}
	lines_close(&expect);
	ck_assert_int_eq(corecap_run_cache_commit(w, &t), 0);
	corecap_run_cache_writer_free(w);
	ck_assert_int_eq(corecap_run_cache_load(dirfd, KEY, &v, &map, &map_len), 0);
	lines_open(&got);
	ck_assert_int_eq(corecap_run_cache_replay(&v, keep, odd_comm, &got, stack), 0);
	lines_close(&got);
	ck_assert_str_eq(got.buf, expect.buf);
	ck_assert_uint_eq(got.asked, expect.asked);
	corecap_run_cache_unload(map, map_len);
	free(expect.buf);
	free(got.buf);
	scratch_done(dirfd);
}
END_TEST

/* The file's bytes of sample(). */
static unsigned char *sample_file(size_t *len)
{
	int dirfd = scratch();
	struct run_cache_writer *w = corecap_run_cache_writer_open(dirfd, KEY);
	struct run_cache_tail t = {0};
	struct lines ignored;
	char name[64];
	struct stat st;
	unsigned char *buf;
	int fd;

	lines_open(&ignored);
	sample(w, &ignored);
	lines_close(&ignored);
	free(ignored.buf);
	ck_assert_int_eq(corecap_run_cache_commit(w, &t), 0);
	corecap_run_cache_writer_free(w);
	corecap_run_cache_file_name(KEY, name, sizeof(name));
	fd = openat(dirfd, name, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	*len = (size_t)st.st_size;
	buf = malloc(*len);
	ck_assert_int_eq(read(fd, buf, *len), (ssize_t)*len);
	close(fd);
	scratch_done(dirfd);
	return buf;
}

static int never(void *ctx, const struct model_event *ev)
{
	(void)ctx, (void)ev;
	ck_abort_msg("an event of a refused file was handed on");
	return 0;
}

static void refix_hash(unsigned char *b, size_t len)
{
	uint64_t h = htole64(corecap_run_cache_hash(b, len - 16));

	memcpy(b + len - 16, &h, 8);
}

START_TEST(a_file_cut_short_crafted_or_of_another_version_is_refused)
{
	size_t len, bad = 0;
	unsigned char *buf = sample_file(&len), *b = malloc(len);
	struct run_cache_view v;
	const char *why;

	ck_assert_int_eq(corecap_run_cache_check(buf, len, KEY, &v, &why), 0);
	for (size_t cut = 0; cut < len; cut++) {
		memcpy(b, buf, cut);
		ck_assert_int_eq(corecap_run_cache_check(b, cut, KEY, &v, &why), -EINVAL);
	}
	/* Every byte flipped: refused (a bad hash, or the header/footer says so). */
	for (size_t i = 0; i < len; i++) {
		memcpy(b, buf, len);
		b[i] ^= 0x5a;
		ck_assert_int_eq(corecap_run_cache_check(b, len, KEY, &v, &why), -EINVAL);
	}
	/* Another version, its hash right. */
	memcpy(b, buf, len);
	b[8]++;
	refix_hash(b, len);
	ck_assert_int_eq(corecap_run_cache_check(b, len, KEY, &v, &why), -EINVAL);
	ck_assert_str_eq(why, "another version");
	/* Every record byte changed with the hash made right: refused, or events replayed
	 * without a crash (a value changed); never a read out of bounds (ASan in the fuzz). */
	memcpy(b, buf, len);
	size_t rec = 16 + strlen(KEY);
	for (size_t i = rec; i < len - RUN_CACHE_FOOTER; i++) {
		memcpy(b, buf, len);
		b[i] = 0xff;
		refix_hash(b, len);
		if (corecap_run_cache_check(b, len, KEY, &v, &why))
			bad++;
	}
	ck_assert_uint_gt(bad, 0);
	/* A refused file hands nothing on. */
	memcpy(b, buf, len);
	b[rec] = 0x1e; /* no such kind */
	refix_hash(b, len);
	ck_assert_int_eq(corecap_run_cache_check(b, len, KEY, &v, &why), -EINVAL);
	ck_assert_str_eq(why, "an unknown record");
	v = (struct run_cache_view){
		.buf = b, .rec_off = rec, .rec_len = len - rec - RUN_CACHE_FOOTER};
	ck_assert_int_eq(corecap_run_cache_replay(&v, never, NULL, NULL, NULL), -EINVAL);
	free(b);
	free(buf);
}
END_TEST

struct read_out {
	struct lines l;
	bool replayed;
	uint64_t foreign, packets, missing;
};

static void read_golden(struct read_out *o)
{
	char **dirs;
	size_t n;
	char *err = NULL;
	struct ctf_reader r;

	ck_assert_int_eq(corecap_ctf_reader_find_traces(GOLDEN_TRACE, &dirs, &n, &err), 0);
	ck_assert_uint_gt(n, 0);
	lines_open(&o->l);
	ck_assert_int_eq(corecap_ctf_reader_init(&r, dirs, n, keep, &o->l), 0);
	r.wants_comm = odd_comm;
	ck_assert_int_eq(corecap_ctf_reader_run(&r), 0);
	lines_close(&o->l);
	o->replayed = r.replaying;
	o->foreign = r.foreign_events;
	o->packets = r.packets;
	o->missing = corecap_ctf_reader_missing_packets(&r);
	corecap_ctf_reader_release(&r);
	corecap_ctf_reader_free_traces(dirs, n);
}

START_TEST(the_golden_trace_replays_as_the_library_reads_it)
{
	char xdg[64] = "/tmp/check-run-cache-xdg.XXXXXX", cmd[128];
	struct read_out off, cold, warm;

	ck_assert_ptr_nonnull(mkdtemp(xdg));
	setenv("XDG_CACHE_HOME", xdg, 1);
	setenv("CORECAP_RUNCACHE", "0", 1);
	read_golden(&off);
	ck_assert(!off.replayed);
	setenv("CORECAP_RUNCACHE", "1", 1);
	read_golden(&cold);
	ck_assert(!cold.replayed);
	read_golden(&warm);
	ck_assert(warm.replayed);
	ck_assert_uint_gt(off.l.len, 1000);
	ck_assert_str_eq(cold.l.buf, off.l.buf);
	ck_assert_str_eq(warm.l.buf, off.l.buf);
	ck_assert_uint_eq(warm.l.asked, off.l.asked);
	ck_assert_uint_eq(warm.foreign, off.foreign);
	ck_assert_uint_eq(warm.packets, off.packets);
	ck_assert_uint_eq(warm.missing, off.missing);
	free(off.l.buf);
	free(cold.l.buf);
	free(warm.l.buf);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", xdg);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(a_changed_trace_file_changes_the_key)
{
	char dir[64] = "/tmp/check-run-cache-key.XXXXXX", path[128], cmd[160];
	char *dirs[1] = {dir}, *k1, *k2, *k3;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "w");
	fputs("abc", f);
	fclose(f);
	ck_assert_int_eq(corecap_run_cache_key(dirs, 1, &k1), 0);
	ck_assert_int_eq(corecap_run_cache_key(dirs, 1, &k2), 0);
	ck_assert_str_eq(k1, k2);
	f = fopen(path, "a");
	fputs("d", f);
	fclose(f);
	ck_assert_int_eq(corecap_run_cache_key(dirs, 1, &k3), 0);
	ck_assert_str_ne(k1, k3);
	free(k1);
	free(k2);
	free(k3);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* Past the size cap: not kept, no temporary left; a link in the file's place is not followed. */
START_TEST(a_file_past_the_cap_is_not_kept_and_a_link_is_not_followed)
{
	int dirfd = scratch();
	struct run_cache_writer *w;
	struct run_cache_tail t = {0};
	struct run_cache_view v;
	struct lines ignored;
	char name[64], cmd[160];
	void *map;
	size_t map_len;

	setenv("CORECAP_RUNCACHE_MAX_MB", "0", 1);
	w = corecap_run_cache_writer_open(dirfd, KEY);
	ck_assert_ptr_nonnull(w);
	lines_open(&ignored);
	sample(w, &ignored);
	lines_close(&ignored);
	free(ignored.buf);
	ck_assert_int_lt(corecap_run_cache_commit(w, &t), 0);
	corecap_run_cache_writer_free(w);
	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s')\"", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
	unsetenv("CORECAP_RUNCACHE_MAX_MB");
	corecap_run_cache_file_name(KEY, name, sizeof(name));
	ck_assert_int_eq(symlinkat("/etc/passwd", dirfd, name), 0);
	ck_assert_int_eq(corecap_run_cache_load(dirfd, KEY, &v, &map, &map_len), -ENOENT);
	scratch_done(dirfd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analysis_run_cache");
	TCase *tc = tcase_create("run_cache");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, every_kind_round_trips_and_wants_comm_is_asked_as_the_reader_asks);
	tcase_add_test(tc, a_thread_renamed_keeps_each_events_name);
	tcase_add_test(tc, a_file_cut_short_crafted_or_of_another_version_is_refused);
	tcase_add_test(tc, the_golden_trace_replays_as_the_library_reads_it);
	tcase_add_test(tc, a_changed_trace_file_changes_the_key);
	tcase_add_test(tc, a_file_past_the_cap_is_not_kept_and_a_link_is_not_followed);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
