#include "sym_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <corecap/diag.h>

#include "cache_dir.h"

#define MAGIC	    "CCSYMC\r\n"
#define HEADER_LEN  28
#define STR_NONE    0xffffu
#define KIND_FRAMES 1
#define KIND_DATA   2
#define KIND_OBJECT 3

/* How the directory's warnings name this cache (read/cache_dir.h). */
#define SYM_CACHE_WHAT	  "symbol cache"
#define SYM_CACHE_WITHOUT "symbolizing without it"

/* ---- the directory ---- */

static int cache_dirfd = -1;
static pthread_once_t cache_dir_once = PTHREAD_ONCE_INIT;

static int open_dir(void)
{
	const char *env = getenv("CORECAP_SYMCACHE");

	if (env && strcmp(env, "0") == 0)
		return -1;
	return corecap_cache_dir_open(NULL, SYM_CACHE_WHAT, SYM_CACHE_WITHOUT);
}

int corecap_sym_cache_open_dir(const char *dir)
{
	return corecap_cache_dir_check(dir, SYM_CACHE_WHAT, SYM_CACHE_WITHOUT);
}

static void look_at_dir(void)
{
	cache_dirfd = open_dir();
}

int corecap_sym_cache_dir(void)
{
	/* Once per process, whichever thread names first (one warning at most). */
	pthread_once(&cache_dir_once, look_at_dir);
	return cache_dirfd;
}

/* ---- records in memory ---- */

static size_t str_len(const char *s)
{
	return s ? strlen(s) : 0;
}

struct sym_cache_frames *corecap_sym_cache_pack(const struct sym_frame *f, size_t n)
{
	size_t size = sizeof(struct sym_cache_frames) + n * sizeof(f[0]);
	struct sym_cache_frames *out;
	char *p;

	for (size_t i = 0; i < n; i++)
		size += str_len(f[i].function) + 1 + (f[i].file ? strlen(f[i].file) + 1 : 0);
	out = malloc(size);
	if (!out)
		return NULL;
	out->n = n;
	p = (char *)&out->f[n];
	for (size_t i = 0; i < n; i++) {
		size_t len = str_len(f[i].function);

		out->f[i] = f[i];
		memcpy(p, f[i].function ? f[i].function : "", len + 1);
		out->f[i].function = p;
		p += len + 1;
		if (f[i].file) {
			len = strlen(f[i].file);
			memcpy(p, f[i].file, len + 1);
			out->f[i].file = p;
			p += len + 1;
		}
	}
	return out;
}

/* A record's size in the file. */
static size_t frames_bytes(const struct sym_frame *f, size_t n)
{
	size_t b = 1 + 8 + 1;

	for (size_t i = 0; i < n; i++)
		b += 2 + str_len(f[i].function) + 2 + str_len(f[i].file) + 4 + 1;
	return b;
}

static bool fits(const struct sym_cache *c, size_t bytes)
{
	return c->frames.len + c->data.len + c->objects.len < CORECAP_SYM_CACHE_MAX_RECS &&
	       HEADER_LEN + strlen(c->build_id) + strlen(c->source) + c->bytes + bytes <=
		       CORECAP_SYM_CACHE_MAX_FILE;
}

/* A string that the file can hold: shorter than STR_NONE. */
static bool storable(const char *s)
{
	return !s || strlen(s) < STR_NONE;
}

static int add_frames(struct sym_cache *c, uint64_t key, const struct sym_frame *f, size_t n)
{
	size_t bytes = frames_bytes(f, n);
	struct sym_cache_frames *p;
	bool added;
	uint64_t *slot;

	if (n > CORECAP_SYM_CACHE_MAX_N)
		return -ENOSPC;
	for (size_t i = 0; i < n; i++)
		if (!f[i].function || !storable(f[i].function) || !storable(f[i].file))
			return -ENOSPC;
	if (!fits(c, bytes))
		return -ENOSPC;
	if (corecap_u64map_find(&c->frames, key))
		return -EEXIST;
	p = corecap_sym_cache_pack(f, n);
	if (!p)
		return -ENOMEM;
	slot = corecap_u64map_upsert(&c->frames, key, &added);
	if (!slot) {
		free(p);
		return -ENOMEM;
	}
	*slot = (uint64_t)(uintptr_t)p;
	c->bytes += bytes;
	return 0;
}

/* A name record (data or object) into map. */
static int add_name(struct sym_cache *c, struct u64map *map, uint64_t key, const char *name)
{
	size_t bytes = 1 + 8 + 2 + str_len(name);
	uint64_t *slot;
	char *copy;

	if (!storable(name) || !fits(c, bytes))
		return -ENOSPC;
	if (corecap_u64map_find(map, key))
		return -EEXIST;
	copy = strdup(name ? name : "");
	if (!copy)
		return -ENOMEM;
	slot = corecap_u64map_upsert(map, key, NULL);
	if (!slot) {
		free(copy);
		return -ENOMEM;
	}
	*slot = (uint64_t)(uintptr_t)copy;
	c->bytes += bytes;
	return 0;
}

const struct sym_cache_frames *corecap_sym_cache_frames(const struct sym_cache *c, uint64_t key)
{
	const uint64_t *slot = corecap_u64map_find(&c->frames, key);

	return slot ? (const struct sym_cache_frames *)(uintptr_t)*slot : NULL;
}

int corecap_sym_cache_put_frames(struct sym_cache *c, uint64_t key, const struct sym_frame *f,
				 size_t n)
{
	int ret = add_frames(c, key, f, n);

	if (!ret)
		c->n_new++;
	return ret;
}

static bool find_name(const struct u64map *map, uint64_t key, const char **name)
{
	const uint64_t *slot = corecap_u64map_find(map, key);
	const char *v;

	if (!slot)
		return false;
	v = (const char *)(uintptr_t)*slot;
	*name = *v ? v : NULL;
	return true;
}

static int put_name(struct sym_cache *c, struct u64map *map, uint64_t key, const char *name)
{
	int ret;

	/* "" stands for none in memory: an empty name is not a name. */
	if (name && !*name)
		name = NULL;
	ret = add_name(c, map, key, name);
	if (!ret)
		c->n_new++;
	return ret;
}

bool corecap_sym_cache_data(const struct sym_cache *c, uint64_t key, const char **name)
{
	return find_name(&c->data, key, name);
}

int corecap_sym_cache_put_data(struct sym_cache *c, uint64_t key, const char *name)
{
	return put_name(c, &c->data, key, name);
}

bool corecap_sym_cache_object(const struct sym_cache *c, uint64_t key, const char **name)
{
	return find_name(&c->objects, key, name);
}

int corecap_sym_cache_put_object(struct sym_cache *c, uint64_t key, const char *name)
{
	return put_name(c, &c->objects, key, name);
}

static void clear(struct sym_cache *c)
{
	uint64_t v;

	for (size_t i = 0; corecap_u64map_next(&c->frames, &i, NULL, &v);)
		free((void *)(uintptr_t)v);
	for (size_t i = 0; corecap_u64map_next(&c->data, &i, NULL, &v);)
		free((void *)(uintptr_t)v);
	for (size_t i = 0; corecap_u64map_next(&c->objects, &i, NULL, &v);)
		free((void *)(uintptr_t)v);
	corecap_u64map_release(&c->frames);
	corecap_u64map_release(&c->data);
	corecap_u64map_release(&c->objects);
	corecap_u64map_init(&c->frames);
	corecap_u64map_init(&c->data);
	corecap_u64map_init(&c->objects);
	c->bytes = 0;
	c->n_new = 0;
}

void corecap_sym_cache_release(struct sym_cache *c)
{
	clear(c);
	corecap_u64map_release(&c->frames);
	corecap_u64map_release(&c->data);
	corecap_u64map_release(&c->objects);
	free(c->build_id);
	free(c->source);
	*c = (struct sym_cache){.dirfd = -1};
}

/* ---- the file ---- */

static uint32_t fnv1a(uint32_t h, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static uint32_t checksum(const struct sym_cache *c, const unsigned char *payload, size_t len)
{
	uint32_t h = 2166136261u;

	h = fnv1a(h, (const unsigned char *)c->build_id, strlen(c->build_id));
	h = fnv1a(h, (const unsigned char *)c->source, strlen(c->source));
	return fnv1a(h, payload, len);
}

/* A bounded reader: every take checks what is left first. */
struct cursor {
	const unsigned char *p, *end;
};

static bool take(struct cursor *r, size_t n, const unsigned char **out)
{
	if ((size_t)(r->end - r->p) < n)
		return false;
	*out = r->p;
	r->p += n;
	return true;
}

static bool get_u8(struct cursor *r, uint8_t *v)
{
	const unsigned char *b;

	if (!take(r, 1, &b))
		return false;
	*v = b[0];
	return true;
}

static bool get_u16(struct cursor *r, uint16_t *v)
{
	const unsigned char *b;

	if (!take(r, 2, &b))
		return false;
	*v = (uint16_t)(b[0] | b[1] << 8);
	return true;
}

static bool get_u32(struct cursor *r, uint32_t *v)
{
	const unsigned char *b;

	if (!take(r, 4, &b))
		return false;
	*v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	return true;
}

static bool get_u64(struct cursor *r, uint64_t *v)
{
	uint32_t lo, hi;

	if (!get_u32(r, &lo) || !get_u32(r, &hi))
		return false;
	*v = (uint64_t)hi << 32 | lo;
	return true;
}

/*
 * A str copied into the scratch s->buf at s->off (NUL-terminated): s is
 * sized to hold every string of a record, which the record's own bytes
 * bound. *none when it was absent.
 */
struct scratch {
	char *buf;
	size_t off;
};

static bool get_str(struct cursor *r, struct scratch *s, const char **out, bool *none)
{
	const unsigned char *b;
	uint16_t len;

	if (!get_u16(r, &len))
		return false;
	*none = len == STR_NONE;
	*out = NULL;
	if (*none)
		return true;
	if (!take(r, len, &b) || memchr(b, '\0', len))
		return false;
	memcpy(s->buf + s->off, b, len);
	s->buf[s->off + len] = '\0';
	*out = s->buf + s->off;
	s->off += (size_t)len + 1;
	return true;
}

static int parse_records(struct sym_cache *c, struct cursor *r, uint32_t n, const char **why)
{
	/* A record's strings take at most its bytes, plus a NUL each (two per frame). */
	struct scratch s = {malloc((size_t)(r->end - r->p) + 2 * CORECAP_SYM_CACHE_MAX_N + 1), 0};
	struct sym_frame f[CORECAP_SYM_CACHE_MAX_N];
	const char *str;
	int ret = -EINVAL;

	if (!s.buf)
		return -ENOMEM;
	*why = "a record is cut or malformed";
	for (uint32_t i = 0; i < n; i++) {
		uint8_t kind, nf, inl;
		uint64_t key;
		bool none;
		int added;

		s.off = 0;
		if (!get_u8(r, &kind) || !get_u64(r, &key))
			goto out;
		if (kind == KIND_FRAMES) {
			if (!get_u8(r, &nf) || nf > CORECAP_SYM_CACHE_MAX_N)
				goto out;
			for (uint8_t k = 0; k < nf; k++) {
				if (!get_str(r, &s, &str, &none) || none || !*str)
					goto out;
				f[k].function = str;
				if (!get_str(r, &s, &str, &none))
					goto out;
				f[k].file = str;
				if (!get_u32(r, &f[k].line) || !get_u8(r, &inl) || inl > 1)
					goto out;
				f[k].inlined = inl;
			}
			added = add_frames(c, key, f, nf);
		} else if (kind == KIND_DATA || kind == KIND_OBJECT) {
			if (!get_str(r, &s, &str, &none) || (!none && !*str))
				goto out;
			added = add_name(c, kind == KIND_DATA ? &c->data : &c->objects, key, str);
		} else {
			*why = "a record of an unknown kind";
			goto out;
		}
		if (added == -ENOMEM) {
			ret = -ENOMEM;
			goto out;
		}
		if (added) {
			*why = added == -EEXIST ? "an address twice" : "more than a cache holds";
			goto out;
		}
	}
	if (r->p != r->end) {
		*why = "bytes after the last record";
		goto out;
	}
	ret = 0;
out:
	free(s.buf);
	return ret;
}

int corecap_sym_cache_parse(struct sym_cache *c, const unsigned char *buf, size_t len,
			    const char **why)
{
	struct cursor r = {buf, buf + len};
	const unsigned char *magic, *bid, *src, *payload;
	uint32_t version, n, plen, sum;
	uint16_t bid_len, src_len;
	int ret;

	*why = "truncated";
	if (len > CORECAP_SYM_CACHE_MAX_FILE) {
		*why = "larger than a cache file may be";
		return -EINVAL;
	}
	if (!take(&r, 8, &magic) || !get_u32(&r, &version) || !get_u16(&r, &bid_len) ||
	    !get_u16(&r, &src_len) || !get_u32(&r, &n) || !get_u32(&r, &plen) || !get_u32(&r, &sum))
		return -EINVAL;
	if (memcmp(magic, MAGIC, 8) != 0) {
		*why = "not a corecap symbol cache";
		return -EINVAL;
	}
	if (version != CORECAP_SYM_CACHE_VERSION) {
		*why = "from another version of corecap";
		return -EINVAL;
	}
	if (!take(&r, bid_len, &bid) || !take(&r, src_len, &src) || !take(&r, plen, &payload))
		return -EINVAL;
	if (r.p != r.end) {
		*why = "bytes after its payload";
		return -EINVAL;
	}
	if (bid_len != strlen(c->build_id) || memcmp(bid, c->build_id, bid_len) != 0) {
		*why = "of another build-id";
		return -EINVAL;
	}
	if (src_len != strlen(c->source) || memcmp(src, c->source, src_len) != 0) {
		*why = "made by another corecap or from other debug information";
		return -EINVAL;
	}
	if (checksum(c, payload, plen) != sum) {
		*why = "its checksum does not match";
		return -EINVAL;
	}
	if (n > CORECAP_SYM_CACHE_MAX_RECS) {
		*why = "more records than a cache holds";
		return -EINVAL;
	}
	r = (struct cursor){payload, payload + plen};
	ret = parse_records(c, &r, n, why);
	if (ret)
		clear(c);
	return ret;
}

static bool is_hex(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

/* Reads dirfd's name into c; a file that is absent is an empty cache, quietly. */
static int read_file(struct sym_cache *c, const char *name)
{
	unsigned char *buf = NULL;
	const char *why;
	struct stat st;
	size_t got = 0;
	int fd, ret = 0;

	fd = openat(c->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		why = errno == ELOOP ? "a symbolic link, not followed" : strerror(errno);
		goto refused;
	}
	/* Its size first: no read goes past it, nor past the bound. */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		why = "not a regular file of yours";
		goto refused;
	}
	if (st.st_size > (off_t)CORECAP_SYM_CACHE_MAX_FILE) {
		why = "larger than a cache file may be";
		goto refused;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	ret = corecap_sym_cache_parse(c, buf, got, &why);
	if (ret == -ENOMEM)
		goto out;
	if (ret == 0)
		goto out;
refused:
	ret = 0;
	corecap_warn("symbol cache '%s': %s; ignored, rebuilt", name, why);
	/* Rewritten at the end even when nothing new is found. */
	c->n_new = 1;
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	return ret;
}

void corecap_sym_cache_file_name(const char *build_id, const char *source, char *out, size_t size)
{
	uint64_t h = 14695981039346656037ull;

	for (const char *p = source; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	snprintf(out, size, "%s-%016llx.sym", build_id, (unsigned long long)h);
}

int corecap_sym_cache_open(struct sym_cache *c, int dirfd, const char *build_id, const char *source)
{
	char name[CORECAP_SYM_CACHE_NAME_MAX];
	int ret;

	*c = (struct sym_cache){.dirfd = dirfd};
	corecap_u64map_init(&c->frames);
	corecap_u64map_init(&c->data);
	corecap_u64map_init(&c->objects);
	if (strlen(build_id) > CORECAP_SYM_CACHE_BID_MAX || !is_hex(build_id) ||
	    strlen(source) > CORECAP_SYM_CACHE_SRC_MAX)
		return -EINVAL;
	c->build_id = strdup(build_id);
	c->source = strdup(source);
	if (!c->build_id || !c->source) {
		corecap_sym_cache_release(c);
		return -ENOMEM;
	}
	if (dirfd < 0)
		return 0;
	corecap_sym_cache_file_name(build_id, source, name, sizeof(name));
	ret = read_file(c, name);
	if (ret)
		corecap_sym_cache_release(c);
	return ret;
}

/* ---- writing ---- */

struct out {
	unsigned char *p;
	size_t len, cap;
	bool failed;
};

static void put(struct out *o, const void *b, size_t n)
{
	if (o->failed || o->len + n > o->cap) {
		o->failed = true;
		return;
	}
	memcpy(o->p + o->len, b, n);
	o->len += n;
}

static void put_u8(struct out *o, uint8_t v)
{
	put(o, &v, 1);
}

static void put_u16(struct out *o, uint16_t v)
{
	unsigned char b[2] = {(unsigned char)v, (unsigned char)(v >> 8)};

	put(o, b, 2);
}

static void put_u32(struct out *o, uint32_t v)
{
	unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
			      (unsigned char)(v >> 24)};

	put(o, b, 4);
}

static void put_u64(struct out *o, uint64_t v)
{
	put_u32(o, (uint32_t)v);
	put_u32(o, (uint32_t)(v >> 32));
}

static void put_str(struct out *o, const char *s)
{
	if (!s) {
		put_u16(o, STR_NONE);
		return;
	}
	put_u16(o, (uint16_t)strlen(s));
	put(o, s, strlen(s));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* m's keys, sorted (the file's order: the same records give the same bytes), or NULL. */
static uint64_t *sorted_keys(const struct u64map *m)
{
	uint64_t *keys = malloc((m->len ? m->len : 1) * sizeof(*keys)), k;
	size_t n = 0;

	if (!keys)
		return NULL;
	for (size_t i = 0; corecap_u64map_next(m, &i, &k, NULL);)
		keys[n++] = k;
	qsort(keys, n, sizeof(*keys), cmp_u64);
	return keys;
}

unsigned char *corecap_sym_cache_serialize(const struct sym_cache *c, size_t *len)
{
	size_t bid = strlen(c->build_id), src = strlen(c->source);
	struct out o = {.cap = HEADER_LEN + bid + src + c->bytes};
	uint64_t *fkeys = sorted_keys(&c->frames), *dkeys = sorted_keys(&c->data),
		 *okeys = sorted_keys(&c->objects);

	o.p = fkeys && dkeys && okeys ? malloc(o.cap) : NULL;
	if (!o.p) {
		free(fkeys);
		free(dkeys);
		free(okeys);
		return NULL;
	}
	put(&o, MAGIC, 8);
	put_u32(&o, CORECAP_SYM_CACHE_VERSION);
	put_u16(&o, (uint16_t)bid);
	put_u16(&o, (uint16_t)src);
	put_u32(&o, (uint32_t)(c->frames.len + c->data.len + c->objects.len));
	put_u32(&o, (uint32_t)c->bytes);
	put_u32(&o, 0); /* the checksum, once the payload is there */
	put(&o, c->build_id, bid);
	put(&o, c->source, src);
	for (size_t i = 0; i < c->frames.len; i++) {
		const struct sym_cache_frames *f = corecap_sym_cache_frames(c, fkeys[i]);

		put_u8(&o, KIND_FRAMES);
		put_u64(&o, fkeys[i]);
		put_u8(&o, (uint8_t)f->n);
		for (size_t j = 0; j < f->n; j++) {
			put_str(&o, f->f[j].function);
			put_str(&o, f->f[j].file);
			put_u32(&o, f->f[j].line);
			put_u8(&o, f->f[j].inlined);
		}
	}
	for (size_t i = 0; i < c->data.len; i++) {
		const char *name =
			(const char *)(uintptr_t)*corecap_u64map_find(&c->data, dkeys[i]);

		put_u8(&o, KIND_DATA);
		put_u64(&o, dkeys[i]);
		put_str(&o, *name ? name : NULL);
	}
	for (size_t i = 0; i < c->objects.len; i++) {
		const char *name =
			(const char *)(uintptr_t)*corecap_u64map_find(&c->objects, okeys[i]);

		put_u8(&o, KIND_OBJECT);
		put_u64(&o, okeys[i]);
		put_str(&o, *name ? name : NULL);
	}
	free(fkeys);
	free(dkeys);
	free(okeys);
	if (o.failed || o.len != o.cap) {
		free(o.p);
		return NULL;
	}
	{
		uint32_t sum = checksum(c, o.p + HEADER_LEN + bid + src, c->bytes);
		struct out h = {.p = o.p + 24, .cap = 4};

		put_u32(&h, sum);
	}
	*len = o.len;
	return o.p;
}

int corecap_sym_cache_write(struct sym_cache *c)
{
	char name[CORECAP_SYM_CACHE_NAME_MAX], tmp[CORECAP_SYM_CACHE_NAME_MAX + 48];
	unsigned char *buf;
	size_t len, done = 0;
	struct timespec ts;
	int fd = -1, ret = 0;

	if (c->dirfd < 0 || !c->n_new)
		return 0;
	buf = corecap_sym_cache_serialize(c, &len);
	if (!buf)
		return -ENOMEM;
	corecap_sym_cache_file_name(c->build_id, c->source, name, sizeof(name));
	/* A name of our own beside it: O_EXCL, so that nobody else's file (or link) is written. */
	for (int attempt = 0; attempt < 8 && fd < 0; attempt++) {
		clock_gettime(CLOCK_REALTIME, &ts);
		snprintf(tmp, sizeof(tmp), ".%s.%ld.%ld.tmp", c->build_id, (long)getpid(),
			 (long)(ts.tv_nsec + attempt));
		fd = openat(c->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	while (done < len) {
		ssize_t w = write(fd, buf + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			ret = w < 0 ? -errno : -EIO;
			break;
		}
		done += (size_t)w;
	}
	if (close(fd) && !ret)
		ret = -errno;
	/* rename replaces the file whole: a reader sees the old one or this one. */
	if (ret || renameat(c->dirfd, tmp, c->dirfd, name)) {
		if (!ret)
			ret = -errno;
		unlinkat(c->dirfd, tmp, 0);
	}
	if (!ret)
		c->n_new = 0;
out:
	free(buf);
	return ret;
}
