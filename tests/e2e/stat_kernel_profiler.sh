#!/usr/bin/env bash
# `corecap stat --kernel` leaves the profiler's own threads and locks out of
# its tables, as `corecap report` does (issue #41 item 3): refosd under the
# shim runs LTTng-UST's listener threads ("refosd-ust"), which wait on
# futexes of their own all interval long. Under refbench -t 4:
#  - one --once --json interval: no thread or pool of the profiler's name
#    in its tables, profiler.threads counts them (>= 1), kept false, and the
#    daemon's own threads are there (tp_osd_tp);
#  - with --keep-profiler: they are, kept true, the same count;
#  - the text view says how many it left out and how to keep them.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
. "$CORECAP_SRC/tests/e2e/kernel_analysis_lib.sh"
need_refosd
need_sessiond

start_refosd osd --debug 0 --op-cpu-us 50
need_kernel_record "$OSD_PID"
export TMPDIR="$WORK/tmp"
mkdir -p "$TMPDIR"
ust=$(cat /proc/"$OSD_PID"/task/*/comm | grep -c -- '-ust$' || true)
expect_calc "refosd under the shim runs LTTng-UST's threads ($ust)" "$ust >= 1"

"$REFBENCH" -p "$OSD_PORT" -t 4 -b 1 -d 8 --no-progress write >"$WORK/bench.out" 2>&1 &
bench=$!
track "$bench"
sleep 1
stat_k() { "$CORECAP" stat -p "$OSD_PID" --kernel --once --interval 1 "$@"; }
stat_k --json >"$WORK/cut.json"
stat_k --json --keep-profiler >"$WORK/kept.json"
stat_k >"$WORK/cut.txt"
wait "$bench"

# names FILE: every thread's and pool's name, one per line.
names() { json "$1" "'\\n'.join([t['name'] for t in d['threads']] + [p['name'] for p in d['pools']])"; }
expect_eq "cut: no thread or pool of the profiler's in the tables" "" "$(names "$WORK/cut.json" | grep -- '-ust$' || true)"
expect_true "cut: the daemon's workers are" grep -qx 'tp_osd_tp' <(names "$WORK/cut.json")
expect_calc "cut: profiler.threads counts the ones left out ($(json "$WORK/cut.json" "d['profiler']['threads']"))" \
	"$(json "$WORK/cut.json" "d['profiler']['threads']") >= 1"
expect_eq "cut: kept is false" False "$(json "$WORK/cut.json" "d['profiler']['kept']")"
expect_true "kept: with --keep-profiler, the profiler's threads are in the table" \
	grep -q -- '-ust$' <(names "$WORK/kept.json")
expect_eq "kept: kept is true" True "$(json "$WORK/kept.json" "d['profiler']['kept']")"
expect_calc "kept: the profiler's threads are counted as before" \
	"$(json "$WORK/kept.json" "d['profiler']['threads']") >= 1"
expect_true "text: it says what it left out and how to keep it" \
	grep -Eq '^profiler: [1-9][0-9]* of its threads and [0-9]+ of its locks left out .*--keep-profiler keeps them' "$WORK/cut.txt"
finish
