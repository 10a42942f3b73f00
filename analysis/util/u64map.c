#include "u64map.h"

#include <stdlib.h>

void corecap_u64map_init(struct u64map *m)
{
	*m = (struct u64map){0};
}

void corecap_u64map_release(struct u64map *m)
{
	free(m->slots);
	free(m->used);
	*m = (struct u64map){0};
}

static int grow(struct u64map *m)
{
	struct u64map bigger = {0};
	size_t i, j;

	bigger.cap = m->cap ? m->cap * 2 : 16;
	bigger.slots = malloc(bigger.cap * sizeof(*bigger.slots));
	bigger.used = calloc(bigger.cap, 1);
	if (!bigger.slots || !bigger.used) {
		corecap_u64map_release(&bigger);
		return -1;
	}
	for (i = 0; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		for (j = corecap_u64map_slot_of(m->slots[i].key, bigger.cap); bigger.used[j];
		     j = (j + 1) & (bigger.cap - 1))
			;
		bigger.used[j] = 1;
		bigger.slots[j] = m->slots[i];
	}
	bigger.len = m->len;
	corecap_u64map_release(m);
	*m = bigger;
	return 0;
}

uint64_t *corecap_u64map_insert(struct u64map *m, uint64_t key)
{
	size_t i;

	if ((m->len + 1) * 2 > m->cap && grow(m))
		return NULL;
	for (i = corecap_u64map_slot_of(key, m->cap); m->used[i]; i = (i + 1) & (m->cap - 1))
		;
	m->used[i] = 1;
	m->slots[i] = (struct u64map_slot){.key = key};
	m->len++;
	return &m->slots[i].val;
}

bool corecap_u64map_remove(struct u64map *m, uint64_t key)
{
	size_t i, j, home, mask = m->cap - 1;

	if (!m->cap)
		return false;
	for (i = corecap_u64map_slot_of(key, m->cap); m->used[i]; i = (i + 1) & mask)
		if (m->slots[i].key == key)
			break;
	if (!m->used[i])
		return false;
	/* Backward shift: pull later members of the cluster into the hole. */
	for (j = (i + 1) & mask; m->used[j]; j = (j + 1) & mask) {
		home = corecap_u64map_slot_of(m->slots[j].key, m->cap);
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->used[i] = 0;
	m->len--;
	return true;
}

bool corecap_u64map_next(const struct u64map *m, size_t *pos, uint64_t *key, uint64_t *val)
{
	for (; *pos < m->cap; (*pos)++) {
		if (!m->used[*pos])
			continue;
		if (key)
			*key = m->slots[*pos].key;
		if (val)
			*val = m->slots[*pos].val;
		(*pos)++;
		return true;
	}
	return false;
}
