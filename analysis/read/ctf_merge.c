#include "ctf_merge.h"

#include <errno.h>
#include <stdlib.h>

#include "../util/heap.h"

int corecap_ctf_merge_init(struct ctf_merge *m, uint32_t n, ctf_merge_key_fn key, void *ctx)
{
	*m = (struct ctf_merge){.n_in = n, .stale = -1, .key = key, .ctx = ctx};
	m->in = calloc(n ? n : 1, sizeof(*m->in));
	m->heap = calloc(n ? n : 1, sizeof(*m->heap));
	if (!m->in || !m->heap) {
		corecap_ctf_merge_release(m);
		return -ENOMEM;
	}
	return 0;
}

void corecap_ctf_merge_set_input(struct ctf_merge *m, uint32_t i, bt_message_iterator *it)
{
	m->in[i].it = it;
}

static bool less(const void *ctx, uint32_t a, uint32_t b)
{
	const struct ctf_merge *m = ctx;

	return m->in[a].key < m->in[b].key || (m->in[a].key == m->in[b].key && a < b);
}

static void sift_down(struct ctf_merge *m, uint32_t i)
{
	corecap_heap_down(m->heap, m->n_heap, i, less, m);
}

/*
 * Input i's head loaded (its next batch asked for when the current one
 * is used up) and its key taken: 1 when it has one, 0 when it ended
 * (its iterator put), or a negative errno (an AGAIN leaves it to retry).
 */
static int load_head(struct ctf_merge *m, uint32_t i)
{
	struct ctf_merge_input *in = &m->in[i];
	int ret;

	while (in->pos == in->count) {
		if (!in->it)
			return 0;
		switch (bt_message_iterator_next(in->it, &in->msgs, &in->count)) {
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
			in->pos = 0;
			break;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
			in->count = in->pos = 0;
			bt_message_iterator_put_ref(in->it);
			in->it = NULL;
			return 0;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
			in->count = in->pos = 0;
			return -EAGAIN;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
			in->count = in->pos = 0;
			return -ENOMEM;
		default:
			in->count = in->pos = 0;
			return -EIO;
		}
	}
	in->aux = NULL;
	ret = m->key(m->ctx, in->msgs[in->pos], &in->key, &in->aux);
	if (ret < 0)
		return ret;
	if (ret == 0)
		in->key = m->last_key;
	return 1;
}

/* Every input's first head, and the heap over them; after an AGAIN, the
 * inputs not started yet (those before keep their place in the heap). */
static int start(struct ctf_merge *m)
{
	int ret;

	for (; m->n_started < m->n_in; m->n_started++) {
		if ((ret = load_head(m, m->n_started)) < 0)
			return ret;
		if (ret)
			m->heap[m->n_heap++] = m->n_started;
	}
	for (uint32_t i = m->n_heap / 2; i-- > 0;)
		sift_down(m, i);
	return 0;
}

int corecap_ctf_merge_next(struct ctf_merge *m, const bt_message **msg, void **aux, uint64_t *key)
{
	struct ctf_merge_input *in;
	int ret;

	if (m->n_started < m->n_in && (ret = start(m)))
		return ret;
	if (m->stale >= 0) {
		/* The root's head was given: its next one takes its place. */
		if ((ret = load_head(m, (uint32_t)m->stale)) < 0)
			return ret;
		if (!ret)
			m->heap[0] = m->heap[--m->n_heap];
		m->stale = -1;
		sift_down(m, 0);
	}
	if (!m->n_heap)
		return 0;
	in = &m->in[m->heap[0]];
	*key = in->key;
	if (in->key < m->last_key)
		return -ERANGE;
	m->last_key = in->key;
	*msg = in->msgs[in->pos++];
	*aux = in->aux;
	m->stale = m->heap[0];
	return 1;
}

void corecap_ctf_merge_release(struct ctf_merge *m)
{
	for (uint32_t i = 0; m->in && i < m->n_in; i++) {
		struct ctf_merge_input *in = &m->in[i];

		for (; in->pos < in->count; in->pos++)
			bt_message_put_ref(in->msgs[in->pos]);
		bt_message_iterator_put_ref(in->it);
	}
	free(m->in);
	free(m->heap);
	*m = (struct ctf_merge){.stale = -1};
}
