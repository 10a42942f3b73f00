/*
 * collector/hosts/host_relayd.c: what an lttng-relayd wrote for a host is
 * untrusted input (remote consumers sent it). A tree of directories and
 * regular files is moved whole into the destination, made 0600/0700; a
 * symlink, a FIFO, a hard-linked file, a tree over the size bound, a
 * symlinked path component, a host under two hostnames or a destination
 * that exists are refused with the rule named, the destination untouched.
 * From a relayd that ran already (reused): the tree is copied, not moved
 * (the relayd's files keep their modes until removed), a copy that breaks
 * a rule is removed and the relayd's tree left; the release removes our
 * token's directories and a hostname directory our session made, nothing
 * else of the relayd's output.
 * Also the --relayd-url parser's refusals and the host's URL.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hosts/host_relayd.h"

#include "check_run.h"

static char scratch[64];
static struct corecap_relayd d;
static int dest_fd = -1;

/* Runs cmd with every '@' the scratch directory. */
static void run(const char *cmd)
{
	char buf[2048];
	size_t n = 0;

	for (const char *p = cmd; *p && n < sizeof(buf) - 100; p++) {
		if (*p == '@')
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s", scratch);
		else
			buf[n++] = *p;
	}
	buf[n] = '\0';
	ck_assert_msg(system(buf) == 0, "%s", buf);
}

static void setup(void)
{
	char path[128];

	snprintf(scratch, sizeof(scratch), "/tmp/check-host-relayd.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(scratch));
	/* The relayd's layout: HOSTNAME/TOKEN/NAME/ust/uid/0/64-bit/... */
	run("mkdir -p @/out/vm/corecap-1/b/ust/uid/0/64-bit/index @/dest && "
	    "printf meta > @/out/vm/corecap-1/b/ust/uid/0/64-bit/metadata && "
	    "head -c 4096 /dev/zero > @/out/vm/corecap-1/b/ust/uid/0/64-bit/corecap_0");
	run("chmod -R go+rX @/out && touch "
	    "@/out/vm/corecap-1/b/ust/uid/0/64-bit/index/corecap_0.idx");
	memset(&d, 0, sizeof(d));
	d.pid = -1;
	d.owner = geteuid();
	snprintf(d.token, sizeof(d.token), "corecap-1");
	snprintf(path, sizeof(path), "%s/out", scratch);
	d.dir_fd = open(path, O_RDONLY | O_DIRECTORY);
	snprintf(path, sizeof(path), "%s/dest", scratch);
	dest_fd = open(path, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(d.dir_fd, 0);
	ck_assert_int_ge(dest_fd, 0);
}

static void teardown(void)
{
	char cmd[128];

	close(d.dir_fd);
	close(dest_fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	ck_assert_int_eq(system(cmd), 0);
}

static int mode_of(const char *rel)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", scratch, rel);
	if (lstat(path, &st) < 0)
		return -1;
	return (int)(st.st_mode & 07777);
}

static bool exists(const char *rel)
{
	return mode_of(rel) >= 0;
}

START_TEST(test_take_whole)
{
	ck_assert_int_eq(corecap_relayd_take(&d, "b", dest_fd, "trace", 1 << 20), 0);
	ck_assert_int_eq(mode_of("dest/trace"), 0700);
	ck_assert_int_eq(mode_of("dest/trace/ust/uid/0/64-bit"), 0700);
	ck_assert_int_eq(mode_of("dest/trace/ust/uid/0/64-bit/metadata"), 0600);
	ck_assert_int_eq(mode_of("dest/trace/ust/uid/0/64-bit/corecap_0"), 0600);
	ck_assert_int_eq(mode_of("dest/trace/ust/uid/0/64-bit/index/corecap_0.idx"), 0600);
	ck_assert(!exists("out/vm/corecap-1/b"));
	/* Taken once: nothing left for it. */
	ck_assert_int_eq(corecap_relayd_take(&d, "b", dest_fd, "trace2", 1 << 20), -ENOENT);
	ck_assert_str_eq(d.error, "lttng-relayd wrote nothing for host 'b'");
}
END_TEST

/* A host of several daemons: each streamed to NAME/PID, each taken into its own run. */
START_TEST(test_take_daemons)
{
	run("mkdir -p @/out/vm/corecap-1/c/41/ust @/out/vm/corecap-1/c/42/ust @/dest/d41 "
	    "@/dest/d42 && printf meta > @/out/vm/corecap-1/c/41/ust/metadata && "
	    "ln -s /etc/passwd @/out/vm/corecap-1/c/42/ust/metadata");
	{
		int d41 = openat(dest_fd, "d41", O_RDONLY | O_DIRECTORY);
		int d42 = openat(dest_fd, "d42", O_RDONLY | O_DIRECTORY);

		ck_assert_int_eq(corecap_relayd_take_daemon(&d, "c", 41, d41, "trace", 1 << 20), 0);
		ck_assert_int_eq(mode_of("dest/d41/trace/ust/metadata"), 0600);
		ck_assert(!exists("out/vm/corecap-1/c/41"));
		/* The other daemon's tree breaks a rule: refused, named, not moved. */
		ck_assert_int_eq(corecap_relayd_take_daemon(&d, "c", 42, d42, "trace", 1 << 20),
				 -EPERM);
		ck_assert_msg(strstr(d.error, "corecap-1/c/42/ust/metadata"), "%s", d.error);
		ck_assert(!exists("dest/d42/trace"));
		ck_assert_int_eq(corecap_relayd_take_daemon(&d, "c", 43, d42, "trace", 1 << 20),
				 -ENOENT);
		close(d41);
		close(d42);
	}
}
END_TEST

/* Refused, the rule named, the destination not made. */
static void refused(const char *rule, int err, uint64_t max)
{
	ck_assert_int_eq(corecap_relayd_take(&d, "b", dest_fd, "trace", max), err);
	ck_assert_msg(strstr(d.error, rule), "'%s' does not say '%s'", d.error, rule);
	ck_assert(!exists("dest/trace"));
}

START_TEST(test_symlink)
{
	run("ln -s /etc/passwd @/out/vm/corecap-1/b/ust/uid/0/64-bit/corecap_1");
	refused("64-bit/corecap_1' is neither a regular file nor a directory", -EPERM, 1 << 20);
}
END_TEST

START_TEST(test_fifo)
{
	run("mkfifo @/out/vm/corecap-1/b/ust/uid/0/64-bit/corecap_1");
	refused("is neither a regular file nor a directory", -EPERM, 1 << 20);
}
END_TEST

START_TEST(test_hard_link)
{
	run("ln @/out/vm/corecap-1/b/ust/uid/0/64-bit/metadata @/out/vm/m2");
	refused("64-bit/metadata' is not a regular file of the relayd's user with one link", -EPERM,
		1 << 20);
}
END_TEST

START_TEST(test_size_bound)
{
	refused("over 4000 bytes", -EFBIG, 4000);
}
END_TEST

START_TEST(test_symlinked_component)
{
	/* The token's directory a link to a tree elsewhere: not followed. */
	run("mkdir -p @/else/b && mv @/out/vm/corecap-1 @/moved && ln -s @/else "
	    "@/out/vm/corecap-1");
	ck_assert_int_eq(corecap_relayd_take(&d, "b", dest_fd, "trace", 1 << 20), -ENOENT);
	ck_assert(!exists("dest/trace"));
	ck_assert(exists("else/b"));
}
END_TEST

START_TEST(test_two_hostnames)
{
	run("mkdir -p @/out/other/corecap-1/b");
	refused("under 2 host names", -EEXIST, 1 << 20);
}
END_TEST

START_TEST(test_dest_exists)
{
	run("mkdir @/dest/trace");
	ck_assert_int_eq(corecap_relayd_take(&d, "b", dest_fd, "trace", 1 << 20), -EEXIST);
	ck_assert_msg(strstr(d.error, "cannot move"), "%s", d.error);
	ck_assert(exists("out/vm/corecap-1/b/ust/uid/0/64-bit/metadata"));
}
END_TEST

START_TEST(test_release_removes)
{
	int run_fd;
	char path[128];

	run("mkdir @/run && mv @/out @/run/" CORECAP_RELAYD_DIR
	    " && ln -s /etc @/run/" CORECAP_RELAYD_DIR "/vm/etc");
	snprintf(path, sizeof(path), "%s/run", scratch);
	run_fd = open(path, O_RDONLY | O_DIRECTORY);
	close(d.dir_fd);
	d.dir_fd = openat(run_fd, CORECAP_RELAYD_DIR, O_RDONLY | O_DIRECTORY);
	corecap_relayd_release(&d, run_fd);
	ck_assert_int_eq(d.dir_fd, -1);
	d.dir_fd = open("/dev/null", O_RDONLY); /* for teardown's close */
	ck_assert(!exists("run/" CORECAP_RELAYD_DIR));
	ck_assert(access("/etc/passwd", F_OK) == 0); /* the link removed, not followed */
	close(run_fd);
}
END_TEST

START_TEST(test_reused_copy)
{
	struct stat st;
	char path[256];

	d.reused = true;
	ck_assert_int_eq(corecap_relayd_take(&d, "b", dest_fd, "trace", 1 << 20), 0);
	ck_assert_int_eq(mode_of("dest/trace"), 0700);
	ck_assert_int_eq(mode_of("dest/trace/ust/uid/0/64-bit"), 0700);
	ck_assert_int_eq(mode_of("dest/trace/ust/uid/0/64-bit/metadata"), 0600);
	ck_assert_int_eq(mode_of("dest/trace/ust/uid/0/64-bit/index/corecap_0.idx"), 0600);
	snprintf(path, sizeof(path), "%s/dest/trace/ust/uid/0/64-bit/corecap_0", scratch);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, 4096);
	ck_assert_int_eq(st.st_nlink, 1);
	/* Copied, then removed from the relayd's output; our token's directory stays till release.
	 */
	ck_assert(!exists("out/vm/corecap-1/b"));
	ck_assert(exists("out/vm/corecap-1"));
}
END_TEST

START_TEST(test_reused_refused)
{
	d.reused = true;
	run("ln -s /etc/passwd @/out/vm/corecap-1/b/ust/uid/0/64-bit/corecap_1");
	refused("64-bit/corecap_1' is neither a regular file nor a directory", -EPERM, 1 << 20);
	/* The relayd's files as they were: not made ours. */
	ck_assert_int_eq(mode_of("out/vm/corecap-1/b/ust/uid/0/64-bit/metadata") & 0044, 0044);
	ck_assert(exists("out/vm/corecap-1/b/ust/uid/0/64-bit/corecap_0"));
}
END_TEST

START_TEST(test_reused_release)
{
	struct stat st;
	char path[128];

	/* vm/ was there before our session; new/ was not; others/ has no token of ours. */
	snprintf(path, sizeof(path), "%s/out/vm", scratch);
	ck_assert_int_eq(stat(path, &st), 0);
	d.before[0] = st.st_ino;
	d.n_before = 1;
	d.before_all = true;
	d.reused = true;
	run("mkdir -p @/out/vm/corecap-2/b @/out/new/corecap-1/c/ust @/out/others/corecap-1x "
	    "&& ln -s /etc @/out/new/corecap-1/c/etc");
	corecap_relayd_release(&d, -1);
	ck_assert_int_eq(d.dir_fd, -1);
	d.dir_fd = open("/dev/null", O_RDONLY); /* for teardown's close */
	ck_assert(!exists("out/vm/corecap-1"));
	ck_assert(exists("out/vm"));
	ck_assert(exists("out/vm/corecap-2/b"));
	ck_assert(!exists("out/new"));
	ck_assert(exists("out/others/corecap-1x"));
	ck_assert(access("/etc/passwd", F_OK) == 0);
}
END_TEST

START_TEST(test_url)
{
	struct corecap_relayd r;
	char path[128], url[300];
	int fd;

	snprintf(path, sizeof(path), "%s", scratch);
	fd = open(path, O_RDONLY | O_DIRECTORY);
	ck_assert_int_eq(corecap_relayd_start(&r, "tcp://1.2.3.4", fd, path, -1), -EINVAL);
	ck_assert_msg(strstr(r.error, "bad --relayd-url 'tcp://1.2.3.4'"), "%s", r.error);
	ck_assert_int_eq(corecap_relayd_start(&r, "net://host.example", fd, path, -1), -EINVAL);
	ck_assert_int_eq(corecap_relayd_start(&r, "net://10.0.0.1:5342", fd, path, -1), -EINVAL);
	ck_assert_int_eq(corecap_relayd_start(&r, "net://10.0.0.1:5342:5342", fd, path, -1),
			 -EINVAL);
	ck_assert_int_eq(corecap_relayd_start(&r, "net://10.0.0.1:5342:5343x", fd, path, -1),
			 -EINVAL);
	ck_assert(!exists(CORECAP_RELAYD_DIR));
	close(fd);
	memset(&r, 0, sizeof(r));
	r.ctrl_port = 5342;
	r.data_port = 5343;
	snprintf(r.token, sizeof(r.token), "corecap-7");
	corecap_relayd_host_url(&r, "b", url, sizeof(url));
	ck_assert_str_eq(url, "net://:5342:5343/corecap-7/b"); /* the host puts in the address */
	snprintf(r.addr, sizeof(r.addr), "10.0.0.1");
	corecap_relayd_host_url(&r, "b", url, sizeof(url));
	ck_assert_str_eq(url, "net://10.0.0.1:5342:5343/corecap-7/b");
	/* An IPv6 address: net6, bracketed, as lttng-create wants it. */
	snprintf(r.addr, sizeof(r.addr), "fd00::2");
	corecap_relayd_host_url(&r, "b", url, sizeof(url));
	ck_assert_str_eq(url, "net6://[fd00::2]:5342:5343/corecap-7/b");
	corecap_relayd_listen_url("fd00::2", 5342, url, sizeof(url));
	ck_assert_str_eq(url, "tcp6://[fd00::2]:5342");
	corecap_relayd_listen_url("::", 5343, url, sizeof(url));
	ck_assert_str_eq(url, "tcp6://[::]:5343");
	corecap_relayd_listen_url("0.0.0.0", 5343, url, sizeof(url));
	ck_assert_str_eq(url, "tcp://0.0.0.0:5343");
}
END_TEST

/* --relayd-url's IPv6 form: net6://[IPV6][:CTRL:DATA], anything else refused. */
START_TEST(test_url_ipv6_refused)
{
	static const char *const bad[] = {
		"net6://::1",		   /* not bracketed */
		"net6://[::1",		   /* not closed */
		"net6://[10.0.0.1]",	   /* not IPv6 */
		"net://[::1]",		   /* IPv6 under net:// */
		"net://::1",		   /* the same, bare */
		"net6://[fd00::zz]",	   /* not an address */
		"net6://[::1]:5342",	   /* one port */
		"net6://[::1]:5342:5342",  /* the same port twice */
		"net6://[::1]5342:5343",   /* no colon after the bracket */
		"net6://[::1]:5342:70000", /* out of range */
		"net6://[fe80::1%eth0]",   /* a zone: lttng's URLs have none */
		"net6://[]",		   /* empty */
	};
	struct corecap_relayd r;
	int fd = open(scratch, O_RDONLY | O_DIRECTORY);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(corecap_relayd_start(&r, bad[i], fd, scratch, -1) == -EINVAL, "%s",
			      bad[i]);
		ck_assert_msg(strstr(r.error, "expected net://IPV4[:CTRL:DATA] or "
					      "net6://[IPV6][:CTRL:DATA]"),
			      "%s", r.error);
	}
	ck_assert(!exists(CORECAP_RELAYD_DIR));
	close(fd);
}
END_TEST

/* On the host: the URL completed from its ssh connection's address, IPv4 or IPv6. */
START_TEST(test_url_complete)
{
	static const char *const empty = "net://:5342:5343/corecap-7/b";
	static const struct {
		const char *url, *ssh, *want; /* want NULL: refused */
	} cases[] = {
		{empty, "10.246.0.1 51234 10.246.0.3 22", "net://10.246.0.1:5342:5343/corecap-7/b"},
		{empty, "fd00::1 51234 fd00::3 22", "net6://[fd00::1]:5342:5343/corecap-7/b"},
		{empty, "::1 51234 ::1 22", "net6://[::1]:5342:5343/corecap-7/b"},
		/* An IPv4 client of an sshd on "::": its IPv4 address. */
		{empty, "::ffff:10.246.0.1 5 ::ffff:10.246.0.3 22",
		 "net://10.246.0.1:5342:5343/corecap-7/b"},
		{empty, "::FFFF:10.246.0.1 5 x 22", "net://10.246.0.1:5342:5343/corecap-7/b"},
		/* No ssh, or no plain address in it: loopback (a shared session daemon). */
		{empty, NULL, "net://127.0.0.1:5342:5343/corecap-7/b"},
		{empty, "", "net://127.0.0.1:5342:5343/corecap-7/b"},
		{empty, "fe80::1%eth0 5 fe80::2%eth0 22", "net://127.0.0.1:5342:5343/corecap-7/b"},
		{empty, "host.example 5 x 22", "net://127.0.0.1:5342:5343/corecap-7/b"},
		{empty, "1.2.3.4.5 5 x 22", "net://127.0.0.1:5342:5343/corecap-7/b"},
		/* A URL with its address is kept as the recording host said it. */
		{"net6://[fd00::2]:5342:5343/corecap-7/b", "10.0.0.1 5 x 22",
		 "net6://[fd00::2]:5342:5343/corecap-7/b"},
		{"net://10.0.0.2:5342:5343/corecap-7/b", "fd00::1 5 x 22",
		 "net://10.0.0.2:5342:5343/corecap-7/b"},
		/* Other schemes and characters refused. */
		{"tcp://10.0.0.2:5342/x", NULL, NULL},
		{"net6://fd00::2:5342:5343/x", NULL, NULL},
		{"net://:5342:5343/x;rm", NULL, NULL},
		{"net://:5342:5343/x y", NULL, NULL},
	};
	char out[300];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret = corecap_relayd_url_complete(cases[i].url, cases[i].ssh, out, sizeof(out));

		if (!cases[i].want) {
			ck_assert_msg(ret == -EINVAL, "%s: %d", cases[i].url, ret);
			continue;
		}
		ck_assert_msg(ret == 0, "%s / %s: %d", cases[i].url, cases[i].ssh, ret);
		ck_assert_msg(strcmp(out, cases[i].want) == 0, "%s / %s: %s", cases[i].url,
			      cases[i].ssh, out);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("host_relayd");
	TCase *tc = tcase_create("take");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_take_whole);
	tcase_add_test(tc, test_take_daemons);
	tcase_add_test(tc, test_symlink);
	tcase_add_test(tc, test_fifo);
	tcase_add_test(tc, test_hard_link);
	tcase_add_test(tc, test_size_bound);
	tcase_add_test(tc, test_symlinked_component);
	tcase_add_test(tc, test_two_hostnames);
	tcase_add_test(tc, test_dest_exists);
	tcase_add_test(tc, test_release_removes);
	tcase_add_test(tc, test_reused_copy);
	tcase_add_test(tc, test_reused_refused);
	tcase_add_test(tc, test_reused_release);
	tcase_add_test(tc, test_url);
	tcase_add_test(tc, test_url_ipv6_refused);
	tcase_add_test(tc, test_url_complete);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return corecap_check_run(suite());
}
