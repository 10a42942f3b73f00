/*
 * struct corecap_delay_control: a controller's handle on a daemon's
 * runtime delay control (the control page of its counters, the shim's
 * sealed memfd, corecap/stats_layout.h and stats_path.h), and its view of
 * one site's counters.
 *
 * Guarantees: after corecap_delay_control_open() returns 0 the segment
 * passed corecap_stats_open()'s checks (sealed against shrinking, so the
 * mapping cannot fault; owned by pid's user or root) and is a valid stats
 * segment of pid with a control page, mapped read-write; every
 * delay it sets carries this process as owner and a lease that
 * corecap_delay_control_renew() extends, so the shim drops it by itself
 * if this process dies. corecap_delay_control_clear() is
 * async-signal-safe (atomic stores to the mapping only).
 */
#ifndef CORECAP_COLLECTOR_DELAY_CONTROL_H
#define CORECAP_COLLECTOR_DELAY_CONTROL_H

#include <corecap/stats_path.h>

#include <corecap/stats_layout.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* How long a delay outlives its last renewal. */
#define CORECAP_DELAY_LEASE_NS UINT64_C(3000000000)

struct corecap_delay_control {
	pid_t pid;
	char path[CORECAP_STATS_PATH_MAX];
	void *map;
	size_t bytes;
	struct corecap_stats_control *ctl;
	uint64_t site; /* what was last set (0: none) */
	uint64_t ns;
};

/* The counters of one site, summed over its entries (one per kind). */
struct corecap_site_counters {
	bool found;
	uint64_t acquisitions;
	uint64_t contentions;
	uint64_t wait_ns;
	uint64_t holds;
	uint64_t hold_ns;
};

int corecap_delay_control_open(struct corecap_delay_control *dc, pid_t pid);
/* Sets (or, site 0, clears) the delay; -EBUSY if another controller owns a live one. */
int corecap_delay_control_set(struct corecap_delay_control *dc, uint64_t site, uint64_t ns);
/* Extends the lease of what was set. */
int corecap_delay_control_renew(struct corecap_delay_control *dc);
/* Clears the delay (async-signal-safe). */
void corecap_delay_control_clear(struct corecap_delay_control *dc);
/* The control's seq now: what the shim has read once its applied_seq reaches it. */
uint64_t corecap_delay_control_seq(const struct corecap_delay_control *dc);
/* Waits up to timeout_ms for the shim to read the control of seq `want` or a later one. */
int corecap_delay_control_wait_applied(struct corecap_delay_control *dc, uint64_t want,
				       unsigned timeout_ms);
void corecap_site_counters_read(const struct corecap_delay_control *dc, uint64_t site,
				struct corecap_site_counters *out);
void corecap_delay_control_close(struct corecap_delay_control *dc);

/*
 * Resolves a site as the shim's summary and corecap-stats-dump print it,
 * in the process pid: 0xADDR (taken as is) or MODULE+0xOFF (MODULE the
 * file name of a mapped object, OFF from the start of its mapping at
 * file offset 0). 0, -EINVAL (malformed) or -ENOENT (no such module).
 */
int corecap_site_resolve(pid_t pid, const char *spec, uint64_t *addr);

#endif
