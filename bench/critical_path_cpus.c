/*
 * critical_path_cpus: what the critical path (analysis/model/critical_path.c)
 * costs per scheduler record and trace event as the recorded box has more
 * CPUs, at the same work per CPU. A synthetic schedule, built in memory and
 * fed as `corecap report` feeds a recording: on each of N CPUs, THREADS
 * daemon threads take turns (each switch preempts the running one, which
 * joins that CPU's waiters), and the thread that runs makes a log call
 * between two switches; threads of CPU 0 run ops, four in flight, so that
 * every stretch is charged to paths. The records and events are the same
 * in number for every N: only how they spread over CPUs changes.
 *
 * It prints, for each N, the median CPU time per record or event over
 * ROUNDS rounds (each round runs every N once, in turn), and its ratio to
 * the smallest N's with that ratio's median over the rounds and its range.
 * A cost that does not grow with the CPUs gives ratios near 1; one that
 * walks every CPU or every runnable thread of the box at each record grows
 * with N (the per-CPU lists of waiters and the log call's one CPU).
 *
 * usage: critical_path_cpus [-r ROUNDS] [-n SWITCHES] [CPUS...]
 *        (defaults: 7 rounds, 400000 switches, CPUs 2 8 32 128)
 * A benchmark, not a test: it exits 0 unless it cannot measure at all.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <corecap/kernel_format.h>

#include "model/critical_path.h"
#include "model/model.h"

#define THREADS	  4 /* per CPU: one runs, the others wait for it */
#define OPS	  4 /* in flight, on CPU 0's threads */
#define MAX_CPUS  4096
#define MAX_SIZES 16 /* CPU counts measured in one run */
/* A tick: the switches at its start, each CPU's log call from 100 + cpu to
 * 5000 + cpu, CPU 0's op ending at 9500 and the next begun at 9501. */
#define TICK_NS 10000

struct schedule {
	struct corecap_krec_switch *sw; /* in time order */
	const struct corecap_krec **recs;
	size_t n_sw;
	uint32_t cpus;
};

static int32_t tid_of(uint32_t cpu, uint32_t k)
{
	return (int32_t)(1000 + cpu * THREADS + k);
}

/* n switches over cpus CPUs, each CPU's one tick (TICK_NS) apart. */
static int build(struct schedule *s, uint32_t cpus, size_t n)
{
	size_t ticks = n / cpus, i = 0;

	s->cpus = cpus;
	s->n_sw = ticks * cpus;
	s->sw = calloc(s->n_sw, sizeof(*s->sw));
	s->recs = calloc(s->n_sw, sizeof(*s->recs));
	if (!s->sw || !s->recs)
		return -ENOMEM;
	for (size_t t = 0; t < ticks; t++)
		for (uint32_t c = 0; c < cpus; c++, i++) {
			struct corecap_krec_switch *r = &s->sw[i];

			r->h.type = CORECAP_KREC_SWITCH;
			r->h.size = sizeof(*r);
			r->h.cpu = c;
			r->h.time_ns = TICK_NS * (t + 1);
			r->prev_tid = t ? tid_of(c, (uint32_t)((t - 1) % THREADS)) : 0;
			r->next_tid = tid_of(c, (uint32_t)(t % THREADS));
			r->prev_state_char = 'R';
			r->flags =
				(t ? CORECAP_KSWITCH_PREV_TARGET : 0) | CORECAP_KSWITCH_NEXT_TARGET;
			s->recs[i] = &r->h;
		}
	return 0;
}

static void release(struct schedule *s)
{
	free(s->sw);
	free(s->recs);
}

static int feed(struct critical_path *cp, enum model_event_kind kind, uint64_t t, int32_t tid,
		uint64_t id)
{
	struct model_event ev = {.kind = kind, .ts_ns = t, .tid = tid, .pid = -1};

	ev.op.id = id;
	return corecap_critical_path_event(cp, &ev);
}

/* One pass over s: the CPU seconds it took, or a negative value. */
static double run(const struct schedule *s, size_t *units)
{
	struct critical_path cp;
	struct timespec a, b;
	size_t ticks = s->n_sw / s->cpus;
	uint64_t next_op = 1;
	int ret;

	if (corecap_critical_path_init(&cp, -1, s->cpus))
		return -1;
	corecap_critical_path_set_records(&cp, s->recs, s->n_sw);
	*units = s->n_sw;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	for (size_t t = 0, i = 0; t < ticks; t++, i += s->cpus) {
		uint64_t at = TICK_NS * (t + 1);
		int32_t op_tid = (int32_t)s->sw[i].next_tid;

		/* The thread running on each CPU makes a log call. */
		for (uint32_t c = 0; c < s->cpus; c++)
			if ((ret = feed(&cp, MEV_LOG_ENTER, at + 100 + c, s->sw[i + c].next_tid,
					0)))
				goto out;
		for (uint32_t c = 0; c < s->cpus; c++)
			if ((ret = feed(&cp, MEV_LOG_EXIT, at + 5000 + c, s->sw[i + c].next_tid,
					0)))
				goto out;
		*units += 2 * s->cpus;
		/* CPU 0's thread ends the oldest op and begins one. */
		if (next_op > OPS &&
		    ((ret = feed(&cp, MEV_OP_END, at + 9500, op_tid, next_op - OPS)) ||
		     (ret = corecap_critical_path_op_end(&cp, next_op - OPS, 0, op_tid, at + 9500,
							 false))))
			goto out;
		if ((ret = feed(&cp, MEV_OP_BEGIN, at + 9501, op_tid, next_op++)))
			goto out;
		*units += 2;
	}
	ret = corecap_critical_path_finish(&cp);
out:
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	if (!ret && cp.violations)
		ret = -EPROTO;
	corecap_critical_path_release(&cp);
	if (ret) {
		fprintf(stderr, "critical_path_cpus: %u CPUs: %s\n", s->cpus,
			ret == -EPROTO ? "an op's categories do not sum to its latency"
				       : strerror(-ret));
		return -1;
	}
	return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	uint32_t cpus[MAX_SIZES] = {2, 8, 32, 128};
	size_t n_cpus = 4, rounds = 7, n = 400000;
	struct schedule s[MAX_SIZES];
	double *ns, *ratio, v[64];
	int opt;

	while ((opt = getopt(argc, argv, "r:n:")) != -1) {
		if (opt == 'r')
			rounds = strtoul(optarg, NULL, 10);
		else if (opt == 'n')
			n = strtoul(optarg, NULL, 10);
		else
			goto usage;
	}
	if (rounds < 1 || rounds > 64 || n < 1000)
		goto usage;
	if (argc - optind > MAX_SIZES)
		goto usage;
	if (optind < argc) {
		n_cpus = 0;
		for (; optind < argc; optind++) {
			unsigned long c = strtoul(argv[optind], NULL, 10);

			if (c < 1 || c > MAX_CPUS)
				goto usage;
			cpus[n_cpus++] = (uint32_t)c;
		}
	}
	ns = calloc(n_cpus * rounds, sizeof(*ns));
	ratio = calloc(n_cpus * rounds, sizeof(*ratio));
	if (!ns || !ratio)
		return 1;
	for (size_t k = 0; k < n_cpus; k++)
		if (build(&s[k], cpus[k], n)) {
			fprintf(stderr, "critical_path_cpus: out of memory\n");
			return 1;
		}
	for (size_t r = 0; r < rounds; r++)
		for (size_t k = 0; k < n_cpus; k++) {
			size_t units;
			double sec = run(&s[k], &units);

			if (sec < 0)
				return 1;
			ns[k * rounds + r] = sec * 1e9 / (double)units;
		}
	printf("critical_path_cpus: %zu switches, %d threads per CPU, %zu rounds; CPU time per "
	       "record or event\n",
	       n, THREADS, rounds);
	for (size_t k = 0; k < n_cpus; k++) {
		for (size_t r = 0; r < rounds; r++)
			ratio[k * rounds + r] = ns[k * rounds + r] / ns[r];
		memcpy(v, &ns[k * rounds], rounds * sizeof(*v));
		printf("  %4u CPUs: median %.1f ns", cpus[k], median(v, rounds));
		memcpy(v, &ratio[k * rounds], rounds * sizeof(*v));
		qsort(v, rounds, sizeof(*v), cmp_double);
		printf("; over %u CPUs' %.2f (rounds %.2f-%.2f)\n", cpus[0], median(v, rounds),
		       v[0], v[rounds - 1]);
	}
	for (size_t k = 0; k < n_cpus; k++)
		release(&s[k]);
	free(ns);
	free(ratio);
	return 0;
usage:
	fprintf(stderr,
		"usage: critical_path_cpus [-r ROUNDS] [-n SWITCHES] [CPUS...]\n"
		"  ROUNDS 1..64, SWITCHES at least 1000, at most %d CPU counts of 1..%d\n",
		MAX_SIZES, MAX_CPUS);
	return 2;
}
