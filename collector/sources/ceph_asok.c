#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <zstd.h>

#include "ceph_asok.h"
#include <corecap/diag.h>
#include "asok_client.h"
#include "optracker_drain.h"
#include "util/proc_stat.h"
#include "util/run_dir.h"
#include <corecap/run_format.h>

#define HISTORY_SIZE	 "10000"
#define HISTORY_KEPT	 10000 /* ops the drain keeps: a uniform sample past it */
#define HISTORY_DURATION "600"
/* historic_ops.json.zst's zstd level: JSON of one shape again and again
 * shrinks 12.6 times at level 1 (460 MB/s), better and faster than at
 * level 3 (11.9, 300 MB/s) on a ceph-osd's history, once, at the
 * window's end (docs/methodology.md, "What recording costs"). */
#define HISTORY_ZSTD_LEVEL 1

/* Runs CMD and writes its reply to RUN/ceph/NAME. */
static int dump_to(struct corecap_ceph_asok *a, int run_dirfd, const char *cmd, const char *name)
{
	char *reply;
	size_t len = 0;
	int fd, ret;

	ret = corecap_asok_command(a->path, cmd, &reply, &len);
	if (ret < 0) {
		corecap_warn("cannot run '%s' on admin socket '%s': %s", cmd, a->path,
			     strerror(-ret));
		return ret;
	}
	fd = openat(run_dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = -errno;
		corecap_warn("cannot create '%s' in the run directory: %s", name, strerror(-ret));
		goto out_free;
	}
	ret = corecap_write_all(fd, reply, len);
	if (close(fd) < 0 && ret == 0)
		ret = -errno;
	if (ret < 0)
		corecap_warn("cannot write '%s' in the run directory: %s", name, strerror(-ret));
out_free:
	free(reply);
	return ret;
}

/* The value of VAR from `config get` ({"VAR": "VALUE"}), or "" */
static void config_get(const struct corecap_ceph_asok *a, const char *var, char *val, size_t len)
{
	char cmd[160], *reply, *p, *q;

	val[0] = '\0';
	snprintf(cmd, sizeof(cmd), "{\"prefix\": \"config get\", \"var\": \"%s\"}", var);
	if (corecap_asok_command(a->path, cmd, &reply, NULL) < 0)
		return;
	p = strstr(reply, "\": \"");
	if (p) {
		p += 4;
		q = strchr(p, '"');
		if (q && (size_t)(q - p) < len) {
			memcpy(val, p, (size_t)(q - p));
			val[q - p] = '\0';
		}
	}
	free(reply);
}

static bool is_want(const char *target, const void *want)
{
	return strcmp(target, want) == 0;
}

/* Whether PID has the socket of inode ino open ("socket:[N]" in /proc/PID/fd). */
static bool has_socket_inode(pid_t pid, unsigned long ino)
{
	char link[64], want[64];

	snprintf(want, sizeof(want), "socket:[%lu]", ino);
	return corecap_proc_fd_find(pid, is_want, want, link, sizeof(link));
}

bool corecap_ceph_asok_find(pid_t pid, char *path, size_t len)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/net/unix", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long ino, state;
		char sock_path[256];
		size_t n;

		/* Num RefCount Protocol Flags Type St Inode Path */
		if (sscanf(line, "%*s %*s %*s %*s %*s %lx %lu %255s", &state, &ino, sock_path) != 3)
			continue;
		n = strlen(sock_path);
		if (n < 5 || strcmp(sock_path + n - 5, ".asok") != 0 || n >= len)
			continue;
		if (has_socket_inode(pid, ino)) {
			memcpy(path, sock_path, n + 1);
			found = true;
		}
	}
	fclose(f);
	return found;
}

void corecap_ceph_asok_default_dir(char *dir, size_t len)
{
	char line[512] = "";
	FILE *f =
		popen("ceph-conf --name osd.0 --show-config-value admin_socket 2>/dev/null", "re");
	char *slash;

	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		if (pclose(f) != 0)
			line[0] = '\0';
	}
	line[strcspn(line, "\n")] = '\0';
	slash = strrchr(line, '/');
	if (line[0] == '/' && slash) {
		*slash = '\0';
		snprintf(dir, len, "%s", slash == line ? "/" : line);
	} else {
		snprintf(dir, len, "/var/run/ceph");
	}
}

/* N when name is "<cluster>-osd.N.asok", else -1. */
static int osd_id_of(const char *name)
{
	const char *p = strstr(name, "-osd.");
	char *end;
	long id;

	if (!p || p == name)
		return -1;
	p += 5;
	if (*p < '0' || *p > '9')
		return -1;
	id = strtol(p, &end, 10);
	return strcmp(end, ".asok") == 0 && id <= 1000000 ? (int)id : -1;
}

/* osd_owning's walk over /proc. */
struct owner_walk {
	unsigned long ino;
	pid_t found;
};

static bool owner_one(pid_t pid, int dirfd, void *ctx)
{
	struct owner_walk *w = ctx;

	if (corecap_proc_comm_is(dirfd, "ceph-osd") && has_socket_inode(pid, w->ino))
		w->found = pid;
	return w->found != 0;
}

/* The ceph-osd that has socket inode ino open, or 0. */
static pid_t osd_owning(unsigned long ino)
{
	struct owner_walk w = {.ino = ino};

	corecap_proc_each(owner_one, &w);
	return w.found;
}

static int cmp_osd(const void *a, const void *b)
{
	const struct corecap_ceph_osd *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

int corecap_ceph_osds_find(const char *dir, struct corecap_ceph_osd *out, size_t max)
{
	char line[512];
	size_t n = 0, dlen = strlen(dir);
	FILE *f = fopen("/proc/net/unix", "re");

	while (dlen > 1 && dir[dlen - 1] == '/')
		dlen--;
	if (!f)
		return -errno;
	while (n < max && fgets(line, sizeof(line), f)) {
		unsigned long ino, state;
		char sock_path[256];
		const char *base;
		pid_t pid;
		int id;

		/* Num RefCount Protocol Flags Type St Inode Path; St 01: listening. */
		if (sscanf(line, "%*s %*s %*s %*s %*s %lx %lu %255s", &state, &ino, sock_path) !=
			    3 ||
		    state != 1)
			continue;
		base = strrchr(sock_path, '/');
		if (!base || (size_t)(base - sock_path) != dlen ||
		    strncmp(sock_path, dir, dlen) != 0)
			continue;
		id = osd_id_of(base + 1);
		if (id < 0 || strlen(sock_path) >= sizeof(out[n].asok) || !(pid = osd_owning(ino)))
			continue;
		out[n].pid = pid;
		out[n].id = id;
		snprintf(out[n].asok, sizeof(out[n].asok), "%s", sock_path);
		n++;
	}
	fclose(f);
	qsort(out, n, sizeof(*out), cmp_osd);
	return (int)n;
}

/* Whether path is an admin socket that takes connections; the error printed. */
static int probe(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct stat st;
	int fd, ret = 0;

	if (stat(path, &st) < 0) {
		ret = -errno;
		corecap_error("cannot use admin socket '%s': %s", path, strerror(errno));
		return ret;
	}
	if (!S_ISSOCK(st.st_mode)) {
		corecap_error("cannot use admin socket '%s': not a socket", path);
		return -ENOTSOCK;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
		corecap_error("cannot use admin socket '%s': %s", path, strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

int corecap_ceph_asok_init(struct corecap_ceph_asok *a, const char *path)
{
	memset(a, 0, sizeof(*a));
	if (strlen(path) >= sizeof(a->path)) {
		corecap_error("admin socket path '%s' is too long", path);
		return -ENAMETOOLONG;
	}
	snprintf(a->path, sizeof(a->path), "%s", path);
	return probe(a->path);
}

int corecap_ceph_asok_begin(struct corecap_ceph_asok *a, int run_dirfd)
{
	int ret;

	if (mkdirat(run_dirfd, CORECAP_RUN_CEPH_DIR, 0700) < 0 && errno != EEXIST) {
		ret = -errno;
		corecap_warn("cannot create 'ceph' in the run directory: %s", strerror(-ret));
		return ret;
	}
	a->begun = true;
	/* Its configuration as the daemon runs with it, before the history's
	 * size is raised below: what `corecap compare` finds changed. A
	 * daemon that refuses it only loses that (dump_to warns). */
	dump_to(a, run_dirfd, "{\"prefix\": \"config show\"}", CORECAP_RUN_CEPH_CONFIG);
	config_get(a, "osd_op_history_size", a->old_size, sizeof(a->old_size));
	config_get(a, "osd_op_history_duration", a->old_duration, sizeof(a->old_duration));
	/*
	 * Empty the history first: past the size limit Ceph evicts the
	 * shortest ops, so ops left from before would push this window's
	 * fast ops out. A size of 0 and a dump (which trims) empties it.
	 */
	if (corecap_asok_config_set(a->path, "osd_op_history_size", "0", true) == 0) {
		char *reply;

		if (corecap_asok_command(a->path, OPTRACKER_DUMP_CMD, &reply, NULL) == 0)
			free(reply);
	}
	a->raised =
		corecap_asok_config_set(a->path, "osd_op_history_size", HISTORY_SIZE, true) == 0;
	if (a->raised)
		corecap_asok_config_set(a->path, "osd_op_history_duration", HISTORY_DURATION, true);
	ret = dump_to(a, run_dirfd, "{\"prefix\": \"perf dump\"}", CORECAP_RUN_CEPH_PERF_BEGIN);
	/* The history emptied and raised: the drain's first slice begins. */
	if (a->raised && !a->end_dump) {
		int err;

		a->drain = calloc(1, sizeof(*a->drain));
		err = a->drain
			      ? optracker_drain_start(a->drain, a->path, HISTORY_KEPT, HISTORY_SIZE)
			      : -ENOMEM;
		if (err) {
			corecap_warn("cannot drain the OpTracker during the window (%s): it is "
				     "dumped once at its end",
				     strerror(-err));
			free(a->drain);
			a->drain = NULL;
		}
	}
	return ret;
}

/* A zstd stream into a file: one frame, written as it fills. */
struct zst_out {
	int fd;
	ZSTD_CCtx *cc;
	unsigned char *buf;
	size_t cap;
};

/* Compresses n bytes at p (mode ZSTD_e_continue), or ends the frame
 * (ZSTD_e_end, n 0), writing what zstd gives: 0 or -errno. */
static int zst_step(struct zst_out *z, const void *p, size_t n, ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = {p, n, 0};
	size_t left;

	do {
		ZSTD_outBuffer out = {z->buf, z->cap, 0};
		int ret;

		left = ZSTD_compressStream2(z->cc, &out, &in, mode);
		if (ZSTD_isError(left))
			return -EIO;
		if (out.pos && (ret = corecap_write_all(z->fd, z->buf, out.pos)))
			return ret;
	} while (mode == ZSTD_e_end ? left != 0 : in.pos < in.size);
	return 0;
}

static int zst_put(void *ctx, const void *p, size_t n)
{
	return zst_step(ctx, p, n, ZSTD_e_continue);
}

/*
 * RUN/ceph/historic_ops.json.zst from what fill() gives to zst_put:
 * written aside (CORECAP_RUN_CEPH_HISTORIC_OPS_TMP) and renamed once
 * whole, so the name is there only whole. -errno, warned.
 */
static int write_history(int run_dirfd, int (*fill)(void *arg, struct zst_out *z), void *arg)
{
	struct zst_out z = {.cc = ZSTD_createCCtx(), .cap = ZSTD_CStreamOutSize()};
	int ret;

	z.buf = malloc(z.cap);
	z.fd = openat(run_dirfd, CORECAP_RUN_CEPH_HISTORIC_OPS_TMP,
		      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (z.fd < 0) {
		ret = -errno;
		corecap_warn("cannot create '%s' in the run directory: %s",
			     CORECAP_RUN_CEPH_HISTORIC_OPS_TMP, strerror(-ret));
		goto out;
	}
	ret = !z.cc || !z.buf ? -ENOMEM
	      : ZSTD_isError(
			ZSTD_CCtx_setParameter(z.cc, ZSTD_c_compressionLevel, HISTORY_ZSTD_LEVEL))
		      ? -EINVAL
		      : fill(arg, &z);
	if (!ret)
		ret = zst_step(&z, NULL, 0, ZSTD_e_end);
	if (close(z.fd) < 0 && ret == 0)
		ret = -errno;
	if (!ret && renameat(run_dirfd, CORECAP_RUN_CEPH_HISTORIC_OPS_TMP, run_dirfd,
			     CORECAP_RUN_CEPH_HISTORIC_OPS_ZST) < 0)
		ret = -errno;
	if (ret < 0) {
		corecap_warn("cannot write '%s' in the run directory: %s",
			     CORECAP_RUN_CEPH_HISTORIC_OPS_ZST, strerror(-ret));
		unlinkat(run_dirfd, CORECAP_RUN_CEPH_HISTORIC_OPS_TMP, 0);
	}
out:
	ZSTD_freeCCtx(z.cc);
	free(z.buf);
	return ret;
}

static int fill_drained(void *arg, struct zst_out *z)
{
	const struct corecap_ceph_asok *a = arg;

	return optracker_drain_write(a->drain, zst_put, z,
				     a->raised ? HISTORY_DURATION : a->old_duration);
}

/* The drained ops into RUN/ceph/historic_ops.json.zst; -errno, warned. */
static int write_drained(struct corecap_ceph_asok *a, int run_dirfd)
{
	return write_history(run_dirfd, fill_drained, a);
}

/* One reply (its bytes and length), as fill() gives it. */
struct reply {
	const char *p;
	size_t len;
};

static int fill_reply(void *arg, struct zst_out *z)
{
	const struct reply *r = arg;

	return zst_put(z, r->p, r->len);
}

/* One dump_historic_ops at the window's end into RUN/ceph/historic_ops.json.zst. */
static int dump_history(struct corecap_ceph_asok *a, int run_dirfd)
{
	const char *cmd = OPTRACKER_DUMP_CMD;
	struct reply r;
	char *reply;
	int ret;

	ret = corecap_asok_command(a->path, cmd, &reply, &r.len);
	if (ret < 0) {
		corecap_warn("cannot run '%s' on admin socket '%s': %s", cmd, a->path,
			     strerror(-ret));
		return ret;
	}
	r.p = reply;
	ret = write_history(run_dirfd, fill_reply, &r);
	free(reply);
	return ret;
}

int corecap_ceph_asok_end(struct corecap_ceph_asok *a, int run_dirfd)
{
	int ret = 0;

	if (!a->begun)
		return 0;
	if (a->drain) {
		int err = optracker_drain_stop(a->drain);

		if (err)
			corecap_warn("the OpTracker's drain stopped early (%s): its ops are those "
				     "drained before",
				     strerror(-err));
		if (write_drained(a, run_dirfd) < 0)
			ret = -EIO;
		optracker_drain_release(a->drain);
		free(a->drain);
		a->drain = NULL;
	} else if (dump_history(a, run_dirfd) < 0) {
		ret = -EIO;
	}
	if (dump_to(a, run_dirfd, "{\"prefix\": \"perf dump\"}", CORECAP_RUN_CEPH_PERF_END) < 0)
		ret = -EIO;
	if (a->raised) {
		if (a->old_size[0])
			corecap_asok_config_set(a->path, "osd_op_history_size", a->old_size, true);
		if (a->old_duration[0])
			corecap_asok_config_set(a->path, "osd_op_history_duration", a->old_duration,
						true);
	}
	return ret;
}

void corecap_ceph_asok_release(struct corecap_ceph_asok *a)
{
	if (!a->drain)
		return;
	/* end() was not reached: stop draining, and put the settings back. */
	optracker_drain_release(a->drain);
	free(a->drain);
	a->drain = NULL;
	/* Quietly: the daemon may be gone. */
	if (a->raised && a->old_size[0])
		corecap_asok_config_set(a->path, "osd_op_history_size", a->old_size, false);
	if (a->raised && a->old_duration[0])
		corecap_asok_config_set(a->path, "osd_op_history_duration", a->old_duration, false);
}
