#!/usr/bin/env bash
# The per-build-id symbol cache ($XDG_CACHE_HOME/corecap/, analysis/read/
# sym_cache.h) on the committed golden run: `report` prints the text and
# JSON that it prints without a cache (CORECAP_SYMCACHE=0; analysis_golden
# compares those with the golden files) byte for byte with a cold cache,
# a warm one, and after its files were truncated, replaced by another
# build-id's, or made a symbolic link (each refused with one warning,
# then rebuilt, the link's target untouched); the same binaries under
# another --symfs get files of their own, with no warning; a cache
# directory others may write to is not used (one warning, nothing
# written there); CORECAP_SYMCACHE=0 writes none.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"

cache="$WORK/xdg"
mkdir -m 700 "$cache"
export XDG_CACHE_HOME="$cache"
unset CORECAP_SYMCACHE
export CORECAP_RUNCACHE=0 # the symbol cache's files alone (analysis_runcache tests the other)
cd "$DATA"

# report_as NAME: text and JSON of the golden run into $WORK/NAME.{txt,json,err},
# compared with those made without a cache ($WORK/ref.*).
report_as() {
	local fmt status
	for fmt in txt json; do
		opts=(--symfs golden-symfs)
		[ "$fmt" = json ] && opts+=(--json)
		status=0
		"$CORECAP" report "${opts[@]}" golden-run >"$WORK/$1.$fmt" 2>>"$WORK/$1.err" || status=$?
		expect_eq "$1: report ($fmt) exit status" 0 "$status"
		[ "$1" = ref ] ||
			expect_true "$1: $fmt output is the one without a cache" cmp -s "$WORK/ref.$fmt" "$WORK/$1.$fmt"
	done
}
warnings() { grep -c "$2" "$WORK/$1.err" || true; }

CORECAP_SYMCACHE=0 report_as ref
expect_eq "CORECAP_SYMCACHE=0: nothing created" "" "$(ls -A "$cache")"
report_as cold
files=$(find "$cache/corecap" -name '*.sym' | wc -l)
expect_calc "the cold run wrote cache files (one per module with a build-id)" "$files >= 1"
expect_eq "cache directory mode" 700 "$(stat -c %a "$cache/corecap")"
expect_eq "cache files: mode 600, none left aside" "0" \
	"$(find "$cache/corecap" -type f ! -perm 600 -o -name '.*' -type f | wc -l)"
expect_eq "cold: no warning" 0 "$(warnings cold warning)"
sums=$(cd "$cache/corecap" && sha256sum -- *.sym)
report_as warm
expect_eq "warm: no warning" 0 "$(warnings warm warning)"
expect_eq "warm: nothing rewritten" "$sums" "$(cd "$cache/corecap" && sha256sum -- *.sym)"

# The same binaries under another --symfs (a copy): files of their own, no
# warning, the first ones untouched.
cp -r golden-symfs "$WORK/symfs2"
status=0
"$CORECAP" report --symfs "$WORK/symfs2" --json golden-run >"$WORK/symfs2.json" 2>"$WORK/symfs2.err" || status=$?
expect_eq "another --symfs: exit status" 0 "$status"
expect_eq "another --symfs: no warning" 0 "$(warnings symfs2 warning)"
expect_eq "another --symfs: files of its own" "$((2 * files))" "$(find "$cache/corecap" -name '*.sym' | wc -l)"
for f in $(cd "$cache/corecap" && ls -- *.sym); do
	grep -q "$f" <<<"$sums" || rm "$cache/corecap/$f"
done
expect_eq "another --symfs: the first files untouched" "$sums" "$(cd "$cache/corecap" && sha256sum -- *.sym)"

# Every file cut in half: refused (one warning each, on the first command), rebuilt.
for f in "$cache"/corecap/*.sym; do
	truncate -s $(($(stat -c %s "$f") / 2)) "$f"
done
report_as truncated
expect_eq "truncated: one warning per file" "$files" "$(warnings truncated 'ignored, rebuilt')"
report_as rebuilt
expect_eq "rebuilt: no warning" 0 "$(warnings rebuilt warning)"
expect_eq "rebuilt: the same files again" "$sums" "$(cd "$cache/corecap" && sha256sum -- *.sym)"

# Another build-id's file under each name, and a symbolic link for one.
mapfile -t names < <(cd "$cache/corecap" && ls -- *.sym)
if [ "${#names[@]}" -ge 2 ]; then
	cp "$cache/corecap/${names[1]}" "$WORK/other.sym"
	cp "$WORK/other.sym" "$cache/corecap/${names[0]}"
	report_as crafted
	expect_eq "another build-id's file: one warning" 1 "$(warnings crafted 'of another build-id')"
fi
echo "keep me" >"$WORK/victim"
victim_sum=$(sha256sum <"$WORK/victim")
rm "$cache/corecap/${names[0]}"
ln -s "$WORK/victim" "$cache/corecap/${names[0]}"
report_as link
expect_eq "a symbolic link: refused with one warning" 1 "$(warnings link 'symbolic link')"
expect_eq "the link's target is untouched" "$victim_sum" "$(sha256sum <"$WORK/victim")"
expect_true "the link was replaced by a cache file" test -f "$cache/corecap/${names[0]}" -a ! -L "$cache/corecap/${names[0]}"

# A directory others may write to: not used, one warning per command, nothing written.
chmod 770 "$cache/corecap"
sums=$(cd "$cache/corecap" && ls -la --time-style=full-iso)
rm -f "$cache/corecap/${names[0]}"
report_as open
expect_eq "group-writable directory: one warning per command" 2 "$(warnings open 'others may write to it: not used')"
expect_true "nothing written to it" test ! -e "$cache/corecap/${names[0]}"
chmod 700 "$cache/corecap"
finish
