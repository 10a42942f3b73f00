/*
 * struct corecap_cpu_profile: gperftools' CPU profiler of the daemon,
 * switched on for the window and off after it.
 *
 * Applies when the daemon has libprofiler mapped and CPUPROFILESIGNAL and
 * CPUPROFILE in its environment (what `corecap run --cpuprofile` sets).
 * libprofiler starts a profile at the first signal, writing
 * CPUPROFILE.<n> (n counts the toggles of that process from 0), and
 * stops and writes it out at the second. Guarantees: the profile copied
 * into RUN/cpu.prof is the one written after our start signal (its
 * modification time is after it), only once its size has stopped changing;
 * the profiler's own file is then removed. A profile that does not appear
 * is a warning, not an error: the rest of the run is still good.
 */
#ifndef CORECAP_COLLECTOR_CPU_PROFILE_H
#define CORECAP_COLLECTOR_CPU_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

struct corecap_run_dir;
struct corecap_target;

struct corecap_cpu_profile {
	pid_t pid;
	bool available; /* libprofiler mapped and the variables set */
	bool running;
	int signal;
	char base[4096]; /* CPUPROFILE */
	struct timespec started;
	size_t bytes; /* of RUN/cpu.prof, once copied */
};

/* Looks at the maps and environment; never fails. */
void corecap_cpu_profile_init(struct corecap_cpu_profile *cp, const struct corecap_target *t);
int corecap_cpu_profile_start(struct corecap_cpu_profile *cp);
int corecap_cpu_profile_stop(struct corecap_cpu_profile *cp);
/* Waits up to timeout_ms for the profile, then copies it to RUN/cpu.prof. */
int corecap_cpu_profile_collect(struct corecap_cpu_profile *cp, struct corecap_run_dir *rd,
				unsigned timeout_ms);

#endif
