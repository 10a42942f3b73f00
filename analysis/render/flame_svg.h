/*
 * flame_svg: a flame graph of a folded tree, rendered by corecap itself as
 * one SVG document: a title, one rectangle per frame with its width
 * proportional to its weight (the root at the bottom, callees above,
 * siblings in name order as flamegraph.pl draws them), a tooltip per frame
 * (<title>: name, weight, share of the total), colours by category with a
 * legend. The output is well-formed XML with no external reference (no
 * fonts, images, scripts or stylesheets from elsewhere) and no script, so
 * it can be embedded as is into an HTML page.
 *
 * Frames narrower than FLAME_MIN_WIDTH_PX are not drawn, nor their
 * callees; the tooltip of their parent still counts them.
 */
#ifndef CORECAP_FLAME_SVG_H
#define CORECAP_FLAME_SVG_H

#include <stdbool.h>
#include <stdio.h>

#include "../model/folded.h"

#define FLAME_MIN_WIDTH_PX 0.1

/* How frames are coloured. */
enum flame_palette {
	FLAME_PALETTE_CODE, /* by what a function name says: lock, logging, I/O, code */
	FLAME_PALETTE_OP,   /* op type, then its attribution category, inherited upwards */
};

struct flame_svg_opts {
	const char *title;
	const char *subtitle; /* NULL: none */
	const char *unit;     /* "samples", "ns" */
	enum flame_palette palette;
	bool root_is_thread; /* the first frame names a thread or a pool */
	bool root_is_lock;   /* the first frame names a lock */
	bool embedded;	     /* no XML declaration: for inlining into HTML */
	int width;	     /* px; 0: 1200 */
	int column;	     /* the weight column drawn */
};

/* 0, -ENOMEM, or -EIO when writing failed. */
int corecap_flame_svg_render(const struct folded *f, const struct flame_svg_opts *opts, FILE *out);

#endif
