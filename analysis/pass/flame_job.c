#include "flame_job.h"

#include <corecap/diag.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/lock_table.h"
#include "model/op_table.h"
#include "model/lines.h"
#include "pass/ceph_op_stacks.h"
#include "pass/report_quality.h"
#include "read/gperf_profile.h"
#include "read/thread_samples.h"
#include "read/wall_samples.h"
#include <corecap/run_format.h>

const char *corecap_flame_kind_unit(enum flame_kind kind)
{
	return kind == FLAME_CPU || kind == FLAME_WALL ? "samples" : "ns";
}

int corecap_flame_job_init(struct flame_job *j, const char *run, const char *symfs, struct run *rd,
			   const struct report *report)
{
	struct run_opts ro = {.symfs = symfs};
	struct stat st;
	char *err = NULL;
	int ret;

	*j = (struct flame_job){.run = run, .symfs = symfs, .rd = rd, .report = report};
	if (rd)
		return 0;
	/* A gperftools profile file, or a run (RUN:PID too: read/run.c resolves it). */
	j->run_is_profile = stat(run, &st) == 0 && S_ISREG(st.st_mode);
	if (j->run_is_profile)
		return 0;
	ret = corecap_run_open(&j->own_run, run, &ro, &err);
	j->has_own_run = true;
	j->rd = &j->own_run;
	if (ret)
		corecap_error("%s", err ? err : strerror(-ret));
	free(err);
	return ret;
}

void corecap_flame_job_release(struct flame_job *j)
{
	if (j->has_own_build)
		corecap_report_build_release(&j->own_build);
	if (j->has_own_run)
		corecap_run_close(&j->own_run);
	*j = (struct flame_job){0};
}

static int need_report(struct flame_job *j);

/* A Ceph OSD's OpTracker history, and no annotated op: the op kind draws its ops. */
static bool has_optracker(const struct report *r)
{
	return !r->model->ops.finished && r->ceph && r->ceph->has_optracker && r->ceph->n_types;
}

/* The op kind of an OSD that was not annotated: its OpTracker's phases. */
static int build_ceph_op(struct flame_job *j, struct flame_stacks *fs, int column)
{
	const struct report *r = j->report;
	uint64_t total;
	int ret = corecap_ceph_op_stacks_add(fs, r->ceph, r->ceph_sampled, column, &total);

	if (ret) {
		corecap_error("cannot fold the OpTracker's ops: %s", strerror(-ret));
		return ret;
	}
	snprintf(j->subtitle, sizeof(j->subtitle),
		 "Ceph OpTracker ops by phase%s: %zu ops, %.3f s in all",
		 r->ceph_sampled ? " and category (wall-clock samples)" : "", r->ceph->n_ops,
		 (double)total / 1e9);
	return 0;
}

bool corecap_flame_job_has(struct flame_job *j, enum flame_kind kind)
{
	if (j->run_is_profile)
		return kind == FLAME_CPU;
	switch (kind) {
	case FLAME_CPU:
		return j->rd->src[RUN_CPU_PROF].state != RUN_ABSENT;
	case FLAME_WALL:
		return j->rd->src[RUN_WALL].state != RUN_ABSENT;
	default:
		/* The model says whether its sources measured locks or ops. */
		if (!j->report && need_report(j))
			return false;
		return kind == FLAME_LOCK ? corecap_model_has_locks(j->report->model)
					  : corecap_model_has_ops(j->report->model) ||
						    has_optracker(j->report);
	}
}

/*
 * Names a code address by its function alone, so that a function's
 * samples merge, with the calls inlined there as frames of their own,
 * innermost first.
 */
static void sym_namer(void *ctx, uint64_t addr, bool exact, struct flame_names *out)
{
	struct symbolizer *s = ctx;
	const struct sym_frame *f;
	struct sym_info info;
	size_t n;

	/* The symbolizer looks up addr - 1 (a return address): step over that for an exact PC. */
	if (s && corecap_symbolizer_lookup(s, exact ? addr + 1 : addr, &info)) {
		out->shim = info.shim;
		out->profiler = !info.shim && corecap_profiler_is_module(info.module);
		n = corecap_symbolizer_frames(s, exact ? addr : addr - 1, &f);
		/* The deepest chains keep their innermost calls and the function holding them. */
		for (size_t k = 0; k < n; k++) {
			if (out->n == FLAME_MAX_NAMES - 1 && k < n - 1)
				continue;
			out->inlined[out->n] = f[k].inlined;
			out->files[out->n] = f[k].file;
			out->lines[out->n] = f[k].line;
			out->names[out->n++] = f[k].function;
		}
		if (out->n) {
			out->resolved = true;
			return;
		}
		if (info.module) {
			snprintf(out->buf, sizeof(out->buf), "%s+0x%" PRIx64, info.module,
				 exact ? info.offset - 1 : info.offset);
			out->names[out->n++] = out->buf;
			return;
		}
	}
	snprintf(out->buf, sizeof(out->buf), "0x%" PRIx64, addr);
	out->names[out->n++] = out->buf;
}

/* cpu with pprof's names (names_pprof): the run's symbolizer, named through pprof_names. */
static void pprof_namer(void *ctx, uint64_t addr, bool exact, struct flame_names *out)
{
	struct pprof_names *p = ctx;
	const struct sym_frame *f;
	struct sym_info info;
	size_t n;

	n = p->sym ? corecap_pprof_names_frames(p, exact ? addr : addr - 1, &f) : 0;
	if (!n) {
		/* pprof prints a caller's address as it looks it up: one byte back. */
		snprintf(out->buf, sizeof(out->buf), "0x%016" PRIx64, exact ? addr : addr - 1);
		out->names[out->n++] = out->buf;
		return;
	}
	if (corecap_symbolizer_lookup(p->sym, exact ? addr + 1 : addr, &info)) {
		out->shim = info.shim;
		out->profiler = !info.shim && corecap_profiler_is_module(info.module);
	}
	for (size_t k = n > FLAME_MAX_NAMES ? n - FLAME_MAX_NAMES : 0; k < n; k++) {
		out->inlined[out->n] = f[k].inlined;
		out->names[out->n++] = f[k].function;
	}
	out->resolved = strncmp(f[0].function, "0x", 2) != 0;
}

/* The report's classification of stacks (stack_class), for the pictures' colours. */
struct job_class {
	struct stack_class cls;
	char **patterns;
	size_t n_patterns;
	bool on;
};

static int class_begin(struct job_class *c, struct flame_stacks *fs, struct symbolizer *sym)
{
	int ret = corecap_lines_split(&c->patterns, &c->n_patterns, CORECAP_DEFAULT_LOG_SYMBOLS);

	if (ret)
		return ret;
	corecap_stack_class_init(&c->cls, c->patterns, c->n_patterns, corecap_symbolizer_function,
				 sym);
	c->on = true;
	fs->classify = &c->cls;
	return 0;
}

static void class_end(struct job_class *c, struct flame_stacks *fs)
{
	if (!c->on)
		return;
	fs->classify = NULL;
	corecap_stack_class_release(&c->cls);
	corecap_lines_release(&c->patterns, &c->n_patterns);
	c->on = false;
}

static void print_symbol_problems(const struct flame_job *j, const struct symbolizer *s)
{
	char **lines;
	size_t n;

	if (j->quiet)
		return;
	n = corecap_symbolizer_problems(s, &lines);
	for (size_t i = 0; i < n; i++)
		corecap_warn("symbols: %s", lines[i]);
	free(lines);
}

/* The run's symbols (read/run.h loads them once for every kind and the report). */
static int open_run_symbols(struct flame_job *j)
{
	char *err = NULL;
	int ret;

	if (j->tried_run_sym)
		return 0;
	j->tried_run_sym = true;
	j->run_sym = corecap_run_symbols(j->rd, &ret, &err);
	if (ret) {
		corecap_error("%s", err ? err : strerror(-ret));
	} else if (j->rd->src[RUN_MAPS].state == RUN_ABSENT && !j->report && !j->quiet) {
		corecap_warn("'%s' has no maps file: frames are shown as addresses", j->run);
	}
	free(err);
	return ret;
}

/*
 * The run's symbolizer in place of *sym, the profile's own, when the run's
 * maps cover the profile's (the same process, no code mapped since the
 * recording began): the same names, and the files and DWARF that the
 * report already read (html) are not read a second time.
 */
static void share_run_symbols(struct flame_job *j, struct symbolizer **sym, bool *has_own)
{
	char *err = NULL;
	int ret;
	struct symbolizer *run_sym = corecap_run_symbols(j->rd, &ret, &err);

	free(err);
	if (ret || !run_sym || !run_sym->n_maps || !corecap_symbolizer_covers(run_sym, *sym))
		return;
	corecap_symbolizer_release(*sym);
	*has_own = false;
	*sym = run_sym;
}

static int build_cpu(struct flame_job *j, struct flame_stacks *fs, int column)
{
	struct gperf_profile p;
	struct symbolizer own, *sym = NULL;
	struct pprof_names pn = {0};
	struct job_class jc = {0};
	char *path = j->run_is_profile ? strdup(j->run) : corecap_run_path(j->rd, CORECAP_RUN_CPU_PROF);
	char *ids = j->run_is_profile ? NULL : corecap_run_path(j->rd, CORECAP_RUN_BUILDIDS);
	char *maps_tmp = NULL, *err = NULL;
	bool has_own = false;
	int ret;

	corecap_gperf_profile_init(&p);
	if (!path) {
		ret = -ENOMEM;
		goto out;
	}
	ret = corecap_gperf_profile_load(&p, path, &err);
	if (ret == -ENOENT && !j->run_is_profile) {
		corecap_error(
			"'%s' has no " CORECAP_RUN_CPU_PROF ": start the daemon with 'corecap run --cpuprofile' so "
			"that 'corecap record' profiles it",
			j->run);
		goto out;
	}
	if (ret) {
		corecap_error("%s", err ? err : strerror(-ret));
		goto out;
	}
	corecap_gperf_profile_normalize(&p);
	/* The profile's own maps hold what was mapped when it stopped; else the run's. */
	if (p.maps_len) {
		free(err);
		err = NULL;
		ret = corecap_gperf_profile_write_maps(&p, &maps_tmp, &err);
		if (ret) {
			corecap_error("%s", err ? err : strerror(-ret));
			goto out;
		}
		free(err);
		err = NULL;
		ret = corecap_symbolizer_init(&own, maps_tmp, ids, j->symfs, &err);
		unlink(maps_tmp);
		has_own = ret == 0 || ret == -ENOENT;
		sym = has_own ? &own : NULL;
		if (ret == 0 && !j->run_is_profile)
			share_run_symbols(j, &sym, &has_own);
	} else if (!j->run_is_profile) {
		free(err);
		err = NULL;
		sym = corecap_run_symbols(j->rd, &ret, &err);
	}
	if (ret && ret != -ENOENT) {
		corecap_error("%s", err ? err : strerror(-ret));
		goto out;
	}
	if (!sym && !j->quiet)
		corecap_warn("'%s' holds no maps: frames are shown as "
			     "addresses",
			     path);
	ret = 0;
	fs->skip_profiler_frames = true;
	fs->namer = sym_namer;
	fs->namer_ctx = sym;
	if (j->names_pprof) {
		corecap_pprof_names_init(&pn, sym);
		fs->namer = pprof_namer;
		fs->namer_ctx = &pn;
	}
	ret = class_begin(&jc, fs, sym);
	for (size_t i = 0; i < p.n_samples && !ret; i++)
		ret = corecap_flame_stacks_add(fs, NULL, 0, p.pcs + p.samples[i].first,
					       p.samples[i].depth, true, true, p.samples[i].count,
					       column);
	if (ret) {
		corecap_error("cannot fold '%s': %s", path, strerror(-ret));
		goto out_sym;
	}
	snprintf(j->subtitle, sizeof(j->subtitle),
		 "gperftools CPU profile: %" PRIu64 " samples every %" PRIu64 " us (%.2f s of CPU)",
		 p.total, p.period_us, (double)p.total * (double)p.period_us / 1e6);
	if (sym)
		print_symbol_problems(j, sym);
out_sym:
	class_end(&jc, fs);
	fs->namer_ctx = NULL;
	if (j->names_pprof)
		corecap_pprof_names_release(&pn);
	if (has_own)
		corecap_symbolizer_release(&own);
out:
	corecap_gperf_profile_release(&p);
	free(maps_tmp);
	free(err);
	free(ids);
	free(path);
	return ret;
}

struct wall_ctx {
	struct flame_job *j;
	struct flame_stacks *fs;
	struct profiler_own prof; /* names the profiler's threads */
	struct thread_samples names;
	bool has_names;
	int column;
	uint64_t first_ns, last_ns;
	struct u64map tids;
};

static int on_wall_sample(void *ctx, const struct wall_sample *s)
{
	struct wall_ctx *w = ctx;
	const char *name = NULL;
	char buf[40], pool[32];
	const char *prefix[1];
	uint64_t *idx;
	bool inserted;

	if (w->has_names && (idx = corecap_u64map_find(&w->names.by_tid, (uint32_t)s->tid)))
		name = w->names.threads[*idx].comm;
	if (!name || !*name) {
		snprintf(buf, sizeof(buf), "tid %d", s->tid);
		name = buf;
	}
	/* LTTng-UST's and the shim's threads are the profiler's, not the daemon's. */
	if (!w->j->keep_profiler && corecap_profiler_is_thread_name(&w->prof, name)) {
		w->j->profiler_samples++;
		return 0;
	}
	if (w->j->by_pool) {
		corecap_thread_pool_name(name, pool, sizeof(pool));
		name = pool;
	}
	prefix[0] = name;
	if (!w->first_ns || s->time_ns < w->first_ns)
		w->first_ns = s->time_ns;
	if (s->time_ns > w->last_ns)
		w->last_ns = s->time_ns;
	if (!corecap_u64map_upsert(&w->tids, (uint32_t)s->tid, &inserted))
		return -ENOMEM;
	return corecap_flame_stacks_add(w->fs, prefix, 1, s->ips, s->depth, true, false, 1,
					w->column);
}

static int build_wall(struct flame_job *j, struct flame_stacks *fs, int column)
{
	struct wall_ctx w = {.j = j, .fs = fs, .column = column};
	struct job_class jc = {0};
	struct wall_samples ws;
	char *path = corecap_run_path(j->rd, CORECAP_RUN_WALL);
	char *err = NULL;
	int ret;

	corecap_u64map_init(&w.tids);
	corecap_thread_samples_init(&w.names);
	corecap_wall_samples_init(&ws);
	/*
	 * The manifest names the daemon and the collector (the profiler's
	 * threads) and holds the sampler's figures; it is read lazily. Without
	 * it the samples still draw, with any "-ust" thread taken for the
	 * profiler's.
	 */
	if (corecap_run_load_manifest(j->rd, &err) && !j->quiet)
		corecap_warn("'%s': %s: the profiler's threads are told by name only", j->run,
			     err ? err : "its manifest cannot be read");
	free(err);
	err = NULL;
	corecap_profiler_own_init(&w.prof, j->rd->has_manifest ? j->rd->manifest.comm : NULL,
				  j->rd->has_manifest ? j->rd->manifest.collector_pid : 0);
	j->profiler_samples = 0;
	if (!path) {
		ret = -ENOMEM;
		goto out;
	}
	if (access(path, F_OK) != 0) {
		corecap_error("'%s' has no " CORECAP_RUN_WALL
			      ": record with 'corecap record --wallclock'",
			      j->run);
		ret = -ENOENT;
		goto out;
	}
	ret = corecap_run_thread_samples(j->rd, 0, 0, &w.names, &err);
	w.has_names = ret == 0;
	if (ret && !j->quiet)
		corecap_warn("%s: threads are named by tid", ret == -ENOENT ? "no " CORECAP_RUN_THREADS
							     : err	    ? err
									    : strerror(-ret));
	free(err);
	err = NULL;
	ret = open_run_symbols(j);
	if (ret)
		goto out;
	fs->namer = sym_namer;
	fs->namer_ctx = j->run_sym;
	fs->drop_idle = j->no_idle;
	ret = class_begin(&jc, fs, j->run_sym);
	if (ret)
		goto out;
	ret = corecap_wall_samples_read(&ws, path, on_wall_sample, &w, &err);
	if (ret) {
		corecap_error("%s", err ? err : strerror(-ret));
		goto out;
	}
	if (ws.torn_last_line && !j->quiet)
		corecap_warn(CORECAP_RUN_TORN_WARNING, path);
	if (ws.bad_lines && !j->quiet)
		corecap_warn("'%s': %" PRIu64 " malformed lines skipped", path, ws.bad_lines);
	if (j->rd->has_manifest && !j->quiet) {
		/* What the report's data-quality section says of these samples. */
		char **lines = NULL;
		size_t n = 0;

		ret = corecap_wall_quality(&lines, &n, &j->rd->manifest);
		for (size_t i = 0; i < n; i++)
			corecap_warn("%s", lines[i]);
		corecap_lines_release(&lines, &n);
		if (ret)
			goto out;
	}
	snprintf(j->subtitle, sizeof(j->subtitle),
		 "wall-clock stacks%s: %" PRIu64 " samples of %zu threads over %.2f s, by %s%s",
		 j->rd->has_manifest && j->rd->manifest.wall_oncpu_only
			 ? " on CPU (kernel cpu-clock samples)"
			 : "",
		 ws.samples, w.tids.len, (double)(w.last_ns - w.first_ns) / 1e9,
		 j->by_pool ? "pool" : "thread", j->no_idle ? "; idle waits left out" : "");
	if (j->no_idle && ws.samples)
		snprintf(j->subtitle + strlen(j->subtitle),
			 sizeof(j->subtitle) - strlen(j->subtitle),
			 " (%" PRIu64 " samples, %.1f%%)", fs->idle_weight,
			 100.0 * (double)fs->idle_weight / (double)ws.samples);
	if (j->run_sym)
		print_symbol_problems(j, j->run_sym);
out:
	class_end(&jc, fs);
	fs->drop_idle = false;
	corecap_wall_samples_release(&ws);
	corecap_thread_samples_release(&w.names);
	corecap_u64map_release(&w.tids);
	corecap_profiler_own_release(&w.prof);
	free(err);
	free(path);
	return ret;
}

static int need_report(struct flame_job *j)
{
	struct report_opts o;
	int ret;

	if (j->report)
		return 0;
	if (j->run_is_profile) {
		corecap_error("'%s' is a profile, not a run directory: only --kind cpu reads it",
			      j->run);
		return -EINVAL;
	}
	/* The model keeps every frame: the flame graphs cut the shim's by their own option. */
	corecap_report_opts_init(&o);
	o.keep_shim_frames = true;
	o.keep_profiler = j->keep_profiler;
	if (j->has_own_build)
		corecap_report_build_release(&j->own_build); /* it failed: again, as asked */
	j->has_own_build = true;
	ret = corecap_report_build(&j->own_build, j->rd, &o, &j->own_report);
	if (!ret)
		j->report = &j->own_report;
	return ret;
}

/* The report's name of a lock; unmerged, with the address that tells apart locks of one name. */
static void lock_name(const struct model_lock *lk, bool merge, char *out, size_t size)
{
	size_t n;

	corecap_lock_label(lk, out, size);
	n = strlen(out);
	if (!merge && lk->ambiguous && n < size)
		snprintf(out + n, size - n, " [0x%llx]", (unsigned long long)lk->addr);
}

static int build_lock(struct flame_job *j, struct flame_stacks *fs, int column)
{
	const struct lock_table *t;
	uint64_t total = 0;
	size_t n_locks = 0;
	int ret;

	ret = need_report(j);
	if (!ret)
		ret = open_run_symbols(j);
	if (ret)
		return ret;
	if (!corecap_model_has_locks(j->report->model)) {
		corecap_error("'%s' has no lock source: record under `corecap run` (the "
			      "shim), or with kernel events, for the lock kind",
			      j->run);
		return -ENOENT;
	}
	fs->namer = sym_namer;
	fs->namer_ctx = j->run_sym;
	fs->fixed_class = STACK_LOCK_WAIT; /* every ns of it is a lock wait */
	/* Without the shim, the futex words the kernel saw waited on. */
	t = j->report->model->src.trace || j->report->model->src.stats
		    ? &j->report->model->locks
		    : &j->report->model->futex_locks;
	for (size_t i = 0; i < t->len && !ret; i++) {
		const struct model_lock *lk = t->all[i];
		char label[CORECAP_LOCK_LABEL_MAX];
		const char *prefix[1] = {label};

		if (!lk->wait_ns || lk->profiler) /* the profiler's: cut by the report */
			continue;
		n_locks++;
		lock_name(lk, j->merge_lock_instances, label, sizeof(label));
		for (size_t s = 0; s < lk->n_sites && !ret; s++) {
			const struct lock_site *site = &lk->sites[s];
			uint64_t sampled = 0, left = site->wait_ns;
			size_t last = SIZE_MAX;

			if (!site->wait_ns)
				continue;
			total += site->wait_ns;
			for (size_t k = 0; k < lk->n_stacks; k++)
				if (lk->stacks[k].depth && lk->stacks[k].frames[0] == site->site) {
					sampled += lk->stacks[k].wait_ns;
					last = k;
				}
			if (!sampled) {
				ret = corecap_flame_stacks_add(fs, prefix, 1, &site->site, 1, false,
							       false, site->wait_ns, column);
				continue;
			}
			/* The site's wait, spread over its sampled stacks; the last takes the rest.
			 */
			for (size_t k = 0; k < lk->n_stacks && !ret; k++) {
				const struct lock_stack *st = &lk->stacks[k];
				uint64_t w;

				if (!st->depth || st->frames[0] != site->site)
					continue;
				w = k == last ? left
					      : (uint64_t)((double)site->wait_ns *
							   (double)st->wait_ns / (double)sampled);
				if (w > left)
					w = left;
				left -= w;
				ret = corecap_flame_stacks_add(fs, prefix, 1, st->frames, st->depth,
							       false, false, w, column);
			}
		}
	}
	if (ret) {
		corecap_error("cannot fold the lock stacks: %s", strerror(-ret));
		return ret;
	}
	snprintf(j->subtitle, sizeof(j->subtitle),
		 "contended lock waits: %.3f s in all on %zu locks (each call site's wait spread "
		 "over its sampled stacks)",
		 (double)total / 1e9, n_locks);
	return 0;
}

static const char *detail_label(const struct model *m, uint64_t key, char *buf, size_t size)
{
	uint32_t id = OP_DETAIL_ID(key);

	switch (OP_DETAIL_CAT(key)) {
	case CAT_LOCK_WAIT:
		if (id >= m->locks.len)
			return NULL;
		lock_name(m->locks.all[id], true, buf, size);
		return buf;
	case CAT_IO:
		snprintf(buf, size, "io %s", corecap_io_class_name(id));
		return buf;
	case CAT_QUEUE:
		snprintf(buf, size, "phase %s", id < m->ops.n_phases ? m->ops.phases[id] : "?");
		return buf;
	case CAT_LOGGING:
		snprintf(buf, size, "log %s", corecap_log_source_name((enum log_source)id));
		return buf;
	default:
		return NULL;
	}
}

static int build_op(struct flame_job *j, struct flame_stacks *fs, int column)
{
	const struct model *m;
	uint64_t total = 0;
	int ret;

	ret = need_report(j);
	if (ret)
		return ret;
	m = j->report->model;
	if (has_optracker(j->report))
		return build_ceph_op(j, fs, column);
	if (!corecap_model_has_ops(m)) {
		corecap_error("'%s' has no trace: ops not measured (record the daemon under "
			      "`corecap run`, without --no-trace, for the op kind)",
			      j->run);
		return -ENOENT;
	}
	for (size_t i = 0; i < m->ops.n_types && !ret; i++) {
		const struct op_type *t = &m->ops.types[i];

		for (int c = 0; c < CAT__COUNT && !ret; c++) {
			const char *frames[3] = {t->name ? t->name : "?",
						 corecap_op_cat_name((enum op_cat)c)};
			uint64_t left = t->cat_ns[c], key, ns;
			char buf[192];

			if (!left)
				continue;
			total += left;
			for (size_t pos = 0;
			     !ret && corecap_u64map_next(&t->detail, &pos, &key, &ns);) {
				if (OP_DETAIL_CAT(key) != (enum op_cat)c || !ns)
					continue;
				frames[2] = detail_label(m, key, buf, sizeof(buf));
				if (!frames[2])
					continue;
				if (ns > left)
					ns = left;
				left -= ns;
				ret = corecap_flame_stacks_add(fs, frames, 3, NULL, 0, false, false,
							       ns, column);
			}
			if (!ret && left)
				ret = corecap_flame_stacks_add(fs, frames, 2, NULL, 0, false, false,
							       left, column);
		}
	}
	if (ret) {
		corecap_error("cannot fold the op attribution: %s", strerror(-ret));
		return ret;
	}
	snprintf(j->subtitle, sizeof(j->subtitle),
		 "op latency by attribution category: %" PRIu64 " ops, %.3f s in all",
		 m->ops.finished, (double)total / 1e9);
	return 0;
}

int corecap_flame_job_build(struct flame_job *j, struct flame_stacks *fs, int column)
{
	j->subtitle[0] = '\0';
	fs->keep_shim_frames = j->keep_shim_frames;
	fs->keep_profiler = j->keep_profiler;
	if (j->run_is_profile && fs->kind != FLAME_CPU) {
		corecap_error("'%s' is a profile, not a run directory: only --kind cpu reads it",
			      j->run);
		return -EINVAL;
	}
	switch (fs->kind) {
	case FLAME_CPU:
		return build_cpu(j, fs, column);
	case FLAME_WALL:
		return build_wall(j, fs, column);
	case FLAME_LOCK:
		return build_lock(j, fs, column);
	case FLAME_OP:
		return build_op(j, fs, column);
	default:
		return -EINVAL;
	}
}
