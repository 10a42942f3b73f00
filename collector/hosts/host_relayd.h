/*
 * host_relayd: the lttng-relayd of `corecap record --hosts` (docs/hosts.md,
 * "Traces through lttng-relayd").
 *
 * corecap_relayd_reuse() takes an lttng-relayd that runs already on this
 * host when it can be trusted and read plainly: a process whose /proc
 * entry is owned by corecap's user, in corecap's mount and network
 * namespaces, whose command line and environment say its ports and its
 * output directory (relayd_cmdline.h), no configuration file beside it,
 * holding listening sockets on both ports, its output directory reached
 * from / through directories owned by root or its user that no one else
 * may write. It is left running: corecap_relayd_stop() only waits until
 * it holds no file of our session, the takes copy what it wrote for each
 * host into the run (the same checks, the relayd's user its owner) and
 * remove it, and corecap_relayd_release() removes only what our session
 * made there (our token's directories; a hostname directory that was not
 * there before, when empty). Each host's path then carries a random
 * part, so no other session's directory is ever ours.
 *
 * corecap_relayd_start() starts an lttng-relayd of our own,
 * writing into a directory it makes inside the run (mode 0700), its
 * control, data and live ports the URL's or, without them, free ones
 * (bound first, then given to the relayd; a relayd that lost the race is
 * started again on others). It dies with us (PR_SET_PDEATHSIG) and
 * corecap_relayd_stop() ends it. Without a URL it listens on "::" (both
 * families, where the kernel has IPv6 and net.ipv6.bindv6only is 0), else
 * on 0.0.0.0. Each host streams to net://ADDR:CTRL:DATA/TOKEN/NAME, or
 * net6://[ADDR]:... over IPv6 (corecap_relayd_host_url); once the
 * relayd is stopped, corecap_relayd_take() checks what it wrote for a
 * host (regular files and directories only, opened O_NOFOLLOW, one link
 * each, bounded in size, count and depth; made 0600 and 0700) and renames
 * it into the host's sub-run: the remote consumers wrote it, so it is
 * untrusted input, as the tar stream is.
 */
#ifndef CORECAP_COLLECTOR_HOST_RELAYD_H
#define CORECAP_COLLECTOR_HOST_RELAYD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "relayd_cmdline.h"

#define CORECAP_RELAYD_DIR "relayd.out" /* in the run while it records; removed */
#define CORECAP_RELAYD_LOG "relayd.log" /* in the run: what the relayd said */

/* Top-level entries of a reused relayd's output remembered, to tell which our session made. */
#define CORECAP_RELAYD_BEFORE_MAX 256

struct corecap_relayd {
	pid_t pid;   /* ours or the reused one's, or -1 */
	bool reused; /* it ran already: left running, its output shared */
	uid_t owner; /* the user its files belong to */
	int dir_fd;  /* its output: CORECAP_RELAYD_DIR, or the reused one's; or -1 */
	char output[CORECAP_RELAYD_OUTPUT_MAX];	 /* reused: its output directory */
	bool made_output;			 /* reused: we made that directory (it had none) */
	ino_t before[CORECAP_RELAYD_BEFORE_MAX]; /* reused: its output's directories then */
	size_t n_before;			 /* their count; over the bound, none removed */
	bool before_all;			 /* every one of them is in before[] */
	double cpu_user_s, cpu_sys_s;		 /* ours, once ended (wait4); else -1 */
	char addr[64];	 /* the address hosts are told, unbracketed; "" when each host derives it */
	char listen[64]; /* the address it listens on: addr, "::" or "0.0.0.0" */
	unsigned ctrl_port, data_port, live_port;
	char token[48]; /* the first part of each host's path */
	char error[512];
};

/*
 * url: NULL, or net://IPV4[:CTRL:DATA] or net6://[IPV6][:CTRL:DATA] (the
 * address the hosts reach this one by; the relayd listens on it). run_fd/run_path: the run
 * directory; log_fd: where the relayd's output goes. 0, or -errno with d->error.
 */
int corecap_relayd_start(struct corecap_relayd *d, const char *url, int run_fd,
			 const char *run_path, int log_fd);
/*
 * The URL a host's record streams to (host-record's --relayd-url):
 * net://ADDR:CTRL:DATA/TOKEN/HOST, net6://[ADDR]:... for an IPv6 ADDR, and
 * net://:CTRL:DATA/... without an address (the host completes it).
 */
void corecap_relayd_host_url(const struct corecap_relayd *d, const char *host, char *buf,
			     size_t size);
/* The relayd's listening URL on addr and port: tcp://ADDR:PORT, tcp6://[ADDR]:PORT. */
void corecap_relayd_listen_url(const char *addr, unsigned port, char *buf, size_t size);
/*
 * On the host: the URL its record streams to, from url as the recording
 * host gave it (corecap_relayd_host_url) with an empty address replaced by
 * the address this host's ssh connection came from (ssh_connection:
 * SSH_CONNECTION's first word, the recording host as this host reaches
 * it; an IPv4-mapped IPv6 address as IPv4; net6://[...] for an IPv6 one),
 * or 127.0.0.1 without one or with anything but a plain address (a remote
 * shell other than ssh: hosts that share the recording host's LTTng
 * session daemon, as containers and the test hosts do). 0, or -EINVAL for
 * a URL of other characters or schemes.
 */
int corecap_relayd_url_complete(const char *url, const char *ssh_connection, char *out,
				size_t size);
/*
 * A running relayd to reuse (above): 0; -ENOENT when none runs; else
 * -errno with d->error naming the first one found and why it is not
 * used (its PID, its user, the rule).
 */
int corecap_relayd_reuse(struct corecap_relayd *d);
/*
 * Ends the relayd (SIGTERM, then SIGKILL after 10 s), its CPU time kept;
 * 0 if it was ours and ended. A reused one is left running: waits (10 s
 * at most) until it holds no file under our session's directories; 0,
 * or -ETIMEDOUT.
 */
int corecap_relayd_stop(struct corecap_relayd *d);
/*
 * Moves what the relayd wrote for host into dest_fd/dest_name, once it is
 * stopped (a reused relayd's: copied, then removed from its output): 0, -ENOENT when it wrote
 * nothing for the host, or -errno with d->error saying which rule was broken (what it wrote is then
 * left).
 */
int corecap_relayd_take(struct corecap_relayd *d, const char *host, int dest_fd,
			const char *dest_name, uint64_t max_bytes);
/*
 * As corecap_relayd_take(), for one daemon of a host with several: what
 * the relayd wrote under the host's PID (each daemon's record streams to
 * the host's URL/PID, collector/record/record_multi.h).
 */
int corecap_relayd_take_daemon(struct corecap_relayd *d, const char *host, int pid, int dest_fd,
			       const char *dest_name, uint64_t max_bytes);
/*
 * Removes the relayd's directory and whatever is left in it (O_NOFOLLOW
 * walk); for a reused relayd, only what our session made in its output.
 */
void corecap_relayd_release(struct corecap_relayd *d, int run_fd);

#endif
