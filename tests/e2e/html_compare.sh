#!/usr/bin/env bash
# `corecap compare --html`: one self-contained page with the headline,
# both diagnoses, the configuration differences and the tables of
# `compare`, and the differential flame graph, checked in headless
# Chromium (tests/e2e/html_views_browser.py) against `compare --folded` on
# two refosd runs, --debug 1 (A) and --debug 20 (B): every frame as wide
# as B's weight under its stack, its tooltip's change B - A, red where B
# grew, blue where it shrank, for the op stacks (B scaled per op) and the
# wall-clock stacks; and B's page's top table of its wall-clock stacks
# (html_views.sh checks the CPU one). The negative control: the same page checked against
# stacks with one count changed fails the width check.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/flame_lib.sh"
need_sessiond
need_refosd
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
DRIVER=$(command -v chromedriver || true)
[ -n "$CHROMIUM" ] || skip "Debian's chromium is not installed (scripts/install-deps-browser installs it)"
[ -n "$DRIVER" ] || skip "chromedriver is not installed (scripts/install-deps-browser installs chromium-driver)"
DRIVE="$CORECAP_SRC/tests/e2e/html_views_browser.py"

for level in 1 20; do
	start_refosd "debug$level" -- --debug "$level"
	record "$WORK/debug$level" --wallclock=50 -- -t 4 -b 1 -d 2 write
	stop_refosd
done
a="$WORK/debug1"
b="$WORK/debug20"

# Usage: --html goes with neither --json nor --folded.
status=0
"$CORECAP" compare --json --html "$WORK/x.html" "$a" "$b" >/dev/null 2>"$WORK/usage.err" || status=$?
expect_eq "--json --html: usage error" 2 "$status"
expect_true "... saying why" grep -q 'corecap compare: --json and --folded, --svg or --html exclude each other' "$WORK/usage.err"
expect_eq "... and no page written" no "$([ -e "$WORK/x.html" ] && echo yes || echo no)"

# A kind the runs lack (no CPU profile): the page all the same, saying why it has no graph.
status=0
"$CORECAP" compare --kind cpu --html "$WORK/nocpu.html" "$a" "$b" 2>"$WORK/nocpu.err" || status=$?
expect_eq "--kind cpu without CPU profiles: exit status" 0 "$status"
expect_true "... a warning naming the run" \
	grep -q "^corecap compare: warning: no differential flame graph in the page: '$a' has no cpu stacks" "$WORK/nocpu.err"
expect_true "... the page says it" grep -q "No differential flame graph: A &#39;$a&#39; has no cpu stacks" "$WORK/nocpu.html"
expect_eq "... and has the tables but no graph" "1 0" \
	"$(grep -c '<h2>benchmark</h2>' "$WORK/nocpu.html") $(grep -c '<svg' "$WORK/nocpu.html" || true)"

"$CORECAP" compare --json "$a" "$b" >"$WORK/compare.json" 2>/dev/null
n=0
for kind in op wall; do
	n=$((n + 1))
	status=0
	"$CORECAP" compare --kind "$kind" --html "$WORK/$kind.html" "$a" "$b" 2>"$WORK/$kind.err" || status=$?
	expect_eq "compare --kind $kind --html exit status" 0 "$status"
	"$CORECAP" compare --kind "$kind" --folded "$a" "$b" >"$WORK/$kind.folded" 2>/dev/null
	expect_eq "$kind page: no reference outside it" "" \
		"$(grep -oiE '(src|href)="[^"]*"' "$WORK/$kind.html" | grep -v '^href="data:' || true)"
	expect_eq "$kind page: the headline is compare's" \
		"$(json "$WORK/compare.json" "__import__('html').escape(d['headline'], quote=False)")" \
		"$(sed -n 's|^<p class="verdict" id="headline">\(.*\)</p>$|\1|p' "$WORK/$kind.html" | sed 's/&#39;/'"'"'/g; s/&quot;/"/g')"
	expect_true "$kind page: the daemons' command lines differ in --debug" \
		grep -qE '<tr><td>daemon command line</td><td>--debug 1</td><td>--debug 20</td></tr>' "$WORK/$kind.html"
	expect_true "$kind page: the op table with its logging row" grep -q '<tr><td>logging us/op</td>' "$WORK/$kind.html"
	mkdir "$WORK/profile-$kind"
	status=0
	timeout 60 python3 "$DRIVE" "$DRIVER" "$CHROMIUM" "$WORK/profile-$kind" diff "$WORK/$kind.html" \
		"$WORK/$kind.folded" >"$WORK/$kind.drive" 2>&1 || status=$?
	cat "$WORK/$kind.drive"
	_checks=$((_checks + $(grep -c '^ok: ' "$WORK/$kind.drive" || true)))
	_failures=$((_failures + $(grep -c '^FAIL: ' "$WORK/$kind.drive" || true)))
	expect_eq "$kind: the browser checks ran to the end (exit status)" 0 "$status"
	expect_calc "$kind: browser checks passed" "$(grep -c '^ok: ' "$WORK/$kind.drive" || true) >= 9"
done
expect_true "B's logging grew: a red frame under write;logging in the op graph" python3 -c "
import re, sys
t = open('$WORK/op.html').read()
sys.exit(not re.search(r'<title>logging \([0-9,]+ ns[^<]*\nchange: \+[0-9]+ ns[^<]*</title><rect [^>]*fill=\"rgb\(255,', t))"

# The top table of wall-clock stacks: corecap html of B (no CPU profile).
"$CORECAP" flame --kind wall --no-idle "$b" >"$WORK/wall-b.folded" 2>/dev/null
"$CORECAP" html -o "$WORK/b.html" "$b" 2>/dev/null
mkdir "$WORK/profile-top"
status=0
timeout 60 python3 "$DRIVE" "$DRIVER" "$CHROMIUM" "$WORK/profile-top" views "$WORK/b.html" \
	"wall=$WORK/wall-b.folded" >"$WORK/top.drive" 2>&1 || status=$?
cat "$WORK/top.drive"
_checks=$((_checks + $(grep -c '^ok: ' "$WORK/top.drive" || true)))
_failures=$((_failures + $(grep -c '^FAIL: ' "$WORK/top.drive" || true)))
expect_eq "wall top table: the browser checks ran to the end (exit status)" 0 "$status"

# Negative control: stacks with the widest B count changed by a third.
python3 - "$WORK/op.folded" "$WORK/bad.folded" <<'PY'
import sys
lines = [l.rstrip("\n").rsplit(" ", 2) for l in open(sys.argv[1])]
i = max(range(len(lines)), key=lambda k: int(lines[k][2]))
lines[i][2] = str(int(lines[i][2]) * 4 // 3)
open(sys.argv[2], "w").write("".join(" ".join(l) + "\n" for l in lines))
PY
mkdir "$WORK/profile-bad"
status=0
timeout 60 python3 "$DRIVE" "$DRIVER" "$CHROMIUM" "$WORK/profile-bad" diff "$WORK/op.html" "$WORK/bad.folded" \
	>"$WORK/bad.drive" 2>&1 || status=$?
expect_eq "negative control: other stacks fail the check (exit status)" 1 "$status"
expect_true "... on the widths" grep -q "^FAIL: every frame's width is B's weight" "$WORK/bad.drive"
finish
