/*
 * analysis/model/lock_rows.c: the lock table's rows over a table built by
 * hand: total wait first by default, each --sort key, heap locks at one
 * site grouped into a family with summed figures, named locks never
 * grouped, futex mutex words before condition variables, holds from the
 * same source as the hold time.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "model/lock_rows.h"

#include "check_run.h"

static struct lock_table t;

/* A lock at addr taken at site, with its figures (events seen). */
static struct model_lock *mk(uint64_t addr, const char *name, uint64_t site, const char *sym,
			     uint64_t contentions, uint64_t wait_ns, uint64_t max_wait_ns,
			     uint64_t hold_ns)
{
	struct model_lock *l = corecap_lock_table_get(&t, addr);
	struct lock_site *s = corecap_lock_table_site(l, site, NULL);

	ck_assert_ptr_nonnull(s);
	l->kind = 0;
	l->contentions = s->contentions = contentions;
	l->wait_ns = s->wait_ns = wait_ns;
	l->max_wait_ns = s->max_wait_ns = max_wait_ns;
	l->holds = contentions;
	l->hold_ns = hold_ns;
	l->name = strdup(name);
	s->symbol = strdup(sym);
	return l;
}

static void setup(void)
{
	corecap_lock_table_init(&t);
	/* A big named lock: most wait, little hold. */
	mk(0x1000, "d.osd.big_lock", 0xa0, "osd_handle_op+0x40", 100, 9000000, 400000, 1000);
	/* A named lock with most hold time and longest single wait. */
	mk(0x2000, "log_lock", 0xb0, "log_submit+0x10", 10, 2000000, 900000, 50000000);
	/* Three heap locks at one site: a family (PG locks). */
	mk(0x3000, "0x3000", 0xc0, "PG::lock(bool) const+0x27", 300, 1000000, 10000, 3000);
	mk(0x3100, "0x3100", 0xc0, "PG::lock(bool) const+0x27", 400, 2000000, 20000, 4000);
	mk(0x3200, "0x3200", 0xc0, "PG::lock(bool) const+0x27", 500, 3000000, 30000, 5000);
	/* A lone heap lock elsewhere. */
	mk(0x4000, "0x4000", 0xd0, "shards_queue+0x32", 1, 5000000, 5000000, 0);
}

static void teardown(void)
{
	corecap_lock_table_release(&t);
}

static struct lock_rows rows;

static void build(enum lock_sort sort)
{
	ck_assert_int_eq(corecap_lock_rows_build(&rows, &t, sort, true), 0);
}

START_TEST(the_default_order_is_total_wait)
{
	char label[200];

	build(LOCK_SORT_WAIT);
	ck_assert_uint_eq(rows.n, 4);
	ck_assert_uint_eq(rows.v[0].members[0]->addr, 0x1000);
	/* The family's 6 ms come before the lone lock's 5 ms and log_lock's 2. */
	ck_assert(rows.v[1].family);
	ck_assert_uint_eq(rows.v[2].members[0]->addr, 0x4000);
	ck_assert_uint_eq(rows.v[3].members[0]->addr, 0x2000);
	corecap_lock_row_label(&rows.v[0], label, sizeof(label));
	ck_assert_str_eq(label, "d.osd.big_lock");
	corecap_lock_rows_release(&rows);
}
END_TEST

START_TEST(a_family_is_one_row_summed)
{
	const struct lock_row *f;
	char label[200];

	build(LOCK_SORT_WAIT);
	f = &rows.v[1];
	ck_assert_uint_eq(f->n_members, 3);
	ck_assert_uint_eq(f->contentions, 1200);
	ck_assert_uint_eq(f->wait_ns, 6000000);
	ck_assert_uint_eq(f->max_wait_ns, 30000);
	ck_assert_uint_eq(f->hold_ns, 12000);
	ck_assert_uint_eq(f->holds, 1200);
	ck_assert_uint_eq(corecap_lock_row_avg_wait_ns(f), 5000);
	/* Members, most wait first. */
	ck_assert_uint_eq(f->members[0]->addr, 0x3200);
	ck_assert_uint_eq(f->members[2]->addr, 0x3000);
	corecap_lock_row_label(f, label, sizeof(label));
	ck_assert_str_eq(label, "PG::lock(bool) const+0x27");
	ck_assert_uint_eq(f->n_members, 3); /* the count is a column, not the name */
	/* A lone heap lock is not a family. */
	ck_assert(!rows.v[2].family);
	corecap_lock_rows_release(&rows);
}
END_TEST

START_TEST(named_locks_at_one_site_stay_apart)
{
	mk(0x5000, "other_named", 0xa0, "osd_handle_op+0x40", 1, 1, 1, 1);
	build(LOCK_SORT_WAIT);
	ck_assert_uint_eq(rows.n, 5);
	for (size_t i = 0; i < rows.n; i++)
		if (rows.v[i].members[0]->addr == 0x5000 || rows.v[i].members[0]->addr == 0x1000)
			ck_assert_uint_eq(rows.v[i].n_members, 1);
	corecap_lock_rows_release(&rows);
}
END_TEST

START_TEST(each_sort_key)
{
	build(LOCK_SORT_HOLD);
	ck_assert_uint_eq(rows.v[0].members[0]->addr, 0x2000);
	corecap_lock_rows_release(&rows);
	build(LOCK_SORT_MAX);
	ck_assert_uint_eq(rows.v[0].members[0]->addr, 0x4000); /* 5 ms once */
	ck_assert_uint_eq(rows.v[1].members[0]->addr, 0x2000);
	corecap_lock_rows_release(&rows);
	build(LOCK_SORT_AVG);
	ck_assert_uint_eq(rows.v[0].members[0]->addr, 0x4000);
	ck_assert_uint_eq(rows.v[1].members[0]->addr, 0x2000); /* 200 us */
	ck_assert_uint_eq(rows.v[2].members[0]->addr, 0x1000); /* 90 us */
	corecap_lock_rows_release(&rows);
	build(LOCK_SORT_CONTENDED);
	ck_assert(rows.v[0].family);
	ck_assert_uint_eq(rows.v[1].members[0]->addr, 0x1000);
	corecap_lock_rows_release(&rows);
}
END_TEST

START_TEST(sort_names_parse)
{
	enum lock_sort s;

	ck_assert(corecap_lock_sort_parse("wait", &s) && s == LOCK_SORT_WAIT);
	ck_assert(corecap_lock_sort_parse("contended", &s) && s == LOCK_SORT_CONTENDED);
	ck_assert(corecap_lock_sort_parse("hold", &s) && s == LOCK_SORT_HOLD);
	ck_assert(corecap_lock_sort_parse("avg", &s) && s == LOCK_SORT_AVG);
	ck_assert(corecap_lock_sort_parse("max", &s) && s == LOCK_SORT_MAX);
	ck_assert(!corecap_lock_sort_parse("holds", &s));
	ck_assert(!corecap_lock_sort_parse("", &s));
	ck_assert_str_eq(corecap_lock_sort_name(LOCK_SORT_AVG), "avg");
}
END_TEST

/* Idle waits (a condition's: futex_locks.h) come after the contention
 * rows, whatever their wait, and a family never mixes the two. */
START_TEST(condition_variables_come_after_mutex_words)
{
	struct model_lock *c = mk(0x6000, "0x6000", 0xe0, "cond_wait_site+0x1", 9, 99000000, 1, 0);
	struct model_lock *r = mk(0x6100, "0x6100", 0xe0, "cond_wait_site+0x1", 9, 1000, 1, 0);

	c->kind = LOCK_KIND_FUTEX_WAIT_BITSET;
	c->idle = true;
	r->kind = LOCK_KIND_FUTEX_WAIT_BITSET;
	build(LOCK_SORT_WAIT);
	ck_assert_uint_eq(rows.v[rows.n - 1].members[0]->addr, 0x6000);
	ck_assert(rows.v[rows.n - 1].idle);
	ck_assert_uint_eq(rows.v[rows.n - 1].n_members, 1);
	ck_assert_uint_eq(corecap_lock_rows_contended(&rows), rows.n - 1);
	corecap_lock_rows_release(&rows);
}
END_TEST

START_TEST(holds_come_from_the_hold_times_source)
{
	struct model_lock *l = corecap_lock_table_get(&t, 0x1000);

	/* The trace saw 100 contended holds; the stats counted 3500 holds of 7 ms. */
	ck_assert_uint_eq(corecap_lock_holds(l), 100);
	l->has_stats = true;
	l->stats_holds = 3500;
	l->stats_hold_ns = 7000000;
	ck_assert_uint_eq(corecap_lock_hold_ns(l), 7000000);
	ck_assert_uint_eq(corecap_lock_holds(l), 3500);
	ck_assert_uint_eq(corecap_lock_hold_ns(l) / corecap_lock_holds(l), 2000);
}
END_TEST

START_TEST(without_events_no_max_wait)
{
	ck_assert_int_eq(corecap_lock_rows_build(&rows, &t, LOCK_SORT_WAIT, false), 0);
	ck_assert(!rows.v[0].has_max_wait);
	corecap_lock_rows_release(&rows);
}
END_TEST

START_TEST(a_lock_has_one_name_everywhere)
{
	struct model_lock *bare = corecap_lock_table_get(&t, 0x6000);
	char name[200], row_name[200];

	/* A variable's name, else the hottest site as FUNCTION+0xOFF (verify's), else the address. */
	corecap_lock_label(corecap_lock_table_get(&t, 0x1000), name, sizeof(name));
	ck_assert_str_eq(name, "d.osd.big_lock");
	corecap_lock_label(corecap_lock_table_get(&t, 0x4000), name, sizeof(name));
	ck_assert_str_eq(name, "shards_queue+0x32");
	corecap_lock_label(bare, name, sizeof(name));
	ck_assert_str_eq(name, "0x6000");
	/* Three locks at one site share its name: no address, no count, no "lock at". */
	for (uint64_t a = 0x3000; a <= 0x3200; a += 0x100) {
		corecap_lock_label(corecap_lock_table_get(&t, a), name, sizeof(name));
		ck_assert_str_eq(name, "PG::lock(bool) const+0x27");
	}
	/* Each row is named as its locks are. */
	build(LOCK_SORT_WAIT);
	for (size_t i = 0; i < rows.n; i++) {
		corecap_lock_row_label(&rows.v[i], row_name, sizeof(row_name));
		corecap_lock_label(rows.v[i].members[0], name, sizeof(name));
		ck_assert_str_eq(row_name, name);
	}
	corecap_lock_rows_release(&rows);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lock_rows");
	TCase *tc = tcase_create("rows");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, the_default_order_is_total_wait);
	tcase_add_test(tc, a_family_is_one_row_summed);
	tcase_add_test(tc, named_locks_at_one_site_stay_apart);
	tcase_add_test(tc, each_sort_key);
	tcase_add_test(tc, sort_names_parse);
	tcase_add_test(tc, condition_variables_come_after_mutex_words);
	tcase_add_test(tc, holds_come_from_the_hold_times_source);
	tcase_add_test(tc, without_events_no_max_wait);
	tcase_add_test(tc, a_lock_has_one_name_everywhere);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
