/*
 * stat_snapshot: the shim's segment of a live daemon and its threads'
 * times from /proc (stat_snapshot.h).
 */
#include "stat_snapshot.h"

#include <corecap/stats_layout.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../util/grow.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool corecap_stat_process_comm(pid_t pid, char *comm, size_t cap)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(comm, (int)cap, f))
		comm[0] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	fclose(f);
	return true;
}

/*
 * Sealed against shrinking (corecap_stats_open checked), so the mapping
 * has no SIGBUS path; the header says whose and which version it is.
 */
int corecap_stat_segment_map(pid_t pid, int fd, size_t bytes, const void **map, int32_t *seg_pid,
			     uint32_t *seg_version)
{
	const struct corecap_stats_header *h;
	void *m;
	int ret;

	m = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
	ret = m == MAP_FAILED ? -errno : 0;
	close(fd);
	if (ret)
		return ret;
	h = m;
	if (h->magic != CORECAP_STATS_MAGIC) {
		munmap(m, bytes);
		return -EPROTO;
	}
	*seg_version = h->version;
	if (h->version < CORECAP_STATS_VERSION_OLDEST || h->version > CORECAP_STATS_VERSION) {
		munmap(m, bytes);
		return -EPROTONOSUPPORT;
	}
	if (h->file_bytes > bytes) {
		munmap(m, bytes);
		return -EPROTO;
	}
	if (h->pid != pid) {
		*seg_pid = h->pid;
		munmap(m, bytes);
		return -ESRCH;
	}
	*map = m;
	return 0;
}

static int cmp_task_tid(const void *a, const void *b)
{
	const struct stat_task_time *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/*
 * Every thread's CPU and run-queue times (/proc/PID/task), read right
 * after the copy: a thread listed there but unreadable (exiting) is kept
 * without times, so that a thread missing from a copy's list is known to
 * have started after it and counts from 0 in the next interval.
 */
static int take_tasks(pid_t pid, struct stat_tasks *s)
{
	char dir[64];
	struct dirent *d;
	DIR *dp;

	s->n = 0;
	s->listed = false;
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	dp = opendir(dir);
	if (!dp)
		return 0; /* the rows then have no CPU% */
	while ((d = readdir(dp))) {
		struct stat_task_time *tt;
		long tid;
		char *end;

		tid = strtol(d->d_name, &end, 10);
		if (end == d->d_name || *end || tid <= 0 || tid > INT32_MAX)
			continue;
		if (corecap_grow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v))) {
			closedir(dp);
			return -ENOMEM;
		}
		tt = &s->v[s->n++];
		*tt = (struct stat_task_time){.tid = (int32_t)tid};
		tt->ok = corecap_stat_task_times(pid, (pid_t)tid, &tt->cpu_ns, &tt->runq_ns,
						 &tt->has_runq) == 0;
	}
	closedir(dp);
	s->listed = true;
	qsort(s->v, s->n, sizeof(*s->v), cmp_task_tid);
	return 0;
}

int corecap_stat_snap_take(pid_t pid, const void *map, size_t len, struct stat_snap *s)
{
	int ret;

	if (!s->buf && !(s->buf = malloc(len)))
		return -ENOMEM;
	ret = corecap_stats_copy(s->buf, map, len, 1000);
	s->t_ns = now_ns();
	if (ret == 0 && !corecap_stats_valid(s->buf, len))
		ret = -EINVAL;
	if (ret == 0)
		ret = take_tasks(pid, &s->tasks);
	return ret;
}

void corecap_stat_snap_release(struct stat_snap *s)
{
	free(s->buf);
	free(s->tasks.v);
	*s = (struct stat_snap){0};
}

bool corecap_stat_parse_schedstat(const char *line, uint64_t *run_ns, uint64_t *delay_ns)
{
	uint64_t run, delay, slices;
	int end = 0;

	if (sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu64 "%n", &run, &delay, &slices, &end) !=
		    3 ||
	    (line[end] && line[end] != '\n'))
		return false;
	*run_ns = run;
	*delay_ns = delay;
	return true;
}

bool corecap_stat_parse_task_cpu(const char *line, uint64_t *ticks)
{
	/* The comm in parentheses may hold spaces and ')': fields follow the last ')'. */
	const char *p = strrchr(line, ')');
	unsigned long long utime, stime;

	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
			 &stime) != 2)
		return false;
	*ticks = (uint64_t)utime + (uint64_t)stime;
	return true;
}

/* The first line of path into buf; 0 or -errno. */
static int read_line(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, cap - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	buf[n] = '\0';
	return n ? 0 : -ENODATA;
}

int corecap_stat_task_times(pid_t pid, pid_t tid, uint64_t *cpu_ns, uint64_t *runq_ns,
			    bool *has_runq)
{
	char path[80], line[1024];
	uint64_t ticks;
	long hz;
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
	if (read_line(path, line, sizeof(line)) == 0 &&
	    corecap_stat_parse_schedstat(line, cpu_ns, runq_ns)) {
		*has_runq = true;
		return 0;
	}
	*has_runq = false;
	*runq_ns = 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	ret = read_line(path, line, sizeof(line));
	if (ret)
		return ret;
	if (!corecap_stat_parse_task_cpu(line, &ticks))
		return -EINVAL;
	hz = sysconf(_SC_CLK_TCK);
	*cpu_ns = ticks * (uint64_t)(1000000000 / (hz > 0 ? hz : 100));
	return 0;
}
