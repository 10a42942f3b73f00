/*
 * analysis/read/ctf_check.c: metadata that libbabeltrace2 2.0.4 would spin
 * on or abort on is refused with where and why; the golden run's metadata,
 * packetized and as text, passes; a stream cut short is counted from its
 * index.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/ctf_check.h"

#include "check_run.h"

#define GOLDEN CORECAP_TEST_DATA "/analysis/golden-run/trace/ust/uid/0/64-bit"

static const struct ctf_check_opts refuse = {.refuse_context_sequence = true};

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b = malloc(1 << 20);

	ck_assert_ptr_nonnull(f);
	*len = fread(b, 1, 1 << 20, f);
	fclose(f);
	return b;
}

/* The golden metadata's text, unpacketized. */
static char *golden_text(void)
{
	size_t len, off = 0, n = 0;
	unsigned char *b = slurp(GOLDEN "/metadata", &len);
	char *t = calloc(1, len + 1);

	while (off + 37 <= len) {
		unsigned content, packet;

		memcpy(&content, b + off + 24, 4);
		memcpy(&packet, b + off + 28, 4);
		memcpy(t + n, b + off + 37, content / 8 - 37);
		n += content / 8 - 37;
		off += packet / 8;
	}
	free(b);
	return t;
}

static int check_text(const char *t, char **err)
{
	return corecap_ctf_check_metadata((const unsigned char *)t, strlen(t), &refuse, err);
}

/* Golden text with `add` inserted after the hold event's loglevel line. */
static char *with_hold_context(const char *add)
{
	char *t = golden_text(), *at = strstr(t, "\"corecap_lock:hold\"");
	char *out;

	ck_assert_ptr_nonnull(at);
	at = strstr(at, "loglevel = 13;\n") + strlen("loglevel = 13;\n");
	ck_assert_int_ge(asprintf(&out, "%.*s%s%s", (int)(at - t), t, add, at), 0);
	free(t);
	return out;
}

START_TEST(the_golden_metadata_passes_packetized_and_as_text)
{
	size_t len;
	unsigned char *b = slurp(GOLDEN "/metadata", &len);
	char *err = NULL, *t = golden_text();

	ck_assert_int_eq(corecap_ctf_check_metadata(b, len, &refuse, &err), 0);
	ck_assert_int_eq(check_text(t, &err), 0);
	free(b);
	free(t);
}
END_TEST

START_TEST(metadata_cut_inside_a_packet_or_its_text_is_refused)
{
	size_t len;
	unsigned char *b = slurp(GOLDEN "/metadata", &len);
	char *err = NULL, *t = golden_text();

	ck_assert_int_eq(corecap_ctf_check_metadata(b, 5000, &refuse, &err), -22);
	ck_assert_ptr_nonnull(strstr(err, "truncated: metadata packet 2 at byte 4096"));
	free(err);
	ck_assert_int_eq(corecap_ctf_check_metadata(b, 20, &refuse, &err), -22);
	ck_assert_ptr_nonnull(strstr(err, "less than its 37-byte header"));
	free(err);
	/* Cut at the packet boundary: whole packets, but the text stops mid-declaration. */
	ck_assert_int_eq(corecap_ctf_check_metadata(b, 4096, &refuse, &err), -22);
	ck_assert_ptr_nonnull(strstr(err, "brackets open"));
	free(err);
	t[strlen(t) - 30] = '\0';
	ck_assert_int_eq(check_text(t, &err), -22);
	ck_assert_ptr_nonnull(strstr(err, "truncated"));
	free(err);
	ck_assert_int_eq(check_text("/* CTF 1.8 */ trace { major = 1; /* open", &err), -22);
	ck_assert_ptr_nonnull(strstr(err, "comment opened at line 1 never closes"));
	free(err);
	ck_assert_int_eq(check_text("/* CTF 1.8 */ env { a = \"x; };", &err), -22);
	ck_assert_ptr_nonnull(strstr(err, "string opened at line 1"));
	free(err);
	ck_assert_int_eq(check_text("/* CTF 1.8 */ trace { major = 1; ]", &err), -22);
	ck_assert_ptr_nonnull(strstr(err, "']' closes the '{' opened at line 1"));
	free(err);
	ck_assert_int_eq(check_text("not metadata at all", &err), -22);
	ck_assert_ptr_nonnull(strstr(err, "not CTF metadata"));
	free(err);
	free(b);
	free(t);
}
END_TEST

START_TEST(a_damaged_packet_header_is_refused)
{
	size_t len;
	unsigned char *b = slurp(GOLDEN "/metadata", &len);
	char *err = NULL;

	b[4096 + 5] ^= 0xff; /* the second packet's UUID */
	ck_assert_int_eq(corecap_ctf_check_metadata(b, len, &refuse, &err), -22);
	ck_assert_ptr_nonnull(strstr(err, "another trace's UUID"));
	free(err);
	b[4096 + 5] ^= 0xff;
	b[32] = 1; /* compressed */
	ck_assert_int_eq(corecap_ctf_check_metadata(b, len, &refuse, &err), -22);
	ck_assert_ptr_nonnull(strstr(err, "compression 1"));
	free(err);
	b[32] = 0;
	memset(b + 28, 0, 4); /* packet size 0: would never advance */
	ck_assert_int_eq(corecap_ctf_check_metadata(b, len, &refuse, &err), -22);
	ck_assert_ptr_nonnull(strstr(err, "inconsistent sizes"));
	free(err);
	free(b);
}
END_TEST

START_TEST(sequences_and_variants_in_an_event_context_are_found)
{
	const char *i8 = "integer { size = 8; align = 8; signed = 0; }";
	struct ctf_check_opts allow = {.refuse_context_sequence = false};
	char *t, *add, *err = NULL;

	ck_assert_int_ge(asprintf(&add, "\tcontext := struct { %s _n; %s _s[_n]; };\n", i8, i8), 0);
	t = with_hold_context(add);
	ck_assert_int_eq(check_text(t, &err), -22);
	ck_assert_ptr_nonnull(
		strstr(err, "the context of event 'corecap_lock:hold' holds a sequence"));
	free(err);
	/* A newer libbabeltrace2 reads it: then it passes. */
	ck_assert_int_eq(corecap_ctf_check_metadata((unsigned char *)t, strlen(t), &allow, &err),
			 0);
	free(t);
	free(add);

	/* A fixed-length array is no sequence. */
	ck_assert_int_ge(asprintf(&add, "\tcontext := struct { %s _a[4]; };\n", i8), 0);
	t = with_hold_context(add);
	ck_assert_int_eq(check_text(t, &err), 0);
	free(t);
	free(add);

	ck_assert_int_ge(asprintf(&add,
				  "\tcontext := struct { enum : %s { \"a\" = 0, \"b\" = 1 } _t; "
				  "variant <_t> { %s a; %s b; } _v; };\n",
				  i8, i8, i8),
			 0);
	t = with_hold_context(add);
	ck_assert_int_eq(check_text(t, &err), -22);
	ck_assert_ptr_nonnull(strstr(err, "holds a variant"));
	free(err);
	free(t);
	free(add);
}
END_TEST

START_TEST(a_sequence_through_a_named_struct_or_typealias_is_found)
{
	const char *i8 = "integer { size = 8; align = 8; signed = 0; }";
	char *t, *g, *err = NULL;

	g = with_hold_context("\tcontext := struct dyn_s;\n");
	ck_assert_int_ge(asprintf(&t, "/* CTF 1.8 */\nstruct dyn_s { %s n; %s s[n]; };\n%s", i8, i8,
				  g + strlen("/* CTF 1.8 */")),
			 0);
	ck_assert_int_eq(check_text(t, &err), -22);
	ck_assert_ptr_nonnull(strstr(err, "holds a sequence"));
	free(err);
	free(t);
	free(g);

	g = with_hold_context("\tcontext := dyn_t;\n");
	ck_assert_int_ge(
		asprintf(&t, "/* CTF 1.8 */\ntypealias struct { %s n; %s s[n]; } := dyn_t;\n%s", i8,
			 i8, g + strlen("/* CTF 1.8 */")),
		0);
	ck_assert_int_eq(check_text(t, &err), -22);
	free(err);
	free(t);
	free(g);

	/* A payload (`fields`) may hold sequences: the golden one does. */
	t = golden_text();
	ck_assert_ptr_nonnull(strstr(t, "_stack[ __stack_length ]"));
	ck_assert_int_eq(check_text(t, &err), 0);
	free(t);
}
END_TEST

START_TEST(the_golden_trace_has_every_indexed_packet)
{
	struct ctf_check c = {0};
	char *err = NULL;

	ck_assert_int_eq(corecap_ctf_check_trace(GOLDEN, &c, &err), 0);
	ck_assert_uint_eq(c.index_packets, 2);
	ck_assert_uint_eq(c.missing_packets, 0);
	ck_assert_uint_eq(c.streams_cut, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ctf_check");
	TCase *tc = tcase_create("ctf_check");

	tcase_add_test(tc, the_golden_metadata_passes_packetized_and_as_text);
	tcase_add_test(tc, metadata_cut_inside_a_packet_or_its_text_is_refused);
	tcase_add_test(tc, a_damaged_packet_header_is_refused);
	tcase_add_test(tc, sequences_and_variants_in_an_event_context_are_found);
	tcase_add_test(tc, a_sequence_through_a_named_struct_or_typealias_is_found);
	tcase_add_test(tc, the_golden_trace_has_every_indexed_packet);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
