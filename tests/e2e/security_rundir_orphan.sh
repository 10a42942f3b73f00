#!/usr/bin/env bash
# A collector killed together with its stop watchdog leaves its LTTng
# session recording into the dead run (issue 42, item 8b). The next
# `corecap record` (here with --no-trace: it ends such sessions whatever
# it records) stops and destroys it: `lttng list` no longer shows it, the
# dead run stops growing, and the run says so in session-orphaned. A
# --force over that dead run then still works: it is a run corecap wrote.
set -u
. "${CORECAP_SRC:?}/tests/e2e/collector_lib.sh"
need_sessiond

# bytes DIR: the bytes of every file under DIR.
bytes() { find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }
sessions() { lttng list 2>/dev/null | grep -o "corecap-$OSD_PID-[^ ]*" | sort; }

start_daemon osd
"$REFBENCH" -p "$OSD_PORT" -t 4 -b 4096 -d 60 write >/dev/null 2>&1 &
load=$!
track "$load"
sleep 0.5

dead="$WORK/dead"
"$CORECAP" record -p "$OSD_PID" -o "$dead" -d 60 >/dev/null 2>"$WORK/dead.err" &
rec=$!
track "$rec"
wait_window "$WORK/dead.err" || { finish; exit 1; }
session=$(sessions)
expect_true "the record has its session" test -n "$session"
# The watchdog is the child that leads its own process group; killed first,
# it cannot end the session when the collector dies.
wd=""
for c in $(cat /proc/"$rec"/task/*/children 2>/dev/null); do
	[ "$(ps -o pgid= -p "$c" | tr -d ' ')" = "$c" ] && wd=$c
done
expect_true "the collector's stop watchdog is found" test -n "$wd"
kill -KILL "$wd" "$rec"
wait "$rec" 2>/dev/null
sleep 0.5
expect_eq "the killed collector's session is still there" "$session" "$(sessions)"
size1=$(bytes "$dead")
sleep 2
size2=$(bytes "$dead")
echo "the orphan session's run: $size1 then $size2 bytes 2 s later"
# (Another test's record may end it meanwhile: then only the rest is checked.)
if [ "$(sessions)" = "$session" ]; then
	expect_true "the orphan session still writes into the dead run" test "$size2" -gt "$size1"
else
	echo "note: another corecap ended the session within 2 s; its growth is not measured"
fi

# The next record ends it. (Any corecap record ends such sessions: one run
# by another test meanwhile may get there first, and says so in the run.)
"$CORECAP" record -p "$OSD_PID" --no-trace -d 0.3 -o "$WORK/next" >/dev/null 2>"$WORK/next.err" &
next=$!
wait "$next"
expect_eq "the next record" 0 "$?"
# Another command ending it at the same moment writes the mark once the
# session is destroyed: wait for it (5 s at most) before measuring.
for _ in $(seq 1 50); do
	[ -s "$dead/session-orphaned" ] && break
	sleep 0.1
done
if grep -q "a later corecap (PID $next)" "$dead/session-orphaned" 2>/dev/null; then
	expect_true "it says it destroyed the session and marked the run" \
		grep -qF "destroyed LTTng session '$session' left by a collector that died (its run '$dead' is marked session-orphaned)" \
		"$WORK/next.err"
else
	echo "note: another corecap ended the session first: $(cat "$dead/session-orphaned" 2>/dev/null)"
fi
expect_eq "lttng list no longer shows it" "" "$(sessions)"
size1=$(bytes "$dead")
sleep 2
size2=$(bytes "$dead")
echo "the dead run after the next record: $size1 then $size2 bytes 2 s later"
expect_eq "the dead run no longer grows" "$size1" "$size2"
expect_true "the dead run says its session was ended by a later command" \
	grep -q "still recording after its collector (PID $rec) died" "$dead/session-orphaned"
expect_eq "... a file of ours, private" "600 0" "$(stat -c '%a %u' "$dead/session-orphaned")"
expect_eq "the daemon has no thread left stopped" "" "$(stopped_threads "$OSD_PID")"
out=$("$CORECAP" report "$dead" 2>&1)
expect_true "report says the session went on after the collector died" \
	grep -q "LTTng session went on recording after the collector died" <<<"$out"

# The dead run is a run corecap wrote: --force replaces it.
"$CORECAP" record -q -p "$OSD_PID" --no-trace --force -d 0.3 -o "$dead" >/dev/null 2>"$WORK/force.err"
expect_eq "--force replaces the dead run" 0 "$?"
expect_true "... with the new one" test ! -e "$dead/session-orphaned"

# A live process is not taken for dead, nor a reused PID for alive: the name's
# start time decides. This shell is alive; one session names it with its
# true start time, one with another (its PID "reused").
me=$BASHPID
start=$(sed 's/.*) //' /proc/"$me"/stat | awk '{ print $20 }')
live="corecap-1-20260101-000000-s$start-$me"
reused="corecap-1-20260101-000000-s1-$me"
mkdir -p "$WORK/foreign/trace"
echo "not corecap's" >"$WORK/foreign/notes.txt"
lttng create "$live" --output "$WORK/live/trace" >/dev/null
lttng create "$reused" --output "$WORK/foreign/trace" >/dev/null
"$CORECAP" record -p "$OSD_PID" --no-trace -d 0.3 -o "$WORK/next2" >/dev/null 2>"$WORK/next2.err"
expect_eq "a record beside them" 0 "$?"
expect_true "the session of a live collector is kept" sh -c "lttng list '$live' >/dev/null 2>&1"
expect_true "the session of a reused PID is destroyed" sh -c "! lttng list '$reused' >/dev/null 2>&1"
expect_true "... and no session-orphaned is written where no mark names it" test ! -e "$WORK/foreign/session-orphaned"
expect_eq "... that directory is untouched" "not corecap's" "$(cat "$WORK/foreign/notes.txt")"
lttng destroy "$live" >/dev/null 2>&1
lttng destroy "$reused" >/dev/null 2>&1

kill "$load" 2>/dev/null
wait "$load" 2>/dev/null
finish
