/*
 * delay: CORECAP_DELAY sites resolve from each form the exit summary
 * prints (hex, symbol+0xOFF, module+0xOFF), an unknown site disables the
 * delay with one warning, and the busy wait lasts at least its time.
 * The runtime control: a control written whole is applied, a
 * half-written one (odd seq) is not, a dead owner's or an expired
 * lease's delay is refused or dropped, and clearing it brings back the
 * CORECAP_DELAY one.
 */
#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "delay.h"

#include "check_run.h"

struct settings g_settings;

/* Exported (ENABLE_EXPORTS), so dlsym finds it as a symbol would be found. */
__attribute__((noinline)) int delay_test_function(int x)
{
	return x * 3;
}

START_TEST(hex_addresses_resolve_to_themselves)
{
	uint64_t a;

	ck_assert_int_eq(delay_resolve_site("0x7f0012345678", &a), 0);
	ck_assert_uint_eq(a, 0x7f0012345678);
	ck_assert_int_eq(delay_resolve_site("0x", &a), -EINVAL);
	ck_assert_int_eq(delay_resolve_site("0x12zz", &a), -EINVAL);
}
END_TEST

START_TEST(symbols_resolve_with_their_offset)
{
	uint64_t fn = (uint64_t)(uintptr_t)&delay_test_function, a;

	ck_assert_int_eq(delay_resolve_site("delay_test_function", &a), 0);
	ck_assert_uint_eq(a, fn);
	ck_assert_int_eq(delay_resolve_site("delay_test_function+0x1c", &a), 0);
	ck_assert_uint_eq(a, fn + 0x1c);
	ck_assert_int_eq(delay_resolve_site("delay_test_function+28", &a), -EINVAL);
	ck_assert_int_eq(delay_resolve_site("no_such_symbol_anywhere+0x4", &a), -ENOENT);
}
END_TEST

START_TEST(modules_resolve_from_their_start_like_dladdr)
{
	uint64_t fn = (uint64_t)(uintptr_t)&delay_test_function, a;
	char spec[256];
	Dl_info info;

	ck_assert(dladdr((void *)(uintptr_t)fn, &info));
	snprintf(spec, sizeof(spec), "%s+0x%llx",
		 strrchr(info.dli_fname, '/') ? strrchr(info.dli_fname, '/') + 1 : info.dli_fname,
		 (unsigned long long)(fn - (uint64_t)(uintptr_t)info.dli_fbase));
	ck_assert_int_eq(delay_resolve_site(spec, &a), 0);
	ck_assert_uint_eq(a, fn);
	snprintf(spec, sizeof(spec), "libc.so.6+0x10");
	ck_assert_int_eq(delay_resolve_site(spec, &a), 0);
}
END_TEST

START_TEST(an_unresolvable_site_disables_the_delay)
{
	struct settings s;
	struct delay d;

	settings_init(&s);
	snprintf(s.delay_site, sizeof(s.delay_site), "nowhere+0x10");
	s.delay_ns = 1000;
	ck_assert_int_lt(delay_init(&d, &s), 0);
	ck_assert_uint_eq(d.site, 0);
	ck_assert_uint_eq(d.ns, 0);
	snprintf(s.delay_site, sizeof(s.delay_site), "delay_test_function+0x4");
	ck_assert_int_eq(delay_init(&d, &s), 0);
	ck_assert_uint_eq(d.site, (uint64_t)(uintptr_t)&delay_test_function + 4);
	ck_assert_uint_eq(d.ns, 1000);
}
END_TEST

START_TEST(the_busy_wait_lasts_its_time)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	delay_busy(2000000);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ck_assert_int_ge((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec), 2000000);
}
END_TEST

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A delay with no CORECAP_DELAY, attached to ctl, extra flag base 0. */
static void control_setup(struct delay *d, struct corecap_stats_control *ctl, int *extra)
{
	struct settings s;

	settings_init(&s);
	memset(ctl, 0, sizeof(*ctl));
	ck_assert_int_eq(delay_init(d, &s), 0);
	*extra = 0;
	delay_attach_control(d, ctl, extra, 0);
}

START_TEST(a_whole_control_is_applied_and_cleared)
{
	struct corecap_stats_control ctl;
	struct delay d;
	int extra;
	uint64_t now = mono_ns();

	control_setup(&d, &ctl, &extra);
	delay_poll(&d);
	ck_assert_uint_eq(delay_site(&d), 0);
	ck_assert_int_eq(
		corecap_stats_control_write(&ctl, 0x1234, 5000, getpid(), now + 1000000000u), 0);
	delay_poll(&d);
	ck_assert_uint_eq(delay_site(&d), 0x1234);
	ck_assert_uint_eq(d.ns, 5000);
	ck_assert_int_eq(extra, 1);
	ck_assert_uint_eq(ctl.active_site, 0x1234);
	ck_assert_uint_eq(ctl.active_ns, 5000);
	ck_assert_uint_eq(ctl.applied_seq, ctl.seq);
	ck_assert_int_eq(corecap_stats_control_write(&ctl, 0, 0, getpid(), 0), 0);
	delay_poll(&d);
	ck_assert_uint_eq(delay_site(&d), 0);
	ck_assert_int_eq(extra, 0);
	ck_assert_uint_eq(ctl.active_site, 0);
}
END_TEST

START_TEST(a_half_written_control_is_ignored)
{
	struct corecap_stats_control ctl;
	struct delay d;
	int extra;
	uint64_t now = mono_ns();

	control_setup(&d, &ctl, &extra);
	/* A writer stopped between its two seq stores: fields new, seq odd. */
	ctl.seq = 1;
	ctl.site = 0x4242;
	ctl.delay_ns = 1000;
	ctl.owner_pid = getpid();
	ctl.lease_end_ns = now + 1000000000u;
	delay_poll(&d);
	ck_assert_uint_eq(delay_site(&d), 0);
	ck_assert_int_eq(extra, 0);
	ck_assert_uint_eq(ctl.applied_seq, 0);
	/* A second writer cannot start meanwhile. */
	ck_assert_int_eq(corecap_stats_control_write(&ctl, 0x99, 1, getpid(), now + 1000000000u),
			 -EBUSY);
	ck_assert_uint_eq(ctl.site, 0x4242);
	/* The write completes: taken at the next poll. */
	__atomic_store_n(&ctl.seq, 2, __ATOMIC_RELEASE);
	delay_poll(&d);
	ck_assert_uint_eq(delay_site(&d), 0x4242);
	ck_assert_uint_eq(d.ns, 1000);
}
END_TEST

/* A pid that existed and is gone (a reaped child). */
static pid_t dead_pid(void)
{
	pid_t p = fork();

	ck_assert_int_ge(p, 0);
	if (p == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(p, NULL, 0), p);
	return p;
}

START_TEST(a_dead_owners_delay_is_refused_or_dropped)
{
	struct corecap_stats_control ctl;
	struct delay d;
	int extra;
	uint64_t now = mono_ns();
	pid_t owner;

	control_setup(&d, &ctl, &extra);
	/* Dead on arrival: refused. */
	ck_assert_int_eq(
		corecap_stats_control_write(&ctl, 0x10, 100, dead_pid(), now + 1000000000u), 0);
	delay_poll(&d);
	ck_assert_uint_eq(delay_site(&d), 0);
	ck_assert_uint_eq(ctl.refused, 1);
	/* Alive when applied, then gone: dropped at the next check. */
	owner = fork();
	ck_assert_int_ge(owner, 0);
	if (owner == 0) {
		pause();
		_exit(0);
	}
	ck_assert_int_eq(corecap_stats_control_write(&ctl, 0x10, 100, owner, now + 60000000000u),
			 0);
	delay_poll(&d);
	ck_assert_uint_eq(delay_site(&d), 0x10);
	delay_check(&d, mono_ns() + 2 * DELAY_CHECK_NS);
	ck_assert_uint_eq(delay_site(&d), 0x10); /* still alive: kept */
	kill(owner, SIGKILL);
	ck_assert_int_eq(waitpid(owner, NULL, 0), owner);
	delay_check(&d, mono_ns()); /* checked just now: not yet */
	ck_assert_uint_eq(delay_site(&d), 0x10);
	delay_check(&d, mono_ns() + 4 * DELAY_CHECK_NS);
	ck_assert_uint_eq(delay_site(&d), 0);
	ck_assert_int_eq(extra, 0);
	ck_assert_uint_eq(ctl.dropped, 1);
	ck_assert_uint_eq(ctl.active_site, 0);
}
END_TEST

START_TEST(an_expired_lease_drops_the_delay_and_env_delay_returns)
{
	struct corecap_stats_control ctl;
	struct settings s;
	struct delay d;
	int extra = 1;
	uint64_t now = mono_ns(), lease;

	settings_init(&s);
	snprintf(s.delay_site, sizeof(s.delay_site), "0x777");
	s.delay_ns = 33;
	memset(&ctl, 0, sizeof(ctl));
	ck_assert_int_eq(delay_init(&d, &s), 0);
	delay_attach_control(&d, &ctl, &extra, 1);
	ck_assert_uint_eq(delay_site(&d), 0x777);
	/* Over the limit per acquisition: refused. */
	ck_assert_int_eq(corecap_stats_control_write(&ctl, 0x20, CORECAP_STATS_CONTROL_MAX_NS + 1,
						     getpid(), now + 1000000000u),
			 0);
	delay_poll(&d);
	ck_assert_uint_eq(delay_site(&d), 0x777);
	ck_assert_uint_eq(ctl.refused, 1);
	/* A lease long enough that a slow (sanitized, loaded) run still applies it
	 * before it ends. A check just before its end keeps it; the next check,
	 * one period later, is past the end and drops it. */
	lease = mono_ns() + 10000000000u;
	ck_assert_int_eq(corecap_stats_control_write(&ctl, 0x20, 50, getpid(), lease), 0);
	delay_poll(&d);
	ck_assert_uint_eq(delay_site(&d), 0x20);
	ck_assert_uint_eq(d.ns, 50);
	delay_check(&d, lease - 1);
	ck_assert_uint_eq(delay_site(&d), 0x20); /* before its end: kept */
	delay_check(&d, lease - 1 + DELAY_CHECK_NS);
	ck_assert_uint_eq(delay_site(&d), 0x777);
	ck_assert_uint_eq(d.ns, 33);
	ck_assert_int_eq(extra, 1);
	ck_assert_uint_eq(ctl.dropped, 1);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("delay");
	TCase *tc = tcase_create("sites");

	tcase_add_test(tc, hex_addresses_resolve_to_themselves);
	tcase_add_test(tc, symbols_resolve_with_their_offset);
	tcase_add_test(tc, modules_resolve_from_their_start_like_dladdr);
	tcase_add_test(tc, an_unresolvable_site_disables_the_delay);
	tcase_add_test(tc, the_busy_wait_lasts_its_time);
	suite_add_tcase(s, tc);
	tc = tcase_create("control");
	tcase_add_test(tc, a_whole_control_is_applied_and_cleared);
	tcase_add_test(tc, a_half_written_control_is_ignored);
	tcase_add_test(tc, a_dead_owners_delay_is_refused_or_dropped);
	tcase_add_test(tc, an_expired_lease_drops_the_delay_and_env_delay_returns);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return corecap_check_run(suite());
}
