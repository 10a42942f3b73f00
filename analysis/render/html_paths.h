/*
 * html_paths: the HTML page's critical paths and wait-for graph
 * (model/critical_path.h, docs/methodology.md). Per op type, the
 * critical path's categories in us per op beside the annotations'
 * breakdown, as a table and as stacked horizontal bars (inline SVG), and
 * the threads the path's time is credited to; the wait-for graph between
 * pools as an inline SVG: pools as nodes on a circle (in name order, so
 * the picture depends on the edges only), an edge "A waits for B" as a
 * curve from A to B with an arrowhead at B, its width proportional to its
 * ms, its colour its kind (lock, cond, wake). Without the kernel's
 * records or a trace, the page says which is missing.
 */
#ifndef CORECAP_HTML_PATHS_H
#define CORECAP_HTML_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../model/critical_path.h"
#include "report.h"

/* Edges drawn at most (the heaviest; the rest are in the JSON). */
#define WAITFOR_MAX_EDGES 24
/* The width of the heaviest edge; a lighter one is proportional, and at
 * least WAITFOR_MIN_W so that it stays visible. */
#define WAITFOR_MAX_W 12.0
#define WAITFOR_MIN_W 0.75

struct waitfor_node {
	const char *name; /* a pool's, in the edges given */
	double x, y;
};

/* Where the graph's nodes go, and which nodes each drawn edge joins. */
struct waitfor_layout {
	struct waitfor_node *nodes; /* in name order */
	size_t n_nodes;
	const struct cp_edge *edges; /* the edges drawn: the first n_edges given */
	size_t n_edges;
	size_t *from, *to; /* per drawn edge: its nodes' indexes */
	uint64_t max_ns;   /* the heaviest drawn edge's */
	double width, height, radius;
};

/* Lays out the first WAITFOR_MAX_EDGES of e[0..n) (heaviest first, as
 * corecap_critical_path_waitfor gives them). 0 or -ENOMEM. */
int corecap_waitfor_layout(const struct cp_edge *e, size_t n, struct waitfor_layout *l);
void corecap_waitfor_layout_release(struct waitfor_layout *l);
/* An edge's stroke width for its ns. */
double corecap_waitfor_width(const struct waitfor_layout *l, uint64_t ns);
/*
 * The graph as one <svg> element (id="waitfor"), valid standalone XML;
 * ops_ended > 0 adds each edge's us per op to its label. 0, -ENOMEM, or
 * -EIO when writing failed.
 */
int corecap_waitfor_svg(const struct cp_edge *e, size_t n, uint64_t ops_ended, FILE *out);
/* The page's two sections: the ops' critical paths and the wait-for graph. */
int corecap_html_paths(const struct report *r, FILE *out);

#endif
