/*
 * hosts_run: a run of several hosts (docs/hosts.md, docs/run-directory.md):
 * its manifest (version CORECAP_RUN_VERSION_HOSTS, read with
 * read/manifest.h: the window in the recording host's clock, the
 * benchmark) and its hosts[], each with its clock against the recording
 * host's and its sub-run under hosts/NAME/, a single-daemon run in that
 * host's clock that every analysis command reads as it reads any run.
 */
#ifndef CORECAP_HOSTS_RUN_H
#define CORECAP_HOSTS_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "manifest.h"

/* One estimate of a host's clock against the recording host's. */
struct hosts_clock {
	bool valid;
	int64_t offset_ns; /* the host's CLOCK_MONOTONIC minus the recording host's */
	uint64_t bound_ns; /* the true offset is within this of offset_ns */
};

struct hosts_host {
	const char *name;	    /* borrowed from the manifest: letters, digits, '_', '-', '.' */
	const char *reach;	    /* how the remote shell reached it; "?" when absent */
	const char *comm;	    /* its daemon's; "?" when absent */
	int pid;		    /* its daemon's; 0 unknown */
	const char *status;	    /* "complete", "partial" or "failed" */
	const char *partial_reason; /* or NULL */
	struct hosts_clock start, end;
	bool has_drift;
	double drift_ppm, drift_bound_ppm;
	char *dir; /* RUN/hosts/NAME, malloc'd; NULL when the host made no run */
};

struct hosts_run {
	const char *dir;
	struct run_manifest manifest;
	struct hosts_host *hosts;
	size_t n_hosts;
};

/* Whether dir's manifest says it is a run of several hosts (no error said). */
bool corecap_hosts_run_is(const char *dir);
/* 0, or a negative errno with *err (malloc'd). corecap_hosts_run_close() in both cases. */
int corecap_hosts_run_open(struct hosts_run *m, const char *dir, char **err);
/* The same from the manifest at path (dir's own, or a copy of it). */
int corecap_hosts_run_open_manifest(struct hosts_run *m, const char *dir, const char *path,
				    char **err);
void corecap_hosts_run_close(struct hosts_run *m);
/*
 * "RUN:NAME", when RUN is a run of several hosts, NAME one of them with a
 * run, and no file is named so: RUN/hosts/NAME, malloc'd. NULL otherwise
 * (arg is then a path as it is), with *err set when arg looked like
 * RUN:NAME of such a run but names no host of it, or one that sent no run.
 */
char *corecap_hosts_run_resolve(const char *arg, char **err);

#endif
