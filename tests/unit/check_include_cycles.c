/* scripts/include-cycles: finds the known cycles of a fixture, none in this tree. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check_run.h"

#define SCRIPT	CORECAP_SRC "/scripts/include-cycles"
#define FIXTURE CORECAP_SRC "/tests/data/include_cycles"

static char out[16384];

/* Runs the script with `args`; its stdout and stderr in out[]; its exit status. */
static int run(const char *args)
{
	char cmd[1024];
	size_t n = 0, got;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "python3 '%s' %s 2>&1", SCRIPT, args);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (n < sizeof(out) - 1 && (got = fread(out + n, 1, sizeof(out) - 1 - n, p)) > 0)
		n += got;
	out[n] = '\0';
	st = pclose(p);
	ck_assert_msg(WIFEXITED(st), "include-cycles did not exit: %s", out);
	return WEXITSTATUS(st);
}

static void assert_says(const char *what)
{
	ck_assert_msg(strstr(out, what), "the output does not say '%s':\n%s", what, out);
}

START_TEST(the_fixtures_module_cycle_is_named)
{
	ck_assert_int_eq(run("'" FIXTURE "'"), 1);
	assert_says("cycle: a -> b -> a\n");
	assert_says("a.c:2: #include \"b.h\"\n");
	assert_says("b.c:2: #include \"a.h\"\n");
	assert_says("1 cycle(s) among 5 modules");
	/* Without its include path, lib/x.h's <fix/y.h> is a system header. */
	ck_assert_ptr_null(strstr(out, "lib/x"));
}
END_TEST

START_TEST(a_header_cycle_through_the_include_path_is_named)
{
	ck_assert_int_eq(run("-I '" FIXTURE "/lib' -I '" FIXTURE "/include' '" FIXTURE "'"), 1);
	assert_says("cycle: a -> b -> a\n");
	assert_says("cycle: include/fix/y -> lib/x -> include/fix/y\n");
	assert_says("include/fix/y.h:1: #include \"x.h\"\n");
	assert_says("lib/x.h:1: #include <fix/y.h>\n");
	assert_says("2 cycle(s) among 5 modules");
	ck_assert_ptr_null(strstr(out, "cycle: c"));
}
END_TEST

START_TEST(this_tree_has_no_cycle)
{
	int st = run("--build '" CORECAP_BUILD "' '" CORECAP_SRC "'");

	ck_assert_msg(st == 0, "include-cycles exited %d:\n%s", st, out);
	assert_says("include-cycles: no cycle among");
}
END_TEST

/* The layers docs/architecture.md draws: the analysis' rooms, lowest
 * first, and the components (collector and analysis are peers; the
 * benchmarks and the command line above them). */
#define LAYERS                                                                                     \
	"--layers analysis/util,analysis/model,analysis/read,analysis/render,analysis/pass "       \
	"--layers common,tracepoints,preload,collector+analysis,bench+cli"

START_TEST(an_include_against_the_layers_is_named)
{
	/* lib/x.h includes <fix/y.h>: upward when lib is below include. */
	ck_assert_int_eq(run("-I '" FIXTURE "/lib' -I '" FIXTURE "/include' --layers lib,include '" FIXTURE "'"), 1);
	assert_says("layer: lib/x -> include/fix/y\n");
	assert_says("lib/x.h:1: #include <fix/y.h>\n");
	assert_says("include-cycles: 1 include(s) against the layers");
	/* The other way round, that include goes downward and y.h's "x.h" up. */
	ck_assert_int_eq(run("-I '" FIXTURE "/lib' -I '" FIXTURE "/include' --layers include,lib '" FIXTURE "'"), 1);
	assert_says("layer: include/fix/y -> lib/x\n");
	ck_assert_ptr_null(strstr(out, "layer: lib/x"));
	/* Peers on one level may not include each other. */
	ck_assert_int_eq(run("-I '" FIXTURE "/lib' -I '" FIXTURE "/include' --layers lib+include '" FIXTURE "'"), 1);
	assert_says("layer: lib/x -> include/fix/y\n");
}
END_TEST

/* The collector's rooms (docs/architecture.md), lowest first: util/ under
 * its sources, its commands on top. */
#define COLLECTOR_LAYERS                                                                           \
	"--layers collector/util,"                                                                 \
	"collector/kernel+collector/sources+collector/workload+collector/hosts,"                   \
	"collector/record+collector/verify+collector/scale"

START_TEST(this_tree_keeps_its_layers)
{
	int st = run("--build '" CORECAP_BUILD "' " LAYERS " " COLLECTOR_LAYERS " '" CORECAP_SRC "'");

	ck_assert_msg(st == 0, "include-cycles exited %d:\n%s", st, out);
	ck_assert_ptr_null(strstr(out, "layer:"));
}
END_TEST

START_TEST(a_build_without_compile_commands_is_an_error)
{
	ck_assert_int_eq(run("--build '" FIXTURE "' '" FIXTURE "'"), 2);
	assert_says("cannot open '" FIXTURE "/compile_commands.json'");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("include_cycles");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, the_fixtures_module_cycle_is_named);
	tcase_add_test(tc, a_header_cycle_through_the_include_path_is_named);
	tcase_add_test(tc, this_tree_has_no_cycle);
	tcase_add_test(tc, an_include_against_the_layers_is_named);
	tcase_add_test(tc, this_tree_keeps_its_layers);
	tcase_add_test(tc, a_build_without_compile_commands_is_an_error);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
