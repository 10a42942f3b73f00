#!/usr/bin/env bash
# Writes tests/fuzz/corpus/ceph_cache/'s seeds from a real cache file: the
# committed golden run with the committed 16.2 OpTracker history
# (tests/data/ceph/dump_historic_ops.json) as its ceph/, reported once so
# that corecap writes HASH.oph into a private cache directory. The first
# byte is fuzz_ceph_cache's mode (0: the bytes as they are; 1: the hash
# made right first). Seeds: the file as written, the same with the hash
# fixed by the harness, a version of 0xff, and the first half.
# Usage: tests/fuzz/ceph_cache_seeds.sh BUILD_DIR
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
corecap=${1:?usage: $0 BUILD_DIR}/cli/corecap
out="$src/tests/fuzz/corpus/ceph_cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 700 "$work"
cp -r "$src/tests/data/analysis/golden-run" "$work/run"
mkdir "$work/run/ceph"
cp "$src/tests/data/ceph/dump_historic_ops.json" "$work/run/ceph/historic_ops.json"
XDG_CACHE_HOME="$work/xdg" "$corecap" report --json --symfs "$src/tests/data/analysis/golden-symfs" \
	"$work/run" >/dev/null
oph=$(find "$work/xdg" -name '*.oph' -type f)
[ "$(printf '%s\n' "$oph" | wc -l)" -eq 1 ] || { echo "$0: expected one .oph file, found: $oph" >&2; exit 1; }
size=$(stat -c %s "$oph")
{ printf '\0'; cat "$oph"; } >"$out/fixture-valid"
{ printf '\1'; cat "$oph"; } >"$out/fixture-fixed"
# The u32 version follows the 8-byte magic; the mode byte comes first.
{ printf '\0'; head -c 8 "$oph"; printf '\377\0\0\0'; tail -c +13 "$oph"; } >"$out/other-version"
{ printf '\0'; head -c $((size / 2)) "$oph"; } >"$out/truncated"
echo "$0: seeds from a $size-byte cache file in $out"
