#!/usr/bin/env bash
# `corecap compare`'s errors, on the committed golden run (no daemon, no
# session daemon, about 1 s):
# - one run missing (either side, and with --svg): one line naming it on
#   stderr, nothing on stdout, exit 1, no SVG file left behind;
# - one operand: a one-line error and a one-line usage hint, exit 2;
# - a run compared with itself: no delta, no ratio of near-zero values, no
#   row zero in both runs, and its configuration said to be the same or
#   not recorded, never as a difference.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"

cd "$DATA"
sym=(--symfs golden-symfs)
missing="$WORK/no-such-run"

# expect_missing WHAT ARGS...: exit 1, one stderr line naming the run, no stdout.
expect_missing() {
	local what=$1 status=0
	shift
	"$CORECAP" compare "$@" >"$WORK/out" 2>"$WORK/err" || status=$?
	expect_eq "$what: exit status" 1 "$status"
	expect_eq "$what: one line on stderr" 1 "$(wc -l <"$WORK/err")"
	expect_eq "$what: the error" \
		"corecap compare: cannot open run directory '$missing': No such file or directory" \
		"$(cat "$WORK/err")"
	expect_eq "$what: nothing on stdout" 0 "$(wc -c <"$WORK/out")"
}
expect_missing "B missing" "${sym[@]}" golden-run "$missing"
expect_missing "A missing" "${sym[@]}" "$missing" golden-run
expect_missing "B missing, --json" --json "${sym[@]}" golden-run "$missing"
expect_missing "B missing, --svg" --svg "$WORK/d.svg" "${sym[@]}" golden-run "$missing"
expect_true "--svg: no file left behind" test ! -e "$WORK/d.svg"

status=0
"$CORECAP" compare golden-run >"$WORK/out" 2>"$WORK/err" || status=$?
expect_eq "one operand: exit status" 2 "$status"
expect_eq "one operand: an error and a usage hint" \
	"corecap compare: expected two run directories, got 1 argument|usage: corecap compare [options] RUN_A RUN_B; see 'corecap compare --help'" \
	"$(paste -sd'|' "$WORK/err")"

"$CORECAP" compare "${sym[@]}" golden-run golden-run >"$WORK/self.txt"
"$CORECAP" compare --json "${sym[@]}" golden-run golden-run >"$WORK/self.json"
expect_eq "self: no configuration difference" "[]" "$(json "$WORK/self.json" "d['config']")"
expect_true "self: the configuration line" grep -qE '^config:   (the same in both: |no command line recorded)' "$WORK/self.txt"
expect_eq "self: no 0.00x ratio" 0 "$(grep -c ' 0\.00x$' "$WORK/self.txt" || true)"
expect_eq "self: every ratio 1.00x" "" "$(grep -E 'x$' "$WORK/self.txt" | grep -v ' 1\.00x$' || true)"
expect_eq "self: no row zero in both runs" "[]" \
	"$(json "$WORK/self.json" "[k for s in d['figures'].values() for k, v in s.items() if v['a'] == 0 and v['b'] == 0]")"
expect_eq "self: no diagnosis change" None "$(json "$WORK/self.json" "d['diagnosis_change']")"
finish
