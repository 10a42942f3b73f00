#!/usr/bin/env bash
# Issue 42, item 4: a process under the shim in another PID namespace
# leaves every other daemon's counters alone. Before, the shim's sweep of
# "stale" /dev/shm/corecap.PID files took kill(pid, 0) == ESRCH for dead,
# and from inside `unshare --pid` every daemon of the host looks dead:
# one `corecap run -- /bin/true` there deleted their files. Now the
# counters are a memfd held by each daemon (nothing to sweep), so:
#  - `corecap run` inside a new PID namespace (unshare --pid --fork
#    --mount-proc) runs under the shim (its own segment, pid 1 of its
#    namespace) and exits 0;
#  - refosd's segment is still there, the same one (same descriptor, same
#    creation time), and stat and record read it afterwards;
#  - no file /dev/shm/corecap.* is made by either.
set -u
. "${CORECAP_SRC:?}/tests/e2e/collector_lib.sh"
DUMP="$CORECAP_BUILD/preload/corecap-stats-dump"

[ "$(id -u)" -eq 0 ] || skip "unshare --pid needs root"
command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
unshare --pid --fork --mount-proc true 2>/dev/null || skip "this kernel or container refuses a new PID namespace"

# header.pid of a saved copy (offset 96, corecap/stats_layout.h).
header_pid() {
	python3 -c 'import struct, sys; print(struct.unpack_from("<i", open(sys.argv[1], "rb").read(), 96)[0])' "$1"
}
# pid and created_ns (offsets 96 and 112) of a daemon's live segment.
header_of() {
	python3 -c 'import struct, sys; b = open(sys.argv[1], "rb").read(120); print(struct.unpack_from("<i", b, 96)[0], struct.unpack_from("<Q", b, 112)[0])' "$(shim_segment "$1")"
}

ls /dev/shm >"$WORK/shm.before"
start_daemon osd -- --debug 0
seg=$(shim_segment "$OSD_PID")
expect_true "refosd under the shim holds its segment ($seg)" test -n "$seg"
hdr_before=$(header_of "$OSD_PID")

# The attack of the issue, and a look at the namespace's own shim.
status=0
unshare --pid --fork --mount-proc "$CORECAP" run -- /bin/true >"$WORK/ns.out" 2>"$WORK/ns.err" || status=$?
expect_eq "corecap run -- /bin/true in a new PID namespace exits 0" 0 "$status"
unshare --pid --fork --mount-proc "$CORECAP" run -- /bin/sh -c 'readlink /proc/self/fd/* /proc/$$/fd/*' \
	>"$WORK/ns-fd.out" 2>"$WORK/ns-fd.err" || true
expect_true "... where the shim ran (a segment of that namespace's pid)" \
	grep -q '^/memfd:corecap\.[0-9]* (deleted)$' "$WORK/ns-fd.out"

expect_true "the daemon still runs" kill -0 "$OSD_PID"
expect_eq "refosd's segment is still there, the same descriptor" "$seg" "$(shim_segment "$OSD_PID")"
expect_eq "... and the same segment (its pid and creation time)" "$hdr_before" "$(header_of "$OSD_PID")"

# stat reads the shim's counters (not the kernel's events).
status=0
"$CORECAP" stat -p "$OSD_PID" --once --json --interval 0.3 >"$WORK/stat.json" 2>"$WORK/stat.err" || status=$?
expect_eq "stat exits 0" 0 "$status"
expect_eq "stat shows refosd's shim counters" "$OSD_PID" "$(json "$WORK/stat.json" "d['pid']" 2>/dev/null)"
expect_eq "... the shim's, not the kernel's view" shim "$(json "$WORK/stat.json" "d['source']" 2>/dev/null)"
expect_true "... with its threads" test "$(json "$WORK/stat.json" "len(d['threads']) > 0" 2>/dev/null)" = True

# record copies them into the run.
RUN="$WORK/run"
status=0
"$CORECAP" record -q -p "$OSD_PID" -d 1 --no-trace --no-kernel -o "$RUN" >"$WORK/rec.out" 2>"$WORK/rec.err" || status=$?
expect_eq "record exits 0" 0 "$status"
expect_eq "the run holds the shim's counters" True "$(json "$RUN/manifest.json" 'd["sources"]["stats"]')"
expect_true "record does not say 'no shim stats'" sh -c "! grep -qi 'no shim' '$WORK/rec.err'"
expect_eq "stats-begin is refosd's (header pid)" "$OSD_PID" "$(header_pid "$RUN/stats-begin")"

ls /dev/shm >"$WORK/shm.after"
expect_eq "no file corecap.* was made in /dev/shm" "" \
	"$(comm -13 "$WORK/shm.before" "$WORK/shm.after" | grep '^corecap\.[0-9]*$')"
kill -TERM "$OSD_PID"
wait "$OSD_PID" 2>/dev/null
finish
