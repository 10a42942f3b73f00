/*
 * analysis/read/sym_cache.c: the per-build-id symbol cache. Its files
 * round trip; truncated, corrupt, crafted, other-version, other-build-id
 * and other-source files are refused (the cache starts empty and is
 * rewritten whole); a directory that others may write to, or a symbolic
 * link, is not used; and a symbolizer naming this program's addresses
 * gives the same names and inline chains from a warm cache as from DWARF.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/sym_cache.h"
#include "read/symbolizer.h"

#include "check_run.h"

#define BID "0123456789abcdef0123456789abcdef01234567"
#define SRC "/usr/bin/x:1:2.000000003;/usr/lib/debug/x.debug:absent;"

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/check-sym-cache.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx %s; rm -rf %s", dir, dir);
	ck_assert_int_eq(system(cmd), 0);
}

static const struct sym_frame frames_a[] = {
	{"std::mutex::lock()", "/usr/include/c++/12/bits/std_mutex.h", 100, true},
	{"PG::lock(bool) const", "/build/ceph/src/osd/PG.cc", 350, false},
};
static const struct sym_frame frames_b[] = {{"main", NULL, 0, false}};

/* A cache of three frames records, two data records and two object records, written in dir. */
static void write_sample(int dfd, const char *bid, const char *src)
{
	struct sym_cache c;

	ck_assert_int_eq(corecap_sym_cache_open(&c, dfd, bid, src), 0);
	ck_assert_int_eq(corecap_sym_cache_put_frames(&c, 0x1234, frames_a, 2), 0);
	ck_assert_int_eq(corecap_sym_cache_put_frames(&c, 0x5678, frames_b, 1), 0);
	ck_assert_int_eq(corecap_sym_cache_put_frames(&c, 0x9abc, NULL, 0), 0);
	ck_assert_int_eq(corecap_sym_cache_put_data(&c, 0x4000, "d.osd.big_lock"), 0);
	ck_assert_int_eq(corecap_sym_cache_put_data(&c, 0x4100, NULL), 0);
	/* An object's key may equal a data record's: the kinds are apart. */
	ck_assert_int_eq(corecap_sym_cache_put_object(&c, 0x4000, "a PG (PG::_lock)"), 0);
	ck_assert_int_eq(corecap_sym_cache_put_object(&c, 0x1234, NULL), 0);
	ck_assert_int_eq(corecap_sym_cache_put_object(&c, 0x1234, "x"), -EEXIST);
	ck_assert_int_eq(corecap_sym_cache_put_frames(&c, 0x1234, frames_b, 1), -EEXIST);
	ck_assert_int_eq(corecap_sym_cache_write(&c), 0);
	corecap_sym_cache_release(&c);
}

static void expect_sample(const struct sym_cache *c)
{
	const struct sym_cache_frames *f;
	const char *name = "x";

	f = corecap_sym_cache_frames(c, 0x1234);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->n, 2);
	for (size_t i = 0; i < 2; i++) {
		ck_assert_str_eq(f->f[i].function, frames_a[i].function);
		ck_assert_str_eq(f->f[i].file, frames_a[i].file);
		ck_assert_uint_eq(f->f[i].line, frames_a[i].line);
		ck_assert(f->f[i].inlined == frames_a[i].inlined);
	}
	f = corecap_sym_cache_frames(c, 0x5678);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->n, 1);
	ck_assert_str_eq(f->f[0].function, "main");
	ck_assert_ptr_null(f->f[0].file);
	f = corecap_sym_cache_frames(c, 0x9abc);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->n, 0);
	ck_assert_ptr_null(corecap_sym_cache_frames(c, 0x1235));
	ck_assert(corecap_sym_cache_data(c, 0x4000, &name));
	ck_assert_str_eq(name, "d.osd.big_lock");
	ck_assert(corecap_sym_cache_data(c, 0x4100, &name));
	ck_assert_ptr_null(name);
	ck_assert(!corecap_sym_cache_data(c, 0x4200, &name));
	ck_assert(corecap_sym_cache_object(c, 0x4000, &name));
	ck_assert_str_eq(name, "a PG (PG::_lock)");
	ck_assert(corecap_sym_cache_object(c, 0x1234, &name));
	ck_assert_ptr_null(name);
	ck_assert(!corecap_sym_cache_object(c, 0x4100, &name));
}

static bool is_empty(const struct sym_cache *c)
{
	return c->frames.len == 0 && c->data.len == 0 && c->objects.len == 0;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = malloc(1 << 20);

	ck_assert_ptr_nonnull(f);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

static void spit(const char *path, const unsigned char *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* The path of bid's cache file made from SRC. */
static char *file_of(const char *bid)
{
	static char path[256];
	char name[CORECAP_SYM_CACHE_NAME_MAX];

	corecap_sym_cache_file_name(bid, SRC, name, sizeof(name));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

START_TEST(round_trip)
{
	int dfd = corecap_sym_cache_open_dir(dir);
	struct sym_cache c;
	struct stat st;

	ck_assert_int_ge(dfd, 0);
	write_sample(dfd, BID, SRC);
	ck_assert_int_eq(stat(file_of(BID), &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(corecap_sym_cache_open(&c, dfd, BID, SRC), 0);
	expect_sample(&c);
	ck_assert_uint_eq(c.n_new, 0); /* nothing new: not rewritten */
	corecap_sym_cache_release(&c);
	/* A build-id that is not hex never names a file. */
	ck_assert_int_eq(corecap_sym_cache_open(&c, dfd, "../etc/passwd", SRC), -EINVAL);
	corecap_sym_cache_release(&c);
	close(dfd);
}
END_TEST

/* Every proper prefix of a valid file is refused, and a refused file is rebuilt. */
START_TEST(truncated_refused)
{
	int dfd = corecap_sym_cache_open_dir(dir);
	unsigned char *buf;
	struct sym_cache c;
	size_t len;

	write_sample(dfd, BID, SRC);
	buf = slurp(file_of(BID), &len);
	ck_assert_uint_gt(len, 28);
	for (size_t cut = 0; cut < len; cut++) {
		spit(file_of(BID), buf, cut);
		ck_assert_int_eq(corecap_sym_cache_open(&c, dfd, BID, SRC), 0);
		ck_assert(is_empty(&c));
		ck_assert_uint_eq(c.n_new, 1); /* to be rewritten */
		corecap_sym_cache_release(&c);
	}
	/* The last one rewritten at write: valid again, and empty. */
	ck_assert_int_eq(corecap_sym_cache_open(&c, dfd, BID, SRC), 0);
	ck_assert_int_eq(corecap_sym_cache_write(&c), 0);
	corecap_sym_cache_release(&c);
	ck_assert_int_eq(corecap_sym_cache_open(&c, dfd, BID, SRC), 0);
	ck_assert(is_empty(&c));
	ck_assert_uint_eq(c.n_new, 0);
	corecap_sym_cache_release(&c);
	free(buf);
	close(dfd);
}
END_TEST

START_TEST(corrupt_refused)
{
	int dfd = corecap_sym_cache_open_dir(dir);
	unsigned char *buf;
	struct sym_cache c;
	size_t len;

	write_sample(dfd, BID, SRC);
	buf = slurp(file_of(BID), &len);
	/* Any one byte changed, anywhere: refused (the magic, the header, the checksum, the
	 * payload). */
	for (size_t at = 0; at < len; at++) {
		buf[at] ^= 0x20;
		spit(file_of(BID), buf, len);
		ck_assert_int_eq(corecap_sym_cache_open(&c, dfd, BID, SRC), 0);
		ck_assert_msg(is_empty(&c), "byte %zu changed, still read", at);
		corecap_sym_cache_release(&c);
		buf[at] ^= 0x20;
	}
	/* A byte more: refused. */
	buf[len] = 0;
	spit(file_of(BID), buf, len + 1);
	ck_assert_int_eq(corecap_sym_cache_open(&c, dfd, BID, SRC), 0);
	ck_assert(is_empty(&c));
	corecap_sym_cache_release(&c);
	free(buf);
	close(dfd);
}
END_TEST

static uint32_t fnv(uint32_t h, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ ((const unsigned char *)p)[i]) * 16777619u;
	return h;
}

/* A file as the format says, from its parts, with a valid checksum (a crafted one). */
static size_t craft(unsigned char *out, uint32_t version, const char *bid, const char *src,
		    uint32_t n, const unsigned char *payload, size_t plen)
{
	size_t b = strlen(bid), s = strlen(src), o = 0;
	uint32_t sum = fnv(fnv(fnv(2166136261u, bid, b), src, s), payload, plen);
	uint32_t w[] = {version, 0, n, (uint32_t)plen, sum};

	memcpy(out, "CCSYMC\r\n", 8);
	o = 8;
	for (size_t i = 0; i < 5; i++) {
		if (i == 1) {
			out[o++] = (unsigned char)b;
			out[o++] = (unsigned char)(b >> 8);
			out[o++] = (unsigned char)s;
			out[o++] = (unsigned char)(s >> 8);
			continue;
		}
		for (int k = 0; k < 4; k++)
			out[o++] = (unsigned char)(w[i] >> (8 * k));
	}
	memcpy(out + o, bid, b);
	memcpy(out + o + b, src, s);
	memcpy(out + o + b + s, payload, plen);
	return o + b + s + plen;
}

START_TEST(crafted_refused)
{
	/* A data record: kind 2, key 0x10, "ab". */
	static const unsigned char data_rec[] = {2, 0x10, 0, 0, 0, 0, 0, 0, 0, 2, 0, 'a', 'b'};
	/* The same with a NUL inside its name, an unknown kind, a frame with an empty function, too
	 * many frames. */
	static const unsigned char nul_rec[] = {2, 0x10, 0, 0, 0, 0, 0, 0, 0, 2, 0, 'a', 0};
	static const unsigned char kind_rec[] = {4, 0x10, 0, 0, 0, 0, 0, 0, 0, 2, 0, 'a', 'b'};
	/* An object record: kind 3, key 0x10, "ab". */
	static const unsigned char object_rec[] = {3, 0x10, 0, 0, 0, 0, 0, 0, 0, 2, 0, 'a', 'b'};
	static const unsigned char empty_fn[] = {1, 0x10, 0,	0,    0, 0, 0, 0, 0, 1,
						 0, 0,	  0xff, 0xff, 1, 0, 0, 0, 0};
	static const unsigned char many[] = {1, 0x10, 0, 0, 0, 0, 0, 0, 0, 66};
	unsigned char twice[2 * sizeof(data_rec)], file[512];
	const char *why, *name;
	struct sym_cache c;
	size_t len;

	memcpy(twice, data_rec, sizeof(data_rec));
	memcpy(twice + sizeof(data_rec), data_rec, sizeof(data_rec));
	ck_assert_int_eq(corecap_sym_cache_open(&c, -1, BID, SRC), 0);
	/* The crafting is right: a valid file is read. */
	len = craft(file, CORECAP_SYM_CACHE_VERSION, BID, SRC, 1, data_rec, sizeof(data_rec));
	ck_assert_int_eq(corecap_sym_cache_parse(&c, file, len, &why), 0);
	ck_assert(corecap_sym_cache_data(&c, 0x10, &name));
	ck_assert_str_eq(name, "ab");
	ck_assert(!corecap_sym_cache_object(&c, 0x10, &name));
	corecap_sym_cache_release(&c);
	ck_assert_int_eq(corecap_sym_cache_open(&c, -1, BID, SRC), 0);
	len = craft(file, CORECAP_SYM_CACHE_VERSION, BID, SRC, 1, object_rec, sizeof(object_rec));
	ck_assert_int_eq(corecap_sym_cache_parse(&c, file, len, &why), 0);
	ck_assert(corecap_sym_cache_object(&c, 0x10, &name));
	ck_assert_str_eq(name, "ab");
	ck_assert(!corecap_sym_cache_data(&c, 0x10, &name));
	corecap_sym_cache_release(&c);
#define REFUSED(version, bid, src, n, payload, plen, reason)                                       \
	do {                                                                                       \
		ck_assert_int_eq(corecap_sym_cache_open(&c, -1, BID, SRC), 0);                     \
		len = craft(file, version, bid, src, n, payload, plen);                            \
		ck_assert_int_eq(corecap_sym_cache_parse(&c, file, len, &why), -EINVAL);           \
		ck_assert_str_eq(why, reason);                                                     \
		ck_assert(is_empty(&c));                                                           \
		corecap_sym_cache_release(&c);                                                     \
	} while (0)
	REFUSED(CORECAP_SYM_CACHE_VERSION + 1, BID, SRC, 1, data_rec, sizeof(data_rec),
		"from another version of corecap");
	REFUSED(CORECAP_SYM_CACHE_VERSION, "0123", SRC, 1, data_rec, sizeof(data_rec),
		"of another build-id");
	REFUSED(CORECAP_SYM_CACHE_VERSION, BID, "other", 1, data_rec, sizeof(data_rec),
		"made by another corecap or from other debug information");
	REFUSED(CORECAP_SYM_CACHE_VERSION, BID, SRC, 2, twice, sizeof(twice), "an address twice");
	REFUSED(CORECAP_SYM_CACHE_VERSION, BID, SRC, 2, data_rec, sizeof(data_rec),
		"a record is cut or malformed");
	REFUSED(CORECAP_SYM_CACHE_VERSION, BID, SRC, 0, data_rec, sizeof(data_rec),
		"bytes after the last record");
	REFUSED(CORECAP_SYM_CACHE_VERSION, BID, SRC, 0xffffffffu, data_rec, sizeof(data_rec),
		"more records than a cache holds");
	REFUSED(CORECAP_SYM_CACHE_VERSION, BID, SRC, 1, nul_rec, sizeof(nul_rec),
		"a record is cut or malformed");
	REFUSED(CORECAP_SYM_CACHE_VERSION, BID, SRC, 1, kind_rec, sizeof(kind_rec),
		"a record of an unknown kind");
	REFUSED(CORECAP_SYM_CACHE_VERSION, BID, SRC, 1, empty_fn, sizeof(empty_fn),
		"a record is cut or malformed");
	REFUSED(CORECAP_SYM_CACHE_VERSION, BID, SRC, 1, many, sizeof(many),
		"a record is cut or malformed");
#undef REFUSED
}
END_TEST

/* Another build-id's file under this one's name: refused, then rebuilt by this one's. */
START_TEST(other_build_id_refused)
{
	const char *other = "fedcba9876543210fedcba9876543210fedcba98";
	int dfd = corecap_sym_cache_open_dir(dir);
	unsigned char *buf;
	struct sym_cache c;
	size_t len;

	write_sample(dfd, other, SRC);
	buf = slurp(file_of(other), &len);
	spit(file_of(BID), buf, len);
	ck_assert_int_eq(corecap_sym_cache_open(&c, dfd, BID, SRC), 0);
	ck_assert(is_empty(&c));
	corecap_sym_cache_release(&c);
	/* The same build-id from other debug files (one installed since): a file of its own, empty.
	 */
	ck_assert_int_eq(corecap_sym_cache_open(&c, dfd, other, "another source"), 0);
	ck_assert(is_empty(&c));
	ck_assert_uint_eq(c.n_new, 0); /* absent, not refused */
	corecap_sym_cache_release(&c);
	ck_assert_int_eq(corecap_sym_cache_open(&c, dfd, other, SRC), 0);
	expect_sample(&c);
	corecap_sym_cache_release(&c);
	/* Another source's file under this source's name: refused. */
	write_sample(dfd, other, "another source");
	{
		char name[CORECAP_SYM_CACHE_NAME_MAX], path[256];
		unsigned char *b2;
		size_t l2;

		corecap_sym_cache_file_name(other, "another source", name, sizeof(name));
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		b2 = slurp(path, &l2);
		spit(file_of(other), b2, l2);
		free(b2);
	}
	ck_assert_int_eq(corecap_sym_cache_open(&c, dfd, other, SRC), 0);
	ck_assert(is_empty(&c));
	ck_assert_uint_eq(c.n_new, 1);
	corecap_sym_cache_release(&c);
	free(buf);
	close(dfd);
}
END_TEST

START_TEST(unsafe_dir_refused)
{
	char link[128], victim[128];
	int dfd;

	ck_assert_int_eq(chmod(dir, 0770), 0);
	ck_assert_int_eq(corecap_sym_cache_open_dir(dir), -1);
	ck_assert_int_eq(chmod(dir, 0702), 0);
	ck_assert_int_eq(corecap_sym_cache_open_dir(dir), -1);
	ck_assert_int_eq(chmod(dir, 0700), 0);
	dfd = corecap_sym_cache_open_dir(dir);
	ck_assert_int_ge(dfd, 0);
	/* A symbolic link to a directory is not followed. */
	snprintf(link, sizeof(link), "%s/link", dir);
	ck_assert_int_eq(symlink(dir, link), 0);
	ck_assert_int_eq(corecap_sym_cache_open_dir(link), -1);
	/* A symbolic link in place of a cache file: not read, and replaced, not written through. */
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	spit(victim, (const unsigned char *)"keep", 4);
	ck_assert_int_eq(symlink(victim, file_of(BID)), 0);
	write_sample(dfd, BID, SRC);
	{
		size_t len;
		unsigned char *buf = slurp(victim, &len);
		struct stat st;

		ck_assert_uint_eq(len, 4);
		ck_assert_int_eq(memcmp(buf, "keep", 4), 0);
		free(buf);
		ck_assert_int_eq(lstat(file_of(BID), &st), 0);
		ck_assert(S_ISREG(st.st_mode));
	}
	close(dfd);
}
END_TEST

/* Things for the symbolizer to name: a function's instructions and a member of a global struct. */
__attribute__((noinline, used)) int sym_cache_marker_fn(int x)
{
	return x * 5 + 3;
}

struct {
	long pad[2];
	pthread_mutex_t lock;
} sym_cache_marker_struct;

static void copy_maps(char *path, size_t size)
{
	char cmd[256];

	snprintf(path, size, "%s/maps", dir);
	snprintf(cmd, sizeof(cmd), "cp /proc/%d/maps %s", (int)getpid(), path);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(symbolizer_warm_same)
{
	uint64_t pc = (uint64_t)(uintptr_t)sym_cache_marker_fn + 4,
		 data = (uint64_t)(uintptr_t)&sym_cache_marker_struct.lock;
	char maps[128], cache[128], *err = NULL, *names[2][3];
	const struct sym_frame *f;
	struct sym_frame kept[2][8];
	size_t n[2];
	struct symbolizer s;

	snprintf(cache, sizeof(cache), "%s/xdg", dir);
	ck_assert_int_eq(mkdir(cache, 0700), 0);
	setenv("XDG_CACHE_HOME", cache, 1);
	copy_maps(maps, sizeof(maps));
	/* Cold, then warm from what the first one wrote at release. */
	for (int round = 0; round < 2; round++) {
		ck_assert_int_eq(corecap_symbolizer_init(&s, maps, NULL, NULL, &err), 0);
		names[round][0] = strdup(corecap_symbolizer_name(&s, pc, true));
		names[round][1] = strdup(corecap_symbolizer_name(&s, data, false));
		names[round][2] = strdup(corecap_symbolizer_name(&s, data + 1, false));
		n[round] = corecap_symbolizer_frames(&s, pc, &f);
		ck_assert_uint_ge(n[round], 1);
		ck_assert_uint_le(n[round], 8);
		for (size_t i = 0; i < n[round]; i++) {
			kept[round][i] = f[i];
			kept[round][i].function = strdup(f[i].function);
			kept[round][i].file = f[i].file ? strdup(f[i].file) : NULL;
		}
		corecap_symbolizer_release(&s);
	}
	ck_assert_str_eq(names[0][1], "sym_cache_marker_struct.lock");
	ck_assert_str_eq(kept[0][n[0] - 1].function, "sym_cache_marker_fn");
	for (int k = 0; k < 3; k++)
		ck_assert_str_eq(names[0][k], names[1][k]);
	ck_assert_uint_eq(n[0], n[1]);
	for (size_t i = 0; i < n[0]; i++) {
		ck_assert_str_eq(kept[0][i].function, kept[1][i].function);
		ck_assert(!kept[0][i].file == !kept[1][i].file);
		if (kept[0][i].file)
			ck_assert_str_eq(kept[0][i].file, kept[1][i].file);
		ck_assert_uint_eq(kept[0][i].line, kept[1][i].line);
		ck_assert(kept[0][i].inlined == kept[1][i].inlined);
	}
	/* The warm round read this program's cache file: it is there. */
	{
		char cmd[256];

		snprintf(cmd, sizeof(cmd), "ls %s/corecap/*.sym >/dev/null", cache);
		ck_assert_int_eq(system(cmd), 0);
	}
	/* CORECAP_SYMCACHE=0: no cache at all (a fresh process's first look). */
	unsetenv("XDG_CACHE_HOME");
	for (int round = 0; round < 2; round++) {
		for (int k = 0; k < 3; k++)
			free(names[round][k]);
		for (size_t i = 0; i < n[round]; i++) {
			free((char *)kept[round][i].function);
			free((char *)kept[round][i].file);
		}
	}
}
END_TEST

START_TEST(disabled_by_env)
{
	setenv("CORECAP_SYMCACHE", "0", 1);
	ck_assert_int_eq(corecap_sym_cache_dir(), -1);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("analysis_sym_cache");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, truncated_refused);
	tcase_add_test(tc, corrupt_refused);
	tcase_add_test(tc, crafted_refused);
	tcase_add_test(tc, other_build_id_refused);
	tcase_add_test(tc, unsafe_dir_refused);
	tcase_add_test(tc, symbolizer_warm_same);
	tcase_add_test(tc, disabled_by_env);
	suite_add_tcase(su, tc);
	return corecap_check_run(su);
}
