#!/usr/bin/env bash
# `corecap compare`'s headline, warnings and per-op folded stacks on
# refosd runs with known differences:
# - A at --debug 0, B at --debug 20 (B logs on every op): the headline
#   reads "B: R x IOPS; latency +D us/op, of which ... logging +L ...",
#   with R < 1, D > 0 and L > 0 (the sign of the logging delta), and L is
#   the per-op logging difference that the JSON figures give (two ways);
#   --folded scales B's column per op (A's ops / B's ops) by default for
#   the op kind, --absolute leaves it as it is, and the two agree.
# - A (shim, trace) against C (refosd under `corecap run --no-shim`,
#   recorded with --no-trace): a warning names the sources that differ,
#   and what C did not measure (lock waits, logging, ops) reads "not
#   measured" (JSON null), never 0.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
need_sessiond
need_refosd

RECORD_OPTS=(--no-kernel)
for level in 0 20; do
	start_refosd "debug$level" --debug "$level"
	record_refbench "$WORK/debug$level" -t 1 -b 1 -d 2 write
	stop_refosd
done
a="$WORK/debug0"
b="$WORK/debug20"
"$CORECAP" compare "$a" "$b" >"$WORK/ab.txt" 2>"$WORK/ab.err" || { cat "$WORK/ab.err"; exit 1; }
"$CORECAP" compare --json "$a" "$b" >"$WORK/ab.json"
head -8 "$WORK/ab.txt"
head_ab=$(json "$WORK/ab.json" "d['headline']")
expect_true "headline: 'B: R x IOPS; latency +D us/op, of which ...'" \
	grep -qE '^B: [0-9.]+x IOPS; latency \+[0-9.]+ us/op, of which ' <<<"$head_ab"
expect_eq "text and JSON carry the same headline" "headline: $head_ab" "$(grep '^headline: ' "$WORK/ab.txt")"
ratio=$(sed -E 's/^B: ([0-9.]+)x IOPS.*/\1/' <<<"$head_ab")
expect_calc "headline: B makes fewer IOPS (debug 20 is slower)" "$ratio < 1"
log_h=$(sed -nE 's/.*[ ,]logging ([-+][0-9.]+).*/\1/p' <<<"$head_ab")
expect_true "headline: names logging's change" test -n "$log_h"
expect_calc "headline: logging's change is positive" "${log_h:-0} > 0"
log_j=$(json "$WORK/ab.json" "d['figures']['op write']['logging_us']['delta']")
expect_calc "headline's logging ($log_h) = the JSON's logging us/op delta ($log_j), to 1%" \
	"(${log_h:-0} - $log_j)^2 <= (0.01 * $log_j)^2 + 0.01"
expect_eq "same daemon, same sources: no warning" 0 "$(json "$WORK/ab.json" "len(d['warnings'])")"

# Per op, the default for the op kind.
"$CORECAP" compare --folded "$a" "$b" >"$WORK/perop.folded" 2>"$WORK/perop.err"
"$CORECAP" compare --folded --absolute "$a" "$b" >"$WORK/abs.folded" 2>"$WORK/abs.err"
ops_a=$(json "$WORK/ab.json" "d['figures']['per op (whole daemon)']['ops']['a']")
ops_b=$(json "$WORK/ab.json" "d['figures']['per op (whole daemon)']['ops']['b']")
expect_true "--folded: says B is scaled per op" grep -q "per op: B's column scaled" "$WORK/perop.err"
expect_true "--absolute: warns that the op counts differ" grep -q "the op counts differ" "$WORK/abs.err"
sum() { awk -v c="$2" '{ s += $(NF - c) } END { printf "%.0f", s }' "$1"; }
expect_eq "column A is the same either way" "$(sum "$WORK/abs.folded" 1)" "$(sum "$WORK/perop.folded" 1)"
expect_calc "per op: B's column = absolute B x A's ops / B's ops (to 0.1%)" \
	"($(sum "$WORK/perop.folded" 0) - $(sum "$WORK/abs.folded" 0) * $ops_a / $ops_b)^2 <= (0.001 * $(sum "$WORK/perop.folded" 0))^2 + 1e4"

# No shim, no trace: not measured, never 0.
RECORD_OPTS=(--no-kernel --no-trace)
launch_refosd noshim "$CORECAP" run --no-shim -- "$REFOSD" --port 0 --debug 0
record_refbench "$WORK/noshim" -t 1 -b 1 -d 2 write
stop_refosd
c="$WORK/noshim"
"$CORECAP" compare "$a" "$c" >"$WORK/ac.txt" 2>"$WORK/ac.err" || { cat "$WORK/ac.err"; exit 1; }
"$CORECAP" compare --json "$a" "$c" >"$WORK/ac.json"
head -8 "$WORK/ac.txt"
expect_true "warning: different sources, only A has the shim" \
	grep -qE '^warning: different sources: only A has the shim' "$WORK/ac.txt"
expect_eq "JSON: B's sources say no shim, no trace" "False False" \
	"$(json "$WORK/ac.json" "str(d['sources_b']['shim']) + ' ' + str(d['sources_b']['trace'])")"
expect_true "text: lock wait us/op of B reads 'not measured'" \
	grep -qE '^  lock wait us/op +[0-9.]+ +not measured *$' "$WORK/ac.txt"
expect_eq "JSON: lock wait us/op of B is null" None \
	"$(json "$WORK/ac.json" "d['figures']['per op (whole daemon)']['lock_wait_us']['b']")"
expect_eq "JSON: logging us/op of B is null" None \
	"$(json "$WORK/ac.json" "d['figures']['per op (whole daemon)']['logging_us']['b']")"
expect_true "headline: latency per op not measured in B" \
	grep -q 'latency per op not measured in B' <<<"$(json "$WORK/ac.json" "d['headline']")"
expect_eq "no lock or logging figure of B reads 0" "" \
	"$(grep -E '^  (lock wait|lock waits|logging)' "$WORK/ac.txt" | awk '$(NF) == "0.00" || $(NF-1) == "0.00"')"
finish
