/*
 * struct corecap_run_dir: the output directory of one recording.
 *
 * Guarantees: after corecap_run_dir_create() succeeds, `abs_path` names a
 * directory this call created (mode 0700, owned by the caller), never a
 * symbolic link, holding corecap's mark (CORECAP_RUN_MARK, run_format.h);
 * `dirfd` is open on it and every file is made through
 * corecap_run_dir_create_file() (O_EXCL | O_NOFOLLOW, mode 0600), so nothing
 * written can land outside it even if someone renames things in its parent.
 *
 * An existing path is refused. With `force` an existing directory is
 * replaced, but only a run corecap wrote: it holds the mark and a manifest,
 * every entry in it is the caller's, and none is a mount point (checked
 * over the whole tree before anything is made, and again before anything
 * is removed: a refusal leaves the tree whole). The new run is then written
 * aside, in a fresh directory beside it (<name>CORECAP_RUN_DIR_ASIDE<6
 * random characters>, which `abs_path` names meanwhile: LTTng writes
 * there), and corecap_run_dir_place() swaps it in (renameat2
 * RENAME_EXCHANGE) and only then removes the old run. Until then the old
 * run is untouched: a record that fails or is abandoned removes only its
 * own new directory, and one killed leaves the new one aside.
 */
#ifndef CORECAP_COLLECTOR_RUN_DIR_H
#define CORECAP_COLLECTOR_RUN_DIR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define CORECAP_RUN_DIR_ASIDE ".corecap-new-"

struct corecap_run_dir {
	char *path;	/* as the user gave it: where the run is once placed */
	char *abs_path; /* absolute, where it is written (LTTng writes there by path) */
	int dirfd;
	int parent_fd; /* the directory that holds it */
	char *name;    /* its final name in parent_fd */
	char *aside;   /* with --force over an old run: its name until placed; else NULL */
	char *parent_abs;
	dev_t old_dev; /* the old run it replaces, as checked */
	ino_t old_ino;
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
/*
 * Puts a run written aside in its place, once nothing writes into it by
 * path any more (the LTTng session destroyed), and removes the old run it
 * replaces; `abs_path` then names the final place. 0 with nothing to do
 * for a run written in place. -errno (printed, naming where the new run
 * is kept) when the swap fails; an old run that can no longer be removed
 * whole is kept under the aside name, with a warning, and 0 is returned.
 */
int corecap_run_dir_place(struct corecap_run_dir *rd);
void corecap_run_dir_release(struct corecap_run_dir *rd);
/*
 * Removes the directory and everything in it (a recording abandoned
 * before its window): the new directory only, never an old run it was to
 * replace; refused whole, as for --force, if something in it is not ours.
 */
int corecap_run_dir_remove(struct corecap_run_dir *rd);

/*
 * The default run directory name, ./corecap-<comm>-<tag>-<YYYYmmdd-HHMMSS>,
 * the comm reduced to [A-Za-z0-9._-] (tag: the PID, or x<N> for N daemons).
 */
void corecap_run_dir_default_name(const char *comm, const char *tag, char *buf, size_t size);

/*
 * Whether the directory open at dirfd may be removed as a run corecap
 * wrote: it and everything in it the caller's, no mount point in it, and
 * it holds corecap's mark and a manifest (with `need_manifest`). If not, a
 * sentence saying why (naming the entry, relative to `shown`) in why.
 */
bool corecap_run_dir_is_ours(int dirfd, const char *shown, bool need_manifest, char *why,
			     size_t size);
/*
 * Whether the directory open at dirfd holds corecap's mark, the caller's,
 * written by the collector PID that started at start_ticks (0: any).
 */
bool corecap_run_dir_marked(int dirfd, pid_t pid, uint64_t start_ticks);

#endif
