#include "report_quality.h"

#include <stdarg.h>
#include <stdlib.h>

#include "model/lines.h"

struct lines_out {
	char ***v;
	size_t *n;
};

static int warn(struct lines_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int warn(struct lines_out *o, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = corecap_lines_vadd(o->v, o->n, fmt, ap);
	va_end(ap);
	return ret;
}

/* The steal share of the window's CPU time from which a run says so. */
#define STEAL_WARN_SHARE 0.05
/* The share of its due samples under which the wall-clock sampler's stacks
 * are said to be thin (it fell behind: skipped, abandoned or rationed). */
#define WALL_TAKEN_WARN_SHARE 0.9

/* The wall-clock sampler fell behind or left a thread without a sample. */
static int wall_behind(struct lines_out *j, const struct run_manifest *mf)
{
	double share;

	if (!mf->has_wall_due || !mf->wall_due)
		return 0;
	share = (double)mf->wall_samples / (double)mf->wall_due;
	if (share >= WALL_TAKEN_WARN_SHARE && !(mf->has_wall_starved && mf->wall_threads_starved))
		return 0;
	return warn(
		j,
		"the wall-clock sampler took %llu of %llu samples due (%.1f%%): %llu skipped "
		"behind (%llu late rounds, %llu lost), %llu abandoned over its %.0f ms stop "
		"budget, %llu rationed; %llu of %llu threads got none: flame graphs and "
		"sampled shares rest on the samples taken",
		(unsigned long long)mf->wall_samples, (unsigned long long)mf->wall_due, 100 * share,
		(unsigned long long)mf->wall_skipped, (unsigned long long)mf->wall_late_rounds,
		(unsigned long long)mf->wall_lost_rounds, (unsigned long long)mf->wall_abandoned,
		(double)mf->wall_stop_budget_ns / 1e6, (unsigned long long)mf->wall_rationed,
		(unsigned long long)mf->wall_threads_starved,
		(unsigned long long)mf->wall_threads_counted);
}

/*
 * One thread's share of its due samples under this share of another's: the
 * wall flame graph draws the first narrower than the second for the same
 * time spent. Said only when some thread got WALL_COVERAGE_FLOOR_PM of
 * its due or more: below, every thread has a few samples at most, the
 * fell-behind warning says the graphs are thin, and the shares differ by
 * a sample or two (2,000 threads, 12 samples on an overloaded machine).
 */
#define WALL_COVERAGE_UNEVEN   0.8
#define WALL_COVERAGE_FLOOR_PM 100

/* The wall-clock sampler reached some threads more often than others. */
static int wall_uneven(struct lines_out *j, const struct run_manifest *mf)
{
	if (!mf->has_wall_coverage || mf->wall_coverage_max_pm < WALL_COVERAGE_FLOOR_PM ||
	    (double)mf->wall_coverage_min_pm >=
		    WALL_COVERAGE_UNEVEN * (double)mf->wall_coverage_max_pm)
		return 0;
	return warn(j,
		    "the wall-clock sampler covered its threads unevenly: one got %.1f%% of the "
		    "samples due to it, another %.1f%%: the wall flame graph and sampled shares "
		    "draw the first narrower than the time it spent",
		    (double)mf->wall_coverage_min_pm / 10, (double)mf->wall_coverage_max_pm / 10);
}

/* The kernel's on-CPU samples that were lost or not unwound, said from 1%
 * of those due (taken + lost): the shares drawn from the others hold only
 * if the missing ones fell evenly. */
#define WALL_ONCPU_MISSING_WARN 0.01

static int wall_oncpu_missing(struct lines_out *j, const struct run_manifest *mf)
{
	uint64_t due = mf->wall_oncpu_taken + mf->wall_oncpu_lost;
	uint64_t missing = mf->wall_oncpu_lost + mf->wall_oncpu_failed;

	if (!mf->wall_oncpu_only || !due || (double)missing < WALL_ONCPU_MISSING_WARN * (double)due)
		return 0;
	return warn(j,
		    "the kernel's on-CPU samples: %llu of %llu missing (%llu lost in the kernel: "
		    "no room in its ring or the stack unreadable; %llu not unwound): the wall "
		    "flame graph and the logging share rest on the others",
		    (unsigned long long)missing, (unsigned long long)due,
		    (unsigned long long)mf->wall_oncpu_lost,
		    (unsigned long long)mf->wall_oncpu_failed);
}

int corecap_wall_quality(char ***warnings, size_t *n_warnings, const struct run_manifest *mf)
{
	struct lines_out j = {warnings, n_warnings};
	int ret = wall_oncpu_missing(&j, mf);

	if (!ret)
		ret = wall_behind(&j, mf);
	return ret ? ret : wall_uneven(&j, mf);
}

int corecap_report_quality(char ***warnings, size_t *n_warnings, const struct model *m,
			   const struct run *run)
{
	struct lines_out j = {warnings, n_warnings};
	const struct model_quality *q = &m->q;
	const struct run_manifest *mf = &run->manifest;
	char **problems;
	size_t n;
	int ret = 0;

	if (q->loss_msgs)
		ret = warn(
			&j,
			"the tracer lost events (%llu discarded events%s, %llu discarded packets): "
			"%llu ops in flight then were left out of the op figures",
			(unsigned long long)q->discarded_events,
			q->discarded_unknown_msgs ? " plus losses of unknown size" : "",
			(unsigned long long)q->discarded_packets,
			(unsigned long long)q->ops_tainted);
	if (!ret && run->has_manifest && mf->has_lttng_loss &&
	    (mf->lttng_discarded_events || mf->lttng_lost_packets) && !q->loss_msgs)
		ret = warn(&j, "the session reported %llu discarded events and %llu lost packets",
			   (unsigned long long)mf->lttng_discarded_events,
			   (unsigned long long)mf->lttng_lost_packets);
	if (!ret && q->events_no_tid)
		ret = warn(&j, "%llu events lack the vtid context and were not used",
			   (unsigned long long)q->events_no_tid);
	if (!ret && q->ops_unfinished)
		ret = warn(&j, "%llu ops had not ended when the trace stopped (left out)",
			   (unsigned long long)q->ops_unfinished);
	if (!ret && q->ops_without_begin)
		ret = warn(&j, "%llu ops began before the trace did (left out)",
			   (unsigned long long)q->ops_without_begin);
	if (!ret &&
	    (q->exit_unmatched || q->implicit_exits || q->enter_twice || q->log_exit_unmatched))
		ret = warn(&j,
			   "annotation sequences broken: %llu exits without enter, %llu enters "
			   "without exit, %llu double enters, %llu log_exit without log_enter",
			   (unsigned long long)q->exit_unmatched,
			   (unsigned long long)q->implicit_exits,
			   (unsigned long long)q->enter_twice,
			   (unsigned long long)q->log_exit_unmatched);
	if (!ret && q->ops_ended_elsewhere)
		ret = warn(&j,
			   "%llu ops ended on another thread while their owner still had them: the "
			   "owner's time after its last event is `other`",
			   (unsigned long long)q->ops_ended_elsewhere);
	/* Steal: the host did not run this machine's vCPUs when they wanted to run. */
	if (!ret && run->has_manifest && mf->has_machine_steal && mf->has_window && mf->nproc > 0 &&
	    mf->window_end_ns > mf->window_start_ns) {
		double share = mf->machine_steal_cpu_s /
			       ((double)(mf->window_end_ns - mf->window_start_ns) / 1e9 * mf->nproc);

		if (share >= STEAL_WARN_SHARE)
			ret = warn(&j,
				   "the hypervisor took %.1f%% of the machine's CPU time in the window "
				   "(steal): the daemon's threads went unrun that long, so its "
				   "throughput, latencies and hold times measure the shared host too",
				   100 * share);
	}
	if (!ret && run->has_manifest)
		ret = corecap_wall_quality(warnings, n_warnings, mf);
	if (!ret && run->has_manifest && mf->bench_exit_status > 0)
		ret = warn(&j, "the benchmark exited with status %d", mf->bench_exit_status);
	if (!ret && m->ops.violations)
		ret = warn(&j, "%llu ops break conservation by more than 1 us (max %llu ns)",
			   (unsigned long long)m->ops.violations,
			   (unsigned long long)m->ops.max_err_ns);
	if (!ret && run->has_sym) {
		n = corecap_symbolizer_problems(&run->sym, &problems);
		for (size_t i = 0; i < n && !ret; i++)
			/* LTTng-UST's wait page is shared memory, never ELF: the
			 * profiler's, and no gap in the daemon's symbols. */
			if (!strstr(problems[i], "/lttng-ust-wait-"))
				ret = warn(&j, "symbols: %s", problems[i]);
		free(problems);
	}
	return ret;
}
