#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <corecap/diag.h>
#include <json-c/json.h>

#include "../model/lines.h"
#include "ceph_cache.h"
#include "ceph_files.h"
#include "run_cache.h"
#include "run_file.h"
#include <corecap/run_format.h>

struct span_acc {
	struct ceph_op_span *v;
	size_t n, cap;
	struct ceph_op_event *ev;
	size_t n_ev, cap_ev;
};

struct type_acc {
	struct ceph_op_type t;
	uint64_t *lat_ns;
	size_t n_lat, cap_lat;
	uint64_t first_ns, last_ns;
};

/* NULL when absent (*ret 0); *ret < 0 and *err (if not set yet) when unreadable. */
static json_object *load_json(const char *run_dir, const char *name, int *ret, char **err)
{
	char path[4096], *why = NULL;
	json_object *o = NULL;

	snprintf(path, sizeof(path), "%s/" CORECAP_RUN_CEPH_DIR "/%s", run_dir, name);
	*ret = corecap_run_file_json(path, &o, &why);
	if (*ret == -ENOENT) {
		*ret = 0;
	} else if (*ret) {
		if (!*err)
			corecap_err(err, *ret, "cannot read %s", why ? why : strerror(-*ret));
		*ret = -EINVAL;
	}
	free(why);
	return o;
}

static void warn(struct ceph_files *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct ceph_files *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	corecap_lines_vadd(&c->warnings, &c->n_warnings, fmt, ap); /* out of memory: one less */
	va_end(ap);
}

/* A member of type t, or NULL. */
static json_object *member(json_object *o, const char *key, json_type t)
{
	json_object *v;

	return json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v) &&
			       json_object_is_type(v, t)
		       ? v
		       : NULL;
}

static bool number_of(json_object *v, double *out)
{
	if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
		return false;
	*out = json_object_get_double(v);
	return isfinite(*out);
}

/* "2026-11-29T21:11:30.123456+0000" -> ns since the epoch (0 if malformed).
 * All of one dump's times share the daemon's offset, and only their
 * differences are used. */
static uint64_t parse_time_ns(const char *s)
{
	struct tm tm = {0};
	char frac[16] = "";
	uint64_t us = 0;
	time_t secs;

	/* Field widths keep sscanf's conversions inside int; the ranges keep
	 * timegm() and the product below inside 64 bits. */
	if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d.%15[0-9]", &tm.tm_year, &tm.tm_mon,
			 &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, frac) < 7)
		return 0;
	if (tm.tm_year < 1970 || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 ||
	    tm.tm_mday > 31 || tm.tm_hour < 0 || tm.tm_hour > 23 || tm.tm_min < 0 ||
	    tm.tm_min > 59 || tm.tm_sec < 0 || tm.tm_sec > 60)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	/* Six digits of microseconds, padded with zeros if fewer. */
	for (int i = 0, end = 0; i < 6; i++) {
		end = end || !frac[i];
		us = us * 10 + (end ? 0 : (uint64_t)(frac[i] - '0'));
	}
	secs = timegm(&tm);
	if (secs <= 0)
		return 0;
	return (uint64_t)secs * 1000000000ull + us * 1000ull;
}

/*
 * The request id of a description, hashed (FNV-1a, never 0): the first
 * word in its parentheses when it has the shape NAME.N.N:N, as
 * "osd_op(client.4181.0:123 ..." and "osd_repop(client.4181.0:123 ..."
 * have; 0 otherwise.
 */
uint64_t corecap_ceph_reqid_of(const char *desc)
{
	const char *p = strchr(desc, '('), *colon, *dot;
	size_t n;
	uint64_t h = 1469598103934665603ull;

	if (!p)
		return 0;
	p++;
	n = strcspn(p, " )");
	colon = memchr(p, ':', n);
	dot = memchr(p, '.', n);
	if (!n || n > 64 || !colon || !dot || dot > colon || colon + 1 == p + n ||
	    strspn(colon + 1, "0123456789") != (size_t)(p + n - colon - 1))
		return 0;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h ? h : 1;
}

uint64_t corecap_ceph_files_event_ns(const struct ceph_files *c, const struct ceph_op_span *sp,
				     const char *prefix)
{
	size_t len = strlen(prefix);

	if (sp->type >= c->n_types)
		return 0;
	for (uint32_t k = 0; k < sp->n_ev; k++) {
		const struct ceph_op_event *e = &c->events[sp->ev0 + k];

		if (e->phase != CEPH_NO_PHASE &&
		    strncmp(c->types[sp->type].phases[e->phase].name, prefix, len) == 0)
			return e->t_ns;
	}
	return 0;
}

/* The op type of a description (see the header). */
static void op_type(const char *desc, char *out, size_t len)
{
	const char *b = strchr(desc, '['), *p, *paren = strchr(desc, '(');

	if (paren && strncmp(desc, "osd_op(", 7) == 0 && b) {
		p = b + 1;
		while (*p && *p != ']') {
			size_t n = strcspn(p, " ,]");

			if (!(n == 14 && strncmp(p, "set-alloc-hint", 14) == 0) && n > 0) {
				snprintf(out, len, "%.*s", (int)n, p);
				return;
			}
			p += n;
			p += strcspn(p, ",]");
			if (*p == ',')
				p++;
		}
	}
	snprintf(out, len, "%.*s", paren ? (int)(paren - desc) : (int)strlen(desc), desc);
}

/* The index of the phase, added if new; -ENOMEM. */
static int add_phase(struct ceph_op_type *t, const char *name, uint64_t ns)
{
	struct ceph_phase *p;

	for (size_t i = 0; i < t->n_phases; i++)
		if (strcmp(t->phases[i].name, name) == 0) {
			t->phases[i].total_ns += ns;
			return (int)i;
		}
	p = realloc(t->phases, (t->n_phases + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	t->phases = p;
	p = &t->phases[t->n_phases++];
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->total_ns = ns;
	return (int)(t->n_phases - 1);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_type(const void *a, const void *b)
{
	const struct ceph_op_type *x = a, *y = b;

	return (y->count > x->count) - (y->count < x->count);
}

static int add_event(struct span_acc *sp, uint64_t t_ns)
{
	if (sp->n_ev == sp->cap_ev) {
		size_t cap = sp->cap_ev ? 2 * sp->cap_ev : 1024;
		struct ceph_op_event *ne = realloc(sp->ev, cap * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		sp->ev = ne;
		sp->cap_ev = cap;
	}
	sp->ev[sp->n_ev++] = (struct ceph_op_event){t_ns, CEPH_NO_PHASE};
	return 0;
}

static int add_span(struct span_acc *sp, uint64_t arrival_ns, uint64_t reply_ns, size_t type,
		    size_t ev0, uint64_t reqid)
{
	if (sp->n == sp->cap) {
		size_t cap = sp->cap ? 2 * sp->cap : 256;
		struct ceph_op_span *nv = realloc(sp->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		sp->v = nv;
		sp->cap = cap;
	}
	sp->v[sp->n++] = (struct ceph_op_span){
		arrival_ns, reply_ns, (uint32_t)type, (uint32_t)ev0, (uint32_t)(sp->n_ev - ev0),
		reqid};
	return 0;
}

static int cmp_span(const void *a, const void *b)
{
	const struct ceph_op_span *x = a, *y = b;

	return (x->arrival_ns > y->arrival_ns) - (x->arrival_ns < y->arrival_ns);
}

/* The longest op duration taken as real: the OpTracker drops ops long before. */
#define MAX_OP_DURATION_S 1e6

/* One op of the history. An op without a usable description or duration
 * (negative, not a number, absurd) is rejected and counted, never averaged. */
static int add_op(struct ceph_files *c, struct type_acc **accs, size_t *n, struct span_acc *sp,
		  json_object *op)
{
	json_object *v, *td, *evs;
	char type[32];
	struct type_acc *a = NULL;
	uint64_t lat_ns, prev_ns = 0, first_ns = UINT64_MAX, reply_ns = 0, done_ns = 0;
	const char *prev_name = NULL;
	size_t ev0 = sp->n_ev;
	double dur_s;
	int ret = 0, idx;

	if (!(v = member(op, "description", json_type_string))) {
		c->ops_rejected++;
		return 0;
	}
	if (!json_object_object_get_ex(op, "duration", &td) || !number_of(td, &dur_s) ||
	    dur_s < 0 || dur_s > MAX_OP_DURATION_S) {
		c->ops_rejected++;
		c->ops_bad_duration++;
		return 0;
	}
	op_type(json_object_get_string(v), type, sizeof(type));
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*accs)[i].t.name, type) == 0)
			a = &(*accs)[i];
	if (!a) {
		struct type_acc *na = realloc(*accs, (*n + 1) * sizeof(**accs));

		if (!na)
			return -ENOMEM;
		*accs = na;
		a = &na[(*n)++];
		memset(a, 0, sizeof(*a));
		snprintf(a->t.name, sizeof(a->t.name), "%s", type);
	}
	lat_ns = (uint64_t)(dur_s * 1e9 + 0.5);
	if (a->n_lat == a->cap_lat) {
		size_t cap = a->cap_lat ? 2 * a->cap_lat : 256;
		uint64_t *nl = realloc(a->lat_ns, cap * sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		a->lat_ns = nl;
		a->cap_lat = cap;
	}
	a->lat_ns[a->n_lat++] = lat_ns;
	a->t.count++;
	if (!(td = member(op, "type_data", json_type_object)) ||
	    !(evs = member(td, "events", json_type_array)))
		return 0;
	for (size_t i = 0; i < json_object_array_length(evs) && ret == 0; i++) {
		json_object *e = json_object_array_get_idx(evs, i), *name, *time;
		uint64_t t_ns;

		if (!(name = member(e, "event", json_type_string)) ||
		    !(time = member(e, "time", json_type_string)))
			continue;
		t_ns = parse_time_ns(json_object_get_string(time));
		if (!t_ns)
			continue;
		if (i == 0 && (!a->first_ns || t_ns < a->first_ns))
			a->first_ns = t_ns;
		if (t_ns < first_ns)
			first_ns = t_ns;
		if (strcmp(json_object_get_string(name), "commit_sent") == 0)
			reply_ns = t_ns;
		else if (strcmp(json_object_get_string(name), "done") == 0)
			done_ns = t_ns;
		if (prev_name) {
			idx = add_phase(&a->t, prev_name, t_ns > prev_ns ? t_ns - prev_ns : 0);
			if (idx < 0)
				ret = idx;
			else
				sp->ev[sp->n_ev - 1].phase = (uint32_t)idx;
		}
		if (!ret)
			ret = add_event(sp, t_ns);
		prev_name = json_object_get_string(name);
		prev_ns = t_ns > prev_ns ? t_ns : prev_ns;
	}
	if (prev_ns > a->last_ns)
		a->last_ns = prev_ns;
	if (!reply_ns)
		reply_ns = done_ns;
	if (reply_ns && first_ns != UINT64_MAX && reply_ns > first_ns) {
		a->t.reply_sum_ns += reply_ns - first_ns;
		if (!ret)
			ret = add_span(sp, first_ns, reply_ns, (size_t)(a - *accs), ev0,
				       corecap_ceph_reqid_of(json_object_get_string(v)));
	} else {
		sp->n_ev = ev0; /* no span: its events go */
	}
	return ret;
}

static int load_optracker(struct ceph_files *c, json_object *h)
{
	json_object *ops;
	struct type_acc *accs = NULL;
	struct span_acc sp = {0};
	size_t n = 0;
	int ret = 0;

	if (!json_object_is_type(h, json_type_object) ||
	    !(ops = member(h, "ops", json_type_array))) {
		warn(c, CORECAP_RUN_CEPH_HISTORIC_OPS
		     " has no 'ops' array (not a dump_historic_ops of a "
		     "known layout): the OpTracker section is skipped");
		return 0;
	}
	for (size_t i = 0; i < json_object_array_length(ops) && ret == 0; i++)
		ret = add_op(c, &accs, &n, &sp, json_object_array_get_idx(ops, i));
	if ((ops = member(h, "size", json_type_int)) && json_object_get_int64(ops) > 0)
		c->history_size = (size_t)json_object_get_int64(ops);
	if ((ops = member(h, "corecap_drain", json_type_object))) {
		static const struct {
			const char *key;
			size_t off;
		} nums[] = {
			{"ops_seen", offsetof(struct ceph_files, drain.ops_seen)},
			{"ops_kept", offsetof(struct ceph_files, drain.ops_kept)},
			{"slices", offsetof(struct ceph_files, drain.slices)},
			{"sliced_ms", offsetof(struct ceph_files, drain.sliced_ms)},
			{"window_ms", offsetof(struct ceph_files, drain.window_ms)},
			{"longest_dump_ms", offsetof(struct ceph_files, drain.longest_dump_ms)},
		};
		json_object *v;

		c->drain.drained = true;
		for (size_t k = 0; k < sizeof(nums) / sizeof(nums[0]); k++)
			if (json_object_object_get_ex(ops, nums[k].key, &v))
				number_of(v, (double *)(void *)((char *)c + nums[k].off));
		c->drain.stopped = (v = member(ops, "stopped", json_type_boolean)) &&
				   json_object_get_boolean(v);
	}
	if (c->ops_rejected)
		warn(c,
		     CORECAP_RUN_CEPH_HISTORIC_OPS
		     ": %zu ops rejected (%zu with a negative, missing or "
		     "absurd duration, the others without a description)",
		     c->ops_rejected, c->ops_bad_duration);
	if (ret == 0 && n > 0) {
		c->types = calloc(n, sizeof(*c->types));
		if (!c->types)
			ret = -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct type_acc *a = &accs[i];
		uint64_t sum = 0;

		if (ret == 0) {
			qsort(a->lat_ns, a->n_lat, sizeof(*a->lat_ns), cmp_u64);
			for (size_t k = 0; k < a->n_lat; k++)
				sum += a->lat_ns[k];
			a->t.lat_avg_ns = sum / a->n_lat;
			a->t.reply_avg_ns = a->t.reply_sum_ns / a->n_lat;
			a->t.lat_p50_ns = a->lat_ns[(a->n_lat - 1) / 2];
			a->t.lat_p99_ns = a->lat_ns[(size_t)((double)(a->n_lat - 1) * 0.99)];
			a->t.span_ns = a->last_ns > a->first_ns ? a->last_ns - a->first_ns : 0;
			c->types[i] = a->t;
			c->n_ops += a->t.count;
		} else {
			free(a->t.phases);
		}
		free(a->lat_ns);
	}
	if (ret == 0) {
		c->n_types = n;
		if (n) /* qsort(NULL, 0) is undefined */
			qsort(c->types, n, sizeof(*c->types), cmp_type);
		c->has_optracker = n > 0;
		/* The spans named their type by its place before the sort. */
		for (size_t i = 0; i < sp.n; i++)
			for (size_t k = 0; k < n; k++)
				if (strcmp(c->types[k].name, accs[sp.v[i].type].t.name) == 0) {
					sp.v[i].type = (uint32_t)k;
					break;
				}
		if (sp.n)
			qsort(sp.v, sp.n, sizeof(*sp.v), cmp_span);
		c->spans = sp.v;
		c->n_spans = sp.n;
		c->events = sp.ev;
		c->n_events = sp.n_ev;
	} else {
		free(sp.v);
		free(sp.ev);
	}
	free(accs);
	return ret;
}

/* A counter's delta, end minus begin, if both are numbers of the same shape. */
static bool perf_delta(json_object *vb, json_object *ve, struct ceph_perf_counter *pc)
{
	double cb, ce, sb, se;

	if (json_object_is_type(ve, json_type_object)) {
		if (!number_of(member(ve, "avgcount", json_type_int), &ce) ||
		    !number_of(member(vb, "avgcount", json_type_int), &cb))
			return false;
		if (!json_object_object_get_ex(ve, "sum", &ve) || !number_of(ve, &se) ||
		    !json_object_object_get_ex(vb, "sum", &vb) || !number_of(vb, &sb))
			return false;
		pc->is_avg = true;
		pc->count_delta = ce - cb;
		pc->sum_s_delta = se - sb;
		return true;
	}
	if (!number_of(ve, &ce) || !number_of(vb, &cb))
		return false;
	pc->count_delta = ce - cb;
	return true;
}

/*
 * The object store's counters that time its disk I/O, kept as
 * "SECTION.KEY" where both dumps have them: BlueStore's kv_sync thread
 * (flush, commit, the two together) and its aio waits, FileStore's
 * journal. Another store, or an older layout, simply has none.
 */
static int load_store_perf(struct ceph_files *c, json_object *b, json_object *e)
{
	static const char *const keys[][2] = {
		{"bluestore", "kv_flush_lat"},
		{"bluestore", "kv_commit_lat"},
		{"bluestore", "kv_sync_lat"},
		{"bluestore", "state_aio_wait_lat"},
		{"bluestore", "state_deferred_aio_wait_lat"},
		{"bluestore", "deferred_write_ops"},
		{"filestore", "journal_latency"},
		{"filestore", "journal_wr"},
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_object *sb = member(b, keys[i][0], json_type_object),
			    *se = member(e, keys[i][0], json_type_object), *vb, *ve;
		struct ceph_perf_counter *p, pc = {0};

		if (!sb || !se || !json_object_object_get_ex(sb, keys[i][1], &vb) ||
		    !json_object_object_get_ex(se, keys[i][1], &ve) || !perf_delta(vb, ve, &pc))
			continue;
		snprintf(pc.name, sizeof(pc.name), "%s.%s", keys[i][0], keys[i][1]);
		p = realloc(c->perf, (c->n_perf + 1) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		c->perf = p;
		c->perf[c->n_perf++] = pc;
	}
	return 0;
}

static int load_perf(struct ceph_files *c, json_object *b, json_object *e)
{
	json_object *ob = member(b, "osd", json_type_object),
		    *oe = member(e, "osd", json_type_object);
	size_t skipped = 0;

	if (!ob || !oe) {
		warn(c,
		     CORECAP_RUN_CEPH_DIR
		     "/%s has no 'osd' object (not a perf dump of a known layout): the perf "
		     "counters are skipped",
		     !ob ? CORECAP_CEPH_PERF_BEGIN : CORECAP_CEPH_PERF_END);
		return 0;
	}
	json_object_object_foreach(oe, key, ve)
	{
		struct ceph_perf_counter *p, pc = {0};
		json_object *vb;

		/* The client ops' counters (op*) and the replica writes' (subop*). */
		if ((strncmp(key, "op", 2) != 0 && strncmp(key, "subop", 5) != 0) ||
		    !json_object_object_get_ex(ob, key, &vb))
			continue;
		if (!perf_delta(vb, ve, &pc)) {
			skipped++;
			continue;
		}
		snprintf(pc.name, sizeof(pc.name), "%s", key);
		p = realloc(c->perf, (c->n_perf + 1) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		c->perf = p;
		c->perf[c->n_perf++] = pc;
	}
	if (skipped)
		warn(c,
		     CORECAP_RUN_CEPH_DIR
		     "/perf-*.json: %zu op counters of an unknown shape skipped",
		     skipped);
	if (load_store_perf(c, b, e))
		return -ENOMEM;
	c->has_perf = c->n_perf > 0;
	return 0;
}

/*
 * The OpTracker part of c from the history file name (0 and nothing set
 * when absent): from the run cache when it holds this file's contents
 * (read/ceph_cache.h), else parsed, and then kept there. As load_json.
 */
static int load_history(struct ceph_files *c, const char *run_dir, const char *name, bool *found,
			char **err)
{
	char path[4096], key[CEPH_CACHE_KEY_MAX], *raw = NULL, *why = NULL;
	json_object *h = NULL;
	int dirfd = -1, ret;
	size_t len;

	*found = false;
	snprintf(path, sizeof(path), "%s/" CORECAP_RUN_CEPH_DIR "/%s", run_dir, name);
	ret = corecap_run_file_bytes(path, &raw, &len, &why);
	if (ret == -ENOENT)
		return 0;
	*found = true;
	if (!ret && corecap_run_cache_enabled() && (dirfd = corecap_run_cache_dir()) >= 0) {
		corecap_ceph_cache_key(name, raw, len, key, sizeof(key));
		if (corecap_ceph_cache_load(dirfd, key, c) == 0)
			goto out;
	}
	if (!ret)
		ret = corecap_run_file_json_bytes(path, raw, len, &h, &why);
	if (ret) {
		corecap_err(err, ret, "cannot read %s", why ? why : strerror(-ret));
		ret = -EINVAL;
		goto out;
	}
	ret = load_optracker(c, h);
	if (!ret && dirfd >= 0)
		corecap_ceph_cache_store(dirfd, key, c);
out:
	json_object_put(h);
	free(raw);
	free(why);
	return ret;
}

int corecap_ceph_files_load(struct ceph_files *c, const char *run_dir, char **err)
{
	json_object *b, *e;
	bool found;
	int ret, err_b, err_e;

	memset(c, 0, sizeof(*c));
	*err = NULL;
	/* The collector's zstd-compressed history, or an earlier one's plain file. */
	ret = load_history(c, run_dir, CORECAP_CEPH_HISTORIC_OPS_ZST, &found, err);
	if (!found)
		ret = load_history(c, run_dir, CORECAP_CEPH_HISTORIC_OPS, &found, err);
	b = load_json(run_dir, CORECAP_CEPH_PERF_BEGIN, &err_b, err);
	e = load_json(run_dir, CORECAP_CEPH_PERF_END, &err_e, err);
	if (!ret)
		ret = err_b ? err_b : err_e;
	if (!ret && b && e)
		ret = load_perf(c, b, e);
	if (ret < 0) {
		if (!*err)
			corecap_err(err, ret, "cannot read '%s/" CORECAP_RUN_CEPH_DIR "'", run_dir);
		corecap_ceph_files_release(c);
	}
	json_object_put(b);
	json_object_put(e);
	return ret;
}

int corecap_ceph_files_parse(struct ceph_files *c, json_object *historic, json_object *perf_begin,
			     json_object *perf_end)
{
	int ret = 0;

	if (historic)
		ret = load_optracker(c, historic);
	if (!ret && perf_begin && perf_end)
		ret = load_perf(c, perf_begin, perf_end);
	if (ret < 0)
		corecap_ceph_files_release(c);
	return ret;
}

void corecap_ceph_files_release(struct ceph_files *c)
{
	for (size_t i = 0; i < c->n_types; i++)
		free(c->types[i].phases);
	free(c->types);
	free(c->spans);
	free(c->events);
	free(c->perf);
	corecap_lines_release(&c->warnings, &c->n_warnings);
	memset(c, 0, sizeof(*c));
}

const struct ceph_perf_counter *corecap_ceph_files_perf(const struct ceph_files *c,
							const char *name)
{
	for (size_t i = 0; i < c->n_perf; i++)
		if (strcmp(c->perf[i].name, name) == 0)
			return &c->perf[i];
	return NULL;
}

bool corecap_ceph_files_complete(const struct ceph_files *c)
{
	if (!c->drain.drained)
		return c->n_ops < c->history_size;
	/* Every op drained kept, and slices over (nearly) the whole window. */
	return !c->drain.stopped && c->drain.ops_kept >= c->drain.ops_seen &&
	       c->drain.window_ms > 0 && c->drain.sliced_ms >= 0.95 * c->drain.window_ms;
}
