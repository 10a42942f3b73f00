#!/usr/bin/env bash
# `corecap stat`'s ops/s (issue 47 item 2): the shim's op counter, which
# corecap/annotate.h's corecap_op_end and corecap_op_end_exit add to.
#  - refosd (annotated) under the shim with refbench writing: the mean
#    ops/s of stat's intervals in the middle of the benchmark is within
#    15% of refbench's Average IOPS, and the total since the shim started
#    equals refbench's writes made (the daemon served nothing else); the
#    text view prints the ops/s line; idle, an interval shows 0 ops,
#    annotated, and the total unchanged;
#    its reply counter (layout version 4), kept whether or not a daemon
#    is annotated, equals its op counter: every op was one reply;
#  - refosd without the shim serves refbench as before (the annotations'
#    lookup found no counter and costs nothing but a branch);
#  - a daemon that calls no annotation under the shim (xrootd with
#    xrdbench reading, whose ops report detects from its socket I/O):
#    "ops/s: N detected" in text, source "replies" in JSON, a rate above 0,
#    and the replies of xrdbench's run its reads made plus its connections'
#    setup (handshake, login, open, close: at most 10 per connection);
#    sleep (when xrootd is not installed) replies nothing: 0 detected ops/s.
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
expect_eq "idle: counted, layout version 4" "True 4" \
	"$(json "$WORK/idle.json" "d['ops']['counted'], d['ops']['layout_version']" | tr -d '(),')"
expect_eq "idle: no op in the interval" 0 "$(json "$WORK/idle.json" "d['ops']['interval']")"
total=$(json "$WORK/idle.json" "d['ops']['total']")
expect_eq "idle: the ops' source is the annotations" annotations "$(json "$WORK/idle.json" "d['ops']['source']")"
expect_eq "idle: the replies since the shim started are the ops ended ($total)" "$total" \
	"$(json "$WORK/idle.json" "d['ops']['replies']['total']")"
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
	"$xs" start "$WORK/xrd" --wrapper "$CORECAP run --" \
		>"$WORK/xrd.start" 2>&1 || { cat "$WORK/xrd.start"; echo "FAIL: xrootd under the shim did not start"; exit 1; }
	port=$(sed -n 's/^xrootd port: //p' "$WORK/xrd.start")
	pid=$(sed -n 's/^xrootd pid: //p' "$WORK/xrd.start")
	what="xrootd (xrdbench reading)"
	"$CORECAP" stat -p "$pid" --once --json --interval 0.1 >"$WORK/before.json"
	"$XRDBENCH" -p "$port" -t 2 -b 1 -d 3 read >"$WORK/xrdbench.out" 2>&1 &
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
"$CORECAP" stat -p "$pid" --json -d 1 --interval 0.5 >"$WORK/plain.json"
expect_true "$what: the text view says 'ops/s: N detected'" \
	grep -Eq '^ops/s: [0-9]+\.[0-9] detected \([0-9]+ replies in the interval, [0-9]+ since the shim started: a socket write after a read' "$WORK/plain.txt"
last='[json.loads(l) for l in open(sys.argv[1])][-1]'
expect_eq "$what: JSON counted, not annotated, its source the replies" "True False replies" \
	"$(python3 -c "import json, sys; d = $last; print(d['ops']['counted'], d['ops']['annotated'], d['ops']['source'])" "$WORK/plain.json")"
rate=$(python3 -c "import json, sys; d = $last; print('%.0f' % (sum(json.loads(l)['ops']['per_s'] for l in open(sys.argv[1])) / sum(1 for l in open(sys.argv[1]))))" "$WORK/plain.json")
if [ -n "${xrdbench:-}" ]; then
	wait "$xrdbench" || { echo "FAIL: xrdbench failed:"; cat "$WORK/xrdbench.out"; exit 1; }
	"$CORECAP" stat -p "$pid" --once --json --interval 0.1 >"$WORK/after.json"
	iops=$(awk -F: '/^Average IOPS/ { gsub(/ /, "", $2); print $2 }' "$WORK/xrdbench.out")
	reads=$(awk -F: '/^Total reads made/ { gsub(/ /, "", $2); print $2 }' "$WORK/xrdbench.out")
	replies=$(($(json "$WORK/after.json" "d['ops']['total']") - $(json "$WORK/before.json" "d['ops']['total']")))
	echo "xrootd: stat's detected ops/s $rate (xrdbench's average IOPS $iops); $replies replies in xrdbench's run, which made $reads reads on 2 connections"
	expect_calc "xrootd: detected ops/s above 0" "$rate > 0"
	expect_calc "xrootd: the replies ($replies) are xrdbench's reads ($reads) and at most 10 per connection" \
		"$replies >= $reads && $replies <= $reads + 20"
else
	expect_eq "sleep: no reply, 0 detected ops/s" 0 "$rate"
fi
finish
