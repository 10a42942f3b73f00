#!/usr/bin/env bash
# Issue 42, item 5: the owner of a daemon's counters cannot make stat,
# record or the daemon die of SIGBUS by truncating them. Before, the
# counters were /dev/shm/corecap.PID, mapped MAP_SHARED by all three:
# truncated, each died at its next access. Now they are a memfd sealed
# against shrinking and growing (corecap/stats_path.h), so:
#  - truncate on /proc/PID/fd/N (to 0, to one page, or larger) fails with
#    "Operation not permitted", as root the daemon's owner, and as nobody
#    on a daemon of nobody's; the size stays;
#  - while a loop keeps trying to truncate it under load, `corecap stat`
#    and `corecap record` (stats-begin and stats-end) finish with 0, the
#    daemon runs on, unstopped, and its counters keep growing;
#  - nobody's stat reads nobody's daemon (the unprivileged path through
#    /proc/PID/fd).
set -u
. "${CORECAP_SRC:?}/tests/e2e/collector_lib.sh"
DUMP="$CORECAP_BUILD/preload/corecap-stats-dump"

need_nobody "the daemon of another user (nobody) needs root to start"

# acquisitions, the process's total (corecap-stats-dump's total line).
acquisitions() {
	"$DUMP" "$1" | awk -F'\t' '$1 == "total" { print $5 }'
}
not_stopped() {
	[ -z "$(stopped_threads "$1")" ]
}

start_daemon osd -- --debug 0 --shards 2 --threads-per-shard 2
seg=$(shim_segment "$OSD_PID")
expect_true "refosd holds its segment ($seg)" test -n "$seg"
size=$(stat -L -c %s "$seg")
for to in 0 4096 +1M; do
	expect_fail_naming "truncate -s $to on the segment, as its owner" "Operation not permitted" \
		truncate -s "$to" "$seg"
done
expect_eq "its size stays" "$size" "$(stat -L -c %s "$seg")"

# Truncation tried again and again while stat and record read the counters.
"$REFBENCH" -p "$OSD_PORT" -t 8 -b 1 -d 5 --no-progress write >"$WORK/bench.out" 2>&1 &
bench=$!
track "$bench"
(
	tries=0 refused=0
	end=$((SECONDS + 4))
	while [ "$SECONDS" -lt "$end" ]; do
		tries=$((tries + 1))
		truncate -s 0 "$seg" 2>/dev/null || refused=$((refused + 1))
	done
	echo "$tries $refused" >"$WORK/truncations"
) &
trunc=$!
track "$trunc"
sleep 0.3
"$CORECAP" stat -p "$OSD_PID" -d 2 --interval 0.25 --json >"$WORK/stat.json" 2>"$WORK/stat.err" &
st=$!
track "$st"
rec_status=0
"$CORECAP" record -q -p "$OSD_PID" -d 2 --no-trace --no-kernel -o "$WORK/run" \
	>"$WORK/rec.out" 2>"$WORK/rec.err" || rec_status=$?
st_status=0
wait "$st" || st_status=$?
wait "$trunc"
wait "$bench" || true
read -r tries refused <"$WORK/truncations"
echo "truncations tried: $tries, refused: $refused"
expect_calc "truncation was tried many times" "$tries >= 10"
expect_eq "... and refused every time" "$tries" "$refused"
expect_eq "stat exits 0 (not 135, SIGBUS)" 0 "$st_status"
expect_calc "... after intervals of the shim's counters" \
	"$(grep -c '"source":"shim"\|"source": "shim"' "$WORK/stat.json") >= 4"
expect_eq "record exits 0 (not 135, SIGBUS)" 0 "$rec_status"
expect_eq "... with both copies of the counters" 2 "$(json "$WORK/run/manifest.json" 'd["stats"]["copies"]')"
begin=$(acquisitions "$WORK/run/stats-begin")
end=$(acquisitions "$WORK/run/stats-end")
expect_calc "the daemon kept counting: $begin then $end acquisitions" "$end > $begin"
expect_true "the daemon still runs" kill -0 "$OSD_PID"
expect_true "... and none of its threads is stopped" not_stopped "$OSD_PID"
expect_eq "the segment's size never changed" "$size" "$(stat -L -c %s "$seg")"
expect_true "refosd said nothing of a bus error" sh -c "! grep -qi 'bus error' '$WORK/osd.err'"
kill -TERM "$OSD_PID"
wait "$OSD_PID" 2>/dev/null

# A daemon of nobody's: nobody cannot truncate its counters either, and
# nobody's stat reads them (through /proc/PID/fd, no root).
launch_refosd nob "${AS_NOBODY[@]}" "$CORECAP" run -- "$REFOSD" --port 0 --debug 0
seg=$(shim_segment "$OSD_PID")
expect_eq "nobody's refosd holds a segment of nobody's" nobody "$(stat -L -c %U "$seg" 2>/dev/null)"
expect_fail_naming "truncate -s 0 on it, as nobody" "Operation not permitted" \
	"${AS_NOBODY[@]}" truncate -s 0 "$seg"
status=0
"${AS_NOBODY[@]}" "$CORECAP" stat -p "$OSD_PID" --once --json --interval 0.2 \
	>"$WORK/nob.json" 2>"$WORK/nob.err" || status=$?
expect_eq "nobody's stat of nobody's daemon exits 0" 0 "$status"
expect_eq "... and shows its shim counters" "shim $OSD_PID" \
	"$(json "$WORK/nob.json" "d['source'] + ' ' + str(d['pid'])" 2>/dev/null)"
expect_true "nobody's refosd still runs" kill -0 "$OSD_PID"
kill -TERM "$OSD_PID"
wait "$OSD_PID" 2>/dev/null
finish
