#!/usr/bin/env bash
# The shim's settings from the outside: a malformed CORECAP_* value gives
# one warning and the default; without a usable stats directory the
# program runs with one warning and no live counters; the summary goes to
# CORECAP_DUMP on exit and on CORECAP_DUMP_SIGNAL, sorted by total wait,
# with symbolized sites; CORECAP_DELAY lengthens the holds of the lock
# taken at the named site, and only those.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
. "$CORECAP_SRC/tests/e2e/preload_lib.sh"

work=$(mktemp -d)
pid=""
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
prog="$helpers/preload_contend"

# Malformed values.
status=0
CORECAP_DUMP=off CORECAP_STACK_SAMPLE=abc CORECAP_DUMP_SIGNAL=KILL CORECAP_IO_THRESHOLD_NS=-5 \
	LD_PRELOAD="$shim" "$prog" 2 50 10 >"$work/bad.out" 2>"$work/bad.err" || status=$?
expect_eq "malformed values: the program runs" 0 "$status"
expect_eq "malformed values: one warning each" 3 "$(grep -c '^corecap: ignoring CORECAP_' "$work/bad.err")"
expect_eq "malformed values: nothing else on stderr" 3 "$(wc -l <"$work/bad.err")"
expect_true "the warning names variable, value and default" \
	grep -q "ignoring CORECAP_STACK_SAMPLE='abc': .*using the default (64)" "$work/bad.err"

# No live counters (CORECAP_STATS=off): no warning, the summary still comes.
status=0
CORECAP_STATS=off LD_PRELOAD="$shim" "$prog" 4 50 10 \
	>"$work/nodir.out" 2>"$work/nodir.err" || status=$?
expect_eq "stats off: the program runs" 0 "$status"
expect_eq "stats off: no warning" 0 "$(grep -c "^corecap: cannot\|^corecap: ignoring" "$work/nodir.err")"
expect_true "stats off: the exit summary still comes" \
	grep -q 'corecap: summary of pid .* at exit.*(no live counters file)' "$work/nodir.err"

# CORECAP_STATS_DIR (where older shims kept their file) is ignored with
# one warning: nothing is made there, and corecap-stats-dump PID (and
# record, verify, stat alike) reads the counters from the process.
mkdir "$work/stats"
CORECAP_DUMP=off CORECAP_STATS_DIR="$work/stats" LD_PRELOAD="$shim" \
	"$prog" 2 50 10 --wait-sigterm >"$work/dir.out" 2>"$work/dir.err" &
pid=$!
expect_true "stats dir run: the work is done" wait_for "$work/dir.out" '^contend: done$' 30
expect_eq "stats dir: one warning that it is ignored" 1 \
	"$(grep -c "^corecap: ignoring CORECAP_STATS_DIR='$work/stats'" "$work/dir.err")"
expect_eq "stats dir: nothing is made there" "" "$(ls -A "$work/stats")"
status=0
env -u CORECAP_STATS_DIR "$CORECAP_BUILD/preload/corecap-stats-dump" "$pid" >"$work/dir.dump" 2>&1 || status=$?
expect_eq "stats dir: corecap-stats-dump PID finds it" 0 "$status"
expect_true "... and prints its header" grep -q '^header' "$work/dir.dump"
kill -TERM "$pid"
wait "$pid" || true
pid=""

# Dumps on a signal and at exit, to a file named after the pid.
CORECAP_DUMP="$work/dump.%p" CORECAP_DUMP_SIGNAL=USR2 LD_PRELOAD="$shim" \
	"$prog" 4 100 50 --wait-sigterm >"$work/sig.out" 2>"$work/sig.err" &
pid=$!
expect_true "signal run: the work is done" wait_for "$work/sig.out" '^contend: done$' 30
kill -USR2 "$pid"
expect_true "a dump on the signal" wait_for "$work/dump.$pid" 'at signal'
kill -TERM "$pid"
wait "$pid" || true
pid=""
dump=$(ls "$work"/dump.* | head -1)
expect_true "a dump at exit, appended" grep -q 'at exit' "$dump"
top=$(awk '/lock sites by total wait/ { getline; getline; print; exit }' "$dump")
expect_true "the top lock site is the contended one, symbolized ($top)" \
	sh -c "printf '%s\n' '$top' | grep -q 'contend_lock_site+0x'"
site=$(printf '%s\n' "$top" | grep -o 'contend_lock_site+0x[0-9a-f]*')
expect_true "the exit dump explains how sites are named" grep -q '^corecap: sites read function+0xOFF' "$dump"
if awk '/threads by time waiting/ { on = 1; getline; next } on && /^ *[0-9]+ [^ ]*\* / { f = 1 } END { exit !f }' "$dump"; then
	expect_true "... and the * of its exited threads" grep -q '^corecap: name\* = the thread has exited' "$dump"
else
	expect_true "no exited thread shown, no legend for one" sh -c "! grep -q 'name\\* = the thread' '$dump'"
fi

# Delay injection at that site: its lock's holds grow by the delay.
mean_hold() { # output file -> mean hold at the site, in us
	sed -n 's/^contend: shim site holds=\([0-9]*\) hold_ns=\([0-9]*\).*/\2 \1/p' "$1" |
		awk '{ print int($1 / ($2 ? $2 : 1) / 1000) }'
}
CORECAP_DUMP=off LD_PRELOAD="$shim" "$prog" 2 50 0 >"$work/nodelay.out"
CORECAP_DUMP=off CORECAP_DELAY="$site:300000" LD_PRELOAD="$shim" "$prog" 2 50 0 \
	>"$work/delay.out" 2>"$work/delay.err"
expect_eq "delay: no warning" "" "$(cat "$work/delay.err")"
expect_true "delay: holds at $site last >= 300 us ($(mean_hold "$work/delay.out") us)" \
	test "$(mean_hold "$work/delay.out")" -ge 300
expect_true "no delay: holds are short ($(mean_hold "$work/nodelay.out") us)" \
	test "$(mean_hold "$work/nodelay.out")" -lt 300
CORECAP_DUMP=off CORECAP_DELAY="no_such_site+0x10:1000" LD_PRELOAD="$shim" "$prog" 2 10 0 \
	>/dev/null 2>"$work/baddelay.err"
expect_eq "delay at an unknown site: one warning" 1 \
	"$(grep -c "ignoring CORECAP_DELAY: cannot resolve site 'no_such_site+0x10'" "$work/baddelay.err")"
finish
