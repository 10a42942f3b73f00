#!/usr/bin/env bash
# A trace with discarded events: corecap_tracegen --fast floods a session
# whose buffers are far too small, so LTTng discards. The report must say
# so, leave out (and count) the ops in flight during a loss, and still
# conserve every op it keeps.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
need_sessiond

run="$WORK/run"
session="corecap-analysis-loss-$$"
_sessions+=("$session")
mkdir -p "$run"
lttng -q create "$session" --output="$run/trace"
lttng -q enable-channel -u -s "$session" --subbuf-size=4096 --num-subbuf=2 tiny
# tracegen's threads only: other annotated processes may run on this machine.
lttng -q enable-event -u -s "$session" -c tiny 'corecap_op:*,corecap_lock:*,corecap_io:*' \
	--filter '$ctx.procname == "tg-worker-*"'
lttng -q add-context -u -s "$session" -c tiny -t vtid -t vpid -t procname
lttng -q start "$session"
"$TRACEGEN" --fast -t 2 -n 100000 >/dev/null
lttng -q stop "$session"
lttng -q destroy "$session"

status=0
"$CORECAP" report --json --dump-ops "$run.ops" "$run" >"$run.json" 2>"$WORK/err" || status=$?
expect_eq "report exit status" 0 "$status"
q="d['quality']"
expect_calc "discarded events counted" "$(json "$run.json" "$q['discarded_events']") > 0"
expect_calc "ops touched by the loss left out" "$(json "$run.json" "d['ops']['excluded']['tainted_by_loss']") > 0"
expect_eq "the warning states the loss" True \
	"$(json "$run.json" "any('lost events' in w for w in $q['warnings'])")"
expect_calc "ops kept" "$(json "$run.json" "d['ops']['count']") > 0"
check_conservation "kept ops" "$run.ops"
# Every op in the dump is either kept or excluded: the counts agree.
expect_eq "excluded ops in the dump = tainted count" \
	"$(json "$run.json" "d['ops']['excluded']['tainted_by_loss']")" \
	"$(awk -F'\t' 'NR > 1 && $13 == 1' "$run.ops" | wc -l)"
"$CORECAP" report "$run" >"$run.txt"
expect_true "text report states the loss" grep -q 'the tracer lost events' "$run.txt"
finish
