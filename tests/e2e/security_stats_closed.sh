#!/usr/bin/env bash
# The shim's counters are reached through the daemon's descriptor of its
# memfd; a daemon that closes every descriptor as it starts loses it, but
# not the mapping:
#  - a process under the shim that closed that descriptor (a shell, which
#    then waits on a FIFO without forking): root's stat and
#    corecap-stats-dump still read its counters, through /proc/PID/maps and
#    /proc/PID/map_files, and its counters are its own (header pid);
#  - the same process of nobody's, looked at by nobody: exit 1, naming
#    the map_files path and that the process closed the shim's descriptor
#    (only root may open a mapping), not "no shim segment".
set -u
. "${CORECAP_SRC:?}/tests/e2e/collector_lib.sh"
DUMP="$CORECAP_BUILD/preload/corecap-stats-dump"

need_nobody "reading a mapping through /proc/PID/map_files"

# A shell under the shim that closes its segment's descriptor, says so, and
# blocks reading the FIFO (no child: the counters stay its own).
CLOSER='for l in /proc/$$/fd/*; do
	case $(readlink "$l") in "/memfd:corecap.$$ (deleted)") eval "exec ${l##*/}>&-" ;; esac
done
echo "segments left: $(ls -l /proc/$$/fd | grep -c memfd:corecap)"
echo closed
read -r _ <"$1"'

# start_closer NAME [prefix...]: sets PID.
start_closer() {
	local name=$1 i
	shift
	mkfifo "$WORK/$name"
	chmod 666 "$WORK/$name"
	"$@" "$CORECAP" run -- /bin/bash -c "$CLOSER" closer "$WORK/$name" >"$WORK/$name.out" 2>"$WORK/$name.err" &
	PID=$!
	track "$PID"
	for i in $(seq 1 100); do
		grep -q '^closed$' "$WORK/$name.out" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "FAIL: the shell did not start:"
	cat "$WORK/$name.err"
	exit 1
}
# stop_closer NAME
stop_closer() {
	echo done >"$WORK/$1"
	wait "$PID" 2>/dev/null
}

start_closer root
expect_true "the shell closed its segment's descriptor" grep -q '^segments left: 0$' "$WORK/root.out"
expect_true "... whose mapping stays" grep -q "/memfd:corecap.$PID (deleted)" "/proc/$PID/maps"
status=0
"$CORECAP" stat -p "$PID" --once --json --interval 0.2 >"$WORK/stat.json" 2>"$WORK/stat.err" || status=$?
expect_eq "root's stat of it exits 0" 0 "$status"
expect_eq "... and shows its shim counters" "shim $PID" \
	"$(json "$WORK/stat.json" "d['source'] + ' ' + str(d['pid'])" 2>/dev/null)"
status=0
"$DUMP" --copy "$WORK/copy" "$PID" 2>"$WORK/dump.err" || status=$?
expect_eq "root's corecap-stats-dump --copy of it exits 0" 0 "$status"
expect_eq "... its own counters (header pid)" "$PID" \
	"$(python3 -c 'import struct, sys; print(struct.unpack_from("<i", open(sys.argv[1], "rb").read(), 96)[0])' "$WORK/copy" 2>/dev/null)"
stop_closer root

start_closer nob "${AS_NOBODY[@]}"
expect_true "nobody's shell closed its segment's descriptor" grep -q '^segments left: 0$' "$WORK/nob.out"
expect_fail_naming "nobody's stat of nobody's shell" "closed the shim's descriptor" \
	"${AS_NOBODY[@]}" "$CORECAP" stat -p "$PID" --once
expect_true "... naming the mapping it could not open" grep -q "/proc/$PID/map_files/" "$WORK/err"
expect_true "... not 'no shim segment'" sh -c "! grep -q 'no shim segment' '$WORK/err'"
stop_closer nob
finish
