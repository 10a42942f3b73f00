#!/usr/bin/env bash
# `corecap html`'s tables: every table sorts on a header click (one inline
# script, nothing fetched), names in the lock table are elided with the
# whole name in the title, and a Ceph OSD's OpTracker ops are tables of
# their own (types, phases) and the op flame graph, also without a trace.
# In headless chromium (when installed), clicking the threads table's tid
# header orders its rows by tid, descending, then ascending.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
cd "$DATA"
sym=(--symfs golden-symfs)
page="$WORK/page.html"
"$CORECAP" html "${sym[@]}" -o "$page" golden-run 2>/dev/null
expect_eq "one script, inline" "1 0" "$(grep -c '<script>' "$page") $(grep -ciE '<script[^>]* src=' "$page" || true)"
expect_eq "no reference outside the page" "" \
	"$(grep -oiE '(src|href)="[^"]*"' "$page" | grep -v '^href="data:' || true)"
expect_calc "ops, pools, threads and locks tables sort" "$(grep -c '<table class="sortable">' "$page") >= 4"
expect_true "lock names: the whole name in the title, at most 60 characters shown" python3 -c "
import html, re, sys
t = open('$page').read()
t = t[t.index('<h2>Locks'):]
cells = re.findall(r'<tr><td>(?:<details><summary>)?<span title=\"([^\"]*)\">([^<]*)</span>', t)
sys.exit(not cells or any(len(html.unescape(shown)) > 60 or (shown != full and '\u2026' not in shown) for full, shown in cells))"

# An OSD's OpTracker without a trace: the golden run without trace/, its
# ceph/ the committed dump_historic_ops (tests/data/ceph).
run="$WORK/osd"
cp -r golden-run "$run"
rm -rf "$run/trace"
python3 -c "
import json
m = json.load(open('$run/manifest.json'))
m['sources']['trace'] = False
json.dump(m, open('$run/manifest.json', 'w'))"
mkdir "$run/ceph"
cp "$CORECAP_SRC/tests/data/ceph/dump_historic_ops.json" "$run/ceph/historic_ops.json"
"$CORECAP" html "${sym[@]}" -o "$WORK/osd.html" "$run" 2>/dev/null
expect_true "Ceph ops table: the write type, 3 ops" \
	grep -qE '<h2>Ceph ops \(the OSD.s OpTracker: 3 ops\)</h2>' "$WORK/osd.html"
expect_true "... its row" grep -q '<tr><td>write</td><td>3</td>' "$WORK/osd.html"
expect_true "the phases table of write, with queued_for_pg" \
	grep -q '<tr><td>queued_for_pg</td>' "$WORK/osd.html"
expect_true "an op flame graph" grep -q '<h2>Flame graph: op latency' "$WORK/osd.html"
expect_eq "... with samples" 0 "$(grep -c 'no samples' "$WORK/osd.html" || true)"
"$CORECAP" flame --kind op "${sym[@]}" "$run" >"$WORK/osd.folded" 2>/dev/null
expect_eq "the op stacks are the OpTracker's phases, 3 ops' worth" \
	"$(python3 -c "
import json
d = json.load(open('$run/ceph/historic_ops.json'))
import datetime
def t(s): return datetime.datetime.strptime(s[:26], '%Y-%m-%dT%H:%M:%S.%f')
print(sum(round((t(o['type_data']['events'][-1]['time']) - t(o['type_data']['events'][0]['time'])).total_seconds() * 1e9) for o in d['ops']))")" \
	"$(awk '{ s += $NF } END { print s }' "$WORK/osd.folded")"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
	# The checks above stand; the click test is not run, so the test is a skip.
	finish || exit 1
	skip "chromium is not installed: the click test is not run (scripts/install-deps-browser)"
fi
# Clicks the threads table's tid header once, then twice, and prints the tids.
sed 's|</body>|<script>\
var h = [].find.call(document.querySelectorAll("h2"), function (e) { return e.textContent.indexOf("Threads") === 0; });\
var t = h.nextElementSibling, th = t.rows[0].cells[1], out = [];\
function tids() { return [].slice.call(t.rows, 1).map(function (r) { return r.cells[1].textContent; }).join(","); }\
th.click(); out.push(tids()); th.click(); out.push(tids());\
var p = document.createElement("pre"); p.id = "sorted"; p.textContent = out.join(";"); document.body.appendChild(p);\
</script></body>|' "$page" >"$WORK/click.html"
mkdir "$WORK/profile"
timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--disable-extensions --user-data-dir="$WORK/profile" --dump-dom \
	"file://$WORK/click.html" >"$WORK/dom.html" 2>"$WORK/chromium.log" || true
sorted=$(sed -n 's|.*<pre id="sorted">\([^<]*\)</pre>.*|\1|p' "$WORK/dom.html")
echo "tids after one and two clicks: $sorted"
desc=${sorted%%;*}
asc=${sorted##*;}
expect_true "the page was sorted" test -n "$sorted"
expect_eq "one click: by tid, descending" "$(tr ',' '\n' <<<"$desc" | sort -rn | paste -sd,)" "$desc"
expect_eq "two clicks: by tid, ascending" "$(tr ',' '\n' <<<"$desc" | sort -n | paste -sd,)" "$asc"
finish
