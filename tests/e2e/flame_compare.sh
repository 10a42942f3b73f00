#!/usr/bin/env bash
# `corecap compare` on two known runs: the same load against refosd at
# --debug 0 (A) and --debug 20 (B). Known answer: B logs on every op, A
# does not, so B is slower and the comparison must find the logging
# delta with the right sign and size:
#   - logging per op: about 0 in A (< 5 us), and B - A > 0;
#   - its size: logging is the only cause of the slowdown, so the logging
#     delta is at most the latency delta (x 1.1 for noise), and at least
#     30% of it (the rest is queueing behind the logging: on two shared
#     cores it has measured 45-55%);
#   - IOPS lower in B;
# and --folded gives the same difference per stack, in two columns.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/flame_lib.sh"
need_sessiond
need_refosd

for level in 0 20; do
	start_refosd "debug$level" -- --debug "$level"
	record "$WORK/debug$level" -- -t 4 -b 1 -d 3 write
	stop_refosd
done
a="$WORK/debug0"
b="$WORK/debug20"
status=0
"$CORECAP" compare "$a" "$b" >"$WORK/compare.txt" 2>"$WORK/compare.err" || status=$?
expect_eq "compare exit status" 0 "$status"
cat "$WORK/compare.txt"
"$CORECAP" compare --json "$a" "$b" >"$WORK/compare.json" 2>/dev/null
fig() { json "$WORK/compare.json" "d['figures']$1"; }
log_a=$(fig "['op write']['logging_us']['a']")
log_d=$(fig "['op write']['logging_us']['delta']")
lat_d=$(fig "['op write']['latency_avg_us']['delta']")
echo "logging us/op: A $log_a, B - A $log_d; mean latency B - A $lat_d us"
expect_calc "no logging at debug 0" "$log_a < 5"
expect_calc "logging delta is positive" "$log_d > 0"
expect_calc "logging delta <= 1.1 x latency delta" "$log_d <= 1.1 * $lat_d"
expect_calc "logging delta >= 0.3 x latency delta" "$log_d >= 0.3 * $lat_d"
expect_calc "IOPS lower at debug 20" "$(fig "['benchmark']['iops']['delta']") < 0"
expect_true "text: a logging row" grep -qE '^    logging us/op +[0-9.]+ +[0-9.]+ +\+' "$WORK/compare.txt"
expect_true "text: both diagnoses" grep -q '^diagnosis B ' "$WORK/compare.txt"
expect_true "text: the diagnoses lead, before the headline" \
	awk '/^diagnosis A / { a = NR } /^headline: / { h = NR } END { exit !(a && h && a < h) }' "$WORK/compare.txt"
expect_eq "JSON: each side's diagnosis headline is its ceiling_ line" 1 \
	"$(json "$WORK/compare.json" "int(d['diagnosis_a']['headline'] == d['ceiling_a'] and d['diagnosis_b']['headline'] == d['ceiling_b'] and d['diagnosis_a']['kind'] != '')")"

# The differential folded stacks: write;logging;* grows by the same amount
# per op (B's column is scaled to A's op count: the default for the op kind).
"$CORECAP" compare --folded "$a" "$b" >"$WORK/diff.folded" 2>/dev/null
expect_eq "every line: a stack and two counts" 0 "$(awk 'NF < 3 || $(NF-1) !~ /^[0-9]+$/ || $NF !~ /^[0-9]+$/' "$WORK/diff.folded" | wc -l)"
logging=$(awk '/^write;logging/ { a += $(NF-1); b += $NF } END { printf "%.0f %.0f", a, b }' "$WORK/diff.folded")
read -r fold_a fold_b <<<"$logging"
ops_a=$(fig "['op write']['count']['a']")
expect_calc "folded logging ns / A's ops = compare's logging us/op (B, scaled per op)" \
	"($fold_b / $ops_a / 1000 - $(fig "['op write']['logging_us']['b']"))^2 < 0.01"
expect_calc "folded logging ns / ops = compare's logging us/op (A)" \
	"($fold_a / $ops_a / 1000 - $log_a)^2 < 0.01"
finish
