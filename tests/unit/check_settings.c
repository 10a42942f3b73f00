/*
 * settings: CORECAP_* variables are read strictly; each malformed one
 * gives one warning and leaves its default, and unset ones are defaults.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settings.h"

#include "check_run.h"

struct settings g_settings; /* the shim's global, unused here */

static const char *const *env;

static const char *fake_getenv(const char *name)
{
	size_t n = strlen(name);

	for (const char *const *e = env; e && *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

static int load(struct settings *s, const char *const *vars)
{
	env = vars;
	return settings_load(s, fake_getenv);
}

START_TEST(defaults_when_nothing_is_set)
{
	struct settings s;

	ck_assert_int_eq(load(&s, NULL), 0);
	ck_assert_uint_eq(s.stack_sample_every, 64);
	ck_assert_uint_eq(s.stack_depth, 32);
	ck_assert_uint_eq(s.hold_sample_every, 0);
	ck_assert_uint_eq(s.hold_time_every, 8);
	ck_assert_uint_eq(s.io_threshold_ns, UINT64_MAX);
	ck_assert(s.stats_enabled);
	ck_assert_str_eq(s.stats_dir, "/dev/shm");
	ck_assert_str_eq(s.dump_path, "-");
	ck_assert_int_eq(s.dump_signal, 0);
	ck_assert_uint_eq(s.dump_top, 20);
	ck_assert_str_eq(s.delay_site, "");
	ck_assert(!s.wake_events);
	ck_assert(!s.net_events);
	ck_assert_uint_eq(s.n_patterns, 2);
	ck_assert_str_eq(s.pattern[0], "*.log");
	ck_assert_str_eq(s.pattern[1], "/var/log/*");
	ck_assert_uint_eq(s.n_journal_patterns, 3);
	ck_assert_str_eq(s.journal_pattern[0], "*block.wal");
	ck_assert_str_eq(s.journal_pattern[1], "*block.db");
	ck_assert_str_eq(s.journal_pattern[2], "*/journal");
}
END_TEST

START_TEST(journal_patterns_are_read_like_log_ones)
{
	char long_value[600];
	const char *good[] = {"CORECAP_IO_JOURNAL=/dev/nvme0n1p*:*/wal", NULL};
	const char *bad[] = {long_value, NULL};
	struct settings s;

	ck_assert_int_eq(load(&s, good), 0);
	ck_assert_uint_eq(s.n_journal_patterns, 2);
	ck_assert_str_eq(s.journal_pattern[0], "/dev/nvme0n1p*");
	ck_assert_str_eq(s.journal_pattern[1], "*/wal");
	ck_assert_uint_eq(s.n_patterns, 2); /* the log patterns keep their defaults */
	/* Too long: one warning, the defaults. */
	snprintf(long_value, sizeof(long_value), "CORECAP_IO_JOURNAL=%0550d", 0);
	ck_assert_int_eq(load(&s, bad), 1);
	ck_assert_uint_eq(s.n_journal_patterns, 3);
	ck_assert_str_eq(s.journal_pattern[0], "*block.wal");
}
END_TEST

START_TEST(good_values_are_taken)
{
	const char *vars[] = {"CORECAP_STACK_SAMPLE=10",
			      "CORECAP_STACK_DEPTH=8",
			      "CORECAP_HOLD_SAMPLE=100",
			      "CORECAP_HOLD_TIME=1",
			      "CORECAP_IO_THRESHOLD_NS=250000",
			      "CORECAP_STATS=off",
			      "CORECAP_WAKE_EVENTS=on",
			      "CORECAP_NET_EVENTS=1",
			      "CORECAP_STATS_DIR=/tmp",
			      "CORECAP_DUMP=/tmp/dump.%p",
			      "CORECAP_DUMP_SIGNAL=SIGUSR1",
			      "CORECAP_DUMP_TOP=5",
			      "CORECAP_LOG_PATTERNS=*.journal::/srv/logs/*",
			      "CORECAP_DELAY=OSD::dequeue_op+0x43:20000",
			      NULL};
	struct settings s;

	ck_assert_int_eq(load(&s, vars), 0);
	ck_assert_uint_eq(s.stack_sample_every, 10);
	ck_assert_uint_eq(s.stack_depth, 8);
	ck_assert_uint_eq(s.hold_sample_every, 100);
	ck_assert_uint_eq(s.hold_time_every, 1);
	ck_assert_uint_eq(s.io_threshold_ns, 250000);
	ck_assert(!s.stats_enabled);
	ck_assert(s.wake_events);
	ck_assert(s.net_events);
	ck_assert_str_eq(s.stats_dir, "/tmp");
	ck_assert_str_eq(s.dump_path, "/tmp/dump.%p");
	ck_assert_int_eq(s.dump_signal, SIGUSR1);
	ck_assert_uint_eq(s.dump_top, 5);
	ck_assert_uint_eq(s.n_patterns, 2); /* the empty one between '::' is skipped */
	ck_assert_str_eq(s.pattern[0], "*.journal");
	ck_assert_str_eq(s.pattern[1], "/srv/logs/*");
	/* The site keeps its C++ colons: the split is at the last one. */
	ck_assert_str_eq(s.delay_site, "OSD::dequeue_op+0x43");
	ck_assert_uint_eq(s.delay_ns, 20000);
}
END_TEST

START_TEST(each_malformed_value_warns_once_and_keeps_the_default)
{
	const char *vars[] = {"CORECAP_STACK_SAMPLE=-1",
			      "CORECAP_STACK_DEPTH=33",
			      "CORECAP_HOLD_SAMPLE=12abc",
			      "CORECAP_HOLD_TIME=0",
			      "CORECAP_IO_THRESHOLD_NS=soon",
			      "CORECAP_STATS=maybe",
			      "CORECAP_STATS_DIR=relative/dir",
			      "CORECAP_DUMP=",
			      "CORECAP_DUMP_SIGNAL=KILL",
			      "CORECAP_DUMP_TOP=0",
			      "CORECAP_DELAY=nodelay",
			      "CORECAP_WAKE_EVENTS=yes",
			      "CORECAP_NET_EVENTS=all",
			      NULL};
	struct settings s;

	ck_assert_int_eq(load(&s, vars), 13);
	ck_assert_uint_eq(s.stack_sample_every, 64);
	ck_assert_uint_eq(s.stack_depth, 32);
	ck_assert_uint_eq(s.hold_sample_every, 0);
	ck_assert_uint_eq(s.hold_time_every, 8);
	ck_assert_uint_eq(s.io_threshold_ns, UINT64_MAX);
	ck_assert(s.stats_enabled);
	ck_assert_str_eq(s.stats_dir, "/dev/shm");
	ck_assert_str_eq(s.dump_path, "-");
	ck_assert_int_eq(s.dump_signal, 0);
	ck_assert_uint_eq(s.dump_top, 20);
	ck_assert_str_eq(s.delay_site, "");
	ck_assert_uint_eq(s.delay_ns, 0);
	ck_assert(!s.net_events);
}
END_TEST

START_TEST(delay_needs_a_site_and_positive_nanoseconds)
{
	const char *zero[] = {"CORECAP_DELAY=0x1234:0", NULL};
	const char *no_site[] = {"CORECAP_DELAY=:100", NULL};
	const char *hex[] = {"CORECAP_DELAY=0x7f0012345678:100", NULL};
	struct settings s;

	ck_assert_int_eq(load(&s, zero), 1);
	ck_assert_str_eq(s.delay_site, "");
	ck_assert_int_eq(load(&s, no_site), 1);
	ck_assert_int_eq(load(&s, hex), 0);
	ck_assert_str_eq(s.delay_site, "0x7f0012345678");
	ck_assert_uint_eq(s.delay_ns, 100);
}
END_TEST

START_TEST(strict_numbers)
{
	uint64_t v;

	ck_assert_int_eq(settings_parse_u64("42", 100, &v), 0);
	ck_assert_uint_eq(v, 42);
	ck_assert_int_lt(settings_parse_u64("", 100, &v), 0);
	ck_assert_int_lt(settings_parse_u64(" 4", 100, &v), 0);
	ck_assert_int_lt(settings_parse_u64("+4", 100, &v), 0);
	ck_assert_int_lt(settings_parse_u64("0x10", 100, &v), 0);
	ck_assert_int_lt(settings_parse_u64("101", 100, &v), 0);
	ck_assert_int_lt(settings_parse_u64("99999999999999999999999", UINT64_MAX, &v), 0);
}
END_TEST

START_TEST(signals_by_name_or_number_but_never_fatal_ones)
{
	int sig;

	ck_assert_int_eq(settings_parse_signal("USR2", &sig), 0);
	ck_assert_int_eq(sig, SIGUSR2);
	ck_assert_int_eq(settings_parse_signal("SIGHUP", &sig), 0);
	ck_assert_int_eq(sig, SIGHUP);
	ck_assert_int_eq(settings_parse_signal("40", &sig), 0);
	ck_assert_int_eq(sig, 40);
	ck_assert_int_lt(settings_parse_signal("9", &sig), 0);
	ck_assert_int_lt(settings_parse_signal("SIGSEGV", &sig), 0);
	ck_assert_int_lt(settings_parse_signal("0", &sig), 0);
	ck_assert_int_lt(settings_parse_signal("usr1", &sig), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("settings");
	TCase *tc = tcase_create("environment");

	tcase_add_test(tc, defaults_when_nothing_is_set);
	tcase_add_test(tc, good_values_are_taken);
	tcase_add_test(tc, journal_patterns_are_read_like_log_ones);
	tcase_add_test(tc, each_malformed_value_warns_once_and_keeps_the_default);
	tcase_add_test(tc, delay_needs_a_site_and_positive_nanoseconds);
	tcase_add_test(tc, strict_numbers);
	tcase_add_test(tc, signals_by_name_or_number_but_never_fatal_ones);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return corecap_check_run(suite());
}
