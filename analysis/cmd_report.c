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
#include "thread_origin.h"
#include "cmd_util.h"
#include "critical_attrib.h"
#include "kernel_attrib.h"
#include "model/ceiling.h"
#include "model/projection.h"
#include "model/lines.h"
#include "model/model.h"
#include "model/net_ops.h"
#include "model/pool_table.h"
#include "read/ceph_files.h"
#include "read/ctf_reader.h"
#include "read/manifest.h"
#include "read/shim_stats.h"
#include "read/symbolizer.h"
#include "read/thread_samples.h"
#include "render/out_file.h"
#include "render/report.h"
#include <corecap/run_format.h>

#define DEFAULT_LOG_SYMBOLS CORECAP_DEFAULT_LOG_SYMBOLS /* model/stack_class.h */

enum report_ops { OPS_AUTO, OPS_ANNOTATED, OPS_DETECTED };

struct report_opts {
	const char *run;
	bool json;
	const char *symfs;
	const char *log_symbols;
	const char *op_pools;
	const char *dump_ops;
	bool check_conservation;
	bool lines;
	bool keep_shim_frames;
	unsigned long top;
	enum lock_sort lock_sort; /* --sort */
	enum report_ops ops;	  /* where ops come from: --ops */
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
	struct net_ops net;  /* the op detector, when ops are detected */
	bool detecting;	     /* events go through net */
	uint64_t net_events; /* the daemon's socket I/O events that moved bytes */
	struct pool_table pools;
	struct ceiling ceiling;
	struct projection projection;
	char **traces;
	size_t n_traces;
	uint64_t foreign_events;
	const char *missing[8];
	size_t n_missing;
	char **warnings;
	size_t n_warnings;
	bool has_stats;
	const char *incomplete_reason; /* the analysis found the run incomplete */
	uint64_t shim_io_calls, shim_contentions, shim_lock_wait_ns;
	bool has_ctx_switches;
	uint64_t ctx_switches;
	struct shim_io_delta shim_io[CORECAP_IO_CLASSES];
	FILE *dump;
	struct out_file dump_file;   /* --dump-ops */
	struct ceph_files ceph;	     /* RUN/ceph/, from a Ceph daemon's admin socket */
	struct ceph_sampled sampled; /* its ops' categories, from wall samples */
	bool has_sampled;
	const char *sampled_why_not;
	const char *no_trace_why; /* why a run with a manifest has no trace */
	struct kernel_quality kernel;
	bool has_kernel;
	struct critical_attrib crit; /* the ops' critical paths, fed with the trace */
	bool has_crit;
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

static size_t frame_sources(void *ctx, uint64_t addr, struct report_frame *out, size_t max)
{
	struct report_job *j = ctx;
	const struct sym_frame *f;
	size_t n;

	if (!j->has_sym || !addr)
		return 0;
	/* A return address: its call is the byte before it. */
	n = corecap_symbolizer_frames(&j->sym, addr - 1, &f);
	if (n > max)
		n = max;
	for (size_t i = 0; i < n; i++)
		out[i] = (struct report_frame){f[i].function, f[i].file, f[i].line, f[i].inlined};
	return n;
}

/*
 * The frames of the shim and LTTng-UST, cut from the sampled wait stacks
 * (a stack keeps at least its site): they are the profiler's, not the
 * daemon's.
 */
static void cut_shim_frames(struct report_job *j, struct lock_table *t)
{
	if (!j->has_sym || j->o.keep_shim_frames)
		return;
	for (size_t i = 0; i < t->len; i++) {
		struct model_lock *l = t->all[i];

		for (size_t s = 0; s < l->n_stacks; s++) {
			struct lock_stack *st = &l->stacks[s];
			uint32_t kept = 0;

			for (uint32_t k = 0; k < st->depth; k++)
				if (k == 0 || !corecap_symbolizer_is_shim(&j->sym, st->frames[k]))
					st->frames[kept++] = st->frames[k];
			st->depth = kept;
		}
	}
}

static int consume(void *ctx, const struct model_event *ev)
{
	struct report_job *j = ctx;
	int ret;

	if (j->detecting) /* its events go to the critical path as it passes them on */
		return corecap_net_ops_consume(&j->net, ev);
	if (j->has_crit && (ret = corecap_critical_attrib_event(&j->crit, ev)))
		return ret;
	if (ev->kind == MEV_IO && ev->io.io_class == CORECAP_IO_NET && ev->io.bytes > 0 &&
	    (j->model.cfg.pid < 0 || ev->pid < 0 || ev->pid == j->model.cfg.pid))
		j->net_events++;
	return corecap_model_consume(&j->model, ev);
}

/* The kernel records, loaded before the trace for the ops' critical paths. */
static int open_critical(struct report_job *j, struct model_config *cfg)
{
	char *err = NULL;
	int ret;

	if (!cfg->has_window)
		return 0;
	ret = corecap_critical_attrib_open(&j->crit, j->o.run, cfg->window_start_ns,
					   cfg->window_end_ns, cfg->pid, site_is_logging, j, &err);
	j->has_crit = ret == 0;
	if (ret < 0)
		corecap_analysis_error("%s", err ? err : strerror(-ret));
	if (j->has_crit) {
		cfg->op_end = corecap_critical_attrib_op_end;
		cfg->op_end_ctx = &j->crit;
	}
	free(err);
	return ret < 0 ? ret : 0;
}

static int load_manifest(struct report_job *j)
{
	char *path = corecap_path_in(j->o.run, CORECAP_RUN_MANIFEST), *err = NULL;
	int ret;

	if (!path)
		return -ENOMEM;
	corecap_manifest_init(&j->manifest);
	ret = corecap_manifest_load(&j->manifest, path, &err);
	if (ret == -ENOENT) {
		j->missing[j->n_missing++] = CORECAP_RUN_MANIFEST;
		ret = warn(j, "no " CORECAP_RUN_MANIFEST
			      ": a partial run; the window is the trace's first to "
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
	char *root = corecap_path_in(j->o.run, CORECAP_RUN_TRACE), *err = NULL;
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
	char *maps = corecap_path_in(j->o.run, CORECAP_RUN_MAPS),
	     *ids = corecap_path_in(j->o.run, CORECAP_RUN_BUILDIDS);
	char *err = NULL;
	int ret;

	if (!maps || !ids) {
		ret = -ENOMEM;
		goto out;
	}
	ret = corecap_symbolizer_init(&j->sym, maps, ids, j->o.symfs, &err);
	j->has_sym = ret == 0 || ret == -ENOENT;
	if (ret == -ENOENT) {
		j->missing[j->n_missing++] = CORECAP_RUN_MAPS;
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

/* One pass over the trace into a fresh model, detecting ops or not. */
static int read_pass(struct report_job *j, bool detect)
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

	if ((ret = open_critical(j, &cfg)))
		return ret;
	ret = corecap_model_init(&j->model, &cfg);
	if (ret)
		return ret;
	j->has_model = true;
	j->detecting = detect;
	if (detect)
		corecap_net_ops_init(&j->net, &j->model, cfg.pid);
	if (detect && j->has_crit)
		corecap_net_ops_tap(&j->net, corecap_critical_attrib_tap, &j->crit);
	ret = corecap_ctf_reader_init(&r, j->traces, j->n_traces, consume, j);
	if (!ret)
		ret = corecap_ctf_reader_run(&r);
	if (ret)
		corecap_analysis_error("cannot read trace '%s/" CORECAP_RUN_TRACE "': %s", j->o.run,
				       corecap_ctf_reader_error(&r) ? corecap_ctf_reader_error(&r)
								    : strerror(-ret));
	j->foreign_events = r.foreign_events;
	if (!ret)
		ret = trace_shortfall(j, &r);
	corecap_ctf_reader_release(&r);
	if (!ret && detect)
		ret = corecap_net_ops_finish(&j->net);
	if (!ret && j->has_crit)
		ret = corecap_critical_attrib_finish(&j->crit);
	if (!ret)
		ret = corecap_model_finish(&j->model);
	j->model.src.trace = ret == 0;
	return ret;
}

/*
 * --ops auto reads the annotations; a daemon that made none but whose
 * socket I/O was traced (CORECAP_NET_EVENTS=on) gets a second pass that
 * detects its ops from that I/O (model/net_ops.h).
 */
static int read_trace(struct report_job *j)
{
	int ret = read_pass(j, j->o.ops == OPS_DETECTED);

	if (ret || j->o.ops != OPS_AUTO || j->model.ops.finished || !j->net_events ||
	    j->model.ops.n_types)
		return ret;
	corecap_model_release(&j->model);
	j->has_model = false;
	if (j->has_crit)
		corecap_critical_attrib_release(&j->crit);
	j->has_crit = false;
	return read_pass(j, true);
}

/*
 * The model of a run without a trace (recorded with --no-trace, or of a
 * daemon not under the shim, whose session recorded nothing): what the
 * other sources give; the trace's figures are not measured.
 */
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
		corecap_analysis_error("'%s/" CORECAP_RUN_MANIFEST
				       "': a run without a trace needs the manifest's window",
				       j->o.run);
		return -EINVAL;
	}
	j->missing[j->n_missing++] = CORECAP_RUN_TRACE;
	ret = corecap_model_init(&j->model, &cfg);
	if (ret)
		return ret;
	j->has_model = true;
	return corecap_model_finish(&j->model);
}

/* A partial run with a window: what is missing or unreadable is reported without. */
static bool partial_with_window(const struct report_job *j)
{
	return j->has_manifest && j->manifest.partial && j->manifest.has_window;
}

static int trace_or_partial(struct report_job *j)
{
	char *root = corecap_path_in(j->o.run, CORECAP_RUN_TRACE);
	struct stat st;
	int ret;

	if (!root)
		return -ENOMEM;
	if (partial_with_window(j) && stat(root, &st) != 0) {
		free(root);
		j->no_trace_why =
			"no " CORECAP_RUN_TRACE "/ in this partial run (its collector stopped "
			"before the trace was started)";
		return no_trace(j);
	}
	free(root);
	ret = find_traces(j);
	if (!ret)
		ret = read_trace(j);
	if (ret && partial_with_window(j)) {
		/* Killed collectors leave traces cut mid-packet, or still being written. */
		if (j->has_model)
			corecap_model_release(&j->model);
		j->has_model = false;
		j->no_trace_why = "the trace of this partial run cannot be read (the error "
				  "above)";
		ret = no_trace(j);
	}
	return ret;
}

/* RUN/kernel/: exact thread states and the futex lock table. */
static int read_kernel(struct report_job *j)
{
	const struct kernel_quality *k = &j->kernel;
	char *err = NULL;
	int ret;

	if (j->has_crit && j->crit.loaded)
		ret = corecap_kernel_attrib_loaded(&j->model, &j->crit.k, j->o.run,
						   j->has_sym ? &j->sym : NULL, &j->kernel, &err);
	else
		ret = corecap_kernel_attrib(&j->model, j->o.run, j->has_sym ? &j->sym : NULL,
					    &j->kernel, &err);
	if (j->has_crit)
		corecap_critical_attrib_drop_records(&j->crit);
	if (ret == 1) {
		/* Absent: missing only where the manifest says it was recorded. */
		if (j->has_manifest && j->manifest.src_kernel)
			j->missing[j->n_missing++] = CORECAP_KERNEL_DIR;
		ret = j->has_manifest && j->manifest.src_kernel
			      ? warn(j, "the manifest lists kernel events "
					"but " CORECAP_KERNEL_EVENTS_FILE " is "
					"absent: thread states come from " CORECAP_RUN_THREADS)
			      : 0;
		goto out;
	}
	if (ret) {
		corecap_analysis_error("%s", err ? err : strerror(-ret));
		goto out;
	}
	j->has_kernel = true;
	if (k->lost || (j->manifest.has_kernel_lost && j->manifest.kernel_lost))
		ret = warn(
			j,
			"the kernel's ring buffers lost %llu records: thread states and futex "
			"waits around the losses are approximate, the futex figures lower bounds",
			(unsigned long long)(k->lost > j->manifest.kernel_lost
						     ? k->lost
						     : j->manifest.kernel_lost));
	if (!ret && k->inconsistent)
		ret = warn(j,
			   "%llu scheduler transitions contradicted a thread's state (a lost "
			   "record); the state was resynchronized",
			   (unsigned long long)k->inconsistent);
	if (!ret && k->futex.waits > k->futex.waits_no_sleep && !k->futex.waits_with_stack)
		ret = warn(j, "no futex wait has a sampled user stack: futex locks are named by "
			      "address only");
	if (!ret && (k->unknown_records || k->trailing_bytes))
		ret = warn(j,
			   CORECAP_KERNEL_DIR
			   "/: %llu records of unknown types skipped, %llu bytes of a "
			   "trailing fragment ignored",
			   (unsigned long long)k->unknown_records,
			   (unsigned long long)k->trailing_bytes);
out:
	free(err);
	return ret;
}

/* Says what a run without a trace lacks, once the other sources are read. */
static int no_trace_warning(struct report_job *j)
{
	const char *why = j->no_trace_why ? j->no_trace_why : "recorded with --no-trace";

	if (j->model.src.trace)
		return 0;
	if (j->model.src.stats || j->model.src.futex)
		return warn(j,
			    "no trace (%s): op figures and per-thread lock, cond, I/O and "
			    "logging times are not measured; locks from %s",
			    why,
			    j->model.src.stats && j->model.src.futex ? "the shim's counters and "
								       "kernel futex events"
			    : j->model.src.stats		     ? "the shim's counters only"
								     : "kernel futex events only");
	return warn(j,
		    "no trace (%s) and no shim counters: op, lock, cond, I/O and logging figures "
		    "are not measured (run the daemon under `corecap run`, or record kernel "
		    "events, for locks)",
		    why);
}

static int read_samples(struct report_job *j)
{
	struct thread_samples s;
	char *path = corecap_path_in(j->o.run, CORECAP_RUN_THREADS), *err = NULL;
	int ret;

	if (!path)
		return -ENOMEM;
	corecap_thread_samples_init(&s);
	ret = corecap_thread_samples_load(&s, path, j->model.ws, j->model.we, &err);
	if (ret == -ENOENT) {
		j->missing[j->n_missing++] = CORECAP_RUN_THREADS;
		ret = warn(j, "no " CORECAP_RUN_THREADS
			      ": thread and pool CPU figures, cores used and the "
			      "thread/pool/cores ceilings are unknown");
	} else if (ret) {
		corecap_analysis_error("%s", err ? err : strerror(-ret));
	} else {
		if (s.torn_last_line) {
			ret = warn(j, CORECAP_RUN_THREADS
				   " ends in a torn line (the collector was killed "
				   "while writing it): read up to its last whole line");
			if (!j->manifest.partial) {
				j->manifest.partial = true;
				j->manifest.partial_reason =
					CORECAP_RUN_THREADS " ends in a torn line";
			}
		}
		for (size_t i = 0; i < s.len && !ret; i++) {
			const struct sampled_thread *t = &s.threads[i];
			uint64_t cpu, runq, span, cs;
			bool has_runq;

			corecap_sampled_thread_figures(t, &cpu, &runq, &has_runq, &span);
			if (corecap_sampled_thread_cs(t, &cs)) {
				j->ctx_switches += cs;
				j->has_ctx_switches = true;
			}
			ret = corecap_model_set_thread_cpu(&j->model, t->tid, t->comm, cpu, runq,
							   has_runq, span);
		}
		if (!ret && !s.len)
			ret = warn(j, CORECAP_RUN_THREADS " has no sample inside the window");
		else if (!ret && s.last_ns - s.first_ns < corecap_model_window_ns(&j->model) / 2)
			ret = warn(j,
				   CORECAP_RUN_THREADS " covers only %.3f s of the %.3f s window",
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
	char *begin = corecap_path_in(j->o.run, CORECAP_RUN_STATS_BEGIN),
	     *end = corecap_path_in(j->o.run, CORECAP_RUN_STATS_END);
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
		/* Without a trace either, no_trace_warning says what that leaves. */
		ret = j->model.src.trace
			      ? warn(j, "no shim stats (" CORECAP_RUN_STATS_BEGIN
					"/" CORECAP_RUN_STATS_END "): lock acquisitions "
					"are unknown and hold times come from hold events alone")
			      : 0;
	} else if (ret) {
		/* The counters are a complement: say why they are missing and go on. */
		ret = warn(j, "shim stats unusable: %s", err ? err : strerror(-ret));
	} else {
		j->has_stats = true;
		j->model.src.stats = true;
		j->shim_io_calls = st.io_calls;
		j->shim_contentions = st.contentions;
		j->shim_lock_wait_ns = st.lock_wait_ns;
		memcpy(j->shim_io, st.io, sizeof(j->shim_io));
		if (st.aio_untimed)
			ret = warn(j,
				   "the shim could not time %llu async I/Os (in-flight table full)",
				   (unsigned long long)st.aio_untimed);
		for (size_t i = 0; i < st.n_locks && !ret; i++) {
			const struct shim_lock_delta *l = &st.locks[i];

			ret = corecap_model_set_lock_stats(&j->model, l->addr, l->kind,
							   l->acquisitions, l->contentions,
							   l->wait_ns, l->holds, l->hold_ns);
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
		{"sort", required_argument, NULL, 'S'},
		{"lines", no_argument, NULL, 'L'},
		{"keep-shim-frames", no_argument, NULL, 'K'},
		{"ops", required_argument, NULL, 'O'},
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
		case 'L':
			o->lines = true;
			break;
		case 'K':
			o->keep_shim_frames = true;
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
		case 'S':
			if (!corecap_lock_sort_parse(optarg, &o->lock_sort)) {
				corecap_analysis_error("invalid --sort '%s': expected wait, "
						       "contended, hold, avg or max",
						       optarg);
				return 2;
			}
			break;
		case 'O':
			if (strcmp(optarg, "auto") == 0)
				o->ops = OPS_AUTO;
			else if (strcmp(optarg, "annotated") == 0)
				o->ops = OPS_ANNOTATED;
			else if (strcmp(optarg, "detected") == 0)
				o->ops = OPS_DETECTED;
			else {
				corecap_analysis_error(
					"invalid --ops '%s': expected auto, annotated "
					"or detected",
					optarg);
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

/* Threads left with the process's name get their start routine's (thread_origin.h). */
static int name_threads(struct report_job *j)
{
	char *path, *err = NULL;
	size_t renamed = 0, unnamed = 0;
	int ret;

	if (!j->has_manifest || !j->manifest.comm || !j->has_sym)
		return 0;
	path = corecap_path_in(j->o.run, CORECAP_RUN_WALL);
	if (!path)
		return -ENOMEM;
	ret = corecap_thread_origin_name(&j->model.threads, path, j->manifest.comm, j->manifest.pid,
					 &j->sym, &renamed, &unnamed, &err);
	if (ret == -ENOENT) {
		ret = 0;
		if (unnamed > 1)
			ret = warn(j,
				   "%zu threads carry the process's name '%s' (the daemon names "
				   "none): record with --wallclock to name them by their start "
				   "routine",
				   unnamed, j->manifest.comm);
	} else if (ret) {
		ret = warn(j, "threads not named by their start routine: %s",
			   err ? err : strerror(-ret));
	} else if (unnamed) {
		ret = warn(j,
			   "%zu threads keep the process's name '%s': they were not sampled, "
			   "or no sampled stack of theirs reaches their start routine",
			   unnamed, j->manifest.comm);
	}
	free(err);
	free(path);
	return ret;
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
	if (j->detecting)
		corecap_net_ops_release(&j->net);
	if (j->has_crit)
		corecap_critical_attrib_release(&j->crit);
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
	/* A collector killed before its window leaves nothing to measure: say so. */
	if (j->has_manifest && j->manifest.partial && !j->manifest.has_window) {
		fprintf(stderr,
			"corecap: '%s' is a partial run that never started its window "
			"(%s): nothing was measured\n",
			j->o.run, j->manifest.partial_reason ? j->manifest.partial_reason : "?");
		return -ENODATA;
	}
	/*
	 * A run recorded with --no-trace says so, and so does one of a daemon
	 * that was not registered with LTTng (not under the shim): the session
	 * recorded nothing of it, so its trace, if any, is not read. A trace
	 * missing otherwise is an error (something was lost), unless the run is
	 * partial: a killed collector may leave no trace or one cut short.
	 */
	if (j->has_manifest && !j->manifest.src_trace) {
		ret = no_trace(j);
	} else if (j->has_manifest && j->manifest.has_target_registered &&
		   !j->manifest.target_registered) {
		j->no_trace_why = "the daemon was not registered with LTTng: not started under "
				  "`corecap run`";
		ret = no_trace(j);
	} else {
		ret = trace_or_partial(j);
	}
	if (ret)
		return ret;
	if (!corecap_model_window_ns(&j->model)) {
		corecap_analysis_error("'%s/" CORECAP_RUN_TRACE
				       "': empty window: the trace holds no event of the daemon",
				       j->o.run);
		return -EINVAL;
	}
	if ((ret = read_samples(j)) || (ret = read_stats(j)) || (ret = name_threads(j)) ||
	    (ret = read_kernel(j)) || (ret = no_trace_warning(j)))
		return ret;
	cut_shim_frames(j, &j->model.locks);
	cut_shim_frames(j, &j->model.futex_locks); /* kernel stacks pass through mutex_slow too */
	corecap_lock_table_symbolize(&j->model.locks, name_address, j);
	corecap_lock_table_sort_stacks(&j->model.locks);
	corecap_lock_table_symbolize(&j->model.futex_locks, name_address, j);
	corecap_lock_table_sort_stacks(&j->model.futex_locks);
	ret = corecap_pool_table_build(&j->pools, &j->model.threads,
				       corecap_model_window_ns(&j->model));
	if (ret)
		return ret;
	in = (struct ceiling_inputs){
		.model = &j->model,
		.pools = &j->pools,
		.cores_available = j->has_manifest ? j->manifest.nproc : 0,
	};
	corecap_projection_compute(
		&j->projection,
		&(struct projection_inputs){
			.model = &j->model,
			.pools = &j->pools,
			.cores_available = j->has_manifest && j->manifest.daemon_cpus
						   ? j->manifest.daemon_cpus
						   : in.cores_available,
			.machine_cpus = in.cores_available,
			.bench_iops = j->has_manifest && j->manifest.bench.has_iops
					      ? j->manifest.bench.iops_avg
					      : 0,
			.machine_busy_cpu_s = j->has_manifest && j->manifest.has_machine_busy
						      ? j->manifest.machine_busy_cpu_s
						      : -1,
			.bench_cpu_s = j->has_manifest && j->manifest.has_bench_cpu
					       ? j->manifest.bench_cpu_s
					       : -1,
		});
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
		.projection = &j->projection,
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
		.shim_io_calls = j->shim_io_calls,
		.shim_contentions = j->shim_contentions,
		.shim_lock_wait_ns = j->shim_lock_wait_ns,
		.has_ctx_switches = j->has_ctx_switches,
		.ctx_switches = j->ctx_switches,
		.shim_io = j->has_stats ? j->shim_io : NULL,
		.top_locks = j->o.top,
		.lock_sort = j->o.lock_sort,
		.frame_name = frame_name,
		.frame_sources = frame_sources,
		.frame_ctx = j,
		.lines = j->o.lines,
		.symbolizer = j->has_sym ? &j->sym : NULL,
		.ceph = &j->ceph,
		.ceph_sampled = j->has_sampled ? &j->sampled : NULL,
		.ceph_sampled_why_not = j->sampled_why_not,
		.kernel = j->has_kernel ? &j->kernel : NULL,
		.net_ops = j->detecting ? &j->net : NULL,
		.critical_path = j->has_crit ? &j->crit.cp : NULL,
	};
	return 0;
}

static int analyse(struct report_job *j)
{
	struct report r;
	int ret;

	ret = build(j, &r);
	if (ret == -ENODATA && j->o.json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "run_dir", json_object_new_string(j->o.run));
		json_object_object_add(o, "partial", json_object_new_boolean(1));
		json_object_object_add(o, "partial_reason",
				       j->manifest.partial_reason
					       ? json_object_new_string(j->manifest.partial_reason)
					       : NULL);
		json_object_object_add(o, "measured", json_object_new_boolean(0));
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
		json_object_put(o);
		return 0;
	}
	if (ret == -ENODATA) {
		printf("corecap report: %s\n\npartial run: its window never started; nothing was "
		       "measured\n",
		       j->o.run);
		return 0;
	}
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
	if (j.o.dump_ops) {
		if (corecap_out_file_open(&j.dump_file, j.o.dump_ops) < 0)
			return 1;
		j.dump = j.dump_file.f;
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
	/* Ops that break conservation are what the dump is for: keep it then. */
	if (j.dump && ret && ret != -EDOM)
		corecap_out_file_abort(&j.dump_file);
	else if (j.dump)
		ret = corecap_out_file_commit(&j.dump_file);
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
	/* The model keeps every frame: the flame graphs cut the shim's by their own option. */
	j->o.keep_shim_frames = true;
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
