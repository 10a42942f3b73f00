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
 */
#ifndef CORECAP_PRELOAD_DELAY_H
#define CORECAP_PRELOAD_DELAY_H

#include <stdint.h>

#include "settings.h"

struct delay {
	uint64_t site; /* 0: no delay */
	uint64_t ns;
};

extern struct delay g_delay;

/* Resolves s->delay_site; warns once and disables the delay if it cannot. */
int delay_init(struct delay *d, const struct settings *s);

/* Resolves "0x..", "name+0xOFF" or "name" to an address; 0 or -ENOENT/-EINVAL. */
int delay_resolve_site(const char *spec, uint64_t *addr);

/* Spins for ns nanoseconds. */
void delay_busy(uint64_t ns);

#endif /* CORECAP_PRELOAD_DELAY_H */
