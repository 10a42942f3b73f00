/*
 * multi_run: a run of several daemons (docs/run-directory.md, "A run of
 * several daemons"): its manifest (version CORECAP_RUN_VERSION_MULTI,
 * read with read/manifest.h: window, machine, benchmark) and its
 * daemons[], each a complete single-daemon run under daemons/<pid>/ that
 * every analysis command reads as it reads any run. A daemon is named on
 * the command line as RUN:PID (corecap_multi_run_resolve).
 */
#ifndef CORECAP_MULTI_RUN_H
#define CORECAP_MULTI_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "manifest.h"

struct multi_daemon {
	int pid;
	const char *comm;	    /* borrowed from the manifest; "?" when absent */
	const char *status;	    /* "complete", "partial" or "missing" */
	const char *partial_reason; /* or NULL */
	int ceph_osd_id;	    /* -1: not found by --ceph-osds */
	char *dir;		    /* RUN/daemons/<pid>, malloc'd */
};

struct multi_run {
	const char *dir; /* the run's directory (RUN:HOST's: owned_dir) */
	char *owned_dir; /* RUN/hosts/HOST when opened as RUN:HOST, or NULL */
	struct run_manifest manifest;
	struct multi_daemon *daemons;
	size_t n_daemons;
};

/*
 * Whether dir's manifest says it is a run of several daemons (no error
 * said); dir may be RUN:HOST, a host of a run of several hosts whose run
 * is one of several daemons (read/hosts_run.h).
 */
bool corecap_multi_run_is(const char *dir);
/* 0, or a negative errno with *err (malloc'd). corecap_multi_run_close() in both cases. */
int corecap_multi_run_open(struct multi_run *m, const char *dir, char **err);
/* The same from the manifest at path (dir's own, or a copy of it: the fuzz harness). */
int corecap_multi_run_open_manifest(struct multi_run *m, const char *dir, const char *path,
				    char **err);
void corecap_multi_run_close(struct multi_run *m);
/* The daemon of PID pid, or NULL. */
const struct multi_daemon *corecap_multi_run_daemon(const struct multi_run *m, int pid);
/*
 * "RUN:PID", when RUN is a run of several daemons and PID one of them, and
 * no file is named so: RUN/daemons/PID, malloc'd; on a run of one daemon
 * whose PID it is, RUN. "RUN:HOST:PID" the same of host HOST's run of a run
 * of several hosts. PID: decimal digits only, no leading zero, at most 10.
 * NULL otherwise (arg is then a path as it is), with *err set when arg
 * looked like RUN:PID but names no daemon of RUN, names a host RUN does
 * not have, or puts other than a PID after a host.
 */
char *corecap_multi_run_resolve(const char *arg, char **err);

#endif
