#include "export_build.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <corecap/diag.h>
#include <corecap/run_format.h>

#include "pass/kernel_chrome.h"
#include "read/ctf_reader.h"
#include "read/thread_samples.h"
#include "read/thread_series.h"

void corecap_export_build_init(struct export_build *b, struct run *run, const char *run_name,
			       struct chrome_trace *t, uint64_t start_ns, uint64_t end_ns,
			       uint64_t bin_ns, const volatile sig_atomic_t *stop)
{
	*b = (struct export_build){
		.run = run,
		.run_name = run_name,
		.trace = t,
		.start_ns = start_ns,
		.end_ns = end_ns,
		.bin_ns = bin_ns,
		.stop = stop,
	};
}

void corecap_export_build_release(struct export_build *b)
{
	corecap_op_detect_release(&b->det);
	if (b->has_prof)
		corecap_profiler_own_release(&b->prof);
	b->has_prof = false;
}

/*
 * The profiler's threads, by the names threads.tsv gives them (before the
 * trace pass: the shim's events of LTTng-UST's threads come first), and
 * the collector's main thread, are left out of the document.
 */
static int cut_profiler(struct export_build *b)
{
	const struct run_manifest *mf = &b->run->manifest;
	struct thread_samples names;
	char *err = NULL;
	int ret = 0;

	if (b->keep_profiler)
		return 0;
	corecap_profiler_own_init(&b->prof, b->run->has_manifest ? mf->comm : NULL,
				  b->run->has_manifest ? mf->collector_pid : 0);
	b->has_prof = true;
	b->trace->cut_profiler = &b->prof;
	if (b->prof.collector_pid > 0)
		ret = corecap_chrome_trace_skip_thread(b->trace, b->prof.collector_pid);
	/* Without threads.tsv nothing names them: add_samples warns of it. */
	if (corecap_run_thread_samples(b->run, 0, 0, &names, &err) == 0) {
		for (size_t i = 0; i < names.len && !ret; i++)
			if (corecap_profiler_is_thread_name(&b->prof, names.threads[i].comm))
				ret = corecap_chrome_trace_skip_thread(b->trace,
								       names.threads[i].tid);
		corecap_thread_samples_release(&names);
	}
	free(err);
	return ret;
}

static int consume(void *ctx, const struct model_event *ev)
{
	struct export_build *b = ctx;

	if (b->stop && *b->stop)
		return -EINTR;
	return corecap_chrome_trace_consume(b->trace, ev);
}

/* The ops of a daemon that marks none are detected (op_detect.h), as report's. */
static int detect_ops(struct export_build *b, int32_t pid)
{
	char *const *traces = b->run->traces;
	char *err = NULL;
	bool detect;
	int ret = corecap_op_detect_wanted(traces, b->run->n_traces, pid, &detect, &err);

	if (ret)
		corecap_error("cannot read trace '%s': %s", traces[0], err ? err : strerror(-ret));
	else if (detect)
		corecap_note("the daemon marks no ops: its ops are detected from its socket I/O "
			     "(docs/xrootd.md)");
	free(err);
	corecap_op_detect_init(&b->det, !ret && detect, pid, consume, b);
	return ret;
}

/* The trace's events, through op detection, into the writer. */
static int trace_pass(struct export_build *b, const char *root)
{
	struct run *run = b->run;
	struct ctf_reader r;
	char *err = NULL;
	int ret;

	if (run->src[RUN_TRACE].state == RUN_ABSENT) {
		corecap_warn("'%s' has no trace/: only threads and pool CPU "
			     "are exported",
			     b->run_name);
	} else {
		ret = corecap_run_list_traces(run, &err);
		if (ret) {
			corecap_error("%s", err ? err : strerror(-ret));
			free(err);
			return ret;
		}
		if (!run->n_traces)
			corecap_warn("no CTF trace under '%s'", root);
	}
	if (!run->n_traces)
		return 0;
	ret = detect_ops(b, run->has_manifest ? run->manifest.pid : -1);
	if (ret)
		return ret;
	ret = corecap_ctf_reader_init(&r, run->traces, run->n_traces, corecap_op_detect_consume,
				      &b->det);
	if (!ret)
		ret = corecap_ctf_reader_run(&r);
	if (!ret)
		ret = corecap_op_detect_finish(&b->det);
	if (!ret && corecap_ctf_reader_missing_packets(&r))
		corecap_warn("the trace is cut short: %" PRIu64
			     " packets its indexes list are missing",
			     corecap_ctf_reader_missing_packets(&r));
	if (ret && ret != -EINTR)
		corecap_error("cannot read trace '%s': %s", root,
			      corecap_ctf_reader_error(&r) ? corecap_ctf_reader_error(&r)
							   : strerror(-ret));
	corecap_ctf_reader_release(&r);
	return ret;
}

/* Names every thread threads.tsv knows, and writes the pool counters. */
static void add_samples(struct export_build *b)
{
	struct thread_samples names;
	struct thread_series series;
	char *err = NULL;
	int ret;

	ret = corecap_run_thread_samples(b->run, 0, 0, &names, &err);
	if (!ret && names.torn_last_line) {
		char *path = corecap_run_path(b->run, CORECAP_RUN_THREADS);

		corecap_warn(CORECAP_RUN_TORN_WARNING, path ? path : CORECAP_RUN_THREADS);
		free(path);
	}
	for (size_t i = 0; !ret && i < names.len; i++)
		corecap_chrome_trace_name_thread(b->trace, names.threads[i].tid,
						 names.threads[i].comm);
	if (ret == -ENOENT)
		corecap_warn("no " CORECAP_RUN_THREADS ": no pool CPU counters");
	else if (ret)
		corecap_warn("%s", err ? err : strerror(-ret));
	corecap_thread_samples_release(&names);
	free(err);
	err = NULL;
	if (!ret) {
		ret = corecap_run_thread_series(b->run, b->start_ns, b->end_ns, b->bin_ns, &series,
						&err);
		if (ret)
			corecap_warn("%s", err ? err : strerror(-ret));
		else
			corecap_chrome_trace_counters(b->trace, &series);
		corecap_thread_series_release(&series);
	}
	free(err);
}

/* The kernel's thread states, when the run has kernel events and a window. */
static int add_kernel_states(struct export_build *b)
{
	const struct run_manifest *mf = &b->run->manifest;
	char *err = NULL;
	int ret;

	if (!b->run->has_manifest || !mf->has_window)
		return 0; /* the states need the window; without a manifest it was warned */
	ret = corecap_kernel_chrome(b->trace, b->run->dir, mf->window_start_ns, mf->window_end_ns,
				    b->start_ns, b->end_ns, &err);
	if (ret < 0)
		corecap_error("%s", err ? err : strerror(-ret));
	free(err);
	return ret < 0 ? ret : 0;
}

int corecap_export_build_run(struct export_build *b)
{
	char *root = corecap_run_path(b->run, CORECAP_RUN_TRACE);
	int ret;

	if (!root)
		return -ENOMEM;
	ret = cut_profiler(b);
	if (!ret)
		ret = trace_pass(b, root);
	if (!ret) {
		add_samples(b);
		ret = add_kernel_states(b);
	}
	free(root);
	return ret;
}
