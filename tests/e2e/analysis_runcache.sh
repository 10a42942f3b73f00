#!/usr/bin/env bash
# The decoded-trace cache ($XDG_CACHE_HOME/corecap/runs/, analysis/read/
# run_cache.h) on two fresh refosd runs, one with kernel events: `report`,
# `report --json`, `export --chrome`, `flame --kind lock` and `flame --kind
# op` print byte for byte what they print without it (CORECAP_RUNCACHE=0),
# with a cold cache (each command first, the file written) and a warm one
# (the file replayed). That the warm command does not read the trace: a
# stream file's bytes zeroed in place, its size, inode and mtime kept, the
# warm report is still the same, while without the cache it is not. A
# trace file whose mtime changed is a miss; a cache file cut short is
# refused with one warning and rewritten; a cache directory others may
# write to is not used; CORECAP_RUNCACHE=0 writes nothing.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
need_sessiond
need_refosd

cache="$WORK/xdg"
mkdir -m 700 "$cache"
export XDG_CACHE_HOME="$cache"
runs="$cache/corecap/runs"

# The runs: refosd's lock-heavy shards under refbench for 2 s.
start_refosd plain --shards 2 --threads-per-shard 2 --debug 0
record_refbench "$WORK/plain" -t 8 -d 2 write
stop_refosd
RECORD_OPTS=(--kernel "${KERNEL_VIA[@]}")
start_refosd kern --shards 2 --threads-per-shard 2 --debug 0
kernel=1
"$CORECAP" record -q "${RECORD_OPTS[@]}" -p "$OSD_PID" -o "$WORK/kern" -- \
	"$REFBENCH" -p "$OSD_PORT" --no-progress -t 8 -d 2 write >"$WORK/kern.record.out" 2>&1 || kernel=0
stop_refosd
if [ "$kernel" = 0 ]; then
	echo "note: no kernel events here ($(tail -1 "$WORK/kern.record.out")): the plain run only"
	rm -rf "$WORK/kern"
fi

# outputs RUN TAG: every command's output into $WORK/RUN.TAG.<n>, its status checked.
cmds=("report" "report --json" "export --chrome" "flame --kind lock" "flame --kind op")
outputs() {
	local run=$1 tag=$2 i status
	for i in "${!cmds[@]}"; do
		status=0
		# shellcheck disable=SC2086
		"$CORECAP" ${cmds[$i]} "$WORK/$run" >"$WORK/$run.$tag.$i" 2>>"$WORK/$run.$tag.err" || status=$?
		expect_eq "$run: ${cmds[$i]} ($tag): exit status" 0 "$status"
	done
}

for run in plain kern; do
	[ -d "$WORK/$run" ] || continue
	rm -rf "$runs"
	CORECAP_RUNCACHE=0 outputs "$run" ref
	expect_true "$run: CORECAP_RUNCACHE=0 writes nothing" test ! -e "$runs"
	for i in "${!cmds[@]}"; do
		rm -rf "$cache/corecap"
		# The command cold, then warm: each the same as without the cache.
		for tag in cold warm; do
			status=0
			# shellcheck disable=SC2086
			CORECAP_RUNCACHE=verbose "$CORECAP" ${cmds[$i]} "$WORK/$run" >"$WORK/$run.$tag.$i" \
				2>"$WORK/$run.$tag.$i.err" || status=$?
			expect_eq "$run: ${cmds[$i]} ($tag): exit status" 0 "$status"
			expect_true "$run: ${cmds[$i]} ($tag): the output without the cache" \
				cmp -s "$WORK/$run.ref.$i" "$WORK/$run.$tag.$i"
		done
		expect_eq "$run: ${cmds[$i]} cold: the file written" 1 \
			"$(grep -c 'run cache: wrote' "$WORK/$run.cold.$i.err" || true)"
		# export reads the trace twice (op detection's scan first): replayed twice.
		expect_eq "$run: ${cmds[$i]} warm: the file replayed, nothing written" \
			"$([[ ${cmds[$i]} == export* ]] && echo 2 || echo 1) 0" \
			"$(grep -c 'run cache: replaying' "$WORK/$run.warm.$i.err" || true) $(grep -c 'run cache: wrote' "$WORK/$run.warm.$i.err" || true)"
	done
	expect_eq "$run: one cache file, mode 600, in a directory of mode 700, none aside" "1 600 700 0" \
		"$(find "$runs" -name '*.ev' | wc -l) $(stat -c %a "$runs"/*.ev) $(stat -c %a "$runs") $(find "$runs" -name '.*' -type f | wc -l)"
done

# The warm command does not read the trace: a stream file zeroed in place
# (size, inode and mtime kept) changes nothing for it.
run="$WORK/plain"
stream=$(find "$run/trace" -type f -name '*_0' -size +4k | head -1)
[ -n "$stream" ] || stream=$(find "$run/trace" -type f ! -name metadata ! -path '*/index/*' -size +0 | head -1)
expect_true "a stream file to zero" test -n "$stream"
"$CORECAP" report --json "$run" >"$WORK/warmup.json" # its file (the loop's last was kern's)
cp -p "$stream" "$WORK/stream.saved"
dd if=/dev/zero of="$stream" bs=4096 count=$(($(stat -c %s "$stream") / 4096)) conv=notrunc status=none
touch -r "$WORK/stream.saved" "$stream"
status=0
"$CORECAP" report --json "$run" >"$WORK/zeroed.json" 2>"$WORK/zeroed.err" || status=$?
expect_eq "zeroed stream, cached: exit status" 0 "$status"
expect_true "zeroed stream, cached: the report of the intact trace" cmp -s "$WORK/plain.ref.1" "$WORK/zeroed.json"
status=0
CORECAP_RUNCACHE=0 "$CORECAP" report --json "$run" >"$WORK/zeroed0.json" 2>"$WORK/zeroed0.err" || status=$?
expect_true "zeroed stream, without the cache: another report or an error" \
	test "$status" != 0 -o "$(cmp -s "$WORK/plain.ref.1" "$WORK/zeroed0.json" && echo same)" != same
cp -p "$WORK/stream.saved" "$stream"

# A changed mtime is a miss: written again.
touch "$stream"
CORECAP_RUNCACHE=verbose "$CORECAP" report --json "$run" >"$WORK/touched.json" 2>"$WORK/touched.err"
expect_eq "a touched trace file: a miss, written again" 1 "$(grep -c 'run cache: wrote' "$WORK/touched.err" || true)"
expect_true "... the same report" cmp -s "$WORK/plain.ref.1" "$WORK/touched.json"

# A cache file cut short: refused with one warning, the same report, rewritten.
for f in "$runs"/*.ev; do
	truncate -s $(($(stat -c %s "$f") / 2)) "$f"
done
CORECAP_RUNCACHE=verbose "$CORECAP" report --json "$run" >"$WORK/cut.json" 2>"$WORK/cut.err"
expect_eq "a cut cache file: one warning" 1 "$(grep -c 'is not valid (truncated): not used, rewritten' "$WORK/cut.err" || true)"
expect_eq "... rewritten" 1 "$(grep -c 'run cache: wrote' "$WORK/cut.err" || true)"
expect_true "... the same report" cmp -s "$WORK/plain.ref.1" "$WORK/cut.json"

# A directory others may write to: not used (one warning), nothing written there.
chmod 770 "$runs"
rm -f "$runs"/*.ev
"$CORECAP" report --json "$run" >"$WORK/open.json" 2>"$WORK/open.err"
expect_eq "group-writable run cache: one warning" 1 "$(grep -c 'others may write to it: not used' "$WORK/open.err" || true)"
expect_eq "... nothing written" "" "$(ls -A "$runs")"
expect_true "... the same report" cmp -s "$WORK/plain.ref.1" "$WORK/open.json"
finish
