#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <corecap/diag.h>
#include "proc_sampler.h"
#include "util/proc_stat.h"
#include "util/run_dir.h"
#include "util/mono_clock.h"
#include <corecap/run_format.h>

/* A thread's stat and schedstat kept open between rounds (each read from
 * offset 0 formats them afresh): the opens and closes were two thirds of
 * the sampler's system calls. */
struct proc_task_fds {
	int32_t tid;
	int stat_fd;
	int sched_fd;	/* -1: no schedstat */
	uint64_t round; /* the last round that read it */
};

const char corecap_threads_tsv_header[] = "time_ns\ttid\tcomm\tstate\tutime_ns\tstime_ns\tcpu\t"
					  "run_ns\twait_ns\tvol_cs\tinvol_cs\tcs\n";

void corecap_proc_sampler_flush(struct corecap_proc_sampler *s)
{
	corecap_run_file_flush(s->out, CORECAP_RUN_THREADS, &s->write_errno);
}

int corecap_proc_sampler_init(struct corecap_proc_sampler *s, pid_t pid, struct corecap_run_dir *rd)
{
	char path[64];
	int ret;

	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->clk_tck = sysconf(_SC_CLK_TCK);
	if (s->clk_tck <= 0)
		s->clk_tck = 100;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	s->tasks = opendir(path);
	if (!s->tasks) {
		ret = -errno;
		corecap_error("cannot list the threads of PID %d: %s", (int)pid, strerror(errno));
		goto out;
	}
	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	s->have_schedstat = access(path, R_OK) == 0;
	s->fds = calloc(CORECAP_PROC_SAMPLER_KEEP, sizeof(*s->fds));
	if (!s->fds) {
		ret = -ENOMEM;
		goto out_close_tasks;
	}
	ret = corecap_run_dir_fopen(rd, CORECAP_RUN_THREADS, &s->out);
	if (ret < 0)
		goto out_close_tasks;
	/* A round of a daemon with a thousand threads, and the rest rarely cut mid-line. */
	setvbuf(s->out, NULL, _IOFBF, 1u << 20);
	fputs(corecap_threads_tsv_header, s->out);
	corecap_proc_sampler_flush(s);
	goto out;

out_close_tasks:
	free(s->fds);
	s->fds = NULL;
	closedir(s->tasks);
	s->tasks = NULL;
out:
	return ret;
}

static long status_value(const char *status, const char *name)
{
	const char *p = strstr(status, name);

	if (!p)
		return -1;
	return strtol(p + strlen(name), NULL, 10);
}

static int open_task_file(int taskfd, const char *tid, const char *name)
{
	char path[64];

	snprintf(path, sizeof(path), "%s/%s", tid, name);
	return openat(taskfd, path, O_RDONLY | O_CLOEXEC);
}

static void task_fds_close(struct proc_task_fds *f)
{
	if (f->stat_fd >= 0)
		close(f->stat_fd);
	if (f->sched_fd >= 0)
		close(f->sched_fd);
	f->stat_fd = f->sched_fd = -1;
}

/* Opens a thread's files into f: false when its stat cannot be (it exited). */
static bool task_fds_open(const struct corecap_proc_sampler *s, int taskfd, const char *tid,
			  struct proc_task_fds *f)
{
	f->stat_fd = open_task_file(taskfd, tid, "stat");
	f->sched_fd = s->have_schedstat ? open_task_file(taskfd, tid, "schedstat") : -1;
	if (f->stat_fd < 0) {
		task_fds_close(f);
		return false;
	}
	return true;
}

/* The index of tid in the table (sorted by tid), or where it would go. */
static size_t task_fds_find(const struct corecap_proc_sampler *s, int32_t tid)
{
	size_t lo = 0, hi = s->n_fds;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->fds[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The thread's kept files, opened at its first round; NULL when the table
 * is full (the caller then opens them for this round alone) or the thread
 * exited. */
static struct proc_task_fds *task_fds(struct corecap_proc_sampler *s, int taskfd, const char *name,
				      int32_t tid, bool *full)
{
	size_t i = task_fds_find(s, tid);
	struct proc_task_fds f = {.tid = tid};

	*full = false;
	if (i < s->n_fds && s->fds[i].tid == tid)
		return &s->fds[i];
	if (s->n_fds == CORECAP_PROC_SAMPLER_KEEP) {
		*full = true;
		return NULL;
	}
	if (!task_fds_open(s, taskfd, name, &f))
		return NULL;
	memmove(&s->fds[i + 1], &s->fds[i], (s->n_fds - i) * sizeof(s->fds[0]));
	s->fds[i] = f;
	s->n_fds++;
	return &s->fds[i];
}

/* Closes the files of the threads the last round did not see (exited). */
static void task_fds_sweep(struct corecap_proc_sampler *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_fds; i++) {
		if (s->fds[i].round != s->rounds)
			task_fds_close(&s->fds[i]);
		else
			s->fds[n++] = s->fds[i];
	}
	s->n_fds = n;
}

/*
 * Reads the thread's stat (and schedstat) through f. A kept descriptor
 * that fails names a thread that exited: when its TID is listed again it
 * is a later thread given the number, so the files are opened again once.
 */
static bool read_stat(int fd, struct corecap_proc_stat *st)
{
	char buf[1024];

	return corecap_pread_small_file(fd, buf, sizeof(buf)) >= 0 &&
	       corecap_proc_stat_parse(buf, st) == 0;
}

static bool read_task(const struct corecap_proc_sampler *s, int taskfd, const char *name,
		      struct proc_task_fds *f, bool kept, struct corecap_proc_stat *st,
		      long long *run_ns, long long *wait_ns, long *cs)
{
	char buf[1024];

	if (!read_stat(f->stat_fd, st)) {
		task_fds_close(f);
		if (!kept || !task_fds_open(s, taskfd, name, f) || !read_stat(f->stat_fd, st))
			return false;
	}
	if (f->sched_fd >= 0 && corecap_pread_small_file(f->sched_fd, buf, sizeof(buf)) > 0 &&
	    sscanf(buf, "%lld %lld %ld", run_ns, wait_ns, cs) != 3)
		*run_ns = *wait_ns = *cs = -1;
	return true;
}

static bool sample_thread(struct corecap_proc_sampler *s, int taskfd, const char *name)
{
	struct proc_task_fds once = {.stat_fd = -1, .sched_fd = -1}, *f;
	struct corecap_proc_stat st;
	long long run_ns = -1, wait_ns = -1;
	long vol = -1, invol = -1, cs = -1;
	double ns_per_tick = 1e9 / (double)s->clk_tck;
	int32_t tid = (int32_t)strtol(name, NULL, 10);
	uint64_t t = corecap_now_ns();
	char path[64], buf[4096];
	bool full, ok;

	f = task_fds(s, taskfd, name, tid, &full);
	if (!f && !(full && task_fds_open(s, taskfd, name, &once)))
		return false;
	ok = read_task(s, taskfd, name, f ? f : &once, f != NULL, &st, &run_ns, &wait_ns, &cs);
	task_fds_close(&once);
	if (!ok)
		return false;
	if (f)
		f->round = s->rounds + 1;
	/* status (a costly file to format) only where schedstat cannot say. */
	if (cs < 0) {
		snprintf(path, sizeof(path), "%s/status", name);
		if (corecap_read_small_file(taskfd, path, buf, sizeof(buf)) > 0) {
			vol = status_value(buf, "\nvoluntary_ctxt_switches:");
			invol = status_value(buf, "\nnonvoluntary_ctxt_switches:");
		}
	}
	for (char *c = st.comm; *c; c++)
		if (*c == '\t' || *c == '\n')
			*c = ' ';
	fprintf(s->out, "%llu\t%s\t%s\t%c\t%llu\t%llu\t%d\t%lld\t%lld\t%ld\t%ld\t%ld\n",
		(unsigned long long)t, name, st.comm, st.state,
		(unsigned long long)((double)st.utime_ticks * ns_per_tick),
		(unsigned long long)((double)st.stime_ticks * ns_per_tick), st.processor, run_ns,
		wait_ns, vol, invol, cs);
	return true;
}

int corecap_proc_sampler_sample(struct corecap_proc_sampler *s)
{
	struct dirent *de;
	size_t n = 0;
	int taskfd;

	rewinddir(s->tasks);
	taskfd = dirfd(s->tasks);
	errno = 0;
	while ((de = readdir(s->tasks))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (sample_thread(s, taskfd, de->d_name))
			n++;
	}
	s->rounds++;
	task_fds_sweep(s);
	s->rows += n;
	s->n_threads = n;
	corecap_proc_sampler_flush(s);
	return n > 0 ? 0 : -ESRCH;
}

int corecap_proc_sampler_release(struct corecap_proc_sampler *s)
{
	int ret = 0;

	if (s->out)
		ret = corecap_run_file_close(s->out, CORECAP_RUN_THREADS, &s->write_errno);
	s->out = NULL;
	for (size_t i = 0; i < s->n_fds; i++)
		task_fds_close(&s->fds[i]);
	free(s->fds);
	s->fds = NULL;
	s->n_fds = 0;
	if (s->tasks)
		closedir(s->tasks);
	s->tasks = NULL;
	return ret;
}
