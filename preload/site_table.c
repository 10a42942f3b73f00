#include "site_table.h"
#include "util.h"

#define SITE_BITS      11 /* 2048 entries */
#define SITE_MAX_PROBE 64

/* Marks a stack being written; above any real depth, so readers skip it. */
#define STACK_CLAIMED 0x80000000u

_Static_assert((1u << SITE_BITS) == CORECAP_STATS_MAX_SITES, "site hash covers the table");

static bool matches(const struct corecap_stats_site *e, uint64_t addr, uint32_t kind)
{
	return __atomic_load_n(&e->addr, __ATOMIC_ACQUIRE) == addr && e->kind == kind;
}

struct corecap_stats_site *site_table_find(struct stats_shm *s, uint64_t addr, uint32_t kind)
{
	uint32_t h = addr_hash(addr ^ kind, SITE_BITS);

	for (uint32_t i = 0; i < SITE_MAX_PROBE; i++) {
		struct corecap_stats_site *e =
			stats_shm_site(s, (h + i) & (CORECAP_STATS_MAX_SITES - 1));
		uint64_t a = __atomic_load_n(&e->addr, __ATOMIC_ACQUIRE);

		if (a == 0)
			break; /* entries are never removed: the key is absent */
		if (a == addr && e->kind == kind)
			return e;
	}
	return NULL;
}

struct corecap_stats_site *site_table_get(struct stats_shm *s, uint64_t addr, uint32_t kind)
{
	uint32_t h = addr_hash(addr ^ kind, SITE_BITS);
	struct corecap_stats_site *e = site_table_find(s, addr, kind);

	if (e)
		return e;
	if (!stats_shm_lock(s)) {
		shared_add(&s->hdr->sites_dropped, 1);
		return NULL;
	}
	for (uint32_t i = 0; i < SITE_MAX_PROBE; i++) {
		struct corecap_stats_site *c =
			stats_shm_site(s, (h + i) & (CORECAP_STATS_MAX_SITES - 1));

		if (matches(c, addr, kind)) {
			e = c;
			break;
		}
		if (c->addr == 0) {
			c->kind = kind;
			__atomic_store_n(&c->addr, addr, __ATOMIC_RELEASE);
			e = c;
			break;
		}
	}
	if (!e)
		shared_add(&s->hdr->sites_dropped, 1);
	stats_shm_unlock(s);
	return e;
}

void site_table_add_wait(struct corecap_stats_site *e, uint64_t wait_ns, bool timed_out)
{
	shared_add(&e->contentions, 1);
	shared_add(&e->wait_ns, wait_ns);
	shared_max(&e->max_wait_ns, wait_ns);
	shared_add(&e->wait_hist[corecap_stats_hist_bucket(wait_ns)], 1);
	if (timed_out)
		shared_add(&e->timeouts, 1);
}

void site_table_add_hold(struct corecap_stats_site *e, uint64_t hold_ns)
{
	shared_add(&e->holds, 1);
	shared_add(&e->hold_ns, hold_ns);
	shared_max(&e->max_hold_ns, hold_ns);
}

bool site_table_claim_stack(struct corecap_stats_site *e)
{
	uint32_t expected = 0;

	return __atomic_compare_exchange_n(&e->stack_depth, &expected, STACK_CLAIMED, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

void site_table_publish_stack(struct corecap_stats_site *e, const uint64_t *frames, uint32_t n)
{
	if (n > CORECAP_STATS_STACK_DEPTH)
		n = CORECAP_STATS_STACK_DEPTH;
	for (uint32_t i = 0; i < n; i++)
		__atomic_store_n(&e->stack[i], frames[i], __ATOMIC_RELAXED);
	/* n == 0 (the unwind failed) releases the claim for a later sample. */
	__atomic_store_n(&e->stack_depth, n, __ATOMIC_RELEASE);
}
