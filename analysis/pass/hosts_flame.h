/*
 * hosts_flame: the stacks of a run of several hosts (docs/hosts.md) for
 * one flame graph, each host's under a root frame of its name, so that a
 * host's folded lines are what its own run gives (`corecap flame
 * RUN:NAME`) with "NAME;" before each. `corecap flame RUN` draws them;
 * `corecap compare --folded|--svg` puts two such runs in two columns.
 *
 * A host of several daemons gives a root frame per daemon, "NAME:PID",
 * its lines those of `corecap flame RUN:NAME:PID`.
 *
 * A host that sent no run, or whose run lacks the kind's stacks, is left
 * out and said (a warning for the first, a note for the second).
 */
#ifndef CORECAP_HOSTS_FLAME_H
#define CORECAP_HOSTS_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pass/flame_job.h"
#include "read/hosts_run.h"

/* A root frame of the graph: a host's run, or one daemon's of a host of several. */
struct hosts_flame_unit {
	char root[CORECAP_HOSTS_NAME_MAX + 16]; /* NAME, or NAME:PID */
	char *dir;				/* its run, malloc'd */
};

struct hosts_flame {
	struct hosts_run m;
	struct hosts_flame_unit *u; /* the hosts with a run, a host of several daemons' each */
	size_t n_units;
	struct flame_job *j; /* per unit */
	bool *has;	     /* per unit: its run has the stacks of the kind chosen */
	size_t n_init;	     /* units [0, n_init) have their job */
	size_t used;	     /* units with the kind's stacks */
	const char *label;   /* before the notes of a build ("A" in a comparison); NULL: none */
	/* After corecap_hosts_flame_build: what the hosts' jobs drew. */
	uint64_t profiler_samples;
	char subtitle[256];
};

/*
 * Opens run (a run of several hosts) and a flame job per host with a
 * run, with the options of tmpl (by_pool, merge_lock_instances, quiet,
 * keep_shim_frames, keep_profiler, no_idle, names_pprof). 0, or a
 * negative errno (said); corecap_hosts_flame_close() in both cases.
 */
int corecap_hosts_flame_open(struct hosts_flame *h, const char *run, const char *symfs,
			     const struct flame_job *tmpl);
/*
 * Chooses the kind: *kind when given, else the first kind (cpu, wall,
 * lock, op) some host has; marks the hosts that have it. 0, or -ENOENT
 * when no host has it (not said: the caller says it, an error or not).
 */
int corecap_hosts_flame_kind(struct hosts_flame *h, enum flame_kind *kind, bool given);
/*
 * Adds each marked host's stacks to fs (of the kind chosen), weight
 * column `column`, under a root frame of the host's name; a note per
 * host with its total. 0, or a negative errno.
 */
int corecap_hosts_flame_build(struct hosts_flame *h, struct flame_stacks *fs, int column);
void corecap_hosts_flame_close(struct hosts_flame *h);

#endif
