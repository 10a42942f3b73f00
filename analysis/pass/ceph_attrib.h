/*
 * ceph_attrib: the report's sampled attribution of a Ceph daemon's
 * OpTracker ops (model/ceph_sampled.h): reads RUN/wall.samples, keeps the
 * samples of op-path threads (pools matching the --op-pools patterns),
 * classifies each stack (model/stack_class.h) and credits it to the ops in
 * flight at its instant.
 */
#ifndef CORECAP_CEPH_ATTRIB_H
#define CORECAP_CEPH_ATTRIB_H

#include <stddef.h>
#include <stdint.h>

#include "model/ceph_sampled.h"
#include "util/u64map.h"
#include "model/thread_table.h"
#include "read/manifest.h"
#include "read/symbolizer.h"

#define CORECAP_DEFAULT_OP_POOLS                                                                   \
	"msgr-worker,tp_osd_tp,fn_anonymous,finisher,ms_dispatch,ms_local,bstore_*"

struct ceph_attrib_in {
	const char *run_dir;
	const struct run_manifest *manifest;
	const struct ceph_files *ceph;
	const struct thread_table *threads;
	uint64_t window_ns;
	struct symbolizer *sym; /* NULL: no symbols, every sample is cpu or idle by nothing */
	char *const *log_patterns;
	size_t n_log_patterns;
	const char *op_pools; /* comma-separated fnmatch patterns over pool names */
	/* If set: each op-path thread's samples by class, counted at
	 * CORECAP_CC_SAMPLE_KEY(tid, cat) (model/ceph_critical.h). */
	struct u64map *thread_cats;
};

/*
 * 0 with *out finished; 1 when the run cannot give it, with *why_not
 * (static text: no OpTracker spans, no wall.samples, no clock offset);
 * a negative errno on a read error, after printing its cause.
 */
int corecap_ceph_attrib(struct ceph_sampled *out, const struct ceph_attrib_in *in,
			const char **why_not);

#endif
