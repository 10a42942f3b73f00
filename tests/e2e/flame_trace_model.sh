#!/usr/bin/env bash
# `corecap export --chrome` read by a third importer beside
# flame_chrome_check.py's rules and Chromium: @tracerbench/trace-model's
# buildModel (npm; tests/e2e/js, installed by scripts/install-deps-browser),
# which models every event and needs a category on each, metadata and
# counters included. On the committed golden run: the import succeeds, and
# the model holds the process, every thread by name, and as many slices,
# async ops and counters as the file. The negative control: the same file
# with the metadata events' categories taken out is refused, as corecap's
# exports were before they had them.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/flame_lib.sh"

command -v node >/dev/null || skip "node is not installed (scripts/install-deps-browser installs nodejs and npm)"
[ -d "$CORECAP_SRC/tests/e2e/js/node_modules/@tracerbench/trace-model" ] ||
	skip "@tracerbench/trace-model is not installed in tests/e2e/js (scripts/install-deps-browser runs npm ci there)"
MODEL="$CORECAP_SRC/tests/e2e/flame_trace_model.js"

cd "$GOLDEN"
"$CORECAP" export --chrome --symfs golden-symfs -o "$WORK/trace.json" golden-run 2>/dev/null
status=0
node "$MODEL" "$WORK/trace.json" >"$WORK/model.json" || status=$?
expect_eq "buildModel imports the export (exit status)" 0 "$status"
cat "$WORK/model.json"
count() { json "$WORK/trace.json" "len([e for e in d['traceEvents'] if $1])"; }
expect_eq "one process, named by the trace" "1 corecap_tracege" \
	"$(json "$WORK/model.json" "str(d['processes']) + ' ' + d['process_name']")"
expect_eq "threads in the model = threads named in the file" "$(count "e['ph'] == 'M' and e['name'] == 'thread_name'")" \
	"$(json "$WORK/model.json" "d['named_threads']")"
expect_eq "every thread named" "$(json "$WORK/model.json" "d['threads']")" "$(json "$WORK/model.json" "d['named_threads']")"
expect_eq "X slices" "$(count "e['ph'] == 'X'")" "$(json "$WORK/model.json" "d['slices']")"
expect_eq "async op begins" "$(count "e['ph'] == 'b'")" "$(json "$WORK/model.json" "d['async']")"
expect_eq "counters" "$(count "e['ph'] == 'C'")" "$(json "$WORK/model.json" "d['counters']")"
expect_eq "metadata events" "$(count "e['ph'] == 'M'")" "$(json "$WORK/model.json" "d['metadata']")"
expect_eq "events without a category" 0 "$(json "$WORK/model.json" "d['without_cat']")"
expect_calc "the model holds events" "$(json "$WORK/model.json" "d['events']") > 100"

# The negative control: without the metadata events' categories, buildModel throws.
python3 - "$WORK/trace.json" "$WORK/nocat.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["traceEvents"]:
    if e["ph"] == "M":
        e.pop("cat", None)
json.dump(d, open(sys.argv[2], "w"))
PY
status=0
node "$MODEL" "$WORK/nocat.json" >"$WORK/nocat.out" || status=$?
expect_eq "negative control: metadata without cat is refused (exit status)" 1 "$status"
expect_true "and the model says why" grep -q "split" "$WORK/nocat.out"
finish
