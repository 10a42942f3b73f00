# Helpers for refosd's end-to-end tests (sourced). Every daemon started
# with start_refosd is killed when the test exits, whatever happens.
# shellcheck shell=bash
. "${CORECAP_SRC:?CORECAP_SRC is not set}/tests/e2e/lib.sh"

BIN="${CORECAP_BUILD:?CORECAP_BUILD is not set}/tests/refosd"
for _b in refosd refbench; do
	# Built by this project: missing means broken, not skipped.
	[ -x "$BIN/$_b" ] || { echo "FAIL: $BIN/$_b is not built"; exit 1; }
done

e2e_workdir refosd

# start_refosd NAME [refosd options...]: sets OSD_PID and OSD_PORT; the
# daemon's stdout and stderr go to $WORK/NAME.out and $WORK/NAME.err.
start_refosd() {
	local name=$1
	shift
	launch_refosd "$name" "$BIN/refosd" --port 0 "$@"
}

# stop_refosd PID: SIGTERM, then the daemon's exit status in STOP_STATUS.
stop_refosd() {
	kill -TERM "$1"
	STOP_STATUS=0
	wait "$1" || STOP_STATUS=$?
}

# summary_value FILE LABEL: the value after "LABEL:" in a refbench/rados bench summary.
summary_value() {
	awk -v label="$2:" 'index($0, label) == 1 { v = substr($0, length(label) + 1); gsub(/ /, "", v); print v; exit }' "$1"
}

# cpu_ticks PID: the process's utime + stime, in clock ticks.
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# ticks_of_threads PID COMM: utime + stime of the process's threads named COMM.
ticks_of_threads() {
	local t sum=0
	for t in /proc/"$1"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = "$2" ] || continue
		sum=$((sum + $(awk '{ print $14 + $15 }' "$t/stat")))
	done
	echo "$sum"
}

# now_s: wall clock in seconds with nanoseconds.
now_s() {
	date +%s.%N
}

