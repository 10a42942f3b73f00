/* run_cache: see run_cache.h. */
#include "run_cache.h"

#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <corecap/diag.h>

#include "../util/u64map.h"
#include "cache_dir.h"
#include "exit_unlink.h"

#define MAGIC	   "CCRUNC\r\n"
#define END_MAGIC  "CCRUNEND"
#define HEAD_LEN   16
#define TAG_BLOB   31
#define F_COMM	   0x20
#define F_THEN	   0x40
#define WBUF	   (1u << 20)
#define MAX_DEPTH  64
#define DROP_EVERY (8u << 20)

/* ---- switches and the directory ---- */

static const char *env_value(void)
{
	const char *s = getenv("CORECAP_RUNCACHE");

	return s ? s : "";
}

bool corecap_run_cache_enabled(void)
{
	return strcmp(env_value(), "0") != 0;
}

bool corecap_run_cache_verbose(void)
{
	return strcmp(env_value(), "verbose") == 0;
}

static uint64_t max_bytes(void)
{
	const char *s = getenv("CORECAP_RUNCACHE_MAX_MB");
	char *end;
	unsigned long long mb;

	if (s && *s) {
		errno = 0;
		mb = strtoull(s, &end, 10);
		if (!errno && !*end && mb < (1ull << 40))
			return (uint64_t)mb << 20;
	}
	return 2048ull << 20;
}

static int cache_dirfd = -1;
static pthread_once_t cache_dir_once = PTHREAD_ONCE_INIT;

static int open_dir(void)
{
	if (!corecap_run_cache_enabled())
		return -1;
	return corecap_cache_dir_open("runs", "run cache", "reading traces without it");
}

static void look_at_dir(void)
{
	cache_dirfd = open_dir();
}

int corecap_run_cache_dir(void)
{
	pthread_once(&cache_dir_once, look_at_dir);
	return cache_dirfd;
}

/* ---- the key ---- */

struct keybuf {
	char *s;
	size_t len, cap;
	int err;
};

static void key_add(struct keybuf *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void key_add(struct keybuf *k, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (k->err)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(k->s + k->len, k->cap - k->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			k->err = -EINVAL;
			return;
		}
		if ((size_t)n < k->cap - k->len) {
			k->len += (size_t)n;
			return;
		}
		if (k->cap > RUN_CACHE_KEY_MAX) {
			k->err = -E2BIG;
			return;
		}
		char *p = realloc(k->s, k->cap * 2 + (size_t)n + 1);

		if (!p) {
			k->err = -ENOMEM;
			return;
		}
		k->s = p;
		k->cap = k->cap * 2 + (size_t)n + 1;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file under dir/rel (depth at most 4), sorted, into k. */
static void key_dir(struct keybuf *k, const char *dir, const char *rel, int depth)
{
	char path[PATH_MAX], sub[PATH_MAX];
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s%s%s", dir, *rel ? "/" : "", rel);
	if (!(d = opendir(path))) {
		k->err = -errno;
		return;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			char **p = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof(*p));

			if (!p) {
				k->err = -ENOMEM;
				break;
			}
			names = p;
		}
		if (!(names[n] = strdup(de->d_name))) {
			k->err = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		int l1 = snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", names[i]);
		int l2 = snprintf(path, sizeof(path), "%s/%s", dir, sub);

		if (l1 < 0 || l2 < 0 || (size_t)l1 >= sizeof(sub) || (size_t)l2 >= sizeof(path)) {
			k->err = -ENAMETOOLONG;
		} else if (lstat(path, &st)) {
			k->err = k->err ? k->err : -errno;
		} else if (S_ISDIR(st.st_mode) && depth < 4) {
			key_add(k, "d %s\n", sub);
			key_dir(k, dir, sub, depth + 1);
		} else {
			key_add(k, "f %s %llu %lld.%09ld %llu %llu %o\n", sub,
				(unsigned long long)st.st_size, (long long)st.st_mtim.tv_sec,
				st.st_mtim.tv_nsec, (unsigned long long)st.st_ino,
				(unsigned long long)st.st_dev, (unsigned)st.st_mode);
		}
		free(names[i]);
	}
	free(names);
}

int corecap_run_cache_key(char *const *dirs, size_t n, char **key)
{
	struct keybuf k = {.cap = 4096};

	*key = NULL;
	if (!(k.s = malloc(k.cap)))
		return -ENOMEM;
	k.s[0] = 0;
	key_add(&k, "corecap " CORECAP_VERSION "; run cache %d\n", CORECAP_RUN_CACHE_VERSION);
	for (size_t i = 0; i < n && !k.err; i++) {
		char real[PATH_MAX];

		if (!realpath(dirs[i], real)) {
			k.err = -errno;
			break;
		}
		key_add(&k, "trace %s\n", real);
		key_dir(&k, real, "", 0);
	}
	if (k.err) {
		free(k.s);
		return k.err;
	}
	*key = k.s;
	return 0;
}

static uint64_t fnv64(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

void corecap_run_cache_file_name(const char *key, char *out, size_t size)
{
	snprintf(out, size, "%016llx.ev", (unsigned long long)fnv64(key));
}

/* ---- the hash: 8 bytes at a time, the tail zero-padded ---- */

struct hash {
	uint64_t h;
	unsigned char pend[8];
	unsigned npend;
};

static inline uint64_t mix(uint64_t h, uint64_t w)
{
	h ^= w;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static uint64_t load64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

static void hash_add(struct hash *s, const unsigned char *p, size_t n)
{
	while (n && s->npend) {
		s->pend[s->npend++] = *p++, n--;
		if (s->npend == 8) {
			s->h = mix(s->h, load64(s->pend));
			s->npend = 0;
		}
	}
	for (; n >= 8; p += 8, n -= 8)
		s->h = mix(s->h, load64(p));
	while (n--)
		s->pend[s->npend++] = *p++;
}

static uint64_t hash_end(struct hash *s)
{
	if (s->npend) {
		memset(s->pend + s->npend, 0, 8 - s->npend);
		s->h = mix(s->h, load64(s->pend) ^ ((uint64_t)s->npend << 59));
	}
	return mix(s->h, 0x52554e4341434845ull);
}

uint64_t corecap_run_cache_hash(const unsigned char *buf, size_t len)
{
	struct hash h = {0};

	hash_add(&h, buf, len);
	return hash_end(&h);
}

/* ---- reading ---- */

struct cur {
	const unsigned char *p, *end;
	bool bad;
};

static inline uint64_t get_var(struct cur *c)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (c->p == c->end) {
			c->bad = true;
			return 0;
		}
		unsigned char b = *c->p++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

static inline int64_t get_zz(struct cur *c)
{
	uint64_t v = get_var(c);

	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline uint8_t get_u8(struct cur *c)
{
	if (c->p == c->end) {
		c->bad = true;
		return 0;
	}
	return *c->p++;
}

struct blob {
	const unsigned char *p;
	size_t len;
};

struct blobs {
	struct blob *b;
	size_t n, cap;
};

/* Blob ref+1 (0: none) as a string: NULL for none; *bad when not one. */
static const char *blob_str(const struct blobs *bs, uint64_t ref, struct cur *c)
{
	const struct blob *b;

	if (!ref)
		return NULL;
	if (ref > bs->n) {
		c->bad = true;
		return NULL;
	}
	b = &bs->b[ref - 1];
	if (!b->len || b->p[b->len - 1]) {
		c->bad = true;
		return NULL;
	}
	return (const char *)b->p;
}

static bool is_op(int k)
{
	return k == MEV_OP_BEGIN || k == MEV_OP_PHASE || k == MEV_OP_END || k == MEV_OP_ENTER ||
	       k == MEV_OP_EXIT || k == MEV_OP_CLIENT || k == MEV_OP_REPLY;
}

static bool is_lock(int k)
{
	return k == MEV_LOCK_CONTENDED || k == MEV_LOCK_HOLD || k == MEV_COND_WAIT ||
	       k == MEV_COND_WAKE;
}

static bool is_thread(int k)
{
	return k == MEV_THREAD_NAME || k == MEV_THREAD_START || k == MEV_THREAD_EXIT;
}

/*
 * Decodes the records of v; consume NULL: only checks them. 0, the
 * consumer's error, or -EINVAL with *why.
 */
static int decode(const struct run_cache_view *v, run_cache_consume_fn consume,
		  run_cache_wants_fn wants, void *ctx, uint64_t *stack, const char **why)
{
	struct cur c = {.p = v->buf + v->rec_off, .end = v->buf + v->rec_off + v->rec_len};
	struct blobs bs = {0};
	uint64_t ts = 0, events = 0;
	const char *comm = NULL;
	uint64_t local[MAX_DEPTH];
	int ret = 0;

	if (!stack)
		stack = local;
	if (v->tail.blobs > RUN_CACHE_BLOBS_MAX) {
		*why = "too many blobs";
		return -EINVAL;
	}
	bs.cap = (size_t)v->tail.blobs;
	if (bs.cap && !(bs.b = malloc(bs.cap * sizeof(*bs.b))))
		return -ENOMEM;
	const unsigned char *kept = v->buf; /* pages before it were dropped */
	long page = sysconf(_SC_PAGESIZE);

	while (c.p < c.end && !ret) {
		uint8_t tag;

		/* The mapping's pages behind the reading leave the RSS (a blob used
		 * later is read back from the page cache): memory does not grow with
		 * the trace. */
		if (v->mapped && page > 0 && (size_t)(c.p - kept) >= DROP_EVERY) {
			size_t n = (size_t)(c.p - kept) & ~((size_t)page - 1);

			madvise((void *)kept, n, MADV_DONTNEED);
			kept += n;
		}
		tag = *c.p++;
		int kind = tag & 0x1f;
		struct model_event ev;

		if (tag == TAG_BLOB) {
			uint64_t len = get_var(&c);

			if (c.bad || len > (uint64_t)(c.end - c.p) || bs.n == bs.cap) {
				*why = "a blob out of bounds";
				ret = -EINVAL;
				break;
			}
			bs.b[bs.n++] = (struct blob){c.p, (size_t)len};
			c.p += len;
			continue;
		}
		if (kind >= MEV__COUNT || (tag & 0x80)) {
			*why = "an unknown record";
			ret = -EINVAL;
			break;
		}
		memset(&ev, 0, sizeof(ev));
		ev.kind = (enum model_event_kind)kind;
		ts += (uint64_t)get_zz(&c);
		ev.ts_ns = ts;
		ev.tid = (int32_t)get_zz(&c);
		ev.pid = (int32_t)get_zz(&c);
		if (tag & F_THEN) {
			if (!events) {
				c.bad = true;
			}
			ev.comm = comm; /* the first's procname and decision */
		} else if (tag & F_COMM) {
			const char *full = blob_str(&bs, get_var(&c) + 1, &c);

			comm = !c.bad && consume && (!wants || wants(ctx, ev.tid)) ? full : NULL;
			ev.comm = comm;
		} else {
			comm = NULL;
		}
		if (is_op(kind)) {
			ev.op.id = get_var(&c);
			ev.op.str = blob_str(&bs, get_var(&c), &c);
			ev.op.bytes = get_var(&c);
			ev.op.result = get_zz(&c);
		} else if (is_lock(kind)) {
			uint64_t ref;

			ev.lock.addr = get_var(&c);
			ev.lock.mutex = get_var(&c);
			ev.lock.site = get_var(&c);
			ev.lock.dur_ns = get_var(&c);
			ev.lock.kind = get_u8(&c);
			ev.lock.flag = get_u8(&c);
			ev.lock.depth = (uint32_t)get_var(&c);
			ref = get_var(&c);
			if (ref) {
				const struct blob *b = ref <= bs.n ? &bs.b[ref - 1] : NULL;

				if (!b || ev.lock.depth > MAX_DEPTH ||
				    b->len != (size_t)ev.lock.depth * 8) {
					c.bad = true;
				} else {
					for (uint32_t k = 0; k < ev.lock.depth; k++)
						stack[k] = load64(b->p + 8 * k);
					ev.lock.stack = stack;
				}
			}
		} else if (kind == MEV_IO || kind == MEV_AIO) {
			ev.io.call = get_u8(&c);
			ev.io.io_class = get_u8(&c);
			ev.io.fd = (int32_t)get_zz(&c);
			ev.io.bytes = get_zz(&c);
			ev.io.dur_ns = get_var(&c);
			ev.io.hdr_len = get_u8(&c);
			if (ev.io.hdr_len > sizeof(ev.io.hdr) ||
			    (size_t)(c.end - c.p) < ev.io.hdr_len) {
				c.bad = true;
			} else {
				memcpy(ev.io.hdr, c.p, ev.io.hdr_len);
				c.p += ev.io.hdr_len;
			}
		} else if (is_thread(kind)) {
			ev.thread.tid = (int32_t)get_zz(&c);
			ev.thread.parent_tid = (int32_t)get_zz(&c);
			ev.thread.name = blob_str(&bs, get_var(&c), &c);
		} else if (kind == MEV_DISCARDED) {
			ev.loss.count = get_var(&c);
			ev.loss.begin_ns = get_var(&c);
			ev.loss.end_ns = get_var(&c);
			ev.loss.packets = get_u8(&c);
		}
		if (c.bad) {
			*why = "an event out of bounds";
			ret = -EINVAL;
			break;
		}
		events++;
		if (consume)
			ret = consume(ctx, &ev);
	}
	if (!ret && (events != v->tail.events || bs.n != v->tail.blobs)) {
		*why = "the counts disagree with the records";
		ret = -EINVAL;
	}
	free(bs.b);
	return ret;
}

/* buf's hash, a mapping's pages dropped behind it (decode says why). */
static uint64_t hash_dropping(const unsigned char *buf, size_t len, bool mapped)
{
	struct hash h = {0};

	for (size_t off = 0; off < len; off += DROP_EVERY) {
		size_t n = len - off < DROP_EVERY ? len - off : DROP_EVERY;

		hash_add(&h, buf + off, n);
		if (mapped && n == DROP_EVERY)
			madvise((void *)(buf + off), n, MADV_DONTNEED);
	}
	return hash_end(&h);
}

static int check(const unsigned char *buf, size_t len, const char *key, struct run_cache_view *v,
		 const char **why, bool mapped)
{
	const unsigned char *f;
	uint32_t version, klen, cut_len;
	uint64_t rec_len;
	size_t body;

	memset(v, 0, sizeof(*v));
	if (len < HEAD_LEN + RUN_CACHE_FOOTER || memcmp(buf, MAGIC, 8)) {
		*why = "not a run cache file";
		return -EINVAL;
	}
	memcpy(&version, buf + 8, 4);
	memcpy(&klen, buf + 12, 4);
	version = le32toh(version);
	klen = le32toh(klen);
	if (version != CORECAP_RUN_CACHE_VERSION) {
		*why = "another version";
		return -EINVAL;
	}
	f = buf + len - RUN_CACHE_FOOTER;
	if (memcmp(f + 88, END_MAGIC, 8)) {
		*why = "truncated";
		return -EINVAL;
	}
	body = len - HEAD_LEN - RUN_CACHE_FOOTER;
	cut_len = (uint32_t)f[64] | (uint32_t)f[65] << 8 | (uint32_t)f[66] << 16 |
		  (uint32_t)f[67] << 24;
	rec_len = load64(f + 72);
	if (klen > RUN_CACHE_KEY_MAX || klen > body || cut_len > RUN_CACHE_CUT_MAX ||
	    cut_len > body - klen || rec_len != body - klen - cut_len) {
		*why = "lengths out of bounds";
		return -EINVAL;
	}
	if (key && (strlen(key) != klen || memcmp(buf + HEAD_LEN, key, klen))) {
		*why = "another key";
		return -EINVAL;
	}
	if (hash_dropping(buf, len - 16, mapped) != load64(f + 80)) {
		*why = "a bad hash";
		return -EINVAL;
	}
	v->buf = buf;
	v->mapped = mapped;
	v->rec_off = HEAD_LEN + klen;
	v->rec_len = (size_t)rec_len;
	v->tail.events = load64(f);
	v->tail.blobs = load64(f + 8);
	v->tail.foreign = load64(f + 16);
	v->tail.packets = load64(f + 24);
	v->tail.index_packets = load64(f + 32);
	v->tail.missing_packets = load64(f + 40);
	v->tail.missing_bytes = load64(f + 48);
	v->tail.streams_cut = load64(f + 56);
	memcpy(v->tail.cut_name, buf + v->rec_off + v->rec_len, cut_len);
	v->tail.cut_name[cut_len] = 0;
	return decode(v, NULL, NULL, NULL, NULL, why);
}

int corecap_run_cache_check(const unsigned char *buf, size_t len, const char *key,
			    struct run_cache_view *v, const char **why)
{
	return check(buf, len, key, v, why, false);
}

int corecap_run_cache_replay(const struct run_cache_view *v, run_cache_consume_fn consume,
			     run_cache_wants_fn wants, void *ctx, uint64_t *stack)
{
	const char *why = NULL;

	return decode(v, consume, wants, ctx, stack, &why);
}

static pthread_once_t refused_once = PTHREAD_ONCE_INIT;
static const char *refused_why;
static char refused_name[64];

static void warn_refused(void)
{
	corecap_warn("the run cache file '%s' is not valid (%s): not used, rewritten", refused_name,
		     refused_why);
}

void corecap_run_cache_refused(const char *name, const char *why)
{
	refused_why = why;
	snprintf(refused_name, sizeof(refused_name), "%s", name);
	pthread_once(&refused_once, warn_refused);
}

int corecap_run_cache_map(int dirfd, const char *name, size_t min_len, void **map, size_t *map_len)
{
	struct stat st;
	void *m;
	int fd;

	*map = NULL;
	*map_len = 0;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		corecap_run_cache_refused(name, "not a file of yours");
		return -EINVAL;
	}
	if ((uint64_t)st.st_size < min_len || (uint64_t)st.st_size > max_bytes()) {
		close(fd);
		corecap_run_cache_refused(name, "its size");
		return -EINVAL;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -ENOENT;
	*map = m;
	*map_len = (size_t)st.st_size;
	return 0;
}

int corecap_run_cache_load(int dirfd, const char *key, struct run_cache_view *v, void **map,
			   size_t *map_len)
{
	char name[64];
	const char *why = NULL;
	int ret;

	corecap_run_cache_file_name(key, name, sizeof(name));
	ret = corecap_run_cache_map(dirfd, name, HEAD_LEN + RUN_CACHE_FOOTER, map, map_len);
	if (ret)
		return ret;
	madvise(*map, *map_len, MADV_SEQUENTIAL);
	ret = check(*map, *map_len, key, v, &why, true);
	if (ret) {
		corecap_run_cache_unload(*map, *map_len);
		*map = NULL;
		*map_len = 0;
		if (ret == -EINVAL)
			corecap_run_cache_refused(name, why);
	}
	return ret;
}

void corecap_run_cache_unload(void *map, size_t map_len)
{
	if (map)
		munmap(map, map_len);
}

/* ---- writing ---- */

#define COMM_SLOTS 256 /* comm_of's slots: a power of 2 */
#define STR_SLOTS  64  /* str_of's slots: a power of 2 */

struct run_cache_writer {
	int dirfd, fd;
	char name[64], tmp[128];
	char tmp_path[192]; /* tmp through /proc/self/fd, for exit_unlink */
	bool registered;
	unsigned char *buf;
	size_t used;
	uint64_t written, cap, events, base; /* base: the header's bytes */
	struct hash h;
	uint64_t ts;
	/* Interned blobs: hash -> index + 1; their bytes to tell collisions. */
	struct u64map seen;
	unsigned char **blob;
	size_t *blob_len;
	size_t n_blobs, cap_blobs, blob_bytes;
	/* The process name each thread's events last gave, by tid (direct
	 * mapped): its blob number + 1 (0: none), checked against the bytes. */
	struct {
		int32_t tid;
		uint64_t ref;
	} comm_of[COMM_SLOTS];
	/* The strings met (op types, phase and thread names), by their length
	 * and first bytes (direct mapped): blob number + 1 (0: none), checked
	 * against the bytes. */
	uint64_t str_of[STR_SLOTS];
	bool failed, committed;
};

static void w_flush(struct run_cache_writer *w)
{
	size_t done = 0;

	if (w->failed)
		return;
	hash_add(&w->h, w->buf, w->used);
	while (done < w->used) {
		ssize_t n = write(w->fd, w->buf + done, w->used - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			w->failed = true;
			break;
		}
		done += (size_t)n;
	}
	w->written += w->used;
	w->used = 0;
	if (w->written > w->cap)
		w->failed = true; /* past the size cap: not kept */
}

static inline void w_need(struct run_cache_writer *w, size_t n)
{
	if (w->used + n > WBUF)
		w_flush(w);
}

static inline void w_bytes(struct run_cache_writer *w, const void *p, size_t n)
{
	if (n > WBUF) {
		w_flush(w);
		hash_add(&w->h, p, n);
		if (write(w->fd, p, n) != (ssize_t)n)
			w->failed = true;
		w->written += n;
		return;
	}
	w_need(w, n);
	memcpy(w->buf + w->used, p, n);
	w->used += n;
}

static inline void w_var(struct run_cache_writer *w, uint64_t v)
{
	unsigned char *p = w->buf + w->used;

	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	w->used = (size_t)(p - w->buf);
}

static inline void w_zz(struct run_cache_writer *w, int64_t v)
{
	w_var(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static inline void w_u8(struct run_cache_writer *w, uint8_t v)
{
	w->buf[w->used++] = v;
}

static uint64_t blob_hash(const void *p, size_t n)
{
	struct hash h = {.h = n};

	hash_add(&h, p, n);
	return hash_end(&h);
}

/* p[0..n)'s blob number + 1, writing it when new; 0 when w failed. */
static uint64_t intern(struct run_cache_writer *w, const void *p, size_t n)
{
	uint64_t key, *slot;
	bool fresh;

	if (w->failed)
		return 0; /* a slot may hold 0 from the failure */
	key = blob_hash(p, n);
	slot = corecap_u64map_upsert(&w->seen, key, &fresh);
	if (!slot) {
		w->failed = true;
		return 0;
	}
	if (!fresh) {
		size_t i = (size_t)*slot - 1;

		if (w->blob_len[i] == n && !memcmp(w->blob[i], p, n))
			return *slot;
		/* A collision: a blob of its own, not interned. */
	}
	if (w->n_blobs == RUN_CACHE_BLOBS_MAX || w->blob_bytes + n > (256u << 20)) {
		w->failed = true; /* too many distinct strings and stacks to keep */
		return 0;
	}
	if (w->n_blobs == w->cap_blobs) {
		size_t cap = w->cap_blobs ? 2 * w->cap_blobs : 1024;
		unsigned char **b = realloc(w->blob, cap * sizeof(*b));
		size_t *l = b ? realloc(w->blob_len, cap * sizeof(*l)) : NULL;

		if (b)
			w->blob = b;
		if (!b || !l) {
			w->failed = true;
			return 0;
		}
		w->blob_len = l;
		w->cap_blobs = cap;
	}
	if (!(w->blob[w->n_blobs] = malloc(n ? n : 1))) {
		w->failed = true;
		return 0;
	}
	memcpy(w->blob[w->n_blobs], p, n);
	w->blob_len[w->n_blobs] = n;
	w->blob_bytes += n;
	if (fresh)
		*slot = w->n_blobs + 1;
	w->n_blobs++;
	w_need(w, 11);
	w_u8(w, TAG_BLOB);
	w_var(w, n);
	w_bytes(w, p, n);
	return w->n_blobs;
}

/*
 * intern of string s (NULL: 0). The same few strings (an op's type, its
 * phases' names) come with nearly every op: the one its slot last gave is
 * compared byte for byte before s is hashed and looked up.
 */
static uint64_t intern_str(struct run_cache_writer *w, const char *s)
{
	uint64_t head = 0, ref;
	uint32_t at;
	size_t n;

	if (!s)
		return 0;
	n = strlen(s) + 1;
	memcpy(&head, s, n < sizeof(head) ? n : sizeof(head));
	at = (uint32_t)(((head ^ n) * 0x9E3779B97F4A7C15ull) >> 32) & (STR_SLOTS - 1);
	ref = w->str_of[at];
	if (ref && w->blob_len[ref - 1] == n && !memcmp(w->blob[ref - 1], s, n))
		return ref;
	ref = intern(w, s, n);
	w->str_of[at] = ref;
	return ref;
}

/*
 * intern_str of thread tid's process name s: a thread's events mostly
 * give the name its last one gave, found by tid and compared with that
 * blob's bytes before the string is hashed and looked up.
 */
static uint64_t intern_comm(struct run_cache_writer *w, int32_t tid, const char *s)
{
	uint32_t at = (uint32_t)tid & (COMM_SLOTS - 1);
	uint64_t ref = w->comm_of[at].ref;
	size_t n = strlen(s) + 1;

	if (ref && w->comm_of[at].tid == tid && w->blob_len[ref - 1] == n &&
	    !memcmp(w->blob[ref - 1], s, n))
		return ref;
	ref = intern(w, s, n);
	w->comm_of[at].tid = tid;
	w->comm_of[at].ref = ref;
	return ref;
}

/* A temporary of our own beside name in dirfd, its name in tmp: O_EXCL and
 * O_NOFOLLOW, so that nobody else's file (or link) is written. Its fd, or -1. */
static int open_temp(int dirfd, const char *name, char *tmp, size_t size)
{
	struct timespec ts;
	int fd = -1;

	for (int attempt = 0; attempt < 8 && fd < 0; attempt++) {
		clock_gettime(CLOCK_REALTIME, &ts);
		snprintf(tmp, size, ".%s.%ld.%ld.tmp", name, (long)getpid(),
			 (long)(ts.tv_nsec + attempt));
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	return fd;
}

struct run_cache_writer *corecap_run_cache_writer_open(int dirfd, const char *key)
{
	struct run_cache_writer *w = calloc(1, sizeof(*w));
	unsigned char head[HEAD_LEN];
	uint32_t v = htole32(CORECAP_RUN_CACHE_VERSION), klen = htole32((uint32_t)strlen(key));

	if (!w || strlen(key) > RUN_CACHE_KEY_MAX || !(w->buf = malloc(WBUF))) {
		free(w);
		return NULL;
	}
	w->dirfd = dirfd;
	w->fd = -1;
	w->cap = max_bytes();
	corecap_u64map_init(&w->seen);
	corecap_run_cache_file_name(key, w->name, sizeof(w->name));
	w->fd = open_temp(dirfd, w->name, w->tmp, sizeof(w->tmp));
	if (w->fd < 0) {
		w->tmp[0] = 0;
		corecap_run_cache_writer_free(w);
		return NULL;
	}
	/* Removed too when the process ends abruptly (the trace guard's _exit). */
	snprintf(w->tmp_path, sizeof(w->tmp_path), "/proc/self/fd/%d/%s", dirfd, w->tmp);
	w->registered = corecap_exit_unlink_add(w->tmp_path);
	memcpy(head, MAGIC, 8);
	memcpy(head + 8, &v, 4);
	memcpy(head + 12, &klen, 4);
	w_bytes(w, head, HEAD_LEN);
	w_bytes(w, key, strlen(key));
	w->base = HEAD_LEN + strlen(key);
	w->cap += w->base;
	return w;
}

void corecap_run_cache_put(struct run_cache_writer *w, const struct model_event *ev,
			   const char *comm, bool has_comm, bool then)
{
	int k = ev->kind;
	uint64_t comm_ref = 0, str_ref = 0;

	if (w->failed)
		return;
	/* Blobs first: they precede the events that use them. */
	if (has_comm && !then)
		comm_ref = intern_comm(w, ev->tid, comm ? comm : "");
	if (is_op(k))
		str_ref = intern_str(w, ev->op.str);
	else if (is_thread(k))
		str_ref = intern_str(w, ev->thread.name);
	else if (is_lock(k) && ev->lock.stack) {
		uint64_t fr[MAX_DEPTH];
		uint32_t d = ev->lock.depth < MAX_DEPTH ? ev->lock.depth : MAX_DEPTH;

		for (uint32_t i = 0; i < d; i++)
			fr[i] = htole64(ev->lock.stack[i]);
		if (d != ev->lock.depth)
			w->failed = true; /* not what the reader gives */
		str_ref = intern(w, fr, (size_t)d * 8);
	}
	if (w->failed)
		return;
	w_need(w, 128);
	w_u8(w, (uint8_t)(k | (then ? F_THEN : has_comm ? F_COMM : 0)));
	w_zz(w, (int64_t)(ev->ts_ns - w->ts));
	w->ts = ev->ts_ns;
	w_zz(w, ev->tid);
	w_zz(w, ev->pid);
	if (has_comm && !then)
		w_var(w, comm_ref - 1);
	if (is_op(k)) {
		w_var(w, ev->op.id);
		w_var(w, str_ref);
		w_var(w, ev->op.bytes);
		w_zz(w, ev->op.result);
	} else if (is_lock(k)) {
		w_var(w, ev->lock.addr);
		w_var(w, ev->lock.mutex);
		w_var(w, ev->lock.site);
		w_var(w, ev->lock.dur_ns);
		w_u8(w, ev->lock.kind);
		w_u8(w, ev->lock.flag);
		w_var(w, ev->lock.depth);
		w_var(w, str_ref);
	} else if (k == MEV_IO || k == MEV_AIO) {
		uint8_t n = ev->io.hdr_len <= sizeof(ev->io.hdr) ? ev->io.hdr_len : 0;

		w_u8(w, ev->io.call);
		w_u8(w, ev->io.io_class);
		w_zz(w, ev->io.fd);
		w_zz(w, ev->io.bytes);
		w_var(w, ev->io.dur_ns);
		w_u8(w, n);
		memcpy(w->buf + w->used, ev->io.hdr, n);
		w->used += n;
	} else if (is_thread(k)) {
		w_zz(w, ev->thread.tid);
		w_zz(w, ev->thread.parent_tid);
		w_var(w, str_ref);
	} else if (k == MEV_DISCARDED) {
		w_var(w, ev->loss.count);
		w_var(w, ev->loss.begin_ns);
		w_var(w, ev->loss.end_ns);
		w_u8(w, (uint8_t)ev->loss.packets);
	}
	w->events++;
}

static void put64(unsigned char *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

/* Removes the oldest files (decoded traces, .ev, and OpTracker histories,
 * .oph) until the directory holds at most cap - need bytes. */
static void prune(int dirfd, uint64_t cap, uint64_t need, const char *keep)
{
	struct ent {
		char name[64];
		uint64_t size;
		int64_t mtime;
	} *e = NULL;
	size_t n = 0, ncap = 0;
	uint64_t total = 0;
	struct dirent *de;
	int fd = dup(dirfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		struct stat st;
		size_t l = strlen(de->d_name);

		if (l < 5 || l >= 64 ||
		    (strcmp(de->d_name + l - 3, ".ev") && strcmp(de->d_name + l - 4, ".oph")) ||
		    de->d_name[0] == '.' || !strcmp(de->d_name, keep) ||
		    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (n == ncap) {
			struct ent *p = realloc(e, (ncap = ncap ? 2 * ncap : 32) * sizeof(*p));

			if (!p)
				break;
			e = p;
		}
		snprintf(e[n].name, sizeof(e[n].name), "%s", de->d_name);
		e[n].size = (uint64_t)st.st_size;
		e[n].mtime = (int64_t)st.st_mtim.tv_sec;
		total += e[n].size;
		n++;
	}
	closedir(d);
	while (total + need > cap && n) {
		size_t old = 0;

		for (size_t i = 1; i < n; i++)
			if (e[i].mtime < e[old].mtime)
				old = i;
		unlinkat(dirfd, e[old].name, 0);
		total -= e[old].size;
		e[old] = e[--n];
	}
	free(e);
}

int corecap_run_cache_commit(struct run_cache_writer *w, const struct run_cache_tail *t)
{
	unsigned char f[RUN_CACHE_FOOTER];
	size_t cut = strnlen(t->cut_name, RUN_CACHE_CUT_MAX);
	uint64_t rec_len;
	int ret = 0;

	w_flush(w);
	if (w->failed)
		return -EFBIG;
	rec_len = w->written - w->base;
	memcpy(w->buf, t->cut_name, cut); /* flushed: the buffer is empty */
	w->used = cut;
	memset(f, 0, sizeof(f));
	put64(f, w->events);
	put64(f + 8, w->n_blobs);
	put64(f + 16, t->foreign);
	put64(f + 24, t->packets);
	put64(f + 32, t->index_packets);
	put64(f + 40, t->missing_packets);
	put64(f + 48, t->missing_bytes);
	put64(f + 56, t->streams_cut);
	f[64] = (unsigned char)cut;
	f[65] = (unsigned char)(cut >> 8);
	put64(f + 72, rec_len);
	w_bytes(w, f, 80);
	w_flush(w);
	put64(f + 80, hash_end(&w->h));
	memcpy(f + 88, END_MAGIC, 8);
	if (w->failed || write(w->fd, f + 80, 16) != 16) {
		w->failed = true;
		return -EIO;
	}
	if (close(w->fd)) {
		w->fd = -1;
		w->failed = true;
		return -errno;
	}
	w->fd = -1;
	prune(w->dirfd, max_bytes(), w->written + 16, w->name);
	if (w->registered)
		corecap_exit_unlink_remove(w->tmp_path);
	w->registered = false;
	/* rename replaces the file whole: a reader sees the old one or this one. */
	if (renameat(w->dirfd, w->tmp, w->dirfd, w->name)) {
		ret = -errno;
		w->failed = true;
		return ret;
	}
	w->committed = true;
	if (corecap_run_cache_verbose())
		fprintf(stderr, "corecap: run cache: wrote %s (%llu events, %llu bytes)\n", w->name,
			(unsigned long long)w->events, (unsigned long long)w->written + 16);
	return 0;
}

int corecap_run_cache_put_file(int dirfd, const char *name, const void *buf, size_t len)
{
	char tmp[128], tmp_path[192];
	size_t done = 0;
	bool registered;
	int fd, ret = 0;

	if ((uint64_t)len > max_bytes())
		return -EFBIG;
	fd = open_temp(dirfd, name, tmp, sizeof(tmp));
	if (fd < 0)
		return -EIO;
	snprintf(tmp_path, sizeof(tmp_path), "/proc/self/fd/%d/%s", dirfd, tmp);
	registered = corecap_exit_unlink_add(tmp_path);
	while (done < len && !ret) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			ret = n < 0 ? -errno : -EIO;
		else
			done += (size_t)n;
	}
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret)
		prune(dirfd, max_bytes(), len, name);
	/* rename replaces the file whole: a reader sees the old one or this one. */
	if (!ret && renameat(dirfd, tmp, dirfd, name))
		ret = -errno;
	if (ret)
		unlinkat(dirfd, tmp, 0);
	if (registered)
		corecap_exit_unlink_remove(tmp_path);
	return ret;
}

void corecap_run_cache_writer_free(struct run_cache_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	if (w->registered)
		corecap_exit_unlink_remove(w->tmp_path);
	if (!w->committed && w->tmp[0])
		unlinkat(w->dirfd, w->tmp, 0);
	for (size_t i = 0; i < w->n_blobs; i++)
		free(w->blob[i]);
	free(w->blob);
	free(w->blob_len);
	free(w->buf);
	corecap_u64map_release(&w->seen);
	free(w);
}
