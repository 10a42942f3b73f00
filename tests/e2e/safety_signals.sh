#!/usr/bin/env bash
# What each signal does to `corecap record` during a wall-clock sampled,
# traced window with a benchmark: SIGHUP, SIGTERM and SIGINT end the window,
# stop the benchmark, destroy the LTTng session, detach every thread, write
# a partial run and exit 128 + the signal. SIGSTOP of the collector while
# the daemon's threads wait for it (a signal to the daemon passes through
# the collector) does not freeze the daemon: the watchdog resumes it, and
# the manifest says so.
set -u
. "${CORECAP_SRC:?}/tests/e2e/collector_lib.sh"
need_sessiond

start_daemon osd
session_of() { lttng list 2>/dev/null | grep -c "corecap-$OSD_PID-.*-$1 "; }
tracer() { awk '/^TracerPid:/ { print $2 }' /proc/"$OSD_PID"/status; }
# held_threads: threads in a stop through five looks 50 ms apart (a sample
# holds its thread for well under a millisecond; a frozen one stays).
held_threads() {
	local i
	for i in 1 2 3 4 5; do
		stopped_threads "$OSD_PID"
		sleep 0.05
	done | sort | uniq -c | awk '$1 == 5 { print $2, $3 }'
}

for sig in HUP TERM INT; do
	case $sig in HUP) want=129 ;; TERM) want=143 ;; INT) want=130 ;; esac
	run="$WORK/sig$sig"
	"$CORECAP" record -p "$OSD_PID" -o "$run" --wallclock=200 --wallclock-via ptrace -d 30 -- \
		"$REFBENCH" -p "$OSD_PORT" -t 4 -b 1 -d 30 write >"$WORK/out" 2>"$run.err" &
	rec=$!
	wait_window "$run.err"
	sleep 1
	kill -"$sig" "$rec"
	wait "$rec"
	expect_eq "SIG$sig: exit status 128 + signal" "$want" "$?"
	expect_eq "SIG$sig: the manifest says partial" partial "$(json "$run/manifest.json" 'd["status"]')"
	expect_true "SIG$sig: ... interrupted" grep -q '"partial_reason": "interrupted at +[0-9.]* s"' "$run/manifest.json"
	expect_true "SIG$sig: the benchmark was stopped and printed its summary" grep -q '^Total writes made:' "$run/bench.out"
	expect_eq "SIG$sig: its LTTng session is destroyed" 0 "$(session_of "$rec")"
	expect_eq "SIG$sig: the daemon is detached" 0 "$(tracer)"
	expect_eq "SIG$sig: no thread left stopped" "" "$(stopped_threads "$OSD_PID")"
	rc=0
	"$CORECAP" report "$run" >"$run.txt" 2>"$run.rep.err" || rc=$?
	expect_eq "SIG$sig: report reads the run" 0 "$rc"
	expect_true "SIG$sig: ... and says partial" grep -q 'partial run: interrupted' "$run.txt"
done

# SIGSTOP while attached; a signal to the daemon then waits for the collector.
run="$WORK/stop"
"$CORECAP" record -p "$OSD_PID" -o "$run" --no-trace --wallclock=200 --wallclock-via ptrace -d 4 >"$WORK/out" 2>"$run.err" &
rec=$!
wait_window "$run.err"
sleep 0.5
kill -STOP "$rec"
sleep 0.3
for i in 1 2 3; do
	kill -WINCH "$OSD_PID" # ignored by refosd, but a traced thread stops to report it
	sleep 0.2
done
sleep 0.5
expect_eq "SIGSTOP of the collector: no daemon thread held in a ptrace stop" "" "$(held_threads)"
expect_true "... the daemon still serves" bench_ok "$OSD_PORT"
kill -CONT "$rec"
wait "$rec"
expect_eq "... the recording still ends normally" 0 "$?"
expect_calc "... the manifest counts the watchdog's SIGCONTs" "$(json "$run/manifest.json" "d['watchdog']['collector_continued']") >= 1"
expect_true "... and record says so" grep -q "its watchdog resumed it" "$run.err"
expect_eq "... the daemon is detached" 0 "$(tracer)"
finish
