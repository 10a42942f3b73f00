/*
 * The kernel source's life (kernel_events.h): init, start, the reader
 * thread that drains the producer's rings (kernel_perf.h or
 * kernel_bpf_drain.h) and follows new threads, the window's records, stop
 * and release. The stack copies are unwound by kernel_stacks.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <corecap/kernel_format.h>
#include <corecap/diag.h>
#include "kernel_bpf.h"
#include "kernel_bpf_drain.h"
#include "kernel_events.h"
#include "kernel_offcpu_rounds.h"
#include "kernel_perf.h"
#include "kernel_state.h"
#include "kernel_tids.h"
#include "kernel_writer.h"
#include "util/mono_clock.h"
#include "util/run_dir.h"
#include "timens.h"

#define DRAIN_TIMEOUT_MS 20
#define DRAIN_BUSY_MS	 2	       /* the eBPF ring's drain when it fills fast */
#define INITIAL_PERIOD	 64u	       /* until the first adjustment */
#define RESCAN_NS	 1000000000ull /* /proc/PID/task re-read once a second */
#define MAX_RECORD_BYTES 65536u

const char *corecap_kernel_events_producer(const struct corecap_kernel_events *k)
{
	return k->bpf ? "bpf" : "perf";
}

int corecap_kernel_events_init(struct corecap_kernel_events *k, pid_t pid,
			       struct corecap_run_dir *rd, enum corecap_kernel_via via, char *why,
			       size_t why_size)
{
	int ret;

	memset(k, 0, sizeof(*k));
	k->pid = pid;
	k->rd = rd;
	k->events_fd = k->raw_fd = -1;
	ret = kernel_perf_formats(k, why, why_size);
	if (ret < 0)
		goto out;
	/* No time namespaces in this kernel (-ENOENT) is the initial one's 0. */
	ret = corecap_timens_monotonic_offset(0, &k->clock_offset_ns);
	if (ret < 0 && ret != -ENOENT) {
		snprintf(why, why_size, "cannot read this process's time namespace offset: %s",
			 strerror(-ret));
		goto out;
	}
	/* Into the run's clock, the daemon's when its namespace is not ours (mono_clock.h). */
	k->clock_offset_ns += corecap_run_clock_shift_ns;
	k->ring_bytes = kernel_perf_ring_bytes();
	k->nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (k->nr_cpus < 1)
		k->nr_cpus = 1;
	k->cpus = calloc((size_t)k->nr_cpus, sizeof(*k->cpus));
	k->stats.lost_per_cpu = calloc((size_t)k->nr_cpus, sizeof(uint64_t));
	k->copy = malloc(MAX_RECORD_BYTES);
	if (!k->cpus || !k->stats.lost_per_cpu || !k->copy) {
		ret = -ENOMEM;
		snprintf(why, why_size, "out of memory");
		goto out_free;
	}
	for (int c = 0; c < k->nr_cpus; c++) {
		struct kernel_cpu *kc = &k->cpus[c];

		kc->ring_fd = kc->clock_fd = -1;
		for (int ev = 0; ev < EV_N; ev++)
			kc->fd[ev] = -1;
		kc->period[STACK_FUTEX] = kc->period[STACK_SWITCH] = INITIAL_PERIOD;
	}
	kernel_tids_scan(k);
	if (k->n_tids == 0) {
		ret = -ESRCH;
		snprintf(why, why_size, "cannot list the threads of PID %d", (int)pid);
		goto out_close;
	}
	ret = kernel_open_bpf(k, via, why, why_size);
	if (ret < 0)
		goto out_close;
	for (int c = 0; c < k->nr_cpus; c++) {
		if (!kernel_cpu_online(c))
			continue;
		k->cpus[c].online = true;
		if (!k->bpf && (ret = kernel_perf_open_ring(k, c, why, why_size)) < 0)
			goto out_close;
	}
	if (!k->bpf && (ret = kernel_perf_open_sets(k, false, why, why_size)) < 0)
		goto out_close;
	ret = mkdirat(rd->dirfd, CORECAP_KERNEL_DIR, 0700) < 0 ? -errno : 0;
	if (ret < 0) {
		snprintf(why, why_size, "cannot create '%s/%s': %s", rd->path, CORECAP_KERNEL_DIR,
			 strerror(-ret));
		goto out_close;
	}
	ret = corecap_run_dir_create_file(rd, CORECAP_KERNEL_EVENTS_FILE, &k->events_fd);
	if (ret == 0)
		ret = corecap_run_dir_create_file(rd, CORECAP_KERNEL_RAW_FILE, &k->raw_fd);
	if (ret == 0)
		ret = kernel_write_file_header(k->events_fd, CORECAP_KERNEL_MAGIC_EVENTS, k, 0);
	if (ret < 0) {
		snprintf(why, why_size, "cannot write '%s/%s': %s", rd->path,
			 CORECAP_KERNEL_EVENTS_FILE, strerror(-ret));
		goto out_close;
	}
	k->stats.events_bytes = sizeof(struct corecap_kfile_header);
	k->stats.complete = true;
	goto out;
out_close:
	if (k->events_fd >= 0) {
		close(k->events_fd);
		unlinkat(rd->dirfd, CORECAP_KERNEL_EVENTS_FILE, 0);
	}
	if (k->raw_fd >= 0) {
		close(k->raw_fd);
		unlinkat(rd->dirfd, CORECAP_KERNEL_RAW_FILE, 0);
	}
	unlinkat(rd->dirfd, CORECAP_KERNEL_DIR, AT_REMOVEDIR);
	k->events_fd = k->raw_fd = -1;
	kernel_perf_close_cpus(k);
	corecap_kernel_bpf_close(k->bpf);
	k->bpf = NULL;
	free(k->bpf_counts);
	k->bpf_counts = NULL;
out_free:
	free(k->cpus);
	free(k->stats.lost_per_cpu);
	free(k->copy);
	free(k->tids);
	free(k->out);
	kernel_out_release(k);
	k->cpus = NULL;
	k->stats.lost_per_cpu = NULL;
	k->copy = NULL;
	k->tids = NULL;
	k->out = NULL;
out:
	return ret;
}

/* New threads: TRACK records, and events that let them in. */
static void follow_new_threads(struct corecap_kernel_events *k, uint32_t reason, bool enabled)
{
	char why[512];

	if (!k->tids_changed)
		return;
	if (!k->bpf && kernel_perf_open_sets(k, enabled, why, sizeof(why)) < 0 &&
	    !k->follow_failed) {
		corecap_warn("kernel events: cannot follow the target's new threads: %s", why);
		k->follow_failed = true;
		k->stats.complete = false;
	}
	for (size_t i = 0; i < k->n_tids; i++)
		if (!k->tracked || !kernel_tids_has_sorted(k->tracked, k->n_tracked, k->tids[i]))
			kernel_track(k, k->tids[i], reason);
	free(k->tracked);
	k->tracked = malloc(k->n_tids * sizeof(pid_t));
	if (k->tracked)
		memcpy(k->tracked, k->tids, k->n_tids * sizeof(pid_t));
	k->n_tracked = k->tracked ? k->n_tids : 0;
}

static void drain_all(struct corecap_kernel_events *k)
{
	if (k->bpf)
		kernel_drain_bpf(k);
	for (int c = 0; c < k->nr_cpus && !k->bpf; c++)
		kernel_perf_drain_cpu(k, c);
	kernel_name_holders(k, false);
	kernel_out_flush(k);
}

static void window_start(struct corecap_kernel_events *k)
{
	uint64_t t = __atomic_exchange_n(&k->window_start_ns, 0, __ATOMIC_ACQ_REL);
	struct corecap_krec_window *w;

	if (t && (w = kernel_out_reserve(k, CORECAP_KREC_WINDOW, sizeof(*w), 0, t)))
		w->what = CORECAP_KWINDOW_START;
}

static void *reader_main(void *arg)
{
	struct corecap_kernel_events *k = arg;
	struct pollfd *pfd = calloc((size_t)k->nr_cpus, sizeof(*pfd));

	for (int c = 0; pfd && c < k->nr_cpus; c++) {
		pfd[c].fd = k->cpus[c].online ? k->cpus[c].ring_fd : -1;
		pfd[c].events = POLLIN;
	}
	while (!__atomic_load_n(&k->stop, __ATOMIC_ACQUIRE)) {
		/* The eBPF ring wakes nobody: when the last drain found it an
		 * eighth full, the next comes sooner, before it overruns. */
		int wait_ms = k->bpf && k->bpf_drained > k->ring_bytes / 8 ? DRAIN_BUSY_MS
									   : DRAIN_TIMEOUT_MS;
		uint64_t t;

		wait_ms = kernel_offcpu_wait_ms(k, wait_ms);
		if (pfd)
			poll(pfd, (nfds_t)k->nr_cpus, wait_ms);
		else
			usleep((useconds_t)wait_ms * 1000);
		/* First: the round's lateness is measured from here. */
		kernel_offcpu_poll(k);
		window_start(k);
		drain_all(k);
		t = corecap_now_ns();
		if (t >= k->next_rescan_ns) {
			kernel_tids_scan(k);
			k->next_rescan_ns = t + RESCAN_NS;
		}
		follow_new_threads(k, CORECAP_KTRACK_FORK, true);
		if (t >= k->next_adjust_ns) {
			if (k->bpf)
				kernel_adjust_bpf(k, t - (k->next_adjust_ns - ADJUST_NS));
			else
				kernel_perf_adjust_periods(k, t - (k->next_adjust_ns - ADJUST_NS));
			k->next_adjust_ns = t + ADJUST_NS;
		}
		kernel_out_flush(k);
	}
	window_start(k);
	drain_all(k);
	if (k->bpf)
		kernel_drain_bpf_held(k);
	kernel_name_holders(k, true);
	kernel_out_flush(k);
	free(pfd);
	return NULL;
}

void corecap_kernel_events_set_oncpu(struct corecap_kernel_events *k, unsigned hz)
{
	k->oncpu_hz = hz;
}

int corecap_kernel_events_start(struct corecap_kernel_events *k)
{
	int ret = 0;

	/* Threads created since init(), their filters, then the events. */
	kernel_tids_scan(k);
	k->tids_changed = true;
	follow_new_threads(k, CORECAP_KTRACK_START, false);
	if (k->bpf) {
		char why[512];

		k->bpf_period[STACK_FUTEX] = k->bpf_period[STACK_SWITCH] = INITIAL_PERIOD;
		kernel_adjust_bpf(k, 0);
		if ((ret = corecap_kernel_bpf_attach(k->bpf, why, sizeof(why))) < 0) {
			corecap_warn("kernel events: %s", why);
			return ret;
		}
	}
	for (int c = 0; c < k->nr_cpus && !k->bpf; c++)
		for (int ev = 0; ev < EV_N && k->cpus[c].online; ev++)
			ioctl(k->cpus[c].fd[ev], PERF_EVENT_IOC_ENABLE, 0);
	if (k->oncpu_hz)
		kernel_start_oncpu(k);
	if (k->offcpu && !k->oncpu_hz) {
		/* Off-CPU stacks alone would draw the time on a CPU as none. */
		corecap_kernel_offcpu_close(k->offcpu);
		k->offcpu = NULL;
		k->wall_offcpu = false;
	}
	kernel_out_flush(k);
	k->next_rescan_ns = corecap_now_ns() + RESCAN_NS;
	k->next_adjust_ns = corecap_now_ns() + ADJUST_NS;
	ret = -pthread_create(&k->reader, NULL, reader_main, k);
	if (ret == 0)
		k->reader_running = true;
	return ret;
}

void corecap_kernel_events_window(struct corecap_kernel_events *k, uint32_t what, uint64_t time_ns)
{
	struct corecap_krec_window *w;

	if (what == CORECAP_KWINDOW_START || what == CORECAP_KWINDOW_END)
		k->window_ns[what == CORECAP_KWINDOW_END] = time_ns; /* for kernel_coverage_sum */
	if (k->events_fd < 0)
		return;
	if (k->reader_running) {
		__atomic_store_n(&k->window_start_ns, time_ns, __ATOMIC_RELEASE);
		return;
	}
	w = kernel_out_reserve(k, CORECAP_KREC_WINDOW, sizeof(*w), 0, time_ns);
	if (w)
		w->what = what;
	kernel_out_flush(k);
}

void corecap_kernel_events_stop(struct corecap_kernel_events *k)
{
	if (!k->cpus || k->stopped)
		return;
	k->stopped = true;
	corecap_kernel_bpf_detach(k->bpf);
	for (int c = 0; c < k->nr_cpus && !k->bpf; c++) {
		for (int ev = 0; ev < EV_N && k->cpus[c].online; ev++)
			ioctl(k->cpus[c].fd[ev], PERF_EVENT_IOC_DISABLE, 0);
		if (k->cpus[c].clock_fd >= 0)
			ioctl(k->cpus[c].clock_fd, PERF_EVENT_IOC_DISABLE, 0);
	}
	if (k->reader_running) {
		__atomic_store_n(&k->stop, 1, __ATOMIC_RELEASE);
		pthread_join(k->reader, NULL);
		k->reader_running = false;
	}
	if (k->stats.lost_total) {
		corecap_warn("kernel events: %llu records lost (ring buffers overran); the run's "
			     "kernel figures are incomplete",
			     (unsigned long long)k->stats.lost_total);
		k->stats.complete = false;
	}
	if (k->stats.write_error) {
		corecap_warn("kernel events: '%s/%s' could not be written whole", k->rd->path,
			     CORECAP_KERNEL_EVENTS_FILE);
		k->stats.complete = false;
	}
	kernel_perf_close_cpus(k);
}

int corecap_kernel_events_release(struct corecap_kernel_events *k)
{
	int ret = 0;

	corecap_kernel_events_stop(k);
	if (k->events_fd >= 0 && close(k->events_fd) < 0)
		ret = -EIO;
	if (k->raw_fd >= 0)
		close(k->raw_fd);
	k->events_fd = k->raw_fd = -1;
	if (k->stats.write_error)
		ret = -EIO;
	corecap_kernel_bpf_close(k->bpf);
	k->bpf = NULL;
	corecap_kernel_offcpu_close(k->offcpu);
	k->offcpu = NULL;
	free(k->bpf_counts);
	k->bpf_counts = NULL;
	free(k->cpus);
	free(k->copy);
	free(k->tids);
	free(k->out);
	kernel_out_release(k);
	free(k->stacks);
	free(k->tracked);
	k->tracked = NULL;
	kernel_holders_release(&k->holders);
	kernel_coverage_release(&k->coverage);
	free(k->stats.lost_per_cpu);
	k->stats.lost_per_cpu = NULL;
	k->cpus = NULL;
	k->copy = NULL;
	k->tids = NULL;
	k->out = NULL;
	k->stacks = NULL;
	return ret;
}
