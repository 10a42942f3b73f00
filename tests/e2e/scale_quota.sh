#!/usr/bin/env bash
# A fractional point (issue #45 item 1) where the daemon is in the root
# cgroup, which takes no CPU quota: `corecap scale --cores 1.5` moves the
# daemon into a cgroup of its own (corecap-scale-PID beneath the cpu
# hierarchy's root, cgroup v1 or v2), sets its quota to 1.5 CPUs, and
# puts the daemon back and removes that cgroup at the end, and, through
# its guard, when corecap is killed with SIGKILL. A cgroup of that name
# that exists already is never used: refused, naming it, nothing moved.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/scale_lib.sh"
need_sessiond
need_refosd
[ "$(id -u)" -eq 0 ] || skip "moving a daemon between cgroups takes root"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (a point at 1.5 cores)"

start_refosd quota --op-cpu-us 100 --debug 0 --shards 2 --threads-per-shard 2
cpu_cgroup() { awk -F: '$2 == "cpu" || $2 ~ /(^|,)cpu(,|$)/ { print $3; f = 1 } END { if (!f) print "" }' "/proc/$1/cgroup"; }
orig=$(cpu_cgroup "$OSD_PID")
if [ -n "$orig" ]; then
	mnt=/sys/fs/cgroup/$(awk -F: '$2 ~ /(^|,)cpu(,|$)/ { print $2 }' "/proc/$OSD_PID/cgroup")
	quota_of() { cat "$mnt/corecap-scale-$OSD_PID/cpu.cfs_quota_us"; }
	want=150000
else
	orig=$(awk -F: '$1 == "0" { print $3 }' "/proc/$OSD_PID/cgroup")
	mnt=/sys/fs/cgroup/unified
	[ -d "$mnt" ] || mnt=/sys/fs/cgroup
	quota_of() { cat "$mnt/corecap-scale-$OSD_PID/cpu.max"; }
	want="150000 100000"
fi
[ "$orig" = / ] || skip "the daemon's cpu cgroup is $orig, not the root: the move is not taken here"
echo "the daemon's cpu cgroup: $orig, under $mnt"
own="$mnt/corecap-scale-$OSD_PID"
bench=("$REFBENCH" -p "$OSD_PORT" --no-progress -t 16 -b 1 -d 4 write)

# wait_moved: until the daemon is in its own cgroup, 10 s at most.
wait_moved() {
	local i
	for i in $(seq 1 100); do
		[ "$(cpu_cgroup "$OSD_PID")" = "/corecap-scale-$OSD_PID" ] && return 0
		[ "$(awk -F: '$1 == "0" { print $3 }' "/proc/$OSD_PID/cgroup")" = "/corecap-scale-$OSD_PID" ] && return 0
		sleep 0.1
	done
	echo "FAIL: the daemon was never moved:"; cat "/proc/$OSD_PID/cgroup"; exit 1
}
in_root() { [ "$(cpu_cgroup "$OSD_PID")" = / ] || [ "$(awk -F: '$1 == "0" { print $3 }' "/proc/$OSD_PID/cgroup")" = / ]; }

# One fractional point: moved, the quota set, then all put back.
"$CORECAP" scale -p "$OSD_PID" --cores 1.5 -o "$WORK/q" --json --record-opt=--no-kernel -- "${bench[@]}" \
	>"$WORK/q.json" 2>"$WORK/q.err" &
sc=$!
track "$sc"
wait_moved
sleep 0.5
expect_eq "during the point: the daemon's own cgroup holds the quota of 1.5 CPUs" "$want" "$(quota_of)"
expect_eq "... and every thread of the daemon" "$(ls "/proc/$OSD_PID/task" | wc -l)" \
	"$(grep -c . "$own/tasks" 2>/dev/null || grep -c . "$own/cgroup.threads")"
rc=0
wait "$sc" || rc=$?
expect_eq "the scale ends" 0 "$rc"
[ "$rc" = 0 ] || cat "$WORK/q.err"
expect_true "after it the daemon is back in the root cgroup" in_root
expect_true "... and its cgroup is removed" test ! -e "$own"
expect_eq "the point's quota" 1.5 "$(json "$WORK/q.json" "d['points'][0]['quota_cpus']")"
expect_eq "... as the point's run recorded it (quota over period, its cgroup)" "1.5 /corecap-scale-$OSD_PID" \
	"$(json "$WORK/q/cores-1.5/manifest.json" "'%g %s' % (d['machine']['daemon_cpu_quota_us'] / d['machine']['daemon_cpu_period_us'], d['machine']['daemon_cpu_quota_cgroup'])")"
"$CORECAP" report --json "$WORK/q/cores-1.5" >"$WORK/q.report.json" 2>/dev/null
expect_eq "... and as its report's diagnosis reads it" 1.5 \
	"$(json "$WORK/q.report.json" "round(d['diagnosis']['cores']['quota'], 2)")"
expect_calc "the daemon ran at most about its quota ($(json "$WORK/q.json" "d['points'][0]['daemon_cores']") cores)" \
	"$(json "$WORK/q.json" "d['points'][0]['daemon_cores']") <= 1.6"
expect_alive "$OSD_PID"

# kill -9 during a fractional point: the guard puts everything back.
"$CORECAP" scale -p "$OSD_PID" --cores 1.5 -o "$WORK/k" --record-opt=--no-kernel -- "${bench[@]}" \
	>"$WORK/k.out" 2>&1 &
sc=$!
track "$sc"
wait_moved
kill -KILL "$sc"
wait "$sc" 2>/dev/null || true
for i in $(seq 1 50); do in_root && [ ! -e "$own" ] && break; sleep 0.1; done
expect_true "kill -9: the guard puts the daemon back in the root cgroup" in_root
expect_true "kill -9: ... and removes its cgroup" test ! -e "$own"
expect_alive "$OSD_PID"
for i in $(seq 1 100); do pgrep -f "[r]ecord -q -p $OSD_PID -o $WORK/k" >/dev/null || break; sleep 0.1; done

# A cgroup of that name made by someone else: never used.
mkdir "$own"
rc=0
"$CORECAP" scale -p "$OSD_PID" --cores 1.5 -o "$WORK/e" -d 1 >/dev/null 2>"$WORK/e.err" || rc=$?
expect_eq "an existing corecap-scale-PID: exit 1" 1 "$rc"
expect_true "... naming it and why ($(cat "$WORK/e.err"))" \
	grep -q "corecap-scale-$OSD_PID cannot be made: File exists" "$WORK/e.err"
expect_true "... the daemon not moved" in_root
expect_true "... nothing created" test ! -e "$WORK/e"
rmdir "$own"
stop_refosd
finish
