#!/usr/bin/env bash
# The page's pprof views (issue #47 item 4) in headless Chromium, on a real
# recording: refosd under `corecap run --cpuprofile`, recorded while
# refbench writes, the collector stopped (SIGSTOP) for 1.2 s in the middle
# so that threads.tsv has a known gap. Checked against the folded stacks
# `corecap flame` prints (tests/e2e/html_views_browser.py): the top
# table's rows (self = the stacks whose leaf the function is, total = the
# stacks holding it, the self column summing to the folded total) for cpu
# and wall, sorting, the search, the callers and callees of a clicked
# function, the flame graph as wide as the window through two resizes,
# and one gap mark on the CPU chart over the collector's stop. The page
# embeds those very folded lines. Negative controls: the page without the
# views' script and without data-fit fails the table and resize checks,
# and a gap asked for elsewhere is not found.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/flame_lib.sh"
need_sessiond
need_refosd
[ -e /usr/lib/x86_64-linux-gnu/libprofiler.so.0 ] ||
	skip "gperftools' libprofiler is absent (Debian package libgoogle-perftools4)"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
DRIVER=$(command -v chromedriver || true)
[ -n "$CHROMIUM" ] || skip "Debian's chromium is not installed (scripts/install-deps-browser installs it)"
[ -n "$DRIVER" ] || skip "chromedriver is not installed (scripts/install-deps-browser installs chromium-driver)"
DRIVE="$CORECAP_SRC/tests/e2e/html_views_browser.py"
mono() { python3 -c 'import time; print(time.monotonic_ns())'; }

run="$WORK/run"
start_refosd osd --cpuprofile -- --debug 5
# No ptrace sampler (--wallclock): its watchdog would wake the stopped collector.
"$CORECAP" record -q -p "$OSD_PID" -o "$run" -- \
	"$REFBENCH" -p "$OSD_PORT" --no-progress -t 4 -b 1 -d 4 write >"$WORK/record.out" 2>&1 &
rec=$!
track "$rec"
for _ in $(seq 1 100); do
	[ -s "$run/.corecap-run" ] && grep -q '^collector ' "$run/.corecap-run" && break
	sleep 0.05
done
collector=$(sed -n 's/^collector \([0-9]*\) .*/\1/p' "$run/.corecap-run")
expect_eq "the run names its collector, the record process" "$rec" "$collector"
sleep 1.5
t_stop=$(mono)
kill -STOP "$collector"
sleep 1.2
# Read before the signal: the first row after it is later than t_cont.
t_cont=$(mono)
kill -CONT "$collector"
status=0
wait "$rec" || status=$?
expect_eq "record exit status" 0 "$status"
[ "$status" = 0 ] || { cat "$WORK/record.out"; finish; exit 1; }
state=$(sed -n 's/^State:[[:space:]]*\([A-Za-z]\).*/\1/p' "/proc/$OSD_PID/status" 2>/dev/null || true)
expect_true "refosd lived through the collector's stop, not stopped (state '$state')" \
	test -n "$state" -a "$state" != T -a "$state" != t -a "$state" != Z
stop_refosd
ws=$(json "$run/manifest.json" "d['window']['start_ns']")
gap_from=$(calc "($t_stop - $ws) / 1e9")
gap_to=$(calc "($t_cont - $ws) / 1e9")
echo "the collector was stopped from +$gap_from s to +$gap_to s"

"$CORECAP" flame --kind cpu "$run" >"$WORK/cpu.folded" 2>/dev/null
kinds=("cpu=$WORK/cpu.folded")
if [ "$(json "$run/manifest.json" "int(d['sources']['wall'])")" = 1 ]; then
	# The page's wall graph leaves idle waits out, as flame --no-idle does.
	"$CORECAP" flame --kind wall --no-idle "$run" >"$WORK/wall.folded" 2>/dev/null
	kinds+=("wall=$WORK/wall.folded")
fi
"$CORECAP" html -o "$WORK/page.html" "$run" 2>/dev/null
expect_eq "no reference outside the page" "" \
	"$(grep -oiE '(src|href)="[^"]*"' "$WORK/page.html" | grep -v '^href="data:' || true)"
for k in "${kinds[@]}"; do
	expect_eq "the page embeds ${k%%=*}'s folded lines as corecap flame prints them" same "$(
		python3 - "$WORK/page.html" "${k%%=*}" "${k#*=}" <<'PY'
import json, re, sys
page = open(sys.argv[1]).read()
m = re.search(r'<script type="application/json" class="cc-folded" data-kind="%s"[^>]*>(.*?)</script>' % sys.argv[2], page, re.S)
print("same" if m and json.loads(m.group(1)) == open(sys.argv[3]).read() else "differs")
PY
	)"
done
expect_eq "the chart says there is one gap" 1 "$(grep -c 'id="cc-gaps">1 gap ' "$WORK/page.html" || true)"
# The mark runs from the last row before the stop to the first after it.
expect_true "one gap mark, spanning the stop and not much more" python3 -c "
import re, sys
m = re.findall(r'class=\"cc-gap\" data-from-s=\"([0-9.]+)\" data-to-s=\"([0-9.]+)\"', open('$WORK/page.html').read())
print('gap marks', m)
sys.exit(not (len(m) == 1 and float(m[0][0]) <= $gap_from + 0.15 and float(m[0][1]) >= $gap_to
              and float(m[0][1]) - float(m[0][0]) <= $gap_to - $gap_from + 0.6))"

mkdir "$WORK/profile"
status=0
timeout 80 python3 "$DRIVE" "$DRIVER" "$CHROMIUM" "$WORK/profile" views "$WORK/page.html" "${kinds[@]}" \
	"$gap_from" "$gap_to" >"$WORK/drive.out" 2>&1 || status=$?
cat "$WORK/drive.out"
_checks=$((_checks + $(grep -c '^ok: ' "$WORK/drive.out" || true)))
_failures=$((_failures + $(grep -c '^FAIL: ' "$WORK/drive.out" || true)))
expect_eq "the browser checks ran to the end (exit status)" 0 "$status"
expect_calc "browser checks passed" "$(grep -c '^ok: ' "$WORK/drive.out" || true) >= 25"

# Negative controls: without the views' script and data-fit, and a gap elsewhere.
python3 - "$WORK/page.html" "$WORK/bare.html" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
s = re.sub(r"<script>\n\(function \(sfx\) \{\n  'use strict';\n  var box = document.getElementById\('cc-views' \+ sfx\);.*?</script>\n", "", s, flags=re.S)
open(sys.argv[2], "w").write(s.replace(' data-fit="1"', ""))
PY
mkdir "$WORK/profile-bare"
status=0
timeout 80 python3 "$DRIVE" "$DRIVER" "$CHROMIUM" "$WORK/profile-bare" views "$WORK/bare.html" "${kinds[@]}" \
	0.05 0.1 >"$WORK/bare.out" 2>&1 || status=$?
expect_eq "negative control: the stripped page fails (exit status)" 1 "$status"
expect_true "... the top table is empty" grep -q '^FAIL: cpu: one row per function' "$WORK/bare.out"
expect_true "... the graph does not follow the window" grep -q '^FAIL: a narrower window' "$WORK/bare.out"
expect_true "... no gap mark where there was none" grep -q '^FAIL: a gap mark on the CPU chart' "$WORK/bare.out"
finish
