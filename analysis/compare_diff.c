#include "compare_diff.h"
#include "model/lines.h"
#include "model/lock_table.h"
#include "model/thread_table.h"
#include "read/run_file.h"
#include "util/grow.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <corecap/manifest_keys.h>
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

/* A figure of the manifest's benchmark.summary, by its name in corecap/manifest_keys.h. */
#define SUMMARY_(id) CORECAP_MK_BENCHMARK_SUMMARY_##id

static int bench_rows(struct compare_diff *d, int s, const struct report *r)
{
	static const struct {
		enum corecap_manifest_key json; /* in the manifest's benchmark.summary */
		const char *key, *label;
		double scale;
		int decimals;
	} keys[] = {
		{SUMMARY_(IOPS_AVG), "iops", "IOPS", 1, 0},
		{SUMMARY_(LAT_AVG_S), "latency_avg_ms", "latency avg ms", 1e3, 3},
		{SUMMARY_(LAT_P50_S), "latency_p50_ms", "latency p50 ms", 1e3, 3},
		{SUMMARY_(LAT_P99_S), "latency_p99_ms", "latency p99 ms", 1e3, 3},
		{SUMMARY_(LAT_P999_S), "latency_p999_ms", "latency p99.9 ms", 1e3, 3},
		{SUMMARY_(LAT_MAX_S), "latency_max_ms", "latency max ms", 1e3, 3},
	};
	json_object *sum = r->manifest ? r->manifest->summary : NULL, *v;
	int ret = 0;

	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys) && !ret; i++) {
		ret = declare(d, "benchmark", keys[i].key, keys[i].label, keys[i].decimals);
		if (!ret && sum && json_object_object_get_ex(sum, corecap_mk(keys[i].json), &v) &&
		    (json_object_is_type(v, json_type_double) ||
		     json_object_is_type(v, json_type_int)))
			ret = set(d, s, "benchmark", keys[i].key, keys[i].label, keys[i].decimals,
				  json_object_get_double(v) * keys[i].scale);
	}
	if (!ret && sum && json_object_object_get_ex(sum, corecap_mk(SUMMARY_(IOPS_AVG)), &v)) {
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
	char section[96];
	int ret;

	/* A run without a trace has no op figures: its side stays "not measured". */
	ret = declare(d, "traced", "ops_per_s", "ops/s", 0);
	if (ret || !corecap_model_has_ops(r->model))
		return ret;
	tot->ops_per_s = w ? (double)t->finished * 1e9 / (double)w : 0;
	ret = set(d, s, "traced", "ops_per_s", "ops/s", 0, tot->ops_per_s);
	for (int c = 0; c < CP__COUNT; c++)
		tot->cat_measured[c] =
			d->use_path || (c < CAT__COUNT && cat_measured(&d->src[s], (enum op_cat)c));
	for (size_t i = 0; i < t->n_types && !ret; i++) {
		const struct op_type *ty = &t->types[i];
		const struct cp_type *cp =
			corecap_critical_path_type(r->critical_path, (uint32_t)i);
		double n = (double)ty->hist.count;

		if (!ty->hist.count)
			continue;
		tot->has_ops = true;
		snprintf(section, sizeof(section), "op %s", ty->name ? ty->name : "?");
		if (d->use_path) {
			/* The path's own ops and latency: its categories sum to it. */
			if (cp && cp->count) {
				tot->ops += (double)cp->count;
				tot->latency_ns += (double)cp->latency_ns;
			}
			for (int c = 0; c < CP__COUNT && !ret; c++) {
				char key[64], label[96];

				snprintf(key, sizeof(key), "path_%s_us",
					 corecap_cp_cat_name((uint32_t)c));
				snprintf(label, sizeof(label), "  critical path: %s us/op",
					 corecap_cp_cat_name((uint32_t)c));
				if (cp && cp->count)
					tot->cat_ns[c] += (double)cp->ns[c];
				ret = cp && cp->count
					      ? set(d, s, section, key, label, 1,
						    (double)cp->ns[c] / (double)cp->count / 1e3)
					      : declare(d, section, key, label, 1);
			}
		} else {
			tot->ops += n;
			tot->latency_ns += (double)ty->hist.sum_ns;
		}
		if (!ret)
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
			if (!d->use_path)
				tot->cat_ns[c] += (double)ty->cat_ns[c];
			ret = cat_measured(&d->src[s], (enum op_cat)c)
				      ? set(d, s, section, key, label, 1,
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
	char section[96];
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
	if (sum && json_object_object_get_ex(sum, corecap_mk(SUMMARY_(OPS)), &v) &&
	    json_object_get_double(v) > 0) {
		*ops = json_object_get_double(v);
		return true;
	}
	if (sum && json_object_object_get_ex(sum, corecap_mk(SUMMARY_(IOPS_AVG)), &v) && w) {
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

/* An OpTracker type's critical path (arrival to reply) per op, into the headline's totals. */
static int ceph_path_rows(struct compare_diff *d, int s, const struct report *r, size_t ti,
			  const char *section)
{
	const struct cp_type *cp = corecap_ceph_critical_type(r->ceph_critical, ti, 0);
	struct compare_totals *tot = &d->tot[s];
	int ret = 0;

	if (cp && cp->count) {
		tot->has_ops = true;
		tot->ops += (double)cp->count;
		tot->latency_ns += (double)cp->latency_ns;
	}
	for (int c = 0; c < CP__COUNT && !ret; c++) {
		char key[64], label[96];

		tot->cat_measured[c] = true;
		snprintf(key, sizeof(key), "path_%s_us", corecap_cp_cat_name((uint32_t)c));
		snprintf(label, sizeof(label), "  critical path: %s us/op",
			 corecap_cp_cat_name((uint32_t)c));
		if (cp && cp->count)
			tot->cat_ns[c] += (double)cp->ns[c];
		ret = cp && cp->count ? set(d, s, section, key, label, 1,
					    (double)cp->ns[c] / (double)cp->count / 1e3)
				      : declare(d, section, key, label, 1);
	}
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
		if (d->path_ceph)
			ret = ceph_path_rows(d, s, r, i, section);
		if (!ret)
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
	for (size_t i = 0; i < r->model->ops.n_types && !s->path; i++) {
		const struct cp_type *t = corecap_critical_path_type(r->critical_path, (uint32_t)i);

		s->path = t && t->count;
	}
	for (size_t i = 0; r->ceph && i < r->ceph->n_types && !s->ceph_path; i++) {
		const struct cp_type *t = corecap_ceph_critical_type(r->ceph_critical, i, 0);

		s->ceph_path = t && t->count;
	}
}

/* How many op types the paths compared have in run r, and their paths' model. */
static size_t path_types(const struct compare_diff *d, const struct report *r,
			 const struct critical_path **cp)
{
	if (d->path_ceph) {
		*cp = r->ceph_critical ? r->ceph_critical->cp : NULL;
		return r->ceph_critical && r->ceph ? r->ceph->n_types : 0;
	}
	*cp = r->critical_path;
	return r->model->ops.n_types;
}

/* Op type i's critical path in run r (the OpTracker's whole op with path_ceph). */
static const struct cp_type *path_type(const struct compare_diff *d, const struct report *r,
				       size_t i)
{
	return d->path_ceph ? corecap_ceph_critical_type(r->ceph_critical, i, 0)
			    : corecap_critical_path_type(r->critical_path, (uint32_t)i);
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
	double dcat[CP__COUNT], dlat;
	int order[CP__COUNT], shown = 0;
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
		    t[0].has_iops   ? "B"
		    : t[1].has_iops ? "A"
				    : "A and B");
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
	PUT(" us/op%s", t[0].path ? " on the critical path" : "");
	for (int c = 0; c < CP__COUNT; c++) {
		order[c] = c;
		dcat[c] = (t[1].cat_ns[c] / t[1].ops - t[0].cat_ns[c] / t[0].ops) / 1e3;
	}
	/* Largest change first; insertion sort over eight. */
	for (int i = 1; i < CP__COUNT; i++)
		for (int k = i; k > 0 && fabs(dcat[order[k]]) > fabs(dcat[order[k - 1]]); k--) {
			int x = order[k];

			order[k] = order[k - 1];
			order[k - 1] = x;
		}
	for (int i = 0; i < CP__COUNT && shown < 4; i++) {
		int c = order[i];

		/* What moved less than 0.05 us or 2% of the latency's change is noise. */
		if (!t[0].cat_measured[c] || !t[1].cat_measured[c] || fabs(dcat[c]) < 0.05 ||
		    fabs(dcat[c]) < 0.02 * fabs(dlat))
			continue;
		PUT("%s %s ", shown ? "," : ", of which", corecap_cp_cat_name((uint32_t)c));
		if (n < len)
			n += (size_t)put_us(buf + n, len - n, dcat[c]);
		shown++;
	}
	for (int c = 0; c < CP__COUNT; c++)
		if (t[0].cat_measured[c] != t[1].cat_measured[c])
			PUT("; %s not measured in %c", corecap_cp_cat_name((uint32_t)c),
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
		snprintf(buf, len,
			 "per-op CPU not measured in %s (" CORECAP_RUN_THREADS " or ops missing)",
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

/* Adds v to side s of (section, key), which counts as measured there. */
static int add_to(struct compare_diff *d, int s, const char *section, const char *key,
		  const char *label, int decimals, double v)
{
	struct compare_row *r = row(d, section, key, label, decimals);

	if (!r)
		return -ENOMEM;
	r->v[s] += v;
	r->has[s] = true;
	return 0;
}

/*
 * The name a path's credit goes by across runs: a daemon thread's pool;
 * "an idle CPU"; the collector; "other processes" for any other
 * process's thread (a client, a compiler: their names and ids change
 * from run to run).
 */
static void credit_name(const struct critical_path *cp, int32_t tid, char *out, size_t len)
{
	const char *name = corecap_critical_path_thread_name(cp, tid);
	int32_t tgid = corecap_critical_path_holder_tgid(cp, tid);

	if (tid == 0)
		snprintf(out, len, "an idle CPU");
	else if (name && corecap_u64map_find(&cp->by_tid, (uint64_t)(uint32_t)tid))
		corecap_thread_pool_name(name, out, len);
	else if (tgid && tgid == cp->collector_pid)
		snprintf(out, len, "the collector");
	else
		snprintf(out, len, "other processes");
}

/*
 * What the ops' critical paths ran or waited behind, per op, by the
 * crediting thread's pool and category ("log cpu", "msgr-worker
 * runqueue"), the profiler's threads left out as report leaves them out;
 * then whom the runqueue waited behind (the daemon's threads, the
 * collector, other processes, ...). Thread ids differ between runs,
 * pools do not.
 */
static int behind_rows(struct compare_diff *d, int s, const struct report *r)
{
	const struct critical_path *cp;
	size_t n_types = path_types(d, r, &cp);
	double ops = 0;
	int ret = 0;

	for (size_t i = 0; i < n_types; i++) {
		const struct cp_type *t = path_type(d, r, i);

		if (t)
			ops += (double)t->count;
	}
	if (!ops)
		return 0;
	for (size_t i = 0; i < n_types && !ret; i++) {
		const struct cp_type *t = path_type(d, r, i);
		uint64_t runq[CPB__COUNT];
		struct cp_top *v;
		size_t n;

		if (!t || !t->count)
			continue;
		v = calloc(t->credit.len + 1, sizeof(*v));
		if (!v)
			return -ENOMEM;
		n = corecap_profiler_path_top(r->profiler, t, v, t->credit.len + 1);
		for (size_t k = 0; k < n && !ret; k++) {
			char pool[64], key[128], label[160];

			credit_name(cp, v[k].tid, pool, sizeof(pool));
			snprintf(key, sizeof(key), "%s %s", pool, corecap_cp_cat_name(v[k].cat));
			snprintf(label, sizeof(label), "  %s us/op", key);
			ret = add_to(d, s, "behind (critical path)", key, label, 1,
				     (double)v[k].ns / ops / 1e3);
		}
		free(v);
		if (!t->ns[CP_RUNQUEUE])
			continue;
		corecap_critical_path_runq_behind(cp, t, runq);
		for (uint32_t b = 0; b < CPB__COUNT && !ret; b++) {
			char key[128], label[160];

			snprintf(key, sizeof(key), "%s", corecap_cp_behind_name((enum cp_behind)b));
			snprintf(label, sizeof(label), "  %s us/op",
				 corecap_cp_behind_label((enum cp_behind)b));
			ret = add_to(d, s, "runqueue behind (critical path)", key, label, 1,
				     (double)runq[b] / ops / 1e3);
		}
	}
	return ret;
}

/*
 * What the annotations say the ops waited on, per op: each lock (by its
 * label, the shim's), and the queue after each phase (the op between two
 * threads: "queue after committed").
 */
static int waits_rows(struct compare_diff *d, int s, const struct report *r)
{
	const struct model *m = r->model;
	const struct op_table *t = &m->ops;
	double ops = 0;
	int ret = 0;

	for (size_t i = 0; i < t->n_types; i++)
		ops += (double)t->types[i].hist.count;
	if (!ops)
		return 0;
	for (size_t i = 0; i < t->n_types && !ret; i++) {
		const struct op_type *ty = &t->types[i];
		uint64_t *ns;

		for (size_t l = 0; l < m->locks.len && !ret && d->src[s].shim; l++) {
			char name[CORECAP_LOCK_LABEL_MAX], key[160], label[200];

			if (!(ns = corecap_u64map_find(&ty->detail,
						       OP_DETAIL_KEY(CAT_LOCK_WAIT, l))))
				continue;
			corecap_lock_label(m->locks.all[l], name, sizeof(name));
			/* A longer name is cut: the key stays one per lock (most are short). */
			snprintf(key, sizeof(key), "lock %.150s", name);
			snprintf(label, sizeof(label), "  %s us/op", key);
			ret = add_to(d, s, "waited on (annotations)", key, label, 1,
				     (double)*ns / ops / 1e3);
		}
		for (size_t p = 0; p < t->n_phases && !ret; p++) {
			char key[160], label[192];

			if (!(ns = corecap_u64map_find(&ty->detail, OP_DETAIL_KEY(CAT_QUEUE, p))))
				continue;
			snprintf(key, sizeof(key), "queue after %s", t->phases[p]);
			snprintf(label, sizeof(label), "  %s us/op", key);
			ret = add_to(d, s, "waited on (annotations)", key, label, 1,
				     (double)*ns / ops / 1e3);
		}
	}
	return ret;
}

/* A credit or wait one run has and the other not is 0 there, when it measures it. */
static void zero_fill(struct compare_diff *d, const char *section, const char *key_prefix,
		      const bool measures[2])
{
	for (size_t i = 0; i < d->n; i++)
		for (int s = 0; s < 2; s++)
			if (strcmp(d->v[i].section, section) == 0 && !d->v[i].has[s] &&
			    strncmp(d->v[i].key, key_prefix, strlen(key_prefix)) == 0 &&
			    measures[s]) {
				d->v[i].has[s] = true;
				d->v[i].v[s] = 0;
			}
}

/* Rounds to zero at its decimals. */
static bool is_zero(double v, int decimals)
{
	return fabs(v) < 0.5 * pow(10, -decimals);
}

bool corecap_compare_row_zero(const struct compare_row *r)
{
	return r->has[0] && r->has[1] && is_zero(r->v[0], r->decimals) &&
	       is_zero(r->v[1], r->decimals);
}

bool corecap_compare_row_shown(const struct compare_row *r)
{
	return (r->has[0] || r->has[1]) && !r->hidden && !corecap_compare_row_zero(r);
}

bool corecap_compare_ratio(const struct compare_row *r, double *ratio)
{
	double floor = COMPARE_RATIO_FLOOR_UNITS * pow(10, -r->decimals);

	if (!r->has[0] || !r->has[1] || fabs(r->v[0]) < floor || fabs(r->v[1]) < floor)
		return false;
	*ratio = r->v[1] / r->v[0];
	return isfinite(*ratio);
}

/* The row (section, key) when both runs measured it, else NULL. */
static const struct compare_row *both(const struct compare_diff *d, const char *section,
				      const char *key)
{
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->v[i].section, section) == 0 && strcmp(d->v[i].key, key) == 0)
			return d->v[i].has[0] && d->v[i].has[1] ? &d->v[i] : NULL;
	return NULL;
}

/*
 * A pool that neither run gave a CPU (its cpu and busy shares round to
 * zero in both: a main thread blocked in accept) is left out, named once.
 */
static int idle_pools(struct compare_diff *d)
{
	int ret = 0;

	for (size_t i = 0; i < d->n && !ret; i++) {
		const struct compare_row *cpu, *busy;
		const char *sec = d->v[i].section;

		if (strncmp(sec, "pool ", 5) != 0 || strcmp(d->v[i].key, "threads") != 0)
			continue;
		cpu = both(d, sec, "cpu_pct");
		busy = both(d, sec, "busy_pct");
		if (!cpu || !busy || !corecap_compare_row_zero(cpu) ||
		    !corecap_compare_row_zero(busy))
			continue;
		for (size_t k = 0; k < d->n; k++)
			if (strcmp(d->v[k].section, sec) == 0)
				d->v[k].hidden = true;
		ret = corecap_lines_add(&d->idle_pools, &d->n_idle_pools, "%s", sec + 5);
	}
	return ret;
}

/* Section order: as first seen (run A's, then what B adds); then, in a
 * section of credits or waits, the largest change first. */
static size_t section_rank(const struct compare_diff *d, const char *section)
{
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->v[i].section, section) == 0)
			return i;
	return d->n;
}

static bool sorted_by_change(const char *section)
{
	return strstr(section, "(critical path)") || strstr(section, "(annotations)");
}

static void group_sections(struct compare_diff *d)
{
	/* Insertion sort, stable: the rows are at most a few hundred. */
	for (size_t i = 1; i < d->n; i++) {
		struct compare_row x = d->v[i];
		size_t rx = section_rank(d, x.section), k = i;

		for (; k > 0; k--) {
			const struct compare_row *p = &d->v[k - 1];
			size_t rp = section_rank(d, p->section);

			if (rp < rx)
				break;
			if (rp == rx && (!sorted_by_change(x.section) ||
					 fabs(p->v[1] - p->v[0]) >= fabs(x.v[1] - x.v[0])))
				break;
			d->v[k] = *p;
		}
		d->v[k] = x;
	}
}

/* A json array of strings as a vector (NULL entries: not strings). */
static size_t str_array(json_object *a, const char **out, size_t cap)
{
	size_t n = 0;

	if (!a || !json_object_is_type(a, json_type_array))
		return 0;
	for (size_t i = 0; i < json_object_array_length(a) && n < cap; i++) {
		const char *v = json_object_get_string(json_object_array_get_idx(a, i));

		out[n++] = v ? v : "";
	}
	return n;
}

/* Appends "sep word" to *buf (malloc'd). */
static int append_word(char **buf, size_t *len, const char *word)
{
	size_t w = strlen(word), need = *len + (*len ? 1 : 0) + w + 1;
	char *b = realloc(*buf, need);

	if (!b)
		return -ENOMEM;
	if (*len)
		b[(*len)++] = ' ';
	memcpy(b + *len, word, w + 1);
	*len += w;
	*buf = b;
	return 0;
}

#define ARGS_MAX 256

int corecap_compare_args(const char *const *a, size_t na, const char *const *b, size_t nb,
			 char **only_a, char **only_b)
{
	/* The longest common subsequence of the two, by dynamic programming
	 * (command lines are short: ARGS_MAX each at most). */
	uint16_t(*l)[ARGS_MAX + 1];
	char *out[2] = {NULL, NULL};
	size_t len[2] = {0, 0}, i = 0, k = 0;
	size_t emitted[2] = {0, 0}; /* 1 + the index of the last word each side printed */
	int ret = 0;

	na = na > ARGS_MAX ? ARGS_MAX : na;
	nb = nb > ARGS_MAX ? ARGS_MAX : nb;
	l = calloc(ARGS_MAX + 1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	for (size_t x = na; x-- > 0;)
		for (size_t y = nb; y-- > 0;)
			l[x][y] = strcmp(a[x], b[y]) == 0     ? l[x + 1][y + 1] + 1
				  : l[x + 1][y] > l[x][y + 1] ? l[x + 1][y]
							      : l[x][y + 1];
	/* Walks the common part; a differing value keeps its option ("--debug"). */
	while ((i < na || k < nb) && !ret) {
		const char *const *v;
		size_t at;
		int side;

		if (i < na && k < nb && strcmp(a[i], b[k]) == 0) {
			i++, k++;
			continue;
		}
		side = i < na && (k >= nb || l[i + 1][k] >= l[i][k + 1]) ? 0 : 1;
		v = side ? b : a;
		at = side ? k++ : i++;
		if (at > 0 && v[at - 1][0] == '-' && v[at][0] != '-' && emitted[side] != at)
			ret = append_word(&out[side], &len[side], v[at - 1]);
		if (!ret)
			ret = append_word(&out[side], &len[side], v[at]);
		emitted[side] = at + 1;
	}
	free(l);
	for (int s = 0; s < 2 && !ret; s++)
		if (!out[s] && !(out[s] = strdup("")))
			ret = -ENOMEM;
	if (ret) {
		free(out[0]);
		free(out[1]);
		return ret;
	}
	*only_a = out[0];
	*only_b = out[1];
	return 0;
}

static int add_config(struct compare_diff *d, const char *what, char *a, char *b)
{
	struct compare_config *c;
	size_t cap = d->n_config;

	if (corecap_grow((void **)&d->config, &cap, d->n_config + 1, sizeof(*d->config))) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	c = &d->config[d->n_config++];
	snprintf(c->what, sizeof(c->what), "%s", what);
	c->a = a;
	c->b = b;
	return 0;
}

/* Two command lines (manifest arrays of strings): their differing arguments. */
static int config_args(struct compare_diff *d, const char *what, json_object *ja, json_object *jb)
{
	const char *a[ARGS_MAX], *b[ARGS_MAX];
	size_t na = str_array(ja, a, ARGS_MAX), nb = str_array(jb, b, ARGS_MAX);
	char *oa, *ob;
	int ret;

	if (!ja || !jb)
		return 0;
	ret = corecap_compare_args(a, na, b, nb, &oa, &ob);
	if (ret)
		return ret;
	if (!oa[0] && !ob[0]) {
		size_t n = strlen(d->config_same);

		snprintf(d->config_same + n, sizeof(d->config_same) - n, "%s%s", n ? ", " : "",
			 what);
		free(oa);
		free(ob);
		return 0;
	}
	return add_config(d, what, oa, ob);
}

/* The object store a Ceph daemon's perf counters name, or NULL. */
static const char *objectstore(const struct report *r)
{
	static const char *const stores[] = {"bluestore", "filestore", "memstore", "kstore"};

	if (!r->ceph || !r->ceph->has_perf)
		return NULL;
	for (size_t i = 0; i < r->ceph->n_perf; i++)
		for (size_t k = 0; k < sizeof(stores) / sizeof(*stores); k++) {
			size_t n = strlen(stores[k]);

			if (strncmp(r->ceph->perf[i].name, stores[k], n) == 0 &&
			    r->ceph->perf[i].name[n] == '.')
				return stores[k];
		}
	return NULL;
}

/* Ceph's keys shown one by one; more are counted in one line. */
#define CEPH_CONFIG_SHOWN 40
/* RUN/ceph/config.json (`config show`), read as every run file is
 * (read/run_file.h: bounded, inside the run), or NULL: absent or not an object. */
static json_object *ceph_config(struct compare_diff *d, const struct report *r)
{
	char path[4096], *why = NULL;
	json_object *o = NULL;
	int ret;

	if (!r->run_dir || snprintf(path, sizeof(path), "%s/" CORECAP_RUN_CEPH_CONFIG,
				    r->run_dir) >= (int)sizeof(path))
		return NULL;
	ret = corecap_run_file_json(path, &o, &why);
	if (ret == -ENOENT)
		return NULL;
	if (ret || !json_object_is_type(o, json_type_object)) {
		warn(d, "%s: not a Ceph config dump; the runs' Ceph config is not compared",
		     why ? why : path);
		free(why);
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* A config value as words: a string as it is, anything else as JSON. */
static const char *config_value(json_object *v)
{
	return json_object_is_type(v, json_type_string) ? json_object_get_string(v)
							: json_object_to_json_string(v);
}

/*
 * Ceph's changed config values: the keys whose values differ between the
 * two runs' `config show` (and those one run lacks), when both have one.
 */
static int ceph_config_rows(struct compare_diff *d, const struct report *const r[2])
{
	json_object *c[2] = {ceph_config(d, r[0]), ceph_config(d, r[1])}, *v;
	size_t shown = 0, more = 0;
	int ret = 0;

	if (!c[0] || !c[1])
		goto out;
	for (int s = 0; s < 2 && !ret; s++) {
		json_object_object_foreach(c[s], key, val)
		{
			bool has = json_object_object_get_ex(c[!s], key, &v);
			char what[160], *a, *b;

			/* A key both have is compared once, from A. */
			if (ret || (s == 1 && has) ||
			    (has && strcmp(config_value(val), config_value(v)) == 0))
				continue;
			if (shown == CEPH_CONFIG_SHOWN) {
				more++;
				continue;
			}
			snprintf(what, sizeof(what), "ceph %s", key);
			a = strdup(s ? "(absent)" : config_value(val));
			b = strdup(s ? config_value(val) : has ? config_value(v) : "(absent)");
			if (!a || !b) {
				free(a);
				free(b);
				ret = -ENOMEM;
				break;
			}
			ret = add_config(d, what, a, b);
			shown++;
		}
	}
	if (!ret && more) {
		char *a = NULL, *b = NULL;

		if (asprintf(&a, "%zu more keys differ", more) < 0 || !(b = strdup(""))) {
			free(a);
			ret = -ENOMEM;
		} else {
			ret = add_config(d, "ceph config", a, b);
		}
	}
	if (!ret && !shown) {
		size_t n = strlen(d->config_same);

		snprintf(d->config_same + n, sizeof(d->config_same) - n, "%sceph config",
			 n ? ", " : "");
	}
out:
	json_object_put(c[0]);
	json_object_put(c[1]);
	return ret;
}

/*
 * The configuration the runs' own records hold, where it differs: the
 * daemon's command line and the benchmark's (their manifests), the object
 * store (a Ceph daemon's perf counters).
 */
static int config_rows(struct compare_diff *d, const struct report *const r[2])
{
	json_object *cmd[2] = {NULL, NULL};
	const char *store[2];
	int ret;

	for (int s = 0; s < 2; s++)
		if (r[s]->manifest && r[s]->manifest->root)
			json_object_object_get_ex(r[s]->manifest->root,
						  corecap_mk(CORECAP_MK_CMDLINE), &cmd[s]);
	ret = config_args(d, "daemon command line", cmd[0], cmd[1]);
	if (!ret && r[0]->manifest && r[1]->manifest)
		ret = config_args(d, "benchmark command", r[0]->manifest->bench_command,
				  r[1]->manifest->bench_command);
	for (int s = 0; s < 2; s++)
		store[s] = objectstore(r[s]);
	if (!ret && store[0] && store[1] && strcmp(store[0], store[1]) != 0) {
		char *a = strdup(store[0]), *b = strdup(store[1]);

		if (!a || !b) {
			free(a);
			free(b);
			return -ENOMEM;
		}
		ret = add_config(d, "objectstore", a, b);
	}
	if (!ret)
		ret = ceph_config_rows(d, r);
	return ret;
}

/* A sentence when the diagnosis changed its kind or what it names. */
static void diag_change(struct compare_diff *d, const struct report *const r[2])
{
	const struct diagnosis *x = r[0]->diagnosis, *y = r[1]->diagnosis;

	d->diag_change[0] = '\0';
	if (!x || !y)
		return;
	if (x->kind != y->kind)
		snprintf(d->diag_change, sizeof(d->diag_change),
			 "the diagnosis changed: A is bound by %s%s%s, B by %s%s%s",
			 corecap_diag_kind_name(x->kind), x->name[0] ? " " : "", x->name,
			 corecap_diag_kind_name(y->kind), y->name[0] ? " " : "", y->name);
	else if (strcmp(x->name, y->name) != 0)
		snprintf(d->diag_change, sizeof(d->diag_change),
			 "the diagnosis names another %s: A %s, B %s",
			 corecap_diag_kind_name(x->kind), x->name[0] ? x->name : "(none)",
			 y->name[0] ? y->name : "(none)");
}

/* A growth worth naming: 0.05 us/op and 2% of the latency's change. */
static bool named_growth(double dv, double dlat)
{
	return dv >= 0.05 && dv >= 0.02 * fabs(dlat);
}

/*
 * The headline's "queued behind" part: what grew most of what the ops
 * waited behind, from the critical path (a pool's cpu, runqueue, ...)
 * when both runs have one, and the locks and queues the annotations name.
 */
static void behind_line(struct compare_diff *d)
{
	static const char *const sections[] = {"behind (critical path)", "waited on (annotations)"};
	double dlat = 0;
	size_t n = 0;
	int shown = 0;

	if (d->tot[0].has_ops && d->tot[1].has_ops && d->tot[0].ops > 0 && d->tot[1].ops > 0)
		dlat = (d->tot[1].latency_ns / d->tot[1].ops -
			d->tot[0].latency_ns / d->tot[0].ops) /
		       1e3;
	d->behind[0] = '\0';
	for (size_t sec = 0; sec < 2; sec++) {
		/* Its three largest growths, in order. */
		for (int pick = 0; pick < (sec ? 1 : 3); pick++) {
			const struct compare_row *best = NULL;

			for (size_t i = 0; i < d->n; i++) {
				const struct compare_row *rw = &d->v[i];
				double dv = rw->v[1] - rw->v[0];
				bool named = false;

				if (strcmp(rw->section, sections[sec]) != 0 || !rw->has[0] ||
				    !rw->has[1] || !named_growth(dv, dlat))
					continue;
				/* Not one named already. */
				for (const char *p = d->behind; (p = strstr(p, rw->key)); p++)
					if ((p == d->behind || p[-1] == ' ') &&
					    p[strlen(rw->key)] == ' ')
						named = true;
				if (!named && (!best || dv > best->v[1] - best->v[0]))
					best = rw;
			}
			if (!best)
				break;
			if (n < sizeof(d->behind))
				n += (size_t)snprintf(d->behind + n, sizeof(d->behind) - n,
						      "%s%s %+.1f", shown++ ? ", " : "", best->key,
						      best->v[1] - best->v[0]);
		}
	}
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
	d->use_path = d->src[0].path && d->src[1].path;
	/* A daemon without traced ops (a ceph-osd): its OpTracker ops' paths. */
	if (!d->use_path && !corecap_model_has_ops(a->model) && !corecap_model_has_ops(b->model) &&
	    d->src[0].ceph_path && d->src[1].ceph_path)
		d->use_path = d->path_ceph = true;
	for (int s = 0; s < 2; s++)
		d->tot[s].path = d->use_path;
	for (int s = 0; s < 2 && !ret; s++) {
		ret = bench_rows(d, s, r[s]);
		if (!ret)
			ret = per_op_rows(d, s, r[s]);
		if (!ret)
			ret = op_rows(d, s, r[s]);
		if (!ret && d->use_path)
			ret = behind_rows(d, s, r[s]);
		if (!ret && corecap_model_has_ops(r[s]->model))
			ret = waits_rows(d, s, r[s]);
		if (!ret)
			ret = pool_rows(d, s, r[s]);
		if (!ret && d->src[0].optracker && d->src[1].optracker)
			ret = ceph_rows(d, s, r[s]);
	}
	if (!ret) {
		const bool path[2] = {d->use_path, d->use_path};
		bool ops[2], shim[2];

		for (int s = 0; s < 2; s++) {
			ops[s] = corecap_model_has_ops(r[s]->model);
			shim[s] = ops[s] && d->src[s].shim;
		}
		zero_fill(d, "behind (critical path)", "", path);
		zero_fill(d, "runqueue behind (critical path)", "", path);
		zero_fill(d, "waited on (annotations)", "queue after ", ops);
		zero_fill(d, "waited on (annotations)", "lock ", shim);
		ret = idle_pools(d);
	}
	if (!ret)
		group_sections(d);
	if (!ret)
		ret = warnings(d);
	if (!ret)
		ret = config_rows(d, r);
	diag_change(d, r);
	cost_line(d, d->cost_line, sizeof(d->cost_line));
	/* Different daemons share no op types: their whole costs per op compare them. */
	if (corecap_compare_same_daemon(d)) {
		size_t n;

		corecap_compare_headline(d->tot, d->headline, sizeof(d->headline));
		behind_line(d);
		n = strlen(d->headline);
		if (d->behind[0] && n < sizeof(d->headline))
			snprintf(d->headline + n, sizeof(d->headline) - n, "; grew behind: %s",
				 d->behind);
	} else {
		snprintf(d->headline, sizeof(d->headline), "%s", d->cost_line);
	}
	return ret;
}

void corecap_compare_diff_release(struct compare_diff *d)
{
	corecap_lines_release(&d->warnings, &d->n_warnings);
	corecap_lines_release(&d->idle_pools, &d->n_idle_pools);
	for (size_t i = 0; i < d->n_config; i++) {
		free(d->config[i].a);
		free(d->config[i].b);
	}
	free(d->config);
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
