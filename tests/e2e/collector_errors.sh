#!/usr/bin/env bash
# corecap record's failures: each names the PID and exits 1, and a window cut
# short still leaves a readable run.
set -u
. "${CORECAP_SRC:?}/tests/e2e/collector_lib.sh"
need_sessiond

status() { "$@" >"$WORK/out" 2>"$WORK/err"; echo $?; }

# A PID that does not exist (above any pid_max).
expect_eq "a PID that does not exist" 1 "$(status "$CORECAP" record -p 2147483646 -d 1 -o "$WORK/r0")"
expect_true "... is named" grep -q 'no process with PID 2147483646' "$WORK/err"
expect_true "... leaves no run directory" test ! -e "$WORK/r0"

# A kernel thread.
expect_eq "a kernel thread" 1 "$(status "$CORECAP" record -p 2 -d 1 -o "$WORK/r0")"
expect_true "... is named" grep -q 'PID 2 is a kernel thread (kthreadd)' "$WORK/err"
expect_true "... leaves no run directory" test ! -e "$WORK/r0"

# A process we may not trace: as nobody against a root daemon, or as
# ourselves against PID 1 when we are not root.
if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv >/dev/null || skip "setpriv is not installed (util-linux)"
	start_daemon root --no-shim
	victim=$OSD_PID
	as_other=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
else
	victim=1
	as_other=()
fi
for mode in --no-trace --wallclock; do
	rc=$(status "${as_other[@]}" "$CORECAP" record -p "$victim" $mode -d 1 -o "$WORK/r1")
	expect_eq "a process we may not trace ($mode)" 1 "$rc"
	expect_true "... is named with the cause" grep -q "cannot attach to PID $victim: Permission denied" "$WORK/err"
	expect_true "... leaves no run directory" test ! -e "$WORK/r1"
done
if [ "$(id -u)" -eq 0 ]; then
	expect_eq "the root daemon was left alone" "" "$(stopped_threads "$victim")"
	expect_true "... and still serves" bench_ok "$OSD_PORT"
fi

# A daemon that exits mid-window: partial run, reason, exit 1.
start_daemon dying --no-shim
"$CORECAP" record -p "$OSD_PID" -o "$WORK/r2" --wallclock --wallclock-via ptrace -d 20 >"$WORK/out" 2>"$WORK/err" &
rec=$!
wait_window "$WORK/err"
sleep 1
kill -TERM "$OSD_PID"
wait "$rec"
expect_eq "a daemon that exits mid-window" 1 "$?"
expect_true "... is named" grep -q "PID $OSD_PID (refosd) exited [0-9.]* s into the window; the run is partial" "$WORK/err"
expect_eq "... the manifest says partial" partial "$(json "$WORK/r2/manifest.json" 'd["status"]')"
expect_true "... with the reason" grep -q '"partial_reason": "daemon exited at +[0-9.]* s"' "$WORK/r2/manifest.json"
expect_true "... threads.tsv is readable" awk -F'\t' 'NR > 1 && NF == 12 { n++ } END { exit !(n > 0) }' "$WORK/r2/threads.tsv"
expect_true "... babeltrace2 still reads the trace" babeltrace2 -c sink.utils.dummy "$WORK/r2/trace"

# Ctrl-C ends the window: "interrupted", exit 130, the run is written.
start_daemon osd
"$CORECAP" record -p "$OSD_PID" -o "$WORK/r3" --wallclock=200 --wallclock-via ptrace -d 30 -- \
	"$REFBENCH" -p "$OSD_PORT" -t 4 -b 1 -d 30 write >"$WORK/out" 2>"$WORK/err" &
rec=$!
wait_window "$WORK/err"
sleep 1
kill -INT "$rec"
wait "$rec"
expect_eq "SIGINT during a benchmark" 130 "$?"
expect_true "... says interrupted" grep -q '^corecap record: interrupted$' "$WORK/err"
expect_eq "... the run is partial" partial "$(json "$WORK/r3/manifest.json" 'd["status"]')"
expect_true "... the benchmark was stopped too and printed its summary" grep -q '^Total writes made:' "$WORK/r3/bench.out"
expect_eq "... the daemon is not left stopped" "" "$(stopped_threads "$OSD_PID")"

"$CORECAP" record -p "$OSD_PID" -o "$WORK/r4" --wallclock --wallclock-via ptrace >"$WORK/out" 2>"$WORK/err" &
rec=$!
wait_window "$WORK/err"
sleep 1
kill -TERM "$rec"
wait "$rec"
expect_eq "SIGTERM of an open-ended window: 128 + 15" 143 "$?"
expect_eq "... the run is complete (the window was until a signal)" complete "$(json "$WORK/r4/manifest.json" 'd["status"]')"
expect_eq "... the daemon is not left stopped" "" "$(stopped_threads "$OSD_PID")"
expect_true "... and still serves" bench_ok "$OSD_PORT"

# A benchmark that fails: exit 1, its status in the manifest.
"$CORECAP" record -q -p "$OSD_PID" -o "$WORK/r5" --no-trace -- sh -c 'echo oops; exit 3' >"$WORK/out" 2>"$WORK/err"
expect_eq "a failing benchmark" 1 "$?"
expect_true "... is named with its status" grep -q "benchmark 'sh' exited with status 3" "$WORK/err"
expect_eq "... its status is in the manifest" 3 "$(json "$WORK/r5/manifest.json" 'd["benchmark"]["exit_status"]')"
expect_eq "... its output is kept" oops "$(cat "$WORK/r5/bench.out")"

# A symbolic link as the run directory is refused, even with --force.
ln -s "$WORK/elsewhere" "$WORK/link"
expect_eq "a symlinked run directory" 1 "$(status "$CORECAP" record -p "$OSD_PID" --force --no-trace -d 1 -o "$WORK/link")"
expect_true "... is refused by name" grep -q "run directory '$WORK/link' is a symbolic link" "$WORK/err"
expect_true "... nothing was created through it" test ! -e "$WORK/elsewhere"

finish
