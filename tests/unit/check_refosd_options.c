/*
 * refosd and refbench options: documented defaults, every option parsed,
 * every bad one refused with a reason.
 */
#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "bench_options.h"
#include "options.h"

#include "check_run.h"

#define MAX_ARGS 32

/* Parse a NULL-terminated argument list (argv[0] included) into o; err gets the reason. */
static int osd_parse(struct osd_options *o, char *err, size_t errlen, ...)
{
	char *argv[MAX_ARGS + 1];
	int argc = 0;
	va_list ap;

	va_start(ap, errlen);
	while (argc < MAX_ARGS && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	osd_options_init(o);
	err[0] = '\0';
	return osd_options_parse(o, argc, argv, err, errlen);
}

static int bench_parse(struct bench_options *o, char *err, size_t errlen, ...)
{
	char *argv[MAX_ARGS + 1];
	int argc = 0;
	va_list ap;

	va_start(ap, errlen);
	while (argc < MAX_ARGS && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	bench_options_init(o);
	err[0] = '\0';
	return bench_options_parse(o, argc, argv, err, errlen);
}

START_TEST(osd_defaults_are_a_small_osd)
{
	struct osd_options o;
	char err[256];

	ck_assert_int_eq(osd_parse(&o, err, sizeof(err), "refosd", NULL), 0);
	ck_assert_uint_eq(o.port, 0);
	ck_assert_ptr_null(o.pidfile);
	ck_assert_uint_eq(o.msgr_threads, 3);
	ck_assert_uint_eq(o.shards, 5);
	ck_assert_uint_eq(o.threads_per_shard, 2);
	ck_assert_uint_eq(o.pgs, 32);
	ck_assert_ptr_null(o.store_dir);
	ck_assert(!o.fsync);
	ck_assert_uint_eq(o.debug, 1);
	ck_assert_ptr_null(o.log_file);
	ck_assert(!o.big_lock);
	ck_assert_uint_eq(o.op_cpu_us, 0);
	ck_assert(!o.help);
}
END_TEST

START_TEST(osd_every_option_is_parsed)
{
	struct osd_options o;
	char err[256];

	ck_assert_int_eq(osd_parse(&o, err, sizeof(err), "refosd", "--port", "6800", "--pidfile",
				   "/tmp/p", "--msgr-threads", "1", "--shards", "8",
				   "--threads-per-shard", "3", "--pgs", "128", "--store",
				   "dir:/tmp/s", "--fsync", "--debug", "20", NULL),
			 0);
	ck_assert_str_eq(err, "");
	ck_assert_uint_eq(o.port, 6800);
	ck_assert_str_eq(o.pidfile, "/tmp/p");
	ck_assert_uint_eq(o.msgr_threads, 1);
	ck_assert_uint_eq(o.shards, 8);
	ck_assert_uint_eq(o.threads_per_shard, 3);
	ck_assert_uint_eq(o.pgs, 128);
	ck_assert_str_eq(o.store_dir, "/tmp/s");
	ck_assert(o.fsync);
	ck_assert_uint_eq(o.debug, 20);
	ck_assert_int_eq(osd_parse(&o, err, sizeof(err), "refosd", "--log-file=/tmp/l",
				   "--big-lock", "--op-cpu-us", "50", "--store", "mem", NULL),
			 0);
	ck_assert_str_eq(o.log_file, "/tmp/l");
	ck_assert(o.big_lock);
	ck_assert_uint_eq(o.op_cpu_us, 50);
	ck_assert_ptr_null(o.store_dir);
	ck_assert_int_eq(osd_parse(&o, err, sizeof(err), "refosd", "--help", NULL), 0);
	ck_assert(o.help);
}
END_TEST

/* Each bad command line, and a piece of the reason it must give. */
static const struct {
	const char *args[4];
	const char *reason;
} osd_bad[] = {
	{{"--bogus"}, "unknown option '--bogus'"},
	{{"-x"}, "unknown option '-x'"},
	{{"--port"}, "option '--port' needs a value"},
	{{"--port", "abc"}, "option '--port': value 'abc' is not a number"},
	{{"--port", "65536"}, "out of range [0, 65535]"},
	{{"--port", "-1"}, "is not a number"},
	{{"--port", "12x"}, "is not a number"},
	{{"--port", ""}, "is not a number"},
	{{"--msgr-threads", "0"}, "option '--msgr-threads': value '0' is out of range [1, 64]"},
	{{"--msgr-threads", "65"}, "out of range"},
	{{"--shards", "0"}, "option '--shards'"},
	{{"--threads-per-shard", "0"}, "option '--threads-per-shard'"},
	{{"--pgs", "0"}, "option '--pgs'"},
	{{"--pgs", "99999999999999999999999"}, "out of range"},
	{{"--debug", "21"}, "option '--debug': value '21' is out of range [0, 20]"},
	{{"--debug", "high"}, "is not a number"},
	{{"--op-cpu-us", "1000001"}, "option '--op-cpu-us'"},
	{{"--store", "disk"}, "option '--store': value 'disk' is neither 'mem' nor 'dir:PATH'"},
	{{"--store", "dir:"}, "neither"},
	{{"--fsync"}, "option '--fsync' needs '--store dir:PATH'"},
	{{"--big-lock=yes"}, "option '--big-lock=yes' takes no value"},
	{{"extra"}, "unexpected argument 'extra'"},
};

START_TEST(osd_bad_option_is_refused_with_its_reason)
{
	struct osd_options o;
	char err[256];
	const char *const *a = osd_bad[_i].args;

	ck_assert_int_eq(osd_parse(&o, err, sizeof(err), "refosd", a[0], a[1], a[2], a[3], NULL),
			 -EINVAL);
	ck_assert_msg(strstr(err, osd_bad[_i].reason), "args '%s': error '%s' lacks '%s'", a[0],
		      err, osd_bad[_i].reason);
}
END_TEST

START_TEST(osd_parse_can_be_repeated)
{
	struct osd_options o;
	char err[256];

	ck_assert_int_eq(osd_parse(&o, err, sizeof(err), "refosd", "--bogus", NULL), -EINVAL);
	ck_assert_int_eq(osd_parse(&o, err, sizeof(err), "refosd", "--shards", "2", NULL), 0);
	ck_assert_uint_eq(o.shards, 2);
}
END_TEST

START_TEST(bench_defaults_are_rados_bench_ones)
{
	struct bench_options o;
	char err[256];

	ck_assert_int_eq(bench_parse(&o, err, sizeof(err), "refbench", "-p", "6800", "write", NULL),
			 0);
	ck_assert_str_eq(o.host, "127.0.0.1");
	ck_assert_uint_eq(o.port, 6800);
	ck_assert_uint_eq(o.concurrency, 16);
	ck_assert_uint_eq(o.bytes, 4u << 20);
	ck_assert_uint_eq(o.seconds, 10);
	ck_assert(o.progress);
	ck_assert_int_eq(o.mode, BENCH_WRITE);
}
END_TEST

START_TEST(bench_every_option_is_parsed)
{
	struct bench_options o;
	char err[256];

	ck_assert_int_eq(bench_parse(&o, err, sizeof(err), "refbench", "-H", "localhost", "-p", "1",
				     "-t", "8", "-b", "4K", "-d", "3", "--no-progress", "seq",
				     NULL),
			 0);
	ck_assert_str_eq(o.host, "localhost");
	ck_assert_uint_eq(o.port, 1);
	ck_assert_uint_eq(o.concurrency, 8);
	ck_assert_uint_eq(o.bytes, 4096);
	ck_assert_uint_eq(o.seconds, 3);
	ck_assert(!o.progress);
	ck_assert_int_eq(o.mode, BENCH_SEQ);
	/* Options may follow the mode, as with rados bench. */
	ck_assert_int_eq(
		bench_parse(&o, err, sizeof(err), "refbench", "rand", "-p", "2", "-b", "1M", NULL),
		0);
	ck_assert_int_eq(o.mode, BENCH_RAND);
	ck_assert_uint_eq(o.bytes, 1u << 20);
	ck_assert_str_eq(bench_mode_name(o.mode), "rand");
}
END_TEST

static const struct {
	const char *args[5];
	const char *reason;
} bench_bad[] = {
	{{"-p", "1"}, "missing mode"},
	{{"write"}, "missing -p PORT"},
	{{"-p", "1", "read"}, "unknown mode 'read'"},
	{{"-p", "1", "write", "seq"}, "unexpected argument 'seq'"},
	{{"-p", "0", "write"}, "option '-p': value '0' is out of range [1, 65535]"},
	{{"-p", "x", "write"}, "option '-p': value 'x' is not a number"},
	{{"-p", "1", "-t", "0", "write"}, "option '-t'"},
	{{"-p", "1", "-t", "1025", "write"}, "out of range [1, 1024]"},
	{{"-p", "1", "-b", "0", "write"}, "option '-b'"},
	{{"-p", "1", "-b", "65M", "write"}, "out of range"},
	{{"-p", "1", "-b", "4X", "write"}, "is not a number"},
	{{"-p", "1", "-d", "0", "write"}, "option '-d'"},
	{{"-p", "1", "-d", "1.5", "write"}, "is not a number"},
	{{"-p", "1", "-z", "write"}, "unknown option '-z'"},
	{{"-p", "1", "--bogus", "write"}, "unknown option '--bogus'"},
	{{"-p", "1", "write", "-t"}, "option '-t' needs a value"},
};

START_TEST(bench_bad_option_is_refused_with_its_reason)
{
	struct bench_options o;
	char err[256];
	const char *const *a = bench_bad[_i].args;

	ck_assert_int_eq(
		bench_parse(&o, err, sizeof(err), "refbench", a[0], a[1], a[2], a[3], a[4], NULL),
		-EINVAL);
	ck_assert_msg(strstr(err, bench_bad[_i].reason), "args '%s %s': error '%s' lacks '%s'",
		      a[0], a[1] ? a[1] : "", err, bench_bad[_i].reason);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("refosd_options");
	TCase *osd = tcase_create("refosd"), *bench = tcase_create("refbench");

	tcase_add_test(osd, osd_defaults_are_a_small_osd);
	tcase_add_test(osd, osd_every_option_is_parsed);
	tcase_add_loop_test(osd, osd_bad_option_is_refused_with_its_reason, 0,
			    sizeof(osd_bad) / sizeof(osd_bad[0]));
	tcase_add_test(osd, osd_parse_can_be_repeated);
	tcase_add_test(bench, bench_defaults_are_rados_bench_ones);
	tcase_add_test(bench, bench_every_option_is_parsed);
	tcase_add_loop_test(bench, bench_bad_option_is_refused_with_its_reason, 0,
			    sizeof(bench_bad) / sizeof(bench_bad[0]));
	suite_add_tcase(s, osd);
	suite_add_tcase(s, bench);
	return corecap_check_run(s);
}
