#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

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

bool corecap_toggle_thread_safe(const char *syscall_line, const char *status, int sig)
{
	unsigned long long bit;
	char *end;
	long nr;

	if (sig < 1 || sig > 64)
		return false;
	bit = 1ull << (sig - 1);
	if ((status_mask(status, "SigBlk") & bit) || (status_mask(status, "SigIgn") & bit))
		return false;
	/* "running", or "-1 SP PC" (stopped outside a system call), or "NR ARGS... SP PC". */
	nr = strtol(syscall_line, &end, 10);
	if (end == syscall_line || (*end != ' ' && *end != '\n' && *end != '\0'))
		return false;
	for (size_t i = 0; i < sizeof(quiet_calls) / sizeof(quiet_calls[0]); i++)
		if (quiet_calls[i] == nr)
			return true;
	return false;
}

static bool read_text(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	return n > 0;
}

pid_t corecap_toggle_thread_find(pid_t pid, int sig)
{
	char dir[64], path[128], line[512], status[4096];
	struct dirent *de;
	pid_t found = 0;
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
		if (!read_text(path, status, sizeof(status)))
			continue;
		snprintf(path, sizeof(path), "%s/%ld/syscall", dir, tid);
		if (!read_text(path, line, sizeof(line)))
			continue;
		if (corecap_toggle_thread_safe(line, status, sig))
			found = (pid_t)tid;
	}
	closedir(d);
	return found;
}
