/*
 * `corecap stat -p PID`: a live, top-like view of a daemon running under
 * the shim (`corecap run`). Every interval it copies the shim's shared
 * memory (its sealed memfd, reached through /proc/PID/fd:
 * common/include/corecap/stats_path.h and stats_layout.h),
 * subtracts the previous copy, and prints what the interval did: hot
 * locks and lock call sites by wait, threads by lock, condition and I/O
 * time, named by the symbolizer over /proc/PID/maps. It lives in
 * analysis/ rather than collector/ because what it does is the analysis'
 * (deltas of the stats layout, symbols) and the symbolizer is there; the
 * only live thing it touches is a read-only mapping of the shim's memfd
 * (docs/architecture.md). A daemon without the shim, or any with
 * --kernel, gets the kernel view instead (stat_kernel.h).
 */
#include <corecap/analysis.h>
#include <corecap/diag.h>
#include <corecap/stats_layout.h>
#include <corecap/stats_path.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "model/lock_rows.h"
#include "read/shim_stats.h"
#include "read/symbolizer.h"
#include "stat_kernel.h"
#include "stat_view.h"

const char corecap_stat_usage[] =
	"usage: corecap stat -p PID [-d S] [-i S] [--once] [--json] [--top N]\n"
	"                    [--kernel] [--keep-profiler]\n"
	"\n"
	"A live view of a daemon running under the shim ('corecap run'): every interval,\n"
	"the hot locks and lock call sites by the time threads waited for them in that\n"
	"interval, and the threads by lock, condition-variable and I/O time, named from\n"
	"the daemon's symbols. Figures are differences between two copies of the shim's\n"
	"counters (read from the daemon itself), not totals since the daemon started.\n"
	"A daemon without the shim (or any with --kernel) is watched through kernel\n"
	"events instead (root and tracefs): its threads by running, runnable, futex\n"
	"wait and other blocked time, and the futex words waited on most.\n"
	"\n"
	"  -p, --pid PID      the daemon\n"
	"  -d, --duration S   stop after S seconds (default: until interrupted)\n"
	"  -i, --interval S   seconds per interval (default 1)\n"
	"      --once         print one interval and exit\n"
	"      --json         one JSON object per interval and line, every hot lock,\n"
	"                     site and thread (keys: corecap-stat(1))\n"
	"      --top N        rows per table in the text view (default 10)\n"
	"      --kernel       kernel events even when the daemon runs under the shim\n"
	"      --keep-profiler  kernel view: keep the profiler's own threads and locks\n"
	"                     (LTTng-UST's, the shim's, corecap's), left out by default\n"
	"\n"
	"Threads also show their share of the interval on a CPU (CPU%) and runnable,\n"
	"waiting for one (RUNQ%), from /proc/PID/task/TID/schedstat. No ops/s: the\n"
	"shim counts locks and I/O, not the daemon's ops.\n"
	"\n"
	"On a terminal the view is redrawn in place, with the time since stat started\n"
	"and keys: s or >/< cycle the threads' sort key (LOCK%, CPU%, RUNQ%, COND%,\n"
	"IO%, THREAD), q quits (the terminal restored); otherwise intervals follow each\n"
	"other. See also corecap-stat(1), corecap-run(1), corecap-record(1).\n";

struct stat_opts {
	pid_t pid;
	double duration_s, interval_s;
	bool once, json, kernel, keep_profiler;
	int top;
};

/* A thread's CPU and run-queue time so far (/proc, stat_view.h), sorted by tid. */
struct task_time {
	int32_t tid;
	bool ok; /* its times were read */
	bool has_runq;
	uint64_t cpu_ns, runq_ns;
};

/* One copy of the shim's file, its live threads' times, and when it was taken. */
struct stat_snap {
	void *buf;
	uint64_t t_ns;
	struct task_time *tasks;
	size_t n_tasks, cap_tasks;
	bool listed; /* /proc/PID/task was listed: a tid not in tasks had not started */
};

struct site_row {
	uint64_t addr;
	uint32_t kind;
	uint64_t acquisitions, contentions, wait_ns, holds, hold_ns;
};

struct thread_row {
	int32_t tid;
	char name[CORECAP_STATS_NAME_LEN + 1];
	bool live;
	uint64_t contentions, lock_wait_ns, cond_waits, cond_wait_ns, io_calls, io_ns;
	/* From /proc over the interval: has_cpu when both ends were read. */
	bool has_cpu, has_runq;
	uint64_t cpu_ns, runq_ns;
};

struct stat_interval {
	uint64_t interval_ns;
	struct shim_stats shim; /* the process's deltas, its locks' and sites' */
	/* The locks' deltas as report's lock table and its rows (model/lock_rows.h):
	 * heap locks first contended at one site are one family row, as in report. */
	struct lock_table lock_table;
	struct lock_rows lock_rows;
	struct site_row *sites;
	size_t n_sites;
	struct thread_row *threads;
	size_t n_threads;
	uint64_t io_ns; /* every I/O class */
};

static volatile sig_atomic_t stop_requested;
/* The threads' order: lock wait, unless a key chose another (interactive only). */
static enum stat_sort thread_sort = STAT_SORT_LOCK;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t delta(uint64_t cur, uint64_t prev)
{
	return cur >= prev ? cur - prev : cur;
}

static bool parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 1e7)
		return false;
	*out = v;
	return true;
}

static int parse_args(struct stat_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"pid", required_argument, NULL, 'p'},
		{"duration", required_argument, NULL, 'd'},
		{"interval", required_argument, NULL, 'i'},
		{"once", no_argument, NULL, 'O'},
		{"json", no_argument, NULL, 'J'},
		{"top", required_argument, NULL, 'T'},
		{"kernel", no_argument, NULL, 'K'},
		{"keep-profiler", no_argument, NULL, 'P'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char *end;
	long v;
	int c;

	*o = (struct stat_opts){.interval_s = 1.0, .top = 10};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:d:i:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v <= 0 || v > INT32_MAX) {
				corecap_error("-p '%s': not a process id", optarg);
				return 2;
			}
			o->pid = (pid_t)v;
			break;
		case 'd':
			if (!parse_seconds(optarg, &o->duration_s)) {
				corecap_error("-d '%s': expected a positive number of seconds",
					      optarg);
				return 2;
			}
			break;
		case 'i':
			if (!parse_seconds(optarg, &o->interval_s)) {
				corecap_error(
					"--interval '%s': expected a positive number of seconds",
					optarg);
				return 2;
			}
			break;
		case 'O':
			o->once = true;
			break;
		case 'J':
			o->json = true;
			break;
		case 'K':
			o->kernel = true;
			break;
		case 'P':
			o->keep_profiler = true;
			break;
		case 'T':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v <= 0 || v > 100000) {
				corecap_error("--top '%s': expected a positive number of rows",
					      optarg);
				return 2;
			}
			o->top = (int)v;
			break;
		case 'h':
			fputs(corecap_stat_usage, stdout);
			return -1;
		case ':':
			return corecap_usage_error(corecap_stat_usage, "option '%s' needs a value",
						   argv[optind - 1]);
		default:
			return corecap_usage_error(corecap_stat_usage, "unrecognized option '%s'",
						   argv[optind - 1]);
		}
	}
	if (optind < argc) {
		return corecap_usage_error(corecap_stat_usage, "unexpected argument '%s'",
					   argv[optind]);
	}
	if (!o->pid) {
		return corecap_usage_error(corecap_stat_usage, "-p PID is required");
	}
	return 0;
}

/* The process's comm, or false when /proc has no such process. */
static bool process_comm(pid_t pid, char *comm, size_t cap)
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
 * Maps the shim's counters of o->pid read-only: reached through the
 * process itself and checked (corecap/stats_path.h: sealed against
 * shrinking, so the mapping has no SIGBUS path; owned by the process's
 * user or root; a bounded size). 0, or 1 with the error printed: no such
 * process, no shim segment, not allowed, or not this process's.
 */
static int open_segment(const struct stat_opts *o, int found, const char *what, const char *why,
			size_t bytes, const void **map, size_t *len)
{
	char comm[64] = "";
	const struct corecap_stats_header *h;
	void *m;
	int fd = found;

	if (!process_comm(o->pid, comm, sizeof(comm))) {
		corecap_error("no process with PID %d", (int)o->pid);
		return 1;
	}
	if (fd == -ENOENT) {
		corecap_error("process %d (%s) has no shim segment (no '" CORECAP_STATS_LINK_FMT
			      "' in '%s')",
			      (int)o->pid, comm, (int)o->pid, what);
		corecap_note("stat reads the counters of corecap's shim: start the daemon under "
			     "it (corecap run -- DAEMON ARGS); without the shim, 'corecap stat "
			     "--kernel -p %d' shows its threads' states and futex waits from the "
			     "kernel's events",
			     (int)o->pid);
		return 1;
	}
	if (fd < 0) {
		corecap_error("cannot read the shim's counters of process %d (%s): cannot open "
			      "'%s': %s",
			      (int)o->pid, comm, what, why);
		if (fd == -EACCES) {
			uid_t ruid = 0, euid = 0;

			/* Named with the uids: the segment may well be there, unreadable. */
			if (corecap_stats_proc_uids(o->pid, &ruid, &euid) && euid == geteuid())
				corecap_note(
					"permission denied although stat runs as the daemon's "
					"user (uid %u): the daemon is not dumpable (it set "
					"PR_SET_DUMPABLE 0 or changed its credentials), so only "
					"root may read its descriptors",
					(unsigned)euid);
			else
				corecap_note(
					"permission denied: stat runs as uid %u; it reads the "
					"shim's counters of a daemon started with corecap run as "
					"the daemon's user (uid %u) or as root; "
					"kernel events (--kernel) need root or CAP_PERFMON",
					(unsigned)geteuid(), (unsigned)euid);
		}
		return 1;
	}
	*len = bytes;
	m = mmap(NULL, *len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		corecap_error("cannot map '%s': %s", what, strerror(errno));
		return 1;
	}
	h = m;
	if (h->magic != CORECAP_STATS_MAGIC || h->version != CORECAP_STATS_VERSION ||
	    h->file_bytes > *len) {
		corecap_error("'%s': not a corecap stats segment of version %d", what,
			      CORECAP_STATS_VERSION);
		munmap(m, *len);
		return 1;
	}
	if (h->pid != o->pid) {
		corecap_error("'%s' is the shim segment of PID %d, not of process %d (%s)", what,
			      (int)h->pid, (int)o->pid, comm);
		munmap(m, *len);
		return 1;
	}
	*map = m;
	return 0;
}

static int cmp_task_tid(const void *a, const void *b)
{
	const struct task_time *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/*
 * Every thread's CPU and run-queue times (/proc/PID/task), read right
 * after the copy: a thread listed there but unreadable (exiting) is kept
 * without times, so that a thread missing from a copy's list is known to
 * have started after it and counts from 0 in the next interval.
 */
static int take_tasks(pid_t pid, struct stat_snap *s)
{
	char dir[64];
	struct dirent *d;
	size_t cap = 0;
	DIR *dp;

	s->n_tasks = 0;
	s->listed = false;
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	dp = opendir(dir);
	if (!dp)
		return 0; /* the rows then have no CPU% */
	while ((d = readdir(dp))) {
		struct task_time *tt;
		long tid;
		char *end;

		tid = strtol(d->d_name, &end, 10);
		if (end == d->d_name || *end || tid <= 0 || tid > INT32_MAX)
			continue;
		if (s->n_tasks == s->cap_tasks) {
			cap = s->cap_tasks ? 2 * s->cap_tasks : 64;
			tt = realloc(s->tasks, cap * sizeof(*s->tasks));
			if (!tt) {
				closedir(dp);
				return -ENOMEM;
			}
			s->tasks = tt;
			s->cap_tasks = cap;
		}
		tt = &s->tasks[s->n_tasks++];
		*tt = (struct task_time){.tid = (int32_t)tid};
		tt->ok = corecap_stat_task_times(pid, (pid_t)tid, &tt->cpu_ns, &tt->runq_ns,
						 &tt->has_runq) == 0;
	}
	closedir(dp);
	s->listed = true;
	qsort(s->tasks, s->n_tasks, sizeof(*s->tasks), cmp_task_tid);
	return 0;
}

static const struct task_time *task_of(const struct stat_snap *s, int32_t tid)
{
	struct task_time key = {.tid = tid};

	if (!s->n_tasks)
		return NULL;
	return bsearch(&key, s->tasks, s->n_tasks, sizeof(*s->tasks), cmp_task_tid);
}

static int take_snap(pid_t pid, const void *map, size_t len, struct stat_snap *s)
{
	int ret;

	if (!s->buf && !(s->buf = malloc(len)))
		return -ENOMEM;
	ret = corecap_stats_copy(s->buf, map, len, 1000);
	s->t_ns = now_ns();
	if (ret == 0 && !corecap_stats_valid(s->buf, len))
		ret = -EINVAL;
	if (ret == 0)
		ret = take_tasks(pid, s);
	return ret;
}

static void interval_release(struct stat_interval *iv)
{
	corecap_lock_rows_release(&iv->lock_rows);
	corecap_lock_table_release(&iv->lock_table);
	free(iv->sites);
	free(iv->threads);
	corecap_shim_stats_release(&iv->shim);
	*iv = (struct stat_interval){0};
}

static int cmp_sites(const void *a, const void *b)
{
	const struct site_row *x = a, *y = b;

	if (x->wait_ns != y->wait_ns)
		return x->wait_ns < y->wait_ns ? 1 : -1;
	if (x->contentions != y->contentions)
		return x->contentions < y->contentions ? 1 : -1;
	if (x->hold_ns != y->hold_ns)
		return x->hold_ns < y->hold_ns ? 1 : -1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* More first; a row without the figure after every row with it. */
static int cmp_more(bool hx, uint64_t x, bool hy, uint64_t y)
{
	if (hx != hy)
		return hx ? -1 : 1;
	return x == y ? 0 : x < y ? 1 : -1;
}

static int cmp_threads(const void *a, const void *b)
{
	const struct thread_row *x = a, *y = b;
	int c = 0;

	switch (thread_sort) {
	case STAT_SORT_CPU:
		c = cmp_more(x->has_cpu, x->cpu_ns, y->has_cpu, y->cpu_ns);
		break;
	case STAT_SORT_RUNQ:
		c = cmp_more(x->has_runq, x->runq_ns, y->has_runq, y->runq_ns);
		break;
	case STAT_SORT_COND:
		c = cmp_more(true, x->cond_wait_ns, true, y->cond_wait_ns);
		break;
	case STAT_SORT_IO:
		c = cmp_more(true, x->io_ns, true, y->io_ns);
		break;
	case STAT_SORT_NAME:
		c = strcmp(x->name, y->name);
		if (!c)
			c = (x->tid > y->tid) - (x->tid < y->tid);
		break;
	default:
		break;
	}
	if (c)
		return c;
	if (x->lock_wait_ns != y->lock_wait_ns)
		return x->lock_wait_ns < y->lock_wait_ns ? 1 : -1;
	if (x->io_ns != y->io_ns)
		return x->io_ns < y->io_ns ? 1 : -1;
	if (x->cond_wait_ns != y->cond_wait_ns)
		return x->cond_wait_ns < y->cond_wait_ns ? 1 : -1;
	return x->tid - y->tid;
}

static uint64_t sum_classes(const uint64_t *v)
{
	uint64_t s = 0;

	for (int i = 0; i < CORECAP_IO_CLASSES; i++)
		s += v[i];
	return s;
}

/*
 * Threads, slot by slot: a slot that holds the same thread (tid and
 * start time) in both copies gives its difference; a slot claimed in the
 * interval counts from zero. Exited threads appear in the interval they
 * exited in.
 */
static int diff_threads(struct stat_interval *iv, const struct stat_snap *sp,
			const struct stat_snap *sc)
{
	const void *p = sp->buf, *c = sc->buf;
	const struct corecap_stats_header *hc = c, *hp = p;

	iv->threads = calloc(hc->max_threads ? hc->max_threads : 1, sizeof(*iv->threads));
	if (!iv->threads)
		return -ENOMEM;
	for (uint32_t i = 0; i < hc->max_threads; i++) {
		const struct corecap_stats_thread *t = corecap_stats_thread_at(c, i), *t0 = NULL;
		const struct task_time *k1, *k0;
		struct thread_row *r;
		struct corecap_stats_counters zero = {0};
		const struct corecap_stats_counters *b;

		if (t->state == CORECAP_THREAD_FREE)
			continue;
		if (i < hp->max_threads) {
			t0 = corecap_stats_thread_at(p, i);
			if (t0->state == CORECAP_THREAD_FREE || t0->tid != t->tid ||
			    t0->start_ns != t->start_ns)
				t0 = NULL;
		}
		if (t0 && t0->state == CORECAP_THREAD_EXITED)
			continue; /* exited before the interval */
		b = t0 ? &t0->c : &zero;
		r = &iv->threads[iv->n_threads++];
		r->tid = t->tid;
		memcpy(r->name, t->name, CORECAP_STATS_NAME_LEN);
		r->name[CORECAP_STATS_NAME_LEN] = '\0';
		r->live = t->state == CORECAP_THREAD_LIVE;
		r->contentions = delta(t->c.contentions, b->contentions);
		r->lock_wait_ns = delta(t->c.lock_wait_ns, b->lock_wait_ns);
		r->cond_waits = delta(t->c.cond_waits, b->cond_waits);
		r->cond_wait_ns = delta(t->c.cond_wait_ns, b->cond_wait_ns);
		r->io_calls = delta(sum_classes(t->c.io_calls), sum_classes(b->io_calls));
		r->io_ns = delta(sum_classes(t->c.io_ns), sum_classes(b->io_ns));
		/* /proc's times at both ends of the interval; a thread that started
		 * in it (not listed at its start) counts from 0. */
		k1 = task_of(sc, t->tid);
		k0 = task_of(sp, t->tid);
		if (k1 && k1->ok && ((k0 && k0->ok) || (!k0 && sp->listed))) {
			r->has_cpu = true;
			r->cpu_ns = delta(k1->cpu_ns, k0 ? k0->cpu_ns : 0);
			r->has_runq = k1->has_runq && (!k0 || k0->has_runq);
			r->runq_ns = r->has_runq ? delta(k1->runq_ns, k0 ? k0->runq_ns : 0) : 0;
		}
	}
	qsort(iv->threads, iv->n_threads, sizeof(*iv->threads), cmp_threads);
	return 0;
}

static char *name_of(void *ctx, uint64_t addr, bool code)
{
	return strdup(corecap_symbolizer_name(ctx, addr, code));
}

/*
 * The locks as a lock table, one site each (where the lock was first
 * contended, the only site the shim keeps per lock), named and grouped
 * into rows by wait as report's; the sites sorted by wait.
 */
static int rows_of(struct stat_interval *iv, struct symbolizer *sym)
{
	const struct shim_stats *d = &iv->shim;

	iv->sites = calloc(d->n_sites ? d->n_sites : 1, sizeof(*iv->sites));
	if (!iv->sites)
		return -ENOMEM;
	for (size_t i = 0; i < d->n_locks; i++) {
		const struct shim_lock_delta *l = &d->locks[i];
		struct model_lock *m = corecap_lock_table_get(&iv->lock_table, l->addr);
		struct lock_site *site;

		if (!m)
			return -ENOMEM;
		m->kind = l->kind;
		m->has_stats = true;
		m->stats_acquisitions = l->acquisitions;
		m->stats_contentions = l->contentions;
		m->stats_wait_ns = l->wait_ns;
		m->stats_holds = l->holds;
		m->stats_hold_ns = l->hold_ns;
		if (!l->first_site)
			continue;
		site = corecap_lock_table_site(m, l->first_site, NULL);
		if (!site)
			return -ENOMEM;
		site->contentions = l->contentions;
		site->wait_ns = l->wait_ns;
	}
	corecap_lock_table_symbolize(&iv->lock_table, name_of, sym);
	if (corecap_lock_rows_build(&iv->lock_rows, &iv->lock_table, LOCK_SORT_WAIT, false))
		return -ENOMEM;
	for (size_t i = 0; i < d->n_sites; i++) {
		const struct shim_site_delta *e = &d->sites[i];

		iv->sites[i] = (struct site_row){.addr = e->addr,
						 .kind = e->kind,
						 .acquisitions = e->acquisitions,
						 .contentions = e->contentions,
						 .wait_ns = e->wait_ns,
						 .holds = e->holds,
						 .hold_ns = e->hold_ns};
	}
	iv->n_sites = d->n_sites;
	qsort(iv->sites, iv->n_sites, sizeof(*iv->sites), cmp_sites);
	return 0;
}

/* What the interval between two copies did: read/shim_stats' deltas, and the threads'. */
static int diff_snaps(struct stat_interval *iv, const struct stat_snap *p,
		      const struct stat_snap *c, struct symbolizer *sym)
{
	*iv = (struct stat_interval){.interval_ns = c->t_ns - p->t_ns};
	corecap_shim_stats_init(&iv->shim);
	corecap_lock_table_init(&iv->lock_table);
	if (corecap_shim_stats_diff(&iv->shim, p->buf, c->buf) || rows_of(iv, sym) ||
	    diff_threads(iv, p, c)) {
		interval_release(iv);
		return -ENOMEM;
	}
	for (int k = 0; k < CORECAP_IO_CLASSES; k++)
		iv->io_ns += iv->shim.io[k].ns;
	return 0;
}

static const char *kind_name(uint32_t k, bool lock)
{
	static const char *const names[] = {"mutex", "rwlock_rd", "rwlock_wr", "spin", "cond"};

	if (lock && k == CORECAP_KIND_RWLOCK_WR)
		return "rwlock";
	return k < CORECAP_KIND_COUNT ? names[k] : "?";
}

/* s cut to at most w columns by eliding its middle ("ab...yz"), into dst. */
static const char *elide(const char *s, size_t w, char *dst, size_t cap)
{
	size_t n = strlen(s), head, tail;

	if (n <= w || w < 8 || w + 1 > cap)
		return s;
	head = (w - 3) / 2;
	tail = w - 3 - head;
	memcpy(dst, s, head);
	memcpy(dst + head, "...", 3);
	memcpy(dst + head + 3, s + n - tail, tail);
	dst[w] = '\0';
	return dst;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* The acquisitions of a row's locks (the shim's count: lock_rows has none). */
static uint64_t row_acquisitions(const struct lock_row *r)
{
	uint64_t n = 0;

	for (size_t i = 0; i < r->n_members; i++)
		n += r->members[i]->stats_acquisitions;
	return n;
}

static bool row_active(const struct lock_row *r)
{
	return r->contentions || r->wait_ns || r->hold_ns || row_acquisitions(r);
}

/* Where the row's locks were first contended; 0 when the shim saw no contention. */
static uint64_t row_first_site(const struct lock_row *r)
{
	return r->site ? r->site->site : 0;
}

/* Percent of span, or "-" when the figure is unknown, into buf. */
static const char *pct_or_dash(bool has, uint64_t part, double span, char *buf, size_t cap)
{
	if (!has)
		return "-";
	snprintf(buf, cap, "%.1f", 100.0 * (double)part / span);
	return buf;
}

/*
 * The live view's second header line (redrawn on a terminal): the time
 * since stat started, the threads' sort key, and the keys where they are
 * read (stdin a terminal too: interactive).
 */
struct stat_live {
	bool interactive;
	uint64_t elapsed_ns;
};

static void print_text(const struct stat_opts *o, const char *comm, const struct stat_interval *iv,
		       struct symbolizer *sym, const struct corecap_stats_header *h, bool redraw,
		       const struct stat_live *lv)
{
	double iv_ms = ms(iv->interval_ns);
	char e1[64], e2[64];
	const struct shim_stats *d = &iv->shim;
	int shown;

	if (redraw)
		fputs("\033[H\033[J", stdout);
	printf("corecap stat: PID %d (%s), interval %.3f s%s\n", (int)o->pid, comm, iv_ms / 1e3,
	       h->flags & CORECAP_STATS_F_EXITING ? ", the process is exiting" : "");
	if (redraw) {
		char el[32];

		printf("elapsed %s, threads sorted by %s%s\n",
		       corecap_stat_elapsed(lv->elapsed_ns, el, sizeof(el)),
		       corecap_stat_sort_name(thread_sort),
		       lv->interactive ? "; keys: s or >/< sort, q quit" : "");
	}
	printf("process: lock wait %.1f ms in %" PRIu64
	       " contentions, cond wait %.1f ms in %" PRIu64 " waits, I/O %.1f ms in %" PRIu64
	       " calls (thread time, summed over threads)\n",
	       ms(d->lock_wait_ns), d->contentions, ms(d->cond_wait_ns), d->cond_waits,
	       ms(iv->io_ns), d->io_calls);
	if (h->sites_dropped || h->locks_dropped || h->threads_dropped)
		printf("shim tables full since start: %" PRIu64 " waits without a site, %" PRIu64
		       " locks not tracked, %" PRIu64 " threads without a slot\n",
		       h->sites_dropped, h->locks_dropped, h->threads_dropped);

	/* LOCKS: how many locks a row is (a family of heap locks at one site); never in the name.
	 */
	printf("\n%-44s %5s %-9s %10s %10s %9s %6s  %s\n", "LOCK", "LOCKS", "KIND", "CONTENDED",
	       "WAIT ms", "AVG us", "HOLD%", "FIRST CONTENDED AT");
	shown = 0;
	for (size_t i = 0; i < iv->lock_rows.n && shown < o->top; i++) {
		const struct lock_row *r = &iv->lock_rows.v[i];
		char label[CORECAP_LOCK_LABEL_MAX];

		if (!row_active(r))
			continue;
		shown++;
		corecap_lock_row_label(r, label, sizeof(label));
		printf("%-44s %5zu %-9s %10" PRIu64 " %10.1f %9.1f %6.1f  %s\n",
		       elide(label, 44, e1, sizeof(e1)), r->n_members, kind_name(r->kind, true),
		       r->contentions, ms(r->wait_ns),
		       (double)corecap_lock_row_avg_wait_ns(r) / 1e3,
		       iv->interval_ns ? 100.0 * (double)r->hold_ns / (double)iv->interval_ns : 0.0,
		       elide(corecap_symbolizer_name(sym, row_first_site(r), true), 48, e2,
			     sizeof(e2)));
	}
	if (!shown)
		printf("(no lock was contended or held in the interval)\n");

	printf("\n%-56s %-9s %10s %10s %9s\n", "SITE (where threads waited)", "KIND", "WAITS",
	       "WAIT ms", "AVG us");
	shown = 0;
	for (size_t i = 0; i < iv->n_sites && shown < o->top; i++) {
		const struct site_row *r = &iv->sites[i];

		if (!r->contentions && !r->wait_ns)
			continue;
		shown++;
		printf("%-56s %-9s %10" PRIu64 " %10.1f %9.1f\n",
		       elide(corecap_symbolizer_name(sym, r->addr, true), 56, e1, sizeof(e1)),
		       kind_name(r->kind, false), r->contentions, ms(r->wait_ns),
		       r->contentions ? (double)r->wait_ns / (double)r->contentions / 1e3 : 0.0);
	}
	if (!shown)
		printf("(no thread waited at a lock or condition in the interval)\n");

	printf("\n%8s %-16s %6s %6s %9s %7s %9s %7s %9s %7s\n", "TID", "THREAD", "CPU%", "RUNQ%",
	       "LOCK ms", "LOCK%", "COND ms", "COND%", "IO ms", "IO%");
	shown = 0;
	for (size_t i = 0; i < iv->n_threads && shown < o->top; i++) {
		const struct thread_row *t = &iv->threads[i];
		double span = iv->interval_ns ? (double)iv->interval_ns : 1.0;
		char c1[16], c2[16];

		shown++;
		printf("%8d %-16s %6s %6s %9.1f %7.1f %9.1f %7.1f %9.1f %7.1f%s\n", t->tid, t->name,
		       pct_or_dash(t->has_cpu, t->cpu_ns, span, c1, sizeof(c1)),
		       pct_or_dash(t->has_runq, t->runq_ns, span, c2, sizeof(c2)),
		       ms(t->lock_wait_ns), 100.0 * (double)t->lock_wait_ns / span,
		       ms(t->cond_wait_ns), 100.0 * (double)t->cond_wait_ns / span, ms(t->io_ns),
		       100.0 * (double)t->io_ns / span, t->live ? "" : " (exited)");
	}
	if (iv->n_threads > (size_t)shown)
		printf("(%zu more threads)\n", iv->n_threads - (size_t)shown);
	printf("\nCPU%%, RUNQ%%: share of the interval the thread ran on a CPU, was runnable\n"
	       "waiting for one (the kernel's schedstat; '-' where it has none). LOCK%%, COND%%,\n"
	       "IO%%: share spent waiting for locks, in condition waits, in I/O calls (a wait\n"
	       "counts when it ends). HOLD%%: share the lock was held exclusively. Differences\n"
	       "over the interval, not totals. No ops/s: the shim counts locks and I/O, not "
	       "ops.\n");
	fflush(stdout);
}

static json_object *jsite(const struct site_row *r, struct symbolizer *sym)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "addr", corecap_stat_json_hex(r->addr));
	json_object_object_add(o, "symbol",
			       json_object_new_string(corecap_symbolizer_name(sym, r->addr, true)));
	json_object_object_add(o, "kind", json_object_new_string(kind_name(r->kind, false)));
	json_object_object_add(o, "contentions", json_object_new_uint64(r->contentions));
	json_object_object_add(o, "wait_ns", json_object_new_uint64(r->wait_ns));
	json_object_object_add(o, "acquisitions", json_object_new_uint64(r->acquisitions));
	json_object_object_add(o, "holds", json_object_new_uint64(r->holds));
	json_object_object_add(o, "hold_ns", json_object_new_uint64(r->hold_ns));
	return o;
}

/* The figures a lock and a family of locks share (the family's summed). */
static void jlock_figures(json_object *o, uint32_t kind, uint64_t contentions, uint64_t wait_ns,
			  uint64_t acquisitions, uint64_t holds, uint64_t hold_ns,
			  uint64_t first_site, struct symbolizer *sym, uint64_t interval_ns)
{
	json_object_object_add(o, "kind", json_object_new_string(kind_name(kind, true)));
	json_object_object_add(o, "contentions", json_object_new_uint64(contentions));
	json_object_object_add(o, "wait_ns", json_object_new_uint64(wait_ns));
	json_object_object_add(o, "acquisitions", json_object_new_uint64(acquisitions));
	json_object_object_add(o, "holds", json_object_new_uint64(holds));
	json_object_object_add(o, "hold_ns", json_object_new_uint64(hold_ns));
	json_object_object_add(
		o, "hold_util",
		json_object_new_double(interval_ns ? (double)hold_ns / (double)interval_ns : 0.0));
	json_object_object_add(o, "first_site", corecap_stat_json_hex(first_site));
	json_object_object_add(
		o, "first_site_symbol",
		json_object_new_string(corecap_symbolizer_name(sym, first_site, true)));
}

static json_object *jlock(const struct model_lock *l, struct symbolizer *sym, uint64_t interval_ns)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "addr", corecap_stat_json_hex(l->addr));
	json_object_object_add(
		o, "name", json_object_new_string(corecap_symbolizer_name(sym, l->addr, false)));
	jlock_figures(o, l->kind, l->stats_contentions, l->stats_wait_ns, l->stats_acquisitions,
		      l->stats_holds, l->stats_hold_ns, l->n_sites ? l->sites[0].site : 0, sym,
		      interval_ns);
	return o;
}

/*
 * A lone lock as itself; a family as one object named "SITE xN" with its
 * members' summed figures and the members, most wait first.
 */
static json_object *jrow(const struct lock_row *r, struct symbolizer *sym, uint64_t interval_ns)
{
	json_object *o, *members;
	char label[CORECAP_LOCK_LABEL_MAX];
	uint64_t holds = 0;

	if (!r->family)
		return jlock(r->members[0], sym, interval_ns);
	o = json_object_new_object();
	corecap_lock_row_label(r, label, sizeof(label));
	json_object_object_add(o, "name", json_object_new_string(label));
	json_object_object_add(o, "family", json_object_new_boolean(true));
	members = json_object_new_array();
	for (size_t i = 0; i < r->n_members; i++) {
		holds += r->members[i]->stats_holds;
		json_object_array_add(members, jlock(r->members[i], sym, interval_ns));
	}
	jlock_figures(o, r->kind, r->contentions, r->wait_ns, row_acquisitions(r), holds,
		      r->hold_ns, row_first_site(r), sym, interval_ns);
	json_object_object_add(o, "members", members);
	return o;
}

static void print_json(const struct stat_opts *o, const char *comm, const struct stat_interval *iv,
		       struct symbolizer *sym, const struct corecap_stats_header *h,
		       uint64_t end_ns)
{
	json_object *root = json_object_new_object(), *a, *t;

	json_object_object_add(root, "source", json_object_new_string("shim"));
	json_object_object_add(root, "pid", json_object_new_int(o->pid));
	json_object_object_add(root, "comm", json_object_new_string(comm));
	json_object_object_add(root, "end_ns", json_object_new_uint64(end_ns));
	json_object_object_add(root, "interval_ns", json_object_new_uint64(iv->interval_ns));
	json_object_object_add(root, "exiting",
			       json_object_new_boolean(!!(h->flags & CORECAP_STATS_F_EXITING)));
	t = json_object_new_object();
	json_object_object_add(t, "contentions", json_object_new_uint64(iv->shim.contentions));
	json_object_object_add(t, "lock_wait_ns", json_object_new_uint64(iv->shim.lock_wait_ns));
	json_object_object_add(t, "cond_waits", json_object_new_uint64(iv->shim.cond_waits));
	json_object_object_add(t, "cond_wait_ns", json_object_new_uint64(iv->shim.cond_wait_ns));
	json_object_object_add(t, "io_calls", json_object_new_uint64(iv->shim.io_calls));
	json_object_object_add(t, "io_ns", json_object_new_uint64(iv->io_ns));
	json_object_object_add(root, "process", t);
	a = json_object_new_array();
	for (size_t i = 0; i < iv->lock_rows.n; i++)
		json_object_array_add(a, jrow(&iv->lock_rows.v[i], sym, iv->interval_ns));
	json_object_object_add(root, "locks", a);
	a = json_object_new_array();
	for (size_t i = 0; i < iv->n_sites; i++)
		json_object_array_add(a, jsite(&iv->sites[i], sym));
	json_object_object_add(root, "sites", a);
	a = json_object_new_array();
	for (size_t i = 0; i < iv->n_threads; i++) {
		const struct thread_row *r = &iv->threads[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "tid", json_object_new_int(r->tid));
		json_object_object_add(j, "name", json_object_new_string(r->name));
		json_object_object_add(j, "live", json_object_new_boolean(r->live));
		json_object_object_add(j, "contentions", json_object_new_uint64(r->contentions));
		json_object_object_add(j, "lock_wait_ns", json_object_new_uint64(r->lock_wait_ns));
		json_object_object_add(j, "cond_waits", json_object_new_uint64(r->cond_waits));
		json_object_object_add(j, "cond_wait_ns", json_object_new_uint64(r->cond_wait_ns));
		json_object_object_add(j, "io_calls", json_object_new_uint64(r->io_calls));
		json_object_object_add(j, "io_ns", json_object_new_uint64(r->io_ns));
		/* From /proc: absent where it could not be read at both ends. */
		if (r->has_cpu)
			json_object_object_add(j, "cpu_ns", json_object_new_uint64(r->cpu_ns));
		if (r->has_runq)
			json_object_object_add(j, "runq_ns", json_object_new_uint64(r->runq_ns));
		json_object_array_add(a, j);
	}
	json_object_object_add(root, "threads", a);
	printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN));
	fflush(stdout);
	json_object_put(root);
}

/* Sleeps until deadline_ns (CLOCK_MONOTONIC) or a signal asks to stop. */
static void sleep_until(uint64_t deadline_ns)
{
	struct timespec ts = {(time_t)(deadline_ns / 1000000000u),
			      (long)(deadline_ns % 1000000000u)};

	while (!stop_requested &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* The kernel view (stat_kernel.h), for a daemon without the shim or with --kernel. */
static int run_kernel(const struct stat_opts *o, const char *comm, bool no_shim)
{
	struct sigaction sa = {.sa_handler = on_signal};
	struct stat_kernel_opts k = {.pid = o->pid,
				     .comm = comm,
				     .duration_s = o->duration_s,
				     .interval_s = o->interval_s,
				     .once = o->once,
				     .json = o->json,
				     .redraw = !o->json && !o->once && isatty(STDOUT_FILENO),
				     .interactive = !o->json && !o->once && isatty(STDOUT_FILENO) &&
						    isatty(STDIN_FILENO),
				     .no_shim = no_shim,
				     .keep_profiler = o->keep_profiler,
				     .top = o->top};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return corecap_stat_kernel_run(&k, &stop_requested);
}

static int run_stat(const struct stat_opts *o)
{
	struct stat_snap snaps[2] = {{0}, {0}};
	struct symbolizer sym;
	const void *map = NULL;
	char comm[64] = "", maps[64], seg[CORECAP_STATS_PATH_MAX], why[256], *err = NULL;
	size_t len = 0, bytes = 0;
	uid_t owner;
	int found;
	uint64_t start_ns, step_ns = (uint64_t)(o->interval_s * 1e9), next_ns;
	bool redraw = !o->json && !o->once && isatty(STDOUT_FILENO), sym_ok, have_last = false;
	int ret, cur = 0, status = 0;
	struct sigaction sa = {.sa_handler = on_signal};
	struct stat_term term = {.fd = -1};
	struct stat_interval last = {0};
	struct stat_live lv = {0};

	if (!process_comm(o->pid, comm, sizeof(comm))) {
		corecap_error("no process with PID %d", (int)o->pid);
		return 1;
	}
	if (o->kernel)
		return run_kernel(o, comm, false);
	if (corecap_stats_legacy_file(o->pid, seg, sizeof(seg), &owner))
		corecap_warn("ignoring '%s' (owner uid %u): corecap reads the shim's counters from "
			     "process %d itself, never from a file",
			     seg, (unsigned)owner, (int)o->pid);
	found = corecap_stats_open(o->pid, O_RDONLY, &bytes, seg, sizeof(seg), why, sizeof(why));
	if (found == -ENOENT && corecap_stat_kernel_source())
		return run_kernel(o, comm, true);
	if (open_segment(o, found, seg, why, bytes, &map, &len))
		return 1;
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)o->pid);
	ret = corecap_symbolizer_init(&sym, maps, NULL, NULL, &err);
	sym_ok = ret == 0 || ret == -ENOENT;
	if (!sym_ok) {
		/* Addresses then print as hex; the figures stay right. */
		corecap_warn("symbols: %s", err ? err : "cannot read the process's maps");
		free(err);
		corecap_symbolizer_init(&sym, "/nonexistent/maps", NULL, NULL, &err);
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (step_ns < 1000000)
		step_ns = 1000000;
	/* Keys only where the view is redrawn and read from a terminal; every
	 * way out of the loop below passes the restore after it. */
	lv.interactive = redraw && corecap_stat_term_enter(&term) == 0;
	ret = take_snap(o->pid, map, len, &snaps[cur]);
	start_ns = snaps[cur].t_ns;
	next_ns = start_ns + step_ns;
	while (ret == 0 && !stop_requested) {
		struct stat_interval iv;
		const struct corecap_stats_header *h;
		bool gone;

		if (lv.interactive) {
			enum stat_key k = corecap_stat_wait_key(&term, next_ns, &stop_requested);

			if (k == STAT_KEY_QUIT)
				break;
			if (k == STAT_KEY_SORT_NEXT || k == STAT_KEY_SORT_PREV) {
				/* Redrawn at once in the new order, as top does. */
				thread_sort = corecap_stat_sort_step(
					thread_sort, k == STAT_KEY_SORT_NEXT ? 1 : -1);
				if (have_last) {
					qsort(last.threads, last.n_threads, sizeof(*last.threads),
					      cmp_threads);
					lv.elapsed_ns = now_ns() - start_ns;
					print_text(o, comm, &last, &sym, snaps[cur].buf, redraw,
						   &lv);
				}
				continue;
			}
		} else {
			sleep_until(next_ns);
		}
		if (stop_requested)
			break;
		ret = take_snap(o->pid, map, len, &snaps[!cur]);
		if (ret)
			break;
		cur = !cur;
		next_ns += step_ns;
		if (diff_snaps(&iv, &snaps[!cur], &snaps[cur], &sym)) {
			ret = -ENOMEM;
			break;
		}
		h = snaps[cur].buf;
		lv.elapsed_ns = snaps[cur].t_ns - start_ns;
		if (o->json)
			print_json(o, comm, &iv, &sym, h, snaps[cur].t_ns);
		else
			print_text(o, comm, &iv, &sym, h, redraw, &lv);
		/* The interactive view keeps it, to redraw it in another order. */
		if (have_last)
			interval_release(&last);
		last = iv;
		have_last = true;
		gone = kill(o->pid, 0) < 0 && errno == ESRCH;
		if (gone || h->flags & CORECAP_STATS_F_EXITING) {
			corecap_note("process %d %s", (int)o->pid,
				     gone ? "exited" : "is exiting; its counters are final");
			break;
		}
		if (o->once || (o->duration_s > 0 &&
				(double)(snaps[cur].t_ns - start_ns) >= o->duration_s * 1e9 - 1e6))
			break;
		if (!o->json && !redraw)
			printf("\n");
	}
	corecap_stat_term_restore(&term);
	if (have_last)
		interval_release(&last);
	if (ret == -EAGAIN)
		corecap_error("the shim segment of PID %d never held still for a copy",
			      (int)o->pid);
	else if (ret == -EINVAL)
		corecap_error("the shim segment of PID %d is no longer a valid stats file",
			      (int)o->pid);
	else if (ret)
		corecap_error("%s", strerror(-ret));
	status = ret ? 1 : 0;
	corecap_symbolizer_release(&sym);
	for (int i = 0; i < 2; i++) {
		free(snaps[i].buf);
		free(snaps[i].tasks);
	}
	munmap((void *)(uintptr_t)map, len);
	return status;
}

int corecap_cmd_stat(int argc, char **argv)
{
	struct stat_opts o;
	int ret = parse_args(&o, argc, argv);

	if (ret)
		return ret < 0 ? 0 : ret;
	return run_stat(&o);
}
