/*
 * struct corecap_proc_sampler: per-thread samples from /proc into
 * RUN/threads.tsv (format: docs/run-directory.md).
 *
 * Guarantees: the file starts with the header line; each call to
 * corecap_proc_sampler_sample() appends one row per live thread, each
 * stamped with CLOCK_MONOTONIC when that thread was read; a thread that
 * vanishes while being read is skipped, not half-written. A round is
 * written out (one write of whole lines, through a buffer that holds it)
 * before the call returns, so a collector killed at any moment leaves the
 * file whole up to its last round but for, at worst, a torn last line,
 * which readers drop. The first write error (errno) is kept.
 */
#ifndef CORECAP_COLLECTOR_PROC_SAMPLER_H
#define CORECAP_COLLECTOR_PROC_SAMPLER_H

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct corecap_run_dir;
struct proc_task_fds;

/* The threads whose stat and schedstat stay open between rounds (two
 * descriptors each); a thread past them is opened and closed each round. */
#define CORECAP_PROC_SAMPLER_KEEP 256

struct corecap_proc_sampler {
	pid_t pid;
	DIR *tasks;		   /* /proc/PID/task */
	struct proc_task_fds *fds; /* by tid, at most CORECAP_PROC_SAMPLER_KEEP */
	size_t n_fds;
	FILE *out;
	long clk_tck;
	uint64_t rounds;
	uint64_t rows;
	size_t n_threads; /* in the last round */
	bool have_schedstat;
	int write_errno; /* the first failed write's errno; 0: none */
};

int corecap_proc_sampler_init(struct corecap_proc_sampler *s, pid_t pid,
			      struct corecap_run_dir *rd);
/* One row per thread; -ESRCH when the process is gone. */
int corecap_proc_sampler_sample(struct corecap_proc_sampler *s);
/* Writes out what is buffered (a whole round). */
void corecap_proc_sampler_flush(struct corecap_proc_sampler *s);
/* Flushes and closes; -errno when the file could not be written. */
int corecap_proc_sampler_release(struct corecap_proc_sampler *s);

extern const char corecap_threads_tsv_header[];

#endif
