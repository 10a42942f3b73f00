/*
 * shim.h: the shim's life cycle (shim.c): the constructor loads the
 * settings, maps the stats region and attaches the main thread; fork
 * children start over with a region of their own; the destructor writes
 * the exit summary and removes the stats file.
 */
#ifndef CORECAP_PRELOAD_SHIM_H
#define CORECAP_PRELOAD_SHIM_H

#include <stdbool.h>

/*
 * Gives a fork child its own counters and file (corecap.<childpid>).
 * Runs from the shim's atfork handler and again from its fork wrapper;
 * the second call finds the work done. from_wrapper: outside atfork
 * context, so threads may be started again.
 */
void shim_after_fork_child(bool from_wrapper);

/* _exit runs no destructor: remove the stats file at least. */
void shim_before_exit_now(void);

#endif /* CORECAP_PRELOAD_SHIM_H */
