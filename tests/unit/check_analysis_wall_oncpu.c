/*
 * The kernel's on-CPU wall samples as the analysis reads them:
 * analysis/read/manifest.c's wallclock.sampler and counts, and
 * analysis/pass/report_quality.c's warning when 1% or more of them are
 * missing (lost in the kernel or not unwound), which a ptrace run's
 * manifest never triggers.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/lines.h"
#include "pass/report_quality.h"
#include "read/manifest.h"

#include "check_run.h"

static char path[64];
static struct run_manifest mf;
static char *err;

static void setup(void)
{
	int fd;

	strcpy(path, "/tmp/check_wall_oncpu_XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	corecap_manifest_init(&mf);
	err = NULL;
}

static void teardown(void)
{
	corecap_manifest_release(&mf);
	free(err);
	unlink(path);
}

/* A version-1 manifest with this "wallclock" object. */
static void load(const char *wallclock)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fprintf(f,
		"{\"format\": \"corecap-run\", \"version\": 1, \"status\": \"complete\","
		" \"pid\": 1234, \"comm\": \"refosd\", \"window\": {\"start_ns\": 1000,"
		" \"end_ns\": 2000000001000}, \"wallclock\": %s}",
		wallclock);
	fclose(f);
	ck_assert_int_eq(corecap_manifest_load(&mf, path, &err), 0);
}

/* The warnings corecap_wall_quality gives, joined by newlines ("" if none). */
static char *quality(void)
{
	char **lines = NULL, *all = calloc(1, 4096);
	size_t n = 0;

	ck_assert_int_eq(corecap_wall_quality(&lines, &n, &mf), 0);
	for (size_t i = 0; i < n; i++)
		snprintf(all + strlen(all), 4096 - strlen(all), "%s%s", i ? "\n" : "", lines[i]);
	corecap_lines_release(&lines, &n);
	return all;
}

START_TEST(the_kernel_sampler_is_read_with_its_counts)
{
	char *q;

	load("{\"hz\": 199, \"sampler\": \"kernel-oncpu\", \"samples\": 990,"
	     " \"taken\": 1000, \"lost\": 5, \"failed\": 10}");
	ck_assert(mf.wall_hz == 199);
	ck_assert_str_eq(mf.wall_sampler, "kernel-oncpu");
	ck_assert(mf.wall_oncpu_only);
	ck_assert_uint_eq(mf.wall_oncpu_taken, 1000);
	ck_assert_uint_eq(mf.wall_oncpu_lost, 5);
	ck_assert_uint_eq(mf.wall_oncpu_failed, 10);
	ck_assert(!mf.has_wall_due); /* no rounds: none of the ptrace warnings apply */
	q = quality();
	ck_assert_str_eq(q, "the kernel's on-CPU samples: 15 of 1005 missing (5 lost in the "
			    "kernel: no room in its ring or the stack unreadable; 10 not "
			    "unwound): the wall flame graph and the logging share rest on the "
			    "others");
	free(q);
}
END_TEST

START_TEST(under_one_percent_missing_says_nothing)
{
	char *q;

	load("{\"hz\": 199, \"sampler\": \"kernel-oncpu\", \"samples\": 995,"
	     " \"taken\": 1000, \"lost\": 4, \"failed\": 5}");
	q = quality();
	ck_assert_str_eq(q, "");
	free(q);
}
END_TEST

START_TEST(a_ptrace_run_is_not_on_cpu_only)
{
	char *q;

	load("{\"hz\": 50, \"sampler\": \"ptrace\", \"rounds\": 100, \"samples\": 100,"
	     " \"due\": 100, \"lost\": 50}");
	ck_assert_str_eq(mf.wall_sampler, "ptrace");
	ck_assert(!mf.wall_oncpu_only);
	q = quality();
	ck_assert_str_eq(q, "");
	free(q);
	/* A run from before the key: ptrace's, as it was. */
	corecap_manifest_release(&mf);
	corecap_manifest_init(&mf);
	load("{\"hz\": 50, \"rounds\": 100, \"samples\": 100, \"due\": 100}");
	ck_assert_ptr_null(mf.wall_sampler);
	ck_assert(!mf.wall_oncpu_only);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analysis_wall_oncpu");
	TCase *tc = tcase_create("wall_oncpu");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, the_kernel_sampler_is_read_with_its_counts);
	tcase_add_test(tc, under_one_percent_missing_says_nothing);
	tcase_add_test(tc, a_ptrace_run_is_not_on_cpu_only);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
