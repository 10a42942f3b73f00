/*
 * kernel_reader_cpu: the analysis' kernel reader alone on a run, what
 * every command pays for the kernel records before any model sees them:
 * kernel/events.bin loaded (version 3: decompressed, decoded, checked and
 * indexed) and every record given by a cursor, in time order. Prints the
 * records given and the process's CPU time. Built from two trees, the two
 * binaries measured in alternating rounds (bench_measure) say what a
 * change to read/kernel_reader did, apart from the rest of a report.
 *
 * usage: kernel_reader_cpu RUN_DIR
 * Exit status: 0, 1 when the records cannot be read, 2 usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "read/kernel_reader.h"

static int count(void *ctx, const struct corecap_krec *r)
{
	(void)r;
	++*(size_t *)ctx;
	return 0;
}

int main(int argc, char **argv)
{
	struct kernel_reader k;
	struct timespec ts;
	char *err = NULL;
	size_t n = 0;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s RUN_DIR\n", argv[0]);
		return 2;
	}
	corecap_kernel_reader_init(&k);
	if ((ret = corecap_kernel_reader_load(&k, argv[1], 0, 0, &err))) {
		fprintf(stderr, "kernel_reader_cpu: %s\n", err ? err : "cannot load");
		free(err);
		return 1;
	}
	ret = corecap_kernel_reader_each(&k, count, &n);
	corecap_kernel_reader_release(&k);
	if (ret) {
		fprintf(stderr, "kernel_reader_cpu: a cursor failed (%d)\n", ret);
		return 1;
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	printf("%zu records, %.3f s CPU\n", n, (double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
	return 0;
}
