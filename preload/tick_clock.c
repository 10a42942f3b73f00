#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "tick_clock.h"

uint64_t tick_mult;

#if defined(__x86_64__)
/* CPUID 0x80000007 EDX bit 8: the TSC runs at a constant rate in every state. */
static int invariant_tsc(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return 0;
	__get_cpuid(0x80000007, &a, &b, &c, &d);
	return (d >> 8) & 1;
}

/* The kernel trusts the TSC (synchronized across CPUs) only if it uses it. */
static int kernel_uses_tsc(void)
{
	char buf[32] = "";
	long fd = syscall(SYS_openat, AT_FDCWD,
			  "/sys/devices/system/clocksource/clocksource0/current_clocksource",
			  O_RDONLY | O_CLOEXEC);
	long n;

	if (fd < 0)
		return 0;
	n = syscall(SYS_read, fd, buf, sizeof(buf) - 1);
	syscall(SYS_close, fd);
	return n >= 3 && strncmp(buf, "tsc", 3) == 0 && (buf[3] == '\n' || buf[3] == '\0');
}

/* A (tsc, ns) pair read close together: retried if a preemption split it. */
static void pair(uint64_t *tsc, uint64_t *ns)
{
	for (int i = 0; i < 100; i++) {
		uint64_t a = __rdtsc(), n = now_ns(), b = __rdtsc();

		*tsc = a + (b - a) / 2;
		*ns = n;
		if (b - a < 2000)
			break;
	}
}

int tick_clock_init(void)
{
	uint64_t c0, n0, c1, n1;

	if (tick_mult)
		return 1;
	if (!invariant_tsc() || !kernel_uses_tsc())
		return 0;
	pair(&c0, &n0);
	do
		pair(&c1, &n1);
	while (n1 - n0 < 1000000);
	if (c1 <= c0)
		return 0;
	tick_mult = (uint64_t)(((unsigned __int128)(n1 - n0) << 32) / (c1 - c0));
	return 1;
}
#else
int tick_clock_init(void)
{
	return 0;
}
#endif
