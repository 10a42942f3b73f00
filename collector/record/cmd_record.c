/*
 * corecap record: records a running daemon for a window (a benchmark's
 * run, -d seconds, or until Ctrl-C) into a run directory.
 *
 * One thread does everything, in one loop: ptrace requires that the thread
 * that seized a tracee is the one that waits for it and resumes it, and a
 * single poll() over a self-pipe (woken by SIGCHLD, SIGINT, SIGTERM,
 * SIGHUP) and the benchmark's output keeps every stop of the daemon short.
 * Signal handlers only set a flag and write to the pipe; the loop cleans
 * up, and the exit status is 128 + the signal. A process beside it (the
 * stop watchdog) resumes it if it is stopped while the daemon waits for it.
 * The manifest is written as a "partial" checkpoint when the window starts
 * and once a second after, so a collector killed outright leaves a run
 * that says how far it got.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <corecap/collector.h>
#include <corecap/kernel_format.h>

#include "workload/bench_label.h"
#include "workload/bench_parse.h"
#include "workload/bench_runner.h"
#include "sources/ceph_asok.h"
#include "util/cpu_list.h"
#include "sources/cpu_profile.h"
#include <corecap/diag.h>
#include <corecap/opt_table.h>
#include "kernel/kernel_events.h"
#include "sources/lttng_session.h"
#include "manifest.h"
#include "sources/maps_buildid.h"
#include "sources/proc_sampler.h"
#include "util/proc_stat.h"
#include "hosts/host_record.h"
#include "record_multi.h"
#include "record_opts.h"
#include "record_signals.h"
#include "util/run_dir.h"
#include "sources/stats_snapshot.h"
#include "stop_watchdog.h"
#include "kernel/timens.h"
#include "sources/target.h"
#include "sources/wall_sampler.h"
#include "sources/wake_probe.h"
#include "sources/device_window.h"
#include "util/mono_clock.h"
#include <corecap/run_format.h>

#define BENCH_GRACE_MS 5000u /* after SIGINT, before SIGKILL */
#define DETACH_WAIT_MS 2000u
#define ALIVE_CHECK_NS 100000000ull
#define PROGRESS_NS    1000000000ull
#define BENCH_OUT_MAX  (64u << 20)

struct record {
	struct corecap_record_opts opts;
	struct corecap_target target;
	struct corecap_run_dir rd;
	struct corecap_maps_buildid maps;
	struct corecap_stats_snapshot stats;
	struct corecap_cpu_profile cpu;
	struct corecap_proc_sampler threads;
	struct corecap_wall_sampler wall;
	struct corecap_lttng_session lttng;
	struct corecap_bench_runner bench;
	struct corecap_bench_summary summary;
	struct corecap_ceph_asok ceph;
	struct corecap_stop_watchdog wd;
	bool have_ceph, have_wd, have_kernel;
	int argc; /* of corecap record, for the manifest */
	char **argv;
	bool checkpoints; /* the window's checkpoint manifests are being written */
	struct corecap_kernel_events kernel;
	bool have_target, have_rd, have_maps, have_threads, have_wall, have_lttng, have_bench;
	/* --wallclock's stacks from the kernel source, not ptrace; else why not */
	bool wall_kernel;
	char wall_why[512];
	uint64_t start_ns, end_ns;
	double busy0_s, busy1_s; /* the machine's busy CPU at the window's ends; < 0 unknown */
	struct corecap_device_window devices; /* the daemon's disks at the window's ends */
	double steal0_s, steal1_s; /* of which the hypervisor's steal */
	double wake_ns;		 /* after the window (wake_probe.h); < 0 unknown */
	struct rusage bench_ru;	 /* the benchmark's, once reaped */
	bool have_bench_ru;
	struct timespec start_realtime;
	int64_t realtime_offset_ns;
	bool complete;
	char partial_reason[256];
	bool interrupted;
	bool daemon_exited;
	bool progress_tty;
	bool progress_pending; /* a tty progress line is on screen */
};

static double since_start_s(const struct record *r, uint64_t t)
{
	return r->start_ns && t > r->start_ns ? (double)(t - r->start_ns) / 1e9 : 0;
}

static void set_partial(struct record *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_partial(struct record *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->complete)
		return; /* keep the first reason */
	r->complete = false;
	va_start(ap, fmt);
	vsnprintf(r->partial_reason, sizeof(r->partial_reason), fmt, ap);
	va_end(ap);
}

/* ./corecap-<comm>-<pid>-<YYYYmmdd-HHMMSS> (run_dir.h). */
static void default_output(const struct corecap_target *t, char *buf, size_t size)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", (int)t->pid);
	corecap_run_dir_default_name(t->comm, pid, buf, size);
}

static uint64_t tree_bytes(int dirfd, const char *name, int depth)
{
	struct dirent *de;
	uint64_t sum = 0;
	DIR *d;
	int fd;

	if (depth > 16)
		return 0;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode))
			sum += tree_bytes(fd, de->d_name, depth + 1);
		else if (S_ISREG(st.st_mode))
			sum += (uint64_t)st.st_size;
	}
	closedir(d);
	return sum;
}

static void progress(struct record *r, uint64_t t)
{
	char line[512];
	size_t n = 0;

	if (r->opts.quiet)
		return;
	n += (size_t)snprintf(line + n, sizeof(line) - n, "%.1f s", since_start_s(r, t));
	if (r->have_lttng)
		n += (size_t)snprintf(line + n, sizeof(line) - n, " | trace %.1f MiB",
				      (double)tree_bytes(r->rd.dirfd, CORECAP_RUN_TRACE, 0) /
					      1048576.0);
	if (r->have_threads)
		n += (size_t)snprintf(line + n, sizeof(line) - n,
				      " | %zu threads, /proc read %llu times", r->threads.n_threads,
				      (unsigned long long)r->threads.rounds);
	if (r->have_wall)
		n += (size_t)snprintf(line + n, sizeof(line) - n, " | wall %llu samples",
				      (unsigned long long)r->wall.stats.samples);
	else if (r->wall_kernel) /* the copies so far: unwound after the window */
		n += (size_t)snprintf(line + n, sizeof(line) - n, " | wall %llu samples",
				      (unsigned long long)__atomic_load_n(
					      &r->kernel.stats.oncpu_taken, __ATOMIC_RELAXED));
	/*
	 * The benchmark's last line only when its output is not shown
	 * (stdout gone): shown, it stands above with its columns intact.
	 */
	if (r->have_bench && !r->bench.echo && r->bench.last_line[0])
		snprintf(line + n, sizeof(line) - n, " | benchmark: %s", r->bench.last_line);
	if (r->progress_tty) {
		fprintf(stderr, "\r\033[K%s: %s", corecap_diag_prefix(), line);
		r->progress_pending = true;
	} else {
		fprintf(stderr, "%s: %s\n", corecap_diag_prefix(), line);
	}
}

static void end_progress(struct record *r)
{
	if (r->progress_pending)
		fputc('\n', stderr);
	r->progress_pending = false;
}

static void reap_children(struct record *r)
{
	int status;
	pid_t pid;

	for (;;) {
		struct rusage ru;

		pid = wait4(-1, &status, __WALL | WNOHANG, &ru);
		if (pid <= 0)
			break;
		if (r->have_bench && pid == r->bench.pid) {
			r->bench_ru = ru;
			r->have_bench_ru = true;
			corecap_bench_runner_exited(&r->bench, status);
		} else if (r->have_wd && corecap_stop_watchdog_owns(&r->wd, pid)) {
			r->wd.pid = 0; /* it should not die before us; the window goes on */
		} else if (r->have_wall && corecap_wall_sampler_owns(&r->wall, pid))
			corecap_wall_sampler_handle(&r->wall, pid, status);
	}
}

static uint64_t period_ns(unsigned hz)
{
	return 1000000000ull / hz;
}

/* Advances a periodic deadline, skipping ticks that are already past. */
static uint64_t next_tick(uint64_t due, uint64_t period, uint64_t t)
{
	due += period;
	if (due <= t)
		due = t + period;
	return due;
}

static int write_manifest(struct record *r, bool checkpoint);

/*
 * Rewrites the manifest as "partial", its window ending now: what a reader
 * finds if this collector dies before its last manifest. After a failure
 * (a full disk, say) the window goes on without checkpoints.
 */
static void checkpoint(struct record *r)
{
	int ret;

	if (!r->checkpoints)
		return;
	ret = write_manifest(r, true);
	if (ret < 0) {
		corecap_warn("cannot write the checkpoint manifest of '%s': %s; going on without",
			     r->rd.path, strerror(-ret));
		r->checkpoints = false;
	}
}

/* The window: runs until the benchmark ends, -d elapses, a signal, or the daemon exits. */
static void run_window(struct record *r)
{
	uint64_t t = corecap_now_ns();
	uint64_t end_at = r->opts.duration_s > 0
				  ? r->start_ns + (uint64_t)(r->opts.duration_s * 1e9)
				  : UINT64_MAX;
	uint64_t next_threads = t + period_ns(r->opts.threads_hz);
	uint64_t next_wall = r->have_wall ? t : UINT64_MAX;
	uint64_t next_alive = t + ALIVE_CHECK_NS;
	uint64_t next_progress = t + PROGRESS_NS;

	for (;;) {
		struct pollfd pfd[3] = {
			{.fd = corecap_record_wake_fd(), .events = POLLIN},
			{.fd = r->have_bench ? r->bench.out_fd : -1, .events = POLLIN},
			/* A multi-daemon record's child: its parent ends the window. */
			{.fd = r->opts.sync_rfd, .events = POLLIN}};
		uint64_t wall_wait =
			r->have_wall ? corecap_wall_sampler_deadline(&r->wall) : UINT64_MAX;
		/* A postponed /proc sample waits for the round's next event, not a timeout. */
		uint64_t next = r->have_wall && corecap_wall_sampler_busy(&r->wall) ? UINT64_MAX
										    : next_threads;
		int timeout_ms;

		if (next_wall < next)
			next = next_wall;
		if (wall_wait < next)
			next = wall_wait;
		if (next_alive < next)
			next = next_alive;
		if (next_progress < next)
			next = next_progress;
		if (end_at < next)
			next = end_at;
		t = corecap_now_ns();
		timeout_ms = next > t ? (int)((next - t + 999999) / 1000000) : 0;
		if (poll(pfd, 3, timeout_ms) > 0 && (pfd[0].revents & POLLIN))
			corecap_record_signals_drain();
		if (pfd[2].revents)
			break;
		reap_children(r);
		if (r->have_bench && pfd[1].revents) {
			/* The benchmark's lines go above the progress line, not into it. */
			if (r->progress_pending && r->bench.echo)
				fputs("\r\033[K", stderr);
			r->progress_pending = false;
			corecap_bench_runner_pump(&r->bench);
		}
		t = corecap_now_ns();
		if (r->have_wd)
			corecap_stop_watchdog_beat(&r->wd);
		if (corecap_record_got_signal) {
			r->interrupted = true;
			break;
		}
		corecap_cpu_profile_poll(&r->cpu);
		/* Reading /proc takes a while: not while a thread waits for its unwind. */
		if (t >= next_threads && !(r->have_wall && corecap_wall_sampler_busy(&r->wall))) {
			corecap_proc_sampler_sample(&r->threads);
			next_threads = next_tick(next_threads, period_ns(r->opts.threads_hz), t);
		}
		if (r->have_wall && t >= wall_wait)
			corecap_wall_sampler_timeout(&r->wall);
		if (r->have_wall && t >= next_wall) {
			corecap_wall_sampler_tick(&r->wall);
			next_wall = next_tick(next_wall, period_ns(r->opts.wall_hz), t);
		}
		if (t >= next_alive) {
			if (!corecap_target_alive(&r->target)) {
				r->daemon_exited = true;
				break;
			}
			next_alive = t + ALIVE_CHECK_NS;
		}
		if (r->have_bench && r->bench.exited)
			break;
		if (t >= end_at)
			break;
		if (t >= next_progress) {
			progress(r, t);
			checkpoint(r);
			next_progress = next_tick(next_progress, PROGRESS_NS, t);
		}
	}
	r->end_ns = corecap_now_ns();
	/* At once: the wake probe below takes a while, and the threads the
	 * sampler had interrupted would wait for it in their stops. */
	if (r->have_wall)
		corecap_wall_sampler_detach(&r->wall, DETACH_WAIT_MS);
	if (r->busy0_s < 0 || corecap_machine_busy_s(&r->busy1_s, &r->steal1_s) < 0)
		r->busy0_s = r->busy1_s = -1;
	corecap_device_window_end(&r->devices);
	r->wake_ns = corecap_wake_probe_ns();
	end_progress(r);
}

/* A benchmark that did not run, or was killed by a signal we did not send: partial. */
static void check_bench(struct record *r)
{
	int sig = corecap_bench_runner_killed_by(&r->bench);

	if (r->bench.start_errno) {
		set_partial(r, "the benchmark could not start: cannot run '%s': %s",
			    r->opts.bench_argv[0], strerror(r->bench.start_errno));
	} else if (sig && !r->bench.signalled) {
		corecap_error("the benchmark '%s' was killed by signal %d (%s)",
			      r->opts.bench_argv[0], sig, strsignal(sig));
		set_partial(r, "the benchmark was killed by signal %d (%s)", sig, strsignal(sig));
	}
	if (r->bench.write_errno)
		set_partial(r, CORECAP_RUN_BENCH_OUT " could not be written: %s",
			    strerror(r->bench.write_errno));
}

/* The kernel source after the window: its stacks unwound, a summary line. */
static void finish_kernel(struct record *r)
{
	const struct corecap_kernel_stats *st = &r->kernel.stats;
	int ret = corecap_kernel_events_unwind(&r->kernel, !r->daemon_exited);

	if (ret < 0)
		corecap_warn("kernel events: cannot write '%s/%s': %s", r->rd.path,
			     CORECAP_KERNEL_STACKS_FILE, strerror(-ret));
	if (!r->opts.quiet)
		corecap_note("kernel events: %llu switches, %llu wakings, %llu futex calls, "
			     "%llu of %llu stacks unwound, %llu lost",
			     (unsigned long long)st->records[CORECAP_KTP_SWITCH],
			     (unsigned long long)st->records[CORECAP_KTP_WAKING],
			     (unsigned long long)st->records[CORECAP_KTP_FUTEX_ENTER],
			     (unsigned long long)st->stacks_unwound,
			     (unsigned long long)st->stacks_taken,
			     (unsigned long long)st->lost_total);
}

/* Everything after the window: in an order that frees the daemon first. */
static void finish_window(struct record *r)
{
	double at_s = since_start_s(r, r->end_ns);

	if (r->have_wall)
		corecap_wall_sampler_detach(&r->wall, DETACH_WAIT_MS);
	if (r->have_kernel) {
		corecap_kernel_events_stop(&r->kernel);
		corecap_kernel_events_window(&r->kernel, CORECAP_KWINDOW_END, r->end_ns);
	}
	if (r->have_wd)
		corecap_stop_watchdog_attached(&r->wd, false);
	/* Not before the detach: the profiler's toggle passes through our ptrace stops. */
	corecap_cpu_profile_stop(&r->cpu);
	if (r->daemon_exited) {
		corecap_error("PID %d (%s) exited %.1f s into the window; the run is partial",
			      (int)r->target.pid, r->target.comm, at_s);
		set_partial(r, "daemon exited at +%.1f s", at_s);
	} else {
		if (r->stats.present &&
		    corecap_stats_snapshot_take(&r->stats, &r->rd, CORECAP_RUN_STATS_END) < 0)
			set_partial(r, "no consistent copy of the shim's counters at the end");
		corecap_proc_sampler_sample(&r->threads);
		if (r->have_ceph && corecap_ceph_asok_end(&r->ceph, r->rd.dirfd) < 0)
			corecap_warn("the Ceph files of the run (RUN/" CORECAP_RUN_CEPH_DIR
				     "/) are incomplete");
		if (r->have_ceph && r->have_wd)
			corecap_stop_watchdog_ceph(&r->wd, NULL, NULL, NULL);
	}
	if (r->interrupted) {
		corecap_error("interrupted");
		/* An open-ended window (no benchmark, no -d) ends with Ctrl-C by design. */
		if (r->have_bench || r->opts.duration_s > 0)
			set_partial(r, "interrupted at +%.1f s", at_s);
	}
	if (r->have_lttng && corecap_lttng_session_stop(&r->lttng) < 0)
		set_partial(r, "the LTTng session could not be stopped cleanly");
	if (r->have_bench) {
		int code;

		if (!r->bench.exited) {
			/* -d elapsed, a signal, or the daemon exited: stop the benchmark. */
			if (!r->interrupted || corecap_record_forward_signal)
				corecap_bench_runner_signal(&r->bench, SIGINT);
		}
		corecap_bench_runner_finish(&r->bench, BENCH_GRACE_MS);
		corecap_bench_summary_read(r->rd.dirfd, BENCH_OUT_MAX, &r->summary);
		check_bench(r);
		code = corecap_bench_runner_exit_code(&r->bench);
		if (code != 0 && !r->interrupted && !r->daemon_exited && !r->bench.start_errno &&
		    !corecap_bench_runner_killed_by(&r->bench))
			corecap_error("the benchmark '%s' exited with status %d",
				      r->opts.bench_argv[0], code);
	}
	if (!r->daemon_exited)
		corecap_cpu_profile_collect(&r->cpu, &r->rd);
	if (r->have_kernel)
		finish_kernel(r);
}

static int write_manifest(struct record *r, bool checkpoint)
{
	int ret;
	struct corecap_manifest m = {
		.complete = r->complete && !checkpoint,
		.start_ns = r->start_ns,
		.end_ns = checkpoint && r->start_ns ? corecap_now_ns() : r->end_ns,
		.start_realtime = r->start_realtime,
		.realtime_offset_ns = r->realtime_offset_ns,
		.record_argv = r->argv,
		.record_argc = r->argc,
		.threads_hz = r->opts.threads_hz,
		.target = &r->target,
		.lttng = r->have_lttng ? &r->lttng : NULL,
		.threads = r->have_threads ? &r->threads : NULL,
		.wall = r->have_wall ? &r->wall : NULL,
		.stats = &r->stats,
		.cpu_prof = &r->cpu,
		.maps = r->have_maps ? &r->maps : NULL,
		.bench = r->have_bench ? &r->bench : NULL,
		.kernel = r->have_kernel ? &r->kernel : NULL,
		.bench_argv = r->opts.bench_argv,
		.summary = r->have_bench && !checkpoint ? &r->summary : NULL,
		.watchdog = r->have_wd ? r->wd.page : NULL,
		.quiet_errors = checkpoint,
		.machine_busy_s = !checkpoint && r->busy0_s >= 0 ? r->busy1_s - r->busy0_s : -1,
		.machine_steal_s = !checkpoint && r->busy0_s >= 0 ? r->steal1_s - r->steal0_s : -1,
		.wake_ns = checkpoint ? -1 : r->wake_ns,
		.devices = checkpoint ? NULL : &r->devices,
		.bench_cpu_s = r->have_bench_ru
				       ? (double)r->bench_ru.ru_utime.tv_sec +
						 (double)r->bench_ru.ru_utime.tv_usec / 1e6 +
						 (double)r->bench_ru.ru_stime.tv_sec +
						 (double)r->bench_ru.ru_stime.tv_usec / 1e6
				       : -1,
	};

	if (checkpoint && !r->start_ns)
		snprintf(m.partial_reason, sizeof(m.partial_reason),
			 "the window never started: the collector was killed, or stopped, while "
			 "preparing it");
	else if (checkpoint && r->complete)
		snprintf(m.partial_reason, sizeof(m.partial_reason),
			 "cut short: the collector's last checkpoint was at +%.1f s (it was "
			 "killed, or the machine stopped)",
			 since_start_s(r, m.end_ns));
	else
		snprintf(m.partial_reason, sizeof(m.partial_reason), "%s", r->partial_reason);
	/* Named to the watchdog while it is ours and not renamed: removed if we die meanwhile. */
	if (r->have_wd)
		corecap_stop_watchdog_tmp(&r->wd, CORECAP_RUN_MANIFEST_TMP);
	ret = corecap_manifest_write(&m, &r->rd);
	if (r->have_wd)
		corecap_stop_watchdog_tmp(&r->wd, NULL);
	return ret;
}

/* --wallclock through the kernel source (kernel_offcpu.h): no thread
 * stopped; else wall_why says why not. */
static void prepare_kernel_wall(struct record *r)
{
	char why[400];

	if (r->opts.wall_threads)
		snprintf(r->wall_why, sizeof(r->wall_why),
			 "--wallclock-threads (the kernel's samplers take every thread)");
	else if (corecap_kernel_events_set_wallclock(&r->kernel, r->opts.wall_hz, why,
						     sizeof(why)) == 0)
		r->wall_kernel = true;
	else
		snprintf(r->wall_why, sizeof(r->wall_why),
			 "the kernel's off-CPU stack sampler is unavailable: %s", why);
}

/* --wallclock's sampler when the kernel's did not load: one line names the
 * cause and ptrace's takes the stacks, or --wallclock-via kernel fails. */
static int wall_fallback(struct record *r)
{
	const char *why = r->wall_why[0] ? r->wall_why : "no kernel events (--no-kernel)";

	if (!strcmp(r->opts.wall_via, "kernel")) {
		corecap_error("cannot take the wall-clock stacks through the kernel "
			      "(--wallclock-via kernel): %s",
			      why);
		return -ENOTSUP;
	}
	/* Asked for: --no-kernel, or --wallclock-threads (documented: ptrace's). */
	if (!strcmp(r->opts.wall_via, "auto") && r->opts.kernel != CORECAP_RECORD_KERNEL_OFF &&
	    !r->opts.wall_threads)
		corecap_warn("--wallclock: the ptrace sampler takes the wall-clock stacks (it "
			     "stops each thread in turn): %s",
			     why);
	return 0;
}

/* The kernel source, when permitted; an error only when --kernel asked for it. */
static int prepare_kernel(struct record *r)
{
	bool required = r->opts.kernel == CORECAP_RECORD_KERNEL_REQUIRE;
	char why[512];
	int ret = 0;

	const char *via = r->opts.kernel_via;

	if (corecap_kernel_events_permitted(why, sizeof(why)) &&
	    (ret = corecap_kernel_events_init(&r->kernel, r->target.pid, &r->rd,
					      !strcmp(via, "perf")  ? CORECAP_KERNEL_VIA_PERF
					      : !strcmp(via, "bpf") ? CORECAP_KERNEL_VIA_BPF
								    : CORECAP_KERNEL_VIA_AUTO,
					      why, sizeof(why))) == 0) {
		r->have_kernel = true;
		/* --wallclock: the kernel's samplers, on and off a CPU, where the
		 * iterator loads (no thread stopped); else the ptrace sampler's. */
		if (!r->opts.wall_hz)
			corecap_kernel_events_set_oncpu(&r->kernel, r->opts.oncpu_hz);
		else if (strcmp(r->opts.wall_via, "ptrace") != 0)
			prepare_kernel_wall(r);
	} else if (required) {
		corecap_error("cannot record kernel events (--kernel): %s", why);
		ret = ret < 0 ? ret : -EPERM;
	} else {
		corecap_warn("recording without kernel events: %s (--no-kernel skips them)", why);
		snprintf(r->wall_why, sizeof(r->wall_why), "no kernel events");
		ret = 0;
	}
	return ret;
}

/* Sets up everything the window needs; on failure the caller abandons the run. */
static int prepare(struct record *r)
{
	char trace_dir[4200];
	int ret;

	ret = corecap_maps_buildid_save(&r->maps, r->target.pid, &r->rd);
	if (ret < 0)
		goto out;
	r->have_maps = true;
	corecap_stats_snapshot_init(&r->stats, r->target.pid);
	corecap_cpu_profile_init(&r->cpu, &r->target);
	if (r->opts.no_cpu_profile)
		r->cpu.available = false;
	ret = corecap_cpu_profile_claim(&r->cpu);
	if (ret < 0)
		goto out;
	ret = corecap_proc_sampler_init(&r->threads, r->target.pid, &r->rd);
	if (ret < 0)
		goto out;
	r->have_threads = true;
	if (r->opts.bench_argv) {
		ret = corecap_bench_runner_init(&r->bench, &r->rd, !r->opts.quiet);
		if (ret < 0)
			goto out;
		if (r->opts.collector_cpus)
			corecap_bench_runner_set_cpus(&r->bench, &r->opts.bench_set);
		r->have_bench = true;
	}
	/* First: it also cleans up after us if we are killed. */
	ret = corecap_stop_watchdog_start(&r->wd, r->target.pid);
	if (ret < 0)
		goto out;
	r->have_wd = true;
	corecap_stop_watchdog_run_dir(&r->wd, r->rd.abs_path);
	if (r->opts.trace) {
		snprintf(trace_dir, sizeof(trace_dir), "%s/" CORECAP_RUN_TRACE, r->rd.abs_path);
		ret = corecap_lttng_session_init_url(&r->lttng, r->target.pid, trace_dir,
						     r->opts.relayd_url, r->opts.events,
						     r->opts.n_events);
		if (ret < 0) {
			corecap_error("cannot trace PID %d with LTTng (use --no-trace to record "
				      "without a trace)",
				      (int)r->target.pid);
			goto out;
		}
		r->have_lttng = true;
		corecap_stop_watchdog_session(&r->wd, r->lttng.name);
	}
	if (!r->opts.no_ceph) {
		char asok[108];

		if (r->opts.ceph_asok) {
			ret = corecap_ceph_asok_init(&r->ceph, r->opts.ceph_asok);
			if (ret < 0)
				goto out;
			r->have_ceph = true;
		} else if (strncmp(r->target.comm, "ceph-", 5) == 0 &&
			   corecap_ceph_asok_find(r->target.pid, asok, sizeof(asok)) &&
			   corecap_ceph_asok_init(&r->ceph, asok) == 0) {
			r->have_ceph = true;
			if (!r->opts.quiet)
				corecap_note("using %s's admin socket '%s'", r->target.comm, asok);
		}
	}
	if (r->opts.kernel != CORECAP_RECORD_KERNEL_OFF) {
		ret = prepare_kernel(r);
		if (ret < 0)
			goto out;
	}
	/* Last: from here on the daemon's signals wait for our loop. */
	if (r->opts.wall_hz && !r->wall_kernel && (ret = wall_fallback(r)) < 0)
		goto out;
	if (r->opts.wall_hz && !r->wall_kernel) {
		corecap_stop_watchdog_attached(&r->wd, true);
		ret = corecap_wall_sampler_init(&r->wall, r->target.pid, r->opts.wall_hz,
						r->opts.wall_threads, &r->rd);
		if (ret < 0)
			goto out;
		r->have_wall = true;
	}
out:
	return ret;
}

static int start_window(struct record *r)
{
	int ret = 0;

	/* Kernel events first, so that they cover the whole window. */
	if (r->have_kernel && corecap_kernel_events_start(&r->kernel) < 0) {
		corecap_warn("recording without kernel events: cannot start their reader thread");
		corecap_kernel_events_release(&r->kernel);
		r->have_kernel = false;
	}
	if (r->have_lttng) {
		ret = corecap_lttng_session_start(&r->lttng);
		if (ret < 0)
			goto out;
	}
	if (r->have_target)
		corecap_device_window_begin(&r->devices, r->target.pid);
	if (corecap_machine_busy_s(&r->busy0_s, &r->steal0_s) < 0)
		r->busy0_s = -1;
	r->wake_ns = -1;
	r->start_ns = corecap_now_ns();
	if (r->have_kernel)
		corecap_kernel_events_window(&r->kernel, CORECAP_KWINDOW_START, r->start_ns);
	clock_gettime(CLOCK_REALTIME, &r->start_realtime);
	r->realtime_offset_ns = corecap_realtime_offset_ns();
	if (r->stats.present &&
	    corecap_stats_snapshot_take(&r->stats, &r->rd, CORECAP_RUN_STATS_BEGIN) < 0)
		set_partial(r, "no consistent copy of the shim's counters at the start");
	if (r->have_ceph) {
		r->ceph.end_dump = r->opts.ceph_history_end;
		corecap_ceph_asok_begin(&r->ceph, r->rd.dirfd);
		/* Killed before the end, the watchdog puts the OpTracker's settings back. */
		if (r->have_wd && r->ceph.raised)
			corecap_stop_watchdog_ceph(&r->wd, r->ceph.path, r->ceph.old_size,
						   r->ceph.old_duration);
	}
	corecap_cpu_profile_start(&r->cpu);
	corecap_proc_sampler_sample(&r->threads);
	if (r->have_bench) {
		ret = corecap_bench_runner_start(&r->bench, r->opts.bench_argv);
		if (ret < 0) {
			/* No window without its benchmark: undo and give up. */
			if (r->have_wall)
				corecap_wall_sampler_detach(&r->wall, DETACH_WAIT_MS);
			corecap_cpu_profile_stop(&r->cpu);
			goto out;
		}
	}
	r->checkpoints = true;
	checkpoint(r);
	if (!r->opts.quiet) {
		if (r->have_bench)
			corecap_note("recording PID %d (%s) while '%s' runs, into '%s'",
				     (int)r->target.pid, r->target.comm,
				     corecap_bench_label(r->opts.bench_argv), r->rd.path);
		else if (r->opts.duration_s > 0)
			corecap_note("recording PID %d (%s) for %g s into '%s'", (int)r->target.pid,
				     r->target.comm, r->opts.duration_s, r->rd.path);
		else
			corecap_note("recording PID %d (%s) into '%s'; Ctrl-C ends the window",
				     (int)r->target.pid, r->target.comm, r->rd.path);
	}
out:
	return ret;
}

static void release_all(struct record *r, bool abandon)
{
	if (r->have_ceph)
		corecap_ceph_asok_release(&r->ceph);
	if (r->have_wall)
		corecap_wall_sampler_release(&r->wall);
	corecap_cpu_profile_release(&r->cpu);
	if (r->have_threads)
		corecap_proc_sampler_release(&r->threads);
	if (r->have_bench)
		corecap_bench_runner_release(&r->bench);
	if (r->have_lttng)
		corecap_lttng_session_release(&r->lttng);
	if (r->have_kernel)
		corecap_kernel_events_release(&r->kernel);
	/* Last: until the session is destroyed, it destroys it if we are killed. */
	if (r->have_wd)
		corecap_stop_watchdog_release(&r->wd);
	r->have_wall = r->have_threads = r->have_bench = r->have_lttng = r->have_wd = false;
	r->have_kernel = false;
	if (r->have_rd) {
		if (abandon)
			corecap_run_dir_remove(&r->rd);
		else
			corecap_run_dir_release(&r->rd);
	}
	r->have_rd = false;
	if (r->have_target)
		corecap_target_release(&r->target);
	r->have_target = false;
}

/*
 * The run in its place: written aside with --force over an old run, it
 * replaces it once LTTng, which writes into it by path, is done.
 */
static int place_run(struct record *r)
{
	if (r->have_lttng)
		corecap_lttng_session_release(&r->lttng);
	r->have_lttng = false;
	if (r->have_wd) {
		corecap_stop_watchdog_session(&r->wd, NULL);
		corecap_stop_watchdog_run_dir(&r->wd, "");
	}
	return corecap_run_dir_place(&r->rd);
}

/*
 * A multi-daemon record's child (--sync-fds): says it is ready, then waits
 * for its parent's go, handling the daemon's ptrace stops meanwhile. 0 on
 * the go; -1 when the parent gave up (the run is then abandoned).
 */
static int child_wait_go(struct record *r)
{
	char c = 0;

	if (corecap_record_multi_say(r->opts.sync_wfd, CORECAP_MULTI_READY) < 0)
		return -1;
	while (!corecap_record_got_signal) {
		struct pollfd pfd[2] = {{.fd = corecap_record_wake_fd(), .events = POLLIN},
					{.fd = r->opts.sync_rfd, .events = POLLIN}};

		if (poll(pfd, 2, 1000) > 0 && (pfd[0].revents & POLLIN))
			corecap_record_signals_drain();
		reap_children(r);
		if (r->have_wd)
			corecap_stop_watchdog_beat(&r->wd);
		if (pfd[1].revents)
			return read(r->opts.sync_rfd, &c, 1) == 1 && c == CORECAP_MULTI_GO ? 0 : -1;
	}
	return -1;
}

/*
 * --collector-cpus: record keeps itself on those CPUs, before it makes a
 * thread or a process (its samplers' and kernel reader's threads, a
 * multi-daemon record's children and the watchdog inherit it); the
 * benchmark goes back to the CPUs record was started on. Every CPU listed
 * must be one record may run on (its affinity, a cpuset's): a CPU it could
 * not use is refused, not dropped.
 */
static int keep_on_cpus(struct corecap_record_opts *o)
{
	cpu_set_t outside;
	char list[256], allowed[256];

	if (sched_getaffinity(0, sizeof(o->bench_set), &o->bench_set) < 0) {
		corecap_error("cannot read corecap's own CPUs: %s", strerror(errno));
		return -errno;
	}
	CPU_XOR(&outside, &o->collector_set, &o->bench_set);
	CPU_AND(&outside, &outside, &o->collector_set);
	if (CPU_COUNT(&outside)) {
		corecap_cpu_list_format(&outside, list, sizeof(list));
		corecap_cpu_list_format(&o->bench_set, allowed, sizeof(allowed));
		corecap_error("--collector-cpus %s: %s %s %s not among the CPUs corecap may run "
			      "on (%s)",
			      o->collector_cpus, CPU_COUNT(&outside) > 1 ? "CPUs" : "CPU", list,
			      CPU_COUNT(&outside) > 1 ? "are" : "is", allowed);
		return -EINVAL;
	}
	if (sched_setaffinity(0, sizeof(o->collector_set), &o->collector_set) < 0) {
		corecap_error("cannot keep corecap on CPUs %s: %s", o->collector_cpus,
			      strerror(errno));
		return -errno;
	}
	return 0;
}

int corecap_cmd_record(int argc, char **argv)
{
	char output[512];
	struct record *r;
	int status = 1;
	int ret;

	/* Several hosts: one window over each host's own record (host_record.h). */
	if (corecap_record_hosts_wanted(argc, argv))
		return corecap_record_hosts(argc, argv);
	r = calloc(1, sizeof(*r));
	if (!r) {
		corecap_error("out of memory");
		goto out;
	}
	r->complete = true;
	r->argc = argc;
	r->argv = argv;
	r->cpu.owner_fd = -1;
	ret = corecap_record_opts_parse(&r->opts, argc, argv);
	if (ret == 1) {
		corecap_cmd_help(stdout, &corecap_record_help);
		status = 0;
		goto out_free;
	}
	if (ret < 0) {
		status = corecap_usage_error(corecap_record_usage, "%s", r->opts.error);
		goto out_free;
	}
	corecap_diag_quiet = r->opts.quiet;
	if (r->opts.collector_cpus && keep_on_cpus(&r->opts) < 0)
		goto out_free;
	/* A session whose collector and watchdog were both killed still writes: end it. */
	corecap_lttng_reap_orphans();
	if (r->opts.sync_rfd >= 0 && r->opts.n_pids <= 1 && !r->opts.ceph_osds) {
		/* A multi-daemon record's child: its messages name its daemon. */
		static char command[48];

		snprintf(command, sizeof(command), "record [PID %d]", (int)r->opts.pid);
		corecap_diag_begin(command);
	}
	if (r->opts.n_pids > 1 || r->opts.ceph_osds) {
		status = corecap_record_multi(&r->opts, argc, argv);
		goto out_free;
	}
	r->progress_tty = isatty(STDERR_FILENO);
	if (r->opts.pid == getpid()) {
		corecap_error("PID %d is corecap itself", (int)r->opts.pid);
		goto out_free;
	}
	if (corecap_record_signals_install() < 0)
		goto out_free;
	if (corecap_target_open(&r->target, r->opts.pid) < 0)
		goto out_restore;
	r->have_target = true;
	/* Before any time is taken: the run's clock is the daemon's (timens.h). */
	if (corecap_run_clock_follow(r->opts.pid) < 0)
		corecap_warn("cannot read the time namespace of PID %d: its clock is taken to be "
			     "corecap's",
			     (int)r->opts.pid);
	if (!r->opts.output) {
		default_output(&r->target, output, sizeof(output));
		r->opts.output = output;
	}
	if (corecap_run_dir_create(&r->rd, r->opts.output, r->opts.force) < 0)
		goto out_release;
	r->have_rd = true;
	/* What a reader finds if we die before the window (an abandoned run is removed). */
	write_manifest(r, true);
	if (prepare(r) < 0 || corecap_record_got_signal ||
	    (r->opts.sync_rfd >= 0 && child_wait_go(r) < 0)) {
		if (corecap_record_got_signal) {
			corecap_error("interrupted");
			status = 128 + corecap_record_got_signal;
		}
		release_all(r, true);
		goto out_restore;
	}
	if (start_window(r) < 0) {
		release_all(r, true);
		goto out_restore;
	}
	if (r->opts.sync_wfd >= 0)
		corecap_record_multi_say(r->opts.sync_wfd, CORECAP_MULTI_STARTED);
	run_window(r);
	finish_window(r);
	if (r->have_wd && r->wd.page->continued)
		corecap_warn("corecap record was stopped while PID %d's threads waited for it: its "
			     "watchdog resumed it (%llu SIGCONT)",
			     (int)r->target.pid, (unsigned long long)r->wd.page->continued);
	/* Close the samplers' files before the manifest, which comes last. */
	if (r->have_wall && corecap_wall_sampler_release(&r->wall) < 0)
		set_partial(r, CORECAP_RUN_WALL " could not be written");
	if (r->have_threads && corecap_proc_sampler_release(&r->threads) < 0)
		set_partial(r, CORECAP_RUN_THREADS " could not be written");
	ret = write_manifest(r, false);
	if (place_run(r) < 0) {
		status = 1;
	} else if (ret < 0) {
		corecap_error("the run in '%s' keeps its last checkpoint manifest: it is partial",
			      r->rd.path);
		status = 1;
	} else {
		if (!r->opts.quiet || !r->complete)
			corecap_note("wrote %s run '%s' (%.2f s window)",
				     r->complete ? "complete" : "partial", r->rd.path,
				     since_start_s(r, r->end_ns));
		printf("%s\n", r->rd.path);
		fflush(stdout);
		/* A signal after the window (while finishing) still shows in the status. */
		if (r->interrupted || corecap_record_got_signal)
			status = 128 + corecap_record_got_signal;
		else if (r->daemon_exited || !r->complete)
			status = 1;
		else if (r->have_bench && corecap_bench_runner_exit_code(&r->bench) != 0)
			status = 1;
		else
			status = 0;
	}
	release_all(r, false); /* the samplers' releases are idempotent */
	goto out_restore;

out_release:
	release_all(r, false);
out_restore:
	corecap_record_signals_restore();
out_free:
	free(r);
out:
	return status;
}
