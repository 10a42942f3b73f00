/*
 * `corecap stat`'s kernel view (stat_kernel.h): one interval at a time, a
 * run directory of kernel events from the caller's source, built into the
 * interval's figures (pass/stat_kernel_build.h: read/kernel_reader,
 * model/kernel_states and model/futex_locks as the report does, named by
 * the symbolizer over /proc/PID/maps), rendered
 * (render/stat_kernel_render.h), and handed back to the source to remove.
 * The keys are read on a thread of their own while the capture waits.
 */
#include "stat_kernel.h"

#include <corecap/diag.h>
#include <corecap/stats_path.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "model/stat_kernel_interval.h"
#include "pass/stat_kernel_build.h"
#include "read/symbolizer.h"
#include "render/stat_kernel_render.h"
#include "render/stat_view.h"

static const struct corecap_stat_kernel_source *kernel_source;

void corecap_stat_set_kernel_source(const struct corecap_stat_kernel_source *src)
{
	kernel_source = src;
}

const struct corecap_stat_kernel_source *corecap_stat_kernel_source(void)
{
	return kernel_source;
}

/* The threads' order of the next interval: set by the key thread. */
static _Atomic int ksort = KSORT_BUSY;

static bool process_gone(pid_t pid)
{
	return kill(pid, 0) < 0 && errno == ESRCH;
}

/*
 * The interactive view's keys, read on a thread of their own while the
 * main thread waits in the capture of an interval: q stops the capture
 * (through the flag it watches, which also follows the caller's *stop),
 * s, > and < change the order of the next interval's threads.
 */
struct kkeys {
	struct stat_term term;
	const volatile sig_atomic_t *stop; /* the caller's: signals */
	/* What the capture watches (its type): stop, q, or done; one int, written whole. */
	volatile sig_atomic_t halt;
};

static uint64_t mono_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *keys_main(void *arg)
{
	struct kkeys *k = arg;

	while (!k->halt) {
		/* 50 ms at a time, to pass a signal's stop on to the capture. */
		enum stat_key key =
			corecap_stat_wait_key(&k->term, mono_now_ns() + 50000000u, &k->halt);

		if (*k->stop)
			k->halt = 1;
		if (key == STAT_KEY_QUIT)
			k->halt = 1;
		else if (key == STAT_KEY_SORT_NEXT)
			ksort = (ksort + 1) % KSORT__COUNT;
		else if (key == STAT_KEY_SORT_PREV)
			ksort = (ksort + KSORT__COUNT - 1) % KSORT__COUNT;
	}
	return NULL;
}

/*
 * The kernel events of o's process cannot be read (why): said once, with
 * the shim's absence first when that is why stat turned to them.
 */
static void kernel_unreadable(const struct stat_kernel_opts *o, const char *why)
{
	if (o->no_shim) {
		corecap_error("process %d (%s) runs without the shim (no segment "
			      "'" CORECAP_STATS_LINK_FMT "' among its descriptors), and its "
			      "kernel events cannot be read: %s",
			      (int)o->pid, o->comm, (int)o->pid, why);
		corecap_note("start the daemon under 'corecap run' for the shim's view, or run "
			     "stat where kernel events are allowed");
	} else {
		corecap_error("cannot read the kernel events of PID %d (%s): %s", (int)o->pid,
			      o->comm, why);
	}
}

int corecap_stat_kernel_run(const struct stat_kernel_opts *o, const volatile sig_atomic_t *stop)
{
	const struct corecap_stat_kernel_source *src = kernel_source;
	uint64_t step_ns = (uint64_t)(o->interval_s * 1e9), first_ns = 0;
	struct symbolizer sym;
	char why[512] = "", maps[64], *err = NULL;
	void *ctx = NULL;
	int ret, status = 0;
	struct kkeys keys = {.term = {.fd = -1}};
	const volatile sig_atomic_t *signalled = stop; /* the caller's, kept when keys take over */
	pthread_t keys_thread;
	bool have_keys = false;
	struct stat_kernel_of of = {
		.pid = o->pid, .comm = o->comm, .keep_profiler = o->keep_profiler};
	struct stat_view_of view = {.pid = o->pid, .comm = o->comm, .top = o->top};

	if (!src) {
		corecap_error("this corecap was built without a kernel source");
		return 1;
	}
	ret = src->open(&ctx, o->pid, why, sizeof(why));
	if (ret) {
		kernel_unreadable(o, why);
		return 1;
	}
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)o->pid);
	ret = corecap_symbolizer_init(&sym, maps, NULL, NULL, &err);
	if (ret && ret != -ENOENT) {
		/* Addresses then print as hex; the figures stay right. */
		corecap_warn("symbols: %s", err ? err : "cannot read the process's maps");
		free(err);
		err = NULL;
		corecap_symbolizer_init(&sym, "/nonexistent/maps", NULL, NULL, &err);
	}
	if (step_ns < 10000000)
		step_ns = 10000000; /* opening the events each interval takes milliseconds */
	/* Keys only where the view is interactive; the terminal is restored after the loop. */
	if (o->interactive && corecap_stat_term_enter(&keys.term) == 0) {
		keys.stop = stop;
		if (pthread_create(&keys_thread, NULL, keys_main, &keys) == 0) {
			have_keys = true;
			stop = &keys.halt;
		} else {
			corecap_stat_term_restore(&keys.term);
		}
	}
	while (!*stop) {
		struct stat_kernel_interval iv;
		struct stat_klive lv = {.redraw = o->redraw,
					.interactive = o->interactive,
					.sort = (enum stat_ksort)ksort};
		const char *dir = NULL;
		uint64_t ws = 0, we = 0;

		ret = src->interval(ctx, step_ns, stop, &dir, &ws, &we, why, sizeof(why));
		if (ret == -EINTR)
			break;
		if (ret) {
			if (process_gone(o->pid)) {
				corecap_note("process %d exited", (int)o->pid);
			} else if (!first_ns) {
				/* Opened (perf allowed) but never read (tracefs root's alone, say). */
				kernel_unreadable(o, why);
				status = 1;
			} else {
				corecap_error("kernel events of PID %d: %s", (int)o->pid, why);
				status = 1;
			}
			break;
		}
		if (!first_ns)
			first_ns = ws;
		ret = corecap_stat_kernel_build(&iv, dir, ws, we, &of, &sym, lv.sort, &err);
		if (ret) {
			corecap_error("%s", err ? err : strerror(-ret));
			free(err);
			corecap_stat_kernel_interval_release(&iv);
			status = 1;
			break;
		}
		lv.elapsed_ns = we - first_ns;
		if (o->json)
			corecap_stat_kernel_render_json(&view, &iv, &sym);
		else
			corecap_stat_kernel_render_text(&view, &iv, &sym, &lv);
		corecap_stat_kernel_interval_release(&iv);
		if (process_gone(o->pid)) {
			corecap_note("process %d exited", (int)o->pid);
			break;
		}
		if (o->once ||
		    (o->duration_s > 0 && (double)(we - first_ns) >= o->duration_s * 1e9 - 1e6))
			break;
		if (!o->json && !o->redraw)
			printf("\n");
	}
	if (have_keys) {
		keys.halt = 1;
		pthread_join(keys_thread, NULL);
		corecap_stat_term_restore(&keys.term);
	}
	if (*signalled)
		corecap_note("interrupted");
	src->close(ctx);
	corecap_symbolizer_release(&sym);
	return status;
}
