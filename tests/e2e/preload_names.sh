#!/usr/bin/env bash
# A daemon that names its threads (pthread_setname_np on itself and on
# another thread, prctl(PR_SET_NAME)): its live counters carry every name
# while it runs, an LTTng session started after it still receives a
# corecap_thread:name event for each thread, and its stats file is gone
# once it exits. Without an LTTng session daemon the events cannot be
# checked: the other checks still run, and the test then reports itself
# skipped, saying why (or failed, if one of them failed).
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
. "$CORECAP_SRC/tests/e2e/preload_lib.sh"

work=$(mktemp -d)
session="corecap-test-names-$$"
pid=""
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	lttng -q destroy "$session" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

CORECAP_DUMP=off LD_PRELOAD="$shim" "$helpers/preload_named_daemon" >"$work/out" 2>"$work/err" &
pid=$!
expect_true "the daemon comes up under the shim" wait_for "$work/out" '^ready$'
"$stats_dump" "$pid" >"$work/stats.tsv"
names=(tp_osd_tp-0 tp_osd_tp-1 tp_osd_tp-2 msgr-worker-0 finisher)
for n in "${names[@]}"; do
	expect_eq "live slot named $n" 1 \
		"$(awk -F'\t' -v n="$n" '$1 == "thread" && $3 == n && $4 == "live"' "$work/stats.tsv" | wc -l)"
done

sessiond=""
if ! command -v lttng >/dev/null; then
	sessiond="the lttng client is not installed"
elif ! lttng list >/dev/null 2>&1; then
	sessiond="no LTTng session daemon answers (scripts/sessiond-start)"
fi
if [ -z "$sessiond" ]; then
	lttng -q create "$session" --output="$work/trace"
	lttng -q enable-event -u -s "$session" 'corecap_thread:*'
	lttng -q add-context -u -s "$session" -t vpid
	lttng -q start "$session"
	sleep 0.5 # the session daemon tells the registered daemon
	kill -USR1 "$pid"
	sleep 0.5
	lttng -q stop "$session"
	# The session records every traced process of this user: keep ours.
	babeltrace2 "$work/trace" | grep -F "vpid = $pid }" >"$work/events.txt" || true
	for n in "${names[@]}"; do
		expect_true "corecap_thread:name for $n after a mid-run start" \
			grep -q "corecap_thread:name: .*name = \"$n\"" "$work/events.txt"
	done
fi

kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid_was=$pid
pid=""
expect_eq "the daemon exits cleanly" 0 "$status"
expect_true "no stats file is left in /dev/shm (the counters were a memfd)" test ! -e "/dev/shm/corecap.$pid_was"
expect_eq "no warnings from the shim" "" "$(cat "$work/err")"
if [ -n "$sessiond" ] && [ "$_failures" -eq 0 ]; then
	skip "$sessiond: the mid-run corecap_thread:name events were not checked ($_checks other checks passed)"
fi
finish
