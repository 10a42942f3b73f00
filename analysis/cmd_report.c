/*
 * `corecap report RUN`: reads a run directory (reading room), builds the
 * model (thread states, attribution, locks, pools, ceiling) and renders
 * it as text or JSON. This file only wires the rooms together and decides
 * what the data-quality warnings say.
 */
#include <corecap/analysis.h>

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ceph_attrib.h"
#include "cmd_util.h"
#include "model/ceiling.h"
#include "model/lines.h"
#include "model/model.h"
#include "model/pool_table.h"
#include "read/ceph_files.h"
#include "read/ctf_reader.h"
#include "read/manifest.h"
#include "read/shim_stats.h"
#include "read/symbolizer.h"
#include "read/thread_samples.h"
#include "render/report.h"

/* Log calls, Ceph's log code and its entries' streams, and formatting into
 * a std::ostream (what Ceph's dout does in the op path: operator<< and
 * gen_prefix(std::ostream&), libstdc++'s inserters). */
#define DEFAULT_LOG_SYMBOLS                                                                        \
	"log_*,ceph::logging::*,*StackStringStream*,*StackStringBuf*,*(std::ostream&*,"            \
	"std::basic_ostream*,std::ostream::*,std::__ostream_insert*,std::num_put*"

struct report_opts {
	const char *run;
	bool json;
	const char *symfs;
	const char *log_symbols;
	const char *op_pools;
	const char *dump_ops;
	bool check_conservation;
	unsigned long top;
};

/* Everything one report needs, released in one place. */
struct report_job {
	struct report_opts o;
	struct run_manifest manifest;
	bool has_manifest;
	struct symbolizer sym;
	bool has_sym;
	char **log_patterns;
	size_t n_log_patterns;
	struct model model;
	bool has_model;
	struct pool_table pools;
	struct ceiling ceiling;
	char **traces;
	size_t n_traces;
	uint64_t foreign_events;
	const char *missing[8];
	size_t n_missing;
	char **warnings;
	size_t n_warnings;
	bool has_stats;
	const char *incomplete_reason; /* the analysis found the run incomplete */
	FILE *dump;
	struct ceph_files ceph;	     /* RUN/ceph/, from a Ceph daemon's admin socket */
	struct ceph_sampled sampled; /* its ops' categories, from wall samples */
	bool has_sampled;
	const char *sampled_why_not;
};

static int warn(struct report_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int warn(struct report_job *j, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = corecap_lines_vadd(&j->warnings, &j->n_warnings, fmt, ap);
	va_end(ap);
	return ret;
}

/* The logging rule: does the function holding this call site match a pattern? */
static bool site_is_logging(void *ctx, uint64_t site)
{
	struct report_job *j = ctx;
	struct sym_info info;

	if (!j->has_sym || !corecap_symbolizer_lookup(&j->sym, site, &info) || !info.symbol)
		return false;
	for (size_t i = 0; i < j->n_log_patterns; i++)
		if (fnmatch(j->log_patterns[i], info.symbol, 0) == 0)
			return true;
	return false;
}

static char *name_address(void *ctx, uint64_t addr, bool code)
{
	struct report_job *j = ctx;
	char *s;

	if (j->has_sym)
		return strdup(corecap_symbolizer_name(&j->sym, addr, code));
	return asprintf(&s, "0x%llx", (unsigned long long)addr) < 0 ? NULL : s;
}

static const char *frame_name(void *ctx, uint64_t addr)
{
	struct report_job *j = ctx;
	static char buf[24];

	if (j->has_sym)
		return corecap_symbolizer_name(&j->sym, addr, true);
	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)addr);
	return buf;
}

static int consume(void *ctx, const struct model_event *ev)
{
	return corecap_model_consume(ctx, ev);
}

static int load_manifest(struct report_job *j)
{
	char *path = corecap_path_in(j->o.run, "manifest.json"), *err = NULL;
	int ret;

	if (!path)
		return -ENOMEM;
	corecap_manifest_init(&j->manifest);
	ret = corecap_manifest_load(&j->manifest, path, &err);
	if (ret == -ENOENT) {
		j->missing[j->n_missing++] = "manifest.json";
		ret = warn(j, "no manifest.json: a partial run; the window is the trace's first to "
			      "last event and the benchmark is unknown");
	} else if (ret) {
		corecap_analysis_error("%s", err ? err : strerror(-ret));
		ret = -EINVAL;
	} else {
		j->has_manifest = true;
		for (size_t i = 0; i < j->manifest.n_warnings && !ret; i++)
			ret = warn(j, "%s", j->manifest.warnings[i]);
		if (!ret && j->manifest.partial)
			ret = warn(j, "partial run: %s",
				   j->manifest.partial_reason ? j->manifest.partial_reason
							      : "the recording did not complete");
	}
	free(err);
	free(path);
	return ret;
}

static int find_traces(struct report_job *j)
{
	char *root = corecap_path_in(j->o.run, "trace"), *err = NULL;
	struct stat st;
	int ret;

	if (!root)
		return -ENOMEM;
	if (stat(root, &st) != 0) {
		corecap_analysis_error("cannot open trace '%s': %s", root, strerror(errno));
		ret = -ENOENT;
		goto out;
	}
	ret = corecap_ctf_reader_find_traces(root, &j->traces, &j->n_traces, &err);
	if (ret) {
		corecap_analysis_error("%s", err ? err : strerror(-ret));
	} else if (!j->n_traces) {
		corecap_analysis_error("no CTF trace under '%s' (no 'metadata' file found)", root);
		ret = -ENOENT;
	}
out:
	free(err);
	free(root);
	return ret;
}

static int load_symbols(struct report_job *j)
{
	char *maps = corecap_path_in(j->o.run, "maps"),
	     *ids = corecap_path_in(j->o.run, "buildids.tsv");
	char *err = NULL;
	int ret;

	if (!maps || !ids) {
		ret = -ENOMEM;
		goto out;
	}
	ret = corecap_symbolizer_init(&j->sym, maps, ids, j->o.symfs, &err);
	j->has_sym = ret == 0 || ret == -ENOENT;
	if (ret == -ENOENT) {
		j->missing[j->n_missing++] = "maps";
		ret = warn(j, "no maps file: addresses are shown in hex, and no lock site can be "
			      "recognized as logging code");
	} else if (ret) {
		corecap_analysis_error("%s", err ? err : strerror(-ret));
	}
out:
	free(err);
	free(maps);
	free(ids);
	return ret;
}

/* A stream file cut short (an interrupted recording) loses packets without
 * an error from the library: the indexes say how many. */
static int trace_shortfall(struct report_job *j, const struct ctf_reader *r)
{
	uint64_t missing = corecap_ctf_reader_missing_packets(r);

	if (!missing)
		return 0;
	j->incomplete_reason = "the trace is cut short: packets its indexes list are missing";
	return warn(j,
		    "the trace is cut short: %llu of the %llu packets its stream indexes list are "
		    "missing (%llu bytes; first in '%s'): their events and the ops they touch "
		    "are not in the figures",
		    (unsigned long long)missing, (unsigned long long)r->check.index_packets,
		    (unsigned long long)r->check.missing_bytes,
		    r->check.streams_cut ? r->check.cut_name : "?");
}

static int read_trace(struct report_job *j)
{
	struct ctf_reader r;
	struct model_config cfg = {
		.has_window = j->has_manifest && j->manifest.has_window,
		.window_start_ns = j->manifest.window_start_ns,
		.window_end_ns = j->manifest.window_end_ns,
		.pid = j->has_manifest ? j->manifest.pid : -1,
		.site_is_logging = site_is_logging,
		.classify_ctx = j,
		.dump_ops = j->dump,
	};
	int ret;

	ret = corecap_model_init(&j->model, &cfg);
	if (ret)
		return ret;
	j->has_model = true;
	ret = corecap_ctf_reader_init(&r, j->traces, j->n_traces, consume, &j->model);
	if (!ret)
		ret = corecap_ctf_reader_run(&r);
	if (ret)
		corecap_analysis_error("cannot read trace '%s/trace': %s", j->o.run,
				       corecap_ctf_reader_error(&r) ? corecap_ctf_reader_error(&r)
								    : strerror(-ret));
	j->foreign_events = r.foreign_events;
	if (!ret)
		ret = trace_shortfall(j, &r);
	corecap_ctf_reader_release(&r);
	if (!ret)
		ret = corecap_model_finish(&j->model);
	return ret;
}

/* The model of a run without a trace: threads and lock counters only. */
static int no_trace(struct report_job *j)
{
	struct model_config cfg = {
		.has_window = j->manifest.has_window,
		.window_start_ns = j->manifest.window_start_ns,
		.window_end_ns = j->manifest.window_end_ns,
		.pid = j->manifest.pid,
	};
	int ret;

	if (!j->manifest.has_window) {
		corecap_analysis_error(
			"'%s/manifest.json': a run without a trace needs the manifest's window",
			j->o.run);
		return -EINVAL;
	}
	j->missing[j->n_missing++] = "trace";
	ret = corecap_model_init(&j->model, &cfg);
	if (ret)
		return ret;
	j->has_model = true;
	ret = corecap_model_finish(&j->model);
	return ret ? ret
		   : warn(j, "recorded without a trace (--no-trace): no per-op figures; lock "
			     "figures from the shim's counters only");
}

static int read_samples(struct report_job *j)
{
	struct thread_samples s;
	char *path = corecap_path_in(j->o.run, "threads.tsv"), *err = NULL;
	int ret;

	if (!path)
		return -ENOMEM;
	corecap_thread_samples_init(&s);
	ret = corecap_thread_samples_load(&s, path, j->model.ws, j->model.we, &err);
	if (ret == -ENOENT) {
		j->missing[j->n_missing++] = "threads.tsv";
		ret = warn(j, "no threads.tsv: thread and pool CPU figures, cores used and the "
			      "thread/pool/cores ceilings are unknown");
	} else if (ret) {
		corecap_analysis_error("%s", err ? err : strerror(-ret));
	} else {
		for (size_t i = 0; i < s.len && !ret; i++) {
			const struct sampled_thread *t = &s.threads[i];
			uint64_t cpu, runq, span;
			bool has_runq;

			corecap_sampled_thread_figures(t, &cpu, &runq, &has_runq, &span);
			ret = corecap_model_set_thread_cpu(&j->model, t->tid, t->comm, cpu, runq,
							   has_runq, span);
		}
		if (!ret && !s.len)
			ret = warn(j, "threads.tsv has no sample inside the window");
		else if (!ret && s.last_ns - s.first_ns < corecap_model_window_ns(&j->model) / 2)
			ret = warn(j, "threads.tsv covers only %.3f s of the %.3f s window",
				   (s.last_ns - s.first_ns) / 1e9,
				   corecap_model_window_ns(&j->model) / 1e9);
	}
	corecap_thread_samples_release(&s);
	free(err);
	free(path);
	return ret;
}

/*
 * The shim counts every contention of a hot lock, and the trace holds an
 * event for each: a trace with far fewer (a stream cut at a packet
 * boundary with its index) lost events nobody reported. Only when the
 * trace has lock events at all and the tracer reported no loss.
 */
static int shim_shortfall(struct report_job *j)
{
	uint64_t traced = 0, counted = 0;

	for (size_t i = 0; i < j->model.locks.len; i++) {
		const struct model_lock *l = j->model.locks.all[i];

		if (!l->has_stats)
			continue;
		traced += l->contentions;
		counted += l->stats_contentions;
	}
	if (!traced || j->model.q.loss_msgs || counted < 50 || traced >= counted - counted / 10)
		return 0;
	if (!j->incomplete_reason)
		j->incomplete_reason = "the trace lacks events the shim counted";
	return warn(j,
		    "the trace holds %llu lock contentions where the shim counted %llu in the "
		    "window: %.0f%% of the events are missing (a trace cut short?)",
		    (unsigned long long)traced, (unsigned long long)counted,
		    100.0 * (double)(counted - traced) / (double)counted);
}

static int read_stats(struct report_job *j)
{
	struct shim_stats st;
	char *begin = corecap_path_in(j->o.run, "stats-begin"),
	     *end = corecap_path_in(j->o.run, "stats-end");
	char *err = NULL;
	int ret;

	if (!begin || !end) {
		ret = -ENOMEM;
		goto out;
	}
	corecap_shim_stats_init(&st);
	ret = corecap_shim_stats_load(&st, begin, end, &err);
	if (ret == -ENOENT) {
		j->missing[j->n_missing++] = "stats";
		ret = warn(j, "no shim stats (stats-begin/stats-end): lock acquisitions are "
			      "unknown and hold times come from hold events alone");
	} else if (ret) {
		/* The counters are a complement: say why they are missing and go on. */
		ret = warn(j, "shim stats unusable: %s", err ? err : strerror(-ret));
	} else {
		j->has_stats = true;
		for (size_t i = 0; i < st.n_locks && !ret; i++) {
			const struct shim_lock_delta *l = &st.locks[i];

			ret = corecap_model_set_lock_stats(&j->model, l->addr, l->kind,
							   l->acquisitions, l->contentions,
							   l->wait_ns, l->hold_ns);
		}
		for (size_t i = 0; i < st.n_sites && !ret; i++)
			if (corecap_lock_table_set_site_acquisitions(
				    &j->model.locks, st.sites[i].addr, st.sites[i].acquisitions))
				ret = -ENOMEM;
		if (!ret && st.locks_dropped)
			ret = warn(j,
				   "the shim's lock table was full: %llu contended locks have no "
				   "counters",
				   (unsigned long long)st.locks_dropped);
		if (!ret && st.holds_dropped)
			ret = warn(j, "the shim could not time %llu holds (hold stack full)",
				   (unsigned long long)st.holds_dropped);
		if (!ret)
			ret = shim_shortfall(j);
	}
	corecap_shim_stats_release(&st);
out:
	free(err);
	free(begin);
	free(end);
	return ret;
}

static int quality_warnings(struct report_job *j)
{
	const struct model_quality *q = &j->model.q;
	const struct run_manifest *mf = &j->manifest;
	char **problems;
	size_t n;
	int ret = 0;

	if (q->loss_msgs)
		ret = warn(
			j,
			"the tracer lost events (%llu discarded events%s, %llu discarded packets): "
			"%llu ops in flight then were left out of the op figures",
			(unsigned long long)q->discarded_events,
			q->discarded_unknown_msgs ? " plus losses of unknown size" : "",
			(unsigned long long)q->discarded_packets,
			(unsigned long long)q->ops_tainted);
	if (!ret && j->has_manifest && mf->has_lttng_loss &&
	    (mf->lttng_discarded_events || mf->lttng_lost_packets) && !q->loss_msgs)
		ret = warn(j, "the session reported %llu discarded events and %llu lost packets",
			   (unsigned long long)mf->lttng_discarded_events,
			   (unsigned long long)mf->lttng_lost_packets);
	if (!ret && q->events_no_tid)
		ret = warn(j, "%llu events lack the vtid context and were not used",
			   (unsigned long long)q->events_no_tid);
	if (!ret && q->ops_unfinished)
		ret = warn(j, "%llu ops had not ended when the trace stopped (left out)",
			   (unsigned long long)q->ops_unfinished);
	if (!ret && q->ops_without_begin)
		ret = warn(j, "%llu ops began before the trace did (left out)",
			   (unsigned long long)q->ops_without_begin);
	if (!ret &&
	    (q->exit_unmatched || q->implicit_exits || q->enter_twice || q->log_exit_unmatched))
		ret = warn(j,
			   "annotation sequences broken: %llu exits without enter, %llu enters "
			   "without exit, %llu double enters, %llu log_exit without log_enter",
			   (unsigned long long)q->exit_unmatched,
			   (unsigned long long)q->implicit_exits,
			   (unsigned long long)q->enter_twice,
			   (unsigned long long)q->log_exit_unmatched);
	if (!ret && q->ops_ended_elsewhere)
		ret = warn(j,
			   "%llu ops ended on another thread while their owner still had them: the "
			   "owner's time after its last event is `other`",
			   (unsigned long long)q->ops_ended_elsewhere);
	if (!ret && j->has_manifest && mf->bench_exit_status > 0)
		ret = warn(j, "the benchmark exited with status %d", mf->bench_exit_status);
	if (!ret && j->model.ops.violations)
		ret = warn(j, "%llu ops break conservation by more than 1 us (max %llu ns)",
			   (unsigned long long)j->model.ops.violations,
			   (unsigned long long)j->model.ops.max_err_ns);
	if (!ret && j->has_sym) {
		n = corecap_symbolizer_problems(&j->sym, &problems);
		for (size_t i = 0; i < n && !ret; i++)
			ret = warn(j, "symbols: %s", problems[i]);
		free(problems);
	}
	return ret;
}

/* The defaults, for the command line and for the other commands alike. */
static void opts_init(struct report_opts *o)
{
	*o = (struct report_opts){.log_symbols = DEFAULT_LOG_SYMBOLS,
				  .op_pools = CORECAP_DEFAULT_OP_POOLS,
				  .top = 10};
}

static int parse_args(struct report_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},
		{"symfs", required_argument, NULL, 's'},
		{"log-symbols", required_argument, NULL, 'l'},
		{"op-pools", required_argument, NULL, 'o'},
		{"dump-ops", required_argument, NULL, 'd'},
		{"check-conservation", no_argument, NULL, 'c'},
		{"top", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char *end;
	int c;

	opts_init(o);
	optind = 1;
	while ((c = getopt_long(argc, argv, "jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o->json = true;
			break;
		case 's':
			o->symfs = optarg;
			break;
		case 'l':
			o->log_symbols = optarg;
			break;
		case 'o':
			o->op_pools = optarg;
			break;
		case 'd':
			o->dump_ops = optarg;
			break;
		case 'c':
			o->check_conservation = true;
			break;
		case 't':
			errno = 0;
			o->top = strtoul(optarg, &end, 10);
			/* strtoul takes "-1" as ULONG_MAX: a sign is refused. */
			if (errno || end == optarg || *end || !o->top ||
			    !isdigit((unsigned char)*optarg)) {
				corecap_analysis_error(
					"invalid --top '%s': expected a positive count", optarg);
				return 2;
			}
			break;
		case 'h':
			printf("%s", CORECAP_REPORT_USAGE);
			return -1;
		default:
			fprintf(stderr, "%s", CORECAP_REPORT_USAGE);
			return 2;
		}
	}
	if (optind != argc - 1) {
		corecap_analysis_error("report takes one run directory");
		fprintf(stderr, "%s", CORECAP_REPORT_USAGE);
		return 2;
	}
	o->run = argv[optind];
	return 0;
}

/* The OpTracker's ops split into categories by wall-clock samples. */
static int ceph_sampled(struct report_job *j)
{
	struct ceph_attrib_in in = {
		.run_dir = j->o.run,
		.manifest = j->has_manifest ? &j->manifest : NULL,
		.ceph = &j->ceph,
		.threads = &j->model.threads,
		.window_ns = corecap_model_window_ns(&j->model),
		.sym = j->has_sym ? &j->sym : NULL,
		.log_patterns = j->log_patterns,
		.n_log_patterns = j->n_log_patterns,
		.op_pools = j->o.op_pools,
	};
	int ret;

	if (!j->ceph.has_optracker)
		return 0;
	ret = corecap_ceph_attrib(&j->sampled, &in, &j->sampled_why_not);
	j->has_sampled = ret == 0;
	if (ret)
		corecap_ceph_sampled_release(&j->sampled);
	return ret < 0 ? ret : 0;
}

static void job_release(struct report_job *j)
{
	corecap_ceiling_release(&j->ceiling);
	corecap_pool_table_release(&j->pools);
	corecap_ceph_files_release(&j->ceph);
	if (j->has_model)
		corecap_model_release(&j->model);
	if (j->has_sym)
		corecap_symbolizer_release(&j->sym);
	corecap_manifest_release(&j->manifest);
	corecap_ctf_reader_free_traces(j->traces, j->n_traces);
	corecap_list_free(j->log_patterns, j->n_log_patterns);
	if (j->has_sampled)
		corecap_ceph_sampled_release(&j->sampled);
	corecap_lines_release(&j->warnings, &j->n_warnings);
}

/* Reads and models the run into *r, which points into j. */
static int build(struct report_job *j, struct report *r)
{
	struct ceiling_inputs in;
	int ret;

	if ((ret = corecap_run_dir_check(j->o.run)) ||
	    (ret = corecap_list_split(j->o.log_symbols, &j->log_patterns, &j->n_log_patterns)) ||
	    (ret = load_manifest(j)) || (ret = load_symbols(j)))
		return ret;
	/* A run recorded with --no-trace says so; a trace missing otherwise is an error. */
	if (j->has_manifest && !j->manifest.src_trace)
		ret = no_trace(j);
	else if (!(ret = find_traces(j)))
		ret = read_trace(j);
	if (ret)
		return ret;
	if (!corecap_model_window_ns(&j->model)) {
		corecap_analysis_error(
			"'%s/trace': empty window: the trace holds no event of the daemon",
			j->o.run);
		return -EINVAL;
	}
	if ((ret = read_samples(j)) || (ret = read_stats(j)))
		return ret;
	corecap_lock_table_symbolize(&j->model.locks, name_address, j);
	corecap_lock_table_sort_stacks(&j->model.locks);
	ret = corecap_pool_table_build(&j->pools, &j->model.threads,
				       corecap_model_window_ns(&j->model));
	if (ret)
		return ret;
	in = (struct ceiling_inputs){
		.model = &j->model,
		.pools = &j->pools,
		.cores_available = j->has_manifest ? j->manifest.nproc : 0,
	};
	if ((ret = corecap_ceiling_compute(&j->ceiling, &in)) || (ret = quality_warnings(j)) ||
	    (ret = corecap_ceph_files_load(&j->ceph, j->o.run)))
		return ret;
	for (size_t i = 0; i < j->ceph.n_warnings && !ret; i++)
		ret = warn(j, "%s", j->ceph.warnings[i]);
	if (ret || (ret = ceph_sampled(j)))
		return ret;
	*r = (struct report){
		.run_dir = j->o.run,
		.manifest = j->has_manifest ? &j->manifest : NULL,
		.model = &j->model,
		.pools = &j->pools,
		.ceiling = &j->ceiling,
		.cores_available = in.cores_available,
		.window_from_manifest = j->has_manifest && j->manifest.has_window,
		.n_traces = j->n_traces,
		.foreign_events = j->foreign_events,
		.missing = j->missing,
		.n_missing = j->n_missing,
		.warnings = j->warnings,
		.n_warnings = j->n_warnings,
		.has_stats = j->has_stats,
		.incomplete_reason = j->incomplete_reason,
		.top_locks = j->o.top,
		.frame_name = frame_name,
		.frame_ctx = j,
		.ceph = &j->ceph,
		.ceph_sampled = j->has_sampled ? &j->sampled : NULL,
		.ceph_sampled_why_not = j->sampled_why_not,
	};
	return 0;
}

static int analyse(struct report_job *j)
{
	struct report r;
	int ret;

	ret = build(j, &r);
	if (ret)
		return ret;
	ret = j->o.json ? corecap_render_json(&r, stdout) : corecap_render_text(&r, stdout);
	if (!ret && fflush(stdout))
		ret = -EIO;
	if (ret)
		corecap_analysis_error("cannot write the report: %s", strerror(-ret));
	return ret;
}

int cmd_report(int argc, char **argv)
{
	struct report_job j = {0};
	int ret;

	ret = parse_args(&j.o, argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (j.o.dump_ops && !(j.dump = fopen(j.o.dump_ops, "we"))) {
		corecap_analysis_error("cannot create '%s': %s", j.o.dump_ops, strerror(errno));
		return 1;
	}
	ret = analyse(&j);
	if (!ret && j.o.check_conservation) {
		fprintf(stderr,
			"corecap: conservation: %llu ops checked, %llu off by more than 1 us "
			"(max error %llu ns)\n",
			(unsigned long long)j.model.ops.checked,
			(unsigned long long)j.model.ops.violations,
			(unsigned long long)j.model.ops.max_err_ns);
		if (j.model.ops.violations)
			ret = -EDOM;
	}
	if (j.dump && fclose(j.dump) && !ret) {
		corecap_analysis_error("cannot write '%s': %s", j.o.dump_ops, strerror(errno));
		ret = -EIO;
	}
	job_release(&j);
	return ret ? 1 : 0;
}

int corecap_report_open(const char *run, const char *symfs, struct report_job **job,
			struct report *r)
{
	struct report_job *j = calloc(1, sizeof(*j));
	int ret;

	*job = NULL;
	if (!j)
		return -ENOMEM;
	opts_init(&j->o);
	j->o.run = run;
	j->o.symfs = symfs;
	ret = build(j, r);
	if (ret) {
		job_release(j);
		free(j);
		return ret;
	}
	*job = j;
	return 0;
}

void corecap_report_close(struct report_job *j)
{
	if (!j)
		return;
	job_release(j);
	free(j);
}
