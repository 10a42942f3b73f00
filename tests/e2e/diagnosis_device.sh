#!/usr/bin/env bash
# Known answer (issue #41, the device kind): a daemon held by the I/O
# limit its cgroup sets on its disk. refosd stores its objects on an ext4
# file system of its own (a loop device over a file in $WORK), syncing
# each write (--store dir: --fsync), in a fresh cgroup that may write
# 150 I/Os per second to that loop device (cgroup v2 io.max "wiops=150",
# or blkio.throttle.write_iops_device where the blkio controller sits on a
# cgroup v1 hierarchy, as on this project's VMs). refbench -t 16 writes
# 4 KiB objects. The diagnosis (docs/methodology.md, "The diagnosis")
# must name the disk and the limit, with a headroom of about 1 (it is
# full), not a lock or thread of the daemon, which has CPU to spare; text,
# JSON and HTML agree. The relief: with the limit doubled the throughput
# doubles (1.6x to 2.4x), as a limit that binds says.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
need_refosd
[ "$(id -u)" = 0 ] || skip "a loop device, a mount and a cgroup need root"
for t in losetup mkfs.ext4 mount umount; do
	command -v "$t" >/dev/null || skip "$t is not installed"
done

# The hierarchy with the I/O controller: v2's io, else v1's blkio.
cgroup_hierarchy io blkio.throttle.write_iops_device /sys/fs/cgroup/blkio

truncate -s 256M "$WORK/disk.img"
mkfs.ext4 -q -F "$WORK/disk.img"
loop=$(losetup -f --show "$WORK/disk.img") || skip "no free loop device (losetup -f)"
mkdir "$WORK/mnt"
mount "$loop" "$WORK/mnt" || { losetup -d "$loop"; skip "cannot mount $loop"; }
mkdir "$WORK/mnt/store"
majmin=$(lsblk -dno MAJ:MIN "$loop" | tr -d ' ')
cg="$base/corecap-test-$$-$RANDOM"
mkdir "$cg"
echo "cgroup v$cgv: $cg; disk ${loop#/dev/} ($majmin)"

# Everything goes when the test ends: the daemon (lib.sh), the cgroup, the mount, the loop.
e2e_cleanup_hook() {
	local p
	for p in $(cat "$cg/cgroup.procs" 2>/dev/null); do
		kill -KILL "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	for p in 1 2 3 4 5 6 7 8 9 10; do
		rmdir "$cg" 2>/dev/null && break
		sleep 0.1
	done
	umount "$WORK/mnt" 2>/dev/null || umount -l "$WORK/mnt" 2>/dev/null || true
	losetup -d "$loop" 2>/dev/null || true
}

# set_limit N: the cgroup's write I/Os per second on the loop device.
set_limit() {
	if [ "$cgv" = 2 ]; then
		echo "$majmin wiops=$1" >"$cg/io.max"
	else
		echo "$majmin $1" >"$cg/blkio.throttle.write_iops_device"
	fi
}
set_limit 150
file=$([ "$cgv" = 2 ] && echo io.max || echo blkio.throttle)

launch_refosd device sh -c 'echo $$ >"$0" && exec "$@"' "$cg/cgroup.procs" \
	"$REFOSD" --port 0 --debug 0 --store "dir:$WORK/mnt/store" --fsync
run="$WORK/device"
"$CORECAP" record -q -p "$OSD_PID" -o "$run" -- \
	"$REFBENCH" -p "$OSD_PORT" --no-progress -t 16 -b 4K -d 3 write >"$run.record" 2>&1 ||
	{ echo "FAIL: corecap record failed:"; cat "$run.record"; exit 1; }
render_diagnosis "$run"
dev() { json "$run/manifest.json" "[x for x in d['devices'] if x['name'] == '${loop#/dev/}'][0]$1"; }
expect_eq "the manifest records the limit on the loop device" "150 /${cg##*/} $file" \
	"$(dev "['limit']['write_iops']") $(dev "['limit']['cgroup']") $(dev "['limit']['file']")"
expect_calc "and the cgroup's writes there ($(dev "['limit']['cgroup_writes']") in 3 s)" \
	"$(dev "['limit']['cgroup_writes']") >= 300"
dg() { json "$run.json" "d['diagnosis']$1"; }
expect_eq "the diagnosis names the disk" "device ${loop#/dev/}" "$(dg "['kind']") $(dg "['name']")"
expect_true "the headline names the full limit" \
	grep -q "disk ${loop#/dev/}: the I/O limit of the daemon's cgroup is full (write_iops 150, $file of cgroup /${cg##*/}" <(dg "['headline']")
expect_calc "the headroom is about 1: the limit is full ($(dg "['headroom']"))" \
	"$(dg "['headroom']") >= 1 && $(dg "['headroom']") <= 1.15"
expect_true "the action raises the limit" grep -q "raise the I/O limit of cgroup /${cg##*/}" <(dg "['action']")
expect_true "the diagnosis agrees in text, JSON and HTML" \
	python3 "$CORECAP_SRC/tests/e2e/diagnosis_diag_agree.py" "$run.txt" "$run.json" "$run.html"

# The relief: the limit doubled, the same daemon.
set_limit 300
"$REFBENCH" -p "$OSD_PORT" --no-progress -t 16 -b 4K -d 3 write >"$WORK/relieved.out" 2>&1
relieved=$(awk -F: '/^Average IOPS/ { gsub(/ /, "", $2); print $2 }' "$WORK/relieved.out")
measured=$(dg "['iops']")
expect_calc "with the limit doubled the throughput doubles ($measured -> $relieved ops/s)" \
	"$relieved >= 1.6 * $measured && $relieved <= 2.4 * $measured"
stop_refosd
finish
