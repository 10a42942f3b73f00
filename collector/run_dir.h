/*
 * struct corecap_run_dir: the output directory of one recording.
 *
 * Guarantees: after corecap_run_dir_create() succeeds, `path` names a
 * directory this call created (mode 0700, owned by the caller), never a
 * symbolic link; `dirfd` is open on it and every file is made through
 * corecap_run_dir_create_file() (O_EXCL | O_NOFOLLOW, mode 0600), so nothing
 * written can land outside it even if someone renames things in its parent.
 * An existing path is refused; with `force` an existing directory is
 * removed first, but only one that looks like a corecap run (it holds
 * manifest.json, trace/ or threads.tsv) or is empty, and never by
 * following a symbolic link.
 */
#ifndef CORECAP_COLLECTOR_RUN_DIR_H
#define CORECAP_COLLECTOR_RUN_DIR_H

#include <stdbool.h>
#include <stdio.h>

struct corecap_run_dir {
	char *path;	/* as the user gave it */
	char *abs_path; /* absolute (LTTng writes there by path) */
	int dirfd;
};

/* Prints the reason on failure and returns -errno. */
int corecap_run_dir_create(struct corecap_run_dir *rd, const char *path, bool force);
int corecap_run_dir_create_file(struct corecap_run_dir *rd, const char *name, int *fd_out);
int corecap_run_dir_fopen(struct corecap_run_dir *rd, const char *name, FILE **out);
/*
 * Writes all of buf to fd, retrying short writes and EINTR: 0, or the
 * -errno of the failed write (a full disk is -ENOSPC, never -EIO).
 */
int corecap_write_all(int fd, const void *buf, size_t len);
/*
 * A run file written through stdio: flush() writes out what is buffered,
 * keeping the first failure's errno in *write_errno (printed once, naming
 * RUN/name); close() flushes and closes, returning -*write_errno or 0.
 */
void corecap_run_file_flush(FILE *f, const char *name, int *write_errno);
int corecap_run_file_close(FILE *f, const char *name, int *write_errno);
/* Replaces `name` atomically with the bytes written to `tmp_name`. */
int corecap_run_dir_rename(struct corecap_run_dir *rd, const char *tmp_name, const char *name);
void corecap_run_dir_release(struct corecap_run_dir *rd);
/* Removes the directory and everything in it (a recording abandoned before its window). */
int corecap_run_dir_remove(struct corecap_run_dir *rd);

/*
 * The default run directory name, ./corecap-<comm>-<tag>-<YYYYmmdd-HHMMSS>,
 * the comm reduced to [A-Za-z0-9._-] (tag: the PID, or x<N> for N daemons).
 */
void corecap_run_dir_default_name(const char *comm, const char *tag, char *buf, size_t size);

/* Whether the directory open at dirfd is empty or holds a corecap run. */
bool corecap_run_dir_looks_like_run(int dirfd);

#endif
