# Helpers for the collector's end-to-end tests (sourced). Every daemon
# started here is killed when the test exits, whatever happens.
# shellcheck shell=bash
. "${CORECAP_SRC:?CORECAP_SRC is not set}/tests/e2e/lib.sh"

CORECAP="${CORECAP_BUILD:?CORECAP_BUILD is not set}/cli/corecap"
REFOSD="$CORECAP_BUILD/tests/refosd/refosd"
REFBENCH="$CORECAP_BUILD/tests/refosd/refbench"
for _b in "$CORECAP" "$REFOSD" "$REFBENCH" "$CORECAP_BUILD/preload/libcorecap-preload.so" \
	"$CORECAP_BUILD/tracepoints/libcorecap-tp.so"; do
	# Built by this project: missing means broken, not skipped.
	[ -e "$_b" ] || { echo "FAIL: $_b is not built"; exit 1; }
done

e2e_workdir collector
chmod 755 "$WORK"

# start_daemon NAME [corecap run options] -- [refosd options]: refosd under
# `corecap run`; sets OSD_PID and OSD_PORT. Output in $WORK/NAME.out/.err.
start_daemon() {
	local name=$1
	shift
	local run_opts=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		run_opts+=("$1")
		shift
	done
	[ "${1:-}" = "--" ] && shift
	launch_refosd "$name" "$CORECAP" run "${run_opts[@]}" -- "$REFOSD" --port 0 "$@"
}

# stopped_threads PID: the threads of PID in state t or T, one "tid state" per line.
stopped_threads() {
	local s
	for s in /proc/"$1"/task/*/stat; do
		# The state follows the last ')' (the name may hold blanks).
		sed -n 's/^\([0-9]*\) (.*) \([tT]\) .*/\1 \2/p' "$s" 2>/dev/null
	done
}

# bench_ok PORT: refbench still gets answers (writes made > 0).
bench_ok() {
	local n
	n=$(timeout 20 "$REFBENCH" -p "$1" -t 2 -b 1 -d 1 write 2>/dev/null |
		awk -F: '/^Total writes made:/ { gsub(/ /, "", $2); print $2 }')
	[ -n "$n" ] && [ "$n" -gt 0 ]
}

# wait_window FILE: wait (at most 30 s) until the recording whose stderr is
# FILE has started its window.
wait_window() {
	local i
	for i in $(seq 1 300); do
		grep -q '^corecap record: recording PID' "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "FAIL: the recording did not start its window within 30 s:"
	cat "$1"
	return 1
}

# need_nobody REASON: root, setpriv and the user nobody, else skip saying
# REASON; sets AS_NOBODY, the prefix that runs a command as nobody.
need_nobody() {
	[ "$(id -u)" -eq 0 ] || skip "$1 needs root"
	command -v setpriv >/dev/null && getent passwd nobody >/dev/null ||
		skip "setpriv or the user nobody is missing"
	AS_NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
	# A checkout under a private directory (mktemp -d makes one 0700) keeps
	# nobody from the binaries: that is the machine's setup, not a fault here.
	"${AS_NOBODY[@]}" test -x "$CORECAP" -a -r "$(dirname "$CORECAP")" ||
		skip "user nobody cannot run '$CORECAP' (a parent directory is private); check out where others may read"
}

# tree_snap DIR: every entry's path, type, mode, owner and size, and every
# file's bytes (sha256), in a stable order: two snaps equal means intact.
tree_snap() {
	(cd "$1" && find . -printf '%P %y %m %U %s\n' | LC_ALL=C sort &&
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}

# names_beside DIR: the entries of DIR's parent named after DIR (the run and
# anything written aside of it).
names_beside() {
	(cd "$(dirname "$1")" && ls -A | grep -F "$(basename "$1")" | LC_ALL=C sort | tr '\n' ' ')
}

# shim_segment PID: PID's descriptor of its shim counters' memfd (/proc/PID/fd/N).
shim_segment() {
	find "/proc/$1/fd" -lname "/memfd:corecap.$1 (deleted)" 2>/dev/null | head -n 1
}
