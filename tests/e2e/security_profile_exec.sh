#!/usr/bin/env bash
# A daemon under `corecap run --cpuprofile` that re-executes itself while a
# record has its profiler on survives (issue 42, 6a): ITIMER_PROF survives
# execve, SIGPROF's handler does not, and the new image used to die of
# SIGPROF (3 of 5). The shim's exec wrappers switch the timer off across
# the exec. The record does not switch the new image's profiler on with a
# blind stop toggle. Five rounds, all five must survive.
set -u
. "${CORECAP_SRC:?}/tests/e2e/collector_lib.sh"

REEXEC="$CORECAP_BUILD/tests/e2e/security_profile_reexec"
[ -x "$REEXEC" ] || { echo "FAIL: $REEXEC is not built"; exit 1; }
[ -r /usr/lib/x86_64-linux-gnu/libprofiler.so.0 ] || skip "gperftools' libprofiler is not installed"

# profile_files PID: the profile files PID holds open (its profiler is on).
profile_files() { ls -l /proc/"$1"/fd 2>/dev/null | grep -c '/prof\.[0-9]'; }
# cpuprofile_of PID: PID's CPUPROFILE (libprofiler marks the variable used
# by setting the top bit of a first byte; cleared here).
cpuprofile_of() {
	python3 -c 'import sys
for e in open("/proc/%s/environ" % sys.argv[1], "rb").read().split(b"\0"):
	n, _, v = e.partition(b"=")
	if n and v and bytes([n[0] & 127]) + n[1:] == b"CPUPROFILE":
		print((bytes([v[0] & 127]) + v[1:]).decode())' "$1"
}
state() { sed -n 's/^State:\t\(.\).*/\1/p' /proc/"$1"/status 2>/dev/null; }

survived=0
for round in 1 2 3 4 5; do
	d="$WORK/r$round"
	mkdir "$d"
	"$CORECAP" run --cpuprofile -- "$REEXEC" "$d" >"$d/out" 2>"$d/err" &
	pid=$!
	track "$pid"
	for i in $(seq 100); do grep -q '^ready' "$d/out" && break; sleep 0.05; done
	"$CORECAP" record -p "$pid" --no-trace -d 4 -o "$d/run" >/dev/null 2>"$d/rec.err" &
	rec=$!
	track "$rec"
	wait_window "$d/rec.err" || break
	for i in $(seq 150); do [ "$(profile_files "$pid")" -gt 0 ] && break; sleep 0.02; done
	on=$(profile_files "$pid")
	touch "$d/go"
	for i in $(seq 100); do
		{ [ -e "$d/survived" ] || ! kill -0 "$pid" 2>/dev/null; } && break
		sleep 0.05
	done
	wait "$rec"
	rc=$?
	if [ "$on" -gt 0 ] && [ -e "$d/survived" ] && kill -0 "$pid" 2>/dev/null &&
		[ "$(state "$pid")" != T ] && [ "$(state "$pid")" != t ]; then
		survived=$((survived + 1))
		# The record saw the exec end its profile; it must not have switched the new
		# image's on (that one would write prof_PID.N).
		prof=$(cpuprofile_of "$pid")
		expect_true "round $round: its profile directory is there" test -d "${prof%/*}"
		expect_eq "round $round: the new image's profiler was never switched on" "0" \
			"$(ls "${prof%/*}" | grep -c '^prof_')"
		expect_true "... and the record said why it has no profile" grep -q "CPU profiler was switched off before the window's end (did it exec?)" "$d/rec.err"
	else
		echo "round $round: profiler on at the exec: $on; daemon: $(kill -0 "$pid" 2>/dev/null && echo "alive, state $(state "$pid")" || echo dead); record exit $rc"
		wait "$pid" 2>/dev/null
		echo "    daemon exit status $? (SIGPROF is $(( $(kill -l SIGPROF) + 128 )))"
		sed 's/^/    /' "$d/err" "$d/rec.err" | tail -n 20
	fi
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
done
expect_eq "daemons that exec'd with the profiler on and survived" 5 "$survived"
finish
