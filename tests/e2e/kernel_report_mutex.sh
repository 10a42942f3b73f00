#!/usr/bin/env bash
# Known answer, through the report: 4 threads take one static mutex in
# turn and hold it 1 ms each (tests/e2e/kernel/workload.c), recorded bare
# with kernel events and no trace. The report's lock table (source futex)
# has a row at the mutex's address named by its data symbol (the_mutex),
# its waits within 20% of the program's own timing of pthread_mutex_lock,
# overall and per thread; its holders (whose wake ended each wait) are the
# program's threads, every one of them, never the waiter itself; the sites
# lie in mutex_worker. Every analysis command exits 0 on the run.
set -euo pipefail
. "${CORECAP_SRC:?}/tests/e2e/kernel_lib.sh"
. "$CORECAP_SRC/tests/e2e/kernel_analysis_lib.sh"
need_kernel

start_workload m "$WORKLOAD" mutex 4 1000 2
run="$WORK/run"
status=0
"$CORECAP" record -p "$WL_PID" -o "$run" --no-trace --kernel "${KERNEL_VIA[@]}" -q -- \
	sh -c "$(workload_bench m)" >"$WORK/rec.out" 2>"$WORK/rec.err" || status=$?
expect_eq "record exits" 0 "$status"
expect_producer "$run"
[ "$status" = 0 ] || { cat "$WORK/rec.err"; exit 1; }
expect_all_commands "$run"
j="$run.json"
lock="[l for l in d['locks'] if l['address'] == '0x$WL_MUTEX'][0]"
expect_eq "the mutex's row comes from futex events" futex "$(json "$j" "${lock}['source']")"
expect_eq "named by its data symbol" the_mutex "$(json "$j" "${lock}['name']")"
expect_eq "its kind" futex_wait "$(json "$j" "${lock}['kind']")"
prog_ns=$(sed -n 's/^total_wait_ns //p' "$WORK/m.out")
rep_ns=$(json "$j" "${lock}['wait_ns']")
echo "program's lock wait $prog_ns ns, the report's futex wait $rep_ns ns, $(json "$j" "${lock}['contentions']") waits"
expect_calc "futex waits within 20% of the program's timing" \
	"$prog_ns > 100000000 && $rep_ns >= 0.8 * $prog_ns && $rep_ns <= 1.2 * $prog_ns"
prog_tids=$(awk '/^thread / { print $2 }' "$WORK/m.out" | sort -n | tr '\n' ' ')
expect_eq "the waiters are the program's threads" "$prog_tids" \
	"$(json "$j" "' '.join(str(t) for t in sorted(w['tid'] for w in ${lock}['waiters'])) + ' '")"
while read -r _ tid _ wns _ _; do
	got=$(json "$j" "([w['wait_ns'] for w in ${lock}['waiters'] if w['tid'] == $tid] or [0])[0]")
	expect_calc "thread $tid: futex wait $got ns within 20% of its own $wns ns" \
		"$got >= 0.8 * $wns && $got <= 1.2 * $wns"
done < <(grep '^thread ' "$WORK/m.out")
expect_eq "the holders are the program's threads, every one" "$prog_tids" \
	"$(json "$j" "' '.join(str(t) for t in sorted(h['tid'] for h in ${lock}['holders'])) + ' '")"
waits=$(json "$j" "${lock}['contentions']")
named=$(json "$j" "sum(h['waits'] for h in ${lock}['holders'])")
expect_calc "a holder is named for nearly every wait ($named of $waits)" "$named >= 0.95 * $waits"
expect_calc "the holds seen (hand-overs) are about 1 ms each" \
	"$(json "$j" "${lock}['hold_ns'] / max(${lock}['holds'], 1)") >= 900000 && $(json "$j" "${lock}['hold_ns'] / max(${lock}['holds'], 1)") <= 3000000"
expect_true "its top site is in mutex_worker" grep -q '^mutex_worker+' <(json "$j" "${lock}['symbol']")
expect_true "the text shows the futex table" grep -q 'source: futex' "$run.txt"
expect_conservation "$j"
finish
