#!/usr/bin/env bash
# An annotated program emits every corecap_op event, with its fields, into
# a real LTTng session when libcorecap-tp.so is loaded; without the probes
# it runs unchanged and emits nothing.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
need_sessiond

prog="$CORECAP_BUILD/tests/e2e/annotated_ops"
tp="$CORECAP_BUILD/tracepoints/libcorecap-tp.so"
work=$(mktemp -d)
session="corecap-test-op-$$"
cleanup() { lttng -q destroy "$session" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT

lttng -q create "$session" --output="$work/trace"
# Only this program's events: a session catches every process's, and a
# daemon of an earlier test may still be finishing its ops.
lttng -q enable-event -u -s "$session" 'corecap_op:*' --filter '$ctx.procname == "annotated_ops"'
lttng -q add-context -u -s "$session" -t vtid -t procname
lttng -q start "$session"
"$prog" 5 >/dev/null                      # no probes: must emit nothing
LD_PRELOAD="$tp" "$prog" 100 >/dev/null   # probes loaded: 100 ops
lttng -q stop "$session"
babeltrace2 "$work/trace" >"$work/events.txt"

count() { grep -c "corecap_op:$1:" "$work/events.txt" || true; }
expect_eq "begin events" 100 "$(count begin)"
expect_eq "end events" 100 "$(count end)"
expect_eq "phase events" 100 "$(count phase)"
expect_eq "enter events" 200 "$(count enter)"
expect_eq "exit events" 200 "$(count exit)"
expect_eq "log_enter events" 100 "$(count log_enter)"
expect_eq "log_exit events" 100 "$(count log_exit)"
expect_eq "write begins with bytes=4096" 50 \
	"$(grep -c 'corecap_op:begin:.*type = "write", bytes = 4096' "$work/events.txt" || true)"
expect_eq "phase named queued" 100 "$(grep -c 'name = "queued"' "$work/events.txt" || true)"
expect_eq "last op id" 1 "$(grep -c 'corecap_op:end:.*op_id = 99, result = 0' "$work/events.txt" || true)"
expect_eq "events carry vtid" "$(wc -l <"$work/events.txt")" \
	"$(grep -c 'vtid = ' "$work/events.txt" || true)"
finish
