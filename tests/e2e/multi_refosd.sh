#!/usr/bin/env bash
# Several daemons in one record (issue #21): every source is the right
# daemon's. Two reference daemons under `corecap run` (shim, LTTng) are
# recorded in one window with the trace, the wall-clock sampler and the
# kernel events; the benchmark drives daemon A only, B stays idle. A's run
# holds the ops, the socket I/O, the kernel's running time; B's none of
# the ops and a small part of the rest; each run's threads are its daemon's
# (/proc/PID/task), and the merged report gives A the cores.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
need_refosd
need_sessiond
cd "$WORK"

start_refosd a
a=$OSD_PID a_port=$OSD_PORT
start_refosd b
b=$OSD_PID
rc=0
"$CORECAP" record -q --wallclock -p "$a,$b" -o run -- \
	"$REFBENCH" -p "$a_port" --no-progress -t 4 -d 3 write >record.out 2>record.err || rc=$?
cat record.err
expect_eq "record exit status" 0 "$rc"
[ "$rc" -eq 0 ] || { finish; exit 1; }
for p in "$a" "$b"; do
	m=run/daemons/$p/manifest.json
	expect_eq "PID $p's run: its PID, complete, registered with LTTng, every source" \
		"$p complete True True True True True" \
		"$(json "$m" 'd["pid"], d["status"], d["lttng"]["target_registered"], d["sources"]["stats"], d["sources"]["wall"], d["sources"]["kernel"], d["sources"]["threads"]' | tr -d "(),'")"
	"$CORECAP" report --json "run:$p" >"$p.json"
	# Every thread of its run is a thread of its daemon.
	expect_eq "PID $p's threads are its own (/proc/$p/task)" "" \
		"$(json "$p.json" '" ".join(str(t["tid"]) for t in d["threads"])' | tr ' ' '\n' |
			while read -r t; do [ -e "/proc/$p/task/$t" ] || echo "$t"; done)"
done
ops() { json "$1.json" 'd["ops"]["count"]'; }
net() { json "$1.json" 'sum(c["calls"] for c in d["io_classes"] if c["class"] in ("net", "other"))'; }
# The kernel events' running time of a daemon's threads (the wall sampler's stops switch B's too).
running() { json "$1.json" 'sum((t["kernel_states"] or {}).get("running_ns", 0) for t in d["threads"]) / 1e6'; }
wall() { json "run/daemons/$1/manifest.json" 'd["wallclock"]["samples"]'; }
echo "ops A $(ops "$a") B $(ops "$b"); socket calls A $(net "$a") B $(net "$b"); kernel running ms A $(running "$a") B $(running "$b"); wall samples A $(wall "$a") B $(wall "$b")"
expect_calc "the trace: A's ops are A's" "$(ops "$a") > 50"
expect_eq "and B, idle, has none" 0 "$(ops "$b")"
expect_calc "the shim's counters: A's socket I/O is 10x B's" "$(net "$a") > 10 * $(net "$b")"
expect_calc "the kernel events: A's threads ran 5x B's" "$(running "$a") > 5 * $(running "$b")"
expect_calc "the wall sampler took both" "$(wall "$a") > 0 && $(wall "$b") > 0"
"$CORECAP" flame --kind wall -o "a.folded" "run:$a" 2>/dev/null
expect_true "flame RUN:PID: A's wall-clock stacks" test -s a.folded
"$CORECAP" report --json run >run.json
expect_eq "the merged report lists A then B" "$a $b" "$(json run.json '" ".join(str(x["pid"]) for x in d["daemons"])')"
expect_calc "and gives A the cores" \
	"$(json run.json 'd["merged"]["cores_used_per_daemon"][0]["cores_used"]') > 3 * $(json run.json 'd["merged"]["cores_used_per_daemon"][1]["cores_used"]')"
expect_eq "merged cores = A's + B's" 1 \
	"$(json run.json 'int(abs(d["merged"]["cores_used"] - sum(x["cores_used"] for x in d["merged"]["cores_used_per_daemon"])) < 0.01)')"
finish
