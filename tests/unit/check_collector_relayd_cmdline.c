/*
 * collector/hosts/relayd_cmdline.c: a running lttng-relayd's command line
 * and environment decide whether corecap reuses it, where it streams to
 * and which directory it takes traces from, so they are read strictly.
 * Plain command lines give their ports (the defaults without -C/-D/-L),
 * addresses and output; hostile ones are refused with the reason: no NUL
 * at the end, bytes that are not printable, too many or too long words,
 * another program, unknown options, grouped short options, a configuration
 * file, the by-session layout, URLs that are not tcp://IPV4:PORT, ports
 * with signs, leading zeros, six digits or above 65535, two ports the
 * same, relative or dotted output paths; the environment's LTTNG_HOME
 * before HOME, each checked as -o is.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hosts/relayd_cmdline.h"

#include "check_run.h"

/* The words of a command line as /proc/PID/cmdline has them: each ended by a NUL. */
static size_t words(char *buf, size_t size, const char *const w[])
{
	size_t n = 0;

	for (size_t i = 0; w[i]; i++) {
		size_t l = strlen(w[i]) + 1;

		ck_assert_uint_le(n + l, size);
		memcpy(buf + n, w[i], l);
		n += l;
	}
	return n;
}

static int parse(struct corecap_relayd_cmdline *c, const char *const w[])
{
	char buf[CORECAP_RELAYD_CMDLINE_MAX];

	return corecap_relayd_cmdline_parse(c, buf, words(buf, sizeof(buf), w));
}

/* The command line is refused, its reason holding needle. */
static void refused(const char *const w[], const char *needle)
{
	struct corecap_relayd_cmdline c;

	ck_assert_int_eq(parse(&c, w), -EINVAL);
	ck_assert_msg(strstr(c.error, needle), "'%s' does not say '%s'", c.error, needle);
}

START_TEST(test_defaults)
{
	struct corecap_relayd_cmdline c;
	const char *const w[] = {"lttng-relayd", "-d", NULL};

	ck_assert_int_eq(parse(&c, w), 0);
	ck_assert_uint_eq(c.ctrl_port, 5342);
	ck_assert_uint_eq(c.data_port, 5343);
	ck_assert_uint_eq(c.live_port, 5344);
	ck_assert_str_eq(c.ctrl_addr, "0.0.0.0");
	ck_assert_str_eq(c.output, "");
}
END_TEST

START_TEST(test_every_form)
{
	struct corecap_relayd_cmdline c;
	const char *const w[] = {"/usr/bin/lttng-relayd",
				 "-b",
				 "-vvv",
				 "--verbose",
				 "-C",
				 "tcp://127.0.0.1:6000",
				 "-Dtcp://127.0.0.1:6001",
				 "--live-port=tcp://127.0.0.1:6002",
				 "--output",
				 "/var/lib/traces",
				 "-g",
				 "tracing",
				 "--fd-pool-size=100",
				 "-x",
				 "--group-output-by-host",
				 "-w",
				 "/",
				 NULL};

	ck_assert_int_eq(parse(&c, w), 0);
	ck_assert_uint_eq(c.ctrl_port, 6000);
	ck_assert_uint_eq(c.data_port, 6001);
	ck_assert_uint_eq(c.live_port, 6002);
	ck_assert_str_eq(c.ctrl_addr, "127.0.0.1");
	ck_assert_str_eq(c.data_addr, "127.0.0.1");
	ck_assert_str_eq(c.output, "/var/lib/traces");
	{
		const char *const o[] = {"lttng-relayd", "-o/srv/t", "--control-port",
					 "tcp://0.0.0.0:7000", NULL};

		ck_assert_int_eq(parse(&c, o), 0);
		ck_assert_str_eq(c.output, "/srv/t");
		ck_assert_uint_eq(c.ctrl_port, 7000);
	}
}
END_TEST

START_TEST(test_hostile_bytes)
{
	struct corecap_relayd_cmdline c;
	char buf[CORECAP_RELAYD_CMDLINE_MAX + 16];
	static const char no_nul[] = {'l', 't', 't', 'n', 'g', '-', 'r', 'e', 'l', 'a', 'y', 'd'};
	static const char ctl[] = "lttng-relayd\0-o\0/tmp/a\nb";

	ck_assert_int_eq(corecap_relayd_cmdline_parse(&c, no_nul, sizeof(no_nul)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(c.error, "not ended"));
	ck_assert_int_eq(corecap_relayd_cmdline_parse(&c, "", 0), -EINVAL);
	ck_assert_int_eq(corecap_relayd_cmdline_parse(&c, ctl, sizeof(ctl)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(c.error, "not printable"));
	/* Over the bound, even NUL-ended. */
	memset(buf, 'a', sizeof(buf));
	buf[sizeof(buf) - 1] = '\0';
	ck_assert_int_eq(corecap_relayd_cmdline_parse(&c, buf, sizeof(buf)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(c.error, "over 8192 bytes"));
	/* A word as long as a path may be. */
	memcpy(buf, "lttng-relayd", 13);
	memset(buf + 13, 'x', 2000);
	buf[2013] = '\0';
	ck_assert_int_eq(corecap_relayd_cmdline_parse(&c, buf, 2014), -EINVAL);
	ck_assert_ptr_nonnull(strstr(c.error, "a word of 2000 bytes"));
	/* Too many words. */
	{
		size_t n = 0;

		memcpy(buf, "lttng-relayd", 13);
		n = 13;
		for (int i = 0; i < 100; i++) {
			memcpy(buf + n, "-b", 3);
			n += 3;
		}
		ck_assert_int_eq(corecap_relayd_cmdline_parse(&c, buf, n), -EINVAL);
		ck_assert_ptr_nonnull(strstr(c.error, "words"));
	}
}
END_TEST

START_TEST(test_hostile_options)
{
	const char *const other[] = {"/usr/bin/nc", "-l", "5342", NULL};
	const char *const disguised[] = {"lttng-relayd-x", NULL};
	const char *const unknown[] = {"lttng-relayd", "--evil", NULL};
	const char *const grouped[] = {"lttng-relayd", "-bd", NULL};
	const char *const config[] = {"lttng-relayd", "-f", "/etc/x.conf", NULL};
	const char *const config_long[] = {"lttng-relayd", "--config=/etc/x.conf", NULL};
	const char *const by_session[] = {"lttng-relayd", "--group-output-by-session", NULL};
	const char *const by_session_s[] = {"lttng-relayd", "-s", NULL};
	const char *const flag_value[] = {"lttng-relayd", "--daemonize=yes", NULL};
	const char *const no_value[] = {"lttng-relayd", "-C", NULL};
	const char *const dashdash[] = {"lttng-relayd", "--", "-o", "/x", NULL};
	const char *const stray[] = {"lttng-relayd", "stray", NULL};

	refused(other, "is not lttng-relayd");
	refused(disguised, "is not lttng-relayd");
	refused(unknown, "does not know, '--evil'");
	refused(grouped, "grouped short options");
	refused(config, "configuration file");
	refused(config_long, "configuration file");
	refused(by_session, "laid out by session");
	refused(by_session_s, "laid out by session");
	refused(flag_value, "takes no value");
	refused(no_value, "without its value");
	refused(dashdash, "'--'");
	refused(stray, "unexpected word 'stray'");
}
END_TEST

START_TEST(test_hostile_urls)
{
	static const char *const bad[] = {
		"tcp://127.0.0.1:0",	 "tcp://127.0.0.1:65536",  "tcp://127.0.0.1:+5342",
		"tcp://127.0.0.1:05342", "tcp://127.0.0.1:100000", "tcp://127.0.0.1:",
		"tcp://:5342",		 "tcp://localhost:5342",   "tcp6://[::1]:5342",
		"net://127.0.0.1:5342",	 "tcp://127.0.0.1:53 42",  "tcp://1.2.3.4.5:5342",
		"tcp://127.0.0.1:5342x", "udp://127.0.0.1:5342",   "tcp://999.0.0.1:5342"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *const w[] = {"lttng-relayd", "-C", bad[i], NULL};

		refused(w, "tcp://IPV4:PORT");
	}
	{
		const char *const same[] = {"lttng-relayd", "-C", "tcp://0.0.0.0:5343", NULL};

		refused(same, "two of its ports are the same");
	}
}
END_TEST

START_TEST(test_hostile_output)
{
	static const char *const bad[] = {"relative/dir", "/a/../etc", "/a/./b", "/a//b",
					  "/a/",	  "/..",       "",	 "/"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *const w[] = {"lttng-relayd", "-o", bad[i], NULL};

		refused(w, "absolute path of plain parts");
	}
}
END_TEST

/* An environment's bytes: each variable ended by a NUL. */
static int env(struct corecap_relayd_cmdline *c, const char *const v[])
{
	char buf[4096];

	return corecap_relayd_cmdline_env(c, buf, words(buf, sizeof(buf), v));
}

START_TEST(test_environment)
{
	struct corecap_relayd_cmdline c;
	const char *const w[] = {"lttng-relayd", NULL};
	const char *const with_o[] = {"lttng-relayd", "-o", "/srv/t", NULL};
	const char *const both[] = {"PATH=/bin", "HOME=/root", "LTTNG_HOME=/var/lttng", "X=\x1b[0m",
				    NULL};
	const char *const home[] = {"HOME=/root", NULL};
	const char *const none[] = {"PATH=/bin", NULL};
	const char *const dotted[] = {"HOME=/root/../etc", NULL};
	static const char unended[] = {'H', 'O', 'M', 'E', '=', '/'};

	ck_assert_int_eq(parse(&c, w), 0);
	ck_assert_int_eq(env(&c, both), 0);
	ck_assert_str_eq(c.output, "/var/lttng/lttng-traces");
	ck_assert_str_eq(c.home, "/var/lttng");
	ck_assert_int_eq(parse(&c, w), 0);
	ck_assert_int_eq(env(&c, home), 0);
	ck_assert_str_eq(c.output, "/root/lttng-traces");
	/* -o wins; the home is still known (its configuration file). */
	ck_assert_int_eq(parse(&c, with_o), 0);
	ck_assert_int_eq(env(&c, home), 0);
	ck_assert_str_eq(c.output, "/srv/t");
	ck_assert_str_eq(c.home, "/root");
	ck_assert_int_eq(parse(&c, w), 0);
	ck_assert_int_eq(env(&c, none), -EINVAL);
	ck_assert_ptr_nonnull(strstr(c.error, "say where it writes"));
	ck_assert_int_eq(parse(&c, w), 0);
	ck_assert_int_eq(env(&c, dotted), -EINVAL);
	ck_assert_ptr_nonnull(strstr(c.error, "HOME is not an absolute path"));
	ck_assert_int_eq(corecap_relayd_cmdline_env(&c, unended, sizeof(unended)), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("relayd_cmdline");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_every_form);
	tcase_add_test(tc, test_hostile_bytes);
	tcase_add_test(tc, test_hostile_options);
	tcase_add_test(tc, test_hostile_urls);
	tcase_add_test(tc, test_hostile_output);
	tcase_add_test(tc, test_environment);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
