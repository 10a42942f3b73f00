/*
 * host_relayd: the lttng-relayd of `corecap record --hosts` (docs/hosts.md,
 * "Traces through lttng-relayd").
 *
 * corecap_relayd_start() starts an lttng-relayd of our own (never one that
 * runs already: its output directory would be one someone else chose),
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

#define CORECAP_RELAYD_DIR "relayd.out" /* in the run while it records; removed */
#define CORECAP_RELAYD_LOG "relayd.log" /* in the run: what the relayd said */

struct corecap_relayd {
	pid_t pid;	 /* ours, or -1 */
	int dir_fd;	 /* CORECAP_RELAYD_DIR, or -1 */
	char addr[64];	 /* the address hosts are told, unbracketed; "" when each host derives it */
	char listen[64]; /* the address it listens on: addr, "::" or "0.0.0.0" */
	unsigned ctrl_port, data_port, live_port;
	char token[32]; /* the first part of each host's path */
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
/* Ends the relayd (SIGTERM, then SIGKILL after 10 s); 0 if it was ours and ended. */
int corecap_relayd_stop(struct corecap_relayd *d);
/*
 * Moves what the relayd wrote for host into dest_fd/dest_name, once it is
 * stopped: 0, -ENOENT when it wrote nothing for the host, or -errno with
 * d->error saying which rule was broken (what it wrote is then left).
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
/* Removes the relayd's directory and whatever is left in it (O_NOFOLLOW walk). */
void corecap_relayd_release(struct corecap_relayd *d, int run_fd);

#endif
