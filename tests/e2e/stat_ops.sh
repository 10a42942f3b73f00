#!/usr/bin/env bash
# `corecap stat`'s ops/s (issue 47 item 2): the shim's op counter, which
# corecap/annotate.h's corecap_op_end and corecap_op_end_exit add to.
#  - refosd (annotated) under the shim with refbench writing: the mean
#    ops/s of stat's intervals in the middle of the benchmark is within
#    15% of refbench's Average IOPS, and the total since the shim started
#    equals refbench's writes made (the daemon served nothing else); the
#    text view prints the ops/s line; idle, an interval shows 0 ops,
#    annotated, and the total unchanged;
#  - refosd without the shim serves refbench as before (the annotations'
#    lookup found no counter and costs nothing but a branch);
#  - a daemon that calls no annotation under the shim (xrootd with
#    CORECAP_NET_EVENTS=on and xrdbench reading, whose ops report detects
#    from its socket I/O; sleep when xrootd is not installed): "ops/s: not
#    annotated" in text, annotated false and no figures in JSON.
# About 20 s.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
need_refosd
XRDBENCH="$CORECAP_BUILD/tests/xrootd/xrdbench"
xs="$CORECAP_SRC/scripts/xrootd-server"

start_refosd ops --debug 0 --shards 2 --threads-per-shard 2
"$REFBENCH" -p "$OSD_PORT" -t 4 -b 1 -d 5 --no-progress write >"$WORK/bench.out" 2>&1 &
bench=$!
track "$bench"
sleep 1
"$CORECAP" stat -p "$OSD_PID" --json -d 3 --interval 1 >"$WORK/load.json"
"$CORECAP" stat -p "$OSD_PID" --once --interval 0.5 >"$WORK/load.txt"
if ! wait "$bench"; then
	echo "FAIL: refbench failed:"
	cat "$WORK/bench.out"
	echo "refosd $(kill -0 "$OSD_PID" 2>/dev/null && echo "is alive" || echo "has exited"); its stderr:"
	tail -n 20 "$WORK/ops.err"
	exit 1
fi
iops=$(awk -F: '/^Average IOPS/ { gsub(/ /, "", $2); print $2 }' "$WORK/bench.out")
writes=$(awk -F: '/^Total writes made/ { gsub(/ /, "", $2); print $2 }' "$WORK/bench.out")
rates=$(python3 -c '
import json, sys
ls = [json.loads(l) for l in open(sys.argv[1])]
print(" ".join("%.0f" % l["ops"]["per_s"] for l in ls if l["ops"].get("annotated")))
' "$WORK/load.json")
mean=$(python3 -c 'import sys; v = [float(x) for x in sys.argv[1:]]; print("%.0f" % (sum(v) / len(v)) if v else 0)' $rates)
echo "refbench: $iops IOPS, $writes writes; stat's intervals: $rates ops/s (mean $mean)"
expect_calc "stat printed 2 to 4 annotated intervals" "$(echo $rates | wc -w) >= 2 && $(echo $rates | wc -w) <= 4"
expect_calc "stat's ops/s ($mean) within 15% of refbench's IOPS ($iops)" \
	"$mean >= 0.85 * $iops && $mean <= 1.15 * $iops"
expect_true "the text view prints the ops/s line" \
	grep -Eq '^ops/s: [0-9]+\.[0-9] \([0-9]+ ops ended in the interval, [0-9]+ since the shim started\)$' \
	"$WORK/load.txt"
sleep 0.3
"$CORECAP" stat -p "$OSD_PID" --once --json --interval 0.5 >"$WORK/idle.json"
expect_eq "idle: annotated" True "$(json "$WORK/idle.json" "d['ops']['annotated']")"
expect_eq "idle: counted, layout version 3" "True 3" \
	"$(json "$WORK/idle.json" "d['ops']['counted'], d['ops']['layout_version']" | tr -d '(),')"
expect_eq "idle: no op in the interval" 0 "$(json "$WORK/idle.json" "d['ops']['interval']")"
total=$(json "$WORK/idle.json" "d['ops']['total']")
echo "ops since the shim started: $total; refbench's writes made: $writes"
expect_calc "the total ($total) is refbench's writes ($writes), give or take the ops in flight at its end" \
	"$total >= $writes && $total <= $writes + 4"
stop_refosd

# Without the shim the annotations find no counter; refosd serves as before.
launch_refosd bare "$REFOSD" --port 0 --debug 0
rc=0
"$REFBENCH" -p "$OSD_PORT" -t 2 -b 1 -d 1 --no-progress write >"$WORK/bare.out" 2>&1 || rc=$?
expect_eq "refosd without the shim: refbench exits 0" 0 "$rc"
expect_calc "... and made writes" "$(awk -F: '/^Total writes made/ { gsub(/ /, "", $2); print $2 }' "$WORK/bare.out") > 0"
expect_true "... refosd is alive and not stopped" \
	grep -Eq '^State:[[:space:]]+[RS]' "/proc/$OSD_PID/status"
stop_refosd

# A daemon without annotations under the shim.
if command -v xrootd >/dev/null && [ -x "$XRDBENCH" ] &&
	{ [ "$(id -u)" -ne 0 ] || getent passwd xrootd >/dev/null; }; then
	chmod 755 "$WORK"
	e2e_cleanup_hook() { "$xs" stop "$WORK/xrd" >/dev/null 2>&1 || true; }
	"$xs" start "$WORK/xrd" --wrapper "env CORECAP_NET_EVENTS=on $CORECAP run --" \
		>"$WORK/xrd.start" 2>&1 || { cat "$WORK/xrd.start"; echo "FAIL: xrootd under the shim did not start"; exit 1; }
	port=$(sed -n 's/^xrootd port: //p' "$WORK/xrd.start")
	pid=$(sed -n 's/^xrootd pid: //p' "$WORK/xrd.start")
	what="xrootd (CORECAP_NET_EVENTS=on, xrdbench reading)"
	"$XRDBENCH" -p "$port" -t 2 -b 1 -d 2 read >"$WORK/xrdbench.out" 2>&1 &
	xrdbench=$!
	track "$xrdbench"
	sleep 1
else
	echo "xrootd or xrdbench is not here: sleep under the shim stands for a daemon without annotations"
	"$CORECAP" run -- sleep 60 &
	pid=$!
	track "$pid"
	what="sleep"
	for _ in $(seq 100); do
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = sleep ] && break
		sleep 0.05
	done
fi
"$CORECAP" stat -p "$pid" --once --interval 0.5 >"$WORK/plain.txt"
"$CORECAP" stat -p "$pid" --once --json --interval 0.5 >"$WORK/plain.json"
expect_true "$what: the text view says 'ops/s: not annotated'" \
	grep -q '^ops/s: not annotated: the daemon calls no corecap_op_end annotation' "$WORK/plain.txt"
expect_eq "$what: JSON counted, not annotated, no figures" "True False False" \
	"$(json "$WORK/plain.json" "d['ops']['counted'], d['ops']['annotated'], 'per_s' in d['ops']" | tr -d '(),')"
[ -z "${xrdbench:-}" ] || wait "$xrdbench" || true
finish
