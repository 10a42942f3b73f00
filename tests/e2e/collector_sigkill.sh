#!/usr/bin/env bash
# A collector killed with SIGKILL while it samples stacks never leaves the
# daemon stopped: 20 kills at random moments, then every thread must be
# out of t/T and the daemon must still serve refbench.
set -u
. "${CORECAP_SRC:?}/tests/e2e/collector_lib.sh"
need_sessiond

# --no-shim: this test is about ptrace; the probes alone still give the
# killed tracing collectors an LTTng session to leave behind.
start_daemon osd --no-shim
# Load, so that threads are busy (running, in locks, in syscalls) when hit.
"$REFBENCH" -p "$OSD_PORT" -t 4 -b 1 -d 60 write >/dev/null 2>&1 &
load=$!
track "$load"
sleep 0.5
bad=0
left_at_kill=0
leftover() { lttng list 2>/dev/null | grep -c "corecap-$OSD_PID-" ; }
for i in $(seq 1 20); do
	trace=--no-trace
	# Two of the kills hit a tracing collector: its watchdog destroys its LTTng
	# session, or, killed too, the next recording does.
	[ "$i" -eq 7 ] || [ "$i" -eq 14 ] && trace=
	"$CORECAP" record $trace -p "$OSD_PID" -o "$WORK/k$i" --wallclock=200 --wallclock-via ptrace -d 30 \
		>/dev/null 2>"$WORK/k$i.err" &
	rec=$!
	# Kill it at a random moment 0-390 ms into its sampling.
	wait_window "$WORK/k$i.err" || bad=$((bad + 1))
	sleep "0.$((RANDOM % 4))$((RANDOM % 10))"
	# The 14th takes its stop watchdog with it, which would destroy the session.
	[ "$i" -eq 14 ] && kill -KILL $(pgrep -P "$rec") 2>/dev/null
	kill -KILL "$rec"
	wait "$rec" 2>/dev/null
	if [ "$i" -eq 7 ]; then
		for _ in $(seq 1 50); do
			[ "$(leftover)" -eq 0 ] && break
			sleep 0.1
		done
		expect_eq "the watchdog of a killed tracing collector destroyed its session" 0 "$(leftover)"
	fi
	[ "$i" -eq 14 ] && left_at_kill=$((left_at_kill + $(leftover)))
	stopped=$(stopped_threads "$OSD_PID")
	if [ -n "$stopped" ]; then
		echo "FAIL: kill $i left threads stopped: $stopped"
		bad=$((bad + 1))
	fi
done
expect_eq "no thread left in t/T after 20 SIGKILLs" 0 "$bad"
kill -0 "$OSD_PID" 2>/dev/null
expect_eq "the daemon is alive" 0 "$?"
expect_true "the daemon still serves refbench" bench_ok "$OSD_PORT"
kill "$load" 2>/dev/null
wait "$load" 2>/dev/null

# A collector killed with its watchdog cannot destroy its LTTng session; the
# next recording destroys it (any corecap record may, so another test may
# get there first).
expect_true "a tracing collector killed with its watchdog left its LTTng session" test "$left_at_kill" -ge 1
had=$(leftover)
"$CORECAP" record -p "$OSD_PID" -o "$WORK/after" -d 0.5 >/dev/null 2>"$WORK/after.err"
expect_eq "a recording after the kills" 0 "$?"
if [ "$had" -gt 0 ]; then
	expect_true "it says it destroyed the stale sessions" grep -q "destroyed LTTng session 'corecap-$OSD_PID-.*' left by a collector that died" "$WORK/after.err"
fi
expect_eq "no session of this daemon is left" 0 "$(leftover)"

finish
