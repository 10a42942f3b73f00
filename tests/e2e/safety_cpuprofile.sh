#!/usr/bin/env bash
# gperftools' profiler of a `corecap run --cpuprofile` daemon is never
# harmed by `corecap record`: short windows do not abort it (its two
# toggles are kept apart; -d under 0.1 s is a usage error), one
# recorder at a time owns it (a second is refused by name), and a recorder
# killed mid-window leaves it on only until the next record, which
# switches it off, removes the dead window's file and gets its own profile.
# A disk that fills up mid-window is named as such.
set -u
. "${CORECAP_SRC:?}/tests/e2e/collector_lib.sh"

start_daemon osd --cpuprofile --no-shim
prof=$(tr '\0' '\n' </proc/"$OSD_PID"/environ | sed -n 's/^CPUPROFILE=//p')
status() { "$@" >"$WORK/out" 2>"$WORK/err"; echo $?; }
alive() { kill -0 "$OSD_PID" 2>/dev/null; }
# profiler_on: the daemon holds a profile file open.
profiler_on() { ls -l /proc/"$OSD_PID"/fd 2>/dev/null | grep -q "$prof\.[0-9]"; }
cpu_bytes() { json "$1/manifest.json" "d['cpu_prof']['bytes'] if 'cpu_prof' in d else 0"; }

expect_eq "-d 0.005: a usage error" 2 "$(status "$CORECAP" record -p "$OSD_PID" --no-trace -d 0.005 -o "$WORK/tiny")"
expect_true "... naming the bound" grep -q "invalid duration '0.005' (seconds, at least 0.1" "$WORK/err"
expect_true "... and nothing recorded" test ! -e "$WORK/tiny"

# Short windows, back to back, with load so that every thread can take the toggle.
"$REFBENCH" -p "$OSD_PORT" -t 4 -b 1 -d 60 write >/dev/null 2>&1 &
load=$!
track "$load"
ok=0
for i in 1 2 3 4 5 6; do
	rc=$(status "$CORECAP" record -q -p "$OSD_PID" --no-trace -d 0.1 -o "$WORK/short$i")
	if [ "$rc" = 0 ] && alive && [ "$(cpu_bytes "$WORK/short$i")" -gt 0 ]; then
		ok=$((ok + 1))
	else
		echo "short record $i: exit $rc, daemon alive: $(alive && echo yes || echo no)"
		sed 's/^/    /' "$WORK/err" "$WORK/osd.err"
	fi
done
expect_eq "6 records of 0.1 s leave the daemon alive, each with its CPU profile" 6 "$ok"
# A benchmark that exits at once ends the window within milliseconds: the
# stop toggle must still wait for the profiler to be on (this aborted the
# daemon at the first record: "Can't turn on cpu profiling").
ok=0
for i in 1 2 3 4 5 6; do
	rc=$(status "$CORECAP" record -q -p "$OSD_PID" --no-trace -o "$WORK/instant$i" -- true)
	if [ "$rc" = 0 ] && alive && [ "$(cpu_bytes "$WORK/instant$i")" -gt 0 ]; then
		ok=$((ok + 1))
	else
		echo "instant record $i: exit $rc, daemon alive: $(alive && echo yes || echo no)"
		sed 's/^/    /' "$WORK/err" "$WORK/osd.err"
		alive || break
	fi
done
expect_eq "6 records of an instant benchmark leave the daemon alive, each with its CPU profile" 6 "$ok"
alive || { finish; exit 1; }

# Two recorders: the second is refused by name; --no-cpu-profile lets it record.
"$CORECAP" record -p "$OSD_PID" --no-trace -d 3 -o "$WORK/first" >/dev/null 2>"$WORK/first.err" &
first=$!
wait_window "$WORK/first.err"
expect_eq "a second recorder of the profiled daemon" 1 "$(status "$CORECAP" record -p "$OSD_PID" --no-trace -d 0.5 -o "$WORK/second")"
expect_true "... is refused, naming the owner" grep -q "PID $OSD_PID's CPU profiler is in use by another corecap record (PID $first)" "$WORK/err"
expect_true "... and leaves no run" test ! -e "$WORK/second"
expect_eq "... with --no-cpu-profile it records" 0 "$(status "$CORECAP" record -q -p "$OSD_PID" --no-trace --no-cpu-profile -d 0.5 -o "$WORK/third")"
expect_eq "... without a profile" False "$(json "$WORK/third/manifest.json" "d['sources']['cpu_prof']")"
wait "$first"
expect_eq "the first recorder" 0 "$?"
expect_calc "... got its CPU profile" "$(cpu_bytes "$WORK/first") > 0" ||
	sed 's/^/    /' "$WORK/first.err" "$WORK/osd.err"

# A recorder killed mid-window leaves the profiler on; the next one repairs it.
"$CORECAP" record -p "$OSD_PID" --no-trace -d 20 -o "$WORK/killed" >/dev/null 2>"$WORK/killed.err" &
killed=$!
wait_window "$WORK/killed.err"
sleep 0.5
kill -KILL "$killed"
wait "$killed" 2>/dev/null
expect_true "the killed recorder left the profiler on" profiler_on
expect_eq "the next record" 0 "$(status "$CORECAP" record -p "$OSD_PID" --no-trace -d 0.5 -o "$WORK/next")"
expect_true "... switched it off, naming the dead recorder" grep -q "switched off PID $OSD_PID's CPU profiler, left on by corecap record PID $killed that died" "$WORK/err"
expect_calc "... and got its own CPU profile" "$(cpu_bytes "$WORK/next") > 0"
expect_true "... the profiler is off afterwards" test -z "$(profiler_on && echo on)"
expect_eq "no profile file is left beside CPUPROFILE" "" "$(ls "$prof".* 2>/dev/null)"
expect_true "the daemon is alive" alive

# A disk that fills up during the window: every failed write is named with
# "No space left on device" (the profile's copy said "Input/output error").
if [ "$(id -u)" -eq 0 ] && mkdir "$WORK/small" && mount -t tmpfs -o size=1m tmpfs "$WORK/small" 2>/dev/null; then
	e2e_cleanup_hook() { umount "$WORK/small" 2>/dev/null || true; }
	"$CORECAP" record -p "$OSD_PID" --no-trace -d 2 -o "$WORK/small/run" >/dev/null 2>"$WORK/full.err" &
	rec=$!
	wait_window "$WORK/full.err"
	dd if=/dev/zero of="$WORK/small/filler" bs=4k status=none 2>/dev/null
	wait "$rec"
	expect_eq "a full disk: record fails" 1 "$?"
	expect_true "... naming the cause" grep -q "No space left on device" "$WORK/full.err"
	expect_eq "... never as an I/O error" "" "$(grep -i 'Input/output error' "$WORK/full.err")"
	expect_true "... the daemon is alive" alive
	expect_true "... its profiler is off" test -z "$(profiler_on && echo on)"
	sed 's/^/    /' "$WORK/full.err"
	# The profile that could not be copied stays beside CPUPROFILE; it is this test's.
	rm -f "$prof".[0-9]*
else
	echo "note: not root (or no tmpfs mount here): the full-disk check is skipped"
fi
kill "$load" 2>/dev/null
finish
