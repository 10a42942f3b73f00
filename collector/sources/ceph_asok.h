/*
 * struct corecap_ceph_asok: a Ceph daemon's admin socket, used by
 * `corecap record` to read the OSD's OpTracker and perf counters around the
 * window. At the start it raises osd_op_history_size/_duration (keeping the
 * old values), writes RUN/ceph/perf-begin.json and starts draining the
 * history (optracker_drain.h); at the end it writes
 * RUN/ceph/historic_ops.json.zst (zstd; the drained ops, or one dump with end_dump)
 * and perf-end.json, then restores the settings.
 * Every failure is a warning: the run stays usable without these files.
 *
 * The protocol: the client sends a JSON command ({"prefix": "..."}) and a
 * '\0'; the daemon answers a 4-byte big-endian length and that many bytes.
 */
#ifndef CORECAP_COLLECTOR_CEPH_ASOK_H
#define CORECAP_COLLECTOR_CEPH_ASOK_H

#include <stdbool.h>
#include <sys/types.h>

struct optracker_drain;

struct corecap_ceph_asok {
	char path[108];
	char old_size[32], old_duration[32]; /* "" when unknown */
	bool raised;
	bool begun;
	/* The OpTracker: drained during the window (optracker_drain.h), or with
	 * end_dump (record --ceph-history end) dumped once at its end. */
	bool end_dump;
	struct optracker_drain *drain;
};

/* A running ceph-osd and its admin socket, as --ceph-osds finds them. */
struct corecap_ceph_osd {
	pid_t pid;
	int id; /* N of osd.N */
	char asok[108];
};

/*
 * The admin socket directory of the Ceph configuration: the directory of
 * what `ceph-conf --name osd.0 --show-config-value admin_socket` prints
 * (CEPH_CONF honoured), else Ceph's default /var/run/ceph. Into dir.
 */
void corecap_ceph_asok_default_dir(char *dir, size_t len);
/*
 * Every running ceph-osd listening on an admin socket DIR/<cluster>-osd.N.asok,
 * by N, into out[0..max); their count, or -errno (/proc unreadable).
 */
int corecap_ceph_osds_find(const char *dir, struct corecap_ceph_osd *out, size_t max);

/* Finds a listening admin socket (*.asok) of PID through /proc; false if none. */
bool corecap_ceph_asok_find(pid_t pid, char *path, size_t len);
/* 0 when path is a socket that accepts a connection; else -errno, printed. */
int corecap_ceph_asok_init(struct corecap_ceph_asok *a, const char *path);
int corecap_ceph_asok_begin(struct corecap_ceph_asok *a, int run_dirfd);
int corecap_ceph_asok_end(struct corecap_ceph_asok *a, int run_dirfd);
/* Where the window did not end (an error, the daemon gone): the drain stopped, the settings back. */
void corecap_ceph_asok_release(struct corecap_ceph_asok *a);

#endif
