#!/usr/bin/env bash
# The OpTracker history kept in the run cache's directory (analysis/read/
# ceph_cache.h) on the committed golden run with the committed
# dump_historic_ops fixture (tests/data/ceph) as its ceph/, zstd-compressed
# as the collector writes it: `report`, `report --json` and `html` print
# byte for byte what they print without the cache (CORECAP_RUNCACHE=0),
# cold (the history parsed, HASH.oph written) and warm (read from it, not
# parsed). The key is the history's bytes: a copy of the run elsewhere is a
# hit, the same history stored otherwise (plain JSON) a miss; a cut .oph
# file is refused with one warning, the report the same, and rewritten.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
command -v zstd >/dev/null || skip "zstd is not installed"

cache="$WORK/xdg"
mkdir -m 700 "$cache"
export XDG_CACHE_HOME="$cache"
runs="$cache/corecap/runs"
cp -r "$DATA/golden-run" "$WORK/a"
mkdir "$WORK/a/ceph"
zstd -q -1 "$CORECAP_SRC/tests/data/ceph/dump_historic_ops.json" -o "$WORK/a/ceph/historic_ops.json.zst"

cmds=("report" "report --json" "html")
# outputs RUN TAG: each command's output in $WORK/RUN.TAG.<n>, stderr in $WORK/RUN.TAG.err.
outputs() {
	local run=$1 tag=$2 i status
	: >"$WORK/$run.$tag.err"
	for i in "${!cmds[@]}"; do
		status=0
		# shellcheck disable=SC2086
		CORECAP_RUNCACHE=${CACHE_MODE:-verbose} "$CORECAP" ${cmds[$i]} --symfs "$DATA/golden-symfs" \
			"$WORK/$run" >"$WORK/$run.$tag.$i" 2>>"$WORK/$run.$tag.err" || status=$?
		expect_eq "$run: ${cmds[$i]} ($tag): exit status" 0 "$status"
	done
}
# same RUN TAG: every output of TAG as RUN's without the cache (RUN.ref).
same() {
	local i
	for i in "${!cmds[@]}"; do
		expect_true "$1: ${cmds[$i]} ($2): the output without the cache" \
			cmp -s "$WORK/$1.ref.$i" "$WORK/$1.$2.$i"
	done
}
count() { grep -c "$1" "$2" || true; }

CACHE_MODE=0 outputs a ref
expect_eq "the report has the OpTracker's ops" 3 \
	"$(json "$WORK/a.ref.1" "d['ceph']['optracker']['ops']" 2>/dev/null || echo missing)"
expect_true "CORECAP_RUNCACHE=0 writes nothing" test ! -e "$runs"

outputs a cold
same a cold
expect_eq "cold: the history kept once (then read by the next two)" "1 2" \
	"$(count 'OpTracker history kept in' "$WORK/a.cold.err") $(count 'OpTracker history read from' "$WORK/a.cold.err")"
expect_eq "one .oph file, mode 600, none aside" "1 600 0" \
	"$(find "$runs" -name '*.oph' | wc -l) $(stat -c %a "$runs"/*.oph) $(find "$runs" -name '.*' -type f | wc -l)"
outputs a warm
same a warm
expect_eq "warm: read, never kept" "0 3" \
	"$(count 'OpTracker history kept in' "$WORK/a.warm.err") $(count 'OpTracker history read from' "$WORK/a.warm.err")"

# Keyed by the history's bytes, not its path.
cp -r "$WORK/a" "$WORK/copy"
CACHE_MODE=0 outputs copy ref
outputs copy warm
expect_eq "a copy of the run: a hit" "0 3" \
	"$(count 'OpTracker history kept in' "$WORK/copy.warm.err") $(count 'OpTracker history read from' "$WORK/copy.warm.err")"
same copy warm
cp -r "$WORK/a" "$WORK/plain"
rm "$WORK/plain/ceph/historic_ops.json.zst"
cp "$CORECAP_SRC/tests/data/ceph/dump_historic_ops.json" "$WORK/plain/ceph/historic_ops.json"
CACHE_MODE=0 outputs plain ref
outputs plain cold
expect_eq "the history stored otherwise: a miss, kept" 1 "$(count 'OpTracker history kept in' "$WORK/plain.cold.err")"
same plain cold

# A cut file: refused with one warning, the same output, rewritten.
for f in "$runs"/*.oph; do
	truncate -s $(($(stat -c %s "$f") / 2)) "$f"
done
outputs a cut
expect_eq "a cut .oph file: one warning" 1 "$(count 'is not valid (truncated): not used, rewritten' "$WORK/a.cut.err")"
expect_eq "... rewritten, then read" "1 2" \
	"$(count 'OpTracker history kept in' "$WORK/a.cut.err") $(count 'OpTracker history read from' "$WORK/a.cut.err")"
same a cut
finish
