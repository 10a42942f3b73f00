#!/usr/bin/env bash
# Version 2 of kernel/events.bin (corecap/kernel_format.h, "Version 2")
# against version 1 on the committed golden kernel run (tests/data/
# analysis/golden-kernel, version 1): converted by kernel_v2conv (the
# collector's encoder, corecap/kernel_v2.h), the run gives exactly the
# committed report, text and JSON, and kernel_read gives the same
# records, and converted back it is the original byte for byte. The
# narrower file must be at most 60% of the original.
# kernel_v3_golden.sh runs it for version 3 (zstd frames of version 2's
# blocks, corecap/kernel_v3.h): KV_VERSION=3, at most KV_MAX_PCT% (25).
set -euo pipefail
ver=${KV_VERSION:-2}
max_pct=${KV_MAX_PCT:-60}
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"

KREAD="$CORECAP_BUILD/tests/e2e/kernel_read"
CONV="$CORECAP_BUILD/tests/e2e/kernel_v2conv"
for b in "$KREAD" "$CONV"; do
	[ -x "$b" ] || skip "'$b' is not built"
done

cp -r "$DATA/golden-kernel" "$WORK/golden-kernel"
ln -s "$DATA/golden-kernel-symfs" "$WORK/golden-kernel-symfs"
ev="$WORK/golden-kernel/kernel/events.bin"
expect_eq "the committed run's events.bin is of version 1" "header 1" \
	"$("$KREAD" "$DATA/golden-kernel" | awk '$1 == "header" { print $1, $2 }')"
"$CONV" "$DATA/golden-kernel/kernel/events.bin" "$ev" "$ver" >"$WORK/conv.out"
cat "$WORK/conv.out"
read -r _ v1 v2 _ nrec <"$WORK/conv.out"
expect_eq "the converted file's size" "$(stat -c %s "$ev")" "$v2"
"$CONV" "$ev" "$WORK/back.bin" >/dev/null
expect_true "converted back to version 1, the file is the committed one byte for byte" \
	cmp "$DATA/golden-kernel/kernel/events.bin" "$WORK/back.bin"
expect_calc "version $ver is at most $max_pct% of version 1 ($v2 of $v1 bytes, $nrec records)" \
	"$v2 * 100 <= $v1 * $max_pct"
# The manifest says what the collector wrote: the converted file's size
# (else the report calls the narrower file cut short).
# Edited as text: a JSON round trip would rewrite the numbers the report echoes.
python3 - "$WORK/golden-kernel/manifest.json" "$v1" "$v2" <<'PY'
import re, sys
p, v1, v2 = sys.argv[1], sys.argv[2], sys.argv[3]
s = open(p).read()
at = s.index('"kernel_events"')
m = re.compile(r'("bytes": \{\s*"events": )' + v1 + r',').search(s, at)
assert m, "no kernel_events.bytes.events of %s in the manifest" % v1
open(p, "w").write(s[:m.start()] + m.group(1) + v2 + "," + s[m.end():])
PY
expect_eq "kernel_read: version $ver in the header" "header $ver" \
	"$("$KREAD" "$WORK/golden-kernel" | awk '$1 == "header" { print $1, $2 }')"
"$KREAD" "$DATA/golden-kernel" | grep -v '^header' >"$WORK/kread.v1"
"$KREAD" "$WORK/golden-kernel" | grep -v '^header' >"$WORK/kread.v2"
expect_true "kernel_read gives the same records from both versions" cmp "$WORK/kread.v1" "$WORK/kread.v2"
expect_true "kernel_read counts switches" grep -q "^records 1 " "$WORK/kread.v1"

cache=(env -u DEBUGINFOD_URLS HOME="$WORK" XDG_CACHE_HOME="$WORK/cache")
cd "$WORK"
for fmt in txt json; do
	opts=(--symfs golden-kernel-symfs)
	[ "$fmt" = json ] && opts+=(--json)
	status=0
	"${cache[@]}" "$CORECAP" report "${opts[@]}" golden-kernel >"$WORK/out.$fmt" \
		2>"$WORK/err.$fmt" || status=$?
	expect_eq "report ($fmt) of the run in version $ver: exit status" 0 "$status"
	[ "$status" = 0 ] || sed 's/^/    /' "$WORK/err.$fmt"
	_checks=$((_checks + 1))
	if diff -u "$DATA/golden-kernel.expect.$fmt" "$WORK/out.$fmt" >"$WORK/diff.$fmt"; then
		echo "ok: $fmt report of the run in version $ver matches golden-kernel.expect.$fmt"
	else
		echo "FAIL: $fmt report of the run in version $ver differs from golden-kernel.expect.$fmt:"
		head -60 "$WORK/diff.$fmt"
		_failures=$((_failures + 1))
	fi
done
finish
