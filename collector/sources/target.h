/*
 * struct corecap_target: the process being recorded, as /proc shows it.
 *
 * Guarantees after corecap_target_open() returns 0: `pid` is a live
 * user-space process (a thread group leader; a TID given by the user is
 * mapped to its process) whose /proc files we may read, which is the same
 * permission check ptrace makes (PTRACE_MODE_READ); comm and cmdline are
 * filled, exe may be empty when the link is unreadable. Errors name the
 * PID and the cause.
 */
#ifndef CORECAP_COLLECTOR_TARGET_H
#define CORECAP_COLLECTOR_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct corecap_target {
	pid_t pid;
	uid_t uid;
	char comm[64];
	char exe[4096];
	char *cmdline; /* NUL-separated arguments */
	size_t cmdline_len;
	char *environ; /* NUL-separated NAME=VALUE, as at exec */
	size_t environ_len;
	uint64_t starttime_ticks; /* tells a recycled PID apart */
};

int corecap_target_open(struct corecap_target *t, pid_t pid);
void corecap_target_release(struct corecap_target *t);

/* Whether the process still runs (neither gone, nor a zombie, nor a new one on its PID). */
bool corecap_target_alive(const struct corecap_target *t);
/*
 * The value of NAME in the process' initial environment, or NULL. Copied
 * into buf, with the top bit of its first byte cleared (gperftools sets it
 * in place to mark a variable as seen).
 */
const char *corecap_target_getenv(const struct corecap_target *t, const char *name, char *buf,
				  size_t size);

#endif
