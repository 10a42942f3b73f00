/*
 * threads_tsv: the one reader of threads.tsv, the collector's per-thread
 * /proc samples (docs/run-directory.md): its header, its rows, a torn last
 * line. Each row goes to a callback, parsed; thread_samples (each thread's
 * first and last row in a window) and thread_series (CPU per pool over
 * time) are its two consumers.
 */
#ifndef CORECAP_THREADS_TSV_H
#define CORECAP_THREADS_TSV_H

#include <stdbool.h>
#include <stdint.h>

/* The longest line read: a row is nine numbers and a 16-byte name (under
 * 256 bytes); a longer line, or a NUL byte, is an error naming the file. */
#define THREADS_TSV_MAX_LINE 4096

struct threads_tsv_row {
	uint64_t time_ns;
	int32_t tid;		 /* > 0 */
	const char *comm;	 /* "" when the row has none; valid during the callback */
	uint64_t cpu_ns;	 /* utime + stime */
	int64_t run_ns, wait_ns; /* -1: no schedstat */
	int64_t cs;		 /* voluntary + involuntary context switches; -1: unknown */
};

struct threads_tsv {
	/* A row whose time, tid, utime or stime cannot be read: an error naming
	 * the line (false), or skipped and counted in bad_rows (true). */
	bool skip_unreadable;
	uint64_t rows;	     /* data rows, bad ones included */
	uint64_t bad_rows;   /* skipped: negative time, utime or stime, a tid <= 0 */
	bool torn_last_line; /* the file ends mid-line; that line is dropped */
};

typedef int (*threads_tsv_row_fn)(void *ctx, const struct threads_tsv_row *row);

/*
 * Reads path, passing each good row to fn (a non-zero return stops the
 * read and is returned, with *err naming the line). 0; -ENOENT when the
 * file does not exist (no *err); another negative errno with *err
 * (malloc'd, naming the file and line).
 */
int corecap_threads_tsv_read(struct threads_tsv *t, const char *path, threads_tsv_row_fn fn,
			     void *ctx, char **err);

#endif
