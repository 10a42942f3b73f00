#include "flame_svg.h"

#include "html_escape.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FRAME_H	 16
#define FONT_PX	 12
#define CHAR_W	 (FONT_PX * 0.59) /* Verdana's average advance, as flamegraph.pl */
#define PAD_X	 10
#define TITLE_H	 56
#define LEGEND_H 28

enum flame_cat {
	FC_CODE,
	FC_LOCK,
	FC_COND,
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
	[FC_CODE] = {"code (CPU)", 205, 80, 0, 50, 150, 55},
	[FC_LOCK] = {"lock wait", 200, 40, 40, 40, 40, 40},
	[FC_COND] = {"cond wait", 215, 120, 170, 30, 40, 40},
	[FC_LOGGING] = {"logging", 140, 100, 210, 40, 40, 30},
	[FC_IO] = {"I/O", 70, 130, 215, 30, 50, 30},
	[FC_QUEUE] = {"queue", 80, 175, 80, 40, 40, 40},
	[FC_THREAD] = {"thread / pool", 150, 160, 185, 20, 20, 20},
	[FC_OP] = {"op type", 70, 175, 175, 30, 30, 30},
	[FC_UNKNOWN] = {"unresolved", 175, 175, 175, 20, 20, 20},
	[FC_OTHER] = {"other", 200, 200, 150, 30, 30, 30},
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
};

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static bool has_ci(const char *hay, const char *needle)
{
	return strcasestr(hay, needle) != NULL;
}

/* The function name without leading underscores and libc's internal prefixes. */
static const char *bare_name(const char *s, char *buf, size_t size)
{
	static const char *const prefixes[] = {"GI_", "libc_", "GI___libc_", "__libc_"};
	size_t n;

	while (*s == '_')
		s++;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++) {
		size_t k = strlen(prefixes[i]);

		if (strncmp(s, prefixes[i], k) == 0) {
			s += k;
			while (*s == '_')
				s++;
		}
	}
	n = strcspn(s, "(+@ ");
	if (n >= size)
		n = size - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}

static bool is_io_call(const char *name)
{
	static const char *const calls[] = {
		"write",	  "pwrite",	   "pwrite64", "writev",     "pwritev",
		"pwritev2",	  "read",	   "pread",    "pread64",    "readv",
		"preadv",	  "preadv2",	   "fsync",    "fdatasync",  "sync_file_range",
		"send",		  "sendto",	   "sendmsg",  "sendmmsg",   "recv",
		"recvfrom",	  "recvmsg",	   "recvmmsg", "epoll_wait", "epoll_pwait",
		"poll",		  "ppoll",	   "select",   "io_submit",  "io_getevents",
		"io_uring_enter", "syscall_write", "accept",   "accept4",    "connect",
	};
	char buf[64];

	bare_name(name, buf, sizeof(buf));
	for (size_t i = 0; i < sizeof(calls) / sizeof(*calls); i++)
		if (strcmp(buf, calls[i]) == 0)
			return true;
	return false;
}

static bool is_logging(const char *name)
{
	char buf[128];

	bare_name(name, buf, sizeof(buf));
	return strncasecmp(buf, "log", 3) == 0 || has_ci(name, "_log") || has_ci(name, "log_") ||
	       has_ci(name, "::log") || strstr(name, "Log") || has_ci(name, "dout") ||
	       has_ci(name, "syslog");
}

/* What a code frame's name says it does. Heuristic, and only for colour. */
static enum flame_cat code_category(const char *name)
{
	if (strncmp(name, "0x", 2) == 0 || strstr(name, "+0x") || strcmp(name, "?") == 0 ||
	    strcmp(name, "[unknown]") == 0)
		return FC_UNKNOWN;
	if (has_ci(name, "cond_wait") || has_ci(name, "cond_timedwait") ||
	    has_ci(name, "cond_clockwait") || has_ci(name, "condition_variable"))
		return FC_COND;
	if (has_ci(name, "mutex") || has_ci(name, "rwlock") || has_ci(name, "spin_lock") ||
	    has_ci(name, "spinlock") || has_ci(name, "futex") || has_ci(name, "lll_lock") ||
	    has_ci(name, "lock_wait"))
		return FC_LOCK;
	if (is_io_call(name))
		return FC_IO;
	if (is_logging(name))
		return FC_LOGGING;
	return FC_CODE;
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

static enum flame_cat category(struct svg_ctx *c, const struct folded_node *nd,
			       enum flame_cat inherited)
{
	const char *name = corecap_folded_name(c->f, nd);
	enum flame_cat cat;

	if (nd->depth == 1 && c->o->root_is_thread)
		return FC_THREAD;
	if (nd->depth == 1 && c->o->root_is_lock)
		return FC_LOCK;
	if (c->o->palette == FLAME_PALETTE_OP) {
		if (nd->depth == 1)
			return FC_OP;
		if (nd->depth == 2)
			return op_category(name);
		return inherited;
	}
	cat = code_category(name);
	/*
	 * What a wait, an I/O call or logging code calls is part of it:
	 * futex calls under a cond wait are that cond wait.
	 */
	if ((cat == FC_CODE || (cat == FC_LOCK && inherited == FC_COND)) &&
	    (inherited == FC_LOCK || inherited == FC_COND || inherited == FC_IO ||
	     inherited == FC_LOGGING))
		return inherited;
	return cat;
}

static void colour(enum flame_cat cat, const char *name, char *out, size_t size)
{
	uint32_t h = name_hash(name);
	double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0,
	       v3 = ((h >> 16) & 0xff) / 255.0;

	snprintf(out, size, "rgb(%d,%d,%d)", cats[cat].r + (int)(cats[cat].dr * v1),
		 cats[cat].g + (int)(cats[cat].dg * v2), cats[cat].b + (int)(cats[cat].db * v3));
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

static void frame(struct svg_ctx *c, const char *name, uint64_t weight, double x, double w,
		  int depth, enum flame_cat cat)
{
	FILE *out = c->out;
	double y = c->base_y - (double)depth * FRAME_H;
	size_t fit = (size_t)((w - 6) / CHAR_W);
	char fill[32];

	c->used[cat] = true;
	colour(cat, name, fill, sizeof(fill));
	fprintf(out, "<g><title>");
	corecap_html_escape(out, name, 0);
	fprintf(out, " (");
	put_count(out, weight);
	fprintf(out, " %s, %.2f%%)</title>", c->o->unit ? c->o->unit : "samples",
		c->total ? 100.0 * (double)weight / (double)c->total : 0.0);
	fprintf(out,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\" rx=\"2\" "
		"ry=\"2\"/>",
		x, y, w, FRAME_H - 1, fill);
	if (fit >= 3) {
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + FRAME_H - 4.5);
		corecap_html_escape(out, name, strlen(name) > fit ? fit - 2 : 0);
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
		cat = category(c, nd, inherited);
		frame(c, corecap_folded_name(c->f, nd), nd->total[c->o->column], x,
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
	/* A thread or lock root frame names who, not what: its callees start afresh. */
	if (nd->depth == 1 && (c->o->root_is_thread || c->o->root_is_lock))
		pass = FC_CODE;
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

static void legend(struct svg_ctx *c, int width)
{
	double x = PAD_X;
	int y = c->height - LEGEND_H + 8;

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
		x += 16 + strlen(cats[i].label) * CHAR_W + 18;
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
	c.scale = c.total ? (double)(width - 2 * PAD_X) / (double)c.total : 0;
	depth = c.total ? drawn_depth(&c, FOLDED_ROOT) : 0;
	/* The "all" frame at depth 0 on the baseline, callees above it. */
	c.base_y = TITLE_H + (int)depth * FRAME_H;
	c.height = c.base_y + FRAME_H + 6 + LEGEND_H;
	if (!opts->embedded)
		fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n");
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"Verdana, DejaVu Sans, "
		"sans-serif\" "
		"font-size=\"%d\">\n",
		width, c.height, width, c.height, FONT_PX);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f8f8f2\"/>\n", width,
		c.height);
	fprintf(out, "<text x=\"%d\" y=\"24\" font-size=\"17\" text-anchor=\"middle\">", width / 2);
	corecap_html_escape(out, opts->title ? opts->title : "Flame graph", 0);
	fprintf(out, "</text>\n");
	if (opts->subtitle) {
		fprintf(out, "<text x=\"%d\" y=\"44\" fill=\"#555\" text-anchor=\"middle\">",
			width / 2);
		corecap_html_escape(out, opts->subtitle, 0);
		fprintf(out, "</text>\n");
	}
	if (!c.total) {
		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">no samples</text>\n",
			width / 2, c.base_y + FRAME_H / 2);
	} else {
		frame(&c, "all", c.total, PAD_X, (double)c.total * c.scale, 0, FC_OTHER);
		c.used[FC_OTHER] = false; /* the "all" frame needs no legend entry */
		draw(&c, FOLDED_ROOT, PAD_X, FC_CODE);
		legend(&c, width);
	}
	fprintf(out, "</svg>\n");
	if (c.err)
		return c.err;
	return ferror(out) ? -EIO : 0;
}
