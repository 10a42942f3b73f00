#include "timens.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <corecap/diag.h>

#include "util/mono_clock.h"

int64_t corecap_run_clock_shift_ns;

/* The file is two short lines ("monotonic S NS", "boottime S NS"): a read
 * of more than this is not the kernel's format. */
#define TIMENS_FILE_MAX 256

/* The monotonic line's offset into *off_ns; -EINVAL when there is none or it is malformed. */
static int parse(const char *buf, int64_t *off_ns)
{
	for (const char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		long long s, ns;
		int used = 0;

		if (strncmp(l, "monotonic", 9) != 0 && strncmp(l, "1 ", 2) != 0)
			continue;
		/* Older kernels print the clock's number (1: CLOCK_MONOTONIC) for its name. */
		l += l[0] == '1' ? 1 : 9;
		if (sscanf(l, " %lld %lld%n", &s, &ns, &used) != 2 || ns < 0 || ns >= 1000000000 ||
		    (l[used] != '\n' && l[used] != '\0') || s < -(INT64_MAX / 1000000000 - 1) ||
		    s > INT64_MAX / 1000000000 - 1)
			return -EINVAL;
		*off_ns = (int64_t)s * 1000000000 + (int64_t)ns;
		return 0;
	}
	return -EINVAL;
}

int corecap_timens_monotonic_offset(pid_t pid, int64_t *off_ns)
{
	char path[64], buf[TIMENS_FILE_MAX + 1];
	size_t len = 0;
	ssize_t n;
	int fd, ret;

	*off_ns = 0;
	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/timens_offsets", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/timens_offsets");
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	/* A proc file's size is 0 in stat: bound the read itself. */
	while (len < sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			close(fd);
			return ret;
		}
		len += (size_t)n;
	}
	close(fd);
	if (len >= TIMENS_FILE_MAX)
		return -EINVAL;
	buf[len] = '\0';
	return parse(buf, off_ns);
}

int corecap_run_clock_follow(pid_t pid)
{
	int64_t mine, theirs;
	int ret = corecap_timens_monotonic_offset(0, &mine);

	if (ret == -ENOENT)
		return 0; /* no time namespaces here: one clock for all */
	if (ret == 0)
		ret = corecap_timens_monotonic_offset(pid, &theirs);
	if (ret < 0)
		return ret;
	if (theirs != mine) {
		corecap_run_clock_shift_ns = theirs - mine;
		corecap_note("PID %d is in a time namespace whose monotonic clock is %+.9f s from "
			     "corecap's: the run's times are in its clock",
			     (int)pid, (double)(theirs - mine) / 1e9);
	}
	return 0;
}
