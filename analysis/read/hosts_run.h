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

/* The longest host name (collector/hosts/host_spec.h's). */
#define CORECAP_HOSTS_NAME_MAX 32

/* One estimate of a host's clock against the recording host's. */
struct hosts_clock {
	bool valid;
	int64_t offset_ns; /* the host's CLOCK_MONOTONIC minus the recording host's */
	uint64_t bound_ns; /* the true offset is within this of offset_ns */
	uint64_t at_ns;	   /* the recording host's time of the estimate; 0 unknown */
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

/*
 * A host's times on the recording host's time line, from its clock's two
 * estimates (docs/run-directory.md): the offset at start.at_ns, and its
 * drift, the change of the offset per ns of the recording host's (the
 * line through the two estimates; 0 with one). Between the estimates'
 * times each aligned time is within the larger of their bounds;
 * beyond them the drift's own bound (the two bounds over the span) adds
 * per ns.
 */
struct hosts_align {
	bool valid;	   /* false: the host's clock was not measured */
	bool has_drift;	   /* both estimates, at different times */
	int64_t offset_ns; /* at at_ns */
	uint64_t at_ns;
	double drift, drift_bound; /* dimensionless (ppm / 1e6) */
	uint64_t bound_ns;	   /* the larger of the estimates' bounds */
	uint64_t from_ns, to_ns;   /* the estimates' times (equal with one) */
};

void corecap_hosts_align_init(struct hosts_align *a, const struct hosts_host *h);
/* The recording host's time of the host's time t (its CLOCK_MONOTONIC ns). */
int64_t corecap_hosts_align_to_rec(const struct hosts_align *a, uint64_t t);
/* The host's time of the recording host's time t. */
int64_t corecap_hosts_align_to_host(const struct hosts_align *a, int64_t t);
/* The bound of an aligned time at the recording host's time t, in ns. */
uint64_t corecap_hosts_align_bound(const struct hosts_align *a, int64_t t);

#endif
