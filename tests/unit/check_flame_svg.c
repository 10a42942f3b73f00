/*
 * flame_svg and html_escape: frame widths are proportional to weights,
 * every frame has a tooltip with its weight and share, colours follow the
 * categories, text that could break XML is escaped, and nothing refers to
 * anything outside the document. (Well-formedness is checked by an XML
 * parser in tests/e2e/flame_outputs.sh.)
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/folded.h"
#include "render/flame_svg.h"
#include "render/html_escape.h"

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

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* The width attribute of the rect that follows the title starting with `title`. */
static double frame_width(const char *svg, const char *title)
{
	char want[256];
	const char *p, *w;

	snprintf(want, sizeof(want), "<title>%s", title);
	p = strstr(svg, want);
	ck_assert_msg(p != NULL, "no frame titled '%s'", title);
	w = strstr(p, "width=\"");
	ck_assert_ptr_nonnull(w);
	return strtod(w + 7, NULL);
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
	ck_assert_uint_eq(count(svg, "<rect x="), 4 + 1 /* background */ + 1 /* legend */);
	ck_assert_double_eq_tol(frame_width(svg, "all ("), 1000.0, 0.05);
	ck_assert_double_eq_tol(frame_width(svg, "main ("), 1000.0, 0.05);
	ck_assert_double_eq_tol(frame_width(svg, "a ("), 750.0, 0.05);
	ck_assert_double_eq_tol(frame_width(svg, "b ("), 250.0, 0.05);
	ck_assert_ptr_nonnull(strstr(svg, "<title>a (750 samples, 75.00%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>all (1,000 samples, 100.00%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<?xml version=\"1.0\""));
	ck_assert_ptr_null(strstr(svg, "href"));
	ck_assert_ptr_null(strstr(svg, "<script"));
	ck_assert_ptr_null(strstr(svg, "url("));
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
	struct folded f;
	const char *s[] = {"std::map<int, char>::find(int const&)", "a\"b'c", "bad\xff\xfeutf8"};
	struct flame_svg_opts o = {.title = "<&>", .width = 4000};
	char *svg;

	ck_assert_int_eq(corecap_folded_init(&f), 0);
	corecap_folded_add(&f, s, 3, 1, 0);
	svg = render(&f, &o);
	ck_assert_ptr_nonnull(strstr(svg, "std::map&lt;int, char&gt;::find(int const&amp;)"));
	ck_assert_ptr_nonnull(strstr(svg, "a&quot;b&#39;c"));
	ck_assert_ptr_nonnull(strstr(svg, "bad\xef\xbf\xbd\xef\xbf\xbdutf8"));
	ck_assert_ptr_nonnull(strstr(svg, ">&lt;&amp;&gt;</text>"));
	free(svg);
	corecap_folded_release(&f);
}
END_TEST

START_TEST(colours_follow_categories_with_a_legend)
{
	struct folded f;
	const char *lock[] = {"msgr-worker", "pthread_mutex_lock"};
	const char *io[] = {"msgr-worker", "__libc_write"};
	const char *log[] = {"log", "Log::flush"};
	const char *op[] = {"write", "logging", "io"};
	struct flame_svg_opts o = {.title = "t", .root_is_thread = true, .width = 2000};
	char *svg;

	ck_assert_int_eq(corecap_folded_init(&f), 0);
	corecap_folded_add(&f, lock, 2, 1, 0);
	corecap_folded_add(&f, io, 2, 1, 0);
	corecap_folded_add(&f, log, 2, 1, 0);
	svg = render(&f, &o);
	ck_assert_ptr_nonnull(strstr(svg, ">lock wait</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">I/O</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">logging</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">thread / pool</text>"));
	ck_assert_ptr_null(strstr(svg, ">queue</text>"));
	free(svg);
	corecap_folded_release(&f);

	/* The op palette: the category frame colours its callees. */
	ck_assert_int_eq(corecap_folded_init(&f), 0);
	corecap_folded_add(&f, op, 3, 1, 0);
	o = (struct flame_svg_opts){.title = "t", .palette = FLAME_PALETTE_OP, .width = 2000};
	svg = render(&f, &o);
	ck_assert_ptr_nonnull(strstr(svg, ">op type</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">logging</text>"));
	ck_assert_ptr_null(strstr(svg, ">I/O</text>"));
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
	SRunner *sr;
	int failed;

	tcase_add_test(tc, widths_are_proportional_and_every_frame_has_a_tooltip);
	tcase_add_test(tc, frames_too_narrow_are_left_out_with_their_callees);
	tcase_add_test(tc, names_are_escaped);
	tcase_add_test(tc, colours_follow_categories_with_a_legend);
	tcase_add_test(tc, an_empty_graph_says_so);
	tcase_add_test(tc, escaping_drops_what_xml_forbids);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
