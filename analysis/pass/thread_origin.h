/*
 * thread_origin: names the threads a daemon left unnamed by their start
 * routine. XRootD, like many daemons, never names its threads: each one
 * shows the process's name. The wall-clock sampler's stacks (RUN/wall.samples)
 * end, outermost, in the thread's start: clone, start_thread, a thread
 * library's trampoline (XrdSysThread_Xeq, std::thread's state), then the
 * routine the daemon started (XrdStartWorking, XrdStartPolling, ...). A
 * thread whose name is the process's (and is not the main thread) takes
 * that routine's name, so that pools mean something. Wires the reading
 * room (samples, symbols) to the model's thread table, like ceph_attrib.
 */
#ifndef CORECAP_THREAD_ORIGIN_H
#define CORECAP_THREAD_ORIGIN_H

#include <stddef.h>
#include <stdint.h>

#include "model/thread_table.h"
#include "read/symbolizer.h"

/*
 * Renames the threads of `threads` named `comm` (all but tid `pid`) after
 * the start routine in their samples. *renamed: how many were; *unnamed:
 * how many kept `comm` (no sample, or no routine found). 0; -ENOENT when
 * there is no wall.samples (nothing renamed); another negative errno with
 * *err (malloc'd).
 */
int corecap_thread_origin_name(struct thread_table *threads, const char *wall_path,
			       const char *comm, int32_t pid, struct symbolizer *sym,
			       size_t *renamed, size_t *unnamed, char **err);

/*
 * The routine name of one stack's symbols (innermost first, NULL where
 * unknown) by the rule above, into out (the function's name without its
 * arguments); 0 when none, or when the outermost frame is no thread start
 * (an unwind cut short).
 * Exposed for the tests.
 */
size_t corecap_thread_origin_routine(const char *const *symbols, size_t depth, char *out,
				     size_t size);

#endif
