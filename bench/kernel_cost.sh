#!/usr/bin/env bash
# kernel_cost: what `corecap record` costs a daemon at its defaults, and
# how much of it is the kernel events, and how large the run it leaves is
# (issue 43, items 4 and 7). Five configurations, each a fresh daemon (or,
# on Ceph, a fresh pool of one cluster) under the same benchmark:
#   bare   the benchmark alone, nothing recorded;
#   rec    `corecap record` with its defaults (kernel events, the trace,
#          Ceph's OpTracker history on a ceph-osd);
#   wall   `corecap record --wallclock` (its default rate), otherwise the
#          defaults: with kernel events, the kernel's samplers (cpu-clock
#          samples and the off-CPU task iterator's rounds), no thread
#          stopped; the sampler the run used is printed;
#   nok    `corecap record --no-kernel`, otherwise the defaults;
#   stats  `rec` again with kernel.bpf_stats_enabled=1 for that run alone
#          (restored after it): each eBPF program's calls and kernel time
#          between the benchmark's start and its end (bpftool prog show,
#          run_cnt and run_time_ns, read by a wrapper around the
#          benchmark, inside the window). The counting itself costs the
#          programs two clock reads per call, so its IOPS are not those of
#          `rec` and are shown apart. Left out, with a line, without root
#          or bpftool.
# Rounds run the configurations in rotated order (round r starts with the
# r-th), after one warm-up run that is not counted. Nothing is pinned: the
# collector on the daemon's CPUs is part of what the defaults cost (issue
# 43 item 6), and on a 2-CPU machine a pinned daemon would measure the
# pinning. For each run: IOPS (ratio to the same round's bare run), the
# daemon's CPU per op (utime + stime from /proc over the run, the window's
# setup and teardown included: what a user pays), the collector's CPU
# (manifest collector.cpu_user_s + cpu_sys_s, in cores over the window and
# per op), the run directory's bytes per op (total and by file:
# kernel/events.bin, kernel/stacks.bin, trace/, ceph/, the rest) and the
# kernel records per op by kind (manifest kernel_events.records). The
# summary gives medians and, for the IOPS ratios, the sign test's interval
# of the median (bench_interval); the per-record cost from bpf_stats does
# not depend on the machine's other tenants the way IOPS do.
#
#   -T refosd  (default) a fresh refosd per run, refbench -t T -b 1 write
#              for S seconds (defaults -t 16, -s 5)
#   -T ceph    one bare one-node Ceph cluster on memstore
#              (scripts/ceph-minicluster), rados bench S write -b 1 -t T
#              on a fresh pool per run (defaults -t 10, -s 10)
#   -K         keep the work directory (the runs) and print its path
#   -O BUILD   adds the configuration `old`: `rec` with another build's
#              corecap (e.g. main's, before a change), in the same rotation,
#              and, with `stats`, `ostats`: `stats` with that corecap (the
#              per-op cost of its programs against this build's, from
#              alternating runs of one machine)
#   -C CFGS    only these configurations (e.g. "rec old"; default: all)
#   -X OPTS    adds the configuration `xopt`: `rec` with these record
#              options too (e.g. "--oncpu-hz 0": what one part of the
#              defaults costs, in the same rotation)
#
# usage: bench/kernel_cost.sh [-B BUILD_DIR] [-T refosd|ceph] [-n ROUNDS]
#                             [-s SECONDS] [-t CONCURRENCY] [-p PORT_BASE] [-K]
#                             [-O OLD_BUILD_DIR] [-C CFGS] [-X OPTS]
# A benchmark, not a test: it exits 0 whatever the figures (they are in
# docs/methodology.md, "What recording costs"). Needs root for the kernel
# events and bpf_stats.
set -uo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${CORECAP_BUILD:-$src/build}
target=refosd
rounds=6
secs=""
conc=""
port_base=54000
keep=0
old_build=""
only=""
xopts=""
usage() {
	echo "usage: $0 [-B BUILD_DIR] [-T refosd|ceph] [-n ROUNDS] [-s SECONDS] [-t CONCURRENCY] [-p PORT_BASE] [-K] [-O OLD_BUILD_DIR] [-C CFGS] [-X OPTS]" >&2
	exit 2
}
while getopts "B:T:n:s:t:p:KO:C:X:" o; do
	case $o in
	B) build=$OPTARG ;;
	T) case $OPTARG in refosd | ceph) target=$OPTARG ;; *) usage ;; esac ;;
	n) rounds=$OPTARG ;;
	s) secs=$OPTARG ;;
	t) conc=$OPTARG ;;
	p) port_base=$OPTARG ;;
	K) keep=1 ;;
	O) old_build=$OPTARG ;;
	C) only=$OPTARG ;;
	X) xopts=$OPTARG ;;
	*) usage ;;
	esac
done
case $target in
refosd) conc=${conc:-16} secs=${secs:-5} ;;
ceph) conc=${conc:-10} secs=${secs:-10} ;;
esac
for v in "$rounds" "$secs" "$conc" "$port_base"; do
	case $v in '' | *[!0-9]* | 0) echo "kernel_cost: '$v' is not a positive number" >&2; usage ;; esac
done
corecap="$build/cli/corecap"
refosd="$build/tests/refosd/refosd"
refbench="$build/tests/refosd/refbench"
mc="$src/scripts/ceph-minicluster"
prog=kernel_cost
. "$src/bench/bench_lib.sh"
bench_need "$corecap" "$refosd" "$refbench"
cfgs="bare rec wall nok stats"
stats_why=""
if [ "$(id -u)" != 0 ]; then
	echo "kernel_cost: not root: the recorded runs may have no kernel events" >&2
	stats_why="not root"
elif ! command -v bpftool >/dev/null; then
	stats_why="'bpftool' is not installed"
elif [ ! -w /proc/sys/kernel/bpf_stats_enabled ]; then
	stats_why="kernel.bpf_stats_enabled cannot be set here"
fi
if [ -n "$stats_why" ]; then
	echo "kernel_cost: the stats configuration is left out: $stats_why" >&2
	cfgs="bare rec wall nok"
fi
old_corecap=""
if [ -n "$old_build" ]; then
	old_corecap="$old_build/cli/corecap"
	bench_need "$old_corecap"
	cfgs="$cfgs old"
	[ -z "$stats_why" ] && cfgs="$cfgs ostats"
fi
[ -n "$xopts" ] && cfgs="$cfgs xopt"
if [ -n "$only" ]; then
	for c in $only; do
		case " $cfgs " in *" $c "*) ;; *) echo "kernel_cost: no configuration '$c' here (of: $cfgs)" >&2; exit 2 ;; esac
	done
	cfgs=$only
fi

work=$(mktemp -d /tmp/kernel-cost-XXXXXX)
chmod 755 "$work"
osd="" pid="" stats_old=""
cleanup() {
	[ -n "$stats_old" ] && echo "$stats_old" >/proc/sys/kernel/bpf_stats_enabled
	[ -n "$osd" ] && [ "$target" = refosd ] && kill "$osd" 2>/dev/null && wait "$osd" 2>/dev/null
	[ -e "$work/ceph/.ceph-minicluster" ] && "$mc" stop "$work/ceph" >/dev/null 2>&1
	if [ "$keep" = 1 ]; then echo "kernel_cost: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

if [ "$target" = ceph ]; then
	for t in ceph ceph-osd rados python3; do
		command -v "$t" >/dev/null || { echo "kernel_cost: '$t' is not installed (scripts/install-deps-ceph)" >&2; exit 1; }
	done
	ports=$("$mc" port-base "$port_base")
	"$mc" start "$work/ceph" --port-base "$ports" --objectstore memstore >"$work/ceph.start" 2>&1 ||
		{ echo "kernel_cost: the cluster did not start:" >&2; cat "$work/ceph.start" >&2; exit 1; }
	osd=$(sed -n 's/^osd.0 pid: //p' "$work/ceph.start")
	eval "$("$mc" env "$work/ceph")"
fi

# The daemon's utime + stime (fields 14, 15) in clock ticks.
osd_ticks() { sed 's/.*) //' "/proc/$osd/stat" | awk '{ print $12 + $13 }'; }

# The wrapper around the benchmark in the stats runs (bench_lib.sh): the
# programs' counts before and after it, of the collector's programs.
bench_bpf_wrapper "$work/wrap.sh"

# run CFG N: one run; appends its row (JSON) to $work/rows.
run() {
	local cfg=$1 n=$2 rd="$work/run-$1-$2" pool="kc$2$1" t0 t1 cc=$corecap
	local -a bench opts=() wrap=()
	if [ "$target" = refosd ]; then
		bench_refosd_start
		osd=$pid
		bench=("$refbench" -p "$port" -t "$conc" -b 1 -d "$secs" --no-progress write)
	else
		"$mc" mkpool "$work/ceph" "$pool" >/dev/null 2>&1 || { echo "kernel_cost: mkpool failed" >&2; exit 1; }
		bench=(rados -p "$pool" bench "$secs" write -b 1 -t "$conc" --no-cleanup)
	fi
	case $cfg in
	nok) opts=(--no-kernel) ;;
	wall) opts=(--wallclock) ;;
	xopt) read -r -a opts <<<"$xopts" ;;
	old) cc=$old_corecap ;;
	stats | ostats)
		[ "$cfg" = ostats ] && cc=$old_corecap
		wrap=("$work/wrap.sh" "$work/bpf-$cfg-$n")
		stats_old=$(cat /proc/sys/kernel/bpf_stats_enabled)
		echo 1 >/proc/sys/kernel/bpf_stats_enabled
		;;
	esac
	t0=$(osd_ticks)
	if [ "$cfg" = bare ]; then
		"${bench[@]}" >"$work/bench.out" 2>"$work/bench.err" || echo "kernel_cost: the benchmark failed: $(tail -n 1 "$work/bench.err")" >&2
	else
		"$cc" record -q -p "$osd" -o "$rd" "${opts[@]}" -- "${wrap[@]}" "${bench[@]}" \
			>"$work/rec.out" 2>"$work/rec.err" || echo "kernel_cost: record ($cfg) failed: $(tail -n 1 "$work/rec.err")" >&2
	fi
	t1=$(osd_ticks)
	if [ "$cfg" = stats ] || [ "$cfg" = ostats ]; then
		echo "$stats_old" >/proc/sys/kernel/bpf_stats_enabled
		stats_old=""
	fi
	python3 - "$cfg" "$n" "$rd" "$work/bench.out" "$((t1 - t0))" "$(getconf CLK_TCK)" "$work/bpf-$cfg-$n" "$src/bench" >>"$work/rows" <<'PY'
import json, os, re, sys
cfg, n, rd, bout, ticks, hz, bpf = sys.argv[1:8]
sys.path.insert(0, sys.argv[8])
from bench_rows import bpf_programs
row = {"cfg": cfg, "n": int(n), "load": open("/proc/loadavg").read().split()[0]}
cpu_s = int(ticks) / int(hz)
if cfg == "bare":
    text = open(bout).read()
    m = re.search(r"^Average IOPS:\s*([0-9.]+)", text, re.M)
    o = re.search(r"^Total writes made:\s*([0-9]+)", text, re.M)
    row["iops"] = float(m.group(1)) if m else 0.0
    row["ops"] = int(o.group(1)) if o else 0
else:
    d = json.load(open(os.path.join(rd, "manifest.json")))
    s = (d.get("benchmark") or {}).get("summary") or {}
    row["iops"] = s.get("iops_avg", 0.0)
    row["ops"] = s.get("ops", 0)
    w = d["window"]["duration_s"]
    c = d.get("collector") or {}
    col = c.get("cpu_user_s", 0) + c.get("cpu_sys_s", 0)
    row["collector_cores"] = col / w if w else 0
    row["collector_us_op"] = col * 1e6 / max(row["ops"], 1)
    parts = {"events": 0, "stacks": 0, "trace": 0, "ceph": 0, "other": 0}
    for dp, _, fs in os.walk(rd):
        rel = os.path.relpath(dp, rd)
        for f in fs:
            b = os.lstat(os.path.join(dp, f)).st_size
            if rel == "kernel" and f == "events.bin":
                parts["events"] += b
            elif rel == "kernel" and f == "stacks.bin":
                parts["stacks"] += b
            elif rel.split(os.sep)[0] in ("trace", "ceph"):
                parts[rel.split(os.sep)[0]] += b
            else:
                parts["other"] += b
    ops = max(row["ops"], 1)
    row["bytes_op"] = {k: v / ops for k, v in parts.items()}
    row["bytes_op"]["total"] = sum(parts.values()) / ops
    if d.get("wallclock"):
        row["sampler"] = d["wallclock"].get("sampler")
    k = d.get("kernel_events")
    if k:
        row["records_op"] = {kind: v / ops for kind, v in k["records"].items()}
        row["lost"] = k["lost"]["total"]
    st = bpf_programs(bpf) if cfg in ("stats", "ostats") else {}
    if st:
        row["bpf"] = {name: {"calls_op": v[0] / ops, "ns_call": v[1] / v[0] if v[0] else 0,
                             "ns_op": v[1] / ops} for name, v in st.items()}
row["daemon_us_op"] = cpu_s * 1e6 / max(row["ops"], 1)
print(json.dumps(row))
PY
	if [ "$target" = refosd ]; then
		bench_refosd_stop
		osd=""
	else
		"$mc" rmpool "$work/ceph" "$pool" >/dev/null 2>&1
	fi
	[ "$keep" = 1 ] || rm -rf "$rd"
	python3 -c 'import json, sys; r = json.loads(sys.argv[1]); print("  %-5s %2d %9.0f %9.2f %8s %9.1f   load %s" % (r["cfg"], r["n"], r["iops"], r["daemon_us_op"], "%.2f" % r["collector_cores"] if "collector_cores" in r else "-", r["bytes_op"]["total"] if "bytes_op" in r else 0, r["load"]))' "$(tail -n 1 "$work/rows")"
}

if [ "$target" = refosd ]; then
	what="refosd, refbench -t $conc -b 1 -d $secs write, a fresh refosd per run"
else
	what="a bare ceph-osd (memstore), rados bench $secs write -b 1 -t $conc, a fresh pool per run"
fi
[ -n "$xopts" ] && what="$what; xopt: record $xopts"
echo "kernel_cost: $what; $rounds rounds of ($cfgs) in rotated order; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg) at the start"
run bare 0 >/dev/null # the warm-up
: >"$work/rows"
echo "  cfg    n      IOPS  daemon us/op  collector cores  bytes/op"
read -r -a all <<<"$cfgs"
bench_rounds "$rounds" "${all[@]}"
echo "load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
python3 - "$work/rows" "$src/bench" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from bench_rows import interval, load, med
by, _ = load(sys.argv[1])
bare = by.get("bare", {})
print("median IOPS and ratio to the same round's bare run (sign-test interval of the median):")
for cfg in ("bare", "rec", "wall", "old", "xopt", "nok", "stats", "ostats"):
    rs = by.get(cfg)
    if not rs:
        continue
    line = "  %-5s IOPS %8.0f  daemon CPU %6.2f us/op" % (
        cfg, med([r["iops"] for r in rs.values()]), med([r["daemon_us_op"] for r in rs.values()]))
    if cfg != "bare":
        line += "  collector %.3f cores, %.2f us/op" % (
            med([r["collector_cores"] for r in rs.values()]), med([r["collector_us_op"] for r in rs.values()]))
        ratios = [r["iops"] / bare[n]["iops"] for n, r in rs.items() if n in bare and bare[n]["iops"] > 0]
        if ratios:
            lo, hi, conf = interval(ratios)
            line += "\n        ratio to bare %.3f (%.3f-%.3f, %s%%, %d pairs)" % (med(ratios), lo, hi, conf, len(ratios))
        samplers = sorted({r["sampler"] for r in rs.values() if r.get("sampler")})
        if cfg == "wall":
            line += "\n        wall-clock sampler: %s" % (", ".join(samplers) or "none")
    print(line)
for cfg in ("rec", "wall", "old", "xopt", "nok"):
    rs = by.get(cfg)
    if not rs:
        continue
    keys = ("total", "events", "stacks", "trace", "ceph", "other")
    for n in sorted(rs):
        print("bytes per op, %s run %d: %s" % (cfg, n, ", ".join(
            "%s %.1f" % (k, rs[n]["bytes_op"][k]) for k in keys)))
    print("bytes per op, %s (median of the runs): %s" % (cfg, ", ".join(
        "%s %.1f" % (k, med([r["bytes_op"][k] for r in rs.values()])) for k in keys)))
for cfg in ("rec", "old", "xopt"):
    rs = by.get(cfg, {})
    kinds = sorted({k for r in rs.values() for k in r.get("records_op", {})})
    if kinds:
        tot = med([sum(r["records_op"].values()) for r in rs.values() if "records_op" in r])
        print("kernel records per op, %s (median): %.2f in all: %s; lost %d" % (cfg, tot, ", ".join(
            "%s %.2f" % (k, med([r["records_op"].get(k, 0) for r in rs.values() if "records_op" in r])) for k in kinds),
            sum(r.get("lost", 0) for r in rs.values())))
for cfg in ("stats", "ostats"):
    ss = [r for r in by.get(cfg, {}).values() if "bpf" in r]
    if not ss:
        continue
    names = sorted({k for r in ss for k in r["bpf"]})
    print("eBPF programs, %s (bpf_stats, median of %d runs): calls/op, ns/call, ns/op" % (cfg, len(ss)))
    tot = []
    for r in ss:
        tot.append(sum(v["ns_op"] for v in r["bpf"].values()))
    for nm in names:
        v = [r["bpf"][nm] for r in ss if nm in r["bpf"]]
        print("  %-14s %7.2f %8.0f %8.0f" % (nm, med([x["calls_op"] for x in v]), med([x["ns_call"] for x in v]),
                                            med([x["ns_op"] for x in v])))
    print("  all programs: %.0f ns of kernel time per op (%.1f%% of the %s runs' daemon CPU per op); per run: %s" % (
        med(tot), 100 * med([t / (r["daemon_us_op"] * 1e3) for t, r in zip(tot, ss)]), cfg,
        " ".join("%.0f" % t for t in tot)))
    for nm in names:
        print("  %-14s ns per call, per run: %s" % (nm, " ".join(
            "%.0f" % r["bpf"][nm]["ns_call"] if nm in r["bpf"] else "-" for r in ss)))
PY
exit 0
