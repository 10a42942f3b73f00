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

# Few threads and no debug log: on two cores every runnable thread of the
# daemon competes with the lock holder, and a preempted holder stretches
# its hold past the 50 us of CPU the test compares against.
start_refosd big --big-lock --op-cpu-us 50 --debug 0 --msgr-threads 1 --shards 2 \
	--threads-per-shard 2
run="$WORK/big"
record_refbench "$run" -t 16 -b 1 -d 4 write
stop_refosd

j="$run.json"
iops=$(json "$j" "d['benchmark']['summary']['iops_avg']")
echo "refbench: $iops IOPS; verdict: $(json "$j" "d['ceiling']['verdict']")"
json "$j" "'\n'.join('  - ' + e for e in d['ceiling']['evidence'])"
# The big lock: taken in osd_handle_op, the most held of those.
lock="sorted([l for l in d['locks'] if (l['symbol'] or '').startswith('osd_handle_op+')], key=lambda l: -l['hold_util'])[0]"
echo "big lock: $(json "$j" "$lock['name']"), hold_util $(json "$j" "$lock['hold_util']"), busy_util $(json "$j" "$lock['busy_util']")"
# Two verdicts (docs/methodology.md, "Projection" and "The ceiling"): the
# daemon's own limit is the big lock whatever the machine does; the
# report's ceiling (the daemon's resource that binds) is the lock too
# unless the cores were taken from the daemon (other processes, or the
# hypervisor's steal, leave its threads runnable), when nothing of the
# daemon is saturated: none, with the run-queue wait in its evidence.
echo "daemon's limit: $(json "$j" "d['ceiling']['daemon_limit']['verdict']")"
expect_eq "the daemon's limit is a lock" lock "$(json "$j" "d['ceiling']['daemon_limit']['kind']")"
expect_eq "... the big lock" "$(json "$j" "$lock['name']")" "$(json "$j" "d['ceiling']['daemon_limit']['name']")"
kind=$(json "$j" "d['ceiling']['kind']")
if [ "$kind" = lock ]; then
	expect_eq "the ceiling is the big lock" "$(json "$j" "$lock['name']")" "$(json "$j" "d['ceiling']['name']")"
	expect_true "the verdict says more cores will not help" \
		grep -q "more cores will not help" <(json "$j" "d['ceiling']['verdict']")
	expect_calc "ceiling utilization >= 0.85" "$(json "$j" "d['ceiling']['utilization']") >= 0.85"
else
	expect_eq "the ceiling is the big lock, or none when the cores were taken" none "$kind"
	expect_true "... and its evidence has the threads' wait for a CPU" \
		grep -q "waited for a CPU" <(json "$j" "'\\n'.join(d['ceiling']['evidence'])")
fi
hold=$(json "$j" "$lock['hold_util']")
expected=$(calc "$iops * 50e-6")
echo "hold_util $hold vs IOPS x 50 us = $expected"
expect_calc "hold_util within 20% of IOPS x 50 us" "($hold - $expected) <= 0.2 * $expected && ($expected - $hold) <= 0.2 * $expected"
check_conservation biglock "$run.ops"
finish
