#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ceph_attrib.h"
#include "model/ceph_critical.h"

#include <corecap/diag.h>
#include "model/lines.h"
#include "util/u64map.h"
#include "read/wall_samples.h"
#include <corecap/run_format.h>

struct attrib_ctx {
	const struct ceph_attrib_in *in;
	struct ceph_sampled *out;
	struct stack_class cls;
	struct u64map on_path; /* tid -> 1 on the op path, 2 not */
	char **pools;
	size_t n_pools;
};

/* -ENOMEM, or whether tid's pool is on the op path. */
static int on_path(struct attrib_ctx *a, int32_t tid)
{
	bool inserted;
	uint64_t *v = corecap_u64map_upsert(&a->on_path, (uint64_t)(uint32_t)tid, &inserted);
	const struct model_thread *th;

	if (!v)
		return -ENOMEM;
	if (inserted) {
		*v = 2;
		th = corecap_thread_table_find(a->in->threads, tid);
		for (size_t i = 0; th && i < a->n_pools && *v == 2; i++)
			if (fnmatch(a->pools[i], th->pool, 0) == 0)
				*v = 1;
	}
	return *v == 1;
}

static int on_sample(void *ctx, const struct wall_sample *s)
{
	struct attrib_ctx *a = ctx;
	int ret = on_path(a, s->tid);

	if (ret <= 0)
		return ret;
	ret = corecap_stack_class_of(&a->cls, s->ips, s->depth);
	if (ret < 0)
		return ret;
	if (a->in->thread_cats) {
		uint64_t *n = corecap_u64map_upsert(a->in->thread_cats,
						    CORECAP_CC_SAMPLE_KEY(s->tid, ret), NULL);

		if (!n)
			return -ENOMEM;
		(*n)++;
	}
	corecap_ceph_sampled_add(a->out, s->time_ns, (enum stack_cat)ret);
	return 0;
}

int corecap_ceph_attrib(struct ceph_sampled *out, const struct ceph_attrib_in *in,
			const char **why_not)
{
	const struct run_manifest *mf = in->manifest;
	struct attrib_ctx a = {.in = in, .out = out};
	struct wall_samples ws;
	char *path = NULL, *err = NULL;
	uint64_t period_ns;
	int ret;

	*why_not = NULL;
	if (!in->ceph->n_spans)
		*why_not = "the OpTracker history has no op with both an arrival and a reply";
	else if (!mf || !mf->wall_hz)
		*why_not = "no wall-clock samples (record with --wallclock)";
	else if (!mf->has_realtime_offset)
		*why_not = "the manifest lacks window.realtime_offset_ns (recorded by an older "
			   "corecap), so samples cannot be matched with the OpTracker's times";
	if (*why_not)
		return 1;
	period_ns =
		mf->wall_rounds ? in->window_ns / mf->wall_rounds : (uint64_t)(1e9 / mf->wall_hz);
	if (asprintf(&path, "%s/" CORECAP_RUN_WALL, in->run_dir) < 0)
		path = NULL;
	if (!path)
		return -ENOMEM;
	corecap_u64map_init(&a.on_path);
	corecap_stack_class_init(&a.cls, in->log_patterns, in->n_log_patterns,
				 corecap_symbolizer_function, in->sym);
	corecap_wall_samples_init(&ws);
	ret = corecap_lines_split(&a.pools, &a.n_pools, in->op_pools);
	if (!ret)
		ret = corecap_ceph_sampled_init(out, in->ceph, mf->realtime_offset_ns, period_ns);
	if (!ret) {
		ret = corecap_wall_samples_read(&ws, path, on_sample, &a, &err);
		if (ret == -ENOENT) {
			*why_not = "the manifest lists a wall-clock sampler but " CORECAP_RUN_WALL
				   " is "
				   "missing";
			ret = 1;
		} else if (ret) {
			corecap_error("%s", err ? err : strerror(-ret));
		} else if (mf->wall_oncpu_only) {
			/* Each sample is a thread on a CPU: the per-thread counts
			 * (thread_cats) hold, a category's time per op would not
			 * (a wait or queue sampled nowhere would read as queue). */
			*why_not =
				"the wall-clock samples are the kernel's on-CPU stacks, which "
				"sample no thread off its CPU (record with --wallclock for these "
				"categories)";
			ret = 1;
		} else {
			corecap_ceph_sampled_finish(out);
		}
	}
	corecap_wall_samples_release(&ws);
	corecap_stack_class_release(&a.cls);
	corecap_u64map_release(&a.on_path);
	corecap_lines_release(&a.pools, &a.n_pools);
	free(err);
	free(path);
	return ret;
}
