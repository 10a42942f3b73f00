#!/usr/bin/env bash
# refosd --big-lock under the shim, driven by refbench: while it runs, its
# live counters show the big lock's call site as the top waiter, the
# lock as the hot lock held most, and refosd's named threads; the exit
# summary agrees, naming refosd's own functions from its .symtab; the
# stats file is removed when refosd exits.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
. "$CORECAP_SRC/tests/e2e/preload_lib.sh"

refosd="$CORECAP_BUILD/tests/refosd/refosd"
refbench="$CORECAP_BUILD/tests/refosd/refbench"
[ -x "$refosd" ] && [ -x "$refbench" ] || skip "refosd/refbench are not built"
command -v addr2line >/dev/null || skip "addr2line (binutils) is not installed"

work=$(mktemp -d)
pid=""
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

CORECAP_DUMP="$work/dump.txt" LD_PRELOAD="$shim" "$refosd" --port 0 --big-lock --op-cpu-us 200 \
	>"$work/osd.out" 2>"$work/osd.err" &
pid=$!
wait_for "$work/osd.out" 'listening on 127.0.0.1:' || wait_for "$work/osd.err" 'listening on 127.0.0.1:' ||
	{ cat "$work/osd.err"; echo "FAIL: refosd did not come up"; exit 1; }
port=$(cat "$work/osd.out" "$work/osd.err" | sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' | head -1)
"$refbench" -p "$port" -t 8 -b 1 -d 2 --no-progress write >"$work/bench.out"
expect_true "refbench completed ops" grep -q 'Average IOPS' "$work/bench.out"
"$stats_dump" "$pid" >"$work/stats.tsv"

# call_fn MODULE+0xOFF: the function of the call whose return address a
# site is: addr2line at OFF - 1 (the return address itself can be the
# first instruction of code inlined after the call, refosd's clock read
# after its lock).
call_fn() {
	addr2line -f -e "${1%+0x*}" "$(printf '0x%x' $((0x${1##*+0x} - 1)))" | head -1
}

# The mutex site with the most total wait, and where it is.
top=$(awk -F'\t' '$1 == "site" && $4 == "mutex"' "$work/stats.tsv" | sort -t$'\t' -k7,7nr | head -1)
where=$(field "$top" 3)
fn=$(call_fn "$where")
expect_eq "the top waiting site is the big lock's (in osd_handle_op)" osd_handle_op "$fn"
expect_true "it waited ($(field "$top" 7) ns over $(field "$top" 6) waits)" test "$(field "$top" 6)" -gt 0
hot=$(awk -F'\t' '$1 == "lock"' "$work/stats.tsv" | sort -t$'\t' -k9,9nr | head -1)
hfn=$(call_fn "${where%+0x*}+0x$(field "$hot" 4 | sed 's/.*+0x//')")
expect_eq "the lock held longest was first contended there" osd_handle_op "$hfn"
expect_true "refosd's workers are named" grep -Pq '^thread\t[0-9]+\ttp_osd_tp' "$work/stats.tsv"
expect_true "refosd's messengers are named" grep -Pq '^thread\t[0-9]+\tmsgr-worker-' "$work/stats.tsv"

kill -TERM "$pid"
wait "$pid" || true
pid_was=$pid
pid=""
expect_true "an exit summary was written" grep -q 'at exit' "$work/dump.txt"
expect_true "no stats file is left in /dev/shm (the counters were a memfd)" test ! -e "/dev/shm/corecap.$pid_was"
# osd_handle_op is in refosd's .symtab only (no dynamic symbol): the
# summary names it from there, in the form CORECAP_DELAY reads.
expect_true "the exit summary names refosd's own function from its .symtab" \
	grep -Eq 'osd_handle_op\+0x[0-9a-f]+ \(refosd\)' "$work/dump.txt"
expect_true "... and says what stays unnamed" \
	grep -q "^corecap: sites read function+0xOFF (module), named from the module's dynamic symbols or its .symtab" "$work/dump.txt"

# That name is a CORECAP_DELAY site: it resolves (no warning, a site in the header).
sym=$(grep -Eo 'osd_handle_op\+0x[0-9a-f]+' "$work/dump.txt" | head -1)
CORECAP_DUMP=off CORECAP_DELAY="$sym:1000" LD_PRELOAD="$shim" "$refosd" --port 0 \
	>"$work/delay.out" 2>"$work/delay.err" &
pid=$!
wait_for "$work/delay.out" 'listening on 127.0.0.1:' || wait_for "$work/delay.err" 'listening on 127.0.0.1:' || true
"$stats_dump" "$pid" >"$work/delay.tsv" || true
kill -TERM "$pid"
wait "$pid" || true
pid=""
expect_true "CORECAP_DELAY=$sym resolves" sh -c "! grep -q 'ignoring CORECAP_DELAY' '$work/delay.err'"
expect_true "... to a site in the header" sh -c "grep -q 'delay_site=0x[1-9a-f]' '$work/delay.tsv'"
finish
