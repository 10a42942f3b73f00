#!/usr/bin/env bash
# kernel_prog_cost: the kernel source's eBPF programs' own time, per call
# and per iteration of a futex_loop workload (bench/futex_loop.c), this
# build's collector against another build's (-O, e.g. main's before a
# change) in alternating rounds of one machine (issue 43, item 4). A
# futex_loop runs throughout; each round records it once with each
# build (`corecap record --kernel --kernel-via bpf --no-trace`, in
# rotated order) with kernel.bpf_stats_enabled=1 for that run alone
# (restored after it), and reads each of the collector's programs' calls
# and kernel time between the two bpftool views around `sleep SECONDS`
# (bench_lib.sh's bench_bpf_wrapper). bpf_stats' figures do not depend
# on the machine's other tenants the way throughput does, though a busy
# host still moves them (cache misses): use several rounds.
#
#   new   this build's corecap (-B)
#   old   the other build's (-O)
#
# Per run: each program's calls per iteration and ns per call, all
# programs' ns per iteration, and the workload's CPU per iteration over
# the same span (its share). Then the medians, and each build's ns per
# call round by round.
#
#   -m MODE  futex_loop's mode: pingpong (default; two threads on CPU 0),
#            pingpong2 (the same on CPUs 0 and 1: the hooks run on both
#            CPUs in turn) or both
#
# usage: bench/kernel_prog_cost.sh [-B BUILD_DIR] -O OLD_BUILD_DIR
#                                  [-m pingpong|pingpong2|both] [-n ROUNDS]
#                                  [-s SECONDS]
# A benchmark, not a test: it exits 0 whatever the figures (they are in
# docs/methodology.md, "What recording costs"). Needs root and bpftool.
set -uo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${CORECAP_BUILD:-$src/build}
old_build=""
modes="pingpong"
rounds=4
secs=3
usage() {
	echo "usage: $0 [-B BUILD_DIR] -O OLD_BUILD_DIR [-m pingpong|pingpong2|both] [-n ROUNDS] [-s SECONDS]" >&2
	exit 2
}
while getopts "B:O:m:n:s:" o; do
	case $o in
	B) build=$OPTARG ;;
	O) old_build=$OPTARG ;;
	m) case $OPTARG in pingpong | pingpong2) modes=$OPTARG ;; both) modes="pingpong pingpong2" ;; *) usage ;; esac ;;
	n) rounds=$OPTARG ;;
	s) secs=$OPTARG ;;
	*) usage ;;
	esac
done
[ -n "$old_build" ] || usage
for v in "$rounds" "$secs"; do
	case $v in '' | *[!0-9]* | 0) echo "kernel_prog_cost: '$v' is not a positive number" >&2; usage ;; esac
done
prog=kernel_prog_cost
. "$src/bench/bench_lib.sh"
corecap="$build/cli/corecap"
old_corecap="$old_build/cli/corecap"
loop="$build/bench/futex_loop"
bench_need "$corecap" "$old_corecap" "$loop"
[ "$(id -u)" = 0 ] || { echo "$prog: needs root (kernel events, bpf_stats)" >&2; exit 1; }
command -v bpftool >/dev/null || { echo "$prog: 'bpftool' is not installed" >&2; exit 1; }
[ -w /proc/sys/kernel/bpf_stats_enabled ] || { echo "$prog: kernel.bpf_stats_enabled cannot be set here" >&2; exit 1; }

work=$(mktemp -d /tmp/kernel-prog-cost-XXXXXX)
lp="" stats_old=""
cleanup() {
	[ -n "$stats_old" ] && echo "$stats_old" >/proc/sys/kernel/bpf_stats_enabled
	[ -n "$lp" ] && kill "$lp" 2>/dev/null && wait "$lp" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
bench_bpf_wrapper "$work/wrap.sh"

# run CFG N: one recorded span; appends its row (JSON) to $work/rows.
run() {
	local cfg=$1 n=$2 cc=$corecap rd="$work/run-$1-$2"
	[ "$cfg" = old ] && cc=$old_corecap
	stats_old=$(cat /proc/sys/kernel/bpf_stats_enabled)
	echo 1 >/proc/sys/kernel/bpf_stats_enabled
	"$cc" record -q -p "$lp" -o "$rd" --no-trace --no-ceph --kernel --kernel-via bpf -- \
		"$work/wrap.sh" "$work/bpf-$cfg-$n" sleep "$secs" >/dev/null 2>"$work/rec.err" ||
		echo "$prog: record ($cfg) failed: $(tail -n 1 "$work/rec.err")" >&2
	echo "$stats_old" >/proc/sys/kernel/bpf_stats_enabled
	stats_old=""
	python3 - "$cfg" "$n" "$work/bpf-$cfg-$n" "$work/loop.out" "$rd/manifest.json" "$src/bench" >>"$work/rows" <<'PY'
import bisect, json, sys
cfg, n, bpf, loop, manifest = sys.argv[1:6]
sys.path.insert(0, sys.argv[6])
from bench_rows import bpf_programs, bpf_span_ns
row = {"cfg": cfg, "n": int(n), "load": open("/proc/loadavg").read().split()[0]}
pts = [tuple(map(int, l.split())) for l in open(loop) if len(l.split()) == 3]
ts = [p[0] for p in pts]
span = bpf_span_ns(bpf)
if span:
    # the workload's lines (every 100 ms) inside the span
    i, j = bisect.bisect_left(ts, span[0]), bisect.bisect_right(ts, span[1]) - 1
    if j > i and pts[j][1] > pts[i][1]:
        it = pts[j][1] - pts[i][1]
        # iterations over the whole span, at the rate measured inside it
        row["iters"] = it * (span[1] - span[0]) / (pts[j][0] - pts[i][0])
        row["cpu_ns_iter"] = (pts[j][2] - pts[i][2]) / it
st = bpf_programs(bpf)
if st and row.get("iters"):
    row["bpf"] = {nm: {"calls_iter": v[0] / row["iters"], "ns_call": v[1] / v[0] if v[0] else 0,
                       "ns_iter": v[1] / row["iters"]} for nm, v in st.items()}
try:
    k = json.load(open(manifest)).get("kernel_events") or {}
    row["lost"] = k["lost"]["total"]
except (OSError, ValueError, KeyError):
    pass
print(json.dumps(row))
PY
	rm -rf "$rd"
	python3 -c '
import json, sys
r = json.loads(sys.argv[1])
b = r.get("bpf", {})
print("  %-4s %2d  %s  all %.0f ns/iter of %.0f (load %s)" % (r["cfg"], r["n"], "  ".join(
    "%s %.2f x %.0f" % (k, v["calls_iter"], v["ns_call"]) for k, v in sorted(b.items()) if v["calls_iter"] >= 0.01),
    sum(v["ns_iter"] for v in b.values()), r.get("cpu_ns_iter", 0), r["load"]))' "$(tail -n 1 "$work/rows")"
}

for mode in $modes; do
	total=$((rounds * 2 * (secs + 4) + 10))
	"$loop" "$mode" "$total" >"$work/loop.out" &
	lp=$!
	sleep 0.5
	: >"$work/rows"
	echo "kernel_prog_cost: futex_loop $mode, $rounds rounds of (new old) in rotated order, $secs s each; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "  (per program: calls per iteration x ns per call; all programs' ns per iteration of the workload's CPU ns per iteration)"
	bench_rounds "$rounds" new old
	kill "$lp" 2>/dev/null
	wait "$lp" 2>/dev/null
	lp=""
	python3 - "$mode" "$work/rows" "$src/bench" <<'PY'
import sys
sys.path.insert(0, sys.argv[3])
from bench_rows import load, med
mode = sys.argv[1]
by, _ = load(sys.argv[2], lambda r: "bpf" in r)
names = sorted({k for rs in by.values() for r in rs.values() for k in r["bpf"]})
for cfg in ("new", "old"):
    rs = by.get(cfg, {})
    if not rs:
        print("%s %s: no run measured" % (mode, cfg))
        continue
    tot = {n: sum(v["ns_iter"] for v in r["bpf"].values()) for n, r in rs.items()}
    print("%s %s (median of %d runs): all programs %.0f ns per iteration, %.1f%% of the workload's CPU per iteration; lost %d" % (
        mode, cfg, len(rs), med(list(tot.values())),
        100 * med([tot[n] / r["cpu_ns_iter"] for n, r in rs.items() if r.get("cpu_ns_iter")]),
        sum(r.get("lost", 0) for r in rs.values())))
    for nm in names:
        v = {n: r["bpf"][nm] for n, r in rs.items() if nm in r["bpf"]}
        if not v or med([x["calls_iter"] for x in v.values()]) < 0.01:
            continue
        print("  %-12s %5.2f calls/iter  %4.0f ns/call  %5.0f ns/iter;  ns/call by round: %s" % (
            nm, med([x["calls_iter"] for x in v.values()]), med([x["ns_call"] for x in v.values()]),
            med([x["ns_iter"] for x in v.values()]),
            " ".join("%d:%.0f" % (n, v[n]["ns_call"]) for n in sorted(v))))
new, old = by.get("new", {}), by.get("old", {})
pairs = sorted(set(new) & set(old))
for nm in names:
    r = [new[n]["bpf"][nm]["ns_call"] / old[n]["bpf"][nm]["ns_call"] for n in pairs
         if nm in new[n]["bpf"] and nm in old[n]["bpf"] and old[n]["bpf"][nm]["ns_call"] > 0
         and old[n]["bpf"][nm]["calls_iter"] >= 0.01]
    if r:
        print("%s %-12s new/old ns per call, by round: %s; median %.3f" % (
            mode, nm, " ".join("%.3f" % x for x in r), med(r)))
PY
done
exit 0
