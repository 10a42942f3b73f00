#include "run.h"
#include "hosts_run.h"
#include "multi_run.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <corecap/run_format.h>
#include <sys/stat.h>

#include "../model/lines.h"
#include "ctf_reader.h"
#include "run_file.h"
#include <corecap/diag.h>
#include <corecap/kernel_format.h>
#include <unistd.h>

/* The file of each source, whose presence says the source's. */
static const char *const source_file[RUN__SOURCES] = {
	[RUN_MANIFEST] = CORECAP_RUN_MANIFEST, [RUN_TRACE] = CORECAP_RUN_TRACE,
	[RUN_MAPS] = CORECAP_RUN_MAPS,	       [RUN_THREADS] = CORECAP_RUN_THREADS,
	[RUN_STATS] = CORECAP_RUN_STATS_END,   [RUN_KERNEL] = CORECAP_KERNEL_EVENTS_FILE,
	[RUN_WALL] = CORECAP_RUN_WALL,	       [RUN_CPU_PROF] = CORECAP_RUN_CPU_PROF,
	[RUN_CEPH] = CORECAP_RUN_CEPH_DIR,
};

char *corecap_run_path(const struct run *r, const char *name)
{
	char *p;

	return asprintf(&p, "%s/%s", r->dir, name) < 0 ? NULL : p;
}

/* Something at NAME (a dangling link, a file that cannot be read: present all the same). */
static bool exists_in(const struct run *r, const char *name)
{
	char *p = corecap_run_path(r, name);
	struct stat st;
	bool ok = p && (lstat(p, &st) == 0 || errno != ENOENT);

	free(p);
	return ok;
}

/* NAME can be stat'ed (a link to a directory too). */
static bool exists(const struct run *r, const char *name)
{
	char *p = corecap_run_path(r, name);
	struct stat st;
	bool ok = p && stat(p, &st) == 0;

	free(p);
	return ok;
}

static void add_warning(struct run_manifest *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void add_warning(struct run_manifest *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	corecap_lines_vadd(&m->warnings, &m->n_warnings, fmt, ap); /* out of memory: one less */
	va_end(ap);
}

void corecap_run_mark_partial(struct run *r, enum run_source s, const char *why)
{
	r->src[s] = (struct run_source_state){RUN_PARTIAL, why};
	if (!r->manifest.partial) {
		r->manifest.partial = true;
		r->manifest.partial_reason = why;
	}
}

/* A run directory: it exists, is a directory and holds manifest.json or trace/. */
static int check_dir(const struct run *r, bool model, char **err)
{
	struct stat st;

	if (stat(r->dir, &st) != 0)
		return corecap_err(err, -errno, "cannot open run directory '%s': %s", r->dir,
				   strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return corecap_err(err, -ENOTDIR,
				   "cannot open run directory '%s': %s (a run is the "
				   "directory `corecap record -o` writes)",
				   r->dir, strerror(ENOTDIR));
	if (model && !r->src[RUN_MANIFEST].state && !r->src[RUN_TRACE].state)
		return corecap_err(
			err, -ENOENT,
			"'%s' is not a run directory: it holds neither " CORECAP_RUN_MANIFEST
			" nor trace/ (empty, or not written by "
			"`corecap record`)",
			r->dir);
	return 0;
}

int corecap_run_open(struct run *r, const char *dir, const struct run_opts *o, char **err)
{
	char *sub = corecap_multi_run_resolve(dir, err);
	int ret;

	/* RUN:PID names a daemon of a run of several; RUN:NAME a host of a run of several hosts. */
	if (!sub && !*err)
		sub = corecap_hosts_run_resolve(dir, err);

	*r = (struct run){.dir = sub ? sub : dir, .owned_dir = sub, .symfs = o ? o->symfs : NULL};
	corecap_manifest_init(&r->manifest);
	corecap_shim_stats_init(&r->stats);
	if (*err)
		return -ENOENT;
	/* Its files are opened beneath it: a link out of it is refused (read/run_file.h). */
	corecap_run_file_add_root(r->dir);
	for (int s = 0; s < RUN__SOURCES; s++)
		r->src[s].state = exists_in(r, source_file[s]) ? RUN_PRESENT : RUN_ABSENT;
	ret = check_dir(r, o && o->model, err);
	if (!ret && o && o->model)
		ret = corecap_run_load_model(r, err);
	return ret;
}

int corecap_run_load_manifest(struct run *r, char **err)
{
	char *path;
	int ret;

	if (r->tried_manifest)
		return 0;
	if (!(path = corecap_run_path(r, CORECAP_RUN_MANIFEST)))
		return -ENOMEM;
	ret = corecap_manifest_load(&r->manifest, path, err);
	free(path);
	/* A failure is said again to the next caller. */
	r->tried_manifest = ret == 0 || ret == -ENOENT;
	if (ret == -ENOENT) {
		r->src[RUN_MANIFEST] = (struct run_source_state){RUN_ABSENT, "a partial run"};
		return 0;
	}
	if (ret) {
		if (!*err)
			*err = strdup(strerror(-ret));
		return -EINVAL;
	}
	r->has_manifest = true;
	if (r->manifest.partial)
		r->src[RUN_MANIFEST] = (struct run_source_state){
			RUN_PARTIAL, r->manifest.partial_reason ? r->manifest.partial_reason
								: "the recording did not complete"};
	return 0;
}

struct symbolizer *corecap_run_symbols(struct run *r, int *ret, char **err)
{
	char *maps, *ids;

	*ret = 0;
	if (r->has_sym)
		return &r->sym;
	maps = corecap_run_path(r, CORECAP_RUN_MAPS);
	ids = corecap_run_path(r, CORECAP_RUN_BUILDIDS);
	if (!maps || !ids)
		*ret = -ENOMEM;
	else
		*ret = corecap_symbolizer_init(&r->sym, maps, ids, r->symfs, err);
	free(maps);
	free(ids);
	r->has_sym = *ret == 0 || *ret == -ENOENT;
	if (*ret == -ENOENT) {
		r->src[RUN_MAPS] = (struct run_source_state){RUN_ABSENT, "addresses are in hex"};
		*ret = 0;
	}
	return r->has_sym ? &r->sym : NULL;
}

/* A partial run with a window: what is missing or unreadable is analysed without. */
static bool partial_with_window(const struct run *r)
{
	return r->has_manifest && r->manifest.partial && r->manifest.has_window;
}

int corecap_run_list_traces(struct run *r, char **err)
{
	char *root = corecap_run_path(r, CORECAP_RUN_TRACE);
	struct stat st;
	int ret;

	if (!root)
		return -ENOMEM;
	if (stat(root, &st) != 0)
		ret = corecap_err(err, -ENOENT, "cannot open trace '%s': %s", root,
				  strerror(errno));
	else
		ret = corecap_ctf_reader_find_traces(root, &r->traces, &r->n_traces, err);
	free(root);
	return ret;
}

static int find_traces(struct run *r, char **err)
{
	char *root = corecap_run_path(r, CORECAP_RUN_TRACE);
	int ret;

	if (!root)
		return -ENOMEM;
	ret = corecap_run_list_traces(r, err);
	if (!ret && !r->n_traces)
		ret = corecap_err(err, -ENOENT,
				  "no CTF trace under '%s' (no 'metadata' file found)", root);
	free(root);
	return ret;
}

/*
 * Whether the trace is to be read. A run recorded with --no-trace says
 * so, and so does one of a daemon that was not registered with LTTng (not
 * under the shim): the session recorded nothing of it, so its trace, if
 * any, is not read. A trace missing otherwise is an error (something was
 * lost), unless the run is partial: a killed collector may leave no trace
 * or one that cannot be listed.
 */
static int decide_trace(struct run *r, char **err)
{
	struct run_source_state *t = &r->src[RUN_TRACE];
	int ret;

	if (r->has_manifest && !r->manifest.src_trace) {
		*t = (struct run_source_state){RUN_ABSENT, "recorded with --no-trace"};
		return 0;
	}
	if (r->has_manifest && r->manifest.has_target_registered &&
	    !r->manifest.target_registered) {
		*t = (struct run_source_state){RUN_ABSENT,
					       "the daemon was not registered with LTTng: not "
					       "started under `corecap run`"};
		return 0;
	}
	if (partial_with_window(r) && !exists(r, CORECAP_RUN_TRACE)) {
		*t = (struct run_source_state){RUN_ABSENT,
					       "no trace/ in this partial run (its collector "
					       "stopped before the trace was started)"};
		return 0;
	}
	ret = find_traces(r, err);
	if (ret && partial_with_window(r) && ret != -ENOMEM) {
		/* Kept for the analysis to say, which goes on without the trace. */
		r->trace_error = *err ? *err : strdup(strerror(-ret));
		*err = NULL;
		*t = (struct run_source_state){RUN_PARTIAL,
					       "the trace of this partial run cannot be read (the "
					       "error above)"};
		return 0;
	}
	if (!ret)
		t->state = RUN_PRESENT;
	return ret;
}

static int load_stats(struct run *r)
{
	char *begin = corecap_run_path(r, CORECAP_RUN_STATS_BEGIN),
	     *end = corecap_run_path(r, CORECAP_RUN_STATS_END);
	int ret = -ENOMEM;

	if (begin && end)
		ret = corecap_shim_stats_load(&r->stats, begin, end, &r->stats_error);
	free(begin);
	free(end);
	if (ret == -ENOENT) {
		r->src[RUN_STATS] = (struct run_source_state){RUN_ABSENT, NULL};
		return 0;
	}
	if (ret && ret != -ENOMEM) {
		/* The counters are a complement: the analysis says why and goes on. */
		if (!r->stats_error)
			r->stats_error = strdup(strerror(-ret));
		r->src[RUN_STATS] = (struct run_source_state){RUN_PARTIAL, r->stats_error};
		return 0;
	}
	if (!ret)
		r->src[RUN_STATS].state = RUN_PRESENT;
	return ret;
}

static int load_model(struct run *r, char **err);

int corecap_run_load_model(struct run *r, char **err)
{
	int ret;

	if (r->model_loaded) {
		/* The same answer to every caller. */
		if (r->model_ret && r->model_error)
			*err = strdup(r->model_error);
		return r->model_ret;
	}
	r->model_loaded = true;
	ret = check_dir(r, true, err);
	/* The directory's own error names it; what is in it gets the run as context. */
	if (!ret && (ret = load_model(r, err)))
		corecap_err_wrap(err, ret, "cannot read run '%s'", r->dir);
	r->model_ret = ret;
	if (ret && *err)
		r->model_error = strdup(*err);
	return ret;
}

/* What a torn threads.tsv makes of the run, whichever reader met it. */
static void threads_read(struct run *r, int ret, bool torn)
{
	if (ret == -ENOENT)
		r->src[RUN_THREADS] = (struct run_source_state){RUN_ABSENT, NULL};
	else if (!ret && torn)
		corecap_run_mark_partial(r, RUN_THREADS,
					 CORECAP_RUN_THREADS " ends in a torn line");
}

int corecap_run_thread_samples(struct run *r, uint64_t start_ns, uint64_t end_ns,
			       struct thread_samples *s, char **err)
{
	char *path = corecap_run_path(r, CORECAP_RUN_THREADS);
	int ret;

	corecap_thread_samples_init(s);
	if (!path)
		return -ENOMEM;
	ret = corecap_thread_samples_load(s, path, start_ns, end_ns, err);
	threads_read(r, ret, s->torn_last_line);
	free(path);
	return ret;
}

int corecap_run_thread_series(struct run *r, uint64_t start_ns, uint64_t end_ns, uint64_t bin_ns,
			      struct thread_series *s, char **err)
{
	return corecap_run_thread_series_gaps(r, start_ns, end_ns, bin_ns, 0, s, err);
}

int corecap_run_thread_series_gaps(struct run *r, uint64_t start_ns, uint64_t end_ns,
				   uint64_t bin_ns, uint64_t gap_ns, struct thread_series *s,
				   char **err)
{
	char *path = corecap_run_path(r, CORECAP_RUN_THREADS);
	int ret;

	corecap_thread_series_init(s, start_ns, end_ns, bin_ns);
	s->gap_ns = gap_ns;
	if (!path)
		return -ENOMEM;
	ret = corecap_thread_series_load(s, path, err);
	threads_read(r, ret, s->torn_last_line);
	free(path);
	return ret;
}

/* The size of the run file NAME (through run_file: a regular file in its bound); -1 if none. */
static int64_t file_bytes(const struct run *r, const char *name)
{
	char *p = corecap_run_path(r, name);
	struct stat st;
	int64_t n = -1;
	int fd;

	if (!p)
		return -1;
	fd = corecap_run_file_open(p);
	if (fd >= 0 && fstat(fd, &st) == 0)
		n = (int64_t)st.st_size;
	if (fd >= 0)
		close(fd);
	free(p);
	return n;
}

/*
 * kernel/events.bin and stacks.bin against the sizes the manifest says
 * the collector wrote: records are written whole, so a file shorter than
 * that was cut after the recording (copied halfway, a disk full, by
 * hand) and its tail is lost. The reader then sees fewer records, a
 * trailing fragment at most, and the thread states it gives are wrong
 * from the cut on: the run is partial, and says how much was lost.
 */
static int check_kernel_cut(struct run *r)
{
	static const char *const names[] = {CORECAP_KERNEL_EVENTS_FILE, CORECAP_KERNEL_STACKS_FILE};
	const struct run_manifest *m = &r->manifest;
	uint64_t want[] = {m->kernel_events_bytes, m->kernel_stacks_bytes};
	char *why, about[64];
	int64_t have;

	if (!r->has_manifest || !m->has_kernel_bytes || r->src[RUN_KERNEL].state == RUN_ABSENT)
		return 0;
	for (int i = 0; i < 2; i++) {
		uint64_t lost, recs = 0;

		have = file_bytes(r, names[i]);
		if (have < 0 || (uint64_t)have >= want[i])
			continue;
		lost = want[i] - (uint64_t)have;
		/* The records lost, at the mean size the manifest's count gives (events.bin). */
		if (i == 0 && m->kernel_records && want[i] > sizeof(struct corecap_kfile_header))
			recs = (uint64_t)((double)lost * (double)m->kernel_records /
					  (double)(want[i] - sizeof(struct corecap_kfile_header)));
		if (recs)
			snprintf(about, sizeof(about), ", about %llu records",
				 (unsigned long long)recs);
		else
			about[0] = '\0';
		if (asprintf(&why,
			     "%s is cut short: %lld of the %llu bytes the collector wrote, %.0f%% "
			     "lost (%llu bytes%s): %s after the cut are missing",
			     names[i], (long long)have, (unsigned long long)want[i],
			     100.0 * (double)lost / (double)want[i], (unsigned long long)lost,
			     about, i == 0 ? "thread states and futex waits" : "the stacks") < 0)
			return -ENOMEM;
		free(r->kernel_cut[i]);
		r->kernel_cut[i] = why;
		/* Said in the quality section: partial, the reason, a warning. */
		corecap_run_mark_partial(r, RUN_KERNEL, why);
		add_warning(&r->manifest, "%s", why);
	}
	return 0;
}

static int load_model(struct run *r, char **err)
{
	int ret;

	if ((ret = corecap_run_load_manifest(r, err)))
		return ret;
	corecap_run_symbols(r, &ret, err);
	if (ret)
		return ret;
	r->never_started = r->has_manifest && r->manifest.partial && !r->manifest.has_window;
	if (r->never_started)
		return 0;
	/* Kernel events are missing only where the manifest says they were recorded. */
	if (r->src[RUN_KERNEL].state == RUN_ABSENT && r->has_manifest && r->manifest.src_kernel)
		r->src[RUN_KERNEL].why =
			"the manifest lists kernel events but " CORECAP_KERNEL_EVENTS_FILE " "
			"is absent: thread states come from " CORECAP_RUN_THREADS;
	if ((ret = check_kernel_cut(r)))
		return ret;
	/* The collector and its watchdog died with the session on; a later corecap ended it. */
	if (exists_in(r, CORECAP_RUN_ORPHANED)) {
		static const char why[] =
			"its LTTng session went on recording after the collector "
			"died, until a later corecap stopped it (" CORECAP_RUN_ORPHANED
			"): the trace past the window is not read";

		corecap_run_mark_partial(r, RUN_TRACE, why);
		add_warning(&r->manifest, "%s", why);
	}
	if ((ret = decide_trace(r, err)))
		return ret;
	return load_stats(r);
}

void corecap_run_close(struct run *r)
{
	if (r->has_sym)
		corecap_symbolizer_release(&r->sym);
	corecap_manifest_release(&r->manifest);
	corecap_shim_stats_release(&r->stats);
	corecap_ctf_reader_free_traces(r->traces, r->n_traces);
	free(r->trace_error);
	free(r->stats_error);
	free(r->model_error);
	free(r->kernel_cut[0]);
	free(r->kernel_cut[1]);
	free(r->owned_dir);
	*r = (struct run){0};
}
