#!/usr/bin/env bash
# The pictures of the committed golden run (tests/data/analysis, symbols
# post-mortem from golden-symfs), checked against the report of the same
# run: the op flame graph's weights are the report's per-op categories
# times the op counts, the lock flame graph's are the locks' waits; every
# SVG is well-formed with a tooltip per frame; the Chrome trace is what the
# JSON importers accept and holds the run's ops; the HTML page is
# self-contained; a run compared with itself has no delta. Needs nothing
# but the build (no session daemon, no daemon).
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/flame_lib.sh"

cd "$GOLDEN"
sym=(--symfs golden-symfs)
"$CORECAP" report --json "${sym[@]}" golden-run >"$WORK/report.json"

# op: per (type, category), the weight is count x us/op of the report.
status=0
"$CORECAP" flame --kind op "${sym[@]}" golden-run >"$WORK/op.folded" 2>"$WORK/op.err" || status=$?
expect_eq "flame --kind op exit status" 0 "$status"
bad=$(python3 - "$WORK/report.json" "$WORK/op.folded" <<'EOF'
import collections, json, sys
d = json.load(open(sys.argv[1]))
got = collections.Counter()
for line in open(sys.argv[2]):
    stack, w = line.rstrip("\n").rsplit(" ", 1)
    frames = stack.split(";")
    got[(frames[0], frames[1])] += int(w)
bad = []
for name, t in d["ops"]["by_type"].items():
    for cat, us in t["breakdown_us"].items():
        want = us * t["count"] * 1000
        # The report rounds us/op to 1 ns.
        if abs(got[(name, cat)] - want) > t["count"] + 1:
            bad.append(f"{name};{cat}: folded {got[(name, cat)]} ns, report {want:.0f} ns")
print("; ".join(bad) or "none")
EOF
)
expect_eq "op stacks per type and category = the report's count x us/op" none "$bad"
expect_true "op stacks name the queue phase" grep -q '^write;queue;phase queued [0-9]*$' "$WORK/op.folded"
expect_true "op stacks name the lock" grep -q '^write;lock_wait;lock_a [0-9]*$' "$WORK/op.folded"

# lock: the roots are the locks that were waited on, with their waits.
"$CORECAP" flame --kind lock "${sym[@]}" golden-run >"$WORK/lock.folded" 2>/dev/null
expect_eq "lock stacks' total = the locks' total wait" \
	"$(json "$WORK/report.json" "sum(l['wait_ns'] for l in d['locks'])")" \
	"$(folded_total "$WORK/lock.folded")"
expect_eq "lock stack, outermost first under its lock" "lock_a;log_submit;tg_worker_run" \
	"$(cut -d' ' -f1 "$WORK/lock.folded")"

# The kinds the run has no data for say how to record it.
expect_fail_naming "flame --kind cpu without cpu.prof" "corecap run --cpuprofile" \
	"$CORECAP" flame --kind cpu golden-run
expect_fail_naming "flame --kind wall without wall.samples" "corecap record --wallclock" \
	"$CORECAP" flame --kind wall golden-run
status=0
"$CORECAP" flame --kind heap golden-run >/dev/null 2>"$WORK/err" || status=$?
expect_eq "a bad --kind is a usage error" 2 "$status"
expect_true "and says which kinds there are" grep -q "invalid --kind 'heap': expected cpu, wall, lock or op" "$WORK/err"

for kind in op lock; do
	"$CORECAP" flame --kind "$kind" --svg "${sym[@]}" -o "$WORK/$kind.svg" golden-run 2>/dev/null
	check_svg "$kind flame SVG" "$WORK/$kind.svg"
done
expect_true "op SVG tooltip: name, weight and share of the total" \
	grep -q '<title>read (502,119,478 ns, 25.49%)</title>' "$WORK/op.svg"

# The Chrome trace.
"$CORECAP" export --chrome "${sym[@]}" -o "$WORK/trace.json" golden-run 2>"$WORK/export.err"
figures=$(python3 "$CHECK_CHROME" "$WORK/trace.json") || { echo "FAIL: $figures"; _failures=$((_failures + 1)); }
echo "chrome trace: $figures"
expect_eq "async op slices begun = ops traced in the window (+ unfinished, + begun before)" \
	"$(json "$WORK/report.json" "d['ops']['count'] + d['ops']['excluded']['unfinished']")" \
	"$(json "$WORK/trace.json" "len([e for e in d['traceEvents'] if e['ph'] == 'b' and e['cat'] == 'op' and e['name'] in ('read', 'write')])")"
expect_eq "lock wait slices = contentions with a wait" \
	"$(json "$WORK/report.json" "sum(l['contentions'] for l in d['locks'])")" \
	"$(json "$WORK/trace.json" "len([e for e in d['traceEvents'] if e['ph'] == 'X' and e['name'] == 'lock wait'])")"
expect_true "threads named" grep -q '"name":"thread_name","args":{"name":"tg-worker' "$WORK/trace.json"
expect_true "pool CPU counters" grep -q '"name":"pool CPU (cores)","args":{"tg-worker":' "$WORK/trace.json"

# The HTML page: self-contained, with the chart and both flame graphs.
"$CORECAP" html "${sym[@]}" -o "$WORK/page.html" golden-run 2>/dev/null
expect_eq "no script loaded from elsewhere" 0 "$(grep -ciE '<script[^>]* (src|href)=' "$WORK/page.html" || true)"
expect_eq "no reference outside the page" "" \
	"$(grep -oiE '(src|href)="[^"]*"' "$WORK/page.html" | grep -v '^href="data:' || true)"
expect_eq "inline SVGs: the chart and the op and lock flame graphs" 3 "$(grep -c '^<svg' "$WORK/page.html")"
expect_true "the page says why there is no CPU flame graph" grep -q 'corecap run --cpuprofile' "$WORK/page.html"
expect_true "the page has the report's verdict" grep -q 'class="verdict"' "$WORK/page.html"

# A run compared with itself.
"$CORECAP" compare --json "${sym[@]}" golden-run golden-run >"$WORK/compare.json" 2>/dev/null
expect_eq "self-comparison: every delta 0" "[]" \
	"$(json "$WORK/compare.json" "[(s, k) for s, f in d['figures'].items() for k, v in f.items() if v['delta'] not in (0, None)]")"
"$CORECAP" compare --folded "${sym[@]}" golden-run golden-run >"$WORK/diff.folded" 2>/dev/null
expect_eq "differential folded: both columns equal" 0 "$(awk '$(NF-1) != $NF' "$WORK/diff.folded" | wc -l)"
expect_eq "differential folded: the op stacks" "$(wc -l <"$WORK/op.folded")" "$(wc -l <"$WORK/diff.folded")"
finish
