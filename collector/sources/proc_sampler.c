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

const char corecap_threads_tsv_header[] =
	"time_ns\ttid\tcomm\tstate\tutime_ns\tstime_ns\tcpu\trun_ns\twait_ns\tvol_cs\tinvol_cs\n";

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
	ret = corecap_run_dir_fopen(rd, CORECAP_RUN_THREADS, &s->out);
	if (ret < 0)
		goto out_close_tasks;
	/* A round of a daemon with a thousand threads, and the rest rarely cut mid-line. */
	setvbuf(s->out, NULL, _IOFBF, 1u << 20);
	fputs(corecap_threads_tsv_header, s->out);
	corecap_proc_sampler_flush(s);
	goto out;

out_close_tasks:
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

static bool sample_thread(struct corecap_proc_sampler *s, int taskfd, const char *tid)
{
	struct corecap_proc_stat st;
	long long run_ns = -1, wait_ns = -1;
	char path[64], buf[4096];
	long vol = -1, invol = -1;
	uint64_t t = corecap_now_ns();
	double ns_per_tick = 1e9 / (double)s->clk_tck;

	snprintf(path, sizeof(path), "%s/stat", tid);
	if (corecap_proc_stat_read(taskfd, path, &st) < 0)
		return false;
	if (s->have_schedstat) {
		snprintf(path, sizeof(path), "%s/schedstat", tid);
		if (corecap_read_small_file(taskfd, path, buf, sizeof(buf)) > 0 &&
		    sscanf(buf, "%lld %lld", &run_ns, &wait_ns) != 2)
			run_ns = wait_ns = -1;
	}
	snprintf(path, sizeof(path), "%s/status", tid);
	if (corecap_read_small_file(taskfd, path, buf, sizeof(buf)) > 0) {
		vol = status_value(buf, "\nvoluntary_ctxt_switches:");
		invol = status_value(buf, "\nnonvoluntary_ctxt_switches:");
	}
	for (char *c = st.comm; *c; c++)
		if (*c == '\t' || *c == '\n')
			*c = ' ';
	fprintf(s->out, "%llu\t%s\t%s\t%c\t%llu\t%llu\t%d\t%lld\t%lld\t%ld\t%ld\n",
		(unsigned long long)t, tid, st.comm, st.state,
		(unsigned long long)((double)st.utime_ticks * ns_per_tick),
		(unsigned long long)((double)st.stime_ticks * ns_per_tick), st.processor, run_ns,
		wait_ns, vol, invol);
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
	if (s->tasks)
		closedir(s->tasks);
	s->tasks = NULL;
	return ret;
}
