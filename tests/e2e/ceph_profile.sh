#!/usr/bin/env bash
# A real ceph-osd profiled end to end (issue #7). Two one-node clusters run
# side by side on 127.0.0.1: one OSD bare, one started under
# `corecap run --` (the shim, default mode). Their rados bench write IOPS are
# measured in pairs of short rounds in ABBA order (bare,shim, shim,bare, ...;
# a fresh pool per round); the median of the pairs' ratios is printed
# against the 95% target and only a gross regression fails (see below why).
# Then `corecap record -p OSD -- rados bench` profiles the shimmed OSD, and
# `corecap report --json` must list the tp_osd_tp and msgr-worker pools with
# CPU time within 10% of what this test itself reads from
# /proc/PID/task/*/stat (utime+stime) just before and just after the record.
# The test reads /proc itself rather than RUN/threads.tsv because
# threads.tsv is the collector's own sampling: comparing the report with it
# would check the analysis against the collector, not against the kernel.
# The record also imports the OSD's OpTracker history and perf dumps
# (RUN/ceph/): the report's ceph.optracker must show write ops with their
# phases, osd_op_history_size must be restored, and on a window short
# enough for the history to hold every op, the OpTracker's arrival-to-reply
# mean must be within 20% of the OSD's own op_w_latency. Last, fio (rbd
# engine) as the benchmark: its JSON summary must reach the report.
set -uo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"

. "$CORECAP_SRC/tests/e2e/ceph_lib.sh"
ceph_need_tools
need_sessiond
work=$(mktemp -d /tmp/ceph-profile.XXXXXX)
chmod 755 "$work"
PAIRS=${CORECAP_CEPH_PAIRS:-7}
BENCH_S=${CORECAP_CEPH_BENCH_S:-2}
cleanup() {
	"$mc" stop "$work/bare" >/dev/null 2>&1 || true
	"$mc" stop "$work/shim" >/dev/null 2>&1 || true
	[ -n "${CORECAP_CEPH_KEEP:-}" ] && { echo "kept $work"; return; }
	rm -rf "$work"
}
trap cleanup EXIT

base_bare=$(ceph_free_base 47189) || skip "no free port range found for the bare cluster"
base_shim=$(ceph_free_base $((base_bare + 100))) || skip "no free port range found for the shim cluster"
ceph_start bare "$base_bare"
ceph_start shim "$base_shim" --osd-wrapper "$CORECAP run --"
pid_shim=$(cat "$work/shim/osd.0.pid")
pid_bare=$(cat "$work/bare/osd.0.pid")
expect_true "the shimmed OSD ($pid_shim) has the shim mapped" grep -q libcorecap-preload "/proc/$pid_shim/maps"
expect_true "the bare OSD ($pid_bare) has no shim" bash -c "! grep -q libcorecap-preload /proc/$pid_bare/maps"

ops_of() { awk -F: '/^Total writes made/ { gsub(/ /, "", $2); print $2 }' "$1"; }
# The OSD's utime+stime (all its threads) in clock ticks.
osd_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
hz=$(getconf CLK_TCK)
# The machine's "steal total" ticks (/proc/stat): the share of CPU time the
# hypervisor took from this VM during a round explains most outliers.
cpu_steal() { awk '/^cpu / { t = 0; for (i = 2; i <= 9; i++) t += $i; print $9, t }' /proc/stat; }

# bench NAME POOL OUTFILE [existing]: one rados bench write round on a fresh
# pool of cluster NAME (or on POOL as it is, with a 4th argument), deleted
# afterwards; appends "IOPS CPU_us_per_op" to $work/NAME.rounds and prints
# the round's line.
bench() {
	local name=$1 pool=$2 out=$3 pid t0 t1 s0 s1 rc=0 load
	pid=$(cat "$work/$name/osd.0.pid")
	if [ $# -lt 4 ]; then
		"$mc" mkpool "$work/$name" "$pool" >>"$work/pools.log" 2>&1 ||
			{ echo "FAIL: mkpool $name $pool"; tail "$work/pools.log"; return 1; }
	fi
	load=$(cut -d' ' -f1 /proc/loadavg)
	t0=$(osd_ticks "$pid")
	s0=$(cpu_steal)
	(
		eval "$("$mc" env "$work/$name")"
		rados -p "$pool" bench "$BENCH_S" write -b 1 -t 10 --no-cleanup >"$out" 2>"$out.err"
	) || rc=$?
	t1=$(osd_ticks "$pid")
	s1=$(cpu_steal)
	"$mc" rmpool "$work/$name" "$pool" >>"$work/pools.log" 2>&1 || echo "warning: rmpool $name $pool failed"
	[ "$rc" -eq 0 ] || { echo "rados bench on '$name' failed:"; tail -n 3 "$out.err"; }
	awk -v i="$(ceph_iops_of "$out")" -v n="$(ops_of "$out")" -v d=$((t1 - t0)) -v hz="$hz" \
		-v c="$name" -v p="$pool" -v load="$load" -v f="$work/$name.rounds" -v s0="$s0" -v s1="$s1" 'BEGIN {
		cpu = (n > 0) ? d / hz * 1e6 / n : 0
		split(s0, a, " ")
		split(s1, b, " ")
		steal = (b[2] > a[2]) ? 100 * (b[1] - a[1]) / (b[2] - a[2]) : 0
		printf "%d %.1f\n", i, cpu >> f
		printf "round %-3s %-4s %6d IOPS  %6.1f us OSD CPU/op  (load %s, steal %.0f%%)\n", p, c, i, cpu, load, steal
	}'
	return "$rc"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# The shim's IOPS cost, in the protocol of bench/ceph_shim_iops.sh: pairs
# of short rounds in ABBA order (bare,shim, shim,bare, ...), so that a
# drift of the machine's load weighs on both alike, each on a fresh pool;
# the figure is the median of the pairs' ratios shim/bare, which one round
# disturbed by other load cannot move much. First a warm-up round on each
# cluster (its first pool's objects grow the OSD's heap: ~10 syscalls per
# op instead of ~6.5), on the pool the cluster starts with, not counted.
echo "IOPS: rados bench $BENCH_S write -b 1 -t 10, $PAIRS pairs of rounds in ABBA order, a fresh pool per round"
for c in bare shim; do bench "$c" bench "$work/$c.w.out" existing >/dev/null; done
rm -f "$work/bare.rounds" "$work/shim.rounds"
for p in $(seq 1 "$PAIRS"); do
	order="bare shim"
	[ $((p % 2)) -eq 0 ] && order="shim bare"
	for c in $order; do bench "$c" "r$p" "$work/$c.$p.out" || true; done
done
paste -d' ' "$work/shim.rounds" "$work/bare.rounds" >"$work/pairs"
awk '{ print ($3 > 0) ? $1 / $3 : 0 }' "$work/pairs" >"$work/ratios"
awk '{ print ($4 > 0) ? $2 / $4 : 0 }' "$work/pairs" >"$work/cpu_ratios"
ratio=$(median <"$work/ratios" | awk '{ printf "%.3f", $1 }')
cpu_ratio=$(median <"$work/cpu_ratios" | awk '{ printf "%.3f", $1 }')
echo "pair ratios shim/bare (IOPS): $(awk '{ printf "%.3f ", $1 }' "$work/ratios")"
printf 'median IOPS: bare %s, shim %s; median OSD CPU per op: bare %s us, shim %s us\n' \
	"$(cut -d' ' -f1 "$work/bare.rounds" | median)" "$(cut -d' ' -f1 "$work/shim.rounds" | median)" \
	"$(cut -d' ' -f2 "$work/bare.rounds" | median)" "$(cut -d' ' -f2 "$work/shim.rounds" | median)"
printf 'shim/bare: median of %d pair ratios %s (range %.3f-%.3f); OSD CPU per op, median of pair ratios %s\n' \
	"$PAIRS" "$ratio" "$(sort -g "$work/ratios" | head -n 1)" "$(sort -g "$work/ratios" | tail -n 1)" "$cpu_ratio"
# The target is shim >= 95% of bare (issue #7). It is not shown, and the
# measurements say it is not met (docs/ceph.md, bench/ceph_shim_iops.sh):
# over 16 series of 4-12 pairs, each on a fresh pair of clusters, the
# medians of pair ratios were 0.83-1.09 (mean 0.94) under the shim, against
# 0.92-1.07 (mean 1.02) for two bare clusters (8 A/A series); the shimmed
# OSD spent 8% more CPU per op (A/A: 4% less). One pair of OSDs differs
# from another by up to 15% in CPU per op whatever the shim does, which
# no number of rounds in one run removes. A 0.95 gate would fail on that
# cost and on that noise alike, so the test prints the figure against the
# target and fails only on a gross regression: a median of pair ratios
# below 0.80 (the lowest of the 24 series was 0.825).
if awk -v r="$ratio" 'BEGIN { exit !(r >= 0.95) }'; then
	echo "NOTE: shim/bare $ratio >= 0.95 in this run, but one run cannot show the 95% target (issue #7): A/A series of this protocol gave 0.92-1.07"
else
	echo "NOTE: the 95% target (issue #7) is not shown: shim/bare median of pair ratios $ratio (A/A series of this protocol gave 0.92-1.07; the shim 0.83-1.09, mean 0.94)"
fi
expect_true "shim IOPS not grossly lower than bare (median of pair ratios $ratio >= 0.80)" \
	awk -v r="$ratio" 'BEGIN { exit !(r >= 0.80) }'

# The shimmed OSD's threads' CPU (utime+stime, ns) by tid and name.
task_cpu() {
	python3 - "$1" <<'PY'
import os, sys
pid = sys.argv[1]
tick = os.sysconf("SC_CLK_TCK")
for tid in os.listdir(f"/proc/{pid}/task"):
    try:
        s = open(f"/proc/{pid}/task/{tid}/stat").read()
    except OSError:
        continue
    comm = s[s.index("(") + 1:s.rindex(")")]
    f = s[s.rindex(")") + 2:].split()
    print(tid, comm, (int(f[11]) + int(f[12])) * 1000000000 // tick, sep="\t")
PY
}

RUN="$work/run"
"$mc" mkpool "$work/shim" rec >>"$work/pools.log" 2>&1 || { echo "FAIL: mkpool shim rec"; finish; exit 1; }
task_cpu "$pid_shim" >"$work/cpu.before"
rc=0
(
	eval "$("$mc" env "$work/shim")"
	"$CORECAP" record -p "$pid_shim" -o "$RUN" -- \
		rados -p rec bench 10 write -b 1 -t 10 --no-cleanup >"$work/rec.out" 2>"$work/rec.out.err"
) || rc=$?
# Before the pool's deletion, which keeps tp_osd_tp busy after the window.
task_cpu "$pid_shim" >"$work/cpu.after"
expect_eq "corecap record -p OSD -- rados bench exits" 0 "$rc"
[ "$rc" -eq 0 ] || { tail -n 20 "$work/rec.out.err"; finish; exit 1; }
echo "recorded: $(ceph_iops_of "$work/rec.out") IOPS under corecap record"
rc=0
"$CORECAP" report "$RUN" --json >"$work/report.json" 2>"$work/report.err" || rc=$?
expect_eq "corecap report --json exits" 0 "$rc"
[ "$rc" -eq 0 ] || { cat "$work/report.err"; finish; exit 1; }

python3 - "$work/report.json" "$work/cpu.before" "$work/cpu.after" >"$work/pools.txt" <<'PY'
import json, re, sys
rep = json.load(open(sys.argv[1]))
def load(p):
    d = {}
    for line in open(p):
        tid, comm, ns = line.rstrip("\n").split("\t")
        d[tid] = (comm, int(ns))
    return d
b, a = load(sys.argv[2]), load(sys.argv[3])
def pool_of(comm):
    return re.sub(r"[-_.]*[0-9]+$", "", comm)
proc = {}
for tid, (comm, ns) in a.items():
    proc[pool_of(comm)] = proc.get(pool_of(comm), 0) + ns - b.get(tid, (comm, 0))[1]
for name in ("tp_osd_tp", "msgr-worker"):
    p = [x for x in rep.get("pools", []) if x["name"] == name]
    if not p:
        print(name, "missing", 0, proc.get(name, 0), 0)
        continue
    p = p[0]
    print(name, p["threads"], p["cpu_ns"], proc.get(name, 0), p.get("cpu_util"))
PY
cat "$work/pools.txt" | while read -r name n rep_ns proc_ns util; do
	echo "pool $name: $n threads, report cpu_ns $rep_ns (cpu_util $util), /proc utime+stime delta $proc_ns ns"
done
for name in tp_osd_tp msgr-worker; do
	read -r _ n rep_ns proc_ns _ < <(grep "^$name " "$work/pools.txt")
	expect_true "the report lists pool '$name'" test "$n" != missing
	expect_true "pool '$name': report CPU $rep_ns ns within 10% of /proc's $proc_ns ns" \
		awk -v r="$rep_ns" -v p="$proc_ns" 'BEGIN { exit !(p > 0 && r >= 0.9 * p && r <= 1.1 * p) }'
done

# The OpTracker import (found by itself: the OSD's admin socket through /proc).
asok="$work/shim/run/ceph-osd.0.asok"
for f in historic_ops.json perf-begin.json perf-end.json; do
	expect_true "RUN/ceph/$f written" test -s "$RUN/ceph/$f"
done
expect_eq "osd_op_history_size restored after the window" 20 \
	"$(ceph --admin-daemon "$asok" config get osd_op_history_size | python3 -c 'import json, sys; print(json.load(sys.stdin)["osd_op_history_size"])')"
expect_eq "the report's ceph.optracker has write ops with their OpTracker phases" True \
	"$(python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["ceph"]["optracker"]["types"]
w = [x for x in t if x["type"] == "write"]
print(bool(w) and w[0]["count"] > 0 and {"queued_for_pg", "reached_pg", "started"} <= {p["name"] for p in w[0]["phases"]})' "$work/report.json")"
"$mc" rmpool "$work/shim" rec >>"$work/pools.log" 2>&1 || echo "warning: rmpool shim rec failed"

# The OSD's own op_w_latency against the OpTracker's arrival-to-reply mean,
# on a window short enough (-t 1, 1 s: fewer ops than the history's 10000)
# that the history holds every op.
RUN2="$work/run2"
"$mc" mkpool "$work/shim" lat >>"$work/pools.log" 2>&1 || echo "FAIL: mkpool shim lat"
rc=0
(
	eval "$("$mc" env "$work/shim")"
	"$CORECAP" record -q -p "$pid_shim" -o "$RUN2" -- \
		rados -p lat bench 1 write -b 1 -t 1 --no-cleanup >"$work/rec2.out" 2>"$work/rec2.out.err"
) || rc=$?
expect_eq "corecap record (-t 1, 1 s) exits" 0 "$rc"
"$CORECAP" report "$RUN2" --json >"$work/report2.json" 2>"$work/report2.err" || cat "$work/report2.err"
read -r complete n_ops win_ops reply_us perf_us < <(python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["ceph"]
w = [x for x in c["optracker"]["types"] if x["type"] == "write"][0]
print(c["optracker"]["complete"], c["optracker"]["ops"], c["optracker"]["window_ops"], w["reply_avg_us"], c["perf"]["op_w_latency"]["avg_us"])' "$work/report2.json" 2>/dev/null || echo "none 0 0 0 0")
echo "OpTracker: $n_ops ops in the history, $win_ops in the window (perf op); arrival to reply $reply_us us; perf op_w_latency $perf_us us"
expect_eq "the history holds the whole short window" True "$complete"
expect_true "OpTracker write latency ($reply_us us) within 20% of op_w_latency ($perf_us us)" \
	awk -v a="$reply_us" -v b="$perf_us" 'BEGIN { exit !(b > 0 && a >= 0.8 * b && a <= 1.2 * b) }'

# fio as the benchmark: the rbd engine against an image in the cluster; its
# JSON output is parsed into the run's summary and the report (IOPS, clat
# percentiles).
if command -v fio >/dev/null && command -v rbd >/dev/null && fio --enghelp=rbd >/dev/null 2>&1; then
	RUN3="$work/run3"
	"$mc" mkpool "$work/shim" rbd >>"$work/pools.log" 2>&1 || echo "FAIL: mkpool shim rbd"
	rc=0
	(
		eval "$("$mc" env "$work/shim")"
		rbd create --size 64M rbd/img &&
			"$CORECAP" record -q -p "$pid_shim" -o "$RUN3" -- fio --name=w --ioengine=rbd \
				--clientname=admin --pool=rbd --rbdname=img --rw=randwrite --bs=4k \
				--iodepth=1 --runtime=3 --time_based --output-format=json
	) >"$work/fio.out" 2>"$work/fio.err" || rc=$?
	expect_eq "corecap record -- fio --ioengine=rbd exits" 0 "$rc"
	[ "$rc" -eq 0 ] || tail -n 5 "$work/fio.err"
	"$CORECAP" report "$RUN3" --json >"$work/report3.json" 2>"$work/report3.err" || cat "$work/report3.err"
	summary=$(python3 -c 'import json, sys
b = json.load(open(sys.argv[1]))["benchmark"]["summary"]
print(b["iops_avg"], b["lat_avg_s"] * 1e3, b["lat_p99_s"] * 1e3)' "$work/report3.json" 2>/dev/null || echo "0 0 0")
	echo "fio randwrite 4k iodepth 1 under corecap record: IOPS, avg ms, p99 ms: $summary"
	expect_true "the report has fio's IOPS and p99 latency" \
		awk -v s="$summary" 'BEGIN { split(s, a, " "); exit !(a[1] > 0 && a[3] > 0) }'
else
	echo "NOTE: fio or its rbd engine is missing: no fio step"
fi

"$mc" stop "$work/shim" >/dev/null 2>&1 || echo "warning: stopping the shim cluster failed"
"$mc" stop "$work/bare" >/dev/null 2>&1 || echo "warning: stopping the bare cluster failed"
finish
