/*
 * struct corecap_launch_env: the environment `corecap run` gives the
 * command it execs: which libraries to preload and the gperftools settings.
 *
 * Guarantees after corecap_launch_env_init() returns 0: every library in
 * `libs` exists and is readable, and `ld_preload` is the new LD_PRELOAD
 * value, our libraries first, then whatever LD_PRELOAD held before
 * (a library already listed there is not repeated).
 *
 * With cpuprofile, CPUPROFILE names cpu.prof in a directory of its own,
 * made by mkdtemp (mode 0700, owned by the user who runs the command, a
 * name nobody can predict) under $TMPDIR or /tmp: libprofiler creates its
 * files with O_TRUNC, following symlinks, and with the process's umask
 * (0644 for most daemons), so only a private directory keeps another
 * user from planting a link there or reading the profiles. The cleaner
 * (corecap_launch_env_start_cleaner()) removes the directory and all in
 * it once the command, and every process that inherited the same
 * CPUPROFILE, has exited, however they exit.
 */
#ifndef CORECAP_COLLECTOR_LAUNCH_ENV_H
#define CORECAP_COLLECTOR_LAUNCH_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Fixed paths of the system libraries we preload (Debian, x86_64). */
#define CORECAP_UST_FORK_LIB "/usr/lib/x86_64-linux-gnu/liblttng-ust-fork.so"
#define CORECAP_PROFILER_LIB "/usr/lib/x86_64-linux-gnu/libprofiler.so.0"
/* libprofiler toggles on this signal (SIGUSR2); `record` sends it. */
#define CORECAP_CPUPROFILE_SIGNAL     12
#define CORECAP_CPUPROFILE_DIR_PREFIX "corecap-cpu."
#define CORECAP_CPUPROFILE_NAME	      "prof"

enum { CORECAP_LAUNCH_MAX_LIBS = 4 };

struct corecap_launch_env {
	size_t n_libs;
	char *libs[CORECAP_LAUNCH_MAX_LIBS];
	char *ld_preload;
	bool cpuprofile;
	char cpuprofile_dir[256];  /* our private directory, "" until made */
	char cpuprofile_path[280]; /* CPUPROFILE: cpu.prof in it */
	int pidfd;		   /* of the command's PID, for the cleaner; -1 */
};

/*
 * shim: preload the corecap shim (else only the tracepoint probes);
 * cpuprofile: also libprofiler; pid: the PID the command will have.
 * Prints the reason on failure and returns -errno.
 */
int corecap_launch_env_init(struct corecap_launch_env *env, bool shim, bool cpuprofile, pid_t pid);
/* Sets LD_PRELOAD (and CPUPROFILE, CPUPROFILESIGNAL) in our environment. */
int corecap_launch_env_apply(struct corecap_launch_env *env);
/*
 * With cpuprofile: starts the process that removes the profile directory
 * once the command has exited (a grandchild in a session of its own, so
 * that the command never sees an extra child and Ctrl-C does not reach
 * it). Call it last before the exec.
 */
int corecap_launch_env_start_cleaner(struct corecap_launch_env *env);
/* Frees env; a profile directory is removed (the exec failed). */
void corecap_launch_env_release(struct corecap_launch_env *env);

/*
 * The LD_PRELOAD value for `libs` in front of `existing` (may be NULL),
 * without repeating a library already in `existing`. -EINVAL when a path
 * holds a character LD_PRELOAD cannot carry (':' or blank).
 */
int corecap_preload_join(const char *const *libs, size_t n, const char *existing, char **out);

/*
 * Finds one of our libraries: the environment variable `env_name` if set,
 * else beside the corecap executable's build tree (<build>/<subdir>/<file>),
 * else in the install libdir. -ENOENT (with a message) when absent.
 */
int corecap_find_library(const char *env_name, const char *subdir, const char *file, char **out);

#endif
