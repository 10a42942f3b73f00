/*
 * report: everything a rendering needs, gathered by the report command
 * after reading and modelling. Renderers only read it; a new output
 * format is a new render_*.c over this struct and nothing else.
 */
#ifndef CORECAP_REPORT_H
#define CORECAP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../model/ceiling.h"
#include "../model/ceph_sampled.h"
#include "../model/model.h"
#include "../model/pool_table.h"
#include "../read/ceph_files.h"
#include "../read/manifest.h"

struct report {
	const char *run_dir;
	const struct run_manifest *manifest; /* NULL: no manifest (partial run) */
	const struct model *model;
	const struct pool_table *pools;
	const struct ceiling *ceiling;
	int cores_available; /* 0: unknown */
	bool window_from_manifest;
	size_t n_traces;
	uint64_t foreign_events;    /* events of other providers, ignored */
	const char *const *missing; /* run files absent: "threads.tsv", ... */
	size_t n_missing;
	char **warnings; /* data-quality sentences */
	size_t n_warnings;
	/* Set when the analysis itself found the run incomplete (a stream file
	 * shorter than its index, events the shim counted missing from the
	 * trace), though its manifest says complete: the report is partial. */
	const char *incomplete_reason;
	bool has_stats;
	size_t top_locks; /* text: rows of the lock table */
	/* Names a code address (a stack frame) for display. */
	const char *(*frame_name)(void *ctx, uint64_t addr);
	void *frame_ctx;
	const struct ceph_files *ceph; /* NULL, or empty without RUN/ceph/ */
	/* Its ops' categories from wall-clock samples; NULL with the reason
	 * in ceph_sampled_why_not (NULL too when there is no history). */
	const struct ceph_sampled *ceph_sampled;
	const char *ceph_sampled_why_not;
};

/*
 * For the other analysis commands (html, compare): reads and models RUN as
 * `corecap report` does (errors go to stderr) and fills *r, valid until
 * corecap_report_close(*job). 0 or a negative errno.
 */
struct report_job;
int corecap_report_open(const char *run, const char *symfs, struct report_job **job,
			struct report *r);
void corecap_report_close(struct report_job *job);

/* Both return 0, or -EIO when writing failed. */
int corecap_render_text(const struct report *r, FILE *out);
int corecap_render_json(const struct report *r, FILE *out);

#endif
