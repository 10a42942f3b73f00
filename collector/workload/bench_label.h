/*
 * bench_label: the program a benchmark command line runs, for record's
 * banner: past the wrappers that only set how it runs (nice, taskset,
 * chrt, ionice, env, numactl, stdbuf, timeout) and their options, so
 * `nice -n 5 taskset -c 1 refbench -t 8` reads "refbench".
 */
#ifndef CORECAP_BENCH_LABEL_H
#define CORECAP_BENCH_LABEL_H

/*
 * argv[0] unless it is a known wrapper; then the first of its arguments
 * that is an executable (a path, or a name found in PATH), neither an
 * option nor an assignment, again past wrappers; the wrapper itself when
 * none is.
 */
const char *corecap_bench_label(char *const *argv);

#endif
