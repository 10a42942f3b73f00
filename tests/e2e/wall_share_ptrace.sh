#!/usr/bin/env bash
# Known answer (#43, "Wall-clock accuracy"): the ptrace wall-clock sampler
# (`record --wallclock`, the fallback without kernel events) draws each
# thread of wallshare as wide as the time it spent in each state. Known
# shares of any window (tests/wallshare/wallshare.c): ws-spin-a and
# ws-spin-b spin together on one CPU (about half on it, half runnable:
# all of it in spin_until); ws-duty 25% in spin_until, 25% in
# sleep_until, 50% in futex_wait_until; ws-waiter and the main thread
# blocked all the time (futex_wait_woken, main_wait).
#
# A thread's share of a phase is its samples there over the samples of
# the average thread (all five live the whole window): the width the
# wall flame graph gives that phase against a thread's whole window. Each
# must be within 0.05 of its known share, samples in no phase at most
# 0.05. Before #43 the spinners, whose way to each stop is a wait for
# their CPU, were rationed to 26-28% of their samples while the others
# kept 94%: 0.42 and 0.39 against 1.40. `flame`, `report` (text, JSON,
# HTML) must not call the coverage uneven; on copies of the run whose
# manifest says the coverage was uneven by 20%, they must not either, and
# by more than 20%, they must.
#
# 100 Hz for 4 s: about 400 samples a thread; the collector is kept on the
# spinners' CPU (--collector-cpus), so that ws-duty starts its spins as
# its sleeps end (a wake-up delayed by a busy CPU moves time from
# spin_until into the sleeps: measured as ws-duty's runnable share, and
# over 0.05 of the window the run is reported skipped, with the figure).
. "${CORECAP_SRC:?}/tests/e2e/wall_lib.sh"
skip_if_others_busy "${WALL_OTHERS_MAX:-0.5}" "wallshare's shares hold on two free CPUs"

start_wallshare
run="$WORK/pt"
status=0
timeout 60 "$CORECAP" record -p "$WS_PID" -o "$run" --no-kernel --no-trace --wallclock=100 \
	--collector-cpus "$PAIR_CPU" -d 4 -q >"$WORK/rec.out" 2>"$WORK/rec.err" || status=$?
expect_eq "record --wallclock exits 0" 0 "$status"
[ "$status" -eq 0 ] || cat "$WORK/rec.err"
expect_unharmed
expect_eq "the manifest names the ptrace sampler" ptrace "$(json "$run/manifest.json" 'd["wallclock"]["sampler"]')"
echo "manifest: $(json "$run/manifest.json" "' '.join('%s=%s' % kv for kv in d['wallclock'].items())")"

status=0
"$CORECAP" flame "$run" --kind wall >"$WORK/wall.folded" 2>"$WORK/flame.err" || status=$?
expect_eq "flame --kind wall exits 0" 0 "$status"
cat "$WORK/flame.err"
wall_shares "$run" "$WORK/wall.folded" >"$WORK/shares"
echo "thread samples spin sleep futex-timed futex-woken main-wait other run-share runnable-share:"
cat "$WORK/shares"
duty_wait=$(awk '$1 == "ws-duty" { print $10 }' "$WORK/shares")
[ "$(calc "${duty_wait:-1} <= 0.05")" = 1 ] ||
	skip "ws-duty waited for its CPU $duty_wait of the window (over 0.05): its phases' known shares moved"

expect_coverage_warning "$run" "$WORK/flame.err"

# check THREAD PHASE_COLUMN KNOWN
mean=$(awk '{ s += $2; n++ } END { print n == 5 ? s / n : 0 }' "$WORK/shares")
expect_calc "five threads sampled, $mean samples each on average" "$mean >= 200"
check() {
	local got
	got=$(awk -v t="$1" -v c="$2" -v m="$mean" '$1 == t { printf "%.3f", $c / m }' "$WORK/shares")
	expect_calc "$1's $3 share ${got:-none} within 0.05 of $4" "${got:-9} >= $4 - 0.05 && ${got:-9} <= $4 + 0.05"
}
check ws-spin-a 3 "spin_until (on a CPU or runnable)" 1
check ws-spin-b 3 "spin_until (on a CPU or runnable)" 1
check ws-duty 3 "spin_until" 0.25
check ws-duty 4 "sleep_until" 0.25
check ws-duty 5 "futex_wait_until" 0.5
check ws-waiter 6 "futex_wait_woken" 1
check wallshare 7 "main_wait" 1
for t in ws-spin-a ws-spin-b ws-duty ws-waiter wallshare; do
	check "$t" 8 "samples in no phase" 0
done
finish
