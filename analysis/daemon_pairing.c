#include "daemon_pairing.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool comm_known(const char *comm)
{
	return comm && strcmp(comm, "?") != 0;
}

/* Both known and different. */
static bool comm_conflict(const struct daemon_ident *x, const struct daemon_ident *y)
{
	return comm_known(x->comm) && comm_known(y->comm) && strcmp(x->comm, y->comm) != 0;
}

/* Of one name for the third step: both known and equal, or both unknown. */
static bool comm_same(const struct daemon_ident *x, const struct daemon_ident *y)
{
	if (!comm_known(x->comm) || !comm_known(y->comm))
		return comm_known(x->comm) == comm_known(y->comm);
	return strcmp(x->comm, y->comm) == 0;
}

/* Two OSDs both runs found, other ones. */
static bool osd_conflict(const struct daemon_ident *x, const struct daemon_ident *y)
{
	return x->ceph_osd_id >= 0 && y->ceph_osd_id >= 0 && x->ceph_osd_id != y->ceph_osd_id;
}

struct pairing_state {
	struct daemon_pairing *p;
	const struct daemon_ident *id[2];
	size_t n[2];
	bool *taken[2];
	bool *left[2]; /* unpaired when step 3 began */
};

static void pair_add(struct pairing_state *st, size_t a, size_t b, enum daemon_paired_by by,
		     size_t rank_a, size_t rank_b)
{
	st->p->pairs[st->p->n_pairs++] =
		(struct daemon_pair){.a = a, .b = b, .by = by, .rank_a = rank_a, .rank_b = rank_b};
	st->taken[0][a] = st->taken[1][b] = true;
}

/* Steps 1 and 2: the same PID, then the same OSD id. */
static void pair_by_identity(struct pairing_state *st, enum daemon_paired_by by)
{
	for (size_t i = 0; i < st->n[0]; i++) {
		const struct daemon_ident *a = &st->id[0][i];

		if (st->taken[0][i] ||
		    (by == DAEMON_PAIRED_BY_PID ? a->pid <= 0 : a->ceph_osd_id < 0))
			continue;
		for (size_t j = 0; j < st->n[1]; j++) {
			const struct daemon_ident *b = &st->id[1][j];
			bool same = by == DAEMON_PAIRED_BY_PID ? a->pid == b->pid
							       : a->ceph_osd_id == b->ceph_osd_id;

			if (!st->taken[1][j] && same && !comm_conflict(a, b) &&
			    !osd_conflict(a, b)) {
				pair_add(st, i, j, by, 0, 0);
				break;
			}
		}
	}
}

/* The 1-based rank of run s's daemon k among its daemons of k's comm that step 3 began with. */
static size_t rank_of(const struct pairing_state *st, int s, size_t k)
{
	size_t rank = 0;

	for (size_t i = 0; i <= k; i++)
		rank += st->left[s][i] && comm_same(&st->id[s][i], &st->id[s][k]);
	return rank;
}

/* Step 3 for the comm of A's daemon first (left unpaired): the one of each, or in order. */
static void pair_by_comm(struct pairing_state *st, size_t first)
{
	const struct daemon_ident *c = &st->id[0][first];
	size_t left[2] = {0, 0}, last[2] = {0, 0};

	for (int s = 0; s < 2; s++)
		for (size_t k = 0; k < st->n[s]; k++)
			if (st->left[s][k] && comm_same(&st->id[s][k], c)) {
				left[s]++;
				last[s] = k;
			}
	if (left[0] == 1 && left[1] == 1) {
		if (!osd_conflict(&st->id[0][last[0]], &st->id[1][last[1]]))
			pair_add(st, last[0], last[1], DAEMON_PAIRED_BY_COMM, 0, 0);
		return;
	}
	for (size_t i = first; i < st->n[0]; i++) {
		if (!st->left[0][i] || !comm_same(&st->id[0][i], c))
			continue;
		for (size_t j = 0; j < st->n[1]; j++)
			if (!st->taken[1][j] && st->left[1][j] && comm_same(&st->id[1][j], c) &&
			    !osd_conflict(&st->id[0][i], &st->id[1][j])) {
				pair_add(st, i, j, DAEMON_PAIRED_BY_ORDER, rank_of(st, 0, i),
					 rank_of(st, 1, j));
				break;
			}
	}
}

/* A's order: each daemon of A is in one pair at most. */
static int by_a(const void *x, const void *y)
{
	const struct daemon_pair *l = x, *r = y;

	return (l->a > r->a) - (l->a < r->a);
}

int corecap_daemon_pairing_build(struct daemon_pairing *p, const struct daemon_ident *a, size_t n_a,
				 const struct daemon_ident *b, size_t n_b)
{
	struct pairing_state st = {.p = p, .id = {a, b}, .n = {n_a, n_b}};
	size_t most = n_a < n_b ? n_a : n_b;
	int ret = 0;

	*p = (struct daemon_pairing){0};
	/* One more than needed, so that no allocation asks for 0 bytes. */
	p->pairs = calloc(most + 1, sizeof(*p->pairs));
	for (int s = 0; s < 2; s++) {
		st.taken[s] = calloc(st.n[s] + 1, sizeof(bool));
		st.left[s] = calloc(st.n[s] + 1, sizeof(bool));
		p->only[s] = calloc(st.n[s] + 1, sizeof(size_t));
		if (!st.taken[s] || !st.left[s] || !p->only[s])
			ret = -ENOMEM;
	}
	if (!p->pairs)
		ret = -ENOMEM;
	if (ret)
		goto out_free;
	pair_by_identity(&st, DAEMON_PAIRED_BY_PID);
	pair_by_identity(&st, DAEMON_PAIRED_BY_CEPH_OSD_ID);
	for (int s = 0; s < 2; s++)
		for (size_t k = 0; k < st.n[s]; k++)
			st.left[s][k] = !st.taken[s][k];
	/* A comm's group is met first at its first daemon left; later ones are in it. */
	for (size_t i = 0; i < n_a; i++) {
		bool first = st.left[0][i];

		for (size_t k = 0; k < i && first; k++)
			first = !(st.left[0][k] && comm_same(&a[k], &a[i]));
		if (first)
			pair_by_comm(&st, i);
	}
	qsort(p->pairs, p->n_pairs, sizeof(*p->pairs), by_a);
	for (int s = 0; s < 2; s++)
		for (size_t k = 0; k < st.n[s]; k++)
			if (!st.taken[s][k])
				p->only[s][p->n_only[s]++] = k;
out_free:
	for (int s = 0; s < 2; s++) {
		free(st.taken[s]);
		free(st.left[s]);
	}
	return ret;
}

void corecap_daemon_pairing_release(struct daemon_pairing *p)
{
	free(p->pairs);
	for (int s = 0; s < 2; s++)
		free(p->only[s]);
	*p = (struct daemon_pairing){0};
}

const char *corecap_daemon_paired_by_key(enum daemon_paired_by by)
{
	switch (by) {
	case DAEMON_PAIRED_BY_PID:
		return "pid";
	case DAEMON_PAIRED_BY_CEPH_OSD_ID:
		return "ceph_osd_id";
	case DAEMON_PAIRED_BY_COMM:
		return "comm";
	case DAEMON_PAIRED_BY_ORDER:
		break;
	}
	return "order";
}

/* "1st", "2nd", "3rd", "4th", "11th", "21st". */
static const char *ordinal_suffix(size_t n)
{
	if (n % 100 >= 11 && n % 100 <= 13)
		return "th";
	return n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}

void corecap_daemon_pair_note(const struct daemon_pair *pair, const struct daemon_ident *a,
			      const struct daemon_ident *b, char *buf, size_t len)
{
	const char *comm = comm_known(a->comm) ? a->comm : "daemon of unknown name";

	switch (pair->by) {
	case DAEMON_PAIRED_BY_PID:
		snprintf(buf, len, "the same PID, %d", a->pid);
		break;
	case DAEMON_PAIRED_BY_CEPH_OSD_ID:
		snprintf(buf, len, "the same OSD id, osd.%d (PIDs %d and %d)", a->ceph_osd_id,
			 a->pid, b->pid);
		break;
	case DAEMON_PAIRED_BY_COMM:
		snprintf(buf, len, "PIDs differ (%d and %d): the one %s of each run left", a->pid,
			 b->pid, comm);
		break;
	case DAEMON_PAIRED_BY_ORDER:
		snprintf(buf, len,
			 "PIDs differ (%d and %d): A's %zu%s %s left with B's %zu%s, in the "
			 "order each run recorded them",
			 a->pid, b->pid, pair->rank_a, ordinal_suffix(pair->rank_a), comm,
			 pair->rank_b, ordinal_suffix(pair->rank_b));
		break;
	}
}
