/* collector/sources/disk_stats.c: /proc/diskstats lines, mountinfo's longest mount, a
 * daemon's disks. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sources/disk_stats.h"

#include "check_run.h"

/* Linux 6.x: 20 fields (discards and flushes after the weighted time). */
static const char diskstats[] =
	"   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	" 254       0 vda 5153 1263 407606 2630 902155 316204 22137178 1306405 0 736316 1390213 "
	"0 0 0 0 62170 81177\n"
	" 254       1 vda1 5000 1200 400000 2600 900000 316000 22100000 1306000 3 736000 1390000 "
	"0 0 0 0 0 0\n";

START_TEST(a_diskstats_line)
{
	struct corecap_disk_id id;
	struct corecap_disk_counts c;

	ck_assert_int_eq(corecap_diskstats_line(strchr(diskstats, '\n') + 1, &id, &c), 0);
	ck_assert_uint_eq(id.major, 254);
	ck_assert_uint_eq(id.minor, 0);
	ck_assert_str_eq(id.name, "vda");
	ck_assert_uint_eq(c.ios[0], 5153);
	ck_assert_uint_eq(c.ios[1], 902155);
	ck_assert_uint_eq(c.sectors[0], 407606);
	ck_assert_uint_eq(c.sectors[1], 22137178);
	ck_assert_uint_eq(c.io_ticks_ms, 736316);
	ck_assert_uint_eq(c.queue_ms, 1390213);
	/* Linux 2.6's 14 fields are enough; fewer are not a diskstats line. */
	ck_assert_int_eq(corecap_diskstats_line("8 0 sda 1 2 3 4 5 6 7 8 9 10 11", &id, &c), 0);
	ck_assert_uint_eq(c.queue_ms, 11);
	ck_assert_int_eq(corecap_diskstats_line("8 0 sda 1 2 3 4 5 6 7 8 9 10", &id, &c), -EINVAL);
	ck_assert_int_eq(corecap_diskstats_line("", &id, &c), -EINVAL);
	ck_assert_int_eq(corecap_diskstats_line("x y sda 1 2 3 4 5 6 7 8 9 10 11", &id, &c),
			 -EINVAL);
}
END_TEST

START_TEST(a_device_found_by_number)
{
	struct corecap_disk_counts c;

	ck_assert_int_eq(corecap_diskstats_find(diskstats, 254, 1, &c), 0);
	ck_assert_uint_eq(c.ios[0], 5000);
	ck_assert_uint_eq(c.io_ticks_ms, 736000);
	ck_assert_int_eq(corecap_diskstats_find(diskstats, 254, 2, &c), -ENOENT);
	ck_assert_int_eq(corecap_diskstats_find(diskstats, 7, 0, &c), 0);
	ck_assert_uint_eq(c.io_ticks_ms, 0);
}
END_TEST

static const char mountinfo[] =
	"22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
	"23 22 0:5 / /dev rw,nosuid shared:2 - devtmpfs udev rw,size=4k\n"
	"24 22 0:22 / /tmp rw shared:3 - tmpfs tmpfs rw\n"
	"40 24 7:3 / /tmp/osd\\040data rw,relatime shared:9 master:4 - ext4 /dev/loop3 rw\n"
	"41 22 7:4 / /tmp/osd rw,relatime - xfs /dev/loop4 rw\n";

START_TEST(the_longest_mount_holds_a_path)
{
	unsigned ma, mi;
	char fs[32];

	ck_assert_int_eq(corecap_mountinfo_find(mountinfo, "/tmp/osd data/obj", &ma, &mi, fs,
						sizeof(fs)),
			 0);
	ck_assert_uint_eq(ma, 7);
	ck_assert_uint_eq(mi, 3);
	ck_assert_str_eq(fs, "ext4");
	/* "/tmp/osd" is a mount of its own; "/tmp/osdx" is only under /tmp. */
	ck_assert_int_eq(corecap_mountinfo_find(mountinfo, "/tmp/osd/a", &ma, &mi, fs, sizeof(fs)),
			 0);
	ck_assert_uint_eq(mi, 4);
	ck_assert_str_eq(fs, "xfs");
	ck_assert_int_eq(corecap_mountinfo_find(mountinfo, "/tmp/osdx", &ma, &mi, fs, sizeof(fs)),
			 0);
	ck_assert_uint_eq(ma, 0);
	ck_assert_str_eq(fs, "tmpfs");
	ck_assert_int_eq(corecap_mountinfo_find(mountinfo, "/etc/passwd", &ma, &mi, fs, sizeof(fs)),
			 0);
	ck_assert_uint_eq(ma, 254);
	ck_assert_int_eq(corecap_mountinfo_find(mountinfo, "/dev/vdb", &ma, &mi, fs, sizeof(fs)),
			 0);
	ck_assert_str_eq(fs, "devtmpfs");
	/* Lines without the separator or the fields are skipped, not misread. */
	ck_assert_int_eq(corecap_mountinfo_find("22 1 254:1 / / rw\n", "/a", &ma, &mi, fs,
						sizeof(fs)),
			 -ENOENT);
	ck_assert_int_eq(corecap_mountinfo_find("", "/a", &ma, &mi, fs, sizeof(fs)), -ENOENT);
}
END_TEST

/* This process's own disks: a file it holds open on the disk that holds its cwd. */
START_TEST(a_process_disks_are_those_of_its_files)
{
	struct corecap_disk_id ids[8];
	char name[] = "disk_stats.XXXXXX";
	int fd = mkstemp(name), n;

	ck_assert_int_ge(fd, 0);
	unlink(name);
	n = corecap_daemon_disks(getpid(), ids, 8);
	ck_assert_int_ge(n, 0);
	for (int i = 0; i < n; i++) {
		struct corecap_disk_counts c;

		ck_assert(ids[i].major != 0);
		ck_assert_int_eq(corecap_diskstats_read(ids[i].major, ids[i].minor, &c), 0);
	}
	close(fd);
	ck_assert_int_eq(corecap_daemon_disks(-1, ids, 8), -ENOENT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("collector/disk_stats");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, a_diskstats_line);
	tcase_add_test(tc, a_device_found_by_number);
	tcase_add_test(tc, the_longest_mount_holds_a_path);
	tcase_add_test(tc, a_process_disks_are_those_of_its_files);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
