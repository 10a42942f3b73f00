/*
 * run_file: opening a file of a run directory (or a daemon's output saved
 * in one) for reading, safely whatever sits at its path. A run directory
 * may come from another machine or another user: a FIFO, a device or a
 * socket in place of a run file must give a clear error at once, never
 * block the command in open() or read() forever. So every reader of run
 * files opens them here: O_NONBLOCK (an open of a FIFO without a writer
 * returns at once), then fstat, and only a regular file is accepted.
 *
 * Errors are negative errnos; -ENOTREG_RUN_FILE (a value open() never
 * returns for O_RDONLY) means "not a regular file", and
 * corecap_run_file_strerror() spells every one of them out.
 */
#ifndef CORECAP_RUN_FILE_H
#define CORECAP_RUN_FILE_H

#include <stdio.h>

#include <json-c/json.h>

/* "Not a regular file": the errno the functions below return for a FIFO,
 * device, socket or directory in place of a run file. */
#define ENOTREG_RUN_FILE 4095

/* The largest JSON file read whole (manifest.json, ceph/ *.json). */
#define CORECAP_RUN_FILE_JSON_MAX_BYTES (1ull << 30)

/* A read-only descriptor of a regular file; -errno otherwise (-ENOENT when absent). */
int corecap_run_file_open(const char *path);
/* The same as a stdio stream ("re"); NULL with errno set. */
FILE *corecap_run_file_fopen(const char *path);
/* strerror() that also names ENOTREG_RUN_FILE; err is positive. */
const char *corecap_run_file_strerror(int err);
/*
 * Reads path whole and parses it as one JSON value. 0 with *out; -ENOENT
 * (no *err) when the file does not exist; otherwise a negative errno and
 * *err (malloc'd: "'PATH': why", e.g. "empty file", "truncated: ...").
 */
int corecap_run_file_json(const char *path, json_object **out, char **err);

#endif
