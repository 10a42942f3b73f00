#!/usr/bin/env bash
# What `corecap record` says while it records refosd (issue #18):
#  - its banner names the benchmark, past wrappers (nice, env, taskset);
#  - its progress lines (stderr) hold its own figures only, never the
#    benchmark's columns squeezed into them; the benchmark's lines reach
#    stdout with their columns intact;
#  - "samples" means one thing: the wall-clock sampler's stacks;
#  - the report says what its daemon-side latency leaves out of the
#    benchmark's (client, network, messenger), with the benchmark's figure.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
need_sessiond
need_refosd

start_refosd ux --debug 0
"$CORECAP" record -p "$OSD_PID" -o "$WORK/run" --wallclock -- \
	nice -n 1 env CORECAP_UX_TEST=1 taskset -c 0 "$REFBENCH" -p "$OSD_PORT" -t 2 -b 4096 -d 3 write \
	>"$WORK/out" 2>"$WORK/err" || { echo "FAIL: record failed:"; cat "$WORK/err"; exit 1; }
stop_refosd
sed 's/^/    /' "$WORK/err"

expect_true "the banner names refbench, not nice" \
	grep -q "^corecap record: recording PID $OSD_PID (refosd) while '$REFBENCH' runs" "$WORK/err"
grep -E '^corecap record: [0-9]+\.[0-9] s' "$WORK/err" >"$WORK/progress" || true
expect_calc "progress lines ($(wc -l <"$WORK/progress"))" "$(wc -l <"$WORK/progress") >= 2"
own='^corecap record: [0-9]+\.[0-9] s( \| (trace [0-9.]+ MiB|[0-9]+ threads, /proc read [0-9]+ times|wall [0-9]+ samples))*$'
expect_eq "progress lines holding anything but record's own figures" "" "$(grep -vE "$own" "$WORK/progress" || true)"
expect_true "refbench's column header reaches stdout intact" \
	grep -q '^  sec Cur ops   started  finished  avg MB/s  cur MB/s last lat(s)  avg lat(s)$' "$WORK/out"
expect_eq "'samples' in record's output other than the wall sampler's" "" \
	"$(grep -o '[^ ]* [0-9]* *samples' "$WORK/err" | grep -v '^wall [0-9]* samples$' || true)"
expect_true "... which it does say" grep -qE 'wall [0-9]+ samples' "$WORK/progress"

"$CORECAP" report "$WORK/run" >"$WORK/report.txt"
lat=$(awk -F: '/^Average Latency\(s\):/ { gsub(/ /, "", $2); printf "%.3f", $2 * 1e3 }' "$WORK/out")
expect_true "refbench gave its average latency ($lat ms)" test -n "$lat"
expect_true "the report's ops say what the daemon side leaves out of the benchmark's $lat ms" \
	grep -q "daemon side: from an op's begin .*the benchmark's $lat ms avg also holds .*the client, the network both ways, the messenger" "$WORK/report.txt"
finish
