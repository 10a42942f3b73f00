/* ceph_cache: see ceph_cache.h. */
#include "ceph_cache.h"

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../model/lines.h"
#include "run_cache.h"

#define MAGIC	   "CCOPHIS\n"
#define END_MAGIC  "CCOPHEND"
#define HEAD_LEN   16
#define TAIL_LEN   16
#define MAX_WARN   64
#define MAX_WARN_B 4096
#define MAX_PHASES 65536

void corecap_ceph_cache_key(const char *name, const void *bytes, size_t len, char *key, size_t size)
{
	snprintf(key, size,
		 "corecap " CORECAP_VERSION
		 "; OpTracker history cache %d\n%.200s %zu bytes %016llx\n",
		 CORECAP_CEPH_CACHE_VERSION, name, len,
		 (unsigned long long)corecap_run_cache_hash(bytes, len));
}

void corecap_ceph_cache_file_name(const char *key, char *out, size_t size)
{
	snprintf(out, size, "%016llx.oph",
		 (unsigned long long)corecap_run_cache_hash((const unsigned char *)key,
							    strlen(key)));
}

/* ---- writing ---- */

struct wbuf {
	unsigned char *p;
	size_t len, cap;
	bool failed;
};

static void w_bytes(struct wbuf *w, const void *p, size_t n)
{
	if (w->failed)
		return;
	if (w->len + n > w->cap) {
		size_t cap = w->cap ? w->cap : 4096;
		unsigned char *np;

		while (cap < w->len + n)
			cap *= 2;
		if (!(np = realloc(w->p, cap))) {
			w->failed = true;
			return;
		}
		w->p = np;
		w->cap = cap;
	}
	memcpy(w->p + w->len, p, n);
	w->len += n;
}

static void w_u8(struct wbuf *w, uint8_t v)
{
	w_bytes(w, &v, 1);
}

static void w_u32(struct wbuf *w, uint32_t v)
{
	v = htole32(v);
	w_bytes(w, &v, 4);
}

static void w_u64(struct wbuf *w, uint64_t v)
{
	v = htole64(v);
	w_bytes(w, &v, 8);
}

static void w_f64(struct wbuf *w, double d)
{
	uint64_t v;

	memcpy(&v, &d, 8);
	w_u64(w, v);
}

static void w_str(struct wbuf *w, const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	w_u32(w, (uint32_t)n);
	w_bytes(w, s, n);
}

int corecap_ceph_cache_encode(const struct ceph_files *c, const char *key, unsigned char **buf,
			      size_t *len)
{
	struct wbuf w = {0};

	*buf = NULL;
	*len = 0;
	w_bytes(&w, MAGIC, 8);
	w_u32(&w, CORECAP_CEPH_CACHE_VERSION);
	w_str(&w, key, CEPH_CACHE_KEY_MAX);
	w_u64(&w, c->history_size);
	w_u64(&w, c->ops_rejected);
	w_u64(&w, c->ops_bad_duration);
	w_u64(&w, c->n_ops);
	w_u8(&w, c->has_optracker);
	w_u8(&w, c->drain.drained);
	w_u8(&w, c->drain.stopped);
	w_u8(&w, 0);
	w_f64(&w, c->drain.ops_seen);
	w_f64(&w, c->drain.ops_kept);
	w_f64(&w, c->drain.slices);
	w_f64(&w, c->drain.sliced_ms);
	w_f64(&w, c->drain.window_ms);
	w_f64(&w, c->drain.longest_dump_ms);
	w_u32(&w, (uint32_t)c->n_warnings);
	for (size_t i = 0; i < c->n_warnings; i++)
		w_str(&w, c->warnings[i], MAX_WARN_B);
	w_u32(&w, (uint32_t)c->n_types);
	for (size_t i = 0; i < c->n_types; i++) {
		const struct ceph_op_type *t = &c->types[i];

		w_str(&w, t->name, sizeof(t->name) - 1);
		w_u64(&w, t->count);
		w_u64(&w, t->lat_avg_ns);
		w_u64(&w, t->lat_p50_ns);
		w_u64(&w, t->lat_p99_ns);
		w_u64(&w, t->reply_avg_ns);
		w_u64(&w, t->span_ns);
		w_u64(&w, t->reply_sum_ns);
		w_u32(&w, (uint32_t)t->n_phases);
		for (size_t k = 0; k < t->n_phases; k++) {
			w_str(&w, t->phases[k].name, sizeof(t->phases[k].name) - 1);
			w_u64(&w, t->phases[k].total_ns);
		}
	}
	w_u64(&w, c->n_spans);
	for (size_t i = 0; i < c->n_spans; i++) {
		w_u64(&w, c->spans[i].arrival_ns);
		w_u64(&w, c->spans[i].reply_ns);
		w_u32(&w, c->spans[i].type);
		w_u32(&w, c->spans[i].ev0);
		w_u32(&w, c->spans[i].n_ev);
		w_u64(&w, c->spans[i].reqid);
	}
	w_u64(&w, c->n_events);
	for (size_t i = 0; i < c->n_events; i++) {
		w_u64(&w, c->events[i].t_ns);
		w_u32(&w, c->events[i].phase);
	}
	if (!w.failed)
		w_u64(&w, corecap_run_cache_hash(w.p, w.len));
	w_bytes(&w, END_MAGIC, 8);
	if (w.failed) {
		free(w.p);
		return -ENOMEM;
	}
	*buf = w.p;
	*len = w.len;
	return 0;
}

/* ---- reading ---- */

struct rcur {
	const unsigned char *p, *end;
	bool bad;
};

static bool r_take(struct rcur *r, void *out, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		memset(out, 0, n);
		return false;
	}
	memcpy(out, r->p, n);
	r->p += n;
	return true;
}

static uint8_t r_u8(struct rcur *r)
{
	uint8_t v;

	r_take(r, &v, 1);
	return v;
}

static uint32_t r_u32(struct rcur *r)
{
	uint32_t v;

	r_take(r, &v, 4);
	return le32toh(v);
}

static uint64_t r_u64(struct rcur *r)
{
	uint64_t v;

	r_take(r, &v, 8);
	return le64toh(v);
}

static double r_f64(struct rcur *r)
{
	uint64_t v = r_u64(r);
	double d;

	memcpy(&d, &v, 8);
	return d;
}

/* A string of at most max bytes, without a NUL, into out[max + 1]. */
static void r_str(struct rcur *r, char *out, size_t max)
{
	uint32_t n = r_u32(r);

	if (r->bad || n > max || memchr(r->p, 0, n <= (size_t)(r->end - r->p) ? n : 0)) {
		r->bad = true;
		out[0] = 0;
		return;
	}
	if (r_take(r, out, n))
		out[n] = 0;
	else
		out[0] = 0;
}

/* An array of n records of rec bytes fits in what is left. */
static bool r_fits(struct rcur *r, uint64_t n, size_t rec)
{
	if (r->bad || n > (uint64_t)(r->end - r->p) / rec)
		r->bad = true;
	return !r->bad;
}

/* What decode allocated (ceph_files' release frees the same and more, but
 * ceph_files reads this module). */
static void drop(struct ceph_files *c)
{
	for (size_t i = 0; i < c->n_types; i++)
		free(c->types[i].phases);
	free(c->types);
	free(c->spans);
	free(c->events);
	corecap_lines_release(&c->warnings, &c->n_warnings);
	memset(c, 0, sizeof(*c));
}

static int decode(struct ceph_files *c, struct rcur *r, const char **why)
{
	uint64_t n_spans, n_events, counted = 0;
	uint32_t n;

	c->history_size = r_u64(r);
	c->ops_rejected = r_u64(r);
	c->ops_bad_duration = r_u64(r);
	c->n_ops = r_u64(r);
	c->has_optracker = r_u8(r);
	c->drain.drained = r_u8(r);
	c->drain.stopped = r_u8(r);
	r_u8(r);
	c->drain.ops_seen = r_f64(r);
	c->drain.ops_kept = r_f64(r);
	c->drain.slices = r_f64(r);
	c->drain.sliced_ms = r_f64(r);
	c->drain.window_ms = r_f64(r);
	c->drain.longest_dump_ms = r_f64(r);
	n = r_u32(r);
	if (n > MAX_WARN || !r_fits(r, n, 4)) {
		*why = "lengths out of bounds";
		return -EINVAL;
	}
	for (uint32_t i = 0; i < n && !r->bad; i++) {
		char s[MAX_WARN_B + 1];

		r_str(r, s, MAX_WARN_B);
		if (!r->bad && corecap_lines_add(&c->warnings, &c->n_warnings, "%s", s))
			return -ENOMEM;
	}
	n = r_u32(r);
	if (!r_fits(r, n, 4 + 7 * 8 + 4)) {
		*why = "lengths out of bounds";
		return -EINVAL;
	}
	if (n && !(c->types = calloc(n, sizeof(*c->types))))
		return -ENOMEM;
	for (uint32_t i = 0; i < n && !r->bad; i++) {
		struct ceph_op_type *t = &c->types[i];
		uint32_t np;

		c->n_types = i + 1; /* its phases freed by the release from here */
		r_str(r, t->name, sizeof(t->name) - 1);
		t->count = r_u64(r);
		t->lat_avg_ns = r_u64(r);
		t->lat_p50_ns = r_u64(r);
		t->lat_p99_ns = r_u64(r);
		t->reply_avg_ns = r_u64(r);
		t->span_ns = r_u64(r);
		t->reply_sum_ns = r_u64(r);
		np = r_u32(r);
		if (r->bad || !t->count || (i && t->count > c->types[i - 1].count) ||
		    np > MAX_PHASES || !r_fits(r, np, 4 + 8)) {
			*why = "an op type out of bounds";
			return -EINVAL;
		}
		counted += t->count;
		if (np && !(t->phases = calloc(np, sizeof(*t->phases))))
			return -ENOMEM;
		for (uint32_t k = 0; k < np && !r->bad; k++) {
			r_str(r, t->phases[k].name, sizeof(t->phases[k].name) - 1);
			t->phases[k].total_ns = r_u64(r);
		}
		t->n_phases = np;
	}
	if (r->bad || counted != c->n_ops || c->has_optracker != (n > 0)) {
		*why = "op types that do not add up";
		return -EINVAL;
	}
	n_spans = r_u64(r);
	if (!r_fits(r, n_spans, 36)) {
		*why = "lengths out of bounds";
		return -EINVAL;
	}
	if (n_spans && !(c->spans = malloc(n_spans * sizeof(*c->spans))))
		return -ENOMEM;
	for (uint64_t i = 0; i < n_spans; i++) {
		c->spans[i].arrival_ns = r_u64(r);
		c->spans[i].reply_ns = r_u64(r);
		c->spans[i].type = r_u32(r);
		c->spans[i].ev0 = r_u32(r);
		c->spans[i].n_ev = r_u32(r);
		c->spans[i].reqid = r_u64(r);
	}
	c->n_spans = n_spans;
	n_events = r_u64(r);
	if (!r_fits(r, n_events, 12) || n_events > UINT32_MAX) {
		*why = "lengths out of bounds";
		return -EINVAL;
	}
	if (n_events && !(c->events = malloc(n_events * sizeof(*c->events))))
		return -ENOMEM;
	for (uint64_t i = 0; i < n_events; i++) {
		c->events[i].t_ns = r_u64(r);
		c->events[i].phase = r_u32(r);
	}
	c->n_events = n_events;
	if (r->bad || r->p != r->end) {
		*why = "lengths out of bounds";
		return -EINVAL;
	}
	/* What the parse guarantees the models: see the header. */
	for (uint64_t i = 0; i < n_spans; i++) {
		const struct ceph_op_span *sp = &c->spans[i];

		if (sp->type >= c->n_types || sp->reply_ns <= sp->arrival_ns ||
		    (uint64_t)sp->ev0 + sp->n_ev > n_events ||
		    (i && sp->arrival_ns < c->spans[i - 1].arrival_ns)) {
			*why = "an op span out of bounds";
			return -EINVAL;
		}
		for (uint32_t k = 0; k < sp->n_ev; k++) {
			uint32_t ph = c->events[sp->ev0 + k].phase;

			if (ph != CEPH_NO_PHASE && ph >= c->types[sp->type].n_phases) {
				*why = "an op event out of bounds";
				return -EINVAL;
			}
		}
	}
	return 0;
}

int corecap_ceph_cache_decode(struct ceph_files *c, const unsigned char *buf, size_t len,
			      const char *key, const char **why)
{
	struct rcur r;
	uint32_t version;
	char k[CEPH_CACHE_KEY_MAX + 1];
	uint64_t hash;
	int ret;

	memset(c, 0, sizeof(*c));
	if (len < HEAD_LEN + TAIL_LEN || memcmp(buf, MAGIC, 8)) {
		*why = "not an OpTracker history cache file";
		return -EINVAL;
	}
	if (memcmp(buf + len - 8, END_MAGIC, 8)) {
		*why = "truncated";
		return -EINVAL;
	}
	r = (struct rcur){buf + 8, buf + len - TAIL_LEN, false};
	version = r_u32(&r);
	if (version != CORECAP_CEPH_CACHE_VERSION) {
		*why = "another version";
		return -EINVAL;
	}
	r_str(&r, k, CEPH_CACHE_KEY_MAX);
	if (r.bad || (key && strcmp(k, key))) {
		*why = r.bad ? "lengths out of bounds" : "another key";
		return -EINVAL;
	}
	memcpy(&hash, buf + len - TAIL_LEN, 8);
	if (le64toh(hash) != corecap_run_cache_hash(buf, len - TAIL_LEN)) {
		*why = "a bad hash";
		return -EINVAL;
	}
	ret = decode(c, &r, why);
	if (ret)
		drop(c);
	return ret;
}

int corecap_ceph_cache_load(int dirfd, const char *key, struct ceph_files *c)
{
	char name[64];
	const char *why = NULL;
	void *map;
	size_t len;
	int ret;

	memset(c, 0, sizeof(*c));
	corecap_ceph_cache_file_name(key, name, sizeof(name));
	if (corecap_run_cache_map(dirfd, name, HEAD_LEN + TAIL_LEN, &map, &len))
		return -ENOENT;
	madvise(map, len, MADV_SEQUENTIAL);
	ret = corecap_ceph_cache_decode(c, map, len, key, &why);
	munmap(map, len);
	if (ret == -EINVAL)
		corecap_run_cache_refused(name, why);
	if (!ret && corecap_run_cache_verbose())
		fprintf(stderr, "corecap: run cache: OpTracker history read from %s (%zu ops)\n",
			name, c->n_ops);
	return ret ? -ENOENT : 0;
}

void corecap_ceph_cache_store(int dirfd, const char *key, const struct ceph_files *c)
{
	char name[64];
	unsigned char *buf;
	size_t len;

	if (corecap_ceph_cache_encode(c, key, &buf, &len))
		return;
	corecap_ceph_cache_file_name(key, name, sizeof(name));
	if (!corecap_run_cache_put_file(dirfd, name, buf, len) && corecap_run_cache_verbose())
		fprintf(stderr,
			"corecap: run cache: OpTracker history kept in %s (%zu ops, %zu bytes)\n",
			name, c->n_ops, len);
	free(buf);
}
