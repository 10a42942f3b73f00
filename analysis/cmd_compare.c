/*
 * `corecap compare RUN_A RUN_B`: two runs side by side (the benchmark's
 * IOPS and latency, the traced ops' latency percentiles and where each
 * op's time went, the pools' utilization, the ceilings), each figure with
 * its delta; or, with --folded, the two runs' stacks of one flame kind as
 * differential folded lines ("stack COUNT_A COUNT_B", what flamegraph.pl's
 * difffolded.pl writes and flamegraph.pl draws as a differential graph).
 * Both runs are read and modelled as `corecap report` does. Runs of
 * different daemons share no op types, pools or locks: their whole
 * daemon's costs per op are what compares them, and the headline says
 * which costs make one costlier.
 */
#include <corecap/analysis.h>

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cmd_util.h"
#include "build/flame_job.h"
#include "build/report_build.h"
#include "read/run.h"
#include "render/report.h"

const char corecap_compare_usage[] =
	"usage: corecap compare [--json] [--symfs DIR] RUN_A RUN_B\n"
	"       corecap compare --folded [--kind cpu|wall|lock|op] [--pool] RUN_A RUN_B\n"
	"\n"
	"Puts two runs side by side, B against A: the benchmark's IOPS and latency,\n"
	"the traced ops' latency percentiles and their time per category (cpu, lock\n"
	"waits, logging, I/O, queueing, ...) in us per op, the CPU and busy share of\n"
	"each pool, the cores used, and both ceilings; each figure with B - A and B/A.\n"
	"Two different daemons (a ceph-osd and an xrootd) are compared per op, whole\n"
	"daemon: cpu us/op, lock waits/op, logging us/op, I/O syscalls/op and context\n"
	"switches/op, with a headline naming what makes one costlier per op.\n"
	"\n"
	"  --json          print the comparison as JSON\n"
	"  --folded        print differential folded stacks, 'stack COUNT_A COUNT_B', as\n"
	"                  flamegraph.pl's difffolded.pl does (flamegraph.pl draws them)\n"
	"  --kind KIND     the stacks --folded compares (default op; see corecap flame)\n"
	"  --pool          --kind wall: one root frame per pool\n"
	"  --symfs DIR     look up the daemons' ELF files under DIR (post-mortem)\n"
	"\n"
	"See also corecap-compare(1).\n";

struct compare_opts {
	const char *run[2], *symfs;
	bool json, folded, by_pool;
	enum flame_kind kind;
};

struct side {
	struct run run;
	struct report_build b;
	struct report r;
};

/* One compared figure. */
struct row {
	char section[64], key[64], label[96];
	double v[2];
	bool has[2];
	int decimals;
};

struct rows {
	struct row *v;
	size_t n, cap;
};

static int parse_args(struct compare_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},
		{"folded", no_argument, NULL, 'f'},
		{"kind", required_argument, NULL, 'k'},
		{"pool", no_argument, NULL, 'p'},
		{"symfs", required_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	*o = (struct compare_opts){.kind = FLAME_OP};
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o->json = true;
			break;
		case 'f':
			o->folded = true;
			break;
		case 'k':
			if (!corecap_flame_kind_parse(optarg, &o->kind)) {
				corecap_error("invalid --kind '%s': expected cpu, wall, lock or op",
					      optarg);
				return 2;
			}
			break;
		case 'p':
			o->by_pool = true;
			break;
		case 's':
			o->symfs = optarg;
			break;
		case 'h':
			printf("%s", corecap_compare_usage);
			return -1;
		default:
			fprintf(stderr, "%s", corecap_compare_usage);
			return 2;
		}
	}
	if (corecap_cmd_operands(argc, 2, "two run directories", corecap_compare_usage))
		return 2;
	if (o->json && o->folded) {
		corecap_error("--json and --folded exclude each other");
		return 2;
	}
	o->run[0] = argv[optind];
	o->run[1] = argv[optind + 1];
	return 0;
}

static struct row *add(struct rows *rs, const char *section, const char *key, const char *label,
		       int decimals)
{
	struct row *r;

	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 64;
		struct row *grown = realloc(rs->v, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		rs->v = grown;
		rs->cap = cap;
	}
	r = &rs->v[rs->n++];
	*r = (struct row){.decimals = decimals};
	snprintf(r->section, sizeof(r->section), "%s", section);
	snprintf(r->key, sizeof(r->key), "%s", key);
	snprintf(r->label, sizeof(r->label), "%s", label);
	return r;
}

static void set(struct row *r, int side, double v)
{
	if (!r)
		return;
	r->v[side] = v;
	r->has[side] = true;
}

/* The row (section, key), created on first use. */
static struct row *row(struct rows *rs, const char *section, const char *key, const char *label,
		       int decimals)
{
	for (size_t i = 0; i < rs->n; i++)
		if (strcmp(rs->v[i].section, section) == 0 && strcmp(rs->v[i].key, key) == 0)
			return &rs->v[i];
	return add(rs, section, key, label, decimals);
}

static void bench_rows(struct rows *rs, int s, const struct report *r)
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

	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		struct row *rw = row(rs, "benchmark", keys[i].key, keys[i].label, keys[i].decimals);

		if (sum && json_object_object_get_ex(sum, keys[i].json, &v) &&
		    (json_object_is_type(v, json_type_double) ||
		     json_object_is_type(v, json_type_int)))
			set(rw, s, json_object_get_double(v) * keys[i].scale);
	}
}

static void op_rows(struct rows *rs, int s, const struct report *r)
{
	const struct op_table *t = &r->model->ops;
	uint64_t w = corecap_model_window_ns(r->model);
	char section[64];

	/* A run without a trace has no op figures: its side stays "-" (null). */
	if (!corecap_model_has_ops(r->model))
		return;
	set(row(rs, "traced", "ops_per_s", "ops/s", 0), s,
	    w ? (double)t->finished * 1e9 / (double)w : 0);
	for (size_t i = 0; i < t->n_types; i++) {
		const struct op_type *ty = &t->types[i];
		double n = (double)ty->hist.count;

		if (!ty->hist.count)
			continue;
		snprintf(section, sizeof(section), "op %s", ty->name ? ty->name : "?");
		set(row(rs, section, "count", "ops", 0), s, n);
		set(row(rs, section, "latency_avg_us", "latency avg us", 1), s,
		    (double)ty->hist.sum_ns / n / 1e3);
		set(row(rs, section, "latency_p50_us", "latency p50 us", 1), s,
		    corecap_latency_hist_quantile(&ty->hist, 0.5) / 1e3);
		set(row(rs, section, "latency_p99_us", "latency p99 us", 1), s,
		    corecap_latency_hist_quantile(&ty->hist, 0.99) / 1e3);
		set(row(rs, section, "latency_p999_us", "latency p99.9 us", 1), s,
		    corecap_latency_hist_quantile(&ty->hist, 0.999) / 1e3);
		for (int c = 0; c < CAT__COUNT; c++) {
			char key[64], label[64];

			snprintf(key, sizeof(key), "%s_us", corecap_op_cat_name((enum op_cat)c));
			snprintf(label, sizeof(label), "  %s us/op",
				 corecap_op_cat_name((enum op_cat)c));
			set(row(rs, section, key, label, 1), s, (double)ty->cat_ns[c] / n / 1e3);
		}
	}
}

static void pool_rows(struct rows *rs, int s, const struct report *r)
{
	const struct pool_table *p = r->pools;
	uint64_t w = corecap_model_window_ns(r->model);
	char section[64];

	if (p->n_sampled && w)
		set(row(rs, "daemon", "cores_used", "cores used", 2), s,
		    (double)p->cpu_ns / (double)w);
	for (size_t i = 0; i < p->len; i++) {
		const struct model_pool *pl = &p->pools[i];

		if (!pl->span_ns)
			continue;
		snprintf(section, sizeof(section), "pool %s", pl->name);
		set(row(rs, section, "threads", "threads", 0), s, (double)pl->n_threads);
		set(row(rs, section, "cpu_pct", "cpu % of the pool", 1), s, 100 * pl->cpu_util);
		set(row(rs, section, "busy_pct", "busy % (cpu + run queue)", 1), s,
		    100 * pl->busy_util);
		if (pl->n_kstates == pl->n_threads && pl->k_span_ns) {
			/* Exact states from kernel events. */
			set(row(rs, section, "futex_pct", "futex wait % (kernel)", 1), s,
			    100.0 * (double)pl->k_futex_ns / (double)pl->k_span_ns);
			set(row(rs, section, "blocked_pct", "blocked % (kernel)", 1), s,
			    100.0 * (double)pl->k_blocked_ns / (double)pl->k_span_ns);
		}
		if (!corecap_model_has_thread_waits(r->model))
			continue;
		set(row(rs, section, "logging_pct", "logging %", 1), s,
		    100.0 * (double)pl->logging_ns / (double)pl->span_ns);
		set(row(rs, section, "lock_wait_pct", "lock wait %", 1), s,
		    100.0 * (double)pl->lock_wait_ns / (double)pl->span_ns);
	}
}

/*
 * What each run's per-op figures divide by: its traced (or detected) ops,
 * else the ops the benchmark made (its run is the window), else its IOPS
 * times the window. False when none is known.
 */
static bool window_ops(const struct report *r, double *ops)
{
	uint64_t w = corecap_model_window_ns(r->model);
	json_object *sum = r->manifest ? r->manifest->summary : NULL, *v;

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
static void per_op_rows(struct rows *rs, int s, const struct report *r)
{
	const char *sec = "per op (whole daemon)";
	uint64_t logging_ns = 0, waits = 0, wait_ns = 0;
	const struct model_lock *lk;
	double ops;

	if (!window_ops(r, &ops))
		return;
	for (size_t i = 0; i < r->model->threads.len; i++)
		logging_ns += r->model->threads.all[i]->logging_ns;
	for (size_t i = 0; i < r->model->locks.len; i++) {
		lk = r->model->locks.all[i];
		waits += lk->contentions;
		wait_ns += lk->wait_ns;
	}
	if (r->has_stats) {
		waits = r->shim_contentions;
		wait_ns = r->shim_lock_wait_ns;
	}
	set(row(rs, sec, "ops", "ops (traced, else bench)", 0), s, ops);
	if (r->pools->n_sampled)
		set(row(rs, sec, "cpu_us", "cpu us/op", 1), s,
		    (double)r->pools->cpu_ns / ops / 1e3);
	set(row(rs, sec, "lock_waits", "lock waits/op", 3), s, (double)waits / ops);
	set(row(rs, sec, "lock_wait_us", "lock wait us/op", 2), s, (double)wait_ns / ops / 1e3);
	if (r->model->q.events)
		set(row(rs, sec, "logging_us", "logging us/op", 2), s,
		    (double)logging_ns / ops / 1e3);
	if (r->has_stats)
		set(row(rs, sec, "syscalls", "I/O syscalls/op", 2), s,
		    (double)r->shim_io_calls / ops);
	if (r->has_ctx_switches)
		set(row(rs, sec, "ctx_switches", "context switches/op", 2), s,
		    (double)r->ctx_switches / ops);
}

static const char *daemon_name(const struct report *r)
{
	return r->manifest && r->manifest->comm ? r->manifest->comm : "?";
}

static bool same_daemon(const struct side *sd)
{
	return strcmp(daemon_name(&sd[0].r), daemon_name(&sd[1].r)) == 0;
}

static const struct row *find_row(const struct rows *rs, const char *key)
{
	for (size_t i = 0; i < rs->n; i++)
		if (strcmp(rs->v[i].section, "per op (whole daemon)") == 0 &&
		    strcmp(rs->v[i].key, key) == 0 && rs->v[i].has[0] && rs->v[i].has[1])
			return &rs->v[i];
	return NULL;
}

/*
 * One sentence: which run costs more time per op (cpu + lock waits +
 * logging), by how much, which of those costs make the difference
 * (largest first), and the counts per op that go with them.
 */
static void headline(const struct rows *rs, const struct side *sd, char *buf, size_t len)
{
	static const struct {
		const char *key, *name;
	} t[] = {{"cpu_us", "cpu"}, {"lock_wait_us", "lock waits"}, {"logging_us", "logging"}};
	const struct row *r[3], *c;
	double cost[2] = {0, 0}, d[3];
	int hi, lo, order[3] = {0, 1, 2};
	size_t n = 0;

	for (int i = 0; i < 3; i++) {
		r[i] = find_row(rs, t[i].key);
		for (int k = 0; r[i] && k < 2; k++)
			cost[k] += r[i]->v[k];
	}
	if (!r[0]) {
		snprintf(buf, len, "no per-op CPU for both runs (threads.tsv or ops missing)");
		return;
	}
	hi = cost[1] > cost[0];
	lo = !hi;
	for (int i = 0; i < 3; i++)
		d[i] = r[i] ? r[i]->v[hi] - r[i]->v[lo] : 0;
	for (int i = 0; i < 3; i++)
		for (int k = i + 1; k < 3; k++)
			if (d[order[k]] > d[order[i]]) {
				int x = order[i];
				order[i] = order[k];
				order[k] = x;
			}
	n += (size_t)snprintf(
		buf + n, len - n,
		"per op, %s (%s) costs %.1f us of cpu, lock waits and logging against "
		"%s's (%s) %.1f us",
		hi ? "B" : "A", daemon_name(&sd[hi].r), cost[hi], lo ? "B" : "A",
		daemon_name(&sd[lo].r), cost[lo]);
	if (cost[lo] > 0 && n < len)
		n += (size_t)snprintf(buf + n, len - n, " (%.1fx)", cost[hi] / cost[lo]);
	for (int i = 0, first = 1; i < 3 && n < len; i++) {
		int k = order[i];

		if (!r[k] || d[k] < 0.05)
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s %s %+.1f us", first ? "; more" : ",",
				      t[k].name, d[k]);
		first = 0;
	}
	if ((c = find_row(rs, "ctx_switches")) && n < len)
		n += (size_t)snprintf(buf + n, len - n, "; context switches %.1f vs %.1f", c->v[hi],
				      c->v[lo]);
	if ((c = find_row(rs, "syscalls")) && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", I/O syscalls %.1f vs %.1f", c->v[hi],
				      c->v[lo]);
	if (n < len)
		snprintf(buf + n, len - n, " per op");
}

static void print_value(const struct row *r, int side)
{
	if (r->has[side])
		printf(" %12.*f", r->decimals, r->v[side]);
	else
		printf(" %12s", "-");
}

static void print_text(const struct compare_opts *o, const struct rows *rs, const struct side *sd)
{
	const char *section = "";

	char head[512];

	printf("corecap compare\n  A  %s (%s)\n  B  %s (%s)\n", o->run[0], daemon_name(&sd[0].r),
	       o->run[1], daemon_name(&sd[1].r));
	if (!same_daemon(sd))
		printf("\ndifferent daemons: %s and %s; their op types, pools and locks are their "
		       "own, so compare them per op (whole daemon)\n",
		       daemon_name(&sd[0].r), daemon_name(&sd[1].r));
	headline(rs, sd, head, sizeof(head));
	printf("headline: %s\n", head);
	for (size_t i = 0; i < rs->n; i++) {
		const struct row *r = &rs->v[i];

		if (!r->has[0] && !r->has[1])
			continue;
		if (strcmp(r->section, section) != 0) {
			section = r->section;
			printf("\n%-32s %12s %12s %12s %9s\n", section, "A", "B", "B - A", "B / A");
		}
		printf("  %-30s", r->label);
		print_value(r, 0);
		print_value(r, 1);
		if (r->has[0] && r->has[1]) {
			printf(" %+12.*f", r->decimals, r->v[1] - r->v[0]);
			if (r->v[0] != 0)
				printf(" %8.2fx", r->v[1] / r->v[0]);
		}
		printf("\n");
	}
	printf("\n");
	for (int s = 0; s < 2; s++)
		if (!corecap_model_has_ops(sd[s].r.model))
			printf("%c: ops, lock, cond, I/O and logging figures not measured (no "
			       "trace)\n",
			       'A' + s);
	printf("ceiling A  %s\nceiling B  %s\n",
	       sd[0].r.ceiling->verdict ? sd[0].r.ceiling->verdict : "?",
	       sd[1].r.ceiling->verdict ? sd[1].r.ceiling->verdict : "?");
}

static json_object *num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static int print_json(const struct compare_opts *o, const struct rows *rs, const struct side *sd)
{
	json_object *root = json_object_new_object(), *sections = json_object_new_object();
	char head[512];
	int ret = 0;

	if (!root || !sections)
		return -ENOMEM;
	json_object_object_add(root, "a", json_object_new_string(o->run[0]));
	json_object_object_add(root, "b", json_object_new_string(o->run[1]));
	json_object_object_add(root, "daemon_a", json_object_new_string(daemon_name(&sd[0].r)));
	json_object_object_add(root, "daemon_b", json_object_new_string(daemon_name(&sd[1].r)));
	json_object_object_add(root, "same_daemon", json_object_new_boolean(same_daemon(sd)));
	headline(rs, sd, head, sizeof(head));
	json_object_object_add(root, "headline", json_object_new_string(head));
	for (size_t i = 0; i < rs->n; i++) {
		const struct row *r = &rs->v[i];
		json_object *sec, *fig = json_object_new_object();

		if (!r->has[0] && !r->has[1]) {
			json_object_put(fig);
			continue;
		}
		if (!json_object_object_get_ex(sections, r->section, &sec)) {
			sec = json_object_new_object();
			json_object_object_add(sections, r->section, sec);
		}
		json_object_object_add(fig, "a", r->has[0] ? num(r->v[0]) : NULL);
		json_object_object_add(fig, "b", r->has[1] ? num(r->v[1]) : NULL);
		json_object_object_add(fig, "delta",
				       r->has[0] && r->has[1] ? num(r->v[1] - r->v[0]) : NULL);
		json_object_object_add(
			fig, "ratio",
			r->has[0] && r->has[1] && r->v[0] != 0 ? num(r->v[1] / r->v[0]) : NULL);
		json_object_object_add(sec, r->key, fig);
	}
	json_object_object_add(root, "figures", sections);
	json_object_object_add(
		root, "ceiling_a",
		json_object_new_string(sd[0].r.ceiling->verdict ? sd[0].r.ceiling->verdict : ""));
	json_object_object_add(
		root, "ceiling_b",
		json_object_new_string(sd[1].r.ceiling->verdict ? sd[1].r.ceiling->verdict : ""));
	if (printf("%s\n",
		   json_object_to_json_string_ext(
			   root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		ret = -EIO;
	json_object_put(root);
	return ret;
}

static int compare_folded(const struct compare_opts *o)
{
	struct flame_stacks fs;
	struct flame_job j[2];
	bool has[2] = {false, false};
	int ret;

	ret = corecap_flame_stacks_init(&fs, o->kind, NULL, NULL);
	for (int s = 0; s < 2 && !ret; s++) {
		ret = corecap_flame_job_init(&j[s], o->run[s], o->symfs, NULL, NULL);
		if (ret)
			break;
		has[s] = true;
		j[s].by_pool = o->by_pool;
		/* Lock addresses differ from run to run: compare locks by label. */
		j[s].merge_lock_instances = true;
		ret = corecap_flame_job_build(&j[s], &fs, s);
	}
	if (!ret) {
		ret = corecap_folded_write(&fs.folded, stdout, 2);
		if (ret)
			corecap_error("cannot write the stacks: %s", strerror(-ret));
		else
			corecap_note("%s: A %llu, B %llu %s", corecap_flame_kind_name(o->kind),
				     (unsigned long long)fs.folded.nodes[FOLDED_ROOT].total[0],
				     (unsigned long long)fs.folded.nodes[FOLDED_ROOT].total[1],
				     corecap_flame_kind_unit(o->kind));
	}
	for (int s = 0; s < 2; s++)
		if (has[s])
			corecap_flame_job_release(&j[s]);
	corecap_flame_stacks_release(&fs);
	return ret;
}

int corecap_cmd_compare(int argc, char **argv)
{
	struct compare_opts o;
	struct side sd[2] = {0};
	struct rows rs = {0};
	int ret;

	ret = parse_args(&o, argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (o.folded)
		return compare_folded(&o) ? 1 : 0;
	for (int s = 0; s < 2 && !ret; s++)
		ret = corecap_report_build_dir(&sd[s].b, &sd[s].run, o.run[s], o.symfs, NULL,
					       &sd[s].r);
	for (int s = 0; s < 2 && !ret; s++) {
		bench_rows(&rs, s, &sd[s].r);
		per_op_rows(&rs, s, &sd[s].r);
		op_rows(&rs, s, &sd[s].r);
		pool_rows(&rs, s, &sd[s].r);
	}
	if (!ret) {
		if (o.json) {
			ret = print_json(&o, &rs, sd);
		} else {
			print_text(&o, &rs, sd);
			ret = ferror(stdout) ? -EIO : 0;
		}
		if (!ret && fflush(stdout))
			ret = -EIO;
		if (ret)
			corecap_error("cannot write the comparison: %s", strerror(-ret));
	}
	free(rs.v);
	for (int s = 0; s < 2; s++) {
		corecap_report_build_release(&sd[s].b);
		corecap_run_close(&sd[s].run);
	}
	return ret ? 1 : 0;
}
