#!/usr/bin/env bash
# The page of a run of several daemons (issue #47 item 4, the single
# page's parts repeated per daemon), in headless Chromium on a real
# recording: two refosd under `corecap run --cpuprofile` recorded in one
# record -p A,B while refbench writes to A (and lightly to B), every daemon's collector
# stopped (SIGSTOP) for 1.2 s in the middle, so that each threads.tsv has
# a known gap. Each daemon's section of `corecap html RUN` has the single
# page's top table (its ids ending in -PID) with rows, self and total
# equal to that daemon's folded stacks as `corecap flame RUN:PID` prints
# them (the page embeds those very lines), the self column summing to
# their total, a click on a function showing its callers there and
# leaving the other daemon's view alone, and one gap mark on its CPU chart
# over the collectors' stop (tests/e2e/html_views_browser.py multi).
# Negative controls: the page without B's views script fails B's table,
# and a gap asked for elsewhere is not found. About 25 s.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/flame_lib.sh"
need_sessiond
[ -x "$REFOSD" ] && [ -x "$REFBENCH" ] || { echo "FAIL: refosd or refbench is not built"; exit 1; }
[ -e /usr/lib/x86_64-linux-gnu/libprofiler.so.0 ] ||
	skip "gperftools' libprofiler is absent (Debian package libgoogle-perftools4)"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
DRIVER=$(command -v chromedriver || true)
[ -n "$CHROMIUM" ] || skip "Debian's chromium is not installed (scripts/install-deps-browser installs it)"
[ -n "$DRIVER" ] || skip "chromedriver is not installed (scripts/install-deps-browser installs chromium-driver)"
DRIVE="$CORECAP_SRC/tests/e2e/html_views_browser.py"
mono() { python3 -c 'import time; print(time.monotonic_ns())'; }

run="$WORK/run"
start_refosd a --cpuprofile -- --debug 5
a=$OSD_PID a_port=$OSD_PORT
start_refosd b --cpuprofile -- --debug 5
b=$OSD_PID b_port=$OSD_PORT
# B gets a light load of its own, so that it has stacks to count (an idle
# daemon's wall stacks, idle waits left out, can be none at all).
"$REFBENCH" -p "$b_port" --no-progress -t 1 -b 1 -d 6 write >"$WORK/bench-b.out" 2>&1 &
bench_b=$!
track "$bench_b"
"$CORECAP" record -q -p "$a,$b" -o "$run" -- \
	"$REFBENCH" -p "$a_port" --no-progress -t 4 -b 1 -d 4 write >"$WORK/record.out" 2>&1 &
rec=$!
track "$rec"
# Each daemon's run names its own collector (a child of record): the sampler of its threads.tsv.
collectors=()
for p in "$a" "$b"; do
	mark="$run/daemons/$p/.corecap-run"
	for _ in $(seq 1 100); do
		[ -s "$mark" ] && grep -q '^collector ' "$mark" && break
		sleep 0.05
	done
	collectors+=("$(sed -n 's/^collector \([0-9]*\) .*/\1/p' "$mark")")
done
expect_calc "each daemon's run names its collector (${collectors[*]})" \
	"${collectors[0]:-0} > 0 && ${collectors[1]:-0} > 0 && ${collectors[0]:-0} != ${collectors[1]:-0}"
# The stop must fall inside the windows: the mark comes at the run's
# creation, before the daemons' sessions are prepared (seconds, on a busy
# machine), and each window's start writes a checkpoint manifest with it.
for p in "$a" "$b"; do
	for _ in $(seq 1 200); do
		grep -qs '"start_ns"' "$run/daemons/$p/manifest.json" && break
		sleep 0.05
	done
done
sleep 1.5
t_stop=$(mono)
kill -STOP "${collectors[@]}"
sleep 1.2
t_cont=$(mono)
kill -CONT "${collectors[@]}"
status=0
wait "$rec" || status=$?
expect_eq "record exit status" 0 "$status"
[ "$status" = 0 ] || { cat "$WORK/record.out"; finish; exit 1; }
for p in "$a" "$b"; do
	state=$(sed -n 's/^State:[[:space:]]*\([A-Za-z]\).*/\1/p' "/proc/$p/status" 2>/dev/null || true)
	expect_true "refosd $p lived through the collectors' stop, not stopped (state '$state')" \
		test -n "$state" -a "$state" != T -a "$state" != t -a "$state" != Z
done
wait "$bench_b" || true
kill -TERM "$a" "$b"
wait "$a" "$b" 2>/dev/null || true
ws=$(json "$run/manifest.json" "d['window']['start_ns']")
gap_from=$(calc "($t_stop - $ws) / 1e9")
gap_to=$(calc "($t_cont - $ws) / 1e9")
echo "the collectors were stopped from +$gap_from s to +$gap_to s"

args=()
for p in "$a" "$b"; do
	"$CORECAP" flame --kind cpu "$run:$p" >"$WORK/$p.cpu.folded" 2>/dev/null || true
	# The page's wall stacks leave idle waits out, as flame --no-idle does.
	"$CORECAP" flame --kind wall --no-idle "$run:$p" >"$WORK/$p.wall.folded" 2>/dev/null || true
	for k in cpu wall; do
		[ -s "$WORK/$p.$k.folded" ] && args+=("$p:$k=$WORK/$p.$k.folded")
	done
done
echo "stacks: ${args[*]}"
for p in "$a" "$b"; do
	expect_true "daemon $p has cpu stacks" test -s "$WORK/$p.cpu.folded"
done
"$CORECAP" html -o "$WORK/page.html" "$run" 2>"$WORK/html.err"
expect_eq "no reference outside the page" "" \
	"$(grep -oiE '(src|href)="[^"]*"' "$WORK/page.html" | grep -v '^href="data:' || true)"
for x in "${args[@]}"; do
	p=${x%%:*} kv=${x#*:}
	expect_eq "the page embeds $p's ${kv%%=*} folded lines as corecap flame $p prints them" same "$(
		python3 - "$WORK/page.html" "${kv%%=*}" "-$p" "${kv#*=}" <<'PY'
import json, re, sys
page = open(sys.argv[1]).read()
m = re.search(r'<script type="application/json" class="cc-folded" data-kind="%s"[^>]*data-views="%s">(.*?)</script>' % (sys.argv[2], sys.argv[3]), page, re.S)
print("same" if m and json.loads(m.group(1)) == open(sys.argv[4]).read() else "differs")
PY
	)"
done
for p in "$a" "$b"; do
	expect_eq "PID $p's chart says there is one gap" 1 "$(grep -c "id=\"cc-gaps-$p\">1 gap " "$WORK/page.html" || true)"
done

mkdir "$WORK/profile"
status=0
timeout 80 python3 "$DRIVE" "$DRIVER" "$CHROMIUM" "$WORK/profile" multi "$WORK/page.html" \
	"$gap_from" "$gap_to" "${args[@]}" >"$WORK/drive.out" 2>&1 || status=$?
cat "$WORK/drive.out"
_checks=$((_checks + $(grep -c '^ok: ' "$WORK/drive.out" || true)))
_failures=$((_failures + $(grep -c '^FAIL: ' "$WORK/drive.out" || true)))
expect_eq "the browser checks ran to the end (exit status)" 0 "$status"
expect_calc "browser checks passed" "$(grep -c '^ok: ' "$WORK/drive.out" || true) >= 14"

# Negative controls: B's views script gone, and a gap elsewhere.
python3 - "$WORK/page.html" "$WORK/bare.html" "$b" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
# B's script alone: from its own opening tag, never across another's.
s, n = re.subn(r"<script>\n\(function \(sfx\) \{(?:(?!<script>).)*?\}\)\('-%s'\);\n</script>\n" % sys.argv[3], "", s, flags=re.S)
assert n == 1, n
open(sys.argv[2], "w").write(s)
PY
mkdir "$WORK/profile-bare"
status=0
timeout 80 python3 "$DRIVE" "$DRIVER" "$CHROMIUM" "$WORK/profile-bare" multi "$WORK/bare.html" \
	0.05 0.1 "${args[@]}" >"$WORK/bare.out" 2>&1 || status=$?
expect_eq "negative control: the stripped page fails (exit status)" 1 "$status"
sed 's/^/    bare: /' "$WORK/bare.out" | grep -E 'bare: (FAIL|ok: PID [0-9]+ [a-z]+: one row)' || true
expect_true "... B's top table is empty" grep -q "^FAIL: PID $b [a-z]*: one row per function" "$WORK/bare.out"
expect_true "... A's is still right" grep -q "^ok: PID $a cpu: one row per function" "$WORK/bare.out"
expect_true "... no gap mark where there was none" grep -q "^FAIL: PID $a: one gap mark" "$WORK/bare.out"
finish
