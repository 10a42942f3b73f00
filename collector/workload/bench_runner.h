/*
 * struct corecap_bench_runner: the benchmark command of a recording.
 *
 * Guarantees: the child gets default signal dispositions and an empty
 * signal mask, our stdin, and one pipe for both stdout and stderr; what it
 * prints is copied to RUN/bench.out as it arrives, and to our stdout unless
 * quiet. The last complete line is kept for the progress display. The
 * caller reaps (waitpid(-1)) and hands the child's status to
 * corecap_bench_runner_exited(); corecap_bench_runner_release() never
 * leaves the child running (SIGINT, then SIGKILL after a grace period).
 * With corecap_bench_runner_set_cpus(), the child runs on those CPUs (the
 * ones record was started on, when it keeps itself on others). The same
 * runner starts `corecap scale --prepare`'s command (its output into a file
 * of the scale directory, its messages naming it as what).
 */
#ifndef CORECAP_COLLECTOR_BENCH_RUNNER_H
#define CORECAP_COLLECTOR_BENCH_RUNNER_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct corecap_run_dir;

struct corecap_bench_runner {
	pid_t pid;   /* 0 before start, -1 after it was reaped */
	int out_fd;  /* read end of the child's stdout/stderr pipe, -1 at EOF */
	int file_fd; /* RUN/bench.out */
	bool echo;
	int status; /* waitpid status once exited */
	bool exited;
	char last_line[256];
	char partial[256]; /* the line being assembled */
	size_t partial_len;
	size_t bytes;
	int start_errno; /* its exec failed with this; 0: it started */
	int write_errno; /* writing bench.out failed with this; 0: all written */
	bool signalled;	 /* we sent it a signal (-d elapsed, interrupted, killed) */
	bool has_cpus;	 /* the child's affinity is set to cpus before exec */
	cpu_set_t cpus;
	const char *what;     /* for messages: "the benchmark" */
	const char *out_name; /* its output file's name: "bench.out" */
	bool own_group;	      /* the child leads a process group; signals go to the group */
};

/* Its output into RUN/bench.out. */
int corecap_bench_runner_init(struct corecap_bench_runner *b, struct corecap_run_dir *rd,
			      bool echo);
/* Its output into the new file name of rd, what naming it in messages. */
int corecap_bench_runner_init_file(struct corecap_bench_runner *b, struct corecap_run_dir *rd,
				   const char *name, const char *what, bool echo);
/* The CPUs the benchmark runs on, whatever record's own are. */
void corecap_bench_runner_set_cpus(struct corecap_bench_runner *b, const cpu_set_t *cpus);
/*
 * Starts argv. An exec failure is printed and kept in start_errno (the
 * child exits 127); only a failure to fork or make a pipe returns -errno.
 */
int corecap_bench_runner_start(struct corecap_bench_runner *b, char **argv);
/* Copies what is available on out_fd (non-blocking). */
void corecap_bench_runner_pump(struct corecap_bench_runner *b);
void corecap_bench_runner_exited(struct corecap_bench_runner *b, int status);
/* Sends sig to a running child (its group, with own_group). */
void corecap_bench_runner_signal(struct corecap_bench_runner *b, int sig);
/* Waits up to grace_ms for the child (after SIGINT), then kills it; drains output. */
void corecap_bench_runner_finish(struct corecap_bench_runner *b, unsigned grace_ms);
int corecap_bench_runner_release(struct corecap_bench_runner *b);
/* The exit status as a shell shows it: the code, or 128 + signal. */
int corecap_bench_runner_exit_code(const struct corecap_bench_runner *b);
/* The signal that killed it, or 0. */
int corecap_bench_runner_killed_by(const struct corecap_bench_runner *b);

#endif
