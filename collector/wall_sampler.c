#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libunwind-ptrace.h>

#include <corecap/diag.h>
#include "proc_stat.h"
#include "run_dir.h"
#include "vdso_unwind.h"
#include "wall_sampler.h"
#include "mono_clock.h"
#include <corecap/run_format.h>

enum { MAX_FRAMES = 128 };

/*
 * A round samples one thread at a time (one per 32 threads, see pump()):
 * each thread is held only for its own stop and unwind. A thread that does
 * not reach its stop in STOP_WAIT_NS (in uninterruptible sleep, say) gives
 * its turn to the next one; its stop is still handled when it comes.
 */
#define STOP_WAIT_NS 20000000ull

enum thread_state {
	T_RUNNING,	/* seized and running; ours to interrupt */
	T_INTERRUPTING, /* PTRACE_INTERRUPT sent, its stop not seen yet */
	T_LISTENING,	/* in a group-stop someone else caused; left stopped */
	T_GONE,
};

struct corecap_wall_thread {
	pid_t tid;
	enum thread_state state;
	void *upt; /* libunwind-ptrace's per-thread state; caches the ELF image */
	uint64_t interrupt_ns;
	bool counted; /* holds the round's in-flight slot */
};

/*
 * libunwind's search of an .eh_frame_hdr table in the target's memory,
 * which _UPT_find_proc_info uses for a file's table: exported by
 * libunwind but not declared in its headers (perf's unwind-libunwind
 * declares it so too).
 */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);

/*
 * The vDSO table of the process whose thread sample() unwinds: set for
 * that one synchronous unwind. A file-level pointer, because libunwind
 * hands the accessors the argument of unw_init_remote, and
 * libunwind-ptrace's functions hand theirs on: the argument must stay
 * libunwind-ptrace's own state.
 */
static const struct corecap_vdso_unwind *unwinding_vdso;

/* _UPT_find_proc_info, but for a frame in the vDSO, which it finds no
 * table for (vdso_unwind.h): that table, in the target's memory. */
static int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			  int need_unwind_info, void *arg)
{
	const struct corecap_vdso_unwind *v = unwinding_vdso;
	unw_dyn_info_t di;

	if (!v || !v->n_fdes || ip < v->text_start || ip >= v->text_end)
		return _UPT_find_proc_info(as, ip, pi, need_unwind_info, arg);
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = v->text_start;
	di.end_ip = v->text_end;
	di.u.rti.segbase = v->hdr_addr; /* the table's offsets are from the header */
	di.u.rti.table_data = v->table_addr;
	di.u.rti.table_len = v->n_fdes * 8 / sizeof(unw_word_t);
	return UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need_unwind_info, arg);
}

static unw_accessors_t accessors;

static struct corecap_wall_thread *find_thread(const struct corecap_wall_sampler *ws, pid_t tid)
{
	for (size_t i = 0; i < ws->n_threads; i++)
		if (ws->threads[i].tid == tid && ws->threads[i].state != T_GONE)
			return &ws->threads[i];
	return NULL;
}

bool corecap_wall_sampler_owns(const struct corecap_wall_sampler *ws, pid_t tid)
{
	return find_thread(ws, tid) != NULL;
}

static void release_turn(struct corecap_wall_sampler *ws, struct corecap_wall_thread *th)
{
	if (th->counted) {
		th->counted = false;
		ws->in_flight--;
	}
}

/* Marks the thread gone; the slot is reclaimed at the next tick (indices stay put mid-round). */
static void drop_thread(struct corecap_wall_sampler *ws, struct corecap_wall_thread *th)
{
	release_turn(ws, th);
	if (th->upt)
		_UPT_destroy(th->upt);
	th->upt = NULL;
	th->state = T_GONE;
}

static void compact(struct corecap_wall_sampler *ws)
{
	size_t n = 0;

	for (size_t i = 0; i < ws->n_threads; i++)
		if (ws->threads[i].state != T_GONE)
			ws->threads[n++] = ws->threads[i];
	ws->n_threads = n;
}

/*
 * Interrupts the next threads of the round while a turn is free. One turn
 * per 32 threads: a daemon with hundreds of threads still gets its rounds
 * done within a tick, at the price of a few threads held at once.
 */
static void pump(struct corecap_wall_sampler *ws)
{
	size_t turns = 1 + ws->n_threads / 32;
	uint64_t t = corecap_now_ns();

	while (ws->in_flight < turns && ws->round_next < ws->n_threads) {
		struct corecap_wall_thread *th = &ws->threads[ws->round_next++];

		if (th->state == T_INTERRUPTING) {
			ws->stats.missed++; /* still on its way to a previous stop */
			continue;
		}
		if (th->state != T_RUNNING)
			continue;
		if (ptrace(PTRACE_INTERRUPT, th->tid, NULL, NULL) < 0)
			continue; /* exiting; its exit status will come */
		th->state = T_INTERRUPTING;
		th->interrupt_ns = t;
		th->counted = true;
		ws->in_flight++;
	}
}

static pid_t tracer_of(pid_t tid)
{
	char path[64], buf[4096];
	const char *p;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (corecap_read_small_file(AT_FDCWD, path, buf, sizeof(buf)) < 0)
		return 0;
	p = strstr(buf, "\nTracerPid:");
	return p ? (pid_t)strtol(p + 11, NULL, 10) : 0;
}

/* Seizes one thread; 0, -ESRCH when it is already gone, or another -errno. */
static int seize(struct corecap_wall_sampler *ws, pid_t tid)
{
	struct corecap_wall_thread *th;

	if (ws->n_threads == ws->cap_threads) {
		size_t cap = ws->cap_threads ? 2 * ws->cap_threads : 64;
		struct corecap_wall_thread *t = realloc(ws->threads, cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		ws->threads = t;
		ws->cap_threads = cap;
	}
	/* No options: PTRACE_O_EXITKILL would take the daemon down with us. */
	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0)
		return -errno;
	th = &ws->threads[ws->n_threads++];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	th->state = T_RUNNING;
	th->upt = _UPT_create(tid);
	if (!th->upt)
		ws->stats.unwind_errors++;
	return 0;
}

/* Does comm match one of the comma-separated globs? -ENOMEM, 0 or 1. */
static int name_matches(const char *globs, const char *comm)
{
	for (const char *p = globs; *p;) {
		size_t n = strcspn(p, ",");
		char *glob;
		int m;

		if (n) {
			glob = strndup(p, n);
			if (!glob)
				return -ENOMEM;
			m = fnmatch(glob, comm, 0) == 0;
			free(glob);
			if (m)
				return 1;
		}
		p += n + (p[n] == ',');
	}
	return 0;
}

/*
 * Whether tid is to be sampled: always without globs; else when its name
 * matches one. A thread that does not is remembered for a second, so that
 * its name is not read again at every tick. -ENOMEM, 0 or 1.
 */
static int wanted(struct corecap_wall_sampler *ws, pid_t tid)
{
	char path[64], comm[16];
	uint64_t t;
	int m;

	if (!ws->names)
		return 1;
	t = corecap_now_ns();
	if (t >= ws->passed_until_ns) {
		ws->n_passed = 0;
		ws->passed_until_ns = t + 1000000000ull;
	}
	for (size_t i = 0; i < ws->n_passed; i++)
		if (ws->passed[i] == tid)
			return 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)ws->pid, (int)tid);
	corecap_read_comm(path, comm); /* "" when the thread is gone */
	m = name_matches(ws->names, comm);
	if (m)
		return m;
	if (ws->n_passed == ws->cap_passed) {
		size_t cap = ws->cap_passed ? 2 * ws->cap_passed : 64;
		pid_t *p = realloc(ws->passed, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		ws->passed = p;
		ws->cap_passed = cap;
	}
	ws->passed[ws->n_passed++] = tid;
	return 0;
}

/* Seizes the threads not seized yet. `first`: a failure is an error, not a race. */
static int seize_new(struct corecap_wall_sampler *ws, bool first)
{
	struct dirent *de;
	int ret = 0;

	rewinddir(ws->tasks);
	while ((de = readdir(ws->tasks))) {
		pid_t tid;
		int r;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		tid = (pid_t)strtol(de->d_name, NULL, 10);
		if (find_thread(ws, tid))
			continue;
		r = wanted(ws, tid);
		if (r < 0) {
			ret = r;
			break;
		}
		if (!r)
			continue;
		r = seize(ws, tid);
		if (r == -ESRCH || r == 0)
			continue;
		if (first) {
			pid_t tracer = tracer_of(tid);

			if (r == -EPERM && tracer > 0)
				corecap_error(
					"cannot attach to PID %d: %s (already traced by PID %d)",
					(int)ws->pid, strerror(-r), (int)tracer);
			else
				corecap_error("cannot attach to PID %d (thread %d): %s",
					      (int)ws->pid, (int)tid, strerror(-r));
			ret = r;
			break;
		}
	}
	if (ws->n_threads > ws->stats.max_threads)
		ws->stats.max_threads = ws->n_threads;
	return ret;
}

int corecap_wall_sampler_init(struct corecap_wall_sampler *ws, pid_t pid, unsigned hz,
			      const char *names, struct corecap_run_dir *rd)
{
	char path[64];
	int ret;

	memset(ws, 0, sizeof(*ws));
	ws->pid = pid;
	ws->hz = hz;
	ws->names = names;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	ws->tasks = opendir(path);
	if (!ws->tasks) {
		ret = -errno;
		corecap_error("cannot list the threads of PID %d: %s", (int)pid, strerror(errno));
		goto out;
	}
	/* Without it, vDSO frames unwind as before (by the frame pointer). */
	corecap_vdso_unwind_init(&ws->vdso, pid);
	accessors = _UPT_accessors;
	accessors.find_proc_info = find_proc_info;
	ws->as = unw_create_addr_space(&accessors, 0);
	if (!ws->as) {
		ret = -ENOMEM;
		corecap_error("cannot create a libunwind address space");
		goto out_close_tasks;
	}
	unw_set_caching_policy(ws->as, UNW_CACHE_GLOBAL);
	ret = corecap_run_dir_fopen(rd, CORECAP_RUN_WALL, &ws->out);
	if (ret < 0)
		goto out_destroy_as;
	setvbuf(ws->out, NULL, _IOFBF, 1u << 20);
	ret = seize_new(ws, true);
	if (ret < 0)
		goto out_detach;
	goto out;

out_detach:
	corecap_wall_sampler_detach(ws, 1000);
	fclose(ws->out);
	ws->out = NULL;
out_destroy_as:
	unw_destroy_addr_space(ws->as);
	ws->as = NULL;
out_close_tasks:
	closedir(ws->tasks);
	ws->tasks = NULL;
out:
	return ret;
}

static void flush(struct corecap_wall_sampler *ws)
{
	corecap_run_file_flush(ws->out, CORECAP_RUN_WALL, &ws->write_errno);
}

int corecap_wall_sampler_tick(struct corecap_wall_sampler *ws)
{
	int ret;

	if (ws->round_next < ws->n_threads)
		ws->stats.late_rounds++; /* the last round had not reached every thread */
	flush(ws);			 /* the last round's lines, whole */
	compact(ws);
	ret = seize_new(ws, false);
	ws->stats.rounds++;
	ws->round_next = 0;
	pump(ws);
	return ret;
}

bool corecap_wall_sampler_busy(const struct corecap_wall_sampler *ws)
{
	return ws->in_flight > 0 || ws->round_next < ws->n_threads;
}

uint64_t corecap_wall_sampler_deadline(const struct corecap_wall_sampler *ws)
{
	for (size_t i = 0; i < ws->n_threads; i++)
		if (ws->threads[i].counted)
			return ws->threads[i].interrupt_ns + STOP_WAIT_NS;
	return UINT64_MAX;
}

void corecap_wall_sampler_timeout(struct corecap_wall_sampler *ws)
{
	uint64_t t = corecap_now_ns();

	for (size_t i = 0; i < ws->n_threads; i++) {
		struct corecap_wall_thread *th = &ws->threads[i];

		if (th->counted && t >= th->interrupt_ns + STOP_WAIT_NS) {
			ws->stats.slow_stops++;
			release_turn(ws, th);
		}
	}
	pump(ws);
}

static void record_stop(struct corecap_wall_sampler *ws, uint64_t stop_ns)
{
	if (stop_ns >= CORECAP_WALL_LONG_STOP_NS)
		ws->stats.long_stops++;
	if (ws->n_stop_ns == ws->cap_stop_ns) {
		size_t cap = ws->cap_stop_ns ? 2 * ws->cap_stop_ns : 4096;
		uint64_t *p = realloc(ws->stop_ns, cap * sizeof(*p));

		if (!p)
			return;
		ws->stop_ns = p;
		ws->cap_stop_ns = cap;
	}
	ws->stop_ns[ws->n_stop_ns++] = stop_ns;
}

/* The thread is in our interrupt stop: unwind, resume, then write the line. */
static void sample(struct corecap_wall_sampler *ws, struct corecap_wall_thread *th)
{
	unw_word_t ips[MAX_FRAMES];
	uint64_t seen = corecap_now_ns();
	uint64_t resumed;
	unw_cursor_t cur;
	int n = 0;

	unwinding_vdso = &ws->vdso;
	if (th->upt && unw_init_remote(&cur, ws->as, th->upt) == 0) {
		do {
			unw_word_t ip;

			if (unw_get_reg(&cur, UNW_REG_IP, &ip) < 0 || ip == 0)
				break;
			ips[n++] = ip;
		} while (n < MAX_FRAMES && unw_step(&cur) > 0);
	}
	unwinding_vdso = NULL;
	ptrace(PTRACE_CONT, th->tid, NULL, NULL);
	resumed = corecap_now_ns();
	th->state = T_RUNNING;
	release_turn(ws, th);
	if (n == 0) {
		ws->stats.unwind_errors++;
		return;
	}
	fprintf(ws->out, "%llu\t%d\t%llu\t", (unsigned long long)seen, (int)th->tid,
		(unsigned long long)(resumed - th->interrupt_ns));
	for (int i = 0; i < n; i++)
		fprintf(ws->out, i ? " %lx" : "%lx", (unsigned long)ips[i]);
	fputc('\n', ws->out);
	ws->stats.samples++;
	record_stop(ws, resumed - th->interrupt_ns);
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

void corecap_wall_sampler_handle(struct corecap_wall_sampler *ws, pid_t tid, int status)
{
	struct corecap_wall_thread *th = find_thread(ws, tid);
	int event, sig;

	if (!th)
		return;
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		drop_thread(ws, th);
		pump(ws);
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	event = status >> 16;
	sig = WSTOPSIG(status);
	if (event == PTRACE_EVENT_STOP) {
		if (is_stop_signal(sig)) {
			/* A group-stop: not ours to end. Stay attached but stopped. */
			th->state = T_LISTENING;
			ptrace(PTRACE_LISTEN, tid, NULL, NULL);
			release_turn(ws, th);
			pump(ws);
		} else if (th->state == T_INTERRUPTING) {
			sample(ws, th);
			pump(ws);
		} else {
			/* The end of a group-stop (SIGCONT) seen while listening. */
			th->state = T_RUNNING;
			ptrace(PTRACE_CONT, tid, NULL, NULL);
		}
		return;
	}
	if (event == 0) {
		/* A signal-delivery-stop: pass the signal on at once. */
		ws->stats.signals++;
		ptrace(PTRACE_CONT, tid, NULL, (void *)(long)sig);
		return;
	}
	/* Events we did not ask for (none expected): keep the thread going. */
	ptrace(PTRACE_CONT, tid, NULL, NULL);
}

int corecap_wall_sampler_detach(struct corecap_wall_sampler *ws, unsigned timeout_ms)
{
	uint64_t deadline = corecap_now_ns() + (uint64_t)timeout_ms * 1000000u;
	size_t left;
	int ret = 0;

	/* Ask every thread to stop; only a stopped tracee can be detached. */
	for (size_t i = 0; i < ws->n_threads; i++) {
		struct corecap_wall_thread *th = &ws->threads[i];

		if (th->state == T_RUNNING && ptrace(PTRACE_INTERRUPT, th->tid, NULL, NULL) == 0)
			th->state = T_INTERRUPTING;
		else if (th->state == T_LISTENING &&
			 ptrace(PTRACE_DETACH, th->tid, NULL, NULL) == 0)
			th->state = T_GONE;
		else if (th->state == T_RUNNING)
			th->state = T_GONE; /* exiting: the kernel drops it */
	}
	for (;;) {
		left = 0;
		for (size_t i = 0; i < ws->n_threads; i++) {
			struct corecap_wall_thread *th = &ws->threads[i];
			int status;
			pid_t r;

			if (th->state == T_GONE)
				continue;
			r = waitpid(th->tid, &status, __WALL | WNOHANG);
			if (r < 0 && errno == ECHILD) {
				th->state = T_GONE;
				continue;
			}
			if (r <= 0) {
				left++;
				continue;
			}
			if (WIFEXITED(status) || WIFSIGNALED(status)) {
				th->state = T_GONE;
			} else if (WIFSTOPPED(status)) {
				int sig = WSTOPSIG(status);
				/* Deliver a signal being reported; a group-stop stays in force. */
				long data = (status >> 16) == 0 ? sig : 0;

				ptrace(PTRACE_DETACH, th->tid, NULL, (void *)data);
				th->state = T_GONE;
			}
		}
		if (left == 0 || corecap_now_ns() >= deadline)
			break;
		usleep(1000);
	}
	if (left > 0) {
		corecap_warn("%zu thread(s) of PID %d did not stop to be detached; they will be "
			     "detached when corecap exits",
			     left, (int)ws->pid);
		ret = -ETIMEDOUT;
	}
	for (size_t i = 0; i < ws->n_threads; i++)
		if (ws->threads[i].upt)
			_UPT_destroy(ws->threads[i].upt);
	ws->n_threads = 0;
	ws->in_flight = 0;
	ws->round_next = 0;
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int corecap_wall_sampler_release(struct corecap_wall_sampler *ws)
{
	int ret = 0;

	if (ws->n_threads)
		corecap_wall_sampler_detach(ws, 2000);
	if (ws->n_stop_ns) {
		qsort(ws->stop_ns, ws->n_stop_ns, sizeof(*ws->stop_ns), cmp_u64);
		ws->stats.stop_ns_median = ws->stop_ns[ws->n_stop_ns / 2];
		ws->stats.stop_ns_p99 = ws->stop_ns[ws->n_stop_ns * 99 / 100];
		ws->stats.stop_ns_max = ws->stop_ns[ws->n_stop_ns - 1];
	}
	if (ws->out)
		ret = corecap_run_file_close(ws->out, CORECAP_RUN_WALL, &ws->write_errno);
	ws->out = NULL;
	if (ws->as)
		unw_destroy_addr_space(ws->as);
	ws->as = NULL;
	if (ws->tasks)
		closedir(ws->tasks);
	ws->tasks = NULL;
	free(ws->threads);
	free(ws->stop_ns);
	free(ws->passed);
	ws->passed = NULL;
	ws->n_passed = ws->cap_passed = 0;
	ws->threads = NULL;
	ws->stop_ns = NULL;
	ws->n_stop_ns = ws->cap_stop_ns = 0;
	ws->cap_threads = 0;
	return ret;
}
