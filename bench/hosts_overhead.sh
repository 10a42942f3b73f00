#!/usr/bin/env bash
# hosts_overhead: what recording several hosts in one `corecap record
# --hosts` costs the daemons, against recording each host on its own
# (issue 46, "Overhead": the relay and the remote records add no more than
# 1% to the daemons' IOPS over single-host records of the same daemons).
# The hosts are tests/e2e/hosts_lib.sh's (network and time namespaces: A,
# the client, at offset 0; B at +37.5 s; C at -12.25 s), made by its own
# functions; refosd runs under `corecap run` in B and in C (one daemon
# each, kept for the whole benchmark), refbench in A drives both at once
# (-t T -b 1 write for S seconds each, through hosts_lib's forwarders).
# Configurations, each round in rotated order (round r starts with the
# r-th), after one warm-up run of each that is not counted:
#   single  a plain `corecap record -p PID` in B and another in C, at the
#           same time, each with an idle benchmark (a shell that waits on
#           a FIFO) to hold its window open; once both windows are open,
#           the two refbenches run in A, from this script, and then the
#           FIFOs end both windows;
#   hosts   one `corecap record --hosts FILE` here (host A's side): the
#           clock exchanges, a remote record per host through the remote
#           shell, the traces streamed to the lttng-relayd corecap runs
#           here, the runs brought back; the two refbenches its benchmark,
#           run in A, with the op log (CORECAP_CLIENT_OPS) it offers them;
#   nolog   `hosts` with the op log refused (CORECAP_CLIENT_OPS unset for
#           the benchmark): what the client split's op log costs, apart.
# Pinned where it can be on 2 CPUs: B's refosd on CPU 0, C's on CPU 1
# (taskset, every thread; -P: not pinned); the collectors and the clients
# go where the scheduler puts them, as a user's would.
# For each run: IOPS (the two refbenches' Average IOPS added), the ratio to
# the same round's single run, the collectors' CPU (every process of the
# record's tree, reaped through wait4, less the refbenches' own CPU from
# /usr/bin/time: in `hosts` the recording corecap, its relayd, the remote
# shells, the hosts' agents and records; in `single` the two records and
# the shells that launch the refbenches, as in `hosts`) in
# seconds and in cores over the benchmark's S seconds, the relayd's part
# of it (the manifest's relayd.cpu_*_s), and the machine's other load:
# the busy CPU of /proc/stat over the run less the daemons', the tree's
# and the refbenches' (the other tenants of a shared VM), in cores. And,
# in the window alone (from 1 s after both refbenches started to 1 s
# before their end, sampled from /proc), the cores taken by this build's
# corecap processes, by lttng-relayd and by the LTTng session and consumer
# daemons (those shared with other sessions on the machine): what competes
# with the daemons while they are measured. The summary gives medians and
# the sign test's interval of the median of the ratios (bench_interval).
#
#   -n ROUNDS  rounds (default 6)     -s SECONDS  each refbench's (default 5)
#   -t T       refbench -t (default 8) -R OPT     an option for every record
#                                                 (e.g. -R --no-kernel), repeatable
#   -C CFGS    only these configurations (default "single hosts nolog")
#   -P         nothing pinned          -K         keep the work directory
#
# usage: bench/hosts_overhead.sh [-B BUILD_DIR] [-n ROUNDS] [-s SECONDS]
#                                [-t T] [-R OPT]... [-C CFGS] [-P] [-K]
# A benchmark, not a test: it exits 0 whatever the figures (they are in
# docs/hosts.md, "What recording several hosts costs"); 77 when the test
# hosts cannot be made here (root, time namespaces), saying why.
set -uo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
prog=hosts_overhead
. "$src/bench/bench_lib.sh"
rounds=6
secs=5
conc=8
pin=1
keep=0
cfgs="single hosts nolog"
rec_opts=()
bench_option() {
	case $1 in
	n) rounds=$OPTARG ;;
	s) secs=$OPTARG ;;
	t) conc=$OPTARG ;;
	R) rec_opts+=("$OPTARG") ;;
	C) cfgs=$OPTARG ;;
	P) pin=0 ;;
	K) keep=1 ;;
	*) return 1 ;;
	esac
}
usage="[-B BUILD_DIR] [-n ROUNDS] [-s SECONDS] [-t T] [-R OPT]... [-C CFGS] [-P] [-K]"
bench_options "B:n:s:t:R:C:PK" "$usage" "$@"
for v in "$rounds" "$secs" "$conc"; do
	case $v in '' | *[!0-9]* | 0) echo "hosts_overhead: '$v' is not a positive number; usage: $0 $usage" >&2; exit 2 ;; esac
done
for c in $cfgs; do
	case $c in single | hosts | nolog) ;; *) echo "hosts_overhead: no configuration '$c' (of: single hosts nolog)" >&2; exit 2 ;; esac
done
# Absolute: the hosts' commands run from elsewhere.
build=$(cd "$build" && pwd) || exit 1
corecap="$build/cli/corecap"
refosd="$build/tests/refosd/refosd"
refbench="$build/tests/refosd/refbench"
bench_need "$corecap" "$refosd" "$refbench" /usr/bin/time
# The test hosts and their refosds: the e2e tests' own functions (lib.sh's
# skip, track and launch_refosd; hosts_lib.sh's namespaces and forwarders).
CORECAP_SRC=$src CORECAP=$corecap REFOSD=$refosd
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/hosts_lib.sh"
command -v lttng-relayd >/dev/null || { echo "hosts_overhead: lttng-relayd is not installed" >&2; exit 1; }
need_sessiond
# The records in B and C use this machine's session daemon (the test hosts
# share /var/run/lttng); one that runs in another network namespace (a
# record in a test host that found none started it there) reaches no
# relayd of ours, and every trace would come over the stream.
for p in $(pgrep -x lttng-sessiond); do
	[ "$(readlink "/proc/$p/ns/net")" = "$(readlink /proc/self/ns/net)" ] || {
		echo "hosts_overhead: the LTTng session daemon (pid $p) runs in another network namespace: it cannot reach the relayd" >&2
		exit 1
	}
done

WORK=$(mktemp -d /tmp/hosts-overhead-XXXXXX)
chmod 755 "$WORK"
work=$WORK
cleanup() {
	local p
	for p in "${_e2e_pids[@]}"; do
		kill -TERM "$p" 2>/dev/null || true
	done
	hosts_teardown
	for p in "${_e2e_pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	if [ "$keep" = 1 ]; then echo "hosts_overhead: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
cd "$work" || exit 1
hosts_abc
hosts_bc_refosd
if [ "$pin" = 1 ]; then
	taskset -a -p -c 0 "$b_pid" >/dev/null && taskset -a -p -c 1 "$c_pid" >/dev/null ||
		{ echo "hosts_overhead: cannot pin the daemons (taskset)" >&2; exit 1; }
fi
rsh="$src/tests/e2e/hosts_rsh"
printf 'b b pid=%s\nc c pid=%s\n' "$b_pid" "$c_pid" >hosts.txt

# client.sh NAME ADDR PORT (in host A): refbench against one daemon, its
# summary in NAME.out, its own CPU ("user sys") in NAME.cpu.
cat >client.sh <<EOF
#!/bin/sh
: >"$work/\$1.started"
exec /usr/bin/time -f "%U %S" -o "$work/\$1.cpu" "$refbench" -H "\$2" -p "\$3" --no-progress \
	-t $conc -b 1 -d $secs write >"$work/\$1.out" 2>"$work/\$1.err"
EOF
# hold.sh NAME: a single record's benchmark: says it runs (NAME.ready),
# then waits, idle, until the FIFO end-NAME is written: the window is the
# record's alone and the refbenches run beside it, from this script, as
# `hosts` runs them beside the hosts' records.
cat >hold.sh <<EOF
#!/bin/sh
: >"$work/\$1.ready"
read -r _ <"$work/end-\$1"
EOF
mkfifo end-b end-c
chmod 755 client.sh hold.sh

# window_ticks: "COLLECTOR RELAYD LTTNG" clock ticks so far: every process
# of this build's corecap (records, hosts' agents, clock servers, the
# recording corecap), the lttng-relayd it started, and the session and
# consumer daemons (shared with any other session on the machine).
window_ticks() {
	python3 - "$corecap" <<'PY'
import os, sys
t = [0, 0, 0]
for p in os.listdir("/proc"):
    if not p.isdigit():
        continue
    try:
        exe = os.readlink("/proc/%s/exe" % p)
        f = open("/proc/%s/stat" % p).read().rsplit(")", 1)[1].split()
    except OSError:
        continue
    ticks = int(f[11]) + int(f[12])
    base = os.path.basename(exe)
    if exe == sys.argv[1]:
        t[0] += ticks
    elif base == "lttng-relayd":
        # ours: a child of this build's corecap (another's relayd may come and go)
        try:
            if os.readlink("/proc/%s/exe" % f[1]) == sys.argv[1]:
                t[1] += ticks
        except OSError:
            pass
    elif base in ("lttng-sessiond", "lttng-consumerd"):
        t[2] += ticks
print(*t)
PY
}

# sample_window: once both refbenches have started, the ticks 1 s in and
# 1 s before their end, into window.ticks ("SECONDS C R L" at each).
sample_window() {
	local i a b t0
	for i in $(seq 1 6000); do
		[ -e b.started ] && [ -e c.started ] && break
		sleep 0.01
	done
	sleep 1
	t0=$EPOCHREALTIME
	a=$(window_ticks)
	sleep "$(awk -v s="$secs" 'BEGIN { print (s > 2.5 ? s - 2 : 0.5) }')"
	b=$(window_ticks)
	echo "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }') $a $b" >window.ticks
}

# The machine's busy CPU (all but idle and iowait) in clock ticks, and a
# process's utime + stime.
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
proc_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }

# run CFG N: one run; appends its row (JSON) to $work/rows.
run() {
	local cfg=$1 n=$2 d="$work/run-$1-$2" b0 b1 d0 d1 t0 t1 i sampler
	local -a env_bench=() recs=()
	rm -f b.started c.started window.ticks b.ready c.ready b.cpu c.cpu b.out c.out b.out.tree c.out.tree hosts.out.tree clients.tree
	d0=$(($(proc_ticks "$b_pid") + $(proc_ticks "$c_pid")))
	b0=$(busy_ticks)
	t0=$EPOCHREALTIME
	sample_window &
	sampler=$!
	if [ "$cfg" = single ]; then
		for h in b c; do
			local pidh
			pidh=$([ $h = b ] && echo "$b_pid" || echo "$c_pid")
			bench_measure sh -c 'e=$1; shift; exec "$@" 2>"$e"' - "$work/rec-$h.err" \
				"$rsh" "$HOSTS_DIR" "$h" "$corecap" record -q "${rec_opts[@]}" -p "$pidh" -o "$d-$h" -- \
				"$work/hold.sh" "$h" >"$h.out.tree" 2>"rec-$h.fail" &
			recs+=($!)
		done
		# Both windows open (a record that failed first: its refbench runs alone, the run marked failed).
		for i in $(seq 1 6000); do
			[ -e b.ready ] && [ -e c.ready ] && break
			kill -0 "${recs[0]}" 2>/dev/null && kill -0 "${recs[1]}" 2>/dev/null || break
			sleep 0.01
		done
		bench_measure "$rsh" "$HOSTS_DIR" a sh -c \
			"'$work/client.sh' b $b_addr $b_port & '$work/client.sh' c $c_addr $c_port; wait" \
			>clients.tree 2>clients.fail
		for h in b c; do
			timeout 10 sh -c 'echo >"$1"' - "end-$h"
		done
		wait "${recs[@]}"
	else
		[ "$cfg" = nolog ] && env_bench=(env -u CORECAP_CLIENT_OPS)
		bench_measure sh -c 'e=$1; shift; exec "$@" 2>"$e"' - "$work/rec-hosts.err" \
			"$corecap" record --hosts hosts.txt --rsh "$rsh $HOSTS_DIR" --corecap-path "$corecap" \
			-o "$d" "${rec_opts[@]/#/--record-opt=}" -- "${env_bench[@]}" "$rsh" "$HOSTS_DIR" a sh -c \
			"'$work/client.sh' b $b_addr $b_port & '$work/client.sh' c $c_addr $c_port; wait" \
			>hosts.out.tree 2>rec-hosts.fail
	fi
	b1=$(busy_ticks)
	t1=$EPOCHREALTIME
	wait "$sampler"
	d1=$(($(proc_ticks "$b_pid") + $(proc_ticks "$c_pid")))
	python3 - "$cfg" "$n" "$d" "$work" "$((b1 - b0))" "$((d1 - d0))" "$(getconf CLK_TCK)" "$secs" "$t0" "$t1" >>rows <<'PY'
import json, os, re, sys
cfg, n, d, work, busy, daemons, hz, secs, t0, t1 = sys.argv[1:11]
hz, secs = int(hz), float(secs)
row = {"cfg": cfg, "n": int(n), "load": open("/proc/loadavg").read().split()[0]}
iops, client = [], 0.0
for h in ("b", "c"):
    try:
        m = re.search(r"^Average IOPS:\s*([0-9.]+)", open(os.path.join(work, h + ".out")).read(), re.M)
        iops.append(float(m.group(1)) if m else 0.0)
        u, s = open(os.path.join(work, h + ".cpu")).read().split()[-2:]
        client += float(u) + float(s)
    except (OSError, ValueError):
        iops.append(0.0)
row["iops_b"], row["iops_c"] = iops
row["iops"] = sum(iops)
# single: the two records' trees and the clients' apart; hosts: one tree, the clients in it
trees = ["b.out.tree", "c.out.tree", "clients.tree"] if cfg == "single" else ["hosts.out.tree"]
tree, wall = 0.0, 0.0
for t in trees:
    try:
        u, s, _, w = open(os.path.join(work, t)).read().split()
        tree += float(u) + float(s)
        wall = max(wall, float(w))
    except (OSError, ValueError):
        row["failed"] = True
row["collector_s"] = tree - client
row["collector_cores"] = row["collector_s"] / secs
row["wall_s"] = wall
if cfg != "single":
    try:
        m = json.load(open(os.path.join(d, "manifest.json")))
        r = m.get("relayd") or {}
        if "cpu_user_s" in r:
            row["relayd_s"] = r["cpu_user_s"] + r["cpu_sys_s"]
        # A trace that came over the stream did not go through the relayd: said, left out.
        row["via"] = sorted({h.get("trace_via") or "none" for h in m["hosts"]})
    except (OSError, ValueError):
        row["failed"] = True
try:
    w = open(os.path.join(work, "window.ticks")).read().split()
    span = float(w[0])
    a, b = [int(x) for x in w[1:4]], [int(x) for x in w[4:7]]
    row["win_collector_cores"] = (b[0] - a[0]) / hz / span
    row["win_relayd_cores"] = (b[1] - a[1]) / hz / span
    row["win_lttng_cores"] = (b[2] - a[2]) / hz / span
except (OSError, ValueError, IndexError):
    pass
elapsed = float(t1) - float(t0)
row["others_cores"] = max(0.0, int(busy) / hz - int(daemons) / hz - tree) / elapsed
print(json.dumps(row))
PY
	for f in rec-*.fail clients.fail; do
		[ -s "$f" ] && { echo "hosts_overhead: $cfg run $n: $(tail -n 1 "$f"): $(tail -n 2 "${f%.fail}.err" 2>/dev/null | tr "\n" " ")" >&2; }
	done
	rm -f rec-*.fail clients.fail
	[ "$keep" = 1 ] || rm -rf "$d" "$d-b" "$d-c"
	python3 -c 'import json, sys; r = json.loads(sys.argv[1]); print("  %-6s %2d %9.0f %7.0f %7.0f %8.2f %8.3f %8s  %6s %6s %6s %8.2f   load %s%s" % (r["cfg"], r["n"], r["iops"], r["iops_b"], r["iops_c"], r["collector_s"], r["collector_cores"], "%.2f" % r["relayd_s"] if "relayd_s" in r else "-", *("%.3f" % r[k] if k in r else "-" for k in ("win_collector_cores", "win_relayd_cores", "win_lttng_cores")), r["others_cores"], r["load"], "" if r.get("via", ["relayd"]) == ["relayd"] else "  traces: " + "+".join(r.get("via", []))))' "$(tail -n 1 rows)"
}

echo "hosts_overhead: refosd in hosts B and C (one each, under corecap run$([ "$pin" = 1 ] && echo ", pinned to CPUs 0 and 1")), refbench -t $conc -b 1 -d $secs write to each from host A; records: corecap record ${rec_opts[*]:-(defaults)}; $rounds rounds of ($cfgs) in rotated order; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg) at the start"
read -r -a all <<<"$cfgs"
for c in "${all[@]}"; do
	run "$c" 0 >/dev/null # the warm-up
done
: >rows
echo "  cfg     n      IOPS  B IOPS  C IOPS  coll. s  coll. cores  relayd s  in the window (cores): corecap relayd lttng  others' cores"
bench_rounds "$rounds" "${all[@]}"
echo "load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
python3 - rows "$src/bench" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from bench_rows import interval, load, med
# Left out: a failed record or refbench, or a trace that did not go through the relayd.
by, bad = load(sys.argv[1], lambda r: not r.get("failed") and r["iops_b"] and r["iops_c"]
               and r.get("via", ["relayd"]) == ["relayd"])
single = by.get("single", {})
print("medians; ratios to the same round's single run (sign-test interval of the median):")
for cfg in ("single", "hosts", "nolog"):
    rs = by.get(cfg)
    if not rs:
        continue
    line = "  %-6s IOPS %8.0f (B %.0f, C %.0f)  collectors %.2f CPU-s, %.3f cores%s  others %.2f cores" % (
        cfg, med([r["iops"] for r in rs.values()]), med([r["iops_b"] for r in rs.values()]),
        med([r["iops_c"] for r in rs.values()]), med([r["collector_s"] for r in rs.values()]),
        med([r["collector_cores"] for r in rs.values()]),
        ", relayd %.3f CPU-s" % med([r["relayd_s"] for r in rs.values() if "relayd_s" in r])
        if any("relayd_s" in r for r in rs.values()) else "",
        med([r["others_cores"] for r in rs.values()]))
    win = [k for k in ("win_collector_cores", "win_relayd_cores", "win_lttng_cores") if any(k in r for r in rs.values())]
    if win:
        line += "\n         in the window: corecap %.3f, lttng-relayd %.3f, session and consumer daemons %.3f cores" % tuple(
            med([r[k] for r in rs.values() if k in r]) for k in ("win_collector_cores", "win_relayd_cores", "win_lttng_cores"))
    if cfg != "single":
        ratios = [r["iops"] / single[n]["iops"] for n, r in rs.items() if n in single and single[n]["iops"] > 0]
        if ratios:
            lo, hi, conf = interval(ratios)
            line += "\n         %s/single %.3f (%.3f-%.3f, %s%%, %d pairs)" % (cfg, med(ratios), lo, hi, conf, len(ratios))
    print(line)
if bad:
    print("left out (a record or a refbench failed, or a trace not through the relayd): %s" % ", ".join(
        "%s %d%s" % (r["cfg"], r["n"], " (%s)" % "+".join(r["via"]) if "via" in r else "") for r in bad))
PY
exit 0
