/*
 * html_paths: a hand-built wait-for graph laid out and drawn as it should
 * be: one node per pool in name order on a circle, one edge per wait with
 * its arrow at the pool waited for, widths proportional to the ms, the
 * heaviest edges only, names escaped, the same picture every time.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/html_paths.h"

#include "check_run.h"

static struct cp_edge edge(const char *from, const char *to, enum cp_wait_kind kind, double ms)
{
	struct cp_edge e = {.kind = kind, .ns = (uint64_t)(ms * 1e6), .wakes = 10};

	snprintf(e.from, sizeof(e.from), "%s", from);
	snprintf(e.to, sizeof(e.to), "%s", to);
	return e;
}

/* Heaviest first, as corecap_critical_path_waitfor gives them. */
static const struct cp_edge *graph(size_t *n)
{
	static struct cp_edge v[6];

	v[0] = edge("tp_osd_tp", "msgr-worker", CPW_COND, 40);
	v[1] = edge("finisher", "tp_osd_tp", CPW_COND, 20);
	v[2] = edge("a<&>b", "tp_osd_tp", CPW_LOCK, 10);
	v[3] = edge("tp_osd_tp", "finisher", CPW_WAKE, 5);
	v[4] = edge("tp_osd_tp", "tp_osd_tp", CPW_LOCK, 2);
	v[5] = edge("msgr-worker", "\"quoted'", CPW_WAKE, 0.001);
	*n = 6;
	return v;
}

static char *render(const struct cp_edge *e, size_t n, uint64_t ops)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(corecap_waitfor_svg(e, n, ops, f), 0);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

static size_t occurrences(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static double dist(double x0, double y0, double x1, double y1)
{
	return hypot(x1 - x0, y1 - y0);
}

START_TEST(layout_nodes_in_name_order_on_a_circle)
{
	size_t n;
	const struct cp_edge *e = graph(&n);
	struct waitfor_layout l;
	const char *names[] = {"\"quoted'", "a<&>b", "finisher", "msgr-worker", "tp_osd_tp"};

	ck_assert_int_eq(corecap_waitfor_layout(e, n, &l), 0);
	ck_assert_uint_eq(l.n_nodes, 5);
	ck_assert_uint_eq(l.n_edges, 6);
	for (size_t i = 0; i < l.n_nodes; i++) {
		ck_assert_str_eq(l.nodes[i].name, names[i]);
		ck_assert_double_eq_tol(dist(l.nodes[i].x, l.nodes[i].y, l.width / 2, l.height / 2),
					l.radius, 1e-6);
	}
	/* Each edge joins its own pools, the waiter first. */
	ck_assert_str_eq(l.nodes[l.from[0]].name, "tp_osd_tp");
	ck_assert_str_eq(l.nodes[l.to[0]].name, "msgr-worker");
	ck_assert_str_eq(l.nodes[l.from[2]].name, "a<&>b");
	ck_assert_uint_eq(l.from[4], l.to[4]);
	/* Widths proportional to ms, the lightest kept visible. */
	ck_assert_double_eq_tol(corecap_waitfor_width(&l, e[0].ns), WAITFOR_MAX_W, 1e-9);
	ck_assert_double_eq_tol(corecap_waitfor_width(&l, e[1].ns), WAITFOR_MAX_W / 2, 1e-9);
	ck_assert_double_eq_tol(corecap_waitfor_width(&l, e[2].ns), WAITFOR_MAX_W / 4, 1e-9);
	ck_assert_double_eq_tol(corecap_waitfor_width(&l, e[5].ns), WAITFOR_MIN_W, 1e-9);
	corecap_waitfor_layout_release(&l);
}
END_TEST

START_TEST(svg_edges_point_at_the_pool_waited_for)
{
	size_t n;
	const struct cp_edge *e = graph(&n);
	struct waitfor_layout l;
	char *svg = render(e, n, 1000);
	const char *p = svg;

	ck_assert_int_eq(corecap_waitfor_layout(e, n, &l), 0);
	ck_assert_uint_eq(occurrences(svg, "<g class=\"node\""), 5);
	ck_assert_uint_eq(occurrences(svg, "<g class=\"edge\""), 6);
	ck_assert_uint_eq(occurrences(svg, "<polygon class=\"arrow\""), 6);
	ck_assert_uint_eq(occurrences(svg, "<svg "), 1);
	ck_assert_uint_eq(occurrences(svg, "</svg>"), 1);
	for (size_t i = 0; i < n; i++) {
		const struct waitfor_node *a = &l.nodes[l.from[i]], *b = &l.nodes[l.to[i]];
		double ms, w, sx, sy, tx, ty;
		const char *d, *pts;

		p = strstr(p, "<g class=\"edge\"");
		ck_assert_ptr_nonnull(p);
		ck_assert_ptr_nonnull(strstr(p, "data-ms=\""));
		ck_assert_int_eq(sscanf(strstr(p, "data-ms=\""),
					"data-ms=\"%lf\" data-width=\"%lf\"", &ms, &w),
				 2);
		ck_assert_double_eq_tol(ms, e[i].ns / 1e6, 1e-3);
		ck_assert_double_eq_tol(w, corecap_waitfor_width(&l, e[i].ns), 1e-3);
		d = strstr(p, " d=\"M");
		pts = strstr(p, "points=\"");
		ck_assert_ptr_nonnull(d);
		ck_assert_ptr_nonnull(pts);
		ck_assert_int_eq(sscanf(d, " d=\"M%lf,%lf", &sx, &sy), 2);
		ck_assert_int_eq(sscanf(pts, "points=\"%lf,%lf", &tx, &ty), 2);
		/* The curve leaves the waiter's box and the arrow's tip touches the other's. */
		ck_assert_double_lt(dist(sx, sy, a->x, a->y), 140);
		ck_assert_double_lt(dist(tx, ty, b->x, b->y), 140);
		if (a != b) {
			ck_assert_double_lt(dist(sx, sy, a->x, a->y), dist(sx, sy, b->x, b->y));
			ck_assert_double_lt(dist(tx, ty, b->x, b->y), dist(tx, ty, a->x, a->y));
		}
		p++;
	}
	/* Names escaped wherever they appear (data attributes, titles, labels). */
	ck_assert_ptr_null(strstr(svg, "a<&>b"));
	ck_assert_ptr_null(strstr(svg, "\"quoted'"));
	ck_assert_uint_eq(occurrences(svg, "a&lt;&amp;&gt;b"), 4); /* from, title, node, label */
	ck_assert_ptr_nonnull(strstr(svg, "&quot;quoted&#39;"));
	ck_assert_ptr_nonnull(strstr(svg,
				     "tp_osd_tp waits for msgr-worker (cond): 40.0 ms, 40.0 us "
				     "per op"));
	corecap_waitfor_layout_release(&l);
	free(svg);
}
END_TEST

START_TEST(svg_is_the_same_every_time_and_keeps_the_heaviest)
{
	struct cp_edge v[WAITFOR_MAX_EDGES + 6];
	char name[32], *a, *b;
	size_t n = sizeof(v) / sizeof(v[0]);
	struct waitfor_layout l;

	for (size_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "pool%02zu", i);
		v[i] = edge(name, "tp_osd_tp", CPW_COND, (double)(n - i));
	}
	a = render(v, n, 0);
	b = render(v, n, 0);
	ck_assert_str_eq(a, b);
	ck_assert_uint_eq(occurrences(a, "<g class=\"edge\""), WAITFOR_MAX_EDGES);
	ck_assert_ptr_nonnull(strstr(a, "data-pool=\"pool00\""));
	snprintf(name, sizeof(name), "data-pool=\"pool%02d\"", WAITFOR_MAX_EDGES);
	ck_assert_ptr_null(strstr(a, name));
	ck_assert_ptr_null(strstr(a, "us per op"));
	ck_assert_int_eq(corecap_waitfor_layout(v, n, &l), 0);
	ck_assert_uint_eq(l.n_nodes, WAITFOR_MAX_EDGES + 1);
	corecap_waitfor_layout_release(&l);
	free(a);
	free(b);
}
END_TEST

START_TEST(svg_of_no_edge)
{
	char *svg = render(NULL, 0, 0);

	ck_assert_uint_eq(occurrences(svg, "<g class=\"edge\""), 0);
	ck_assert_uint_eq(occurrences(svg, "<g class=\"node\""), 0);
	ck_assert_ptr_nonnull(strstr(svg, "</svg>"));
	free(svg);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("html_paths");
	TCase *tc = tcase_create("waitfor");

	tcase_add_test(tc, layout_nodes_in_name_order_on_a_circle);
	tcase_add_test(tc, svg_edges_point_at_the_pool_waited_for);
	tcase_add_test(tc, svg_is_the_same_every_time_and_keeps_the_heaviest);
	tcase_add_test(tc, svg_of_no_edge);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
