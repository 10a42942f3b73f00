/*
 * ceph_disk: what a disk-backed OSD's writes spent on its disk, per write
 * op of the window, for the report (text, JSON, HTML): the shim's I/O by
 * class (read/shim_stats.h: the journal/WAL class, BlueStore's DB and WAL
 * file or FileStore's journal, against the data class), each as the time
 * from submission to completion of its asynchronous I/O (libaio) and the
 * time in fsync-like calls (fsync, fdatasync, sync_file_range), beside the
 * object store's own counters for the same (read/ceph_files.h: BlueStore's
 * kv_sync thread and deferred aio, FileStore's journal) and, for FileStore,
 * its journal write as a phase of its own: the OpTracker phase
 * write_thread_in_journal_buffer, which runs from the op's entry into the
 * journal's write buffer until its journaled completion is queued.
 *
 * The denominator is the window's write ops: the OSD's op_w counter
 * (perf dump, end minus begin), else the benchmark's ops.
 */
#ifndef CORECAP_CEPH_DISK_H
#define CORECAP_CEPH_DISK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <corecap/stats_layout.h>
#include <json-c/json.h>

#include "report.h"

/* The OpTracker phase that is FileStore's journal write. */
#define CORECAP_CEPH_JOURNAL_PHASE "write_thread_in_journal_buffer"

struct ceph_disk_class {
	uint64_t aio_done, sync_calls;
	double aio_us, sync_us, io_us; /* per write op */
	double aio_mean_us;	       /* per completion */
};

struct ceph_disk {
	double ops;	      /* write ops in the window */
	const char *ops_from; /* "op_w" or "benchmark" */
	struct ceph_disk_class cls[CORECAP_IO_CLASSES];
	bool has_journal_phase;
	double journal_phase_us; /* FileStore's journal write, per op of type write */
};

/* Fills *d; false when the run has no shim counters, no write ops, or
 * no journal or data I/O (a memstore OSD). */
bool corecap_ceph_disk_of(const struct report *r, struct ceph_disk *d);
void corecap_ceph_disk_text(const struct report *r, FILE *out);
/* Adds the report's `ceph.disk` object (null without figures) to root's `ceph`, if any. */
void corecap_ceph_disk_json_put(const struct report *r, json_object *root);
void corecap_ceph_disk_html(const struct report *r, FILE *out);

#endif
