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

# A report of a point takes the scale run's fit past the point's cores
# (issue #45 item 3): the 1-core point's projection at 2 cores is the
# smaller of the fit's X(2) and one run's constant-demand figure, the
# diagnosis says the fit, and text, JSON and HTML agree.
"$CORECAP" report --json "$s/cores-1" >"$WORK/p1.json" 2>"$WORK/p1.err" ||
	{ echo "FAIL: report of the 1-core point:"; cat "$WORK/p1.err"; exit 1; }
"$CORECAP" report "$s/cores-1" >"$WORK/p1.txt" 2>/dev/null
"$CORECAP" html -o "$WORK/p1.html" "$s/cores-1" 2>/dev/null
expect_eq "the point's report assumes the scale fit" scale_fit \
	"$(json "$WORK/p1.json" "d['ceiling']['assumption']")"
expect_eq "... fitted from the scale run's two points" 2 \
	"$(json "$WORK/p1.json" "d['ceiling']['scale_fit']['points']")"
at2="[p for p in d['ceiling']['projection'] if p['cores'] == 2][0]"
fit2=$(json "$WORK/p1.json" "$at2['fit_iops']")
one2=$(json "$WORK/p1.json" "$at2['one_run_iops']")
p2=$(json "$WORK/p1.json" "$at2['iops']")
usl2=$(json "$s.json" "d['fit']['lambda'] * 2 / (1 + d['fit']['sigma'] + 2 * d['fit']['kappa'])")
echo "2 cores: measured $x2, projected $p2 (fit $fit2, one run $one2)"
expect_calc "the point's fit is the scale run's: X(2) $fit2 vs $usl2" \
	"$fit2 >= 0.999 * $usl2 - 0.1 && $fit2 <= 1.001 * $usl2 + 0.1"
expect_calc "the projection at 2 cores is the smaller of fit and one run" \
	"$p2 >= 0.999 * ($fit2 < $one2 ? $fit2 : $one2) - 0.1 && $p2 <= 1.001 * ($fit2 < $one2 ? $fit2 : $one2) + 0.1"
expect_calc "... and within 10% of the 2-core measurement ($p2 vs $x2)" \
	"$p2 >= 0.9 * $x2 && $p2 <= 1.1 * $x2"
expect_true "the text's PROJECTION says it takes the scale fit" grep -q "take the scale run's fit" "$WORK/p1.txt"
expect_true "the diagnosis's evidence has the fit" grep -q "scale fit" "$WORK/p1.txt"
expect_true "the diagnosis agrees in text, JSON and HTML" \
	python3 "$CORECAP_SRC/tests/e2e/diagnosis_diag_agree.py" "$WORK/p1.txt" "$WORK/p1.json" "$WORK/p1.html"
"$CORECAP" report --json --no-scale "$s/cores-1" >"$WORK/p1-one.json" 2>/dev/null
expect_eq "--no-scale: constant demand again" constant_demand \
	"$(json "$WORK/p1-one.json" "d['ceiling']['assumption']")"
expect_fail_naming "--scale at a directory that is not one" "not a scale directory" \
	"$CORECAP" report --scale "$WORK" "$s/cores-1"
expect_eq "the daemon's threads' affinity is as before" "$before" "$(affinity "$OSD_PID")"
expect_alive "$OSD_PID"
stop_refosd
finish
