/*
 * record_multi: `corecap record -p PID1,PID2,...` and `--ceph-osds`, several
 * daemons in one window and one run directory (docs/run-directory.md,
 * "A run of several daemons"; the choice: docs/architecture.md).
 *
 * The parent runs one child collector per daemon (this program's own
 * `record -p PID -o RUN/daemons/PID --sync-fds R,W`), each writing a
 * complete single-daemon run, so every source (threads.tsv, wall samples,
 * kernel events, LTTng, shim stats, the admin socket) is the daemon's by
 * construction. The parent owns the window and the benchmark:
 *   1. each child prepares, says CORECAP_MULTI_READY, and waits;
 *   2. once all are ready the parent says CORECAP_MULTI_GO to each; each
 *      starts its window and says CORECAP_MULTI_STARTED;
 *   3. the parent starts its window and the benchmark (RUN/bench.out);
 *   4. at the window's end it closes the R pipes: each child ends its
 *      window, finishes, and writes its manifest;
 *   5. the parent writes RUN/manifest.json (version 3) listing daemons[].
 * A child that fails before the go abandons its run, and the parent the
 * whole run (removed, the daemon named). A daemon that exits mid-window
 * ends its child only: the others' data is kept and the run is partial,
 * naming the PID. A parent killed outright closes the pipes by dying, so
 * the children still end their windows and write their runs.
 *
 * A host of `record --hosts` with several daemons runs this record under
 * its host-record (collector/hosts/host_agent.c), which drives it as it
 * drives one daemon's record (--sync-fds R,W): once every child is ready
 * the parent says CORECAP_MULTI_READY on W and waits for CORECAP_MULTI_GO
 * on R, says CORECAP_MULTI_STARTED once its window started, and ends the
 * window when R is closed. With --relayd-url URL each child streams its
 * trace to URL/PID.
 */
#ifndef CORECAP_COLLECTOR_RECORD_MULTI_H
#define CORECAP_COLLECTOR_RECORD_MULTI_H

#include "record_opts.h"

#define CORECAP_MULTI_READY   'r' /* child to parent: prepared */
#define CORECAP_MULTI_GO      'g' /* parent to child: start the window */
#define CORECAP_MULTI_STARTED 's' /* child to parent: window started */

/* Writes the one byte c to fd; 0 or -errno. */
int corecap_record_multi_say(int fd, char c);
/* The record of several daemons; the exit status of `corecap record`. */
int corecap_record_multi(const struct corecap_record_opts *o, int argc, char **argv);

#endif
