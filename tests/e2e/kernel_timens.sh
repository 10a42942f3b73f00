#!/usr/bin/env bash
# Kernel events from a time namespace (timens.h): the kernel stamps its
# records in its own CLOCK_MONOTONIC while the daemon's LTTng events and
# the collector's clock carry their namespace's offset. Two cases, each a
# refosd in a time namespace 37 s ahead of the machine's:
#  A. recorded from another namespace with the same offset (a collector in
#     the daemon's container, or a test host of docs/hosts.md): the kernel
#     records are moved by the collector's offset (manifest
#     kernel_events.clock_offset_ns 37 s);
#  B. recorded from the machine's own namespace: the run's clock is the
#     daemon's (said on stderr), the collector's times moved by 37 s.
# Each must give the ops' critical paths a daemon without namespaces gets:
# every op has a path that sums to its latency, and the path has the
# daemon's CPU time on it with no more than 10% of the latency left as
# queue. Before the offset was applied (case A) the path was all queue
# (73.9 us of 73.9) with 1563 contradicted scheduler transitions.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
. "$CORECAP_SRC/tests/e2e/kernel_analysis_lib.sh"
need_sessiond
need_refosd
[ "$(id -u)" -eq 0 ] || skip "time namespaces and kernel events need root"
[ -e /proc/self/timens_offsets ] ||
	skip "this kernel has no time namespaces (CONFIG_TIME_NS: no /proc/self/timens_offsets)"
unshare --time --monotonic=1 --fork true 2>"$WORK/unshare.err" ||
	skip "cannot make a time namespace here: $(cat "$WORK/unshare.err")"

ahead=(unshare --time --monotonic=37 --fork)

# stop_daemon: unshare(1) waits for its child with SIGTERM ignored, so the
# daemon itself is stopped, and then unshare.
stop_daemon() {
	kill -TERM "$daemon" 2>/dev/null || true
	wait "$OSD_PID" 2>/dev/null || true
}

# check_run NAME: the report of $WORK/NAME has the ops' critical paths.
check_run() {
	local j="$WORK/$1.json"
	"$CORECAP" report --json "$WORK/$1" >"$j" 2>"$WORK/$1.report.err" ||
		{ echo "FAIL: corecap report $1:"; cat "$WORK/$1.report.err"; exit 1; }
	expect_eq "$1: the kernel records moved by 37 s" 37000000000 \
		"$(json "$WORK/$1/manifest.json" "d['kernel_events']['clock_offset_ns']")"
	expect_calc "$1: ops traced ($(json "$j" "d['ops']['count']"))" "$(json "$j" "d['ops']['count']") >= 1000"
	expect_eq "$1: every op has a critical path" 0 \
		"$(json "$j" "d['ops']['critical_path_conservation']['ops_without_path']")"
	expect_eq "$1: each path sums to its op's latency" 0 \
		"$(json "$j" "d['ops']['critical_path_conservation']['violations']")"
	local cpu queue lat
	cpu=$(json "$j" "d['ops']['by_type']['write']['critical_path_us']['cpu']")
	queue=$(json "$j" "d['ops']['by_type']['write']['critical_path_us']['queue']")
	lat=$(json "$j" "d['ops']['by_type']['write']['latency_us']['avg']")
	echo "$1: write latency $lat us: path cpu $cpu, queue $queue"
	expect_calc "$1: the daemon's CPU is on the path ($cpu us)" "$cpu >= 5"
	expect_calc "$1: little left as queue ($queue of $lat us)" "$queue <= 0.1 * $lat"
}

# A: the daemon and the collector each in a namespace 37 s ahead.
launch_refosd a "${ahead[@]}" "$CORECAP" run -- "$REFOSD" --port 0 --debug 0
daemon=$(pgrep -P "$OSD_PID")
expect_eq "A: the daemon's clock is 37 s ahead" "37 0" \
	"$(awk '$1 == "monotonic" { print $2, $3 }' "/proc/$daemon/timens_offsets")"
need_kernel_record "$daemon"
"${ahead[@]}" "$CORECAP" record -q -p "$daemon" -o "$WORK/a" -- \
	"$REFBENCH" -p "$OSD_PORT" --no-progress -t 4 -b 1 -d 2 write >"$WORK/a.out" 2>&1 ||
	{ echo "FAIL: corecap record (A) failed:"; cat "$WORK/a.out"; exit 1; }
check_run a
stop_daemon

# B: the daemon 37 s ahead, the collector in the machine's namespace.
launch_refosd b "${ahead[@]}" "$CORECAP" run -- "$REFOSD" --port 0 --debug 0
daemon=$(pgrep -P "$OSD_PID")
"$CORECAP" record -p "$daemon" -o "$WORK/b" -- \
	"$REFBENCH" -p "$OSD_PORT" --no-progress -t 4 -b 1 -d 2 write >"$WORK/b.out" 2>&1 ||
	{ echo "FAIL: corecap record (B) failed:"; cat "$WORK/b.out"; exit 1; }
expect_true "B: record says the run's clock is the daemon's" \
	grep -qE "PID $daemon is in a time namespace whose monotonic clock is \+37\.0+ s from corecap's" "$WORK/b.out"
check_run b
stop_daemon
finish
