#!/usr/bin/env bash
# The shim's LTTng events in a real session: a contended program produces
# corecap_lock:contended events (with wait_ns > 0) that babeltrace2 reads,
# its cond waits, log writes and thread names come along; the same
# program without contention produces no corecap_lock:contended event.
# And threads that leave together while traced (their exit destructors
# contend on LTTng-UST's own registry lock) do not deadlock the program.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
. "$CORECAP_SRC/tests/e2e/preload_lib.sh"
need_sessiond

work=$(mktemp -d)
sessions=()
cleanup() {
	for s in "${sessions[@]}"; do lttng -q destroy "$s" >/dev/null 2>&1 || true; done
	rm -rf "$work"
}
trap cleanup EXIT

traced() { # name threads iterations hold_us
	local s="corecap-test-lttng-$1-$$"
	sessions+=("$s")
	lttng -q create "$s" --output="$work/$1"
	lttng -q enable-event -u -s "$s" 'corecap_lock:*,corecap_io:*,corecap_thread:*'
	lttng -q add-context -u -s "$s" -t vtid -t procname
	lttng -q start "$s"
	CORECAP_DUMP=off CORECAP_WAKE_EVENTS=on LD_PRELOAD="$shim" \
		"$helpers/preload_contend" "$2" "$3" "$4" --log "$work/$1.log" >"$work/$1.out"
	lttng -q stop "$s"
	# The session records every traced process of this user: keep ours.
	babeltrace2 "$work/$1" | grep -F 'procname = "preload_contend"' >"$work/$1.txt" || true
}

traced contended 4 50 200
n=$(grep -c 'corecap_lock:contended:' "$work/contended.txt" || true)
expect_true "contended run: corecap_lock:contended events ($n)" test "$n" -gt 0
expect_eq "every contended event has wait_ns > 0" "$n" \
	"$(grep 'corecap_lock:contended:' "$work/contended.txt" | grep -Ec 'wait_ns = [1-9]')"
expect_true "the first contention carries a stack" \
	grep -Eq 'corecap_lock:contended:.*_stack_length = [1-9]' "$work/contended.txt"
expect_true "a hold event follows a contended acquisition" \
	grep -q 'corecap_lock:hold:.*hold_ns = [1-9]' "$work/contended.txt"
expect_true "main's cond wait is traced" grep -q 'corecap_lock:cond_wait:' "$work/contended.txt"
expect_true "with CORECAP_WAKE_EVENTS=on, the workers' broadcast wakes it" \
	grep -q 'corecap_lock:cond_wake:.*broadcast = 1' "$work/contended.txt"
expect_eq "every log write is traced (4 threads x 50)" 200 \
	"$(grep 'corecap_io:syscall:' "$work/contended.txt" | grep -c '"log"' || true)"
expect_true "thread start events" grep -q 'corecap_thread:start:' "$work/contended.txt"
expect_true "thread name events" grep -q 'corecap_thread:name:.*preload_contend' \
	"$work/contended.txt"

traced uncontended 1 200 0
expect_eq "uncontended run: no corecap_lock:contended event" 0 \
	"$(grep -c 'corecap_lock:contended:' "$work/uncontended.txt" || true)"
expect_eq "uncontended run: no hold event" 0 \
	"$(grep -c 'corecap_lock:hold:' "$work/uncontended.txt" || true)"
expect_true "uncontended run: the program ran" grep -q '^contend: done$' "$work/uncontended.out"

s="corecap-test-lttng-churn-$$"
sessions+=("$s")
lttng -q create "$s" --output="$work/churn"
lttng -q enable-event -u -s "$s" 'corecap_lock:*,corecap_io:*,corecap_thread:*'
lttng -q start "$s"
for i in 1 2 3; do
	status=0
	CORECAP_DUMP=off LD_PRELOAD="$shim" timeout 20 "$helpers/preload_thread_churn" 30 16 \
		>"$work/churn.out" 2>&1 || status=$?
	expect_eq "threads leaving together while traced: run $i finishes" 0 "$status"
done
lttng -q stop "$s"
finish
