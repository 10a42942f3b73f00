/*
 * host_spec: the hosts of a record across hosts (docs/hosts.md): the
 * remote shell's words (--rsh) and the hosts file.
 *
 * The hosts file: one host a line, "NAME REACH DAEMONS", blank lines and
 * '#' comments ignored. NAME names the host's sub-run (hosts/NAME/):
 * letters, digits, '_', '-', '.', not starting with '.' or '-', at most
 * CORECAP_HOST_NAME_MAX bytes. REACH is the remote shell's destination
 * (ssh's [user@]host), printable, never starting with '-' (it would be
 * an option to ssh). DAEMONS is "pid=N[,N...]" (at most
 * CORECAP_HOST_PIDS_MAX, distinct), "comm=NAME" (the one process of that
 * name on the host, found there), or "ceph-osds[=DIR]" (every ceph-osd
 * listening on an admin socket in DIR there, as record --ceph-osds finds
 * them; DIR absolute, of letters, digits, '/', '_', '-', '.', no "..", at
 * most CORECAP_HOST_OSD_DIR_MAX bytes: it goes through the remote shell's
 * command line). Several daemons make the host's run one of several
 * daemons (docs/run-directory.md). Guarantees after
 * corecap_host_spec_load() returns 0: 1..CORECAP_HOSTS_MAX hosts, names
 * distinct, every field checked as above; the file was read whole with a
 * bound (CORECAP_HOSTS_FILE_MAX) and lines over CORECAP_HOST_LINE_MAX
 * are refused.
 */
#ifndef CORECAP_COLLECTOR_HOST_SPEC_H
#define CORECAP_COLLECTOR_HOST_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum {
	CORECAP_HOSTS_MAX = 16,
	CORECAP_HOST_NAME_MAX = 32,
	CORECAP_HOST_REACH_MAX = 255,
	CORECAP_HOST_LINE_MAX = 1024,
	CORECAP_HOSTS_FILE_MAX = 64 * 1024,
	CORECAP_HOST_PIDS_MAX = 16,
	CORECAP_HOST_OSD_DIR_MAX = 200,
	CORECAP_RSH_WORDS_MAX = 32,
};

struct corecap_host {
	char name[CORECAP_HOST_NAME_MAX + 1];
	char reach[CORECAP_HOST_REACH_MAX + 1];
	pid_t pids[CORECAP_HOST_PIDS_MAX];
	size_t n_pids;
	char comm[16];	/* or the process name ("" with pids) */
	bool ceph_osds; /* or the OSDs of ceph_osds_dir ("": record's default) */
	char ceph_osds_dir[CORECAP_HOST_OSD_DIR_MAX + 1];
};

struct corecap_host_spec {
	struct corecap_host hosts[CORECAP_HOSTS_MAX];
	size_t n;
	char error[256]; /* "line N: why" after a failed load */
};

/* Reads and checks the hosts file; 0, or -errno with the cause in spec->error. */
int corecap_host_spec_load(struct corecap_host_spec *spec, const char *path);
/* Parses the text of a hosts file (NUL-terminated); as corecap_host_spec_load. */
int corecap_host_spec_parse(struct corecap_host_spec *spec, const char *text);
/* True when s is a valid host name (NAME above). */
int corecap_host_name_ok(const char *s);
/* True when s is a valid destination (REACH above). */
int corecap_host_reach_ok(const char *s);
/* True when s is a valid ceph-osds=DIR (above). */
int corecap_host_osd_dir_ok(const char *s);
/*
 * Adds the PIDs of list ("N[,N...]": decimal, 1 to 4194304) to h's: 0,
 * -EINVAL for another spelling or an empty list, -E2BIG past
 * CORECAP_HOST_PIDS_MAX, -EEXIST for a PID named twice.
 */
int corecap_host_pids_parse(struct corecap_host *h, const char *list);
/* The host's daemons as host-record's --pid takes them: "N,N,..." into buf; 0 or -ENOSPC. */
int corecap_host_pids_arg(const struct corecap_host *h, char *buf, size_t size);

/*
 * argv for `RSH REACH CMD...`: rsh split at blanks (no quoting, as
 * pdsh's and rsync's -e without quotes), then reach, then cmd[] up to
 * its NULL, into words[] of max entries (NULL-terminated). rsh is kept
 * in copy (which the caller frees). 0, or -EINVAL for an empty rsh or
 * too many words.
 */
int corecap_rsh_argv(const char *rsh, const char *reach, const char *const cmd[], char **copy,
		     char *words[], size_t max);

#endif
