/*
 * Benchmark output parsers: pure functions from the text a benchmark
 * printed to a summary of named numbers (no I/O, no globals).
 *
 * - rados bench of any Ceph release ("Average Latency(s):" and the older
 *   "Average Latency:" forms) and refbench, which prints the same labels
 *   plus "pNN latency(s):" percentiles;
 * - fio --output-format=json (jobs and directions aggregated);
 * - fio's classic text output, as a fallback (headline and latency lines).
 *
 * A summary holds only what the benchmark printed, under the keys listed in
 * docs/run-directory.md ("iops_avg", "lat_avg_s", ...); units are in the
 * key names. When a label occurs more than once the last one wins.
 */
#ifndef CORECAP_COLLECTOR_BENCH_PARSE_H
#define CORECAP_COLLECTOR_BENCH_PARSE_H

#include <stdbool.h>
#include <stddef.h>

enum { CORECAP_BENCH_MAX_ITEMS = 40, CORECAP_BENCH_KEY_LEN = 32 };

struct corecap_bench_item {
	char key[CORECAP_BENCH_KEY_LEN];
	double value;
	bool integral; /* a count (ops, bytes): written without a fraction */
};

struct corecap_bench_summary {
	const char *parser; /* "rados", "fio", or NULL when nothing was recognized */
	size_t n_items;
	struct corecap_bench_item items[CORECAP_BENCH_MAX_ITEMS];
};

void corecap_bench_summary_init(struct corecap_bench_summary *s);
/* Sets or replaces `key`; -ENOSPC when the summary is full. */
int corecap_bench_summary_set(struct corecap_bench_summary *s, const char *key, double value,
			      bool integral);
bool corecap_bench_summary_get(const struct corecap_bench_summary *s, const char *key,
			       double *value);

/* Each returns 0 when it found its format, -ENOENT when not. */
int corecap_bench_parse_rados(const char *text, struct corecap_bench_summary *s);
int corecap_bench_parse_fio_json(const char *text, struct corecap_bench_summary *s);
int corecap_bench_parse_fio_text(const char *text, struct corecap_bench_summary *s);
/* Tries fio JSON, rados, then fio text. */
int corecap_bench_parse(const char *text, struct corecap_bench_summary *s);
/* Parses RUN/bench.out (its first max bytes) into s, initialised first; nothing if absent. */
void corecap_bench_summary_read(int run_dirfd, size_t max, struct corecap_bench_summary *s);

#endif
