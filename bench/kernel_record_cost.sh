#!/usr/bin/env bash
# kernel_record_cost: what one kernel-event record costs the thread that
# hits the tracepoint, and how much of it is the tracepoint and its tid
# filter and how much the sample written to the ring. A futex_loop
# workload (bench/futex_loop.c: `wake`, two futex records per iteration;
# `pingpong`, switches, wakings and futex calls) runs throughout while
# three configurations take turns, in rotated order, ROUNDS times:
#   off     nothing recorded;
#   count   perf stat -a counts the collector's four tracepoints with the
#           collector's tid filters (hits and filters, no sample written);
#   on      corecap record --kernel --no-trace (what the collector does).
# Over each span (its edges trimmed by 0.2 s; the span is the record's
# window for `on`, since a recorder's start-up and teardown would count
# as recorded) it takes the workload's CPU time per
# iteration; the medians give ns per record = (on - off) / (records per
# iteration), split into the counting part (count - off) and the samples'
# (on - count). The records per iteration come from the run's manifest.
# CPU time per iteration is steadier than throughput on a shared machine,
# but a loaded host still moves it: use several rounds.
#
# usage: bench/kernel_record_cost.sh [-B BUILD_DIR] [-m wake|pingpong|both]
#                                    [-n ROUNDS] [-s SECONDS]
# A benchmark, not a test: it exits 0 whatever the figures (docs/events.md,
# "Kernel events: cost"). Needs root and perf (linux-perf).
set -uo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${CORECAP_BUILD:-$src/build}
modes="wake pingpong"
rounds=5
secs=2
usage() {
	echo "usage: $0 [-B BUILD_DIR] [-m wake|pingpong|both] [-n ROUNDS] [-s SECONDS]" >&2
	exit 2
}
while getopts "B:m:n:s:" o; do
	case $o in
	B) build=$OPTARG ;;
	m) case $OPTARG in wake | pingpong) modes=$OPTARG ;; both) ;; *) usage ;; esac ;;
	n) rounds=$OPTARG ;;
	s) secs=$OPTARG ;;
	*) usage ;;
	esac
done
for v in "$rounds" "$secs"; do
	case $v in '' | *[!0-9]* | 0) echo "kernel_record_cost: '$v' is not a positive number" >&2; usage ;; esac
done
corecap="$build/cli/corecap"
loop="$build/bench/futex_loop"
for f in "$corecap" "$loop"; do
	[ -x "$f" ] || { echo "kernel_record_cost: cannot find '$f' (build first, or -B BUILD_DIR)" >&2; exit 1; }
done
command -v perf >/dev/null || { echo "kernel_record_cost: 'perf' is not installed (linux-perf)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "kernel_record_cost: needs root (kernel events, perf stat -a)" >&2; exit 1; }

work=$(mktemp -d /tmp/kernel-record-cost-XXXXXX)
lp=""
cleanup() {
	[ -n "$lp" ] && kill "$lp" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
mono() { python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))'; }

# The collector's filters (collector/kernel_events.c, build_filter) for the tids in $tids.
tid_or() {
	local f=$1 e="" t
	for t in $tids; do e="$e${e:+||}$f==$t"; done
	echo "($e)"
}

for mode in $modes; do
	total=$(((rounds * 3) * (secs + 3) + 5))
	"$loop" "$mode" "$total" >"$work/loop.out" &
	lp=$!
	sleep 0.5
	tids=$(ls "/proc/$lp/task" | tr '\n' ' ')
	: >"$work/spans"
	for r in $(seq 1 "$rounds"); do
		case $((r % 3)) in
		1) order="off count on" ;;
		2) order="count on off" ;;
		0) order="on off count" ;;
		esac
		for c in $order; do
			case $c in
			off)
				a=$(mono)
				sleep "$secs"
				echo "off $a $(mono) 0" >>"$work/spans"
				;;
			count)
				a=$(mono)
				perf stat -a -o "$work/stat.out" \
					-e sched:sched_switch --filter "$(tid_or prev_pid)||$(tid_or next_pid)" \
					-e sched:sched_waking --filter "$(tid_or pid)" \
					-e syscalls:sys_enter_futex --filter "$(tid_or common_pid)" \
					-e syscalls:sys_exit_futex --filter "$(tid_or common_pid)" \
					-- sleep "$secs" >/dev/null 2>"$work/stat.err" ||
					{ echo "kernel_record_cost: perf stat failed: $(tail -n 1 "$work/stat.err")" >&2; exit 1; }
				# perf stat counts from after its start-up (trimmed: 0.5 s more)
				echo "count $((a + 500000000)) $(mono) 0" >>"$work/spans"
				;;
			on)
				rm -rf "$work/run"
				"$corecap" record -p "$lp" -o "$work/run" --no-trace --no-ceph -q --kernel -- sleep "$secs" \
					>/dev/null 2>"$work/rec.err" ||
					{ echo "kernel_record_cost: record failed: $(tail -n 1 "$work/rec.err")" >&2; exit 1; }
				python3 - "$work/run/manifest.json" >>"$work/spans" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
k = d["kernel_events"]
print("on", d["window"]["start_ns"], d["window"]["end_ns"], sum(k["records"].values()), k["lost"]["total"])
PY
				;;
			esac
		done
	done
	kill "$lp" 2>/dev/null
	wait "$lp" 2>/dev/null
	lp=""
	python3 - "$mode" "$work/loop.out" "$work/spans" <<'PY'
import bisect, statistics, sys
mode = sys.argv[1]
pts = [tuple(map(int, l.split())) for l in open(sys.argv[2]) if len(l.split()) == 3]
ts = [p[0] for p in pts]
TRIM = 200000000
per = {"off": [], "count": [], "on": []}
rec = []
lost = 0
for l in open(sys.argv[3]):
    f = l.split()
    c, a, b, n = f[0], int(f[1]) + TRIM, int(f[2]) - TRIM, int(f[3])
    i, j = bisect.bisect_left(ts, a), bisect.bisect_right(ts, b) - 1
    if j <= i:
        continue
    it = pts[j][1] - pts[i][1]
    if it <= 0:
        continue
    per[c].append((pts[j][2] - pts[i][2]) / it)
    if c == "on":
        lost += int(f[4])
        # records over the window's iterations (untrimmed window)
        i0 = bisect.bisect_left(ts, a - TRIM)
        j0 = bisect.bisect_right(ts, b + TRIM) - 1
        if j0 > i0 and pts[j0][1] > pts[i0][1]:
            rec.append(n / (pts[j0][1] - pts[i0][1]))
med = {c: statistics.median(v) for c, v in per.items() if v}
if len(med) < 3 or not rec:
    print("kernel_record_cost: %s: too few spans measured" % mode)
    sys.exit(0)
r = statistics.median(rec)
print("%s: CPU ns per iteration (medians of %d rounds): off %.0f, count %.0f, on %.0f; %.2f records per iteration%s" %
      (mode, min(len(v) for v in per.values()), med["off"], med["count"], med["on"], r,
       "; lost %d (the figure is low)" % lost if lost else ""))
print("%s: ns per record: %.0f, of which tracepoints and filters (count - off) %.0f, samples written (on - count) %.0f" %
      (mode, (med["on"] - med["off"]) / r, (med["count"] - med["off"]) / r, (med["on"] - med["count"]) / r))
PY
done
exit 0
