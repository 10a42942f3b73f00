#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpu_profile.h"
#include "diag.h"
#include "run_dir.h"
#include "target.h"

static bool profiler_mapped(pid_t pid)
{
	char path[64], line[4096];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "/libprofiler.so") ||
			strstr(line, "/libtcmalloc_and_profiler.so");
	fclose(f);
	return found;
}

void corecap_cpu_profile_init(struct corecap_cpu_profile *cp, const struct corecap_target *t)
{
	char sig[32];
	char *end;
	long v;

	memset(cp, 0, sizeof(*cp));
	cp->pid = t->pid;
	if (!corecap_target_getenv(t, "CPUPROFILESIGNAL", sig, sizeof(sig)) ||
	    !corecap_target_getenv(t, "CPUPROFILE", cp->base, sizeof(cp->base)) || !cp->base[0])
		return;
	v = strtol(sig, &end, 10);
	if (*end || v < 1 || v >= NSIG) {
		corecap_warn(
			"PID %d has CPUPROFILESIGNAL='%s', not a signal number; no CPU profile",
			(int)t->pid, sig);
		return;
	}
	if (!profiler_mapped(t->pid)) {
		corecap_warn("PID %d sets CPUPROFILESIGNAL but has no libprofiler mapped; no CPU "
			     "profile",
			     (int)t->pid);
		return;
	}
	cp->signal = (int)v;
	cp->available = true;
}

int corecap_cpu_profile_start(struct corecap_cpu_profile *cp)
{
	int ret = 0;

	if (!cp->available)
		goto out;
	clock_gettime(CLOCK_REALTIME, &cp->started);
	/* File times have a coarse clock: allow for a tick's worth. */
	cp->started.tv_sec -= 1;
	if (kill(cp->pid, cp->signal) < 0) {
		ret = -errno;
		corecap_warn("cannot signal PID %d to start its CPU profile: %s", (int)cp->pid,
			     strerror(errno));
		cp->available = false;
		goto out;
	}
	cp->running = true;
out:
	return ret;
}

int corecap_cpu_profile_stop(struct corecap_cpu_profile *cp)
{
	int ret = 0;

	if (!cp->running)
		goto out;
	cp->running = false;
	if (kill(cp->pid, cp->signal) < 0) {
		ret = -errno;
		corecap_warn("cannot signal PID %d to stop its CPU profile: %s", (int)cp->pid,
			     strerror(errno));
	}
out:
	return ret;
}

/* The newest CPUPROFILE.<n> written since the start; path into out. */
static bool find_profile(struct corecap_cpu_profile *cp, char *out, size_t size, struct stat *st)
{
	char dir[4096], *slash;
	const char *base;
	long best_n = -1;
	struct dirent *de;
	size_t blen;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s", cp->base);
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		base = cp->base + (slash - dir) + 1;
		if (!dir[0])
			snprintf(dir, sizeof(dir), "/");
	} else {
		snprintf(dir, sizeof(dir), ".");
		base = cp->base;
	}
	blen = strlen(base);
	d = opendir(dir);
	if (!d)
		return false;
	while ((de = readdir(d))) {
		char path[8192];
		struct stat s;
		char *end;
		long n;

		if (strncmp(de->d_name, base, blen) != 0 || de->d_name[blen] != '.')
			continue;
		n = strtol(de->d_name + blen + 1, &end, 10);
		if (*end || end == de->d_name + blen + 1 || n <= best_n)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (lstat(path, &s) < 0 || !S_ISREG(s.st_mode) ||
		    s.st_mtim.tv_sec < cp->started.tv_sec)
			continue;
		best_n = n;
		snprintf(out, size, "%s", path);
		*st = s;
	}
	closedir(d);
	return best_n >= 0;
}

int corecap_cpu_profile_collect(struct corecap_cpu_profile *cp, struct corecap_run_dir *rd,
				unsigned timeout_ms)
{
	char path[8192], buf[65536];
	off_t last_size = -1;
	struct stat st;
	int stable = 0;
	int ret = 0;
	int in, out;

	if (!cp->available)
		goto out;
	/* libprofiler writes the file in its signal handler; wait until it stops growing. */
	for (unsigned waited = 0; waited < timeout_ms; waited += 50) {
		if (find_profile(cp, path, sizeof(path), &st) && st.st_size > 0) {
			stable = st.st_size == last_size ? stable + 1 : 0;
			last_size = st.st_size;
			if (stable >= 3)
				break;
		}
		usleep(50000);
	}
	if (stable < 3) {
		corecap_warn("no CPU profile from PID %d appeared as '%s.N'", (int)cp->pid,
			     cp->base);
		ret = -ENOENT;
		goto out;
	}
	in = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0) {
		ret = -errno;
		corecap_warn("cannot read the CPU profile '%s': %s", path, strerror(errno));
		goto out;
	}
	ret = corecap_run_dir_create_file(rd, "cpu.prof", &out);
	if (ret < 0)
		goto out_close_in;
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0)
				ret = -errno;
			break;
		}
		if (write(out, buf, (size_t)n) != n) {
			ret = -EIO;
			break;
		}
		cp->bytes += (size_t)n;
	}
	if (close(out) < 0 && ret == 0)
		ret = -errno;
	if (ret < 0)
		corecap_error("cannot copy the CPU profile '%s' to '%s/cpu.prof': %s", path,
			      rd->path, strerror(-ret));
	else
		unlink(path);
out_close_in:
	close(in);
out:
	return ret;
}
