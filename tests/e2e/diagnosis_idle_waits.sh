#!/usr/bin/env bash
# Idle waits apart from contention (issue #41 item 4; docs/methodology.md,
# "Idle waits apart from contention"). refosd started bare (no shim) with
# its default ten shard workers, under refbench -t 16 -b 4k writes,
# recorded with kernel events. Its workers wait for work on their shards'
# conditions most of the window, and re-take the shard mutex as each
# condition wait returns; the tp_osd_tp workers contend for the
# finisher's lock (d.finisher.lock, taken in finisher_queue). Known
# answers:
#  - the report's futex table (text, JSON `locks`/`lock_rows`) holds
#    mutexes only (wait_kind "mutex"), d.finisher.lock among them with
#    waits at finisher_queue; no row of it is led by the site in
#    shards_worker_main where the workers call pthread_cond_wait;
#  - the conditions' words (d.finisher.cond's and d.log.cond_flusher's
#    __g_signals, the shards' conditions waited at shards_worker_main)
#    are idle rows (`idle_waits`, `idle_wait_rows`, the text's `idle`
#    table), with no busy_util, and the re-locks counted;
#  - no busy_util exceeds 1; the wait-for graph's lock edges come first;
#  - `stat --kernel` on the live daemon under the same load: the same
#    split (futex_words mutexes only, idle_words the conditions).
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
. "$CORECAP_SRC/tests/e2e/kernel_analysis_lib.sh"
need_refosd

start_bare_refosd bare
need_kernel_record "$OSD_PID"
run="$WORK/bare"
record_kernel "$run" -t 16 -b 4k -d 4 write
"$CORECAP" report --json "$run" >"$run.json"
"$CORECAP" report "$run" >"$run.txt"
"$CORECAP" html -o "$run.html" "$run" >/dev/null
j="$run.json"

echo "futex table: $(json "$j" "[(r['name'], r['contentions'], r['busy_util']) for r in d['lock_rows'] if r['source'] == 'futex'][:5]")"
echo "idle table: $(json "$j" "[(r['name'], r['contentions'], r['symbol']) for r in d['idle_wait_rows']][:5]")"
expect_eq "every futex entry of locks is a mutex's" "[]" \
	"$(json "$j" "[l['name'] for l in d['locks'] if l['source'] == 'futex' and l['wait_kind'] != 'mutex']")"
expect_eq "every entry of idle_waits is idle, with no busy_util" "[]" \
	"$(json "$j" "[l['name'] for l in d['idle_waits'] if l['wait_kind'] != 'idle' or l['busy_util'] is not None]")"
expect_eq "every idle row is idle, with no busy_util" "[]" \
	"$(json "$j" "[r['name'] for r in d['idle_wait_rows'] if r['wait_kind'] != 'idle' or r['busy_util'] is not None]")"
fin="[l for l in d['locks'] if l['name'] == 'd.finisher.lock' and l['source'] == 'futex']"
expect_eq "d.finisher.lock is in the futex table (a mutex)" 1 "$(json "$j" "len($fin)")"
expect_calc "... with waits" "$(json "$j" "($fin or [{'contentions': 0}])[0]['contentions']") > 10"
expect_true "... taken in finisher_queue" \
	grep -q '^finisher_queue+' <(json "$j" "($fin or [{'symbol': ''}])[0]['symbol']")
# The workers' condition wait and the re-lock as it returns share one call
# site in shards_worker_main, an idle row's; the mutex each worker takes at
# the top of its loop (another site of shards_worker_main) contends with
# shards_queue's producers for real and may have a mutex row of its own.
cond_sites="set(r['symbol'] for r in d['idle_wait_rows'] if (r['symbol'] or '').startswith('shards_worker_main+'))"
echo "the shards' condition wait sites: $(json "$j" "sorted($cond_sites)")"
expect_calc "the shards' condition waits have an idle row" "$(json "$j" "len($cond_sites)") >= 1"
expect_eq "no futex mutex row is led by the shards' condition wait site" "[]" \
	"$(json "$j" "[r['name'] for r in d['lock_rows'] if r['source'] == 'futex' and r['symbol'] in $cond_sites]")"
expect_calc "the conditions' words are idle rows (d.finisher.cond, d.log.cond_flusher)" \
	"$(json "$j" "len([l for l in d['idle_waits'] if l['name'].startswith(('d.finisher.cond.', 'd.log.cond_flusher.'))])") >= 2"
shard_idle=$(json "$j" "sum(r['wait_ns'] for r in d['idle_wait_rows'] if (r['symbol'] or '').startswith('shards_worker_main+'))")
top_mutex=$(json "$j" "max([r['wait_ns'] for r in d['lock_rows'] if r['source'] == 'futex'] or [0])")
echo "the workers' idle waits at shards_worker_main: $shard_idle ns; the top mutex row's wait: $top_mutex ns"
expect_calc "the workers' waits for work are in the idle table, and outweigh the top mutex" \
	"$shard_idle > $top_mutex"
expect_calc "re-locks as a condition wait returns are counted" \
	"$(json "$j" "d['quality']['kernel']['futex']['waits_relock']") > 0 && $(json "$j" "sum(l['relock_waits'] for l in d['idle_waits'])") > 0"
expect_eq "no busy_util exceeds 1" "[]" \
	"$(json "$j" "[x['name'] for x in d['locks'] + d['lock_rows'] if (x['busy_util'] or 0) > 1]")"
kinds=$(json "$j" "''.join('L' if e['kind'] == 'lock' else 'o' for e in (d['waitfor'] or {'edges': []})['edges'] if e['to'] != '(not woken)')")
echo "wait-for edges by kind (L: lock): $kinds"
expect_true "the wait-for graph's lock edges come first" \
	python3 -c 'import re, sys; sys.exit(0 if re.fullmatch("L*o*", sys.argv[1]) else 1)' "$kinds"

# The text: the mutex table, then the idle one; the conditions only in it.
mutex_line=$(grep -n '^locks      (source: futex mutexes' "$run.txt" | cut -d: -f1 || true)
idle_line=$(grep -n '^idle       (source: futex, idle' "$run.txt" | cut -d: -f1 || true)
expect_true "the text has the futex mutex table (line ${mutex_line:-none})" test -n "$mutex_line"
expect_true "... and the idle table after it (line ${idle_line:-none})" \
	test -n "$idle_line" -a "${idle_line:-0}" -gt "${mutex_line:-0}"
first_cond_site=$(json "$j" "(sorted($cond_sites) or ['none'])[0]")
expect_true "... whose first mutex row is not a condition's" \
	awk -v m="${mutex_line:-0}" -v c="$first_cond_site" 'NR == m + 1 { exit ($0 ~ /__g_signals/ || index($0, c) > 0) }' "$run.txt"
expect_true "the HTML page has the idle table" grep -q 'Waiting for work (futex, not contention)' "$run.html"

# stat --kernel under the same load: the same split.
export TMPDIR="$WORK/tmp"
mkdir -p "$TMPDIR"
"$REFBENCH" -p "$OSD_PORT" -t 16 -b 4k -d 4 --no-progress write >"$WORK/bench.out" 2>&1 &
bench=$!
track "$bench"
sleep 1
"$CORECAP" stat -p "$OSD_PID" --kernel --once --json --interval 1.5 >"$WORK/stat.json"
"$CORECAP" stat -p "$OSD_PID" --kernel --once --interval 0.5 >"$WORK/stat.txt"
wait "$bench" || { echo "FAIL: refbench failed:"; cat "$WORK/bench.out"; exit 1; }
s="$WORK/stat.json"
echo "stat: mutexes $(json "$s" "[(w['name'], w['waits']) for w in d['futex_words'][:4]]"), idle $(json "$s" "[(w['name'], w['waits']) for w in d['idle_words'][:4]]")"
expect_eq "stat: futex_words are mutexes" "[]" \
	"$(json "$s" "[w['name'] for w in d['futex_words'] if w['wait_kind'] != 'mutex' or w['busy_ns'] > d['interval_ns']]")"
expect_eq "stat: idle_words are idle" "[]" "$(json "$s" "[w['name'] for w in d['idle_words'] if w['wait_kind'] != 'idle']")"
expect_eq "stat: no condition word among the mutexes" "[]" \
	"$(json "$s" "[w['name'] for w in d['futex_words'] if '__g_signals' in w['name']]")"
expect_calc "stat: the conditions' words are idle words" \
	"$(json "$s" "len([w for w in d['idle_words'] if '__g_signals' in w['name']])") >= 1"
expect_true "stat: d.finisher.lock among the mutex words" \
	grep -q "d.finisher.lock" <(json "$s" "' '.join(w['name'] for w in d['futex_words'])")
expect_true "stat's text has the idle words' table" grep -q '^IDLE WORD (waiting for work)' "$WORK/stat.txt"
stop_refosd
finish
