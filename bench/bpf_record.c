/*
 * bpf_record: loads bench/bpf_record.bpf.c for one process, drains its
 * ring buffer every 10 ms for SECONDS, and prints
 *   attached MONOTONIC_NS
 *   detached MONOTONIC_NS records N lost L
 * for bench/kernel_record_cost.sh and kernel_iops.sh -k bpf, which build
 * it (bench_build_bpf, with the skeleton bpftool generates) when clang,
 * bpftool and libbpf are installed. SIGINT or SIGTERM ends it early,
 * with the same lines. BPF_RECORD_EVENTS (a comma-separated list of
 * switch, waking and futex; all three by default) takes some only, to
 * tell their costs apart. BPF_RECORD_OUTPUT=percpu writes to a perf
 * buffer per CPU (bpf_perf_event_output, woken at a 1 MiB watermark)
 * instead of the one ring buffer.
 *
 * usage: bpf_record TGID SECONDS
 */
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bpf_record.skel.h"

static uint64_t records;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int count_record(void *ctx, void *data, size_t size)
{
	(void)ctx, (void)data, (void)size;
	records++;
	return 0;
}

static enum bpf_perf_event_ret count_event(void *ctx, int cpu, struct perf_event_header *h)
{
	(void)ctx, (void)cpu;
	if (h->type == PERF_RECORD_SAMPLE)
		records++;
	return LIBBPF_PERF_EVENT_CONT;
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static uint64_t lost_records(struct bpf_record_bpf *s)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v, sum = 0;
	uint32_t zero = 0;

	if (ncpu <= 0 || !(v = calloc((size_t)ncpu, sizeof(*v))))
		return 0;
	if (bpf_map__lookup_elem(s->maps.lost, &zero, sizeof(zero), v, sizeof(*v) * (size_t)ncpu,
				 0) == 0)
		for (int i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

int main(int argc, char **argv)
{
	struct bpf_record_bpf *s;
	struct ring_buffer *rb = NULL;
	struct perf_buffer *pb = NULL;
	const char *out = getenv("BPF_RECORD_OUTPUT");
	bool per_cpu = out && !strcmp(out, "percpu");
	char *end;
	long tgid;
	double secs;
	uint64_t until;
	int err;

	if (argc != 3 || (tgid = strtol(argv[1], &end, 10)) <= 0 || *end ||
	    (secs = strtod(argv[2], &end)) <= 0 || *end) {
		fprintf(stderr, "usage: bpf_record TGID SECONDS\n");
		return 2;
	}
	s = bpf_record_bpf__open();
	if (!s) {
		fprintf(stderr, "bpf_record: cannot open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	s->rodata->target_tgid = (uint32_t)tgid;
	s->rodata->per_cpu = per_cpu;
	if (getenv("BPF_RECORD_EVENTS")) {
		const char *e = getenv("BPF_RECORD_EVENTS");

		bpf_program__set_autoload(s->progs.on_switch, strstr(e, "switch") != NULL);
		bpf_program__set_autoload(s->progs.on_waking, strstr(e, "waking") != NULL);
		bpf_program__set_autoload(s->progs.on_sys_enter, strstr(e, "futex") != NULL);
		bpf_program__set_autoload(s->progs.on_sys_exit, strstr(e, "futex") != NULL);
	}
	if ((err = bpf_record_bpf__load(s)) || (err = bpf_record_bpf__attach(s))) {
		fprintf(stderr, "bpf_record: cannot load or attach the programs: %s\n",
			strerror(-err));
		bpf_record_bpf__destroy(s);
		return 1;
	}
	if (per_cpu) {
		struct perf_event_attr attr = {
			.type = PERF_TYPE_SOFTWARE,
			.config = PERF_COUNT_SW_BPF_OUTPUT,
			.sample_type = PERF_SAMPLE_RAW,
			.sample_period = 1,
			.watermark = 1,
			.wakeup_watermark = 1 << 20,
		};

		pb = perf_buffer__new_raw(bpf_map__fd(s->maps.cpu_bufs), 1024, &attr, count_event,
					  NULL, NULL);
	} else {
		rb = ring_buffer__new(bpf_map__fd(s->maps.ring), count_record, NULL, NULL);
	}
	if (!rb && !pb) {
		fprintf(stderr, "bpf_record: cannot map the buffers: %s\n", strerror(errno));
		bpf_record_bpf__destroy(s);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("attached %llu\n", (unsigned long long)mono_ns());
	fflush(stdout);
	until = mono_ns() + (uint64_t)(secs * 1e9);
	/* The programs never wake the reader (BPF_RB_NO_WAKEUP), so
	 * ring_buffer__poll would only time out: consume every 10 ms. */
	while (!stop && mono_ns() < until) {
		nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
		if ((pb ? perf_buffer__consume(pb) : ring_buffer__consume(rb)) < 0)
			break;
	}
	bpf_record_bpf__detach(s);
	printf("detached %llu", (unsigned long long)mono_ns());
	if (pb)
		perf_buffer__consume(pb);
	else
		ring_buffer__consume(rb);
	printf(" records %llu lost %llu\n", (unsigned long long)records,
	       (unsigned long long)lost_records(s));
	perf_buffer__free(pb);
	ring_buffer__free(rb);
	bpf_record_bpf__destroy(s);
	return 0;
}
