/*
 * flame_svg: a flame graph of a folded tree, rendered by corecap itself as
 * one SVG document: a title, one rectangle per frame with its width
 * proportional to its weight (the root at the bottom, callees above,
 * siblings in name order as flamegraph.pl draws them), a tooltip per frame
 * (<title>: "name (weight unit, share%)", then its source line and its
 * class when known, one per line), colours by the class the analysis gave
 * the frame's stacks (flame_stacks' node info) with a legend.
 *
 * Labels fit their frame by the advance widths of DejaVu Sans (the
 * font named first): the whole name, or at least FLAME_MIN_LABEL_CHARS of
 * it and "..", else none. An inline script (no network, no external
 * reference) makes it interactive as flamegraph.pl's pictures are: Search
 * (a button, or Ctrl-F / F3 in a picture of its own; a regular
 * expression) highlights the frames it matches and says "Matched: N%" of
 * the total, click a frame to zoom (it takes the full width with its
 * callees, its callers stay below, dimmed, the rest is hidden), Reset Zoom;
 * the script refits the labels by the browser's own text measure. Without
 * script the picture is the same, static. The script finds its picture
 * from itself, so several can share one HTML page. With fit, the script
 * takes its parent element's width and redraws at it on every resize
 * (frames rescaled, labels refitted, the zoom kept).
 *
 * Frames narrower than FLAME_MIN_WIDTH_PX are not drawn, nor their
 * callees; the tooltip of their parent still counts them.
 */
#ifndef CORECAP_FLAME_SVG_H
#define CORECAP_FLAME_SVG_H

#include <stdbool.h>
#include <stdio.h>

#include "../model/flame_stacks.h"
#include "../model/folded.h"

#define FLAME_MIN_WIDTH_PX    0.1
#define FLAME_MIN_LABEL_CHARS 6 /* a cut label keeps at least these characters */

/* How frames are coloured. */
enum flame_palette {
	FLAME_PALETTE_CLASS, /* by the class of the frame's stacks (info), else code */
	FLAME_PALETTE_OP,    /* op type, then its attribution category, inherited upwards */
};

struct flame_svg_opts {
	const char *title;
	const char *subtitle; /* NULL: none */
	const char *unit;     /* "samples", "ns" */
	enum flame_palette palette;
	bool root_is_thread; /* the first frame names a thread or a pool */
	bool root_is_lock;   /* the first frame names a lock */
	bool embedded;	     /* no XML declaration: for inlining into HTML */
	/* In a page: the script redraws the picture as wide as its parent
	 * element, and again whenever that changes (the window resized). */
	bool fit;
	int width;	     /* px; 0: 1200 */
	int column;	     /* the weight column drawn */
	/* A differential graph (flamegraph.pl's difffolded.pl): widths by
	 * column, colours by column - base_column, red where it grew, blue
	 * where it shrank, deeper for a larger change; the tooltip says it. */
	bool differential;
	int base_column;
	/* Per folded node (flame_stacks.info): classes, lines; NULL: none. */
	const struct flame_node_info *info;
	size_t n_info;
	/* Frames above the kind's own first (a host's name, in the flame of a
	 * run of several hosts): drawn as threads, the others as without. */
	uint32_t lead_frames;
};

/* 0, -ENOMEM, or -EIO when writing failed. */
int corecap_flame_svg_render(const struct folded *f, const struct flame_svg_opts *opts, FILE *out);

#endif
