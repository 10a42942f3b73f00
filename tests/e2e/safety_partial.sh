#!/usr/bin/env bash
# A collector killed outright leaves a readable run: the manifest is a
# "partial" checkpoint (rewritten once a second), threads.tsv ends in a
# whole line, and `corecap report` reads it, exits 0 and says partial. The
# readers drop a torn last line and mark the run partial. A benchmark that
# could not start or was killed by a signal makes the run partial with the
# reason; a bad --ceph-asok is an error.
set -u
. "${CORECAP_SRC:?}/tests/e2e/collector_lib.sh"
need_sessiond

start_daemon osd
status() { "$@" >"$WORK/out" 2>"$WORK/err"; echo $?; }

# SIGKILL in the middle of a traced, sampled window with a benchmark.
run="$WORK/killed"
"$CORECAP" record -p "$OSD_PID" -o "$run" --wallclock=200 --wallclock-via ptrace -d 30 -- \
	"$REFBENCH" -p "$OSD_PORT" -t 4 -b 1 -d 30 write >/dev/null 2>"$run.err" &
rec=$!
wait_window "$run.err"
sleep 2.3
bench=$(pgrep -P "$rec" -x refbench)
kill -KILL "$rec"
wait "$rec" 2>/dev/null
[ -n "$bench" ] && kill "$bench" 2>/dev/null # orphaned by the kill
expect_eq "a SIGKILLed collector's manifest says partial" partial "$(json "$run/manifest.json" 'd["status"]')"
expect_true "... cut short at its last checkpoint" grep -q '"partial_reason": "cut short: the collector.s last checkpoint was at +[12]\.[0-9] s' "$run/manifest.json"
expect_eq "... threads.tsv ends in a whole line" "" "$(tail -c 1 "$run/threads.tsv" | tr -d '\n')"
expect_eq "... wall.samples ends in a whole line" "" "$(tail -c 1 "$run/wall.samples" | tr -d '\n')"
rc=0
"$CORECAP" report "$run" >"$run.txt" 2>"$run.rep.err" || rc=$?
expect_eq "report reads it" 0 "$rc"
expect_true "... and says partial" grep -q 'partial run: cut short' "$run.txt"
rc=0
"$CORECAP" report --json "$run" >"$run.json" 2>/dev/null || rc=$?
expect_eq "report --json reads it" 0 "$rc"
expect_eq "... partial" True "$(json "$run.json" "d['quality']['partial']")"
rc=0
"$CORECAP" flame --kind wall "$run" >/dev/null 2>&1 || rc=$?
expect_eq "flame --kind wall reads it" 0 "$rc"

# Torn last lines (a kill in the middle of a write) are dropped, the run marked.
torn="$WORK/torn"
cp -r "$run" "$torn"
printf '%s\t4242\tmsgr-wor' "$(date +%s%N)" >>"$torn/threads.tsv"
printf '123\t4242\t1000\t7f00' >>"$torn/wall.samples"
cp "$torn/manifest.json" "$WORK/m.json"
python3 - "$WORK/m.json" "$torn/manifest.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["status"], d["partial_reason"] = "complete", None
json.dump(d, open(sys.argv[2], "w"))
PY
rc=0
"$CORECAP" report --json "$torn" >"$torn.json" 2>"$torn.err" || rc=$?
expect_eq "a torn threads.tsv: report exits 0" 0 "$rc"
expect_eq "... the run is marked partial" "threads.tsv ends in a torn line" "$(json "$torn.json" "d['quality']['partial_reason']")"
expect_true "... the torn thread is not counted" test -z "$(json "$torn.json" "[t for t in d['threads'] if t['tid'] == 4242]" | tr -d '[]')"
rc=0
"$CORECAP" flame --kind wall "$torn" >/dev/null 2>"$torn.flame.err" || rc=$?
expect_eq "a torn wall.samples: flame exits 0" 0 "$rc"
expect_true "... and warns" grep -q "wall.samples' ends in a torn line" "$torn.flame.err"
rc=0
"$CORECAP" export --chrome -o "$torn.chrome.json" "$torn" >/dev/null 2>&1 || rc=$?
expect_eq "a torn threads.tsv: export exits 0" 0 "$rc"

# Killed right at the start: either nothing was created, or report says partial.
"$CORECAP" record -p "$OSD_PID" -o "$WORK/early" --wallclock --wallclock-via ptrace -d 10 >/dev/null 2>&1 &
rec=$!
sleep 0.0$((RANDOM % 10))
kill -KILL "$rec"
wait "$rec" 2>/dev/null
if [ -e "$WORK/early" ]; then
	rc=0
	"$CORECAP" report "$WORK/early" >"$WORK/early.txt" 2>&1 || rc=$?
	expect_eq "a collector killed at its start: report reads the run" 0 "$rc"
	expect_true "... and says partial" grep -q 'partial' "$WORK/early.txt"
fi

# A benchmark that cannot start, or is killed by a signal: partial, with why.
expect_eq "a benchmark that cannot start" 1 "$(status "$CORECAP" record -q -p "$OSD_PID" --no-trace -o "$WORK/nobench" -- "$WORK/no-such-benchmark")"
expect_eq "... the run is partial" partial "$(json "$WORK/nobench/manifest.json" 'd["status"]')"
expect_eq "... because it could not start" "the benchmark could not start: cannot run '$WORK/no-such-benchmark': No such file or directory" "$(json "$WORK/nobench/manifest.json" 'd["partial_reason"]')"
expect_eq "... the cause in the manifest" "No such file or directory" "$(json "$WORK/nobench/manifest.json" 'd["benchmark"]["start_error"]')"
expect_eq "a benchmark killed by SIGSEGV" 1 "$(status "$CORECAP" record -q -p "$OSD_PID" --no-trace -o "$WORK/segv" -- sh -c 'kill -SEGV $$')"
expect_true "... is named" grep -q "the benchmark 'sh' was killed by signal 11 (Segmentation fault)" "$WORK/err"
expect_eq "... the run is partial, with the signal" "the benchmark was killed by signal 11 (Segmentation fault)" "$(json "$WORK/segv/manifest.json" 'd["partial_reason"]')"
expect_eq "... exit_signal" 11 "$(json "$WORK/segv/manifest.json" 'd["benchmark"]["exit_signal"]')"

# --ceph-asok that is not an admin socket is an error, before anything is made.
expect_eq "--ceph-asok /nonexistent" 1 "$(status "$CORECAP" record -p "$OSD_PID" --no-trace -d 1 -o "$WORK/asok" --ceph-asok "$WORK/nonexistent")"
expect_true "... names the socket and the cause" grep -q "cannot use admin socket '$WORK/nonexistent': No such file or directory" "$WORK/err"
expect_true "... and leaves no run" test ! -e "$WORK/asok"
expect_eq "--ceph-asok on a regular file" 1 "$(status "$CORECAP" record -p "$OSD_PID" --no-trace -d 1 -o "$WORK/asok" --ceph-asok "$WORK/m.json")"
expect_true "... says it is not a socket" grep -q "cannot use admin socket '$WORK/m.json': not a socket" "$WORK/err"

finish
