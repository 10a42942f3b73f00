#include "report_build.h"

#include <corecap/diag.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <corecap/manifest_keys.h>
#include <corecap/run_format.h>

#include "model/lines.h"
#include "pass/kernel_attrib.h"
#include "pass/report_quality.h"
#include "pass/thread_origin.h"
#include "read/ctf_reader.h"
#include "read/trace_pipe.h"
#include "read/thread_samples.h"

static int warn(struct report_build *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int warn(struct report_build *j, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = corecap_lines_vadd(&j->warnings, &j->n_warnings, fmt, ap);
	va_end(ap);
	return ret;
}

static int consume(void *ctx, const struct model_event *ev)
{
	struct report_build *j = ctx;

	if (j->detecting) /* it hands its events on to the pass */
		return corecap_net_ops_consume(&j->net, ev);
	/* A trace of run format 2 has no vpid (-1): its events are the daemon's. */
	if (ev->kind == MEV_IO && ev->io.io_class == CORECAP_IO_NET && ev->io.bytes > 0 &&
	    (j->model.cfg.pid < 0 || ev->pid < 0 || ev->pid == j->model.cfg.pid))
		j->net_events++;
	return corecap_pass_event(&j->pass, ev);
}

/* Op detection hands the events' names on; the model wants them until named. */
static bool wants_comm(void *ctx, int32_t tid)
{
	const struct report_build *j = ctx;

	return j->detecting || corecap_model_wants_comm(&j->model, tid);
}

/* The OpTracker's ops of the window join the critical path (model/ceph_critical.h). */
static int open_ceph_critical(struct report_build *j)
{
	const struct run_manifest *mf = &j->run->manifest;
	int ret;

	if (!j->ceph.n_spans || !j->run->has_manifest || !mf->has_realtime_offset)
		return 0;
	ret = corecap_ceph_critical_init(&j->ceph_crit, &j->ceph, &j->cp, mf->realtime_offset_ns,
					 j->o.op_pools);
	if (ret)
		return ret;
	j->has_ceph_crit = true;
	return 0;
}

/* The kernel records, once the pass has fed them (the critical path's figures stay). */
static void drop_records(struct report_build *j)
{
	corecap_pass_release(&j->pass);
	if (j->has_krecs)
		corecap_kernel_reader_release(&j->krecs);
	j->has_krecs = false;
}

static void release_critical(struct report_build *j)
{
	if (j->has_kpass)
		corecap_kernel_pass_release(&j->kpass);
	j->has_kpass = false;
	drop_records(j);
	if (j->has_crit)
		corecap_critical_path_release(&j->cp);
	j->has_crit = false;
	if (j->has_ceph_crit)
		corecap_ceph_critical_release(&j->ceph_crit);
	j->has_ceph_crit = false;
}

/*
 * Piped (read/trace_pipe.h), wants_comm runs on the reader's thread: the
 * threads named by name events are remembered there, as the model will
 * name them (corecap_model_event_names).
 */
struct named_threads {
	struct u64map tids;
	int32_t pid;
	bool all; /* op detection wants every procname */
};

static int see_names(void *ctx, const struct model_event *ev)
{
	struct named_threads *n = ctx;
	int32_t tid;

	if (corecap_model_event_names(n->pid, ev, &tid) &&
	    !corecap_u64map_insert(&n->tids, (uint64_t)(uint32_t)tid))
		return -ENOMEM;
	return 0;
}

static bool wants_comm_piped(void *ctx, int32_t tid)
{
	const struct named_threads *n = ctx;

	return n->all || !corecap_u64map_find(&n->tids, (uint64_t)(uint32_t)tid);
}

/*
 * The kernel records, loaded before the trace for the ops' critical paths
 * (with the run's window), and the critical path over them.
 */
static int open_critical(struct report_build *j, const struct model_config *cfg)
{
	char *err = NULL;
	int ret;

	if (!cfg->has_window)
		return 0;
	corecap_kernel_reader_init(&j->krecs);
	ret = corecap_kernel_reader_load(&j->krecs, j->run->dir, cfg->window_start_ns,
					 cfg->window_end_ns, &err);
	if (ret) {
		corecap_kernel_reader_release(&j->krecs);
		if (ret == -ENOENT)
			ret = 0;
		else
			corecap_error("%s", err ? err : strerror(-ret));
		free(err);
		return ret;
	}
	j->has_krecs = true;
	if ((ret = corecap_critical_path_init(&j->cp, cfg->pid, j->krecs.hdr.nr_cpus))) {
		drop_records(j);
		return ret;
	}
	j->has_crit = true;
	j->cp.ws = cfg->window_start_ns;
	j->cp.we = cfg->window_end_ns;
	j->cp.site_is_logging = corecap_report_site_is_logging;
	j->cp.classify_ctx = &j->syms;
	j->cp.collector_pid = j->run->has_manifest ? j->run->manifest.collector_pid : 0;
	return open_ceph_critical(j);
}

/*
 * The pass's sources and table, once the model has its window: the
 * records (when loaded) and the OpTracker's ops as marks; the critical
 * path, the thread states and futex locks (one reading of the records,
 * and one replay of the scheduler, the critical path's sched, when it has
 * met no thread yet), then the model.
 */
static int compose(struct report_build *j)
{
	struct symbolizer *sym = j->run->has_sym ? &j->run->sym : NULL;
	struct pass_consumer c;
	int ret;

	corecap_pass_init(&j->pass);
	if (j->has_crit) {
		c = corecap_pass_critical_path(&j->cp);
		if ((ret = corecap_pass_add(&j->pass, &c)))
			return ret;
		if (j->has_ceph_crit) {
			struct pass_marks m = corecap_pass_ceph_marks(&j->ceph_crit);

			corecap_pass_marks(&j->pass, &m);
		}
		if (corecap_kernel_pass_init_on(&j->kpass, &j->model, &j->krecs, sym, &j->cp.sched))
			corecap_kernel_pass_init(&j->kpass, &j->model, &j->krecs, sym);
		j->has_kpass = true;
		c = corecap_kernel_pass_consumer(&j->kpass);
		if ((ret = corecap_pass_add(&j->pass, &c)))
			return ret;
	}
	if ((ret = corecap_pass_model(&j->pass, &j->model)))
		return ret;
	if (j->has_krecs && (ret = corecap_pass_records(&j->pass, &j->krecs)) < 0)
		corecap_error("cannot read '%s/%s': %s", j->run->dir, CORECAP_KERNEL_EVENTS_FILE,
			      strerror(-ret));
	return ret;
}

/* A stream file cut short (an interrupted recording) loses packets without
 * an error from the library: the indexes say how many. */
static int trace_shortfall(struct report_build *j, const struct ctf_reader *r)
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

/* One pass over the trace into a fresh model, detecting ops or not, read piped or not. */
static int read_pass(struct report_build *j, bool detect, bool piped)
{
	struct ctf_reader r;
	struct trace_pipe pipe;
	struct named_threads named;
	struct model_config cfg = {
		.has_window = j->run->has_manifest && j->run->manifest.has_window,
		.window_start_ns = j->run->manifest.window_start_ns,
		.window_end_ns = j->run->manifest.window_end_ns,
		.pid = j->run->has_manifest ? j->run->manifest.pid : -1,
		.site_is_logging = corecap_report_site_is_logging,
		.classify_ctx = &j->syms,
		.dump_ops = j->o.dump_ops,
	};
	int ret;

	if ((ret = open_critical(j, &cfg)))
		return ret;
	ret = corecap_model_init(&j->model, &cfg);
	if (ret)
		return ret;
	j->has_model = true;
	if ((ret = compose(j)))
		return ret;
	j->detecting = detect;
	if (detect) {
		/* Op detection types the model's ops and hands the events on to the pass. */
		corecap_net_ops_init(&j->net, &j->model, cfg.pid);
		corecap_net_ops_out(&j->net, corecap_pass_consume, &j->pass);
	}
	if (piped) {
		named = (struct named_threads){.pid = cfg.pid, .all = detect};
		corecap_u64map_init(&named.tids);
		ret = corecap_trace_pipe_init(&pipe, &r, j->run->traces, j->run->n_traces, consume,
					      j);
		pipe.seen = see_names;
		pipe.wants_comm = wants_comm_piped;
		pipe.reader_ctx = &named;
	} else {
		ret = corecap_ctf_reader_init(&r, j->run->traces, j->run->n_traces, consume, j);
		r.wants_comm = wants_comm;
	}
	if (!ret)
		ret = piped ? corecap_trace_pipe_run(&pipe) : corecap_ctf_reader_run(&r);
	if (ret)
		corecap_error("cannot read trace '%s/" CORECAP_RUN_TRACE "': %s", j->run->dir,
			      corecap_ctf_reader_error(&r) ? corecap_ctf_reader_error(&r)
							   : strerror(-ret));
	j->foreign_events = r.foreign_events;
	if (!ret)
		ret = trace_shortfall(j, &r);
	corecap_ctf_reader_release(&r);
	if (piped) {
		corecap_trace_pipe_release(&pipe);
		corecap_u64map_release(&named.tids);
	}
	if (!ret && detect)
		ret = corecap_net_ops_finish(&j->net);
	if (!ret)
		ret = corecap_pass_finish(&j->pass);
	j->model.src.trace = ret == 0;
	return ret;
}

/*
 * --ops auto reads the annotations; a daemon that made none but whose
 * socket I/O was traced (CORECAP_NET_EVENTS=on) gets a second pass that
 * detects its ops from that I/O (model/net_ops.h).
 */
static int read_trace(struct report_build *j)
{
	bool piped = corecap_trace_pipe_wanted(); /* once: its warning too */
	int ret = read_pass(j, j->o.ops == OPS_DETECTED, piped);

	if (ret || j->o.ops != OPS_AUTO || j->model.ops.finished || !j->net_events ||
	    j->model.ops.n_types)
		return ret;
	corecap_model_release(&j->model);
	j->has_model = false;
	release_critical(j);
	return read_pass(j, true, piped);
}

/*
 * The model of a run without a trace (recorded with --no-trace, or of a
 * daemon not under the shim, whose session recorded nothing): what the
 * other sources give; the trace's figures are not measured.
 */
static int no_trace(struct report_build *j)
{
	struct model_config cfg = {
		.has_window = j->run->manifest.has_window,
		.window_start_ns = j->run->manifest.window_start_ns,
		.window_end_ns = j->run->manifest.window_end_ns,
		.pid = j->run->manifest.pid,
	};
	int ret;

	if (!j->run->manifest.has_window) {
		corecap_error("'%s/" CORECAP_RUN_MANIFEST
			      "': a run without a trace needs the manifest's window",
			      j->run->dir);
		return -EINVAL;
	}
	j->missing[j->n_missing++] = CORECAP_RUN_TRACE;
	ret = corecap_model_init(&j->model, &cfg);
	if (ret)
		return ret;
	j->has_model = true;
	/* No trace, but the kernel records still give the OpTracker ops' paths. */
	if ((ret = open_critical(j, &cfg)) || (ret = compose(j)))
		return ret;
	return corecap_pass_finish(&j->pass);
}

/*
 * The trace, when the run has one to read (read/run.h decides). A partial
 * run is analysed without a trace it cannot list or read: killed
 * collectors leave traces cut mid-packet, or still being written.
 */
static int trace_or_partial(struct report_build *j)
{
	struct run *run = j->run;
	bool partial = run->has_manifest && run->manifest.partial && run->manifest.has_window;
	int ret;

	if (run->src[RUN_TRACE].state == RUN_ABSENT)
		return no_trace(j);
	if (run->trace_error) {
		corecap_error("%s", run->trace_error);
		return no_trace(j);
	}
	ret = read_trace(j);
	if (ret && partial) {
		if (j->has_model)
			corecap_model_release(&j->model);
		j->has_model = false;
		release_critical(j);
		run->src[RUN_TRACE] = (struct run_source_state){
			RUN_PARTIAL,
			"the trace of this partial run cannot be read (the error above)"};
		ret = no_trace(j);
	}
	return ret;
}

/*
 * The kernel models' row of the pass, fed every record: by the trace's
 * pass with the critical path (compose), or else in a pass of the records
 * alone, loaded now when the trace's pass had no window to load them with,
 * from an empty futex lock table when that pass was cut short. 0; 1 when
 * the run has no kernel/events.bin; a negative errno with *err.
 */
static int pass_kernel(struct report_build *j, char **err)
{
	int ret;

	if (j->has_kpass && j->pass.fed_all)
		return 0;
	if (j->has_kpass) {
		corecap_kernel_pass_release(&j->kpass);
		j->has_kpass = false;
		corecap_lock_table_release(&j->model.futex_locks);
		corecap_lock_table_init(&j->model.futex_locks);
	}
	if (!j->has_krecs) {
		corecap_kernel_reader_init(&j->krecs);
		ret = corecap_kernel_reader_load(&j->krecs, j->run->dir, j->model.ws, j->model.we,
						 err);
		if (ret) {
			corecap_kernel_reader_release(&j->krecs);
			return ret == -ENOENT ? 1 : ret;
		}
		j->has_krecs = true;
	}
	ret = corecap_kernel_pass_alone(&j->kpass, &j->model, &j->krecs,
					j->run->has_sym ? &j->run->sym : NULL, j->run->dir, err);
	j->has_kpass = ret == 0;
	return ret;
}

/* RUN/kernel/: exact thread states and the futex lock table. */
static int read_kernel(struct report_build *j)
{
	const struct kernel_quality *k = &j->kernel;
	char *err = NULL;
	int ret = pass_kernel(j, &err);

	if (!ret) {
		j->has_kpass = false;
		ret = corecap_kernel_attrib_passed(&j->model, &j->kpass, &j->krecs, j->run->dir,
						   &j->kernel, &err);
	}
	drop_records(j);
	if (ret == 1) {
		/* Absent: missing only where the manifest says it was recorded (read/run.h). */
		const char *why = j->run->src[RUN_KERNEL].why;

		if (why)
			j->missing[j->n_missing++] = CORECAP_KERNEL_DIR;
		ret = why ? warn(j, "%s", why) : 0;
		goto out;
	}
	if (ret) {
		corecap_error("%s", err ? err : strerror(-ret));
		goto out;
	}
	j->has_kernel = true;
	if (k->lost || (j->run->manifest.has_kernel_lost && j->run->manifest.kernel_lost))
		ret = warn(
			j,
			"the kernel's ring buffers lost %llu records: thread states and futex "
			"waits around the losses are approximate, the futex figures lower bounds",
			(unsigned long long)(k->lost > j->run->manifest.kernel_lost
						     ? k->lost
						     : j->run->manifest.kernel_lost));
	if (!ret && k->inconsistent)
		ret = warn(j,
			   "%llu scheduler transitions contradicted a thread's state (a lost "
			   "record); the state was resynchronized",
			   (unsigned long long)k->inconsistent);
	if (!ret && k->schedstat_disagree)
		ret = warn(j,
			   "%llu threads ran longer by the kernel's records than by their own "
			   "schedstat (" CORECAP_RUN_THREADS "; a switch-out not recorded): their "
			   "CPU and run-queue figures are schedstat's",
			   (unsigned long long)k->schedstat_disagree);
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
static int no_trace_warning(struct report_build *j)
{
	const char *why = j->run->src[RUN_TRACE].why ? j->run->src[RUN_TRACE].why
						     : "recorded with --no-trace";

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

static int read_samples(struct report_build *j)
{
	struct thread_samples s;
	char *err = NULL;
	int ret;

	ret = corecap_run_thread_samples(j->run, j->model.ws, j->model.we, &s, &err);
	if (ret == -ENOENT) {
		j->missing[j->n_missing++] = CORECAP_RUN_THREADS;
		ret = warn(j, "no " CORECAP_RUN_THREADS
			      ": thread and pool CPU figures, cores used and the "
			      "thread/pool/cores ceilings are unknown");
	} else if (ret) {
		corecap_error("%s", err ? err : strerror(-ret));
	} else {
		if (s.torn_last_line) {
			ret = warn(j, CORECAP_RUN_THREADS
				   " ends in a torn line (the collector was killed "
				   "while writing it): read up to its last whole line");
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
	return ret;
}

/*
 * The shim counts every contention of a hot lock, and the trace holds an
 * event for each: a trace with far fewer (a stream cut at a packet
 * boundary with its index) lost events nobody reported. Only when the
 * trace has lock events at all and the tracer reported no loss.
 */
static int shim_shortfall(struct report_build *j)
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

/* The shim's counters (stats-begin, stats-end), loaded with the run. */
static int read_stats(struct report_build *j)
{
	const struct shim_stats *st = &j->run->stats;
	int ret = 0;

	if (j->run->src[RUN_STATS].state == RUN_ABSENT) {
		j->missing[j->n_missing++] = "stats";
		/* Without a trace either, no_trace_warning says what that leaves. */
		return j->model.src.trace
			       ? warn(j, "no shim stats (" CORECAP_RUN_STATS_BEGIN
					 "/" CORECAP_RUN_STATS_END "): lock acquisitions "
					 "are unknown and hold times come from hold events alone")
			       : 0;
	}
	if (j->run->src[RUN_STATS].state == RUN_PARTIAL)
		/* The counters are a complement: say why they are missing and go on. */
		return warn(j, "shim stats unusable: %s", j->run->src[RUN_STATS].why);
	j->has_stats = true;
	j->model.src.stats = true;
	j->shim_io_calls = st->io_calls;
	j->shim_contentions = st->contentions;
	j->shim_lock_wait_ns = st->lock_wait_ns;
	memcpy(j->shim_io, st->io, sizeof(j->shim_io));
	if (st->aio_untimed)
		ret = warn(j, "the shim could not time %llu async I/Os (in-flight table full)",
			   (unsigned long long)st->aio_untimed);
	for (size_t i = 0; i < st->n_locks && !ret; i++) {
		const struct shim_lock_delta *l = &st->locks[i];

		ret = corecap_model_set_lock_stats(&j->model, l->addr, l->kind, l->acquisitions,
						   l->contentions, l->wait_ns, l->holds,
						   l->hold_ns);
	}
	for (size_t i = 0; i < st->n_sites && !ret; i++)
		if (corecap_lock_table_set_site_acquisitions(&j->model.locks, st->sites[i].addr,
							     st->sites[i].acquisitions))
			ret = -ENOMEM;
	if (!ret && st->locks_dropped)
		ret = warn(j,
			   "the shim's lock table was full: %llu contended locks have no counters",
			   (unsigned long long)st->locks_dropped);
	if (!ret && st->holds_dropped)
		ret = warn(j, "the shim could not time %llu holds (hold stack full)",
			   (unsigned long long)st->holds_dropped);
	return ret ? ret : shim_shortfall(j);
}

/* Threads left with the process's name get their start routine's (thread_origin.h). */
static int name_threads(struct report_build *j)
{
	char *path, *err = NULL;
	size_t renamed = 0, unnamed = 0;
	int ret;

	if (!j->run->has_manifest || !j->run->manifest.comm || !j->run->has_sym)
		return 0;
	path = corecap_run_path(j->run, CORECAP_RUN_WALL);
	if (!path)
		return -ENOMEM;
	ret = corecap_thread_origin_name(&j->model.threads, path, j->run->manifest.comm,
					 j->run->manifest.pid, &j->run->sym, &renamed, &unnamed,
					 &err);
	if (ret == -ENOENT) {
		ret = 0;
		if (unnamed > 1)
			ret = warn(j,
				   "%zu threads carry the process's name '%s' (the daemon names "
				   "none): record with --wallclock to name them by their start "
				   "routine",
				   unnamed, j->run->manifest.comm);
	} else if (ret) {
		ret = warn(j, "threads not named by their start routine: %s",
			   err ? err : strerror(-ret));
	} else if (unnamed) {
		ret = warn(j,
			   "%zu threads keep the process's name '%s': they were not sampled, "
			   "or no sampled stack of theirs reaches their start routine",
			   unnamed, j->run->manifest.comm);
	}
	free(err);
	free(path);
	return ret;
}

/* The OpTracker's ops split into categories by wall-clock samples. */
static int ceph_sampled(struct report_build *j)
{
	struct ceph_attrib_in in = {
		.run_dir = j->run->dir,
		.manifest = j->run->has_manifest ? &j->run->manifest : NULL,
		.ceph = &j->ceph,
		.threads = &j->model.threads,
		.window_ns = corecap_model_window_ns(&j->model),
		.sym = j->run->has_sym ? &j->run->sym : NULL,
		.log_patterns = j->syms.log_patterns,
		.n_log_patterns = j->syms.n_log_patterns,
		.op_pools = j->o.op_pools,
	};
	struct u64map thread_cats;
	int ret;

	if (!j->ceph.has_optracker)
		return 0;
	corecap_u64map_init(&thread_cats);
	in.thread_cats = j->has_ceph_crit ? &thread_cats : NULL;
	ret = corecap_ceph_attrib(&j->sampled, &in, &j->sampled_why_not);
	j->has_sampled = ret == 0;
	if (ret)
		corecap_ceph_sampled_release(&j->sampled);
	/* The same samples say how much of the paths' cpu was logging (on-CPU
	 * samples alone are enough: ceph_attrib counts them even then). */
	if (ret >= 0 && j->has_ceph_crit && thread_cats.len)
		ret = corecap_ceph_critical_logging_share(&j->ceph_crit, &thread_cats);
	corecap_u64map_release(&thread_cats);
	return ret < 0 ? ret : 0;
}

void corecap_report_build_release(struct report_build *j)
{
	corecap_ceiling_release(&j->ceiling);
	corecap_profiler_own_release(&j->prof);
	corecap_diagnosis_release(&j->diagnosis);
	free(j->bench_command);
	corecap_pool_table_release(&j->pools);
	corecap_ceph_files_release(&j->ceph);
	if (j->detecting)
		corecap_net_ops_release(&j->net);
	release_critical(j);
	if (j->has_model)
		corecap_model_release(&j->model);
	corecap_report_symbols_release(&j->syms);
	if (j->has_sampled)
		corecap_ceph_sampled_release(&j->sampled);
	corecap_lines_release(&j->warnings, &j->n_warnings);
	*j = (struct report_build){0};
}

int corecap_report_build_dir(struct report_build *b, struct run *run, const char *dir,
			     const char *symfs, const struct report_opts *o, struct report *r)
{
	struct run_opts ro = {.symfs = symfs, .model = true};
	struct report_opts dflt;
	char *err = NULL;
	int ret;

	*b = (struct report_build){0};
	ret = corecap_run_open(run, dir, &ro, &err);
	if (ret) {
		corecap_error("%s", err ? err : strerror(-ret));
		free(err);
		return ret;
	}
	if (!o) {
		corecap_report_opts_init(&dflt);
		dflt.keep_shim_frames = true;
		o = &dflt;
	}
	return corecap_report_build(b, run, o, r);
}

void corecap_report_opts_init(struct report_opts *o)
{
	*o = (struct report_opts){.log_symbols = CORECAP_DEFAULT_LOG_SYMBOLS,
				  .op_pools = CORECAP_DEFAULT_OP_POOLS,
				  .top = 10};
}

/* What the run's manifest and symbols say of it (read/run.h), as warnings. */
static int run_warnings(struct report_build *j)
{
	const struct run *run = j->run;
	int ret = 0;

	if (!run->has_manifest) {
		j->missing[j->n_missing++] = CORECAP_RUN_MANIFEST;
		ret = warn(j, "no " CORECAP_RUN_MANIFEST
			      ": a partial run; the window is the trace's first to "
			      "last event and the benchmark is unknown");
	}
	for (size_t i = 0; i < run->manifest.n_warnings && !ret; i++)
		ret = warn(j, "%s", run->manifest.warnings[i]);
	if (!ret && run->has_manifest && run->manifest.partial)
		ret = warn(j, "partial run: %s",
			   run->manifest.partial_reason ? run->manifest.partial_reason
							: "the recording did not complete");
	if (!ret && run->src[RUN_MAPS].state == RUN_ABSENT) {
		j->missing[j->n_missing++] = CORECAP_RUN_MAPS;
		ret = warn(j, "no maps file: addresses are shown in hex, and no lock site can be "
			      "recognized as logging code");
	}
	return ret;
}

/* A Ceph OSD's client ops and replica sub-ops in the window, by its perf counters; 0: none. */
static double osd_ops(const struct ceph_files *c)
{
	const struct ceph_perf_counter *op = corecap_ceph_files_perf(c, "op"),
				       *sub = corecap_ceph_files_perf(c, "subop");
	double n = (op && !op->is_avg ? op->count_delta : 0) +
		   (sub && !sub->is_avg ? sub->count_delta : 0);

	return n > 0 ? n : 0;
}

/* The ops' critical paths summed over their types (the trace's ops, else
 * the OpTracker's), for the projection's closed loop and its disks. */
static void path_totals(const struct report_build *j, struct projection_inputs *in)
{
	const struct critical_path *cp = &j->cp;

	for (int ext = 0; j->has_crit && ext < 2 && !in->path_ops; ext++) {
		size_t n = !ext ? cp->n_types : j->has_ceph_crit ? j->ceph.n_types : 0;

		for (size_t i = 0; i < n; i++) {
			/* An OpTracker type's whole op only: its phases' slots count it again. */
			const struct cp_type *t =
				ext ? corecap_ceph_critical_type(&j->ceph_crit, i, 0)
				    : &cp->types[i];

			if (!t)
				continue;
			in->path_ops += t->count;
			in->path_latency_ns += t->latency_ns;
			in->path_runq_ns += t->ns[CP_RUNQUEUE];
			in->path_io_ns += t->ns[CAT_IO];
		}
	}
}

/*
 * The manifest's disks as the projection weighs them, over the recording
 * window: busy share, I/Os in flight while busy, and the use of the
 * tightest I/O limit of the daemon's cgroup there (its rate over the limit).
 */
static size_t disks(const struct run_manifest *m, struct projection_disk *out)
{
	/* A limit named as the manifest's devices[].limit names it. */
	static const enum corecap_manifest_key what[4] = {
		CORECAP_MK_DEVICES_LIMIT_READ_IOPS, CORECAP_MK_DEVICES_LIMIT_WRITE_IOPS,
		CORECAP_MK_DEVICES_LIMIT_READ_BPS, CORECAP_MK_DEVICES_LIMIT_WRITE_BPS};
	double w_s = m->has_window ? (double)(m->window_end_ns - m->window_start_ns) / 1e9 : 0;
	size_t n = 0;

	for (size_t i = 0; i < m->n_devices && n < PROJECTION_DISKS && w_s > 0; i++) {
		const struct run_device *rd = &m->devices[i];
		struct projection_disk *dv = &out[n++];
		const uint64_t limit[4] = {rd->limit_iops[0], rd->limit_iops[1], rd->limit_bps[0],
					   rd->limit_bps[1]};
		const uint64_t done[4] = {rd->cgroup_ios[0], rd->cgroup_ios[1], rd->cgroup_bytes[0],
					  rd->cgroup_bytes[1]};

		*dv = (struct projection_disk){
			.name = rd->name, .busy = -1, .in_flight = -1, .limit_use = -1};
		if (rd->has_counts) {
			dv->busy = (double)rd->busy_ms / 1e3 / w_s;
			dv->in_flight =
				rd->busy_ms ? (double)rd->queue_ms / (double)rd->busy_ms : 0;
			dv->ios_per_s = (double)(rd->ios[0] + rd->ios[1]) / w_s;
		}
		for (int k = 0; k < 4 && rd->limit_file && rd->has_cgroup_counts; k++) {
			double rate = (double)done[k] / w_s;

			if (!limit[k] || rate / (double)limit[k] <= dv->limit_use)
				continue;
			dv->limit_use = rate / (double)limit[k];
			dv->limit_rate = rate;
			snprintf(dv->limit_what, sizeof(dv->limit_what), "%s %" PRIu64,
				 corecap_mk(what[k]), limit[k]);
			dv->limit_file = rd->limit_file;
			dv->limit_cgroup = rd->limit_cgroup ? rd->limit_cgroup : "?";
		}
	}
	return n;
}

/* The benchmark's command, each word single-quoted when it needs it; NULL: unknown. */
static char *bench_command(const struct run_manifest *m)
{
	size_t n = m->bench_command ? json_object_array_length(m->bench_command) : 0;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	if (!n || !json_object_is_type(m->bench_command, json_type_array))
		return NULL;
	f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *w =
			json_object_get_string(json_object_array_get_idx(m->bench_command, i));

		if (!w)
			w = "";
		if (i)
			fputc(' ', f);
		if (*w && !w[strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				       "0123456789-_./=:,+@%")]) {
			fputs(w, f);
			continue;
		}
		fputc('\'', f);
		for (const char *c = w; *c; c++)
			fputs(*c == '\'' ? "'\\''" : (char[]){*c, 0}, f);
		fputc('\'', f);
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

/* The collector's CPU time (manifest collector.cpu_user_s + cpu_sys_s); < 0 unknown. */
static double collector_cpu_s(const struct run_manifest *m)
{
	json_object *c, *u, *s;

	if (!m->root || !json_object_object_get_ex(m->root, corecap_mk(CORECAP_MK_COLLECTOR), &c) ||
	    !json_object_object_get_ex(c, corecap_mk(CORECAP_MK_COLLECTOR_CPU_USER_S), &u) ||
	    !json_object_object_get_ex(c, corecap_mk(CORECAP_MK_COLLECTOR_CPU_SYS_S), &s) ||
	    !(json_object_is_type(u, json_type_double) || json_object_is_type(u, json_type_int)) ||
	    !(json_object_is_type(s, json_type_double) || json_object_is_type(s, json_type_int)))
		return -1;
	return json_object_get_double(u) + json_object_get_double(s);
}

/* The path of the mapping holding addr (profiler_own's module_of). */
static const char *module_path(void *ctx, uint64_t addr)
{
	const char *path = NULL;

	corecap_symbolizer_module(ctx, addr, &path);
	return path;
}

/*
 * The profiler's own threads, locks and wait-for edges (model/profiler_own.h)
 * out of the model before anything reads it, unless --keep-profiler: the
 * pools, the threads, the diagnosis and the tables then never see them.
 */
static int cut_profiler(struct report_build *j)
{
	const struct run_manifest *mf = j->run->has_manifest ? &j->run->manifest : NULL;
	int ret;

	corecap_profiler_own_init(&j->prof, mf ? mf->comm : NULL, mf ? mf->collector_pid : 0);
	j->prof.keep = j->o.keep_profiler;
	j->prof.cp = j->has_crit ? &j->cp : NULL;
	j->prof.ceph = j->has_ceph_crit ? &j->ceph_crit : NULL;
	if (j->run->has_sym) {
		j->prof.module_of = module_path;
		j->prof.module_ctx = &j->run->sym;
	}
	ret = corecap_profiler_own_split_threads(&j->prof, &j->model.threads);
	if (ret)
		return ret;
	corecap_profiler_own_mark_locks(&j->prof, &j->model.locks);
	corecap_profiler_own_mark_locks(&j->prof, &j->model.futex_locks);
	if (j->has_crit && !j->prof.keep) {
		j->cp.cut_pool = corecap_profiler_cuts_pool;
		j->cp.cut_ctx = &j->prof;
	}
	return 0;
}

/* Reads and models the run into *r, which points into j. */
int corecap_report_build(struct report_build *j, struct run *run, const struct report_opts *o,
			 struct report *r)
{
	struct projection_inputs pin;
	struct ceiling_inputs in;
	char *err = NULL;
	int ret;

	*j = (struct report_build){.o = *o, .run = run};
	ret = corecap_run_load_model(run, &err);
	if (ret) {
		corecap_error("%s", err ? err : strerror(-ret));
		free(err);
		return ret;
	}
	if ((ret = corecap_report_symbols_init(&j->syms, run->has_sym ? &run->sym : NULL,
					       j->o.log_symbols)) ||
	    (ret = run_warnings(j)))
		return ret;
	/* A collector killed before its window leaves nothing to measure: say so. */
	if (run->never_started) {
		corecap_note("'%s' is a partial run that never started its window "
			     "(%s): nothing was measured",
			     run->dir,
			     run->manifest.partial_reason ? run->manifest.partial_reason : "?");
		return -ENODATA;
	}
	/* Before the trace: the OpTracker's ops join the critical path as it is read. */
	if ((ret = corecap_ceph_files_load(&j->ceph, j->run->dir, &err))) {
		corecap_error("%s", err ? err : strerror(-ret));
		free(err);
		return ret;
	}
	if ((ret = trace_or_partial(j)))
		return ret;
	if (!corecap_model_window_ns(&j->model)) {
		corecap_error("'%s/" CORECAP_RUN_TRACE
			      "': empty window: the trace holds no event of the daemon",
			      j->run->dir);
		return -EINVAL;
	}
	if ((ret = read_samples(j)) || (ret = read_stats(j)) || (ret = name_threads(j)) ||
	    (ret = read_kernel(j)) || (ret = no_trace_warning(j)))
		return ret;
	if (!j->o.keep_shim_frames) {
		corecap_report_cut_shim_frames(&j->syms, &j->model.locks);
		/* kernel stacks pass through mutex_slow too */
		corecap_report_cut_shim_frames(&j->syms, &j->model.futex_locks);
	} /* kernel stacks pass through mutex_slow too */
	if ((ret = cut_profiler(j)))
		return ret;
	corecap_lock_table_symbolize(&j->model.locks, corecap_report_name_address, &j->syms);
	corecap_lock_table_sort_stacks(&j->model.locks);
	corecap_lock_table_symbolize(&j->model.futex_locks, corecap_report_name_address, &j->syms);
	corecap_lock_table_sort_stacks(&j->model.futex_locks);
	ret = corecap_pool_table_build(&j->pools, &j->model.threads,
				       corecap_model_window_ns(&j->model));
	if (ret)
		return ret;
	in = (struct ceiling_inputs){
		.model = &j->model,
		.pools = &j->pools,
		.cores_available = j->run->has_manifest ? j->run->manifest.nproc : 0,
	};
	pin = (struct projection_inputs){
		.model = &j->model,
		.pools = &j->pools,
		.cores_available = j->run->has_manifest && j->run->manifest.daemon_cpus
					   ? j->run->manifest.daemon_cpus
					   : in.cores_available,
		.machine_cpus = in.cores_available,
		.bench_iops = j->run->has_manifest && j->run->manifest.bench.has_iops
				      ? j->run->manifest.bench.iops_avg
				      : 0,
		.machine_busy_cpu_s = j->run->has_manifest && j->run->manifest.has_machine_busy
					      ? j->run->manifest.machine_busy_cpu_s
					      : -1,
		.machine_steal_cpu_s = j->run->has_manifest && j->run->manifest.has_machine_steal
					       ? j->run->manifest.machine_steal_cpu_s
					       : -1,
		.bench_cpu_s = j->run->has_manifest && j->run->manifest.has_bench_cpu
				       ? j->run->manifest.bench_cpu_s
				       : -1,
		.wake_ns = j->run->has_manifest && j->run->manifest.has_wake
				   ? j->run->manifest.wake_ns
				   : -1,
		.bench_lat_s = j->run->has_manifest && j->run->manifest.bench.has_lat
				       ? j->run->manifest.bench.lat_avg_s
				       : 0,
	};
	pin.osd_ops = osd_ops(&j->ceph);
	path_totals(j, &pin);
	if (j->o.scale_fit && j->o.scale_fit->valid) {
		pin.fit = j->o.scale_fit;
		pin.fit_dir = j->o.scale_dir;
	}
	if (j->run->has_manifest) {
		j->n_disks = disks(&j->run->manifest, j->disks);
		pin.disks = j->disks;
		pin.n_disks = j->n_disks;
	}
	corecap_projection_compute(&j->projection, &pin);
	if (j->run->has_manifest)
		j->bench_command = bench_command(&j->run->manifest);
	ret = corecap_diagnosis_compute(
		&j->diagnosis,
		&(struct diagnosis_inputs){
			.model = &j->model,
			.pools = &j->pools,
			.projection = &j->projection,
			.cpus_allowed = j->run->has_manifest ? j->run->manifest.daemon_cpus : 0,
			.cpu_quota = j->run->has_manifest && j->run->manifest.has_cpu_quota
					     ? j->run->manifest.cpu_quota
					     : 0,
			.quota_cgroup =
				j->run->has_manifest ? j->run->manifest.cpu_quota_cgroup : NULL,
			.quota_file = j->run->has_manifest ? j->run->manifest.cpu_quota_file : NULL,
			.nproc = in.cores_available,
			.profiler_cpu_s =
				j->run->has_manifest ? collector_cpu_s(&j->run->manifest) : -1,
			.has_bench = pin.bench_iops > 0 && pin.bench_lat_s > 0,
			.partial = !j->run->has_manifest || j->run->manifest.partial ||
				   j->incomplete_reason,
			.pid = j->run->has_manifest ? j->run->manifest.pid : 0,
			.bench_command = j->bench_command,
		});
	if (ret || (ret = corecap_ceiling_compute(&j->ceiling, &in)) ||
	    (ret = corecap_report_quality(&j->warnings, &j->n_warnings, &j->model, j->run)))
		return ret;
	for (size_t i = 0; i < j->ceph.n_warnings && !ret; i++)
		ret = warn(j, "%s", j->ceph.warnings[i]);
	if (ret || (ret = ceph_sampled(j)))
		return ret;
	*r = (struct report){
		.run_dir = j->run->dir,
		.manifest = j->run->has_manifest ? &j->run->manifest : NULL,
		.model = &j->model,
		.pools = &j->pools,
		.ceiling = &j->ceiling,
		.projection = &j->projection,
		.diagnosis = &j->diagnosis,
		.cores_available = in.cores_available,
		.window_from_manifest = j->run->has_manifest && j->run->manifest.has_window,
		.n_traces = j->run->n_traces,
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
		.frame_name = corecap_report_frame_name,
		.frame_sources = corecap_report_frame_sources,
		.object_name = corecap_report_object_name,
		.frame_ctx = &j->syms,
		.lines = j->o.lines,
		.symbolizer = j->run->has_sym ? &j->run->sym : NULL,
		.ceph = &j->ceph,
		.ceph_sampled = j->has_sampled ? &j->sampled : NULL,
		.ceph_sampled_why_not = j->sampled_why_not,
		.kernel = j->has_kernel ? &j->kernel : NULL,
		.net_ops = j->detecting ? &j->net : NULL,
		.critical_path = j->has_crit ? &j->cp : NULL,
		.profiler = &j->prof,
		.ceph_critical = j->has_ceph_crit ? &j->ceph_crit : NULL,
	};
	return 0;
}
