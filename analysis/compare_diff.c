#include "compare_diff.h"
#include "model/lines.h"
#include "util/grow.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <corecap/run_format.h>

#define PER_OP "per op (whole daemon)"

static struct compare_row *add(struct compare_diff *d, const char *section, const char *key,
			       const char *label, int decimals)
{
	struct compare_row *r;

	if (corecap_grow((void **)&d->v, &d->cap, d->n + 1, sizeof(*d->v)))
		return NULL;
	r = &d->v[d->n++];
	*r = (struct compare_row){.decimals = decimals};
	snprintf(r->section, sizeof(r->section), "%s", section);
	snprintf(r->key, sizeof(r->key), "%s", key);
	snprintf(r->label, sizeof(r->label), "%s", label);
	return r;
}

/* The row (section, key), created on first use; NULL when out of memory. */
static struct compare_row *row(struct compare_diff *d, const char *section, const char *key,
			       const char *label, int decimals)
{
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->v[i].section, section) == 0 && strcmp(d->v[i].key, key) == 0)
			return &d->v[i];
	return add(d, section, key, label, decimals);
}

/* Sets side s of (section, key); -ENOMEM when the row cannot be made. */
static int set(struct compare_diff *d, int s, const char *section, const char *key,
	       const char *label, int decimals, double v)
{
	struct compare_row *r = row(d, section, key, label, decimals);

	if (!r)
		return -ENOMEM;
	r->v[s] = v;
	r->has[s] = true;
	return 0;
}

/* A row that exists for both runs but one may not measure: created, unset. */
static int declare(struct compare_diff *d, const char *section, const char *key, const char *label,
		   int decimals)
{
	return row(d, section, key, label, decimals) ? 0 : -ENOMEM;
}

static int bench_rows(struct compare_diff *d, int s, const struct report *r)
{
	static const struct {
		const char *json, *key, *label;
		double scale;
		int decimals;
	} keys[] = {
		{"iops_avg", "iops", "IOPS", 1, 0},
		{"lat_avg_s", "latency_avg_ms", "latency avg ms", 1e3, 3},
		{"lat_p50_s", "latency_p50_ms", "latency p50 ms", 1e3, 3},
		{"lat_p99_s", "latency_p99_ms", "latency p99 ms", 1e3, 3},
		{"lat_p999_s", "latency_p999_ms", "latency p99.9 ms", 1e3, 3},
		{"lat_max_s", "latency_max_ms", "latency max ms", 1e3, 3},
	};
	json_object *sum = r->manifest ? r->manifest->summary : NULL, *v;
	int ret = 0;

	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys) && !ret; i++) {
		ret = declare(d, "benchmark", keys[i].key, keys[i].label, keys[i].decimals);
		if (!ret && sum && json_object_object_get_ex(sum, keys[i].json, &v) &&
		    (json_object_is_type(v, json_type_double) ||
		     json_object_is_type(v, json_type_int)))
			ret = set(d, s, "benchmark", keys[i].key, keys[i].label, keys[i].decimals,
				  json_object_get_double(v) * keys[i].scale);
	}
	if (!ret && sum && json_object_object_get_ex(sum, "iops_avg", &v)) {
		d->tot[s].has_iops = true;
		d->tot[s].iops = json_object_get_double(v);
	}
	return ret;
}

/* Whether run s measures category c of an op's time. */
static bool cat_measured(const struct compare_sources *src, enum op_cat c)
{
	switch (c) {
	case CAT_LOCK_WAIT:
	case CAT_COND_WAIT:
	case CAT_IO:
		return src->shim; /* waits only the shim sees */
	default:
		return true;
	}
}

static int op_rows(struct compare_diff *d, int s, const struct report *r)
{
	const struct op_table *t = &r->model->ops;
	uint64_t w = corecap_model_window_ns(r->model);
	struct compare_totals *tot = &d->tot[s];
	char section[64];
	int ret;

	/* A run without a trace has no op figures: its side stays "not measured". */
	ret = declare(d, "traced", "ops_per_s", "ops/s", 0);
	if (ret || !corecap_model_has_ops(r->model))
		return ret;
	tot->ops_per_s = w ? (double)t->finished * 1e9 / (double)w : 0;
	ret = set(d, s, "traced", "ops_per_s", "ops/s", 0, tot->ops_per_s);
	for (int c = 0; c < CAT__COUNT; c++)
		tot->cat_measured[c] = cat_measured(&d->src[s], (enum op_cat)c);
	for (size_t i = 0; i < t->n_types && !ret; i++) {
		const struct op_type *ty = &t->types[i];
		double n = (double)ty->hist.count;

		if (!ty->hist.count)
			continue;
		tot->has_ops = true;
		tot->ops += n;
		tot->latency_ns += (double)ty->hist.sum_ns;
		snprintf(section, sizeof(section), "op %s", ty->name ? ty->name : "?");
		ret = set(d, s, section, "count", "ops", 0, n);
		if (!ret)
			ret = set(d, s, section, "latency_avg_us", "latency avg us", 1,
				  (double)ty->hist.sum_ns / n / 1e3);
		if (!ret)
			ret = set(d, s, section, "latency_p50_us", "latency p50 us", 1,
				  corecap_latency_hist_quantile(&ty->hist, 0.5) / 1e3);
		if (!ret)
			ret = set(d, s, section, "latency_p99_us", "latency p99 us", 1,
				  corecap_latency_hist_quantile(&ty->hist, 0.99) / 1e3);
		if (!ret)
			ret = set(d, s, section, "latency_p999_us", "latency p99.9 us", 1,
				  corecap_latency_hist_quantile(&ty->hist, 0.999) / 1e3);
		for (int c = 0; c < CAT__COUNT && !ret; c++) {
			char key[64], label[64];

			snprintf(key, sizeof(key), "%s_us", corecap_op_cat_name((enum op_cat)c));
			snprintf(label, sizeof(label), "  %s us/op",
				 corecap_op_cat_name((enum op_cat)c));
			tot->cat_ns[c] += (double)ty->cat_ns[c];
			ret = tot->cat_measured[c] ? set(d, s, section, key, label, 1,
							 (double)ty->cat_ns[c] / n / 1e3)
						   : declare(d, section, key, label, 1);
		}
	}
	return ret;
}

static int pool_rows(struct compare_diff *d, int s, const struct report *r)
{
	const struct pool_table *p = r->pools;
	uint64_t w = corecap_model_window_ns(r->model);
	char section[64];
	int ret = 0;

	if (p->n_sampled && w)
		ret = set(d, s, "daemon", "cores_used", "cores used", 2,
			  (double)p->cpu_ns / (double)w);
	for (size_t i = 0; i < p->len && !ret; i++) {
		const struct model_pool *pl = &p->pools[i];

		if (!pl->span_ns)
			continue;
		snprintf(section, sizeof(section), "pool %s", pl->name);
		ret = set(d, s, section, "threads", "threads", 0, (double)pl->n_threads);
		if (!ret)
			ret = set(d, s, section, "cpu_pct", "cpu % of the pool", 1,
				  100 * pl->cpu_util);
		if (!ret)
			ret = set(d, s, section, "busy_pct", "busy % (cpu + run queue)", 1,
				  100 * pl->busy_util);
		if (!ret && pl->n_kstates == pl->n_threads && pl->k_span_ns) {
			/* Exact states from kernel events. */
			ret = set(d, s, section, "futex_pct", "futex wait % (kernel)", 1,
				  100.0 * (double)pl->k_futex_ns / (double)pl->k_span_ns);
			if (!ret)
				ret = set(d, s, section, "blocked_pct", "blocked % (kernel)", 1,
					  100.0 * (double)pl->k_blocked_ns / (double)pl->k_span_ns);
		}
		if (ret || !corecap_model_has_thread_waits(r->model))
			continue;
		ret = set(d, s, section, "logging_pct", "logging %", 1,
			  100.0 * (double)pl->logging_ns / (double)pl->span_ns);
		if (!ret)
			ret = d->src[s].shim
				      ? set(d, s, section, "lock_wait_pct", "lock wait %", 1,
					    100.0 * (double)pl->lock_wait_ns / (double)pl->span_ns)
				      : declare(d, section, "lock_wait_pct", "lock wait %", 1);
	}
	return ret;
}

bool corecap_compare_run_ops(const struct report *r, double *ops)
{
	uint64_t w = corecap_model_window_ns(r->model);
	json_object *sum = r->manifest ? r->manifest->summary : NULL, *v;

	/* Its traced (or detected) ops, else the ops the benchmark made (its
	 * run is the window), else its IOPS times the window. */
	if (r->model->ops.finished) {
		*ops = (double)r->model->ops.finished;
		return true;
	}
	if (sum && json_object_object_get_ex(sum, "ops", &v) && json_object_get_double(v) > 0) {
		*ops = json_object_get_double(v);
		return true;
	}
	if (sum && json_object_object_get_ex(sum, "iops_avg", &v) && w) {
		*ops = json_object_get_double(v) * (double)w / 1e9;
		return *ops > 0;
	}
	return false;
}

/*
 * The whole daemon's costs per op, comparable between different daemons:
 * CPU (threads.tsv), lock waits and their time (the shim's counters, else
 * the trace), logging (the trace: log I/O, waits at logging sites, log
 * calls), I/O calls the shim wrapped, context switches (threads.tsv).
 */
static int per_op_rows(struct compare_diff *d, int s, const struct report *r)
{
	uint64_t logging_ns = 0, waits = 0, wait_ns = 0;
	double ops;
	int ret;

	if (!corecap_compare_run_ops(r, &ops))
		return 0;
	for (size_t i = 0; i < r->model->threads.len; i++)
		logging_ns += r->model->threads.all[i]->logging_ns;
	for (size_t i = 0; i < r->model->locks.len; i++) {
		waits += r->model->locks.all[i]->contentions;
		wait_ns += r->model->locks.all[i]->wait_ns;
	}
	if (r->has_stats) {
		waits = r->shim_contentions;
		wait_ns = r->shim_lock_wait_ns;
	}
	ret = set(d, s, PER_OP, "ops", "ops (traced, else bench)", 0, ops);
	if (!ret)
		ret = r->pools->n_sampled ? set(d, s, PER_OP, "cpu_us", "cpu us/op", 1,
						(double)r->pools->cpu_ns / ops / 1e3)
					  : declare(d, PER_OP, "cpu_us", "cpu us/op", 1);
	if (!ret && d->src[s].shim) {
		ret = set(d, s, PER_OP, "lock_waits", "lock waits/op", 3, (double)waits / ops);
		if (!ret)
			ret = set(d, s, PER_OP, "lock_wait_us", "lock wait us/op", 2,
				  (double)wait_ns / ops / 1e3);
	} else if (!ret) {
		ret = declare(d, PER_OP, "lock_waits", "lock waits/op", 3);
		if (!ret)
			ret = declare(d, PER_OP, "lock_wait_us", "lock wait us/op", 2);
	}
	if (!ret)
		ret = r->model->q.events ? set(d, s, PER_OP, "logging_us", "logging us/op", 2,
					       (double)logging_ns / ops / 1e3)
					 : declare(d, PER_OP, "logging_us", "logging us/op", 2);
	if (!ret)
		ret = r->has_stats ? set(d, s, PER_OP, "syscalls", "I/O syscalls/op", 2,
					 (double)r->shim_io_calls / ops)
				   : declare(d, PER_OP, "syscalls", "I/O syscalls/op", 2);
	if (!ret && r->has_ctx_switches)
		ret = set(d, s, PER_OP, "ctx_switches", "context switches/op", 2,
			  (double)r->ctx_switches / ops);
	return ret;
}

/* The OpTracker's op types and phases, compared only when both runs have them. */
static int ceph_rows(struct compare_diff *d, int s, const struct report *r)
{
	const struct ceph_files *c = r->ceph;
	char section[96], key[64], label[96];
	int ret = 0;

	for (size_t i = 0; i < c->n_types && !ret; i++) {
		const struct ceph_op_type *t = &c->types[i];
		double n = (double)t->count;

		if (!t->count)
			continue;
		snprintf(section, sizeof(section), "ceph op %s", t->name);
		ret = set(d, s, section, "count", "ops (OpTracker)", 0, n);
		if (!ret)
			ret = set(d, s, section, "latency_avg_us", "duration avg us", 1,
				  (double)t->lat_avg_ns / 1e3);
		if (!ret)
			ret = set(d, s, section, "latency_p99_us", "duration p99 us", 1,
				  (double)t->lat_p99_ns / 1e3);
		if (!ret)
			ret = set(d, s, section, "reply_avg_us", "arrival to reply avg us", 1,
				  (double)t->reply_avg_ns / 1e3);
		for (size_t k = 0; k < t->n_phases && !ret; k++) {
			snprintf(key, sizeof(key), "phase_%s_us", t->phases[k].name);
			snprintf(label, sizeof(label), "  %s us/op", t->phases[k].name);
			ret = set(d, s, section, key, label, 1,
				  (double)t->phases[k].total_ns / n / 1e3);
		}
	}
	return ret;
}

static const char *daemon_of(const struct report *r)
{
	return r->manifest && r->manifest->comm ? r->manifest->comm : "?";
}

bool corecap_compare_same_daemon(const struct compare_diff *d)
{
	return strcmp(d->daemon[0], d->daemon[1]) == 0;
}

static void sources_of(const struct report *r, struct compare_sources *s)
{
	s->trace = r->model->src.trace;
	/* The shim leaves its counters (stats) or lock events in the trace. */
	s->shim = r->has_stats || r->model->locks.len > 0;
	s->kernel = r->model->src.kernel || r->model->src.futex;
	s->optracker = r->ceph && r->ceph->has_optracker;
}

static int warn(struct compare_diff *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int warn(struct compare_diff *d, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = corecap_lines_vadd(&d->warnings, &d->n_warnings, fmt, ap);
	va_end(ap);
	return ret;
}

/* "the shim, the trace" for what a has and b lacks; "" when nothing. */
static void lacks(const struct compare_sources *a, const struct compare_sources *b, char *buf,
		  size_t len)
{
	const struct {
		bool x, y;
		const char *name;
	} v[] = {
		{a->shim, b->shim, "the shim (lock, cond and I/O waits)"},
		{a->trace, b->trace, "the trace (ops, logging)"},
		{a->kernel, b->kernel, "kernel events (thread states, futex locks)"},
	};
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]) && n < len; i++)
		if (v[i].x && !v[i].y)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", v[i].name);
}

static int warnings(struct compare_diff *d)
{
	char only[2][256];
	int ret = 0;

	if (!corecap_compare_same_daemon(d))
		ret = warn(d,
			   "different daemons: %s and %s; their op types, pools and locks are "
			   "their own, so compare them per op (whole daemon)",
			   d->daemon[0], d->daemon[1]);
	lacks(&d->src[0], &d->src[1], only[0], sizeof(only[0]));
	lacks(&d->src[1], &d->src[0], only[1], sizeof(only[1]));
	for (int s = 0; s < 2 && !ret; s++)
		if (only[s][0])
			ret = warn(d,
				   "different sources: only %c has %s; what %c did not measure "
				   "reads \"not measured\"",
				   'A' + s, only[s], s ? 'A' : 'B');
	if (!ret && d->src[0].optracker != d->src[1].optracker)
		ret = warn(d,
			   "only %c has Ceph's OpTracker history: its op types and phases are "
			   "not compared",
			   d->src[0].optracker ? 'A' : 'B');
	return ret;
}

/* A change in us, signed, to 0.1 us (the headline leaves out smaller ones). */
static int put_us(char *buf, size_t len, double v)
{
	return snprintf(buf, len, "%+.1f", v);
}

void corecap_compare_headline(const struct compare_totals t[2], char *buf, size_t len)
{
	double dcat[CAT__COUNT], dlat;
	int order[CAT__COUNT], shown = 0;
	size_t n = 0;

#define PUT(...)                                                                                   \
	do {                                                                                       \
		if (n < len)                                                                       \
			n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__);                      \
	} while (0)
	buf[0] = '\0';
	PUT("B: ");
	if (t[0].has_iops && t[1].has_iops && t[0].iops > 0)
		PUT("%.2fx IOPS", t[1].iops / t[0].iops);
	else if (t[0].ops_per_s > 0 && t[1].ops_per_s > 0)
		PUT("%.2fx traced ops/s (the benchmark's IOPS not measured in %s)",
		    t[1].ops_per_s / t[0].ops_per_s,
		    t[0].has_iops ? "B" : t[1].has_iops ? "A" : "A and B");
	else
		PUT("IOPS not measured in %s", t[0].has_iops   ? "B"
					       : t[1].has_iops ? "A"
							       : "A and B");
	if (!t[0].has_ops || !t[1].has_ops) {
		PUT("; latency per op not measured in %s (no traced ops)",
		    !t[0].has_ops && !t[1].has_ops ? "A and B"
		    : t[0].has_ops		   ? "B"
						   : "A");
		return;
	}
	dlat = (t[1].latency_ns / t[1].ops - t[0].latency_ns / t[0].ops) / 1e3;
	PUT("; latency ");
	if (n < len)
		n += (size_t)put_us(buf + n, len - n, dlat);
	PUT(" us/op");
	for (int c = 0; c < CAT__COUNT; c++) {
		order[c] = c;
		dcat[c] = (t[1].cat_ns[c] / t[1].ops - t[0].cat_ns[c] / t[0].ops) / 1e3;
	}
	/* Largest change first; insertion sort over seven. */
	for (int i = 1; i < CAT__COUNT; i++)
		for (int k = i; k > 0 && fabs(dcat[order[k]]) > fabs(dcat[order[k - 1]]); k--) {
			int x = order[k];

			order[k] = order[k - 1];
			order[k - 1] = x;
		}
	for (int i = 0; i < CAT__COUNT && shown < 4; i++) {
		int c = order[i];

		/* What moved less than 0.05 us or 2% of the latency's change is noise. */
		if (!t[0].cat_measured[c] || !t[1].cat_measured[c] || fabs(dcat[c]) < 0.05 ||
		    fabs(dcat[c]) < 0.02 * fabs(dlat))
			continue;
		PUT("%s %s ", shown ? "," : ", of which", corecap_op_cat_name((enum op_cat)c));
		if (n < len)
			n += (size_t)put_us(buf + n, len - n, dcat[c]);
		shown++;
	}
	for (int c = 0; c < CAT__COUNT; c++)
		if (t[0].cat_measured[c] != t[1].cat_measured[c])
			PUT("; %s not measured in %c", corecap_op_cat_name((enum op_cat)c),
			    t[0].cat_measured[c] ? 'B' : 'A');
#undef PUT
}

static const struct compare_row *find_per_op(const struct compare_diff *d, const char *key)
{
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->v[i].section, PER_OP) == 0 && strcmp(d->v[i].key, key) == 0 &&
		    d->v[i].has[0] && d->v[i].has[1])
			return &d->v[i];
	return NULL;
}

/* Which runs lack a per-op figure: "A", "B" or "A and B". */
static const char *measured_in(const struct compare_diff *d, const char *key)
{
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->v[i].section, PER_OP) == 0 && strcmp(d->v[i].key, key) == 0)
			return d->v[i].has[0] ? "B" : d->v[i].has[1] ? "A" : "A and B";
	return "A and B";
}

/*
 * One sentence: which run costs more time per op (cpu + lock waits +
 * logging), by how much, which of those costs make the difference
 * (largest first), and the counts per op that go with them.
 */
static void cost_line(const struct compare_diff *d, char *buf, size_t len)
{
	static const struct {
		const char *key, *name;
	} t[] = {{"cpu_us", "cpu"}, {"lock_wait_us", "lock waits"}, {"logging_us", "logging"}};
	const struct compare_row *r[3], *c;
	double cost[2] = {0, 0}, dv[3];
	int hi, lo, order[3] = {0, 1, 2};
	size_t n = 0;

	for (int i = 0; i < 3; i++) {
		r[i] = find_per_op(d, t[i].key);
		for (int k = 0; r[i] && k < 2; k++)
			cost[k] += r[i]->v[k];
	}
	if (!r[0]) {
		snprintf(buf, len, "per-op CPU not measured in %s (" CORECAP_RUN_THREADS " or ops missing)",
			 measured_in(d, t[0].key));
		return;
	}
	hi = cost[1] > cost[0];
	lo = !hi;
	for (int i = 0; i < 3; i++)
		dv[i] = r[i] ? r[i]->v[hi] - r[i]->v[lo] : 0;
	for (int i = 0; i < 3; i++)
		for (int k = i + 1; k < 3; k++)
			if (dv[order[k]] > dv[order[i]]) {
				int x = order[i];

				order[i] = order[k];
				order[k] = x;
			}
	n += (size_t)snprintf(buf + n, len - n,
			      "per op, %s (%s) costs %.1f us of cpu, lock waits and logging "
			      "against %s's (%s) %.1f us",
			      hi ? "B" : "A", d->daemon[hi], cost[hi], lo ? "B" : "A",
			      d->daemon[lo], cost[lo]);
	if (cost[lo] > 0 && n < len)
		n += (size_t)snprintf(buf + n, len - n, " (%.1fx)", cost[hi] / cost[lo]);
	for (int i = 0, first = 1; i < 3 && n < len; i++) {
		int k = order[i];

		if (!r[k] || dv[k] < 0.05)
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s %s %+.1f us", first ? "; more" : ",",
				      t[k].name, dv[k]);
		first = 0;
	}
	for (int i = 0; i < 3 && n < len; i++)
		if (!r[i])
			n += (size_t)snprintf(buf + n, len - n, "; %s not measured in %s",
					      t[i].name, measured_in(d, t[i].key));
	if ((c = find_per_op(d, "ctx_switches")) && n < len)
		n += (size_t)snprintf(buf + n, len - n, "; context switches %.1f vs %.1f", c->v[hi],
				      c->v[lo]);
	if ((c = find_per_op(d, "syscalls")) && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", I/O syscalls %.1f vs %.1f", c->v[hi],
				      c->v[lo]);
	if (n < len)
		snprintf(buf + n, len - n, " per op");
}

int corecap_compare_diff_build(struct compare_diff *d, const struct report *a,
			       const struct report *b)
{
	const struct report *r[2] = {a, b};
	int ret = 0;

	*d = (struct compare_diff){0};
	for (int s = 0; s < 2; s++) {
		d->daemon[s] = daemon_of(r[s]);
		sources_of(r[s], &d->src[s]);
	}
	for (int s = 0; s < 2 && !ret; s++) {
		ret = bench_rows(d, s, r[s]);
		if (!ret)
			ret = per_op_rows(d, s, r[s]);
		if (!ret)
			ret = op_rows(d, s, r[s]);
		if (!ret)
			ret = pool_rows(d, s, r[s]);
		if (!ret && d->src[0].optracker && d->src[1].optracker)
			ret = ceph_rows(d, s, r[s]);
	}
	if (!ret)
		ret = warnings(d);
	cost_line(d, d->cost_line, sizeof(d->cost_line));
	/* Different daemons share no op types: their whole costs per op compare them. */
	if (corecap_compare_same_daemon(d))
		corecap_compare_headline(d->tot, d->headline, sizeof(d->headline));
	else
		snprintf(d->headline, sizeof(d->headline), "%s", d->cost_line);
	return ret;
}

void corecap_compare_diff_release(struct compare_diff *d)
{
	corecap_lines_release(&d->warnings, &d->n_warnings);
	free(d->v);
	*d = (struct compare_diff){0};
}

void corecap_compare_scale_column(struct folded *f, int column, double factor)
{
	for (size_t i = 0; i < f->n_nodes; i++) {
		f->nodes[i].self[column] =
			(uint64_t)llround((double)f->nodes[i].self[column] * factor);
		f->nodes[i].total[column] = f->nodes[i].self[column];
	}
	/* A child is made after its parent: from the last node back, each
	 * total is final when it is added to its parent's. */
	for (size_t i = f->n_nodes; i-- > 1;)
		f->nodes[f->nodes[i].parent].total[column] += f->nodes[i].total[column];
}
