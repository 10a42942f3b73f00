/*
 * The kernel source's eBPF producer (kernel_bpf.h): libbpf's skeleton of
 * kernel_bpf.bpf.c, loaded for one process, and its ring buffer drained
 * on the collector's clock (the programs never wake it).
 */
#include "kernel_bpf.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef CORECAP_HAVE_BPF

#include <bpf/libbpf.h>

#include "kernel_bpf.skel.h"

struct corecap_kernel_bpf {
	struct kernel_bpf *skel;
	struct ring_buffer *ring;
	corecap_kernel_bpf_fn fn;
	void *fn_ctx;
	int n_possible;
	struct kbpf_counts *counts; /* n_possible entries, for the map's lookups */
	/* The cpu-clock events (one per online CPU) and on_cpu_clock's links. */
	struct bpf_link **clock_links;
	int *clock_fds;
	int n_clock;
};

/* libbpf's first warning, for `why` (its messages are not printed). */
static __thread char last_warning[256];

static int keep_warning(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	size_t n;

	if (level == LIBBPF_DEBUG)
		return 0;
	if (last_warning[0])
		return 0; /* the first one names the cause; the rest follow from it */
	vsnprintf(last_warning, sizeof(last_warning), fmt, ap);
	n = strcspn(last_warning, "\n");
	last_warning[n] = '\0';
	if (strncmp(last_warning, "libbpf: ", 8) == 0)
		memmove(last_warning, last_warning + 8, n - 8 + 1);
	return 0;
}

static void say(char *why, size_t why_size, const char *what, int err)
{
	snprintf(why, why_size, "%s: %s%s%s%s", what, strerror(err),
		 last_warning[0] ? " (libbpf: " : "", last_warning, last_warning[0] ? ")" : "");
}

int corecap_kernel_bpf_open(struct corecap_kernel_bpf **out, pid_t tgid, size_t ring_bytes,
			    char *why, size_t why_size)
{
	struct corecap_kernel_bpf *b = calloc(1, sizeof(*b));
	int err;

	*out = NULL;
	last_warning[0] = '\0';
	libbpf_set_print(keep_warning);
	if (!b) {
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	b->n_possible = libbpf_num_possible_cpus();
	if (b->n_possible <= 0 ||
	    !(b->counts = calloc((size_t)b->n_possible, sizeof(*b->counts)))) {
		snprintf(why, why_size, "cannot count the possible CPUs");
		free(b);
		return -ENOMEM;
	}
	b->skel = kernel_bpf__open();
	if (!b->skel) {
		err = errno ? errno : EINVAL;
		say(why, why_size, "cannot open the eBPF programs", err);
		corecap_kernel_bpf_close(b);
		return -err;
	}
	b->skel->rodata->target_tgid = (uint32_t)tgid;
	if ((err = -bpf_map__set_max_entries(b->skel->maps.ring, (uint32_t)ring_bytes)) ||
	    (err = -kernel_bpf__load(b->skel))) {
		say(why, why_size,
		    err == EPERM || err == EACCES ? "the kernel refused the eBPF programs (they "
						    "need root, or CAP_BPF and "
						    "CAP_PERFMON)"
						  : "the kernel did not load the eBPF programs",
		    err);
		corecap_kernel_bpf_close(b);
		return -err;
	}
	*out = b;
	return 0;
}

int corecap_kernel_bpf_attach(struct corecap_kernel_bpf *b, char *why, size_t why_size)
{
	int err;

	last_warning[0] = '\0';
	if ((err = -kernel_bpf__attach(b->skel))) {
		say(why, why_size, "cannot attach the eBPF programs to their tracepoints", err);
		kernel_bpf__detach(b->skel);
		return -err;
	}
	return 0;
}

/* The cpu-clock events and their links, gone. */
static void close_clock(struct corecap_kernel_bpf *b)
{
	for (int c = 0; c < b->n_clock; c++) {
		if (b->clock_links[c])
			bpf_link__destroy(b->clock_links[c]);
		if (b->clock_fds[c] >= 0)
			close(b->clock_fds[c]);
	}
	free(b->clock_links);
	free(b->clock_fds);
	b->clock_links = NULL;
	b->clock_fds = NULL;
	b->n_clock = 0;
}

int corecap_kernel_bpf_attach_cpu_clock(struct corecap_kernel_bpf *b, unsigned hz,
					const bool *online, int nr_cpus, char *why, size_t why_size)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		/* cpu-clock counts nanoseconds: a period, not a frequency, so
		 * that the kernel does not retune it and each sample stands for
		 * the same time on a CPU. */
		.sample_period = 1000000000ull / (hz ? hz : 1),
	};
	int err = 0;

	last_warning[0] = '\0';
	close_clock(b);
	b->clock_links = calloc((size_t)nr_cpus, sizeof(*b->clock_links));
	b->clock_fds = malloc((size_t)nr_cpus * sizeof(*b->clock_fds));
	if (!b->clock_links || !b->clock_fds) {
		free(b->clock_links);
		free(b->clock_fds);
		b->clock_links = NULL;
		b->clock_fds = NULL;
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	b->n_clock = nr_cpus;
	for (int c = 0; c < nr_cpus; c++)
		b->clock_fds[c] = -1;
	for (int c = 0; c < nr_cpus && !err; c++) {
		if (!online[c])
			continue;
		b->clock_fds[c] =
			(int)syscall(SYS_perf_event_open, &a, -1, c, -1, PERF_FLAG_FD_CLOEXEC);
		if (b->clock_fds[c] < 0) {
			err = errno;
			snprintf(why, why_size, "cannot open a cpu-clock perf event on CPU %d: %s",
				 c, strerror(err));
			break;
		}
		b->clock_links[c] = bpf_program__attach_perf_event(b->skel->progs.on_cpu_clock,
								   b->clock_fds[c]);
		if (!b->clock_links[c]) {
			err = errno ? errno : EINVAL;
			say(why, why_size, "cannot attach the cpu-clock program", err);
		}
	}
	if (err)
		close_clock(b);
	return -err;
}

void corecap_kernel_bpf_detach(struct corecap_kernel_bpf *b)
{
	if (b && b->skel)
		kernel_bpf__detach(b->skel);
	if (b)
		close_clock(b);
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct corecap_kernel_bpf *b = ctx;

	if (size >= sizeof(struct kbpf_rec))
		b->fn(b->fn_ctx, data, size);
	return 0;
}

int corecap_kernel_bpf_drain(struct corecap_kernel_bpf *b, corecap_kernel_bpf_fn fn, void *ctx)
{
	int n;

	if (!b->ring) {
		b->ring = ring_buffer__new(bpf_map__fd(b->skel->maps.ring), on_record, b, NULL);
		if (!b->ring)
			return errno ? -errno : -EINVAL;
	}
	b->fn = fn;
	b->fn_ctx = ctx;
	n = ring_buffer__consume(b->ring);
	return n < 0 ? n : 0;
}

void corecap_kernel_bpf_set_stacks(struct corecap_kernel_bpf *b, uint32_t futex_period,
				   uint32_t switch_period, uint32_t futex_limit,
				   uint32_t switch_limit)
{
	struct kernel_bpf__bss *bss = b->skel->bss;

	__atomic_store_n(&bss->period[0], futex_period, __ATOMIC_RELAXED);
	__atomic_store_n(&bss->period[1], switch_period, __ATOMIC_RELAXED);
	__atomic_store_n(&bss->tick_limit[0], futex_limit, __ATOMIC_RELAXED);
	__atomic_store_n(&bss->tick_limit[1], switch_limit, __ATOMIC_RELAXED);
	__atomic_add_fetch(&bss->tick, 1, __ATOMIC_RELEASE);
}

int corecap_kernel_bpf_counts(struct corecap_kernel_bpf *b, struct kbpf_counts *per_cpu, int n)
{
	uint32_t zero = 0;

	if (bpf_map__lookup_elem(b->skel->maps.counts, &zero, sizeof(zero), b->counts,
				 sizeof(*b->counts) * (size_t)b->n_possible, 0) < 0)
		return errno ? -errno : -EIO;
	for (int c = 0; c < n; c++)
		per_cpu[c] = c < b->n_possible ? b->counts[c] : (struct kbpf_counts){0};
	return 0;
}

int corecap_kernel_bpf_held_wakings(struct corecap_kernel_bpf *b, corecap_kernel_bpf_woken_fn fn,
				    void *ctx)
{
	static const struct kbpf_woken none;
	struct kbpf_woken w;
	int n = 0;

	for (uint32_t i = 0; i < KBPF_WOKEN_SLOTS; i++) {
		if (bpf_map__lookup_elem(b->skel->maps.woken, &i, sizeof(i), &w, sizeof(w), 0) <
			    0 ||
		    !w.time_ns || !w.owner)
			continue;
		fn(ctx, &w, (int32_t)w.owner);
		bpf_map__update_elem(b->skel->maps.woken, &i, sizeof(i), &none, sizeof(none), 0);
		n++;
	}
	return n;
}

void corecap_kernel_bpf_close(struct corecap_kernel_bpf *b)
{
	if (!b)
		return;
	close_clock(b);
	ring_buffer__free(b->ring);
	kernel_bpf__destroy(b->skel);
	free(b->counts);
	free(b);
}

#else /* built without eBPF */

int corecap_kernel_bpf_open(struct corecap_kernel_bpf **out, pid_t tgid, size_t ring_bytes,
			    char *why, size_t why_size)
{
	(void)tgid, (void)ring_bytes;
	*out = NULL;
	snprintf(why, why_size,
		 "this corecap was built without its eBPF producer (it needs clang, bpftool, "
		 "libbpf-dev and the kernel's BTF at build time: scripts/install-deps, then "
		 "rebuild)");
	return -ENOTSUP;
}

int corecap_kernel_bpf_attach(struct corecap_kernel_bpf *b, char *why, size_t why_size)
{
	(void)b;
	snprintf(why, why_size, "no eBPF producer");
	return -ENOTSUP;
}

int corecap_kernel_bpf_attach_cpu_clock(struct corecap_kernel_bpf *b, unsigned hz,
					const bool *online, int nr_cpus, char *why, size_t why_size)
{
	(void)b, (void)hz, (void)online, (void)nr_cpus;
	snprintf(why, why_size, "no eBPF producer");
	return -ENOTSUP;
}

void corecap_kernel_bpf_detach(struct corecap_kernel_bpf *b)
{
	(void)b;
}

int corecap_kernel_bpf_drain(struct corecap_kernel_bpf *b, corecap_kernel_bpf_fn fn, void *ctx)
{
	(void)b, (void)fn, (void)ctx;
	return -ENOTSUP;
}

void corecap_kernel_bpf_set_stacks(struct corecap_kernel_bpf *b, uint32_t futex_period,
				   uint32_t switch_period, uint32_t futex_limit,
				   uint32_t switch_limit)
{
	(void)b, (void)futex_period, (void)switch_period, (void)futex_limit, (void)switch_limit;
}

int corecap_kernel_bpf_held_wakings(struct corecap_kernel_bpf *b, corecap_kernel_bpf_woken_fn fn,
				    void *ctx)
{
	(void)b, (void)fn, (void)ctx;
	return 0;
}

int corecap_kernel_bpf_counts(struct corecap_kernel_bpf *b, struct kbpf_counts *per_cpu, int n)
{
	(void)b, (void)per_cpu, (void)n;
	return -ENOTSUP;
}

void corecap_kernel_bpf_close(struct corecap_kernel_bpf *b)
{
	(void)b;
}

#endif
