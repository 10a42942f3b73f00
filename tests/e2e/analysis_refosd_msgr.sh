#!/usr/bin/env bash
# Known answer: refosd with one messenger thread, many shards and cheap
# ops. Every op passes through the one msgr-worker thread, so that thread
# should bind (kind thread, busy >= 0.85). When something else binds on
# this machine (the finisher, the cores shared with refbench), the report
# must say what, with evidence, and still report the messenger thread.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
need_sessiond
need_refosd

start_refosd msgr --msgr-threads 1 --shards 8 --threads-per-shard 1 --debug 0
run="$WORK/msgr"
record_refbench "$run" -t 32 -b 1 -d 4 write
stop_refosd

j="$run.json"
kind=$(json "$j" "d['ceiling']['kind']")
name=$(json "$j" "d['ceiling']['name']")
util=$(json "$j" "d['ceiling']['utilization']")
msgr=$(json "$j" "[t['busy_util'] for t in d['threads'] if t['name'].startswith('msgr-worker')][0]")
echo "refbench: $(json "$j" "d['benchmark']['summary']['iops_avg']") IOPS; verdict: $(json "$j" "d['ceiling']['verdict']")"
json "$j" "'\n'.join('  - ' + e for e in d['ceiling']['evidence'])"
echo "msgr-worker busy: $msgr"
if [ "$kind" = thread ] && [[ "$name" == msgr-worker* ]]; then
	expect_calc "the msgr-worker thread binds, busy >= 0.85" "$util >= 0.85"
else
	echo "note: the messenger thread does not bind here; the report names $kind '$name'"
	expect_true "something binds (not 'none')" test "$kind" != none
	expect_calc "the binding resource is saturated" "$util >= 0.70"
	expect_calc "the binding resource is at least as busy as the messenger thread" "$util >= $msgr - 1e-9"
	expect_calc "with evidence" "$(json "$j" "len(d['ceiling']['evidence'])") >= 1"
fi
expect_calc "the messenger thread's busy share is reported" "$msgr > 0"
check_conservation msgr "$run.ops"
finish
