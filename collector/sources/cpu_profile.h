/*
 * struct corecap_cpu_profile: gperftools' CPU profiler of the daemon,
 * switched on for the window and off after it.
 *
 * Applies when the daemon has libprofiler mapped and CPUPROFILESIGNAL and
 * CPUPROFILE in its environment (what `corecap run --cpuprofile` sets).
 * libprofiler starts a profile at the first signal, writing
 * CPUPROFILE.<n> (n counts the toggles of that process from 0), and
 * stops and writes it out at the second.
 *
 * The profiler's real state is read, not assumed: it is on exactly while
 * the daemon holds CPUPROFILE.<n> open (/proc/PID/fd). Guarantees:
 * - one recorder per daemon: corecap_cpu_profile_claim() takes an flock on
 *   CPUPROFILE.owner (released by the kernel when the collector dies,
 *   however it dies) and refuses, naming the owner, while another
 *   collector holds it; a profiler found on without a live owner (a
 *   collector killed mid-window) is switched off first, and the file that
 *   dead collector's window left is removed;
 * - each toggle goes to one thread asleep where libprofiler's SIGPROF
 *   handler cannot be (toggle_thread.h): a toggle taken inside that handler
 *   deadlocks the thread that took it;
 * - the stop toggle is sent only once the profiler is seen on, and no
 *   sooner than CORECAP_CPU_PROFILE_MIN_ON_MS after: a second toggle taken
 *   by another thread while the first still runs makes libprofiler abort
 *   the daemon ("Can't turn on cpu profiling");
 * - the profile copied into RUN/cpu.prof is the one the daemon closed
 *   after our stop toggle; the profiler's own file is then removed. A
 *   profile that does not appear is a warning, not an error;
 * - CPUPROFILE is the target's choice, so every path under it (the owner
 *   file, the profile, a dead window's file) is opened, created and
 *   removed by a short-lived child with the target's file system uid, gid
 *   and groups (/proc/PID/status), never with the collector's rights;
 *   opens never follow a final symlink, never block (a FIFO) and accept
 *   only a regular file; the owner file must belong to the target's uid
 *   and the profile is read up to CORECAP_CPU_PROFILE_MAX_BYTES;
 * - a profiler seen off before our stop toggle (someone else switched
 *   it), or of a daemon that exec'd (libprofiler's code moved), gets no
 *   toggle: it would switch on a profiler that nobody then switches off.
 */
#ifndef CORECAP_COLLECTOR_CPU_PROFILE_H
#define CORECAP_COLLECTOR_CPU_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct corecap_run_dir;
struct corecap_target;

#define CORECAP_CPU_PROFILE_MIN_ON_MS  50u
#define CORECAP_CPU_PROFILE_SWITCH_MS  3000u	    /* the longest wait for a toggle to show */
#define CORECAP_CPU_PROFILE_MAX_BYTES  (1ull << 30) /* the largest profile copied */
#define CORECAP_CPU_PROFILE_MAX_GROUPS 256

enum corecap_cpu_profile_state {
	CPU_PROFILE_OFF,
	CPU_PROFILE_STARTING, /* start toggle sent, not seen on yet */
	CPU_PROFILE_ON,
	CPU_PROFILE_STOPPED, /* stop toggle sent and seen: the file is complete */
};

struct corecap_cpu_profile {
	pid_t pid;
	bool available; /* libprofiler mapped and the variables set */
	enum corecap_cpu_profile_state state;
	int signal;
	uint64_t code_lo; /* where libprofiler's code was mapped at init */
	uid_t uid;	  /* the target's file system credentials */
	gid_t gid;
	size_t n_groups;
	gid_t groups[CORECAP_CPU_PROFILE_MAX_GROUPS];
	char base[4096];  /* CPUPROFILE, made absolute */
	char file[4200];  /* CPUPROFILE.<n> of our window, once seen on */
	int owner_fd;	  /* CPUPROFILE.owner, flocked; -1 */
	uint64_t sent_ns; /* CLOCK_MONOTONIC of the start toggle */
	uint64_t on_ns;	  /* when it was seen on */
	uint64_t next_poll_ns;
	size_t bytes; /* of RUN/cpu.prof, once copied */
};

/* Looks at the maps and environment; never fails. */
void corecap_cpu_profile_init(struct corecap_cpu_profile *cp, const struct corecap_target *t);
/*
 * Makes this collector the profiler's only user (see above). 0 (also when
 * no profiler applies), -EBUSY when another collector owns it (printed).
 */
int corecap_cpu_profile_claim(struct corecap_cpu_profile *cp);
/* Sends the start toggle; corecap_cpu_profile_poll() sees it take effect. */
int corecap_cpu_profile_start(struct corecap_cpu_profile *cp);
/* Cheap while nothing is pending; call it from the window's loop. */
void corecap_cpu_profile_poll(struct corecap_cpu_profile *cp);
/*
 * Switches the profiler off: waits (bounded) for it to be on and for the
 * minimum spacing, sends the stop toggle and waits for the file to close.
 * The caller must not hold any thread of the daemon in a ptrace stop.
 */
int corecap_cpu_profile_stop(struct corecap_cpu_profile *cp);
/* Copies the profile to RUN/cpu.prof. */
int corecap_cpu_profile_collect(struct corecap_cpu_profile *cp, struct corecap_run_dir *rd);
/* Gives up the ownership (removes CPUPROFILE.owner); idempotent. */
void corecap_cpu_profile_release(struct corecap_cpu_profile *cp);

#endif
