#!/usr/bin/env bash
# The interactive flame graph in a real browser: Debian's chromium, headless,
# driven through its chromedriver (tests/e2e/flame_svg_browser.py) on the
# golden run's op flame graph: labels fit by the browser's own measure,
# Ctrl-F and a typed regular expression highlight the matching frames with
# "Matched: N%" equal to the folded stacks' share, Reset Search, a click
# zooms a frame to the full width (callees scaled, callers dimmed, the rest
# hidden), Reset Zoom; and in the HTML page every picture's script works on
# its own picture. The negative control: the same SVG with its script
# taken out still renders with fitting labels, and the interactive checks
# fail.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/flame_lib.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
DRIVER=$(command -v chromedriver || true)
[ -n "$CHROMIUM" ] || skip "Debian's chromium is not installed (scripts/install-deps-browser installs it)"
[ -n "$DRIVER" ] || skip "chromedriver is not installed (scripts/install-deps-browser installs chromium-driver)"
DRIVE="$CORECAP_SRC/tests/e2e/flame_svg_browser.py"

cd "$GOLDEN"
sym=(--symfs golden-symfs)
"$CORECAP" flame --kind op --svg "${sym[@]}" -o "$WORK/op.svg" golden-run 2>/dev/null
"$CORECAP" flame --kind op "${sym[@]}" -o "$WORK/op.folded" golden-run 2>/dev/null
"$CORECAP" html "${sym[@]}" -o "$WORK/page.html" golden-run 2>/dev/null
check_svg "op flame SVG" "$WORK/op.svg"

mkdir "$WORK/profile"
status=0
timeout 150 python3 "$DRIVE" "$DRIVER" "$CHROMIUM" "$WORK/profile" "$WORK/op.svg" "$WORK/op.folded" \
	'^queue$|phase' "$WORK/page.html" >"$WORK/drive.out" 2>&1 || status=$?
cat "$WORK/drive.out"
_checks=$((_checks + $(grep -c '^ok: ' "$WORK/drive.out" || true)))
_failures=$((_failures + $(grep -c '^FAIL: ' "$WORK/drive.out" || true)))
expect_eq "the browser checks ran to the end (exit status)" 0 "$status"
expect_calc "browser checks passed" "$(grep -c '^ok: ' "$WORK/drive.out" || true) >= 20"

# The negative control: no script, a static picture.
python3 - "$WORK/op.svg" "$WORK/static.svg" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(re.sub(r"<script.*?</script>\n", "", s, flags=re.S))
PY
check_svg "the SVG without its script" "$WORK/static.svg"
mkdir "$WORK/profile-static"
status=0
timeout 150 python3 "$DRIVE" "$DRIVER" "$CHROMIUM" "$WORK/profile-static" "$WORK/static.svg" "$WORK/op.folded" \
	'^queue$|phase' "$WORK/page.html" >"$WORK/static.out" 2>&1 || status=$?
expect_eq "negative control: without the script the interactive checks fail (exit status)" 1 "$status"
expect_true "without the script the labels are drawn and fit (DejaVu Sans' widths)" \
	grep -q '^ok: every label fits its frame' "$WORK/static.out"
expect_true "without the script the search prompt is missed" grep -q '^FAIL: .*no such alert' "$WORK/static.out"
finish
