/* host_relayd: the lttng-relayd of `corecap record --hosts` (host_relayd.h). */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host_relayd.h"
#include "util/proc_stat.h"

/* Bounds on what a relayd wrote for one host: untrusted input. */
#define TAKE_MAX_DEPTH	 16
#define TAKE_MAX_ENTRIES 100000
/* The relayd's start: listening on both ports within this, or it failed. */
#define START_TIMEOUT_MS 10000
#define STOP_TIMEOUT_MS	 10000

static int fail(struct corecap_relayd *d, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct corecap_relayd *d, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->error, sizeof(d->error), fmt, ap);
	va_end(ap);
	return err;
}

/* Whether addr is an IPv6 address (lttng's URLs then say net6/tcp6 and bracket it). */
static bool is_ipv6(const char *addr)
{
	return strchr(addr, ':') != NULL;
}

/*
 * "net://IPV4[:CTRL:DATA]" or "net6://[IPV6][:CTRL:DATA]", as lttng-create
 * spells them: 0 or -EINVAL.
 */
static int parse_url(struct corecap_relayd *d, const char *url)
{
	bool v6 = strncmp(url, "net6://[", 8) == 0;
	const char *a = url + (v6 ? 8 : 6);
	size_t n = strcspn(a, v6 ? "]" : ":");
	unsigned char in[sizeof(struct in6_addr)];
	char rest[32];

	if ((!v6 && strncmp(url, "net://", 6) != 0) || n == 0 || n >= sizeof(d->addr) ||
	    (v6 && a[n] != ']'))
		return -EINVAL;
	memcpy(d->addr, a, n);
	d->addr[n] = '\0';
	if (inet_pton(v6 ? AF_INET6 : AF_INET, d->addr, in) != 1)
		return -EINVAL;
	snprintf(d->listen, sizeof(d->listen), "%s", d->addr);
	a += n + v6; /* past the address, and its bracket */
	if (!*a)
		return 0;
	if (sscanf(a, ":%u:%u%31s", &d->ctrl_port, &d->data_port, rest) != 2 || !d->ctrl_port ||
	    d->ctrl_port > 65535 || !d->data_port || d->data_port > 65535 ||
	    d->ctrl_port == d->data_port)
		return -EINVAL;
	return 0;
}

/* addr and port as a socket address of its family; its length, or 0 for a bad address. */
static socklen_t sock_addr(const char *addr, unsigned port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (is_ipv6(addr)) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		return inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1 ? sizeof(*sin6) : 0;
	}
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, addr, &sin->sin_addr) == 1 ? sizeof(*sin) : 0;
}

/* A free TCP port on addr (bound, then closed: the relayd takes it next), or 0. */
static unsigned free_port(const char *addr)
{
	struct sockaddr_storage ss;
	socklen_t len = sock_addr(addr, 0, &ss);
	int fd = len ? socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0) : -1;
	unsigned port = 0;

	if (fd < 0)
		return 0;
	if (bind(fd, (struct sockaddr *)&ss, len) == 0 &&
	    getsockname(fd, (struct sockaddr *)&ss, &len) == 0)
		port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
						      : ((struct sockaddr_in *)&ss)->sin_port);
	close(fd);
	return port;
}

/* True when a descriptor of process pid links to a name match() takes (util/proc_stat.h). */
static bool any_fd(pid_t pid, bool (*match)(const char *link, const void *ctx), const void *ctx)
{
	char link[CORECAP_RELAYD_OUTPUT_MAX + 512];

	return corecap_proc_fd_find(pid, match, ctx, link, sizeof(link));
}

static bool is_link(const char *link, const void *want)
{
	return strcmp(link, want) == 0;
}

/*
 * Where the relayd listens without --relayd-url: every address of both
 * families ("::", which takes IPv4 too when net.ipv6.bindv6only is 0 and
 * the kernel has IPv6), so that a host whose ssh connection came over
 * IPv6 reaches it as one over IPv4 does; else every IPv4 address.
 */
static const char *listen_any(void)
{
	char v = 0;
	int fd = open("/proc/sys/net/ipv6/bindv6only", O_RDONLY | O_CLOEXEC);
	bool dual = fd >= 0 && read(fd, &v, 1) == 1 && v == '0';

	if (fd >= 0)
		close(fd);
	if (dual) {
		struct sockaddr_storage ss;
		socklen_t len = sock_addr("::", 0, &ss);
		int s = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);

		dual = s >= 0 && bind(s, (struct sockaddr *)&ss, len) == 0;
		if (s >= 0)
			close(s);
	}
	return dual ? "::" : "0.0.0.0";
}

/*
 * True when process pid holds a socket listening on TCP port (in this
 * network namespace): the relayd itself, not another listener on it.
 */
static bool listens(pid_t pid, unsigned port)
{
	static const char *const tables[] = {"/proc/net/tcp", "/proc/net/tcp6"};
	char line[512];
	bool found = false;

	for (size_t t = 0; t < 2 && !found; t++) {
		FILE *f = fopen(tables[t], "re");

		if (!f)
			continue;
		while (!found && fgets(line, sizeof(line), f)) {
			char local[64], want[48];
			unsigned long inode;
			unsigned lport, state;
			char *colon;

			if (sscanf(line, " %*d: %63s %*s %x %*s %*s %*s %*d %*d %lu", local, &state,
				   &inode) != 3 ||
			    state != 0x0a || !(colon = strrchr(local, ':')) ||
			    sscanf(colon + 1, "%x", &lport) != 1 || lport != port)
				continue;
			snprintf(want, sizeof(want), "socket:[%lu]", inode);
			found = any_fd(pid, is_link, want);
		}
		fclose(f);
	}
	return found;
}

/* The relayd's first complaint in its log since offset, shown safely. */
static void log_complaint(int log_fd, off_t from, char *out, size_t size)
{
	char buf[4096], *line, *save = NULL, path[64];
	ssize_t got = -1;
	int fd;

	/* The log is open for writing only: read it through a descriptor of its own. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", log_fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		got = pread(fd, buf, sizeof(buf) - 1, from);
		close(fd);
	}

	snprintf(out, size, "it said nothing");
	if (got <= 0)
		return;
	buf[got] = '\0';
	for (char *p = buf; *p; p++)
		if (((unsigned char)*p < 0x20 && *p != '\n') || *p == 0x7f)
			*p = '?';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strstr(line, "rror") || strstr(line, "ailed") || strstr(line, "annot")) {
			snprintf(out, size, "it said: %.300s", line);
			return;
		}
	line = strtok_r(buf, "\n", &save);
	if (line)
		snprintf(out, size, "it said: %.300s", line);
}

static int wait_pid(pid_t pid, int timeout_ms, int *status, struct rusage *ru)
{
	for (int i = 0;; i++) {
		pid_t w = wait4(pid, status, WNOHANG, ru);

		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return -errno;
		if (i >= timeout_ms / 10)
			return -ETIMEDOUT;
		usleep(10000);
	}
}

/* One try: the relayd on d's ports, listening on both; 0, -EAGAIN (it exited) or -errno. */
static int try_start(struct corecap_relayd *d, const char *out_path, int log_fd)
{
	char ctrl[96], data[96], live[64];
	off_t from = lseek(log_fd, 0, SEEK_END);
	pid_t parent = getpid();
	int st;

	corecap_relayd_listen_url(d->listen, d->ctrl_port, ctrl, sizeof(ctrl));
	corecap_relayd_listen_url(d->listen, d->data_port, data, sizeof(data));
	/* Live viewers are not used: their port stays on loopback. */
	snprintf(live, sizeof(live), "tcp://127.0.0.1:%u", d->live_port);
	d->pid = fork();
	if (d->pid < 0)
		return fail(d, -errno, "cannot start lttng-relayd: %s", strerror(errno));
	if (d->pid == 0) {
		char *argv[] = {
			"lttng-relayd", "-o", (char *)out_path, "-C", ctrl, "-D", data, "-L",
			live,		NULL};
		int null = open("/dev/null", O_RDONLY);

		/* It dies with us; Ctrl-C at the terminal is ours to order, not its. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent) /* we died before it was set */
			_exit(1);
		setpgid(0, 0);
		if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(log_fd, STDOUT_FILENO) < 0 ||
		    dup2(log_fd, STDERR_FILENO) < 0)
			_exit(127);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, "corecap: cannot run 'lttng-relayd': %s\n", strerror(errno));
		_exit(127);
	}
	for (int i = 0; i < START_TIMEOUT_MS / 10; i++) {
		if (waitpid(d->pid, &st, WNOHANG) == d->pid) {
			char said[400];

			d->pid = -1;
			log_complaint(log_fd, from, said, sizeof(said));
			if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
				return fail(d, -ENOENT, "cannot run lttng-relayd (%s)", said);
			fail(d, -EAGAIN, "lttng-relayd on %s and %s exited at once (%s)", ctrl,
			     data, said);
			return -EAGAIN;
		}
		if (listens(d->pid, d->ctrl_port) && listens(d->pid, d->data_port))
			return 0;
		usleep(10000);
	}
	corecap_relayd_stop(d);
	return fail(d, -ETIMEDOUT, "lttng-relayd did not listen on %s and %s within %d s", ctrl,
		    data, START_TIMEOUT_MS / 1000);
}

int corecap_relayd_start(struct corecap_relayd *d, const char *url, int run_fd,
			 const char *run_path, int log_fd)
{
	bool chosen;
	char out_path[4200];
	int ret = -EAGAIN;

	memset(d, 0, sizeof(*d));
	d->pid = -1;
	d->dir_fd = -1;
	d->owner = geteuid();
	d->cpu_user_s = d->cpu_sys_s = -1;
	snprintf(d->listen, sizeof(d->listen), "%s", listen_any());
	snprintf(d->token, sizeof(d->token), "corecap-%d", (int)getpid());
	if (url && parse_url(d, url) < 0)
		return fail(d, -EINVAL,
			    "bad --relayd-url '%s': expected net://IPV4[:CTRL:DATA] or "
			    "net6://[IPV6][:CTRL:DATA]",
			    url);
	chosen = !d->ctrl_port;
	if (mkdirat(run_fd, CORECAP_RELAYD_DIR, 0700) < 0 ||
	    (d->dir_fd = openat(run_fd, CORECAP_RELAYD_DIR,
				O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return fail(d, -errno, "cannot make '%s/" CORECAP_RELAYD_DIR "': %s", run_path,
			    strerror(errno));
	snprintf(out_path, sizeof(out_path), "%s/" CORECAP_RELAYD_DIR, run_path);
	/* Ports chosen free can be taken by another before the relayd binds them: again. */
	for (int tries = 0; ret == -EAGAIN && tries < (chosen ? 3 : 1); tries++) {
		if (chosen) {
			d->ctrl_port = free_port(d->listen);
			d->data_port = free_port(d->listen);
		}
		d->live_port = free_port("127.0.0.1");
		if (!d->ctrl_port || !d->data_port || !d->live_port || d->ctrl_port == d->data_port)
			return fail(d, -EADDRNOTAVAIL,
				    "cannot find free ports on %s for lttng-relayd", d->listen);
		ret = try_start(d, out_path, log_fd);
	}
	return ret;
}

void corecap_relayd_host_url(const struct corecap_relayd *d, const char *host, char *buf,
			     size_t size)
{
	/* An empty address: each host puts in the one it reaches us by
	 * (corecap_relayd_url_complete). */
	if (is_ipv6(d->addr))
		snprintf(buf, size, "net6://[%s]:%u:%u/%s/%s", d->addr, d->ctrl_port, d->data_port,
			 d->token, host);
	else
		snprintf(buf, size, "net://%s:%u:%u/%s/%s", d->addr, d->ctrl_port, d->data_port,
			 d->token, host);
}

void corecap_relayd_listen_url(const char *addr, unsigned port, char *buf, size_t size)
{
	if (is_ipv6(addr))
		snprintf(buf, size, "tcp6://[%s]:%u", addr, port);
	else
		snprintf(buf, size, "tcp://%s:%u", addr, port);
}

int corecap_relayd_url_complete(const char *url, const char *ssh_connection, char *out, size_t size)
{
	char addr[INET6_ADDRSTRLEN] = "127.0.0.1";
	unsigned char in[sizeof(struct in6_addr)];
	const char *rest;
	size_t n;

	if (strlen(url) > 200 || strspn(url, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					     "0123456789.:/_-[]") != strlen(url))
		return -EINVAL;
	if (strncmp(url, "net://:", 7) != 0) {
		if (strncmp(url, "net://", 6) != 0 && strncmp(url, "net6://[", 8) != 0)
			return -EINVAL;
		snprintf(out, size, "%s", url);
		return 0;
	}
	rest = url + 6; /* ":CTRL:DATA/PATH" */
	n = ssh_connection ? strcspn(ssh_connection, " ") : 0;
	if (n > 0 && n < sizeof(addr)) {
		memcpy(addr, ssh_connection, n);
		addr[n] = '\0';
		/* An IPv4 client of an sshd listening on "::" shows as ::ffff:A.B.C.D. */
		if (strncasecmp(addr, "::ffff:", 7) == 0 && inet_pton(AF_INET, addr + 7, in) == 1)
			memmove(addr, addr + 7, strlen(addr + 7) + 1);
		/* Anything but a plain address (a zone index, a name): loopback, as without ssh. */
		if (inet_pton(is_ipv6(addr) ? AF_INET6 : AF_INET, addr, in) != 1)
			snprintf(addr, sizeof(addr), "127.0.0.1");
	}
	if (is_ipv6(addr))
		snprintf(out, size, "net6://[%s]%s", addr, rest);
	else
		snprintf(out, size, "net://%s%s", addr, rest);
	return 0;
}

/* OUTPUT/HOSTNAME/TOKEN/...: a file of our session (the hostname is one part, then ours). */
static bool is_ours(const char *link, const void *relayd)
{
	const struct corecap_relayd *d = relayd;
	size_t out_len = strlen(d->output), tok_len = strlen(d->token);
	const char *rest;

	if (strncmp(link, d->output, out_len) != 0 || link[out_len] != '/')
		return false;
	rest = strchr(link + out_len + 1, '/');
	return rest && strncmp(rest + 1, d->token, tok_len) == 0 && rest[1 + tok_len] == '/';
}

/* True while the reused relayd holds a file under OUTPUT/<any>/TOKEN/. */
static bool holds_ours(const struct corecap_relayd *d)
{
	return any_fd(d->pid, is_ours, d);
}

int corecap_relayd_stop(struct corecap_relayd *d)
{
	struct rusage ru;
	int st, ret = 0;

	if (d->pid <= 0)
		return -ESRCH;
	if (d->reused) {
		/* Every host's session is destroyed: the relayd closes our files soon after. */
		for (int i = 0; holds_ours(d); i++) {
			if (i >= STOP_TIMEOUT_MS / 10) {
				ret = fail(d, -ETIMEDOUT,
					   "lttng-relayd (pid %d) still holds our files after %d s",
					   (int)d->pid, STOP_TIMEOUT_MS / 1000);
				break;
			}
			usleep(10000);
		}
		return ret;
	}
	memset(&ru, 0, sizeof(ru));
	kill(d->pid, SIGTERM);
	if (wait_pid(d->pid, STOP_TIMEOUT_MS, &st, &ru) == -ETIMEDOUT) {
		kill(d->pid, SIGKILL);
		wait4(d->pid, &st, 0, &ru);
	}
	d->cpu_user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	d->cpu_sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	d->pid = -1;
	return 0;
}

/* Bounds and totals of one take. */
struct take_walk {
	uint64_t bytes, max_bytes;
	size_t entries;
};

/* Copies a regular file's bytes (at most size, then EOF) from in to out; 0 or -errno. */
static int copy_bytes(int in, int out, off_t size)
{
	char buf[65536];
	off_t done = 0;

	while (done < size) {
		size_t want =
			size - done < (off_t)sizeof(buf) ? (size_t)(size - done) : sizeof(buf);
		ssize_t got = read(in, buf, want);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got < 0 ? -errno : 0; /* shorter than it was: what there is */
		for (ssize_t w = 0; w < got;) {
			ssize_t put = write(out, buf + w, (size_t)(got - w));

			if (put < 0 && errno != EINTR)
				return -errno;
			w += put > 0 ? put : 0;
		}
		done += got;
	}
	return 0;
}

/*
 * Checks a directory the relayd wrote, recursively: directories and
 * regular files of one link, owned by its user, within the bounds. Our
 * relayd's tree is made ours alone (0700, 0600) to be renamed; a reused
 * relayd's is left as it is and copied into dest (-1: none), each
 * directory made 0700 and each file created O_EXCL|O_NOFOLLOW 0600
 * there. 0 or -errno.
 */
static int check_tree(struct corecap_relayd *d, int fd, const char *where, int depth,
		      struct take_walk *t, int dest)
{
	struct stat st;
	struct dirent *e;
	DIR *dir;
	int ret = 0, dup_fd;

	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != d->owner ||
	    (!d->reused && fchmod(fd, 0700) < 0))
		return fail(d, -EPERM, "'%s' is not a directory of the relayd's user", where);
	if (depth > TAKE_MAX_DEPTH)
		return fail(d, -ELOOP, "'%s' is deeper than %d directories", where, TAKE_MAX_DEPTH);
	dup_fd = dup(fd);
	dir = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	if (!dir) {
		if (dup_fd >= 0)
			close(dup_fd);
		return fail(d, -errno, "cannot list '%s': %s", where, strerror(errno));
	}
	while (ret == 0 && (e = readdir(dir))) {
		char sub[600];
		int cfd, out;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (++t->entries > TAKE_MAX_ENTRIES) {
			ret = fail(d, -EFBIG, "more than %d entries", TAKE_MAX_ENTRIES);
			break;
		}
		snprintf(sub, sizeof(sub), "%.300s/%.255s", where, e->d_name);
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			ret = fail(d, -errno, "cannot stat '%s': %s", sub, strerror(errno));
		} else if (S_ISDIR(st.st_mode)) {
			cfd = openat(fd, e->d_name,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			out = -1;
			if (cfd < 0)
				ret = fail(d, -errno, "cannot open '%s': %s", sub, strerror(errno));
			else if (dest >= 0 && (mkdirat(dest, e->d_name, 0700) < 0 ||
					       (out = openat(dest, e->d_name,
							     O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
								     O_CLOEXEC)) < 0))
				ret = fail(d, -errno, "cannot make the copy of '%s': %s", sub,
					   strerror(errno));
			else
				ret = check_tree(d, cfd, sub, depth + 1, t, dest >= 0 ? out : -1);
			if (out >= 0)
				close(out);
			if (cfd >= 0)
				close(cfd);
		} else if (S_ISREG(st.st_mode)) {
			cfd = openat(fd, e->d_name,
				     O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
			if (cfd < 0 || fstat(cfd, &st) < 0 || !S_ISREG(st.st_mode) ||
			    st.st_nlink != 1 || st.st_uid != d->owner ||
			    (!d->reused && fchmod(cfd, 0600) < 0))
				ret = fail(d, -EPERM,
					   "'%s' is not a regular file of the relayd's user with "
					   "one link",
					   sub);
			else if ((t->bytes += (uint64_t)st.st_size) > t->max_bytes)
				ret = fail(d, -EFBIG, "over %llu bytes",
					   (unsigned long long)t->max_bytes);
			else if (dest >= 0) {
				out = openat(dest, e->d_name,
					     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
					     0600);
				if (out < 0 || (ret = copy_bytes(cfd, out, st.st_size)) < 0)
					ret = fail(d, out < 0 ? -errno : ret,
						   "cannot copy '%s': %s", sub,
						   strerror(out < 0 ? errno : -ret));
				if (out >= 0)
					close(out);
			}
			if (cfd >= 0)
				close(cfd);
		} else {
			ret = fail(d, -EPERM, "'%s' is neither a regular file nor a directory",
				   sub);
		}
	}
	closedir(dir);
	return ret;
}

/* Removes a tree under fd/name without following links; depth-bounded. */
static void remove_tree(int fd, const char *name, int depth)
{
	int sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *dir = sub >= 0 && depth < 2 * TAKE_MAX_DEPTH ? fdopendir(sub) : NULL;
	struct dirent *e;

	if (!dir) {
		if (sub >= 0)
			close(sub);
		unlinkat(fd, name, 0);
		return;
	}
	while ((e = readdir(dir))) {
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (fstatat(sub, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
			remove_tree(sub, e->d_name, depth + 1);
		else
			unlinkat(sub, e->d_name, 0);
	}
	closedir(dir);
	unlinkat(fd, name, AT_REMOVEDIR);
}

/*
 * The checked tree at from_fd/from_name (fd: it, open) into dest_fd/
 * dest_name: renamed (our relayd's), or copied into a directory made
 * there, then removed from the reused relayd's output (a copy that
 * failed is removed instead). 0 or -errno.
 */
static int take_tree(struct corecap_relayd *d, int from_fd, const char *from_name, int fd,
		     const char *where, int depth, int dest_fd, const char *dest_name,
		     uint64_t max_bytes)
{
	struct take_walk t = {.max_bytes = max_bytes};
	int out, ret;

	if (!d->reused) {
		ret = check_tree(d, fd, where, depth, &t, -1);
		if (ret == 0 &&
		    renameat2(from_fd, from_name, dest_fd, dest_name, RENAME_NOREPLACE) < 0)
			ret = fail(d, -errno, "cannot move '%s' into the run: %s", where,
				   strerror(errno));
		return ret;
	}
	if (mkdirat(dest_fd, dest_name, 0700) < 0)
		return fail(d, -errno, "cannot make '%s' in the run: %s", dest_name,
			    strerror(errno));
	out = openat(dest_fd, dest_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	ret = out < 0 ? fail(d, -errno, "cannot open '%s' in the run: %s", dest_name,
			     strerror(errno))
		      : check_tree(d, fd, where, depth, &t, out);
	if (out >= 0)
		close(out);
	if (ret < 0)
		remove_tree(dest_fd, dest_name, 0);
	else
		remove_tree(from_fd, from_name, 0);
	return ret;
}

/* host's directory (sub NULL) or its entry sub, checked, into dest_fd/dest_name. */
static int take(struct corecap_relayd *d, const char *host, const char *sub, int dest_fd,
		const char *dest_name, uint64_t max_bytes)
{
	int top = -1, host_fd = -1, sub_fd = -1, ret, dup_fd = dup(d->dir_fd), found = 0;
	struct stat st;
	DIR *dir = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	char where[400] = "";
	struct dirent *e;

	if (!dir) {
		if (dup_fd >= 0)
			close(dup_fd);
		return fail(d, -errno, "cannot list the relayd's output: %s", strerror(errno));
	}
	rewinddir(dir); /* its offset is dir_fd's, shared: the last take read it to the end */
	/* The relayd writes HOSTNAME/TOKEN/NAME: the hostname is the host's session daemon's. */
	while ((e = readdir(dir))) {
		int hd, td;

		if (e->d_name[0] == '.')
			continue;
		hd = openat(d->dir_fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		td = hd >= 0 ? openat(hd, d->token, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			     : -1;
		if (hd >= 0)
			close(hd);
		if (td < 0)
			continue;
		if (faccessat(td, host, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
			found++;
			if (top >= 0)
				close(top);
			top = td;
			snprintf(where, sizeof(where), "%.100s/%s/%s", e->d_name, d->token, host);
			continue;
		}
		close(td);
	}
	closedir(dir);
	if (!found)
		return fail(d, -ENOENT, "lttng-relayd wrote nothing for host '%s'", host);
	if (found > 1) {
		close(top);
		return fail(d, -EEXIST, "lttng-relayd wrote host '%s' under %d host names", host,
			    found);
	}
	host_fd = openat(top, host, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (host_fd < 0) {
		ret = fail(d, -errno, "cannot open '%s': %s", where, strerror(errno));
	} else if (!sub) {
		ret = take_tree(d, top, host, host_fd, where, 0, dest_fd, dest_name, max_bytes);
	} else if (fstat(host_fd, &st) < 0 || st.st_uid != d->owner ||
		   (!d->reused && fchmod(host_fd, 0700) < 0)) {
		ret = fail(d, -EPERM, "'%s' is not a directory of the relayd's user", where);
	} else if ((sub_fd = openat(host_fd, sub,
				    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		ret = fail(d, errno == ENOENT ? -ENOENT : -errno,
			   "lttng-relayd wrote nothing for '%s/%s': %s", where, sub,
			   strerror(errno));
	} else {
		snprintf(where + strlen(where), sizeof(where) - strlen(where), "/%s", sub);
		ret = take_tree(d, host_fd, sub, sub_fd, where, 1, dest_fd, dest_name, max_bytes);
	}
	if (sub_fd >= 0)
		close(sub_fd);
	if (host_fd >= 0)
		close(host_fd);
	close(top);
	return ret;
}

int corecap_relayd_take(struct corecap_relayd *d, const char *host, int dest_fd,
			const char *dest_name, uint64_t max_bytes)
{
	return take(d, host, NULL, dest_fd, dest_name, max_bytes);
}

int corecap_relayd_take_daemon(struct corecap_relayd *d, const char *host, int pid, int dest_fd,
			       const char *dest_name, uint64_t max_bytes)
{
	char sub[16];

	snprintf(sub, sizeof(sub), "%d", pid);
	return take(d, host, sub, dest_fd, dest_name, max_bytes);
}

/* Is ino one of the output's directories before our session? */
static bool was_there(const struct corecap_relayd *d, ino_t ino)
{
	for (size_t i = 0; i < d->n_before; i++)
		if (d->before[i] == ino)
			return true;
	return !d->before_all; /* not all remembered: any might have been */
}

/* What our session made in a reused relayd's output: TOKEN under each hostname, new hostnames. */
static void release_reused(struct corecap_relayd *d)
{
	int dup_fd = dup(d->dir_fd);
	DIR *dir = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *e;

	if (!dir) {
		if (dup_fd >= 0)
			close(dup_fd);
		return;
	}
	rewinddir(dir);
	while ((e = readdir(dir))) {
		struct stat st;
		int hd;

		if (e->d_name[0] == '.')
			continue;
		hd = openat(d->dir_fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (hd < 0)
			continue;
		if (fstat(hd, &st) == 0 && st.st_uid == d->owner &&
		    faccessat(hd, d->token, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
			remove_tree(hd, d->token, 0);
			/* A hostname directory our session made goes if nothing else is in it. */
			if (!was_there(d, st.st_ino))
				unlinkat(d->dir_fd, e->d_name, AT_REMOVEDIR);
		}
		close(hd);
	}
	closedir(dir);
}

void corecap_relayd_release(struct corecap_relayd *d, int run_fd)
{
	if (d->reused) {
		if (d->dir_fd >= 0) {
			corecap_relayd_stop(d); /* it holds none of our files */
			release_reused(d);
			close(d->dir_fd);
			d->dir_fd = -1;
			/* An output directory we made goes only if empty. */
			if (d->made_output)
				rmdir(d->output);
		}
		d->pid = -1;
		d->reused = false;
		return;
	}
	corecap_relayd_stop(d);
	if (d->dir_fd >= 0) {
		close(d->dir_fd);
		d->dir_fd = -1;
		remove_tree(run_fd, CORECAP_RELAYD_DIR, 0);
	}
}

/*
 * Reads at most max bytes of /proc/PID/name through pfd (the process's
 * /proc directory, opened once) into buf: the count read, or -errno;
 * -EFBIG when there is more.
 */
static ssize_t read_proc(int pfd, const char *name, char *buf, size_t max)
{
	int fd = openat(pfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	size_t n = 0;
	ssize_t got = 1;

	if (fd < 0)
		return -errno;
	while (n <= max && got > 0) {
		got = read(fd, buf + n, max + 1 - n);
		if (got < 0 && errno == EINTR)
			got = 1;
		else if (got > 0)
			n += (size_t)got;
	}
	close(fd);
	if (got < 0)
		return -errno;
	return n > max ? -EFBIG : (ssize_t)n;
}

/* True when pfd's namespace ns is this process's. */
static bool same_ns(int pfd, const char *ns)
{
	char path[32], mine[64], theirs[64];
	ssize_t a, b;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", ns);
	a = readlink(path, mine, sizeof(mine) - 1);
	snprintf(path, sizeof(path), "ns/%s", ns);
	b = readlinkat(pfd, path, theirs, sizeof(theirs) - 1);
	return a > 0 && b == a && memcmp(mine, theirs, (size_t)a) == 0;
}

/* A directory's group that may write it: root's, or ours (lttng-relayd makes its directories 0770).
 */
static bool own_group(const struct stat *st)
{
	return st->st_gid == 0 || st->st_gid == getegid();
}

/*
 * Opens path (absolute, plain: relayd_cmdline.c checked it) from / one
 * part at a time, O_NOFOLLOW, each directory owned by root or owner and
 * writable by no other user (but a sticky one, above the last part, as
 * /tmp) nor by a group but root's or ours, the last one owner's; the last part may be missing, then
 * made (mode 0700, *made set) when we are owner. The directory's descriptor, or -errno with
 * d->error.
 */
static int open_trusted(struct corecap_relayd *d, const char *path, uid_t owner, bool *made)
{
	char part[CORECAP_RELAYD_OUTPUT_MAX];
	const char *p = path + 1;
	int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC), next;
	struct stat st;

	*made = false;
	while (fd >= 0) {
		size_t n = strcspn(p, "/");
		bool last = p[n] == '\0';

		/*
		 * A sticky directory others may write (/tmp) is a safe step:
		 * they cannot rename or remove the next part, which must be
		 * root's or the owner's.
		 */
		if (fstat(fd, &st) < 0 || (st.st_uid != 0 && st.st_uid != owner) ||
		    ((st.st_mode & S_IWOTH) && !(n && (st.st_mode & S_ISVTX))) ||
		    ((st.st_mode & S_IWGRP) && !own_group(&st))) {
			close(fd);
			return fail(d, -EPERM,
				    "its output '%s' is under a directory another user may write "
				    "or owns",
				    path);
		}
		if (!n)
			return fd;
		memcpy(part, p, n);
		part[n] = '\0';
		next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && last && owner == geteuid() &&
		    mkdirat(fd, part, 0700) == 0) {
			*made = true;
			next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (next < 0) {
			int err = errno;

			close(fd);
			return fail(d, -err, "cannot open its output '%s': %s", path,
				    strerror(err));
		}
		close(fd);
		fd = next;
		if (last) {
			if (fstat(fd, &st) < 0 || st.st_uid != owner || (st.st_mode & S_IWOTH) ||
			    ((st.st_mode & S_IWGRP) && !own_group(&st))) {
				close(fd);
				return fail(d, -EPERM, "its output '%s' is not its user's alone",
					    path);
			}
			return fd;
		}
		p += n + 1;
	}
	return fail(d, -errno, "cannot open '/': %s", strerror(errno));
}

/* The output's directories now, to tell later which our session made. */
static void remember_before(struct corecap_relayd *d)
{
	int dup_fd = dup(d->dir_fd);
	DIR *dir = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *e;

	d->n_before = 0;
	d->before_all = dir != NULL;
	while (dir && (e = readdir(dir))) {
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		if (d->n_before == CORECAP_RELAYD_BEFORE_MAX) {
			d->before_all = false;
			break;
		}
		/* fstat's inode, as release_reused() takes (readdir's can differ: overlayfs) */
		if (fstatat(d->dir_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			d->before[d->n_before++] = st.st_ino;
		else
			d->before_all = false;
	}
	if (dir)
		closedir(dir);
	else if (dup_fd >= 0)
		close(dup_fd);
}

/* The relayd of /proc/PID (pfd) reused if every rule holds; 0 or -errno with d->error. */
static int try_reuse(struct corecap_relayd *d, pid_t pid, int pfd)
{
	static char buf[CORECAP_RELAYD_ENVIRON_MAX + 1];
	struct corecap_relayd_cmdline c;
	char conf[CORECAP_RELAYD_OUTPUT_MAX + 32];
	const char *base;
	unsigned char rnd[8];
	struct stat st;
	ssize_t n;
	int ret;

	/* The /proc entry's owner is the process's user. */
	if (fstat(pfd, &st) < 0)
		return fail(d, -errno, "cannot stat it: %s", strerror(errno));
	if (st.st_uid != geteuid())
		return fail(d, -EPERM, "it runs as user %u, corecap as %u: not trusted",
			    (unsigned)st.st_uid, (unsigned)geteuid());
	if (!same_ns(pfd, "mnt") || !same_ns(pfd, "net"))
		return fail(d, -EPERM, "it runs in another mount or network namespace");
	n = read_proc(pfd, "cmdline", buf, CORECAP_RELAYD_CMDLINE_MAX);
	if (n < 0)
		return fail(d, (int)n, "cannot read its command line: %s", strerror((int)-n));
	if ((ret = corecap_relayd_cmdline_parse(&c, buf, (size_t)n)) < 0)
		return fail(d, ret, "%s", c.error);
	n = read_proc(pfd, "environ", buf, CORECAP_RELAYD_ENVIRON_MAX);
	if (n < 0)
		return fail(d, (int)n, "cannot read its environment: %s", strerror((int)-n));
	if ((ret = corecap_relayd_cmdline_env(&c, buf, (size_t)n)) < 0)
		return fail(d, ret, "%s", c.error);
	/* Another record's relayd writes into its run: it is stopped when that record ends. */
	base = strrchr(c.output, '/');
	if (strcmp(base + 1, CORECAP_RELAYD_DIR) == 0)
		return fail(d, -EBUSY, "it is another corecap record's (its output is '%s')",
			    c.output);
	/* A configuration file could have set anything (lttng-relayd(8), "Daemon configuration").
	 */
	snprintf(conf, sizeof(conf), "%s/.lttng/lttng.conf", c.home);
	if (access("/etc/lttng/lttng.conf", F_OK) == 0 || (*c.home && access(conf, F_OK) == 0))
		return fail(d, -EPERM,
			    "a configuration file (/etc/lttng/lttng.conf or %s) may "
			    "have set its ports or output",
			    conf);
	if (strcmp(c.ctrl_addr, c.data_addr) != 0)
		return fail(d, -EINVAL, "its control and data ports listen on different addresses");
	if (!listens(pid, c.ctrl_port) || !listens(pid, c.data_port))
		return fail(d, -ENOTCONN, "it does not listen on ports %u and %u", c.ctrl_port,
			    c.data_port);
	d->dir_fd = open_trusted(d, c.output, st.st_uid, &d->made_output);
	if (d->dir_fd < 0)
		return d->dir_fd;
	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd)) {
		close(d->dir_fd);
		d->dir_fd = -1;
		if (d->made_output)
			rmdir(c.output);
		return fail(d, -EIO, "no random bytes for our session's path");
	}
	snprintf(d->token, sizeof(d->token), "corecap-%d-%02x%02x%02x%02x%02x%02x%02x%02x",
		 (int)getpid(), rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5], rnd[6], rnd[7]);
	snprintf(d->output, sizeof(d->output), "%s", c.output);
	remember_before(d);
	d->pid = pid;
	d->owner = st.st_uid;
	d->reused = true;
	d->ctrl_port = c.ctrl_port;
	d->data_port = c.data_port;
	d->live_port = c.live_port;
	snprintf(d->listen, sizeof(d->listen), "%s", c.ctrl_addr);
	/* Listening on every address: each host streams to the one it reaches us by. */
	if (strcmp(c.ctrl_addr, "0.0.0.0") != 0)
		snprintf(d->addr, sizeof(d->addr), "%s", c.ctrl_addr);
	return 0;
}

/* The walk over /proc of corecap_relayd_reuse: the first lttng-relayd it
 * can reuse, or the first one's error. */
struct reuse_walk {
	struct corecap_relayd *d;
	char first[sizeof(((struct corecap_relayd *)0)->error)];
	int first_ret;
	bool reused;
};

static bool reuse_one(pid_t pid, int pfd, void *ctx)
{
	struct reuse_walk *w = ctx;
	int ret;

	if (!corecap_proc_comm_is(pfd, "lttng-relayd"))
		return false;
	ret = try_reuse(w->d, pid, pfd);
	if (ret < 0 && !*w->first) {
		snprintf(w->first, sizeof(w->first), "lttng-relayd (pid %d): %.400s", (int)pid,
			 w->d->error);
		w->first_ret = ret;
	}
	w->reused = ret == 0;
	return w->reused;
}

int corecap_relayd_reuse(struct corecap_relayd *d)
{
	struct reuse_walk w = {.d = d, .first_ret = -ENOENT};
	int ret;

	memset(d, 0, sizeof(*d));
	d->pid = -1;
	d->dir_fd = -1;
	d->cpu_user_s = d->cpu_sys_s = -1;
	if ((ret = corecap_proc_each(reuse_one, &w)) < 0)
		return fail(d, ret, "cannot list /proc: %s", strerror(-ret));
	if (w.reused)
		return 0;
	snprintf(d->error, sizeof(d->error), "%s", w.first);
	return w.first_ret;
}
