#!/usr/bin/env bash
# Known answer from futex events alone: refosd --big-lock --op-cpu-us 50
# started bare (no `corecap run`: no shim, no LTTng events), under
# refbench -t 8. `report` exits 0, its futex lock table has the big lock
# named by its data symbol (d.osd.big_lock, taken in osd_handle_op), and
# the ceiling is that lock with source futex. Then the same configuration
# under the shim, recorded with kernel events too: both tables show the big
# lock, and the futex table's wait is within 20% of the shim's in that run.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
. "$CORECAP_SRC/tests/e2e/kernel_analysis_lib.sh"
need_sessiond
need_refosd

# As e2e.analysis_refosd_biglock: few threads, so that on two cores the
# lock, not the cores, binds.
cfg=(--big-lock --op-cpu-us 50 --debug 0 --msgr-threads 1 --shards 2 --threads-per-shard 2)
big="[l for l in d['locks'] if l['name'] == 'd.osd.big_lock' and l['source'] == SRC][0]"

start_bare_refosd bare "${cfg[@]}"
need_kernel_record "$OSD_PID"
run="$WORK/bare"
"$CORECAP" record -q --kernel -p "$OSD_PID" -o "$run" -- \
	"$REFBENCH" -p "$OSD_PORT" --no-progress -t 8 -b 1 -d 4 write >"$run.record.out" 2>&1 ||
	{ echo "FAIL: corecap record failed:"; cat "$run.record.out"; exit 1; }
stop_refosd
expect_all_commands "$run"
j="$run.json"
lock=${big//SRC/\'futex\'}
echo "bare: $(json "$j" "d['benchmark']['summary']['iops_avg']") IOPS; verdict: $(json "$j" "d['ceiling']['verdict']")"
json "$j" "'\n'.join('  - ' + e for e in d['ceiling']['evidence'])"
expect_eq "bare: no shim lock rows" "[]" "$(json "$j" "[l['name'] for l in d['locks'] if l['source'] != 'futex']")"
expect_calc "bare: the big lock's futex row has waits" "$(json "$j" "${lock}['contentions']") > 100"
expect_true "bare: taken in osd_handle_op" grep -q '^osd_handle_op+' <(json "$j" "${lock}['symbol']")
expect_eq "bare: the busiest mutex of the futex table is the big lock" d.osd.big_lock \
	"$(json "$j" "max((l for l in d['locks'] if l['kind'] == 'futex_wait'), key=lambda l: l['busy_util'])['name']")"
expect_eq "bare: ceiling kind" lock "$(json "$j" "d['ceiling']['kind']")"
expect_eq "bare: the ceiling is the big lock" d.osd.big_lock "$(json "$j" "d['ceiling']['name']")"
expect_eq "bare: named from futex events" futex "$(json "$j" "d['ceiling']['source']")"
expect_conservation "$j"

start_refosd shim "${cfg[@]}"
run="$WORK/shim"
"$CORECAP" record -q --kernel -p "$OSD_PID" -o "$run" -- \
	"$REFBENCH" -p "$OSD_PORT" --no-progress -t 8 -b 1 -d 4 write >"$run.record.out" 2>&1 ||
	{ echo "FAIL: corecap record failed:"; cat "$run.record.out"; exit 1; }
stop_refosd
"$CORECAP" report --json "$run" >"$run.json"
j="$run.json"
shim_ns=$(json "$j" "${big//SRC/\'shim\'}['wait_ns']")
futex_ns=$(json "$j" "${big//SRC/\'futex\'}['wait_ns']")
echo "shim run: big lock wait $shim_ns ns by the shim, $futex_ns ns by futex events"
expect_calc "the shim's and the futex table's waits agree within 20%" \
	"$shim_ns > 10000000 && $futex_ns >= 0.8 * $shim_ns && $futex_ns <= 1.2 * $shim_ns"
expect_eq "shim run: the ceiling names the shim's row" shim "$(json "$j" "d['ceiling']['source'] or 'shim'")"
finish
