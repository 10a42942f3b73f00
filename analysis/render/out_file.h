/*
 * struct out_file: the -o FILE of an analysis command, written so that a
 * failed or interrupted command never truncates or removes a path it did
 * not create.
 *
 * Guarantees:
 * - a regular file (or a path that does not exist) is written to a new
 *   temporary file beside it (same directory, O_EXCL, mode 0666 less the
 *   umask, as a new file would get; an existing file's mode is kept), which
 *   corecap_out_file_commit() fsyncs and renames over the target; until
 *   then the target is untouched, and corecap_out_file_abort() (or a failed
 *   commit) unlinks only that temporary file;
 * - "-", a character or block device or a FIFO is opened and written in
 *   place, never truncated, renamed over or unlinked; a FIFO without a
 *   reader (for 2 s) and a socket are refused (corecap_out_file_check());
 * - a directory or a dangling symbolic link is refused; a symbolic link to
 *   a regular file is followed and its target replaced (the link stays).
 * So writing a file needs the right to create one in its directory.
 * Errors are printed ("corecap: cannot create 'X': cause") and returned as
 * a negative errno.
 */
#ifndef CORECAP_ANALYSIS_OUT_FILE_H
#define CORECAP_ANALYSIS_OUT_FILE_H

#include <stdbool.h>
#include <stdio.h>

struct out_file {
	FILE *f;       /* where to write */
	char *path;    /* as given; NULL for stdout */
	char *target;  /* the file the rename replaces (symbolic links resolved) */
	char *tmp;     /* the temporary file beside it, or NULL when written in place */
	bool in_place; /* stdout or a special file */
};

/*
 * Checks -o path when the arguments are read, before any input: a
 * directory or a socket is refused, and so is a FIFO that no process
 * opens for reading within 2 s (opened without blocking; with a reader,
 * the descriptor is kept for corecap_out_file_open()). 0, or the error printed and a negative
 * errno.
 */
int corecap_out_file_check(const char *path);
/* Opens path for writing ("-" or NULL: stdout). */
int corecap_out_file_open(struct out_file *o, const char *path);
/* Flushes, fsyncs and renames into place; on failure removes the temporary file. */
int corecap_out_file_commit(struct out_file *o);
/* Closes and removes the temporary file; the target is left as it was. */
void corecap_out_file_abort(struct out_file *o);
/* The name to show the user: the path, or "standard output". */
const char *corecap_out_file_name(const struct out_file *o);

#endif
