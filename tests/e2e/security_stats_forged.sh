#!/usr/bin/env bash
# Issue 42, item 5: a third user cannot pass his counters off as a
# daemon's. Before, stat and record opened /dev/shm/corecap.PID whoever
# made it: a file of nobody's for a root daemon's PID was shown as the
# daemon's counters and copied into the run. Now the counters are read
# from the daemon itself (its memfd, through /proc/PID/fd), and that file
# is never read:
#  - with a forged /dev/shm/corecap.PID of nobody's (a copy of refosd's
#    own counters, its exe and thread names marked FORGED) beside a root
#    refosd under the shim, stat, record and corecap-stats-dump show the
#    real counters, none of the forged bytes, and stat and record say
#    that they ignore the file, naming it and its owner;
#  - beside a root process without the shim, record copies nothing (no
#    stats-begin, "stats": false) and says it ignored the file;
#  - nobody's own stat and corecap-stats-dump of the root daemon fail with
#    "Permission denied", naming /proc/PID/fd (not "no shim segment").
set -u
. "${CORECAP_SRC:?}/tests/e2e/collector_lib.sh"
DUMP="$CORECAP_BUILD/preload/corecap-stats-dump"

need_nobody "a root daemon beside another user's file"
[ -d /dev/shm ] && [ -w /dev/shm ] || skip "no writable /dev/shm"
FORGED=()
e2e_cleanup_hook() {
	rm -f "${FORGED[@]}"
}

# forge PID SOURCE: nobody writes SOURCE, marked, as /dev/shm/corecap.PID.
forge() {
	local f="/dev/shm/corecap.$1"
	FORGED+=("$f")
	python3 - "$2" "$WORK/forged" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
# The exe path (a C string in the header) and every thread name.
i = b.index(b"/", 0x100)
j = b.index(b"\0", i)
b[i:j] = b"/FORGED".ljust(j - i, b"\0")
b = b.replace(b"msgr-worker-", b"FORGED-wrkr-")
open(sys.argv[2], "wb").write(b)
EOF
	chmod 644 "$WORK/forged"
	"${AS_NOBODY[@]}" sh -c "cat '$WORK/forged' >'$f'"
	expect_eq "nobody made $f" nobody "$(stat -c %U "$f")"
}

start_daemon osd -- --debug 0 --msgr-threads 2
"$DUMP" --copy "$WORK/real" "$OSD_PID"
forge "$OSD_PID" "$WORK/real"
expect_true "the forged file holds the mark" grep -qa FORGED "/dev/shm/corecap.$OSD_PID"

status=0
"$CORECAP" stat -p "$OSD_PID" --once --json --interval 0.3 >"$WORK/stat.json" 2>"$WORK/stat.err" || status=$?
expect_eq "stat exits 0" 0 "$status"
expect_eq "stat shows refosd's shim counters" "shim $OSD_PID" \
	"$(json "$WORK/stat.json" "d['source'] + ' ' + str(d['pid'])" 2>/dev/null)"
expect_true "... its own threads" grep -q 'msgr-worker-' "$WORK/stat.json"
expect_eq "... and nothing of the forged file" 0 "$(grep -c FORGED "$WORK/stat.json")"
expect_true "stat says it ignores the file, and whose it is" \
	grep -q "ignoring '/dev/shm/corecap.$OSD_PID' (owner uid $(id -u nobody))" "$WORK/stat.err"

status=0
"$CORECAP" record -q -p "$OSD_PID" -d 1 --no-trace --no-kernel -o "$WORK/run" \
	>"$WORK/rec.out" 2>"$WORK/rec.err" || status=$?
expect_eq "record exits 0" 0 "$status"
expect_eq "record copied the counters twice" 2 "$(json "$WORK/run/manifest.json" 'd["stats"]["copies"]')"
expect_true "... the daemon's own (its thread names)" grep -qa 'msgr-worker-' "$WORK/run/stats-begin"
expect_eq "... and nothing of the forged file" 0 \
	"$(cat "$WORK/run/stats-begin" "$WORK/run/stats-end" | grep -ca FORGED)"
expect_true "record says it ignored the file, and whose it is" \
	grep -q "ignoring '/dev/shm/corecap.$OSD_PID' (owner uid $(id -u nobody))" "$WORK/rec.err"
"$DUMP" "$OSD_PID" >"$WORK/dump.out" 2>&1
expect_eq "corecap-stats-dump PID shows none of it either" 0 "$(grep -c FORGED "$WORK/dump.out")"

# nobody's own look at the root daemon: refused, and said so.
expect_fail_naming "nobody's stat of root's daemon" "cannot open '/proc/$OSD_PID/fd': Permission denied" \
	"${AS_NOBODY[@]}" "$CORECAP" stat -p "$OSD_PID" --once
expect_true "... not 'no shim segment'" sh -c "! grep -q 'no shim segment' '$WORK/err'"
expect_fail_naming "nobody's corecap-stats-dump of root's daemon" "Permission denied" \
	"${AS_NOBODY[@]}" "$DUMP" "$OSD_PID"
expect_true "the daemon still runs" kill -0 "$OSD_PID"

# A root process without the shim, and a forged file for it.
sleep 60 &
plain=$!
track "$plain"
forge "$plain" "$WORK/real"
status=0
"$CORECAP" record -q -p "$plain" -d 1 --no-trace --no-kernel -o "$WORK/plain" \
	>"$WORK/plain.out" 2>"$WORK/plain.err" || status=$?
expect_eq "record of a process without the shim exits 0" 0 "$status"
expect_eq "... with no shim counters" False "$(json "$WORK/plain/manifest.json" 'd["sources"]["stats"]')"
expect_true "... no stats-begin copied" test ! -e "$WORK/plain/stats-begin"
expect_true "... and says it ignored the forged file" \
	grep -q "ignoring '/dev/shm/corecap.$plain' (owner uid $(id -u nobody))" "$WORK/plain.err"
kill "$plain"
kill -TERM "$OSD_PID"
wait "$OSD_PID" 2>/dev/null
finish
