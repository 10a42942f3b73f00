#include "flame_svg.h"

#include "html_escape.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FRAME_H	 16
#define FONT_PX	 12
#define PAD_X	 10
#define TITLE_H	 56
#define STATUS_H 18 /* the hovered frame's name and the search's share */
#define LEGEND_H 28

/*
 * DejaVu Sans' advance widths of ' ' to '~', in 1/1000 em (its hmtx
 * table; 2048 units per em), the font the pictures name first. Other
 * characters count as 1 em, so a label never runs past its frame.
 */
static const unsigned short advance[95] = {
	318,  401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337,
	636,  636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531,
	1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787,
	603,  787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500,
	500,  613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612,
	635,  635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
};

enum flame_cat {
	FC_CODE,
	FC_LOCK,
	FC_COND,
	FC_IDLE,
	FC_LOGGING,
	FC_IO,
	FC_QUEUE,
	FC_THREAD,
	FC_OP,
	FC_UNKNOWN,
	FC_OTHER,
	FC__COUNT
};

static const struct {
	const char *label;
	int r, g, b; /* base colour; frames vary around it by a hash of their name */
	int dr, dg, db;
} cats[FC__COUNT] = {
	[FC_CODE] = {"cpu", 205, 80, 0, 50, 150, 55},
	[FC_LOCK] = {"lock wait", 200, 40, 40, 40, 40, 40},
	[FC_COND] = {"cond wait", 215, 120, 170, 30, 40, 40},
	[FC_IDLE] = {"idle wait", 175, 215, 215, 25, 25, 25},
	[FC_LOGGING] = {"logging", 140, 100, 210, 40, 40, 30},
	[FC_IO] = {"I/O", 70, 130, 215, 30, 50, 30},
	[FC_QUEUE] = {"queue", 80, 175, 80, 40, 40, 40},
	[FC_THREAD] = {"thread / pool", 150, 160, 185, 20, 20, 20},
	[FC_OP] = {"op type", 70, 175, 175, 30, 30, 30},
	[FC_UNKNOWN] = {"unresolved", 175, 175, 175, 20, 20, 20},
	[FC_OTHER] = {"other", 200, 200, 150, 30, 30, 30},
};

/* The colour of each of stack_class's classes. */
static const enum flame_cat class_cat[STACK__COUNT] = {
	[STACK_IDLE] = FC_IDLE,	     [STACK_CPU] = FC_CODE, [STACK_LOGGING] = FC_LOGGING,
	[STACK_LOCK_WAIT] = FC_LOCK, [STACK_IO] = FC_IO,
};

struct svg_ctx {
	const struct folded *f;
	const struct flame_svg_opts *o;
	FILE *out;
	double scale; /* px per unit of weight */
	uint64_t total;
	int height, base_y;
	bool used[FC__COUNT];
	int err;
	double max_delta; /* differential: the largest |column - base_column| of a frame */
};

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The op palette's categories are the attribution's names (op_cat_name). */
static enum flame_cat op_category(const char *name)
{
	static const struct {
		const char *name;
		enum flame_cat cat;
	} map[] = {
		{"cpu", FC_CODE},	 {"lock_wait", FC_LOCK}, {"cond_wait", FC_COND},
		{"logging", FC_LOGGING}, {"io", FC_IO},		 {"queue", FC_QUEUE},
		{"other", FC_OTHER},
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(*map); i++)
		if (strcmp(name, map[i].name) == 0)
			return map[i].cat;
	return FC_OTHER;
}

static const struct flame_node_info *info_of(const struct svg_ctx *c, uint32_t node)
{
	return c->o->info && node < c->o->n_info ? &c->o->info[node] : NULL;
}

/* The class holding most of a frame's weight; -1 when unclassified. */
static int main_class(const struct flame_node_info *in)
{
	int best = -1;
	uint64_t w = 0;

	if (!in || !in->classified)
		return -1;
	for (int k = 0; k < STACK__COUNT; k++)
		if (in->class_weight[k] > w) {
			w = in->class_weight[k];
			best = k;
		}
	return best;
}

static enum flame_cat category(struct svg_ctx *c, uint32_t node, enum flame_cat inherited)
{
	const struct folded_node *nd = &c->f->nodes[node];
	const struct flame_node_info *in = info_of(c, node);
	uint32_t depth = nd->depth - c->o->lead_frames; /* the kind's own root: 1 */
	int cls;

	if (nd->depth && nd->depth <= c->o->lead_frames)
		return FC_THREAD;
	if (depth == 1 && c->o->root_is_thread)
		return FC_THREAD;
	if (depth == 1 && c->o->root_is_lock)
		return FC_LOCK;
	if (c->o->palette == FLAME_PALETTE_OP) {
		if (depth == 1)
			return FC_OP;
		if (depth == 2)
			return op_category(corecap_folded_name(c->f, nd));
		return inherited;
	}
	if (in && in->unresolved)
		return FC_UNKNOWN;
	cls = main_class(in);
	return cls >= 0 ? class_cat[cls] : FC_CODE;
}

static void colour(enum flame_cat cat, const char *name, char *out, size_t size)
{
	uint32_t h = name_hash(name);
	double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0,
	       v3 = ((h >> 16) & 0xff) / 255.0;

	snprintf(out, size, "rgb(%d,%d,%d)", cats[cat].r + (int)(cats[cat].dr * v1),
		 cats[cat].g + (int)(cats[cat].dg * v2), cats[cat].b + (int)(cats[cat].db * v3));
}

/* The advance of one character starting at s (its bytes in *len), in px. */
static double char_px(const char *s, size_t *len)
{
	unsigned char ch = (unsigned char)*s;

	*len = 1;
	if (ch >= 0x80)
		while ((s[*len] & 0xc0) == 0x80)
			(*len)++;
	return (ch >= 32 && ch < 127 ? advance[ch - 32] : 1000) * FONT_PX / 1000.0;
}

/*
 * How many characters of name the label shows in avail px: all of them
 * (SIZE_MAX), at least FLAME_MIN_LABEL_CHARS followed by "..", or 0.
 */
static size_t label_chars(const char *name, double avail)
{
	double dots = 2 * advance['.' - 32] * FONT_PX / 1000.0, used = 0, px;
	size_t n = 0, len, fit = 0;

	for (const char *p = name; *p; p += len, n++) {
		px = char_px(p, &len);
		if (used + px + dots <= avail)
			fit = n + 1;
		used += px;
	}
	if (used <= avail)
		return SIZE_MAX;
	return fit >= FLAME_MIN_LABEL_CHARS ? fit : 0;
}

static void put_count(FILE *out, uint64_t v)
{
	char digits[32], grouped[48];
	int n = snprintf(digits, sizeof(digits), "%" PRIu64, v), j = 0;

	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			grouped[j++] = ',';
		grouped[j++] = digits[i];
	}
	grouped[j] = '\0';
	fputs(grouped, out);
}

/* The tooltip's lines after the first: the source line, the classes. */
static void tooltip_more(struct svg_ctx *c, const struct flame_node_info *in)
{
	uint64_t all = 0;
	int n = 0;

	if (!in)
		return;
	if (in->line && in->file != FOLDED_NONE) {
		fputc('\n', c->out);
		corecap_html_escape(c->out, c->f->names[in->file], 0);
		fprintf(c->out, ":%" PRIu32 "%s", in->line,
			in->other_lines ? " (and other lines)" : "");
	}
	if (!in->classified)
		return;
	for (int k = 0; k < STACK__COUNT; k++)
		all += in->class_weight[k];
	for (int k = 0; k < STACK__COUNT && all; k++) {
		if (!in->class_weight[k])
			continue;
		fprintf(c->out, "%s%s", n++ ? ", " : "\nclass: ", cats[class_cat[k]].label);
		if (in->class_weight[k] != all)
			fprintf(c->out, " %.0f%%",
				100.0 * (double)in->class_weight[k] / (double)all);
	}
}

static void frame(struct svg_ctx *c, uint32_t node, const char *name, uint64_t weight, double x,
		  double w, int depth, enum flame_cat cat)
{
	FILE *out = c->out;
	double y = c->base_y - (double)depth * FRAME_H;
	size_t fit = label_chars(name, w - 6);
	char fill[32];

	if (c->o->differential) {
		const struct folded_node *nd =
			&c->f->nodes[node == FOLDED_NONE ? FOLDED_ROOT : node];
		double dv = (double)nd->total[c->o->column] - (double)nd->total[c->o->base_column];
		int fade = c->max_delta > 0 ? (int)(210 * (1 - fabs(dv) / c->max_delta)) : 210;

		/* flamegraph.pl's: white for no change, full red or blue for the largest. */
		if (dv > 0)
			snprintf(fill, sizeof(fill), "rgb(255,%d,%d)", fade, fade);
		else if (dv < 0)
			snprintf(fill, sizeof(fill), "rgb(%d,%d,255)", fade, fade);
		else
			snprintf(fill, sizeof(fill), "rgb(250,250,250)");
	} else {
		c->used[cat] = true;
		colour(cat, name, fill, sizeof(fill));
	}
	fprintf(out, "<g class=\"f\"><title>");
	corecap_html_escape(out, name, 0);
	fprintf(out, " (");
	put_count(out, weight);
	fprintf(out, " %s, %.2f%%)", c->o->unit ? c->o->unit : "samples",
		c->total ? 100.0 * (double)weight / (double)c->total : 0.0);
	if (c->o->differential) {
		const struct folded_node *nd =
			&c->f->nodes[node == FOLDED_NONE ? FOLDED_ROOT : node];
		double base = (double)nd->total[c->o->base_column],
		       dv = (double)nd->total[c->o->column] - base;

		fprintf(out, "\nchange: %+.0f %s", dv, c->o->unit ? c->o->unit : "samples");
		if (base > 0)
			fprintf(out, " (%+.1f%%)", 100 * dv / base);
	}
	if (node != FOLDED_NONE)
		tooltip_more(c, info_of(c, node));
	fprintf(out,
		"</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
		"rx=\"2\" ry=\"2\"/>",
		x, y, w, FRAME_H - 1, fill);
	if (fit) {
		fprintf(out, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + FRAME_H - 4.5);
		corecap_html_escape(out, name, fit == SIZE_MAX ? 0 : fit);
		fprintf(out, "</text>");
	}
	fprintf(out, "</g>\n");
}

static int cmp_child(const void *a, const void *b, void *arg)
{
	const struct folded *f = arg;
	const struct folded_node *x = &f->nodes[*(const uint32_t *)a],
				 *y = &f->nodes[*(const uint32_t *)b];

	return strcmp(corecap_folded_name(f, x), corecap_folded_name(f, y));
}

/* The deepest frame wide enough to draw, to size the picture. */
static uint32_t drawn_depth(const struct svg_ctx *c, uint32_t node)
{
	const struct folded_node *nd = &c->f->nodes[node];
	uint32_t best = nd->depth;

	for (uint32_t ch = nd->first_child; ch != FOLDED_NONE; ch = c->f->nodes[ch].next_sibling) {
		const struct folded_node *cn = &c->f->nodes[ch];

		if ((double)cn->total[c->o->column] * c->scale >= FLAME_MIN_WIDTH_PX) {
			uint32_t d = drawn_depth(c, ch);

			if (d > best)
				best = d;
		}
	}
	return best;
}

static void draw(struct svg_ctx *c, uint32_t node, double x, enum flame_cat inherited)
{
	const struct folded_node *nd = &c->f->nodes[node];
	uint32_t small[256], *kids = small;
	size_t n = 0, cap = 256;
	enum flame_cat cat = inherited, pass;

	if (node != FOLDED_ROOT) {
		cat = category(c, node, inherited);
		frame(c, node, corecap_folded_name(c->f, nd), nd->total[c->o->column], x,
		      (double)nd->total[c->o->column] * c->scale, (int)nd->depth, cat);
	}
	pass = cat;
	for (uint32_t ch = nd->first_child; ch != FOLDED_NONE; ch = c->f->nodes[ch].next_sibling) {
		if (c->f->nodes[ch].total[c->o->column] == 0)
			continue;
		if (n == cap) {
			uint32_t *grown = malloc(cap * 2 * sizeof(*grown));

			if (!grown) {
				c->err = -ENOMEM;
				goto out;
			}
			memcpy(grown, kids, n * sizeof(*kids));
			if (kids != small)
				free(kids);
			kids = grown;
			cap *= 2;
		}
		kids[n++] = ch;
	}
	qsort_r(kids, n, sizeof(*kids), cmp_child, (void *)c->f);
	for (size_t i = 0; i < n; i++) {
		double w = (double)c->f->nodes[kids[i]].total[c->o->column] * c->scale;

		if (w >= FLAME_MIN_WIDTH_PX)
			draw(c, kids[i], x, pass);
		x += w;
	}
out:
	if (kids != small)
		free(kids);
}

/*
 * The interactive part (search, zoom, reset, labels refitted by the
 * browser's measure), for the document it sits in: it finds its <svg> as
 * its parent, so several pictures can share an HTML page. No network, no
 * reference outside the document; without script nothing changes.
 */
static const char script[] =
	"(function () {\n"
	"  'use strict';\n"
	"  var me = document.currentScript, svg = me && me.parentNode;\n"
	"  if (!svg || !svg.querySelectorAll)\n"
	"    svg = document.documentElement;\n"
	"  var NS = 'http://www.w3.org/2000/svg', HIGHLIGHT = 'rgb(230,0,230)', E = 0.02;\n"
	"  var W = +svg.getAttribute('data-width'), PAD = +svg.getAttribute('data-pad'), W0 = W;\n"
	"  var MIN_CHARS = +svg.getAttribute('data-min-chars');\n"
	"  var q = function (c) { return svg.querySelector('.' + c); };\n"
	"  var resetBtn = q('cf-reset'), searchBtn = q('cf-search'), matched = q('cf-matched');\n"
	"  var details = q('cf-details');\n"
	"  var frames = [], total = 0, root = null, searching = null, dotsW = 0, zoomed = null;\n"
	"\n"
	"  /*\n"
	"   * Draws frames at new places, { f, x, w, dim } each, with the label that\n"
	"   * fits w px: the name, or at least MIN_CHARS of it and \"..\", or none.\n"
	"   * Writes, then reads, then writes again, so that the browser lays the\n"
	"   * text out once, not once per frame.\n"
	"   */\n"
	"  function layout(items) {\n"
	"    items.forEach(function (it) {\n"
	"      var f = it.f;\n"
	"      f.g.removeAttribute('display');\n"
	"      f.r.setAttribute('x', it.x.toFixed(2));\n"
	"      f.r.setAttribute('width', it.w.toFixed(2));\n"
	"      if (it.dim)\n"
	"        f.g.setAttribute('opacity', '0.5');\n"
	"      else\n"
	"        f.g.removeAttribute('opacity');\n"
	"      f.t.setAttribute('x', (it.x + 3).toFixed(2));\n"
	"      f.t.textContent = it.w - 6 > dotsW ? f.name : '';\n"
	"    });\n"
	"    items.forEach(function (it) {\n"
	"      var t = it.f.t, avail = it.w - 6, lo, hi, mid;\n"
	"      it.k = -1;\n"
	"      if (!t.textContent || t.getComputedTextLength() <= avail)\n"
	"        return;\n"
	"      for (lo = 0, hi = it.f.name.length - 1; lo < hi;) {\n"
	"        mid = (lo + hi + 1) >> 1;\n"
	"        if (t.getSubStringLength(0, mid) + dotsW <= avail)\n"
	"          lo = mid;\n"
	"        else\n"
	"          hi = mid - 1;\n"
	"      }\n"
	"      it.k = lo;\n"
	"    });\n"
	"    items.forEach(function (it) {\n"
	"      if (it.k >= 0)\n"
	"        it.f.t.textContent = it.k >= MIN_CHARS ? it.f.name.slice(0, it.k) + '..' : '';\n"
	"    });\n"
	"  }\n"
	"\n"
	"  function unzoom() {\n"
	"    layout(frames.map(function (f) { return {f: f, x: f.x, w: f.w}; }));\n"
	"    resetBtn.setAttribute('visibility', 'hidden');\n"
	"    svg.removeAttribute('data-zoomed');\n"
	"    zoomed = null;\n"
	"  }\n"
	"\n"
	"  /* z takes the full width, with its callees; its callers stay, dimmed; the rest hides. "
	"*/\n"
	"  function zoom(z) {\n"
	"    var sc = (W - 2 * PAD) / z.w, items = [];\n"
	"    if (z === root)\n"
	"      return unzoom();\n"
	"    frames.forEach(function (f) {\n"
	"      if (f.y >= z.y && f.x <= z.x + E && f.x + f.w >= z.x + z.w - E)\n"
	"        items.push({f: f, x: PAD, w: W - 2 * PAD, dim: f !== z});\n"
	"      else if (f.y < z.y && f.x >= z.x - E && f.x + f.w <= z.x + z.w + E)\n"
	"        items.push({f: f, x: PAD + (f.x - z.x) * sc, w: f.w * sc});\n"
	"      else\n"
	"        f.g.setAttribute('display', 'none');\n"
	"    });\n"
	"    layout(items);\n"
	"    resetBtn.setAttribute('visibility', 'visible');\n"
	"    svg.setAttribute('data-zoomed', z.name);\n"
	"    zoomed = z;\n"
	"  }\n"
	"\n"
	"  /*\n"
	"   * data-fit: as wide as the parent element, redrawn when that changes\n"
	"   * (the frames' places scaled from those drawn at W0, the zoom kept).\n"
	"   */\n"
	"  function fit() {\n"
	"    var avail = Math.floor(svg.parentNode.clientWidth), H = +svg.getAttribute('height'), "
	"sc;\n"
	"    if (!avail || avail < 4 * PAD || avail === W)\n"
	"      return;\n"
	"    W = avail;\n"
	"    sc = (W - 2 * PAD) / (W0 - 2 * PAD);\n"
	"    frames.forEach(function (f) {\n"
	"      f.x = PAD + (f.x0 - PAD) * sc;\n"
	"      f.w = f.w0 * sc;\n"
	"    });\n"
	"    svg.setAttribute('width', W);\n"
	"    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);\n"
	"    svg.setAttribute('data-width', W);\n"
	"    Array.prototype.forEach.call(svg.querySelectorAll('.cf-bg'), function (e) {\n"
	"      e.setAttribute('width', W);\n"
	"    });\n"
	"    Array.prototype.forEach.call(svg.querySelectorAll('.cf-c'), function (e) {\n"
	"      e.setAttribute('x', W / 2);\n"
	"    });\n"
	"    searchBtn.setAttribute('x', W - PAD);\n"
	"    matched.setAttribute('x', W - PAD);\n"
	"    if (zoomed)\n"
	"      zoom(zoomed);\n"
	"    else\n"
	"      unzoom();\n"
	"  }\n"
	"\n"
	"  function resetSearch() {\n"
	"    frames.forEach(function (f) { f.r.setAttribute('fill', f.fill); });\n"
	"    matched.textContent = '';\n"
	"    searchBtn.textContent = 'Search';\n"
	"    searching = null;\n"
	"  }\n"
	"\n"
	"  /* Highlights the frames re matches; the share counts a frame inside a matched one "
	"once. */\n"
	"  function search(re) {\n"
	"    var hits = frames.filter(function (f) { return re.test(f.name); }), counted = [], sum "
	"= 0;\n"
	"    resetSearch();\n"
	"    hits.sort(function (a, b) { return b.y - a.y || a.x - b.x; });\n"
	"    hits.forEach(function (f) {\n"
	"      f.r.setAttribute('fill', HIGHLIGHT);\n"
	"      for (var k = 0; k < counted.length; k++)\n"
	"        if (f.x >= counted[k].x - E && f.x + f.w <= counted[k].x + counted[k].w + E)\n"
	"          return;\n"
	"      counted.push(f);\n"
	"      sum += f.weight;\n"
	"    });\n"
	"    matched.textContent = 'Matched: ' + (total ? 100 * sum / total : 0).toFixed(1) + "
	"'%';\n"
	"    searchBtn.textContent = 'Reset Search';\n"
	"    searching = re;\n"
	"  }\n"
	"\n"
	"  function prompted() {\n"
	"    var term;\n"
	"    if (searching)\n"
	"      return resetSearch();\n"
	"    term = window.prompt('Search frames (a regular expression)', '');\n"
	"    if (!term)\n"
	"      return;\n"
	"    try {\n"
	"      search(new RegExp(term));\n"
	"    } catch (err) {\n"
	"      matched.textContent = 'Not a regular expression: ' + term;\n"
	"    }\n"
	"  }\n"
	"\n"
	"  function frameOf(g) {\n"
	"    var r = g.querySelector('rect'), t = g.querySelector('text');\n"
	"    var tip = g.querySelector('title').textContent.split('\\n')[0];\n"
	"    var m = /^(.*) \\(([0-9,]+) [^()]*\\)$/.exec(tip);\n"
	"    var f = {g: g, r: r, tip: tip, name: m ? m[1] : tip, weight: m ? +m[2].replace(/,/g, "
	"'') : 0,\n"
	"      x: +r.getAttribute('x'), w: +r.getAttribute('width'), y: +r.getAttribute('y'),\n"
	"      fill: r.getAttribute('fill')};\n"
	"    f.x0 = f.x;\n"
	"    f.w0 = f.w;\n"
	"    if (!t) {\n"
	"      t = document.createElementNS(NS, 'text');\n"
	"      t.setAttribute('y', (f.y + +r.getAttribute('height') - 3.5).toFixed(1));\n"
	"      g.appendChild(t);\n"
	"    }\n"
	"    f.t = t;\n"
	"    g.setAttribute('cursor', 'pointer');\n"
	"    g.addEventListener('click', function () { zoom(f); });\n"
	"    g.addEventListener('mouseover', function () { details.textContent = f.tip; });\n"
	"    g.addEventListener('mouseout', function () { details.textContent = ''; });\n"
	"    return f;\n"
	"  }\n"
	"\n"
	"  Array.prototype.forEach.call(svg.querySelectorAll('g.f'), function (g) {\n"
	"    var f = frameOf(g);\n"
	"    frames.push(f);\n"
	"    if (!root || f.y > root.y)\n"
	"      root = f;\n"
	"  });\n"
	"  if (!root)\n"
	"    return;\n"
	"  total = root.weight;\n"
	"  root.t.textContent = '..';\n"
	"  dotsW = root.t.getComputedTextLength();\n"
	"  unzoom();\n"
	"  resetBtn.addEventListener('click', unzoom);\n"
	"  searchBtn.addEventListener('click', prompted);\n"
	"  searchBtn.setAttribute('visibility', 'visible');\n"
	"  if (svg.getAttribute('data-fit') && svg !== document.documentElement) {\n"
	"    fit();\n"
	"    if (window.ResizeObserver)\n"
	"      new ResizeObserver(fit).observe(svg.parentNode);\n"
	"    else\n"
	"      window.addEventListener('resize', fit);\n"
	"  }\n"
	"  if (svg === document.documentElement)\n"
	"    window.addEventListener('keydown', function (e) {\n"
	"      if (e.key === 'F3' || ((e.ctrlKey || e.metaKey) && (e.key === 'f' || e.key === "
	"'F'))) {\n"
	"        e.preventDefault();\n"
	"        if (searching)\n"
	"          resetSearch();\n"
	"        prompted();\n"
	"      } else if (e.key === 'Escape') {\n"
	"        resetSearch();\n"
	"        unzoom();\n"
	"      }\n"
	"    });\n"
	"})();\n";

static void controls(struct svg_ctx *c, int width)
{
	int y = c->base_y + FRAME_H + 14;

	/* Hidden until the script shows them: a picture without script has no dead buttons. */
	fprintf(c->out,
		"<text class=\"cf-reset\" x=\"%d\" y=\"24\" visibility=\"hidden\" "
		"cursor=\"pointer\">Reset Zoom</text>\n"
		"<text class=\"cf-search\" x=\"%d\" y=\"24\" text-anchor=\"end\" "
		"visibility=\"hidden\" cursor=\"pointer\">Search</text>\n"
		"<text class=\"cf-details\" x=\"%d\" y=\"%d\"> </text>\n"
		"<text class=\"cf-matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"> </text>\n",
		PAD_X, width - PAD_X, PAD_X, y, width - PAD_X, y);
}

static void legend(struct svg_ctx *c, int width)
{
	double x = PAD_X;
	int y = c->height - LEGEND_H + 8;

	if (c->o->differential) {
		fprintf(c->out,
			"<rect x=\"%.1f\" y=\"%d\" width=\"12\" height=\"12\" "
			"fill=\"rgb(255,0,0)\"/>"
			"<text x=\"%.1f\" y=\"%d\">grew</text>"
			"<rect x=\"%.1f\" y=\"%d\" width=\"12\" height=\"12\" "
			"fill=\"rgb(0,0,255)\"/>"
			"<text x=\"%.1f\" y=\"%d\">shrank (widths: the second run's)</text>\n",
			x, y, x + 16, y + 10, x + 70, y, x + 86, y + 10);
		return;
	}

	for (int i = 0; i < FC__COUNT; i++) {
		char fill[32];

		if (!c->used[i])
			continue;
		snprintf(fill, sizeof(fill), "rgb(%d,%d,%d)", cats[i].r + cats[i].dr / 2,
			 cats[i].g + cats[i].dg / 2, cats[i].b + cats[i].db / 2);
		fprintf(c->out,
			"<rect x=\"%.1f\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%.1f\" y=\"%d\">%s</text>\n",
			x, y, fill, x + 16, y + 10, cats[i].label);
		for (const char *p = cats[i].label; *p; p++)
			x += advance[*p - 32] * FONT_PX / 1000.0;
		x += 16 + 18;
		if (x > width - 120)
			break;
	}
}

int corecap_flame_svg_render(const struct folded *f, const struct flame_svg_opts *opts, FILE *out)
{
	struct svg_ctx c = {.f = f, .o = opts, .out = out};
	int width = opts->width > 0 ? opts->width : 1200;
	uint32_t depth;

	c.total = f->nodes[FOLDED_ROOT].total[opts->column];
	for (size_t i = 1; opts->differential && i < f->n_nodes; i++) {
		double dv = fabs((double)f->nodes[i].total[opts->column] -
				 (double)f->nodes[i].total[opts->base_column]);

		if (dv > c.max_delta)
			c.max_delta = dv;
	}
	c.scale = c.total ? (double)(width - 2 * PAD_X) / (double)c.total : 0;
	depth = c.total ? drawn_depth(&c, FOLDED_ROOT) : 0;
	/* The "all" frame at depth 0 on the baseline, callees above it. */
	c.base_y = TITLE_H + (int)depth * FRAME_H;
	c.height = c.base_y + FRAME_H + 6 + STATUS_H + LEGEND_H;
	if (!opts->embedded)
		fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n");
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Verdana, "
		"sans-serif\" font-size=\"%d\" data-width=\"%d\" data-pad=\"%d\" "
		"data-min-chars=\"%d\"%s>\n",
		width, c.height, width, c.height, FONT_PX, width, PAD_X, FLAME_MIN_LABEL_CHARS,
		opts->fit ? " data-fit=\"1\"" : "");
	fprintf(out,
		"<rect class=\"cf-bg\" x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
		"fill=\"#f8f8f2\"/>\n",
		width, c.height);
	fprintf(out,
		"<text class=\"cf-c\" x=\"%d\" y=\"24\" font-size=\"17\" text-anchor=\"middle\">",
		width / 2);
	corecap_html_escape(out, opts->title ? opts->title : "Flame graph", 0);
	fprintf(out, "</text>\n");
	if (opts->subtitle) {
		fprintf(out,
			"<text class=\"cf-c\" x=\"%d\" y=\"44\" fill=\"#555\" "
			"text-anchor=\"middle\">",
			width / 2);
		corecap_html_escape(out, opts->subtitle, 0);
		fprintf(out, "</text>\n");
	}
	if (!c.total) {
		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">no samples</text>\n",
			width / 2, c.base_y + FRAME_H / 2);
	} else {
		frame(&c, FOLDED_NONE, "all", c.total, PAD_X, (double)c.total * c.scale, 0,
		      FC_OTHER);
		c.used[FC_OTHER] = false; /* the "all" frame needs no legend entry */
		draw(&c, FOLDED_ROOT, PAD_X, FC_CODE);
		controls(&c, width);
		legend(&c, width);
		fprintf(out, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n",
			script);
	}
	fprintf(out, "</svg>\n");
	if (c.err)
		return c.err;
	return ferror(out) ? -EIO : 0;
}
