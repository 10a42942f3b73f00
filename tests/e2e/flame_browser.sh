#!/usr/bin/env bash
# `corecap html` in a real browser: Debian's chromium, headless, loads the
# page of the committed golden run (and a flame graph SVG alone) with no
# console message and no failed load, its DOM holds the report, and a
# screenshot is not blank. A negative control first proves that a console
# error would be caught. Chromium runs as the test's user, without network
# (--disable-background-networking etc.) and with a fresh profile.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/flame_lib.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || skip "Debian's chromium is not installed (scripts/install-deps-browser installs it)"

# browse NAME URL [chromium options...]: runs headless chromium once with a
# new profile; its stderr (with console messages) in $WORK/NAME.log.
browse() {
	local name=$1 url=$2 status=0
	shift 2
	rm -rf "$WORK/profile-$name"
	mkdir "$WORK/profile-$name"
	timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-default-apps --disable-extensions --no-default-browser-check \
		--user-data-dir="$WORK/profile-$name" --enable-logging=stderr --v=0 \
		"$@" "$url" >"$WORK/$name.out" 2>"$WORK/$name.log" || status=$?
	return "$status"
}

# console_lines NAME: what the page printed or failed to load.
console_lines() {
	grep -E 'CONSOLE|net::ERR_|Uncaught|Failed to load' "$WORK/$1.log" || true
}

# png_figures FILE: "WIDTH HEIGHT DISTINCT_COLOURS TOP_COLOUR_SHARE" of a PNG,
# the colours counted over its first 800 rows (pure Python: no imaging library).
png_figures() {
	python3 - "$1" <<'EOF'
import collections, struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6), f"unsupported PNG (depth {depth}, type {ctype})"
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, colours, rows = bytearray(stride), collections.Counter(), 0
for y in range(min(h, 800)):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    if y % 4 == 0:
        for x in range(0, w, 4):
            colours[bytes(line[x * bpp:x * bpp + 3])] += 1
    prev = line
top = colours.most_common(1)[0][1] / sum(colours.values())
print(w, h, len(colours), f"{top:.3f}")
EOF
}

# The negative control: a console error must be seen.
printf '<!DOCTYPE html><html><head><link rel="icon" href="data:,"></head><body><p>x</p><script>console.error("corecap-negative-control")</script></body></html>' >"$WORK/bad.html"
browse control "file://$WORK/bad.html" --dump-dom || true
expect_true "negative control: a page's console error is caught" grep -q 'corecap-negative-control' "$WORK/control.log"

cd "$GOLDEN"
"$CORECAP" html --symfs golden-symfs -o "$WORK/page.html" golden-run 2>/dev/null
"$CORECAP" flame --kind op --svg --symfs golden-symfs -o "$WORK/op.svg" golden-run 2>/dev/null

status=0
browse dom "file://$WORK/page.html" --dump-dom || status=$?
expect_eq "chromium --dump-dom exit status" 0 "$status"
expect_true "the DOM holds the report's title" grep -q '<h1>corecap report: golden-run</h1>' "$WORK/dom.out"
expect_true "the DOM holds the flame graphs" grep -q 'op flame graph' "$WORK/dom.out"
expect_eq "page: console messages and failed loads" "" "$(console_lines dom)"

status=0
browse shot "file://$WORK/page.html" --screenshot="$WORK/page.png" --window-size=1280,1600 || status=$?
expect_eq "chromium --screenshot exit status" 0 "$status"
expect_eq "page: console messages and failed loads (screenshot run)" "" "$(console_lines shot)"
if [ -s "$WORK/page.png" ]; then
	read -r w h colours top <<<"$(png_figures "$WORK/page.png")"
	echo "screenshot: ${w}x$h, $colours distinct colours, the commonest covers $top"
	expect_eq "screenshot size" "1280x1600" "${w}x$h"
	expect_calc "screenshot is not blank: colours" "$colours >= 20"
	expect_calc "screenshot is not blank: background share" "$top < 0.97"
else
	expect_true "chromium wrote the screenshot" false
fi

status=0
browse svg "file://$WORK/op.svg" --screenshot="$WORK/svg.png" --window-size=1200,500 || status=$?
expect_eq "flame SVG alone: exit status" 0 "$status"
expect_eq "flame SVG alone: console messages and failed loads" "" "$(console_lines svg)"
read -r w h colours top <<<"$(png_figures "$WORK/svg.png")"
expect_calc "flame SVG screenshot is not blank ($colours colours)" "$colours >= 10"
finish
