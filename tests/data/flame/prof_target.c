/*
 * prof_target: a CPU-bound program with known stacks, profiled with
 * gperftools' libprofiler by tests/e2e/flame_pprof.sh to compare
 * `corecap flame PROFILE` with `google-pprof --collapsed`. Built without
 * inlining or sibling calls so that every frame is a real function (pprof
 * would otherwise add the inlined frames it finds in DWARF; see
 * docs/flame.md). Three threads, a shared library and C++ code (names
 * with namespaces, templates and argument lists).
 *
 * usage: prof_target SECONDS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void lib_hash_block(unsigned rounds);	   /* prof_lib.c, a shared library */
void cpp_entry(unsigned rounds);	   /* prof_cpp.cpp */

static volatile unsigned long sink;
static double seconds = 1.0;

static void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 7;
}

void leaf_a(void)
{
	spin(20000);
}

void leaf_b(void)
{
	spin(40000);
}

static void recurse(int depth)
{
	if (depth == 0) {
		spin(30000);
		return;
	}
	recurse(depth - 1);
	sink++;
}

void mid(unsigned k)
{
	if (k & 1)
		leaf_a();
	else
		leaf_b();
}

static double elapsed(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static void *worker_main(void *arg)
{
	struct timespec t0;
	unsigned k = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		/* The clock is read rarely, so that few samples land in the vDSO. */
		for (int i = 0; i < 50; i++, k++) {
			switch ((unsigned long)arg) {
			case 0:
				mid(k);
				break;
			case 1:
				recurse((int)(k % 5));
				lib_hash_block(3000);
				break;
			default:
				cpp_entry(300);
			}
		}
	} while (elapsed(&t0) < seconds);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[3];

	if (argc > 1)
		seconds = atof(argv[1]);
	for (unsigned long i = 0; i < 3; i++)
		if (pthread_create(&th[i], NULL, worker_main, (void *)i) != 0)
			return 1;
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	printf("%lu\n", sink);
	return 0;
}
