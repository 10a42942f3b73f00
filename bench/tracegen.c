/*
 * corecap_tracegen: emits corecap events in known patterns, for the
 * analysis' tests and benchmark. It plays a daemon whose ops have a known
 * shape, without the shim or the reference daemon:
 *
 *   paced mode (default): each of T threads runs N ops; an op is
 *     begin, enter, CPU spin (--cpu-us), a lock wait (--lock-us; a real
 *     sleep reported as corecap_lock:contended), a log call (log_enter,
 *     a timed write(2) to /dev/null reported as corecap_io class log,
 *     log_exit), exit, phase "queued", a queue sleep (--queue-us), enter,
 *     a data I/O (--io-us; a sleep reported as corecap_io class data), a
 *     cond wait (--cond-us), end, exit.
 *   --fast: the same event sequence with no spinning or sleeping, as fast
 *     as the tracer takes it (the benchmark's >= 2 M events).
 *   --truth FILE: one line per finished op, what it really did: op_id,
 *     type, spin_ns, lock_ns, queue_ns, io_ns, cond_ns (measured).
 *
 * The tracepoints are defined here with dynamic probe linkage; the probes
 * come from libcorecap-tp.so, which this program loads at start (the path
 * built in, or $CORECAP_TP_LIB).
 */
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#include <corecap/corecap_io_tp.h>
#include <corecap/corecap_lock_tp.h>
#include <corecap/corecap_op_tp.h>
#include <corecap/corecap_thread_tp.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct tracegen_opts {
	unsigned threads;
	unsigned long ops;
	unsigned cpu_us, lock_us, queue_us, io_us, cond_us;
	bool fast;
};

static struct tracegen_opts opts = {
	.threads = 2,
	.ops = 10,
	.cpu_us = 100,
	.lock_us = 200,
	.queue_us = 300,
	.io_us = 100,
	.cond_us = 100,
};

/* Two locks, so the lock table has more than one row. */
static pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
static int devnull = -1;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void spin_us(unsigned us)
{
	uint64_t end = now_ns() + us * 1000ull;

	while (now_ns() < end)
		;
}

/* Sleeps and returns how long the sleep really took, in ns. */
static uint64_t sleep_us(unsigned us)
{
	uint64_t t0 = now_ns();
	struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000};

	if (us)
		nanosleep(&ts, NULL);
	return now_ns() - t0;
}

/*
 * The call sites reported for lock waits: return addresses inside two
 * functions of this program, one named like refosd's logging code
 * (log_*), so that symbolization and the logging rules have something to
 * find.
 */
__attribute__((noinline)) static uint64_t caller_pc(void)
{
	return (uint64_t)(uintptr_t)__builtin_return_address(0);
}

__attribute__((noinline)) uint64_t tg_worker_run(void)
{
	uint64_t pc = caller_pc();

	__asm__ volatile("" : "+r"(pc)); /* no tail call: the site stays in here */
	return pc;
}

__attribute__((noinline)) uint64_t log_submit(void)
{
	uint64_t pc = caller_pc();

	__asm__ volatile("" : "+r"(pc)); /* no tail call: the site stays in here */
	return pc;
}

/*
 * --truth FILE: one line per op as it ends, with what the op really did
 * (the spin and each sleep, measured around them), for the tests to hold
 * the report's per-op categories against.
 */
static FILE *truth;
static pthread_mutex_t truth_lock = PTHREAD_MUTEX_INITIALIZER;

struct op_truth {
	uint64_t spin_ns, lock_ns, queue_ns, io_ns, cond_ns;
};

static void write_truth(uint64_t op_id, const char *type, const struct op_truth *t)
{
	pthread_mutex_lock(&truth_lock);
	fprintf(truth, "%llu\t%s\t%llu\t%llu\t%llu\t%llu\t%llu\n", (unsigned long long)op_id, type,
		(unsigned long long)t->spin_ns, (unsigned long long)t->lock_ns,
		(unsigned long long)t->queue_ns, (unsigned long long)t->io_ns,
		(unsigned long long)t->cond_ns);
	fflush(truth); /* the tests stop this program with a signal */
	pthread_mutex_unlock(&truth_lock);
}

static void run_op(uint64_t op_id, const char *type, uint64_t site, uint64_t log_site)
{
	uint64_t wait_ns, t0, stack[2] = {site, log_site};
	struct op_truth tr = {0};

	lttng_ust_tracepoint(corecap_op, begin, op_id, type, 4096);
	lttng_ust_tracepoint(corecap_op, enter, op_id);
	if (!opts.fast) {
		t0 = now_ns();
		spin_us(opts.cpu_us);
		tr.spin_ns = now_ns() - t0;
	}
	wait_ns = tr.lock_ns = opts.fast ? 1000 : sleep_us(opts.lock_us);
	lttng_ust_tracepoint(corecap_lock, contended, &lock_a, 0, site, wait_ns, 1, stack, 2);
	lttng_ust_tracepoint(corecap_lock, hold, &lock_a, 0, site,
			     opts.fast ? 500 : opts.cpu_us * 1000ull);

	lttng_ust_tracepoint(corecap_op, log_enter);
	t0 = now_ns();
	if (write(devnull, "x", 1) < 0)
		perror("corecap_tracegen: write /dev/null");
	lttng_ust_tracepoint(corecap_io, syscall, 1, devnull, 1, 1, now_ns() - t0,
			     (const uint8_t *)"", 0);
	lttng_ust_tracepoint(corecap_lock, contended, &lock_b, 0, log_site, opts.fast ? 100 : 0, 1,
			     stack, 0);
	lttng_ust_tracepoint(corecap_op, log_exit);

	lttng_ust_tracepoint(corecap_op, phase, op_id, "queued");
	lttng_ust_tracepoint(corecap_op, exit, op_id);
	if (!opts.fast)
		tr.queue_ns = sleep_us(opts.queue_us);
	lttng_ust_tracepoint(corecap_op, enter, op_id);
	lttng_ust_tracepoint(corecap_op, phase, op_id, "dequeued");
	wait_ns = tr.io_ns = opts.fast ? 2000 : sleep_us(opts.io_us);
	lttng_ust_tracepoint(corecap_io, syscall, 2, 7, 2, 4096, wait_ns, (const uint8_t *)"", 0);
	wait_ns = tr.cond_ns = opts.fast ? 3000 : sleep_us(opts.cond_us);
	lttng_ust_tracepoint(corecap_lock, cond_wait, &lock_a, &lock_b, site, wait_ns, 0);
	lttng_ust_tracepoint(corecap_op, end, op_id, 0);
	lttng_ust_tracepoint(corecap_op, exit, op_id);
	if (truth)
		write_truth(op_id, type, &tr);
}

static void *worker(void *arg)
{
	unsigned idx = (unsigned)(uintptr_t)arg;
	char name[16];
	uint64_t site = tg_worker_run(), log_site = log_submit();
	int tid = (int)syscall(SYS_gettid);

	snprintf(name, sizeof(name), "tg-worker-%u", idx);
	pthread_setname_np(pthread_self(), name);
	lttng_ust_tracepoint(corecap_thread, name, tid, name);
	for (unsigned long i = 0; i < opts.ops; i++)
		run_op(((uint64_t)idx << 40) | i, (i % 4 == 3) ? "read" : "write", site, log_site);
	(void)lock_b;
	return NULL;
}

static int parse_uint(const char *what, const char *s, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	if (errno || end == s || *end) {
		fprintf(stderr, "corecap_tracegen: invalid %s '%s'\n", what, s);
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"threads", required_argument, NULL, 't'},
		{"ops", required_argument, NULL, 'n'},
		{"cpu-us", required_argument, NULL, 'c'},
		{"lock-us", required_argument, NULL, 'l'},
		{"queue-us", required_argument, NULL, 'q'},
		{"io-us", required_argument, NULL, 'i'},
		{"cond-us", required_argument, NULL, 'w'},
		{"fast", no_argument, NULL, 'f'},
		{"truth", required_argument, NULL, 'T'},
		{NULL, 0, NULL, 0},
	};
	pthread_t tids[64];
	const char *tp_lib;
	unsigned long v;
	int c;

	while ((c = getopt_long(argc, argv, "t:n:c:l:q:i:w:fT:", longopts, NULL)) != -1) {
		if (c == 'f') {
			opts.fast = true;
			continue;
		}
		if (c == 'T') {
			truth = fopen(optarg, "we");
			if (!truth) {
				fprintf(stderr, "corecap_tracegen: cannot create '%s': %s\n",
					optarg, strerror(errno));
				return 1;
			}
			continue;
		}
		if (c == '?' || parse_uint(argv[optind - 1], optarg, &v))
			return 2;
		switch (c) {
		case 't':
			opts.threads = v < 1 ? 1 : v > 64 ? 64 : (unsigned)v;
			break;
		case 'n':
			opts.ops = v;
			break;
		case 'c':
			opts.cpu_us = (unsigned)v;
			break;
		case 'l':
			opts.lock_us = (unsigned)v;
			break;
		case 'q':
			opts.queue_us = (unsigned)v;
			break;
		case 'i':
			opts.io_us = (unsigned)v;
			break;
		case 'w':
			opts.cond_us = (unsigned)v;
			break;
		}
	}
	tp_lib = getenv("CORECAP_TP_LIB") ? getenv("CORECAP_TP_LIB") : CORECAP_TP_LIB;
	if (!dlopen(tp_lib, RTLD_NOW | RTLD_GLOBAL)) {
		fprintf(stderr, "corecap_tracegen: cannot load probes '%s': %s\n", tp_lib,
			dlerror());
		return 1;
	}
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (devnull < 0) {
		perror("corecap_tracegen: cannot open '/dev/null'");
		return 1;
	}
	pthread_mutex_lock(&lock_a);
	pthread_mutex_unlock(&lock_a);
	for (unsigned i = 0; i < opts.threads; i++)
		if (pthread_create(&tids[i], NULL, worker, (void *)(uintptr_t)i)) {
			fprintf(stderr, "corecap_tracegen: cannot create thread %u\n", i);
			return 1;
		}
	for (unsigned i = 0; i < opts.threads; i++)
		pthread_join(tids[i], NULL);
	close(devnull);
	printf("corecap_tracegen: %u threads x %lu ops\n", opts.threads, opts.ops);
	return 0;
}
