#!/usr/bin/env bash
# Known answer: refosd --big-lock --op-cpu-us 50 under refbench -t 16.
# Every op holds one global mutex for at least 50 us of CPU, so that lock
# is the ceiling: the report must name it (kind lock, utilization >=
# 0.85), find its hold utilization within 20% of IOPS x 50 us, and say
# that more cores will not help. Every op must conserve its latency.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
need_sessiond
need_refosd

start_refosd big --big-lock --op-cpu-us 50
run="$WORK/big"
record_refbench "$run" -t 16 -b 1 -d 4 write
stop_refosd

j="$run.json"
iops=$(json "$j" "d['benchmark']['summary']['iops_avg']")
echo "refbench: $iops IOPS; verdict: $(json "$j" "d['ceiling']['verdict']")"
json "$j" "'\n'.join('  - ' + e for e in d['ceiling']['evidence'])"
expect_eq "ceiling kind" lock "$(json "$j" "d['ceiling']['kind']")"
expect_calc "ceiling utilization >= 0.85" "$(json "$j" "d['ceiling']['utilization']") >= 0.85"
expect_true "the verdict says more cores will not help" \
	grep -q "more cores will not help" <(json "$j" "d['ceiling']['verdict']")
# The ceiling's lock is the one taken in osd_handle_op, and held ~ IOPS x 50 us.
lock="[l for l in d['locks'] if l['name'] == d['ceiling']['name']][0]"
expect_true "the ceiling's lock is taken in osd_handle_op" \
	grep -q "^osd_handle_op+" <(json "$j" "$lock['symbol']")
hold=$(json "$j" "$lock['hold_util']")
expected=$(calc "$iops * 50e-6")
echo "hold_util $hold vs IOPS x 50 us = $expected"
expect_calc "hold_util within 20% of IOPS x 50 us" "($hold - $expected) <= 0.2 * $expected && ($expected - $hold) <= 0.2 * $expected"
check_conservation biglock "$run.ops"
finish
