/*
 * flame_svg and html_escape: frame widths are proportional to weights,
 * every frame has a tooltip with its weight and share (and its source line
 * and class when known), colours follow the analysis' classes and never a
 * name's substrings, labels fit their frame or are left out, text that
 * could break XML is escaped, and nothing refers to anything outside the
 * document; the script is inline. (Well-formedness is checked by XML
 * parsers in tests/e2e/flame_golden.sh, the script in headless Chromium by
 * tests/e2e/flame_svg_browser.sh.)
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/flame_stacks.h"
#include "model/folded.h"
#include "render/flame_svg.h"
#include "render/html_escape.h"

#include "check_run.h"

static char *render(const struct folded *f, const struct flame_svg_opts *o)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(corecap_flame_svg_render(f, o, out), 0);
	fclose(out);
	return buf;
}

/* The picture of one stack of weight 1. */
static char *render_one(const char *const *stack, size_t n, const struct flame_svg_opts *o)
{
	struct folded f;
	char *svg;

	ck_assert_int_eq(corecap_folded_init(&f), 0);
	ck_assert_int_eq(corecap_folded_add(&f, stack, n, 1, 0), 0);
	svg = render(&f, o);
	corecap_folded_release(&f);
	return svg;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* The value of attribute attr (`width="`) of the rect after the title starting with `title`. */
static const char *frame_attr(const char *svg, const char *title, const char *attr)
{
	char want[256];
	const char *p, *v;

	snprintf(want, sizeof(want), "<title>%s", title);
	p = strstr(svg, want);
	ck_assert_msg(p != NULL, "no frame titled '%s'", title);
	v = strstr(p, attr);
	ck_assert_ptr_nonnull(v);
	return v + strlen(attr);
}

static double frame_width(const char *svg, const char *title)
{
	return strtod(frame_attr(svg, title, "width=\""), NULL);
}

START_TEST(widths_are_proportional_and_every_frame_has_a_tooltip)
{
	struct folded f;
	const char *a[] = {"main", "a"};
	const char *b[] = {"main", "b"};
	struct flame_svg_opts o = {.title = "t", .unit = "samples", .width = 1020};
	char *svg;

	ck_assert_int_eq(corecap_folded_init(&f), 0);
	corecap_folded_add(&f, a, 2, 750, 0);
	corecap_folded_add(&f, b, 2, 250, 0);
	svg = render(&f, &o);
	/* all, main, a, b: four frames, four tooltips. */
	ck_assert_uint_eq(count(svg, "<title>"), 4);
	ck_assert_uint_eq(count(svg, "<rect x="), 4 + 1 /* legend */);
	ck_assert_uint_eq(count(svg, "<rect class=\"cf-bg\" x="), 1 /* background */);
	ck_assert_double_eq_tol(frame_width(svg, "all ("), 1000.0, 0.05);
	ck_assert_double_eq_tol(frame_width(svg, "main ("), 1000.0, 0.05);
	ck_assert_double_eq_tol(frame_width(svg, "a ("), 750.0, 0.05);
	ck_assert_double_eq_tol(frame_width(svg, "b ("), 250.0, 0.05);
	ck_assert_ptr_nonnull(strstr(svg, "<title>a (750 samples, 75.00%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>all (1,000 samples, 100.00%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<?xml version=\"1.0\""));
	ck_assert_ptr_null(strstr(svg, "href"));
	ck_assert_ptr_null(strstr(svg, "url("));
	ck_assert_ptr_null(strstr(svg, "https:"));
	/* One inline script, last, with nothing fetched. */
	ck_assert_uint_eq(count(svg, "<script"), 1);
	ck_assert_ptr_nonnull(strstr(svg, "<script type=\"text/ecmascript\"><![CDATA[\n"));
	ck_assert_ptr_nonnull(strstr(svg, "]]></script>\n</svg>\n"));
	ck_assert_uint_eq(count(svg, "]]>"), 1);
	ck_assert_ptr_null(strstr(svg, " src="));
	ck_assert_ptr_null(strstr(svg, "fetch("));
	ck_assert_ptr_null(strstr(svg, "XMLHttpRequest"));
	/* Its buttons are hidden until the script shows them. */
	ck_assert_ptr_nonnull(strstr(svg, "class=\"cf-search\" x=\"1010\" y=\"24\" "
					  "text-anchor=\"end\" visibility=\"hidden\""));
	free(svg);
	o.embedded = true;
	svg = render(&f, &o);
	ck_assert_ptr_null(strstr(svg, "<?xml"));
	free(svg);
	corecap_folded_release(&f);
}
END_TEST

START_TEST(frames_too_narrow_are_left_out_with_their_callees)
{
	struct folded f;
	const char *wide[] = {"main", "wide"};
	const char *thin[] = {"main", "thin", "deeper"};
	struct flame_svg_opts o = {.title = "t", .width = 120};
	char *svg;

	ck_assert_int_eq(corecap_folded_init(&f), 0);
	corecap_folded_add(&f, wide, 2, 1000000, 0);
	corecap_folded_add(&f, thin, 3, 1, 0); /* 1e-4 px */
	svg = render(&f, &o);
	ck_assert_ptr_null(strstr(svg, "<title>thin"));
	ck_assert_ptr_null(strstr(svg, "<title>deeper"));
	/* The parent still counts them. */
	ck_assert_ptr_nonnull(strstr(svg, "<title>main (1,000,001 samples"));
	free(svg);
	corecap_folded_release(&f);
}
END_TEST

START_TEST(names_are_escaped)
{
	const char *s[] = {"std::map<int, char>::find(int const&)", "a\"b'c", "bad\xff\xfeutf8"};
	struct flame_svg_opts o = {.title = "<&>", .width = 4000};
	char *svg = render_one(s, 3, &o);

	ck_assert_ptr_nonnull(strstr(svg, "std::map&lt;int, char&gt;::find(int const&amp;)"));
	ck_assert_ptr_nonnull(strstr(svg, "a&quot;b&#39;c"));
	ck_assert_ptr_nonnull(strstr(svg, "bad\xef\xbf\xbd\xef\xbf\xbdutf8"));
	ck_assert_ptr_nonnull(strstr(svg, ">&lt;&amp;&gt;</text>"));
	free(svg);
}
END_TEST

/* The fill of the frame whose tooltip starts with title. */
static void frame_fill(const char *svg, const char *title, int *r, int *g, int *b)
{
	ck_assert_int_eq(sscanf(frame_attr(svg, title, "fill=\"rgb("), "%d,%d,%d)", r, g, b), 3);
}

/* Whether a frame's fill lies in a palette's range (base .. base + delta). */
static bool fill_in(const char *svg, const char *title, int r0, int g0, int b0, int dr, int dg,
		    int db)
{
	int r, g, b;

	frame_fill(svg, title, &r, &g, &b);
	return r >= r0 && r <= r0 + dr && g >= g0 && g <= g0 + dg && b >= b0 && b <= b0 + db;
}

#define IS_CPU(svg, t)	      fill_in(svg, t, 205, 80, 0, 50, 150, 55)
#define IS_LOCK(svg, t)	      fill_in(svg, t, 200, 40, 40, 40, 40, 40)
#define IS_LOGGING(svg, t)    fill_in(svg, t, 140, 100, 210, 40, 40, 30)
#define IS_IDLE(svg, t)	      fill_in(svg, t, 175, 215, 215, 25, 25, 25)
#define IS_UNRESOLVED(svg, t) fill_in(svg, t, 175, 175, 175, 20, 20, 20)

/* A namer and a symbol table over the addresses 1..: names[addr - 1]. */
static const char *const fake_names[] = {
	"main",					       /* 1 */
	"PrimaryLogPG::do_op(OpRequestRef&)",	       /* 2 */
	"CommonSafeTimer<std::mutex>::timer_thread()", /* 3 */
	"pthread_mutex_lock",			       /* 4 */
	"__lll_lock_wait",			       /* 5 */
	"ceph::logging::Log::submit_entry(Entry&&)",   /* 6 */
	"write",				       /* 7 */
	"pthread_cond_wait",			       /* 8 */
	"futex_abstimed_wait_common",		       /* 9 */
	"log_flush", /* 10: "log" in a name says nothing by itself */
};
#define N_FAKE (sizeof(fake_names) / sizeof(*fake_names))

static void fake_namer(void *ctx, uint64_t addr, bool exact, struct flame_names *out)
{
	(void)ctx;
	(void)exact;
	if (addr >= 1 && addr <= N_FAKE) {
		out->names[out->n] = fake_names[addr - 1];
		out->files[out->n] = "src/osd/PrimaryLogPG.cc";
		out->lines[out->n++] = (uint32_t)(100 + addr);
		out->resolved = true;
		return;
	}
	snprintf(out->buf, sizeof(out->buf), "0x%llx", (unsigned long long)addr);
	out->names[out->n++] = out->buf;
}

static const char *fake_symbol(void *ctx, uint64_t addr, int exact)
{
	(void)ctx;
	(void)exact;
	return addr >= 1 && addr <= N_FAKE ? fake_names[addr - 1] : NULL;
}

START_TEST(colours_follow_the_analysis_classes_not_names)
{
	/* Stacks innermost first, as unwinders give them. */
	static const uint64_t lock[] = {5, 4, 3, 1};   /* timer thread waits for a mutex */
	static const uint64_t op[] = {2, 1};	       /* PrimaryLogPG on CPU */
	static const uint64_t logged[] = {7, 6, 2, 1}; /* writing the log under do_op */
	static const uint64_t idle[] = {9, 8, 3, 1};   /* the timer waits for work */
	static const uint64_t named[] = {10, 1};       /* a function named log_*: cpu */
	static const uint64_t lost[] = {0x999, 1};     /* an address no symbol covers */
	char *pattern = "ceph::logging::*";
	struct stack_class cls;
	struct flame_stacks fs;
	const char *thread[] = {"tp_osd_tp"};
	struct flame_svg_opts o = {.title = "t", .root_is_thread = true, .width = 4000};
	char *svg;

	corecap_stack_class_init(&cls, &pattern, 1, fake_symbol, NULL);
	ck_assert_int_eq(corecap_flame_stacks_init(&fs, FLAME_WALL, fake_namer, NULL), 0);
	fs.classify = &cls;
	ck_assert_int_eq(corecap_flame_stacks_add(&fs, thread, 1, lock, 4, true, false, 10, 0), 0);
	ck_assert_int_eq(corecap_flame_stacks_add(&fs, thread, 1, op, 2, true, false, 30, 0), 0);
	ck_assert_int_eq(corecap_flame_stacks_add(&fs, thread, 1, logged, 4, true, false, 10, 0),
			 0);
	ck_assert_int_eq(corecap_flame_stacks_add(&fs, thread, 1, idle, 4, true, false, 40, 0), 0);
	ck_assert_int_eq(corecap_flame_stacks_add(&fs, thread, 1, named, 2, true, false, 5, 0), 0);
	ck_assert_int_eq(corecap_flame_stacks_add(&fs, thread, 1, lost, 2, true, false, 5, 0), 0);
	o.info = fs.info;
	o.n_info = fs.n_info;
	svg = render(&fs.folded, &o);
	/*
	 * PrimaryLogPG::do_op is cpu, not logging, whatever its name says: in
	 * the logged stack the class begins at the log code it called.
	 */
	ck_assert(IS_CPU(svg, "PrimaryLogPG::do_op(OpRequestRef&amp;) (40 "));
	ck_assert_ptr_nonnull(strstr(svg,
				     "PrimaryLogPG::do_op(OpRequestRef&amp;) (40 samples, 40.00%)\n"
				     "src/osd/PrimaryLogPG.cc:102\nclass: cpu</title>"));
	/* The logging code and what it called are logging. */
	ck_assert(IS_LOGGING(svg, "ceph::logging::Log::submit_entry(Entry&amp;&amp;) (10 "));
	ck_assert(IS_LOGGING(svg, "write (10 "));
	/* CommonSafeTimer<std::mutex> is code; the mutex it waits on is the lock wait. */
	ck_assert(IS_CPU(svg, "CommonSafeTimer&lt;std::mutex&gt;::timer_thread() (50 "));
	ck_assert_ptr_nonnull(
		strstr(svg, "timer_thread() (50 samples, 50.00%)\nsrc/osd/PrimaryLogPG.cc:103\n"
			    "class: cpu</title>"));
	ck_assert(IS_LOCK(svg, "pthread_mutex_lock (10 "));
	ck_assert(IS_LOCK(svg, "__lll_lock_wait (10 "));
	ck_assert(IS_IDLE(svg, "pthread_cond_wait (40 "));
	ck_assert(IS_CPU(svg, "log_flush (5 "));
	ck_assert(IS_UNRESOLVED(svg, "0x999 (5 "));
	ck_assert_ptr_nonnull(strstr(svg, ">lock wait</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">logging</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">idle wait</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">thread / pool</text>"));
	ck_assert_ptr_null(strstr(svg, ">queue</text>"));
	free(svg);

	/* A frame in stacks of two classes says both, and takes the larger's colour. */
	corecap_flame_stacks_release(&fs);
	ck_assert_int_eq(corecap_flame_stacks_init(&fs, FLAME_WALL, fake_namer, NULL), 0);
	fs.classify = &cls;
	{
		static const uint64_t io[] = {7, 2, 1}, io_cpu[] = {0x999, 7, 2, 1};

		ck_assert_int_eq(
			corecap_flame_stacks_add(&fs, thread, 1, io, 3, true, false, 20, 0), 0);
		ck_assert_int_eq(
			corecap_flame_stacks_add(&fs, thread, 1, io_cpu, 4, true, false, 10, 0), 0);
	}
	o.info = fs.info;
	o.n_info = fs.n_info;
	svg = render(&fs.folded, &o);
	ck_assert_ptr_nonnull(
		strstr(svg, "<title>write (30 samples, 100.00%)\nsrc/osd/PrimaryLogPG.cc:107\n"
			    "class: cpu 33%, I/O 67%</title>"));
	ck_assert(fill_in(svg, "write (30 ", 70, 130, 215, 30, 50, 30));
	free(svg);

	/* --no-idle: the idle stack is left out, and counted. */
	corecap_flame_stacks_release(&fs);
	ck_assert_int_eq(corecap_flame_stacks_init(&fs, FLAME_WALL, fake_namer, NULL), 0);
	fs.classify = &cls;
	fs.drop_idle = true;
	ck_assert_int_eq(corecap_flame_stacks_add(&fs, thread, 1, lock, 4, true, false, 10, 0), 0);
	ck_assert_int_eq(corecap_flame_stacks_add(&fs, thread, 1, idle, 4, true, false, 40, 0), 0);
	ck_assert_uint_eq(fs.idle_stacks, 1);
	ck_assert_uint_eq(fs.idle_weight, 40);
	ck_assert_uint_eq(fs.folded.nodes[FOLDED_ROOT].total[0], 10);
	corecap_flame_stacks_release(&fs);
	corecap_stack_class_release(&cls);

	/* Without classes, names colour nothing: Log::flush is cpu. */
	{
		const char *log[] = {"log", "Log::flush", "pthread_mutex_lock"};

		o = (struct flame_svg_opts){.title = "t", .width = 2000};
		svg = render_one(log, 3, &o);
		ck_assert(IS_CPU(svg, "Log::flush ("));
		ck_assert(IS_CPU(svg, "pthread_mutex_lock ("));
		ck_assert_ptr_null(strstr(svg, ">logging</text>"));
		free(svg);
	}
}
END_TEST

START_TEST(the_op_palette_colours_by_category)
{
	const char *op[] = {"write", "logging", "io"};
	struct flame_svg_opts o = {.title = "t", .palette = FLAME_PALETTE_OP, .width = 2000};
	/* The op palette: the category frame colours its callees. */
	char *svg = render_one(op, 3, &o);

	ck_assert_ptr_nonnull(strstr(svg, ">op type</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">logging</text>"));
	ck_assert_ptr_null(strstr(svg, ">I/O</text>"));
	free(svg);
}
END_TEST

/* The label of the frame whose tooltip starts with title; "" when none. */
static void frame_label(const char *svg, const char *title, char *out, size_t size)
{
	char want[256];
	const char *p, *end, *t;

	snprintf(want, sizeof(want), "<title>%s", title);
	p = strstr(svg, want);
	ck_assert_msg(p != NULL, "no frame titled '%s'", title);
	end = strstr(p, "</g>");
	t = strstr(p, "<text");
	out[0] = '\0';
	if (t && t < end) {
		t = strchr(t, '>') + 1;
		snprintf(out, size, "%.*s", (int)(strstr(t, "</text>") - t), t);
	}
}

START_TEST(labels_fit_their_frame_or_are_left_out)
{
	struct folded f;
	/* 1000 px in all: widths 600, 60, 30, 310 px. */
	const char *a[] = {"ceph::osd::scheduler::OpSchedulerItem::run(OSD*, PGRef&)"};
	const char *b[] = {"compute_checksum_of_the_block"};
	const char *c[] = {"compute_crc32c"};
	const char *d[] = {"ab"};
	struct flame_svg_opts o = {.title = "t", .width = 1020};
	char *svg, label[256];

	ck_assert_int_eq(corecap_folded_init(&f), 0);
	corecap_folded_add(&f, a, 1, 600, 0);
	corecap_folded_add(&f, b, 1, 60, 0);
	corecap_folded_add(&f, c, 1, 30, 0);
	corecap_folded_add(&f, d, 1, 310, 0);
	svg = render(&f, &o);
	/* 594 px hold the whole name (about 6.6 px a character). */
	frame_label(svg, "ceph::osd", label, sizeof(label));
	ck_assert_str_eq(label, "ceph::osd::scheduler::OpSchedulerItem::run(OSD*, PGRef&amp;)");
	/* 54 px: six characters and "..", no fewer. */
	frame_label(svg, "compute_checksum", label, sizeof(label));
	ck_assert_str_eq(label, "comput..");
	/* 24 px: no stub such as "co..". */
	frame_label(svg, "compute_crc32c", label, sizeof(label));
	ck_assert_str_eq(label, "");
	frame_label(svg, "ab (", label, sizeof(label));
	ck_assert_str_eq(label, "ab");
	free(svg);
	corecap_folded_release(&f);
}
END_TEST

START_TEST(an_empty_graph_says_so)
{
	struct folded f;
	struct flame_svg_opts o = {.title = "empty"};
	char *svg;

	ck_assert_int_eq(corecap_folded_init(&f), 0);
	svg = render(&f, &o);
	ck_assert_ptr_nonnull(strstr(svg, ">no samples</text>"));
	ck_assert_ptr_nonnull(strstr(svg, "</svg>"));
	free(svg);
	corecap_folded_release(&f);
}
END_TEST

START_TEST(escaping_drops_what_xml_forbids)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);

	corecap_html_escape(out, "a\x01<b>\x7f\xc3\xa9\xed\xa0\x80", 0);
	fputc('|', out);
	corecap_html_escape(out, "abcdefgh", 4);
	fputc('|', out);
	corecap_json_escape(out, "q\"\\\n</script>\xff");
	fclose(out);
	ck_assert_str_eq(buf, "a&lt;b&gt;\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|abcd..|"
			      "q\\\"\\\\\\u000a\\u003c/script>\\ufffd");
	free(buf);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("flame_svg");
	TCase *tc = tcase_create("svg");

	tcase_add_test(tc, widths_are_proportional_and_every_frame_has_a_tooltip);
	tcase_add_test(tc, frames_too_narrow_are_left_out_with_their_callees);
	tcase_add_test(tc, names_are_escaped);
	tcase_add_test(tc, colours_follow_the_analysis_classes_not_names);
	tcase_add_test(tc, the_op_palette_colours_by_category);
	tcase_add_test(tc, labels_fit_their_frame_or_are_left_out);
	tcase_add_test(tc, an_empty_graph_says_so);
	tcase_add_test(tc, escaping_drops_what_xml_forbids);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
