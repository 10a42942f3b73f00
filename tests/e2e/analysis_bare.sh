#!/usr/bin/env bash
# Runs without a trace are first-class: refosd started bare (no `corecap
# run`, so no shim, no LTTng events, no stats file), recorded with the
# LTTng session on (the daemon is not registered: the trace holds nothing
# of it) and with --no-trace. Every analysis command exits 0; what no
# source measured is null in JSON (never 0) and "not measured" in text;
# what was measured (threads' CPU) is there. Then the same daemon under
# the shim with --no-trace: its lock counters are numbers, not nulls.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
. "$CORECAP_SRC/tests/e2e/kernel_analysis_lib.sh"
need_sessiond
need_refosd

nokernel=$(record_opts_without_kernel)
start_bare_refosd bare --big-lock --op-cpu-us 50
for mode in lttng notrace; do
	run="$WORK/bare-$mode"
	opts=(-q -p "$OSD_PID" -o "$run")
	[ "$mode" = notrace ] && opts+=(--no-trace)
	[ -n "$nokernel" ] && opts+=("$nokernel")
	"$CORECAP" record "${opts[@]}" -- "$REFBENCH" -p "$OSD_PORT" --no-progress -t 8 -b 1 -d 1 write \
		>"$run.record.out" 2>&1 || { echo "FAIL: corecap record ($mode) failed:"; cat "$run.record.out"; exit 1; }
	expect_all_commands "$run"
	j="$run.json"
	echo "$mode: $(json "$j" "d['quality']['warnings']")"
	expect_eq "$mode: ops.count is null" None "$(json "$j" "d['ops']['count']")"
	expect_eq "$mode: traced ops/s is null" None "$(json "$j" "d['benchmark']['traced_ops_per_s']")"
	expect_eq "$mode: locks is null" None "$(json "$j" "d['locks']")"
	expect_eq "$mode: no thread has a lock/cond/io/logging figure" "[]" \
		"$(json "$j" "[t['tid'] for t in d['threads'] if any(t[k] is not None for k in ('lock_wait_ns', 'cond_wait_ns', 'logging_ns', 'io_ns', 'contentions'))]")"
	expect_eq "$mode: no pool has a lock/cond/io/logging share" "[]" \
		"$(json "$j" "[p['name'] for p in d['pools'] if p['states'] and any(p['states'][k] is not None for k in ('lock_wait', 'cond_wait', 'io', 'logging', 'other'))]")"
	expect_calc "$mode: threads' CPU measured" \
		"$(json "$j" "len([t for t in d['threads'] if t['cpu_util'] is not None])") >= 10"
	expect_true "$mode: text says the ops are not measured" grep -q '^ops        not measured' "$run.txt"
	expect_true "$mode: text says the locks are not measured" grep -q '^locks      not measured' "$run.txt"
	expect_true "$mode: text says the wait columns are not measured" \
		grep -q 'lock, cond, io, log: not measured' "$run.txt"
	expect_true "$mode: html says not measured" grep -q 'not measured' "$run.html"
done
stop_refosd

# Under the shim, without a trace: the shim's counters are measured figures.
start_refosd shim --big-lock --op-cpu-us 50
run="$WORK/shim-notrace"
opts=(-q -p "$OSD_PID" -o "$run" --no-trace)
[ -n "$nokernel" ] && opts+=("$nokernel")
"$CORECAP" record "${opts[@]}" -- "$REFBENCH" -p "$OSD_PORT" --no-progress -t 8 -b 1 -d 1 write \
	>"$run.record.out" 2>&1 || { echo "FAIL: corecap record (shim) failed:"; cat "$run.record.out"; exit 1; }
stop_refosd
expect_all_commands "$run"
j="$run.json"
expect_calc "shim: its locks are listed" "$(json "$j" "len(d['locks'] or [])") >= 1"
big="sorted(d['locks'], key=lambda l: -(l['contentions'] or 0))[0]"
expect_calc "shim: the big lock's contentions are a number > 0" "$(json "$j" "${big}['contentions']") > 0"
expect_calc "shim: its acquisitions are counted" "$(json "$j" "${big}['acquisitions']") > 0"
expect_eq "shim: its max wait (events only) is null" None "$(json "$j" "${big}['max_wait_ns']")"
expect_eq "shim: ops still not measured" None "$(json "$j" "d['ops']['count']")"
finish
