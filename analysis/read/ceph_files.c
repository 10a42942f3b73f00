#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "ceph_files.h"

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

static json_object *load_json(const char *run_dir, const char *name, int *err)
{
	char path[4096];
	json_object *o;

	*err = 0;
	snprintf(path, sizeof(path), "%s/ceph/%s", run_dir, name);
	if (access(path, F_OK) != 0)
		return NULL;
	o = json_object_from_file(path);
	if (!o) {
		fprintf(stderr, "corecap: cannot read '%s': not valid JSON (truncated?)\n", path);
		*err = -EINVAL;
	}
	return o;
}

/* "2026-11-29T21:11:30.123456+0000" -> ns since the epoch (0 if malformed).
 * All of one dump's times share the daemon's offset, and only their
 * differences are used. */
static uint64_t parse_time_ns(const char *s)
{
	struct tm tm = {0};
	char frac[16] = "";
	uint64_t us = 0;

	if (!s || sscanf(s, "%d-%d-%dT%d:%d:%d.%15[0-9]", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
			 &tm.tm_hour, &tm.tm_min, &tm.tm_sec, frac) < 7)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	/* Six digits of microseconds, padded with zeros if fewer. */
	for (int i = 0, end = 0; i < 6; i++) {
		end = end || !frac[i];
		us = us * 10 + (end ? 0 : (uint64_t)(frac[i] - '0'));
	}
	return (uint64_t)timegm(&tm) * 1000000000ull + us * 1000ull;
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
		    size_t ev0)
{
	if (sp->n == sp->cap) {
		size_t cap = sp->cap ? 2 * sp->cap : 256;
		struct ceph_op_span *nv = realloc(sp->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		sp->v = nv;
		sp->cap = cap;
	}
	sp->v[sp->n++] = (struct ceph_op_span){arrival_ns, reply_ns, (uint32_t)type, (uint32_t)ev0,
					       (uint32_t)(sp->n_ev - ev0)};
	return 0;
}

static int cmp_span(const void *a, const void *b)
{
	const struct ceph_op_span *x = a, *y = b;

	return (x->arrival_ns > y->arrival_ns) - (x->arrival_ns < y->arrival_ns);
}

static int add_op(struct type_acc **accs, size_t *n, struct span_acc *sp, json_object *op)
{
	json_object *v, *td, *evs;
	char type[32];
	struct type_acc *a = NULL;
	uint64_t lat_ns, prev_ns = 0, first_ns = UINT64_MAX, reply_ns = 0, done_ns = 0;
	const char *prev_name = NULL;
	size_t ev0 = sp->n_ev;
	int ret = 0, idx;

	if (!json_object_object_get_ex(op, "description", &v))
		return 0;
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
	lat_ns = json_object_object_get_ex(op, "duration", &v)
			 ? (uint64_t)(json_object_get_double(v) * 1e9 + 0.5)
			 : 0;
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
	if (!json_object_object_get_ex(op, "type_data", &td) ||
	    !json_object_object_get_ex(td, "events", &evs) ||
	    !json_object_is_type(evs, json_type_array))
		return 0;
	for (size_t i = 0; i < json_object_array_length(evs) && ret == 0; i++) {
		json_object *e = json_object_array_get_idx(evs, i), *name, *time;
		uint64_t t_ns;

		if (!json_object_object_get_ex(e, "event", &name) ||
		    !json_object_object_get_ex(e, "time", &time))
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
			ret = add_span(sp, first_ns, reply_ns, (size_t)(a - *accs), ev0);
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

	if (json_object_object_get_ex(h, "size", &ops))
		c->history_size = (size_t)json_object_get_int64(ops);
	if (!json_object_object_get_ex(h, "ops", &ops) ||
	    !json_object_is_type(ops, json_type_array))
		return 0;
	for (size_t i = 0; i < json_object_array_length(ops) && ret == 0; i++)
		ret = add_op(&accs, &n, &sp, json_object_array_get_idx(ops, i));
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
		qsort(c->types, n, sizeof(*c->types), cmp_type);
		c->has_optracker = n > 0;
		/* The spans named their type by its place before the sort. */
		for (size_t i = 0; i < sp.n; i++)
			for (size_t k = 0; k < n; k++)
				if (strcmp(c->types[k].name, accs[sp.v[i].type].t.name) == 0) {
					sp.v[i].type = (uint32_t)k;
					break;
				}
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

static int load_perf(struct ceph_files *c, json_object *b, json_object *e)
{
	json_object *ob, *oe;

	if (!json_object_object_get_ex(b, "osd", &ob) || !json_object_object_get_ex(e, "osd", &oe))
		return 0;
	json_object_object_foreach(oe, key, ve)
	{
		struct ceph_perf_counter *p, pc = {0};
		json_object *vb, *cb, *ce, *sb, *se;

		if (strncmp(key, "op", 2) != 0 || !json_object_object_get_ex(ob, key, &vb))
			continue;
		snprintf(pc.name, sizeof(pc.name), "%s", key);
		if (json_object_is_type(ve, json_type_object)) {
			if (!json_object_object_get_ex(ve, "avgcount", &ce) ||
			    !json_object_object_get_ex(vb, "avgcount", &cb) ||
			    !json_object_object_get_ex(ve, "sum", &se) ||
			    !json_object_object_get_ex(vb, "sum", &sb))
				continue;
			pc.is_avg = true;
			pc.count_delta = json_object_get_double(ce) - json_object_get_double(cb);
			pc.sum_s_delta = json_object_get_double(se) - json_object_get_double(sb);
		} else {
			pc.count_delta = json_object_get_double(ve) - json_object_get_double(vb);
		}
		p = realloc(c->perf, (c->n_perf + 1) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		c->perf = p;
		c->perf[c->n_perf++] = pc;
	}
	c->has_perf = c->n_perf > 0;
	return 0;
}

int corecap_ceph_files_load(struct ceph_files *c, const char *run_dir)
{
	json_object *h, *b = NULL, *e = NULL;
	int ret, err;

	memset(c, 0, sizeof(*c));
	h = load_json(run_dir, "historic_ops.json", &ret);
	if (h) {
		ret = load_optracker(c, h);
		json_object_put(h);
	}
	if (ret < 0)
		goto out;
	b = load_json(run_dir, "perf-begin.json", &ret);
	e = load_json(run_dir, "perf-end.json", &err);
	if (ret == 0)
		ret = err;
	if (ret == 0 && b && e)
		ret = load_perf(c, b, e);
	json_object_put(b);
	json_object_put(e);
out:
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
