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
#include "util/proc_stat.h"
#include "util/run_dir.h"
#include "vdso_unwind.h"
#include "wall_sampler.h"
#include "util/mono_clock.h"
#include <corecap/run_format.h>

enum { MAX_FRAMES = 128 };

/*
 * A thread that does not reach its stop within the stop budget (in
 * uninterruptible sleep, say) gives its turn to the next one: its sample
 * could only be abandoned. Its stop is still handled (resumed) when it comes.
 */
#define STOP_WAIT_NS CORECAP_WALL_STOP_BUDGET_NS
/*
 * How long other slow work of the collector waits for a thread that was
 * too slow to stop (its turn passed on) to reach its stop: the stop would
 * wait for that work. Past it, the thread is in a long uninterruptible
 * sleep, and the /proc sampler is not held up for it any longer.
 */
#define SLOW_STOP_BUSY_NS 200000000ull
/* Threads interrupted and not yet detached at once, at the window's end. */
#define DETACH_AT_ONCE 32u

enum thread_state {
	T_RUNNING,	/* seized and running; ours to interrupt */
	T_INTERRUPTING, /* PTRACE_INTERRUPT sent, its stop not seen yet */
	T_STOPPED,	/* in our interrupt stop, its unwind to come (service()) */
	T_LISTENING,	/* in a group-stop someone else caused; left stopped */
	T_GONE,
};

struct corecap_wall_thread {
	pid_t tid;
	enum thread_state state;
	void *upt; /* libunwind-ptrace's per-thread state; caches the ELF image */
	uint64_t interrupt_ns;
	uint64_t stopped_ns; /* when its interrupt stop was reported to us */
	bool counted;	     /* holds one of the in-flight slots */
	bool slow;	     /* interrupted, its turn passed on: counted in n_slow */
	uint64_t due, taken; /* samples due (rounds it was in) and written */
	/*
	 * Time held in our stops over the window, from each stop's report to
	 * the thread's resume: its way to the stop is not counted (a runnable
	 * thread waits there for its CPU, as it would have without us; counted,
	 * it rationed a busy thread that shared its CPU to a quarter of its
	 * samples while the others kept theirs, wallshare's ws-spin-a).
	 */
	uint64_t stop_total_ns;
};

void corecap_wall_round_begin(struct corecap_wall_round *r, size_t n, size_t cursor)
{
	r->n = n;
	r->start = n ? cursor % n : 0;
	r->visited = 0;
	r->ended = false;
}

bool corecap_wall_round_done(const struct corecap_wall_round *r)
{
	return r->ended || r->visited >= r->n;
}

size_t corecap_wall_round_next(struct corecap_wall_round *r)
{
	if (corecap_wall_round_done(r))
		return SIZE_MAX;
	return (r->start + r->visited++) % r->n;
}

size_t corecap_wall_round_stop(struct corecap_wall_round *r)
{
	size_t left = corecap_wall_round_done(r) ? 0 : r->n - r->visited;

	r->ended = true;
	return left;
}

size_t corecap_wall_round_cursor(const struct corecap_wall_round *r)
{
	return r->n ? (r->start + r->visited) % r->n : 0;
}

size_t corecap_wall_slots(size_t n)
{
	size_t slots = 1 + n / 32;

	return slots < CORECAP_WALL_MAX_IN_FLIGHT ? slots : CORECAP_WALL_MAX_IN_FLIGHT;
}

bool corecap_wall_stop_allowed(uint64_t stop_total_ns, uint64_t window_ns)
{
	return stop_total_ns <
	       window_ns / 100 * CORECAP_WALL_THREAD_STOP_SHARE_PCT + CORECAP_WALL_STOP_BUDGET_NS;
}

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
	size_t idx = (size_t)(th - ws->threads), k = 0;

	if (!th->counted)
		return;
	th->counted = false;
	while (k < ws->in_flight && ws->flight[k] != idx)
		k++;
	if (k == ws->in_flight)
		return; /* not reached: counted threads are in flight[] */
	memmove(&ws->flight[k], &ws->flight[k + 1],
		(ws->in_flight - k - 1) * sizeof(ws->flight[0]));
	ws->in_flight--;
}

/* The thread has left T_INTERRUPTING: it no longer keeps the sampler busy. */
static void not_slow(struct corecap_wall_sampler *ws, struct corecap_wall_thread *th)
{
	if (th->slow) {
		th->slow = false;
		ws->n_slow--;
	}
}

/* A thread's figures into the window's per-thread ones, before it is forgotten. */
static void account_thread(struct corecap_wall_sampler *ws, const struct corecap_wall_thread *th)
{
	struct corecap_wall_stats *st = &ws->stats;

	if (th->stop_total_ns > st->thread_stop_ns_max)
		st->thread_stop_ns_max = th->stop_total_ns;
	corecap_wall_coverage_add(&st->coverage, th->due, th->taken);
}

/* Marks the thread gone; the slot is reclaimed at the next tick (indices stay put mid-round). */
static void drop_thread(struct corecap_wall_sampler *ws, struct corecap_wall_thread *th)
{
	release_turn(ws, th);
	not_slow(ws, th);
	if (th->upt)
		_UPT_destroy(th->upt);
	th->upt = NULL;
	th->state = T_GONE;
}

/*
 * Drops the gone threads' slots; returns where *cursor (an index of the
 * old array) lands in the new one, and moves the in-flight indices along.
 */
static size_t compact(struct corecap_wall_sampler *ws, size_t cursor)
{
	size_t n = 0, at = SIZE_MAX;

	for (size_t i = 0; i < ws->n_threads; i++) {
		if (i == cursor)
			at = n;
		if (ws->threads[i].state == T_GONE) {
			account_thread(ws, &ws->threads[i]);
			continue;
		}
		for (size_t k = 0; k < ws->in_flight; k++)
			if (ws->flight[k] == i)
				ws->flight[k] = n;
		ws->threads[n++] = ws->threads[i];
	}
	ws->n_threads = n;
	return at == SIZE_MAX ? 0 : at;
}

/* Ends the round where it is, counting the threads it did not reach. */
static void end_round_late(struct corecap_wall_sampler *ws)
{
	size_t left = corecap_wall_round_stop(&ws->round);

	if (!left)
		return;
	ws->stats.late_rounds++;
	ws->stats.skipped += left;
	if (left > ws->stats.skipped_round_max)
		ws->stats.skipped_round_max = left;
}

/*
 * Interrupts the next threads of the round while a slot is free
 * (corecap_wall_slots()), until the round runs out of its time.
 */
static void pump(struct corecap_wall_sampler *ws)
{
	uint64_t t = corecap_now_ns();

	if (!corecap_wall_round_done(&ws->round) && t >= ws->round_end_ns)
		end_round_late(ws);
	while (ws->in_flight < corecap_wall_slots(ws->n_threads)) {
		size_t i = corecap_wall_round_next(&ws->round);
		struct corecap_wall_thread *th;

		if (i == SIZE_MAX)
			break;
		th = &ws->threads[i];
		if (th->state == T_INTERRUPTING) {
			ws->stats.missed++; /* still on its way to a previous stop */
			continue;
		}
		if (th->state != T_RUNNING)
			continue;
		if (!corecap_wall_stop_allowed(th->stop_total_ns, t - ws->start_ns)) {
			ws->stats.rationed++;
			continue;
		}
		if (ptrace(PTRACE_INTERRUPT, th->tid, NULL, NULL) < 0)
			continue; /* exiting; its exit status will come */
		th->state = T_INTERRUPTING;
		th->interrupt_ns = t;
		th->counted = true;
		ws->flight[ws->in_flight++] = i;
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

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Seizes the threads not seized yet. `first`: a failure is an error, not a
 * race. The known threads are looked up in a sorted copy: a search of the
 * array for each of thousands of threads took milliseconds at every tick.
 */
static int seize_new(struct corecap_wall_sampler *ws, bool first)
{
	size_t n_known = ws->n_threads;
	pid_t *known = malloc((n_known ? n_known : 1) * sizeof(*known));
	struct dirent *de;
	int ret = 0;

	if (!known)
		return -ENOMEM;
	for (size_t i = 0; i < n_known; i++)
		known[i] = ws->threads[i].state == T_GONE ? 0 : ws->threads[i].tid;
	qsort(known, n_known, sizeof(*known), cmp_pid);
	rewinddir(ws->tasks);
	while ((de = readdir(ws->tasks))) {
		pid_t tid;
		int r;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		tid = (pid_t)strtol(de->d_name, NULL, 10);
		if (bsearch(&tid, known, n_known, sizeof(*known), cmp_pid))
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
	free(known);
	return ret;
}

int corecap_wall_sampler_init(struct corecap_wall_sampler *ws, pid_t pid, unsigned hz,
			      const char *names, struct corecap_run_dir *rd)
{
	char path[64];
	int ret;

	memset(ws, 0, sizeof(*ws));
	ws->pid = pid;
	ws->hz = hz ? hz : 1;
	ws->start_ns = corecap_now_ns();
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

static void service(struct corecap_wall_sampler *ws);

int corecap_wall_sampler_tick(struct corecap_wall_sampler *ws)
{
	uint64_t period_ns = 1000000000ull / ws->hz, t = corecap_now_ns();
	size_t cursor;
	int ret;

	end_round_late(ws); /* the last round had not reached every thread */
	service(ws);	    /* stops already made wait for none of the work below */
	cursor = corecap_wall_round_cursor(&ws->round);
	flush(ws); /* the last round's lines, whole */
	cursor = compact(ws, cursor);
	ret = seize_new(ws, false);
	/*
	 * Rounds whose tick never came (the collector was busy: reading /proc
	 * of thousands of threads takes a while) were due all the same: their
	 * samples are skipped, not forgotten.
	 */
	if (ws->tick_ns) {
		uint64_t periods = (t - ws->tick_ns + period_ns / 2) / period_ns;

		if (periods > 1) {
			ws->stats.lost_rounds += periods - 1;
			ws->stats.due += (periods - 1) * ws->n_threads;
			ws->stats.skipped += (periods - 1) * ws->n_threads;
		}
	}
	ws->tick_ns = t;
	ws->stats.rounds++;
	ws->stats.due += ws->n_threads;
	for (size_t i = 0; i < ws->n_threads; i++)
		ws->threads[i].due++;
	corecap_wall_round_begin(&ws->round, ws->n_threads, cursor);
	ws->round_end_ns = t + period_ns / 100 * CORECAP_WALL_ROUND_SHARE_PCT;
	pump(ws);
	return ret;
}

bool corecap_wall_sampler_busy(const struct corecap_wall_sampler *ws)
{
	return ws->in_flight > 0 || !corecap_wall_round_done(&ws->round) ||
	       (ws->n_slow && corecap_now_ns() < ws->slow_ns + SLOW_STOP_BUSY_NS);
}

uint64_t corecap_wall_sampler_deadline(const struct corecap_wall_sampler *ws)
{
	uint64_t d = UINT64_MAX;

	for (size_t k = 0; k < ws->in_flight; k++) {
		const struct corecap_wall_thread *th = &ws->threads[ws->flight[k]];

		if (th->state == T_INTERRUPTING && th->interrupt_ns + STOP_WAIT_NS < d)
			d = th->interrupt_ns + STOP_WAIT_NS;
	}
	/* A round whose slots all wait still ends on time. */
	if (!corecap_wall_round_done(&ws->round) && ws->round_end_ns < d)
		d = ws->round_end_ns;
	return d;
}

void corecap_wall_sampler_timeout(struct corecap_wall_sampler *ws)
{
	uint64_t t = corecap_now_ns();

	for (size_t k = 0; k < ws->in_flight;) {
		struct corecap_wall_thread *th = &ws->threads[ws->flight[k]];

		if (th->state == T_INTERRUPTING && t >= th->interrupt_ns + STOP_WAIT_NS) {
			ws->stats.slow_stops++;
			th->slow = true;
			ws->n_slow++;
			ws->slow_ns = th->interrupt_ns;
			release_turn(ws, th); /* shifts flight[k + 1..] down */
		} else {
			k++;
		}
	}
	service(ws);
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

/*
 * The thread is in our interrupt stop: unwind, resume, then write the line.
 * The unwind goes on only while the thread's stop budget lasts (counted
 * from its interrupt); a stack cut short is not written, since a flame
 * graph would file it under the wrong root.
 */
static void sample(struct corecap_wall_sampler *ws, struct corecap_wall_thread *th)
{
	unw_word_t ips[MAX_FRAMES];
	uint64_t seen = corecap_now_ns();
	uint64_t budget_end = th->interrupt_ns + CORECAP_WALL_STOP_BUDGET_NS;
	uint64_t resumed, held_ns;
	bool abandoned = seen >= budget_end;
	unw_cursor_t cur;
	int n = 0;

	unwinding_vdso = &ws->vdso;
	if (!abandoned && th->upt && unw_init_remote(&cur, ws->as, th->upt) == 0) {
		for (;;) {
			unw_word_t ip;

			if (unw_get_reg(&cur, UNW_REG_IP, &ip) < 0 || ip == 0)
				break;
			ips[n++] = ip;
			if (n == MAX_FRAMES || unw_step(&cur) <= 0)
				break;
			if (corecap_now_ns() >= budget_end) {
				abandoned = true;
				break;
			}
		}
	}
	unwinding_vdso = NULL;
	ptrace(PTRACE_CONT, th->tid, NULL, NULL);
	resumed = corecap_now_ns();
	th->state = T_RUNNING;
	release_turn(ws, th);
	held_ns = resumed - th->interrupt_ns;
	th->stop_total_ns += resumed - (th->stopped_ns ? th->stopped_ns : th->interrupt_ns);
	th->stopped_ns = 0;
	if (resumed - seen > ws->stats.hold_ns_max)
		ws->stats.hold_ns_max = resumed - seen;
	if (abandoned) {
		ws->stats.abandoned++;
		record_stop(ws, held_ns);
		return;
	}
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
	th->taken++;
	record_stop(ws, held_ns);
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* Acts on one status of th; our interrupt stop is left for service(). */
static void on_status(struct corecap_wall_sampler *ws, struct corecap_wall_thread *th, int status)
{
	pid_t tid = th->tid;
	int event, sig;

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		drop_thread(ws, th);
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	event = status >> 16;
	sig = WSTOPSIG(status);
	if (event == PTRACE_EVENT_STOP) {
		not_slow(ws, th);
		if (is_stop_signal(sig)) {
			/* A group-stop: not ours to end. Stay attached but stopped. */
			th->state = T_LISTENING;
			ptrace(PTRACE_LISTEN, tid, NULL, NULL);
			release_turn(ws, th);
		} else if (th->state == T_INTERRUPTING) {
			th->state = T_STOPPED;
			th->stopped_ns = corecap_now_ns();
			/* Its turn has passed on (too slow to stop): over budget, resumed now. */
			if (!th->counted)
				sample(ws, th);
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

/*
 * Unwinds the stopped threads in flight, oldest interrupt first, and
 * interrupts the next ones. Before each, it asks every thread in flight
 * for its status itself: waitpid(-1) reports the most recently seized
 * tracee first, so an older thread's stop could otherwise wait behind a
 * stream of newer ones (it did: 250 ms and more on 2,000 threads).
 */
static void service(struct corecap_wall_sampler *ws)
{
	for (;;) {
		struct corecap_wall_thread *oldest = NULL;
		bool got;

		do {
			got = false;
			for (size_t k = 0; k < ws->in_flight && !got; k++) {
				struct corecap_wall_thread *th = &ws->threads[ws->flight[k]];
				int status;

				if (th->state == T_INTERRUPTING &&
				    waitpid(th->tid, &status, __WALL | WNOHANG) == th->tid) {
					on_status(ws, th, status); /* may shift flight[] */
					got = true;
				}
			}
		} while (got);
		for (size_t k = 0; k < ws->in_flight && !oldest; k++)
			if (ws->threads[ws->flight[k]].state == T_STOPPED)
				oldest = &ws->threads[ws->flight[k]];
		if (!oldest)
			break;
		sample(ws, oldest);
		pump(ws);
	}
	pump(ws);
}

void corecap_wall_sampler_handle(struct corecap_wall_sampler *ws, pid_t tid, int status)
{
	struct corecap_wall_thread *th = find_thread(ws, tid);

	if (!th)
		return;
	on_status(ws, th, status);
	service(ws);
}

/* Detaches th, which is in a stop of status (0: our interrupt stop, seen). */
static void detach_stopped(struct corecap_wall_thread *th, int status)
{
	/* Deliver a signal being reported; a group-stop stays in force. */
	long data = status && WIFSTOPPED(status) && (status >> 16) == 0 ? WSTOPSIG(status) : 0;

	ptrace(PTRACE_DETACH, th->tid, NULL, (void *)data);
	th->state = T_GONE;
}

/* Says so when the sampler took under 90% of the samples due, or starved a thread. */
static void warn_behind(const struct corecap_wall_sampler *ws)
{
	const struct corecap_wall_stats *st = &ws->stats;

	if (!st->due || (st->samples * 10 >= st->due * 9 && !st->coverage.threads_starved))
		return;
	/* "wall N samples": the words the progress line counts them in. */
	corecap_warn(
		"the wall-clock sampler fell behind: wall %llu samples, %llu due (%.1f%%) "
		"from %zu thread(s) of PID %d; %llu skipped in %llu late and %llu lost rounds, "
		"%llu abandoned over the %llu ms stop budget, %llu rationed; %llu thread(s) "
		"got none",
		(unsigned long long)st->samples, (unsigned long long)st->due,
		100.0 * (double)st->samples / (double)st->due, st->max_threads, (int)ws->pid,
		(unsigned long long)st->skipped, (unsigned long long)st->late_rounds,
		(unsigned long long)st->lost_rounds, (unsigned long long)st->abandoned,
		(unsigned long long)(CORECAP_WALL_STOP_BUDGET_NS / 1000000),
		(unsigned long long)st->rationed, (unsigned long long)st->coverage.threads_starved);
}

int corecap_wall_sampler_detach(struct corecap_wall_sampler *ws, unsigned timeout_ms)
{
	uint64_t deadline = corecap_now_ns() + (uint64_t)timeout_ms * 1000000u;
	size_t next = 0, left;
	int ret = 0;

	/* The window ended before their turn: not due after all. */
	ws->stats.due -= corecap_wall_round_stop(&ws->round);
	if (!ws->summed) {
		for (size_t i = 0; i < ws->n_threads; i++)
			account_thread(ws, &ws->threads[i]);
		if (ws->stats.rounds)
			warn_behind(ws);
		ws->summed = true;
	}
	/*
	 * Only a stopped tracee can be detached: interrupt a few threads at a
	 * time and detach each as its stop comes, so that no thread waits in
	 * its stop for all the others to stop.
	 */
	for (;;) {
		size_t pending = 0;
		bool moved = false;

		left = 0;
		for (size_t i = 0; i < ws->n_threads; i++) {
			struct corecap_wall_thread *th = &ws->threads[i];
			int status;
			pid_t r;

			if (th->state == T_STOPPED) {
				detach_stopped(th, 0);
				moved = true;
			} else if (th->state == T_LISTENING) {
				if (ptrace(PTRACE_DETACH, th->tid, NULL, NULL) == 0)
					th->state = T_GONE;
				else
					th->state = T_RUNNING; /* SIGCONT came: interrupt it */
				moved = true;
			}
			if (th->state == T_RUNNING) {
				left++;
				continue;
			}
			if (th->state != T_INTERRUPTING)
				continue;
			r = waitpid(th->tid, &status, __WALL | WNOHANG);
			if (r < 0 && errno == ECHILD) {
				th->state = T_GONE;
				moved = true;
			} else if (r <= 0) {
				pending++;
				left++;
			} else if (WIFEXITED(status) || WIFSIGNALED(status)) {
				th->state = T_GONE;
				moved = true;
			} else if (WIFSTOPPED(status)) {
				detach_stopped(th, status);
				moved = true;
			} else {
				pending++;
				left++;
			}
		}
		for (; next < ws->n_threads && pending < DETACH_AT_ONCE; next++) {
			struct corecap_wall_thread *th = &ws->threads[next];

			if (th->state != T_RUNNING)
				continue;
			if (ptrace(PTRACE_INTERRUPT, th->tid, NULL, NULL) == 0) {
				th->state = T_INTERRUPTING;
				pending++;
			} else {
				th->state = T_GONE; /* exiting: the kernel drops it */
				left--;
			}
			moved = true;
		}
		if (left == 0 || corecap_now_ns() >= deadline)
			break;
		if (!moved)
			usleep(200);
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
	ws->n_slow = 0;
	corecap_wall_round_begin(&ws->round, 0, 0);
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
