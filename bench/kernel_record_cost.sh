#!/usr/bin/env bash
# kernel_record_cost: what one kernel-event record costs the thread that
# hits the tracepoint, and how much of it is the tracepoint and its tid
# filter and how much the sample written to the ring. A futex_loop
# workload (bench/futex_loop.c: `wake`, two futex records per iteration;
# `pingpong`, switches, wakings and futex calls) runs throughout while
# four configurations take turns, in rotated order, ROUNDS times:
#   off     nothing recorded;
#   count   perf stat -a counts the collector's four tracepoints with the
#           collector's tid filters (hits and filters, no sample written);
#   on      corecap record --kernel --kernel-via perf --no-trace (the
#           collector through perf_event_open);
#   onbpf   the same with --kernel-via bpf (the collector's eBPF
#           producer: everything recorded and written as
#           `on` does, stacks included);
#   bpf     the same events from eBPF programs on the raw tracepoints,
#           filtered in the kernel to the workload's process and written
#           as 32-byte records to a BPF ring buffer (bench/bpf_record.c
#           and bpf_record.bpf.c, built here): what an eBPF producer
#           would cost. Left out, with a line saying why, without clang,
#           bpftool and libbpf-dev (apt-get install bpftool libbpf-dev),
#           BTF or x86_64.
# Over each span (its edges trimmed by 0.2 s; the span is the record's
# window for `on`, since a recorder's start-up and teardown would count
# as recorded) it takes the workload's CPU time per
# iteration; the medians give ns per record = (on - off) / (records per
# iteration), split into the counting part (count - off) and the samples'
# (on - count), and bpf's own (bpf - off) / (its records per iteration).
# The records per iteration come from the run's manifest and bpf_record's
# count.
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

prog=kernel_record_cost
. "$src/bench/bench_lib.sh"
work=$(mktemp -d /tmp/kernel-record-cost-XXXXXX)
lp=""
cleanup() {
	[ -n "$lp" ] && kill "$lp" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

bpf_why=$(bench_build_bpf "$work/bpf")
# rotate K WORD...: the words from the K-th on (modulo their count), then the first K.
rotate() {
	local k=$1 i j out=""
	shift
	for ((i = 0; i < $#; i++)); do
		j=$(((i + k) % $# + 1))
		out="$out${out:+ }${!j}"
	done
	echo "$out"
}
configs="off count on onbpf bpf"
if [ -n "$bpf_why" ]; then
	echo "kernel_record_cost: the bpf configuration is left out: $bpf_why"
	configs="off count on onbpf"
fi
mono() { python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))'; }

# The collector's filters (collector/kernel/kernel_perf.c, build_filter) for the tids in $tids.
tid_or() {
	local f=$1 e="" t
	for t in $tids; do e="$e${e:+||}$f==$t"; done
	echo "($e)"
}

for mode in $modes; do
	total=$(((rounds * 5) * (secs + 3) + 5))
	"$loop" "$mode" "$total" >"$work/loop.out" &
	lp=$!
	sleep 0.5
	tids=$(ls "/proc/$lp/task" | tr '\n' ' ')
	: >"$work/spans"
	for r in $(seq 1 "$rounds"); do
		order=$(rotate $((r - 1)) $configs)
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
			on | onbpf)
				rm -rf "$work/run"
				"$corecap" record -p "$lp" -o "$work/run" --no-trace --no-ceph -q --kernel \
					--kernel-via "$([ "$c" = on ] && echo perf || echo bpf)" -- sleep "$secs" \
					>/dev/null 2>"$work/rec.err" ||
					{ echo "kernel_record_cost: record failed: $(tail -n 1 "$work/rec.err")" >&2; exit 1; }
				python3 - "$work/run/manifest.json" "$c" >>"$work/spans" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
k = d["kernel_events"]
print(sys.argv[2], d["window"]["start_ns"], d["window"]["end_ns"], sum(k["records"].values()), k["lost"]["total"])
PY
				;;
			bpf)
				"$work/bpf/bpf_record" "$lp" "$secs" >"$work/bpf.out" 2>&1 ||
					{ echo "kernel_record_cost: bpf_record failed: $(tail -n 1 "$work/bpf.out")" >&2; exit 1; }
				awk '/^attached/ { a = $2 } /^detached/ { print "bpf", a, $2, $4, $6 }' "$work/bpf.out" >>"$work/spans"
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
per = {"off": [], "count": [], "on": [], "onbpf": [], "bpf": []}
rec = {"on": [], "onbpf": [], "bpf": []}
lost = {"on": 0, "onbpf": 0, "bpf": 0}
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
    if c in rec:
        lost[c] += int(f[4])
        # records over the window's iterations (untrimmed window)
        i0 = bisect.bisect_left(ts, a - TRIM)
        j0 = bisect.bisect_right(ts, b + TRIM) - 1
        if j0 > i0 and pts[j0][1] > pts[i0][1]:
            rec[c].append(n / (pts[j0][1] - pts[i0][1]))
med = {c: statistics.median(v) for c, v in per.items() if v}
if any(c not in med for c in ("off", "count", "on")) or not rec["on"]:
    print("kernel_record_cost: %s: too few spans measured" % mode)
    sys.exit(0)
r = statistics.median(rec["on"])
def lost_note(c):
    return "; %s lost %d records (its figure is low)" % (c, lost[c]) if lost[c] else ""
print("%s: CPU ns per iteration (medians of %d rounds): off %.0f, count %.0f, on %.0f%s; %.2f records per iteration%s%s" %
      (mode, min(len(per[c]) for c in med), med["off"], med["count"], med["on"],
       ", bpf %.0f" % med["bpf"] if "bpf" in med else "", r, lost_note("on"), lost_note("bpf")))
print("%s: ns per record: %.0f, of which tracepoints and filters (count - off) %.0f, samples written (on - count) %.0f" %
      (mode, (med["on"] - med["off"]) / r, (med["count"] - med["off"]) / r, (med["on"] - med["count"]) / r))
if "onbpf" in med and rec["onbpf"]:
    rc = statistics.median(rec["onbpf"])
    print("%s: the collector's eBPF producer (%.2f records per iteration): ns per record %.0f, %.2f of the perf samples' cost%s" %
          (mode, rc, (med["onbpf"] - med["off"]) / rc, ((med["onbpf"] - med["off"]) / rc) / ((med["on"] - med["off"]) / r), lost_note("onbpf")))
if "bpf" in med and rec["bpf"]:
    rb = statistics.median(rec["bpf"])
    print("%s: eBPF ring buffer instead (%.2f records per iteration): ns per record %.0f, %.2f of the perf samples' cost" %
          (mode, rb, (med["bpf"] - med["off"]) / rb, ((med["bpf"] - med["off"]) / rb) / ((med["on"] - med["off"]) / r)))
PY
done
exit 0
