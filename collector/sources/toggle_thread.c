#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/proc_stat.h"
#include "toggle_thread.h"

/* System calls libprofiler's SIGPROF handler never makes. */
static const long quiet_calls[] = {
#ifdef SYS_epoll_wait
	SYS_epoll_wait,
#endif
#ifdef SYS_epoll_pwait
	SYS_epoll_pwait,
#endif
#ifdef SYS_epoll_pwait2
	SYS_epoll_pwait2,
#endif
#ifdef SYS_poll
	SYS_poll,
#endif
#ifdef SYS_ppoll
	SYS_ppoll,
#endif
#ifdef SYS_select
	SYS_select,
#endif
#ifdef SYS_pselect6
	SYS_pselect6,
#endif
#ifdef SYS_accept
	SYS_accept,
#endif
#ifdef SYS_accept4
	SYS_accept4,
#endif
#ifdef SYS_rt_sigtimedwait
	SYS_rt_sigtimedwait,
#endif
#ifdef SYS_wait4
	SYS_wait4,
#endif
#ifdef SYS_waitid
	SYS_waitid,
#endif
#ifdef SYS_pause
	SYS_pause,
#endif
};

/* The hex mask after "NAME:\t" in a status text, or all ones when absent. */
static unsigned long long status_mask(const char *status, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = status; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, name, n) == 0 && p[n] == ':') {
			char *end;
			unsigned long long v = strtoull(p + n + 1, &end, 16);

			return end == p + n + 1 ? ~0ull : v;
		}
	}
	return ~0ull;
}

/* Calls libprofiler's spin lock sleeps in: safe only outside the handler. */
static bool lock_call(long nr)
{
#ifdef SYS_futex
	if (nr == SYS_futex)
		return true;
#endif
#ifdef SYS_nanosleep
	if (nr == SYS_nanosleep)
		return true;
#endif
	return false;
}

enum corecap_toggle_verdict corecap_toggle_thread_judge(const char *syscall_line,
							const char *status, int sig, uint64_t *sp)
{
	unsigned long long bit, v[9];
	const char *p = syscall_line;
	char *end;
	long nr;

	if (sig < 1 || sig > 64)
		return CORECAP_TOGGLE_NO;
	bit = 1ull << (sig - 1);
	if ((status_mask(status, "SigBlk") & bit) || (status_mask(status, "SigIgn") & bit))
		return CORECAP_TOGGLE_NO;
	/* "running", or "-1 SP PC" (stopped outside a system call), or "NR ARG1..ARG6 SP PC". */
	nr = strtol(syscall_line, &end, 10);
	if (end == syscall_line || (*end != ' ' && *end != '\n' && *end != '\0'))
		return CORECAP_TOGGLE_NO;
	for (size_t i = 0; i < sizeof(quiet_calls) / sizeof(quiet_calls[0]); i++)
		if (quiet_calls[i] == nr)
			return CORECAP_TOGGLE_YES;
	if (!lock_call(nr))
		return CORECAP_TOGGLE_NO;
	for (int i = 0; i < 9; i++) {
		v[i] = strtoull(p, &end, i == 0 ? 10 : 16);
		if (end == p)
			return CORECAP_TOGGLE_NO;
		p = end;
	}
	*sp = v[7];
	return CORECAP_TOGGLE_IF_STACK_CLEAN;
}

bool corecap_toggle_stack_clean(const uint64_t *words, size_t n,
				const struct corecap_toggle_range *r, size_t nr)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < nr; j++)
			if (words[i] >= r[j].lo && words[i] < r[j].hi)
				return false;
	return true;
}

size_t corecap_toggle_profiler_code(pid_t pid, struct corecap_toggle_range *r, size_t max)
{
	char path[64], line[4096];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		uint64_t lo, hi;
		char perms[8];

		if (!strstr(line, "/libprofiler.so") &&
		    !strstr(line, "/libtcmalloc_and_profiler.so"))
			continue;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s", &lo, &hi, perms) == 3 &&
		    perms[2] == 'x')
			r[n++] = (struct corecap_toggle_range){lo, hi};
	}
	fclose(f);
	return n;
}

/* Whether the stack above sp is readable and holds no libprofiler code address. */
static bool stack_clean(int mem, uint64_t sp, const struct corecap_toggle_range *r, size_t nr)
{
	uint64_t words[CORECAP_TOGGLE_STACK_BYTES / 8];
	ssize_t got;

	if (mem < 0 || nr == 0)
		return false;
	got = pread(mem, words, sizeof(words), (off_t)sp);
	if (got < 64)
		return false;
	return corecap_toggle_stack_clean(words, (size_t)got / 8, r, nr);
}

pid_t corecap_toggle_thread_find(pid_t pid, int sig)
{
	char dir[64], path[128], line[512], status[4096];
	struct corecap_toggle_range code[CORECAP_TOGGLE_MAX_RANGES];
	struct dirent *de;
	pid_t found = 0;
	int mem = -2; /* opened at the first thread whose stack must be looked at */
	size_t nr = 0;
	uint64_t sp;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		long tid = strtol(de->d_name, NULL, 10);

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "%s/%ld/status", dir, tid);
		if (corecap_read_small_file(AT_FDCWD, path, status, sizeof(status)) <= 0)
			continue;
		snprintf(path, sizeof(path), "%s/%ld/syscall", dir, tid);
		if (corecap_read_small_file(AT_FDCWD, path, line, sizeof(line)) <= 0)
			continue;
		switch (corecap_toggle_thread_judge(line, status, sig, &sp)) {
		case CORECAP_TOGGLE_YES:
			found = (pid_t)tid;
			break;
		case CORECAP_TOGGLE_IF_STACK_CLEAN:
			if (mem == -2) {
				nr = corecap_toggle_profiler_code(pid, code,
								  CORECAP_TOGGLE_MAX_RANGES);
				snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
				mem = open(path, O_RDONLY | O_CLOEXEC);
			}
			if (stack_clean(mem, sp, code, nr))
				found = (pid_t)tid;
			break;
		case CORECAP_TOGGLE_NO:
			break;
		}
	}
	closedir(d);
	if (mem >= 0)
		close(mem);
	return found;
}
