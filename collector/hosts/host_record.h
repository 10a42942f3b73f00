/*
 * host_record: `corecap record --hosts FILE`, one window over the daemons
 * of several hosts (docs/hosts.md, docs/run-directory.md "A run of
 * several hosts").
 *
 * The recording host reaches each host of the file through the remote
 * shell (--rsh, default ssh) twice: `corecap clock-serve` (clock_sync.h)
 * for the clock at the window's start and end, and `corecap host-record`
 * (host_agent.c), which records the host's daemon with its own `corecap
 * record` and, once the window is over, sends the run back as a ustar
 * stream (host_tar.h). The window: every host's record prepares and says
 * ready; the recording host says go to each, waits for each to have
 * started, runs the benchmark here (or waits -d), then ends every host's
 * window by closing its stdin. RUN/manifest.json (version
 * CORECAP_RUN_VERSION_HOSTS) lists the hosts, each with its status, its
 * sub-run hosts/NAME/ (a complete single-daemon run, read as any) and its
 * clock against this host's. A host that cannot be reached, or whose
 * record fails, is named with the cause; the other hosts' runs are kept
 * and the run is partial. The remote's messages are kept in
 * hosts/NAME.log.
 */
#ifndef CORECAP_COLLECTOR_HOST_RECORD_H
#define CORECAP_COLLECTOR_HOST_RECORD_H

#include <stdbool.h>

#include <corecap/run_format.h>

#define CORECAP_HOST_HELLO	     "corecap-host 1"
#define CORECAP_HOST_LINE_MAX_PROTO  64
#define CORECAP_HOST_RUN_TOP	     "run" /* the stream's one top directory */
#define CORECAP_HOST_RECORD_OPTS_MAX 16

/* True when argv asks `corecap record` for --hosts. */
bool corecap_record_hosts_wanted(int argc, char **argv);
/* `corecap record --hosts FILE ...`; the exit status. */
int corecap_record_hosts(int argc, char **argv);
/*
 * True for an option a host's record may be given (--record-opt): not
 * one that names its daemon, its output, its window or its protocol.
 */
bool corecap_host_record_opt_ok(const char *opt);

int corecap_cmd_host_record(int argc, char **argv);
extern const char corecap_host_record_usage[];
extern const char corecap_record_hosts_usage[];

#endif
