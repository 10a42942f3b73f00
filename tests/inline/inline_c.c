/*
 * inline_c: a small CPU-bound C program built -O2 with inlining (the way
 * daemons are built), profiled by tests/e2e/flame_inline.sh under
 * `corecap run --cpuprofile` to compare `corecap flame --kind cpu` with
 * `google-pprof --collapsed`. Static helpers that GCC inlines (a chain of
 * three, and one inlined at two call sites), libc work with inline frames
 * of its own when libc6-dbg is installed (qsort, snprintf, memcpy), and a
 * mutex the three threads contend for, so that the shim's slow path shows
 * up in the stacks.
 *
 * usage: inline_c SECONDS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static double seconds = 1.0;

static inline unsigned long mix_word(unsigned long x)
{
	for (int i = 0; i < 64; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

static inline unsigned long hash_record(const unsigned long *rec, int n)
{
	unsigned long h = 0;

	for (int i = 0; i < n; i++)
		h ^= mix_word(rec[i] + h);
	return h;
}

static inline void encode_batch(unsigned long *recs, int n)
{
	for (int i = 0; i < n; i++)
		recs[i] = hash_record(recs, i + 1);
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

static void sort_and_format(unsigned long *recs, int n)
{
	char line[256];
	unsigned long copy[64];

	memcpy(copy, recs, (size_t)n * sizeof(*recs));
	qsort(copy, (size_t)n, sizeof(*copy), cmp_ulong);
	for (int i = 0; i < n; i++)
		sink += (unsigned long)snprintf(line, sizeof(line), "%lu:%016lx:%g", copy[i],
						copy[n - 1 - i], (double)copy[i] / 3.0);
}

static void commit_locked(unsigned long *recs, int n)
{
	pthread_mutex_lock(&table_lock);
	sink += hash_record(recs, n);
	pthread_mutex_unlock(&table_lock);
}

static double elapsed(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static void *worker_main(void *arg)
{
	unsigned long recs[64];
	struct timespec t0;

	for (int i = 0; i < 64; i++)
		recs[i] = (unsigned long)arg * 1000 + (unsigned long)i;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int k = 0; k < 20; k++) {
			encode_batch(recs, 24);
			sort_and_format(recs, 48);
			commit_locked(recs, 16);
		}
	} while (elapsed(&t0) < seconds);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[3];

	if (argc > 1)
		seconds = strtod(argv[1], NULL);
	for (unsigned long i = 0; i < 3; i++)
		if (pthread_create(&th[i], NULL, worker_main, (void *)i) != 0)
			return 1;
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	printf("%lu\n", sink);
	return 0;
}
