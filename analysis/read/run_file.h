/*
 * run_file: opening a file of a run directory (or a daemon's output saved
 * in one) for reading, safely whatever sits at its path. A run directory
 * may come from another machine or another user: a FIFO, a device or a
 * socket in place of a run file must give a clear error at once, never
 * block the command in open() or read() forever. So every reader of run
 * files opens them here: O_NONBLOCK (an open of a FIFO without a writer
 * returns at once), then fstat, and only a regular file is accepted.
 *
 * Three more rules hold for every run file opened here:
 *  - a size bound per kind of file (corecap_run_file_max_bytes(), the
 *    table in docs/robustness.md), checked with fstat before a byte is
 *    read: a sparse 10 GB file costs one fstat, not minutes and gigabytes;
 *  - under a run directory registered with corecap_run_file_add_root()
 *    (corecap_run_open() does it), the file is opened relative to the
 *    directory with openat2(RESOLVE_BENEATH): a symbolic link that leads
 *    out of the run (another user's file, linked in) is refused: what a
 *    run holds is what its directory holds;
 *  - text files are read by lines of a bounded length (struct run_lines):
 *    a longer line or a NUL byte is an error, so memory is bounded by the
 *    line bound, not by the file.
 *
 * Errors are negative errnos; four values open() never returns for
 * O_RDONLY say what run_file refused (ENOTREG_RUN_FILE: not a regular
 * file; ETOOBIG_RUN_FILE: over its size bound; ELINKOUT_RUN_FILE: a link
 * out of the run; ELINE_RUN_FILE / ENUL_RUN_FILE: a line too long, a NUL
 * byte), and corecap_run_file_strerror() spells every one of them out.
 */
#ifndef CORECAP_RUN_FILE_H
#define CORECAP_RUN_FILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <json-c/json.h>

/* "Not a regular file": the errno the functions below return for a FIFO,
 * device, socket or directory in place of a run file. */
#define ENOTREG_RUN_FILE  4095
#define ETOOBIG_RUN_FILE  4094 /* larger than its kind's bound */
#define ELINKOUT_RUN_FILE 4093 /* a symbolic link that leaves the run directory */
#define ELINE_RUN_FILE	  4092 /* a line longer than its reader's bound */
#define ENUL_RUN_FILE	  4091 /* a NUL byte in a text file */

/* The largest JSON file read whole (manifest.json, Ceph's perf dumps) but
 * the OSD's op history (its own bound, run_file.c): a manifest is a few
 * KiB, a large OSD's perf dumps under 1 MiB; json-c's tree of a file costs
 * up to ~30 times its size, hence not more. */
#define CORECAP_RUN_FILE_JSON_MAX_BYTES (16ull << 20)

/* The size bound of the run file at path, by its name (docs/robustness.md). */
uint64_t corecap_run_file_max_bytes(const char *path);
/*
 * A run directory: its files (paths that begin with "DIR/") are opened
 * beneath it. 0 or a negative errno (dir cannot be opened: its files are
 * then opened by path, and their own open says why).
 */
int corecap_run_file_add_root(const char *dir);

/* A read-only descriptor of a regular file within its bound; -errno otherwise (-ENOENT when
 * absent). */
int corecap_run_file_open(const char *path);
/* The same as a stdio stream ("re"); NULL with errno set. */
FILE *corecap_run_file_fopen(const char *path);
/* strerror() that also names the run_file errnos above (the size and the
 * bound of the last refusal of this thread); err is positive. */
const char *corecap_run_file_strerror(int err);
/*
 * Reads path whole and parses it as one JSON value. 0 with *out; -ENOENT
 * (no *err) when the file does not exist; otherwise a negative errno and
 * *err (malloc'd: "'PATH': why", e.g. "empty file", "truncated: ...").
 */
int corecap_run_file_json(const char *path, json_object **out, char **err);
/* The two halves of it: the file's bytes as they are (*buf malloc'd and
 * NUL-terminated; -ENOENT without *err when absent), and those bytes
 * parsed as path's (decompressed first when it ends in .zst). */
int corecap_run_file_bytes(const char *path, char **buf, size_t *len, char **err);
int corecap_run_file_json_bytes(const char *path, const char *raw, size_t len, json_object **out,
				char **err);

/*
 * A run's text file read line by line through a fixed buffer: a line
 * longer than max_line bytes (its newline aside) or holding a NUL byte is
 * an error, never a larger allocation.
 */
struct run_lines {
	int fd;
	const char *path;
	char *buf;
	size_t cap, start, end, max_line;
	uint64_t off;	 /* file offset of buf[0] */
	uint64_t lineno; /* of the line last returned */
	uint64_t bad_at; /* the byte an error is about */
	bool eof;
	bool torn; /* the file ended in a line without its newline (dropped) */
};

/* 0; -ENOENT when absent; another negative errno (corecap_run_file_strerror). */
int corecap_run_lines_open(struct run_lines *l, const char *path, size_t max_line);
/*
 * 1 with the next line in *line (NUL-terminated, its newline removed) and
 * its length in *len; 0 at the end (torn set when the last line lacked its
 * newline: that fragment is dropped); a negative errno otherwise.
 */
int corecap_run_lines_next(struct run_lines *l, char **line, size_t *len);
/* "cannot read 'PATH': <why, where>" for an error of corecap_run_lines_next; returns ret. */
int corecap_run_lines_err(const struct run_lines *l, int ret, char **err);
void corecap_run_lines_close(struct run_lines *l);

#endif
