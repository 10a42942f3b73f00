/*
 * dump.h: the human summary, mutrace-style: lock sites sorted by total
 * wait, condition-wait sites, hot locks with their hold utilization,
 * threads, totals and losses. Written at exit and, with
 * CORECAP_DUMP_SIGNAL, whenever that signal arrives, to stderr or the
 * CORECAP_DUMP file ("%p" becomes the pid; dumps are appended; the file
 * must be a regular file of the process's effective uid, reached without
 * following a final symlink, else one warning and no dump).
 *
 * The signal handler only posts a semaphore; a dedicated tracer thread
 * writes the dump. That keeps dladdr (which takes the loader lock) and
 * formatting out of signal context and out of any thread that might
 * hold the daemon's locks.
 */
#ifndef CORECAP_PRELOAD_DUMP_H
#define CORECAP_PRELOAD_DUMP_H

#include "settings.h"
#include "stats_shm.h"

/* Writes the summary of s to fd; `why` names the occasion ("exit"). */
int dump_write(struct stats_shm *s, int fd, uint32_t top, const char *why);

/* Writes it where the settings say (nothing if CORECAP_DUMP=off). */
int dump_now(const char *why);

/* Installs the CORECAP_DUMP_SIGNAL handler and starts the dump thread. */
int dump_signal_start(const struct settings *st);

/* Fork child (called from the fork wrapper, outside atfork context). */
void dump_after_fork_child(void);

#endif /* CORECAP_PRELOAD_DUMP_H */
