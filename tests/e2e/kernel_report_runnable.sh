#!/usr/bin/env bash
# Known answer, through the report: two threads spin on one CPU (taskset),
# so each waits for it about half of its time. The report's kernel states
# (states_source kernel) give each spinner a runnable share of at least
# 0.4 of its spinning time (more when other work shares that CPU), running
# shares alike and together at most the one CPU, and every thread's four
# states sum to its span exactly (conservation).
set -euo pipefail
. "${CORECAP_SRC:?}/tests/e2e/kernel_lib.sh"
. "$CORECAP_SRC/tests/e2e/kernel_analysis_lib.sh"
need_kernel
command -v taskset >/dev/null || skip "taskset is not installed"

start_workload s taskset -c 0 "$WORKLOAD" spin 2
run="$WORK/run"
status=0
"$CORECAP" record -p "$WL_PID" -o "$run" --no-trace --kernel -q -- \
	sh -c "$(workload_bench s)" >"$WORK/rec.out" 2>"$WORK/rec.err" || status=$?
expect_eq "record exits" 0 "$status"
[ "$status" = 0 ] || { cat "$WORK/rec.err"; exit 1; }
"$CORECAP" report --json "$run" >"$run.json"
"$CORECAP" report "$run" >"$run.txt"
j="$run.json"
expect_conservation "$j"
shares=()
tids=()
for tid in $(awk '/^thread / { print $2 }' "$WORK/s.out"); do
	th="[t for t in d['threads'] if t['tid'] == $tid][0]"
	expect_eq "thread $tid: states from the kernel" kernel "$(json "$j" "${th}['states_source']")"
	k="${th}['kernel_states']"
	# The spinning part of the window: running + runnable (it blocks for good after).
	rq=$(json "$j" "${k}['runnable_ns'] / (${k}['running_ns'] + ${k}['runnable_ns'])")
	run_share=$(json "$j" "${k}['running_ns'] / (${k}['running_ns'] + ${k}['runnable_ns'])")
	echo "thread $tid: runnable $rq, running $run_share of its spinning time"
	expect_calc "thread $tid: runnable about half or more (>= 0.4)" "$rq >= 0.4"
	expect_eq "thread $tid: its report cpu_ns is the kernel's running time" \
		"$(json "$j" "${k}['running_ns']")" "$(json "$j" "${th}['cpu_ns']")"
	shares+=("$run_share")
	tids+=("$tid")
done
# While one spinner runs, the other waits for the CPU: each one's runnable
# time holds at least the other's running time (within 10%).
for i in 0 1; do
	me="[t for t in d['threads'] if t['tid'] == ${tids[$i]}][0]['kernel_states']"
	other="[t for t in d['threads'] if t['tid'] == ${tids[$((1 - i))]}][0]['kernel_states']"
	expect_calc "thread ${tids[$i]}: runnable >= 0.9 x the other's running" \
		"$(json "$j" "${me}['runnable_ns']") >= 0.9 * $(json "$j" "${other}['running_ns']")"
done
# One CPU: together they ran at most all of it (runnable time is not running time).
expect_calc "the two spinners ran at most one CPU's time together (${shares[*]})" \
	"${shares[0]} + ${shares[1]} <= 1.02"
expect_calc "the two spinners ran alike (${shares[*]})" \
	"${shares[0]} >= 0.6 * ${shares[1]} && ${shares[1]} >= 0.6 * ${shares[0]}"
expect_true "the text shows the kernel states" grep -q '^states     (kernel' "$run.txt"
finish
