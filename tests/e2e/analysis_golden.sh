#!/usr/bin/env bash
# `corecap report` on the committed golden run (tests/data/analysis,
# recorded by analysis_golden_record.sh) prints exactly the committed
# JSON and text: the reader, the model and both renderings, post-mortem
# (symbols from golden-symfs), byte for byte.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"

cd "$DATA"
for fmt in json txt; do
	opts=(--symfs golden-symfs)
	[ "$fmt" = json ] && opts+=(--json)
	status=0
	"$CORECAP" report "${opts[@]}" golden-run >"$WORK/out.$fmt" || status=$?
	expect_eq "report ($fmt) exit status" 0 "$status"
	_checks=$((_checks + 1))
	if diff -u "golden-run.expect.$fmt" "$WORK/out.$fmt" >"$WORK/diff.$fmt"; then
		echo "ok: $fmt output matches golden-run.expect.$fmt"
	else
		echo "FAIL: $fmt output differs from golden-run.expect.$fmt:"
		head -60 "$WORK/diff.$fmt"
		_failures=$((_failures + 1))
	fi
done
# The golden run is small and stays so.
expect_calc "golden run size (KiB)" "$(du -sk golden-run | cut -f1) < 200"
expect_eq "JSON ceiling kind" none "$(json "$WORK/out.json" "d['ceiling']['kind']")"
expect_eq "every op conserved" 0 "$(json "$WORK/out.json" "d['ops']['conservation']['violations']")"
finish
