/*
 * hosts_report: what a rendering of a run of several hosts needs,
 * gathered by pass/hosts_build.h: each host's own report (render/report.h,
 * rendered as for a single-daemon run, in that host's clock) with the
 * host's clock against the recording host's, and the verdict for the
 * system: the host whose daemon binds first.
 *
 * The rule: with the load split across the hosts as it was in the run,
 * the system's throughput can grow until the first host's daemon binds,
 * so the system's headroom is the least of the hosts' headrooms
 * (each host's diagnosis, model/diagnosis.h) and its limit is that
 * host's. A host of several daemons binds when its first daemon does:
 * its headroom is the least of its daemons', so the system's is the least
 * over every daemon of every host. A host without a headroom (no
 * diagnosis of its daemons could tell one) is named as such, never
 * counted as unbounded in silence.
 */
#ifndef CORECAP_HOSTS_REPORT_H
#define CORECAP_HOSTS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../model/client_split.h"
#include "../model/clock_pairs.h"
#include "../read/hosts_run.h"
#include "report.h"

struct multi_report;

/*
 * A host's part. A host of several daemons (its run is one of several
 * daemons, read/multi_run.h): multi is their view, and r the report of
 * the daemon with the least headroom (the host binds when it does), pid
 * its PID; a daemon without a headroom does not hide the others', it is
 * counted in n_daemons_no_headroom.
 */
struct hosts_section {
	const struct hosts_host *h;
	const struct report *r; /* NULL: not analysed (why_not) */
	const char *why_not;
	const struct multi_report *multi; /* a host of several daemons, or NULL */
	int pid;			  /* r's daemon's, with multi; 0 otherwise */
	size_t n_daemons_no_headroom;	  /* with multi: its analysed daemons without one */
	const char *dir; /* r's run (the page's chart): the host's or r's daemon's */
	struct run *run;
	/*
	 * Its clock refined from its daemons' ops matched with the client's
	 * (model/clock_pairs.h; refined.pairs 0: none), and whether the split
	 * aligned its ops by it (tighter than the ping's over the pairs' span).
	 */
	struct clock_refined refined;
	bool split_uses_refined;
	bool refined_from_osds;	       /* refined from its OSDs' replication with another host's */
	uint64_t refined_bound_max_ns; /* the refined bound's largest over the pairs' span */
};

/*
 * One analysed daemon's ops that the client named, split against
 * client-ops.tsv (model/client_split.h) when has_split; why_split_not
 * otherwise.
 */
struct hosts_split_row {
	const struct hosts_host *h;
	int pid; /* a daemon of a host of several; 0: the host's one daemon */
	bool has_split;
	const char *why_split_not;
	size_t client_named;	 /* its ops that carry a client's id */
	size_t client_unmatched; /* those not in client-ops.tsv */
	struct client_split_host split;
};

/* The benchmark's record of its ops (client-ops.tsv), when the run has one. */
struct hosts_client_ops {
	bool present;
	size_t n;		      /* the ops it holds (kept) */
	uint64_t bad, over_cap;	      /* lines not read, ops over the reader's bound */
	size_t duplicates;	      /* ids it holds twice (the first kept) */
	size_t matched;		      /* matched with a daemon's op, over every host */
	uint64_t daemon_over_cap;     /* client-named ops a daemon's model did not keep */
	struct hosts_split_row *rows; /* one per analysed daemon, in the hosts' order */
	size_t n_rows;
};

struct hosts_report {
	const char *run_dir;
	const struct hosts_run *run;
	struct hosts_section *s;
	size_t n, n_analysed;
	double window_s;      /* the run's window in the recording host's clock; 0 unknown */
	double ops_per_s;     /* the analysed hosts' daemons', summed; 0 unknown */
	int cap;	      /* the section whose daemon binds first; -1 none known */
	int next;	      /* the one after it; -1 none */
	size_t n_no_headroom; /* analysed hosts whose headroom is unknown */
	struct hosts_client_ops client;
	char verdict[1024];
};

/* Both return 0, or a negative errno (-EIO when writing failed). */
int corecap_render_hosts_text(const struct hosts_report *m, FILE *out);
int corecap_render_hosts_json(const struct hosts_report *m, FILE *out);
/* The JSON's "system" object (compare of two such runs nests it). */
struct json_object;
struct json_object *corecap_render_hosts_system_json(const struct hosts_report *m);
struct html_report;
/*
 * A page of the system's verdict and, per host, the single page's CPU
 * chart with its gap marks and top table (pages[i]: the series and the cpu
 * and wall stacks of m->s[i]; pages NULL or a pages[i].report NULL: none)
 * and its report (text); its own page: html RUN:NAME.
 */
int corecap_render_hosts_html(const struct hosts_report *m, const struct html_report *pages,
			      FILE *out);

#endif
