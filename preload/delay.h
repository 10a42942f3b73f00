/*
 * delay.h: delay injection for causal checks (CORECAP_DELAY=SITE:NS).
 * Every acquisition made at SITE holds the lock NS nanoseconds longer
 * (a busy wait right after the lock is taken), so a run can show whether
 * that lock bounds throughput: delaying the binding lock's holders must
 * lower throughput accordingly, delaying another must not.
 *
 * SITE is what the exit summary prints: a hex address (0x7f...),
 * symbol+0xOFF (a dynamic symbol, found with dlsym) or module+0xOFF
 * (module = the file name of a loaded object, offset from its start).
 * It is resolved once at load; an object loaded later cannot be named.
 * The runtime control (below) takes an address, resolved by its writer.
 */
#ifndef CORECAP_PRELOAD_DELAY_H
#define CORECAP_PRELOAD_DELAY_H

#include <corecap/stats_layout.h>
#include <stdbool.h>
#include <stdint.h>

#include "settings.h"
#include "util.h"

/* Spins for ns nanoseconds. */
void delay_busy(uint64_t ns);

/*
 * The delay in effect. site and ns are read on the lock paths with
 * relaxed loads and change only under `taking` (one thread at a time);
 * a thread that reads a new site with the old ns delays one acquisition
 * by the old time, which is harmless.
 *
 * Besides CORECAP_DELAY (read at load), a runtime control can set them:
 * the control page of the stats file (corecap/stats_layout.h, struct
 * corecap_stats_control), written by corecap verify. delay_poll() looks
 * at its seq on the shim's slow paths and takes a new control; a runtime
 * delay whose owner died or whose lease ran out is dropped by
 * delay_check(), called from the delayed acquisitions and the polls.
 */
struct delay {
	uint64_t site; /* 0: no delay */
	uint64_t ns;
	uint64_t env_site; /* CORECAP_DELAY's, what applies without a runtime delay */
	uint64_t env_ns;
	struct corecap_stats_control *ctl; /* NULL: no control page */
	uint64_t seen_seq;		   /* the control seq last read */
	bool runtime;			   /* site/ns come from the control */
	int32_t owner_pid;
	uint64_t lease_end_ns;
	uint64_t check_at_ns; /* next owner/lease check of a runtime delay */
	int taking;	      /* one thread at a time takes or drops a control */
	int *extra;	      /* set while any delay is on (lock_track_extra), may be NULL */
	int extra_base;	      /* its value without a runtime delay */
};

extern struct delay g_delay;

/* How often a runtime delay's owner and lease are checked. */
#define DELAY_CHECK_NS UINT64_C(20000000)

/*
 * Connects d to the control page of a stats region (NULL: none) and
 * forgets any runtime delay (a fork child starts without one). extra is
 * the flag that sends every acquisition to the tracked path; its value
 * without a runtime delay is extra_base.
 */
void delay_attach_control(struct delay *d, struct corecap_stats_control *ctl, int *extra,
			  int extra_base);

/* Reads the control (seqlock) and applies, refuses or drops it. */
void delay_take(struct delay *d, uint64_t now);

/* Drops a runtime delay whose owner is gone or whose lease is over. */
void delay_check(struct delay *d, uint64_t now);

/* The slow paths' poll: one relaxed load unless something changed. */
static inline void delay_poll(struct delay *d)
{
	struct corecap_stats_control *c = d->ctl;

	if (!c)
		return;
	if (__builtin_expect(__atomic_load_n(&c->seq, __ATOMIC_RELAXED) != d->seen_seq, 0))
		delay_take(d, now_ns());
	else if (__builtin_expect(__atomic_load_n(&d->runtime, __ATOMIC_RELAXED), 0))
		delay_check(d, now_ns());
}

static inline uint64_t delay_site(const struct delay *d)
{
	return __atomic_load_n(&d->site, __ATOMIC_RELAXED);
}

/*
 * An acquisition at the delayed site `site`: a runtime delay first polls
 * the control (a cleared or dropped delay ends here, not at the next slow
 * path), then spins.
 */
static inline void delay_hit(struct delay *d, uint64_t site)
{
	if (__builtin_expect(__atomic_load_n(&d->runtime, __ATOMIC_RELAXED), 0)) {
		delay_poll(d);
		if (delay_site(d) != site)
			return;
	}
	delay_busy(__atomic_load_n(&d->ns, __ATOMIC_RELAXED));
}

/* Resolves s->delay_site; warns once and disables the delay if it cannot. */
int delay_init(struct delay *d, const struct settings *s);

/* Resolves "0x..", "name+0xOFF" or "name" to an address; 0 or -ENOENT/-EINVAL. */
int delay_resolve_site(const char *spec, uint64_t *addr);

#endif /* CORECAP_PRELOAD_DELAY_H */
