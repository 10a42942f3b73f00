#!/usr/bin/env bash
# Known answer (issue #45): a daemon whose ops are independent scales with
# the cores. refosd with 8 workers (4 shards of 2) burning 100 us of CPU
# per op and no global lock, refbench -t 32: `corecap scale --cores 1,2`
# must measure at 2 cores at least 1.7 times the 1-core throughput, and
# fit a small contention term (sigma <= 0.2). On 2 CPUs the benchmark and
# the recorder share the daemon's CPUs at the 2-core point: the points are
# recorded without kernel events (--record-opt=--no-kernel), whose reader
# took about half a core there.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/scale_lib.sh"
need_sessiond
need_refosd
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (the points at 1 and 2 cores)"
skip_if_others_busy "${SCALE_OTHERS_MAX:-0.5}" "the points' throughput cannot be measured"

start_refosd lin --op-cpu-us 100 --debug 0 --shards 4 --threads-per-shard 2
before=$(affinity "$OSD_PID")
s="$WORK/scale"
"$CORECAP" scale -p "$OSD_PID" --cores 1,2 -o "$s" --json --record-opt=--no-kernel -- \
	"$REFBENCH" -p "$OSD_PORT" --no-progress -t 32 -b 1 -d 3 write >"$s.json" 2>"$s.err" ||
	{ echo "FAIL: corecap scale failed:"; cat "$s.err"; exit 1; }
"$CORECAP" scale --report "$s" 2>/dev/null
skip_if_points_busy "$s" "${SCALE_POINT_OTHERS_MAX:-0.35}"
x1=$(iops_at "$s" 1)
x2=$(iops_at "$s" 2)
echo "1 core: $x1 ops/s, 2 cores: $x2 ops/s ($(calc "$x2 / $x1")x)"
expect_calc "2-core throughput at least 1.7x the 1-core ($x2 vs $x1)" "$x2 >= 1.7 * $x1"
sigma=$(json "$s.json" "d['fit']['sigma']")
expect_calc "the contention term is small (sigma $sigma <= 0.2)" "$sigma <= 0.2"
expect_eq "two core counts: kappa held at 0" True "$(json "$s.json" "d['fit']['kappa_held']")"
expect_eq "no interval from two points, and the output says why" "None True" \
	"$(json "$s.json" "'%s %s' % (d['fit']['interval'], 'parameters' in d['fit']['interval_why_not'])")"
expect_eq "the daemon's threads' affinity is as before" "$before" "$(affinity "$OSD_PID")"
expect_alive "$OSD_PID"
stop_refosd
finish
