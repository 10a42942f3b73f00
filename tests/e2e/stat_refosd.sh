#!/usr/bin/env bash
# `corecap stat` on refosd --big-lock under `corecap run` (the shim):
#  - under load, one --once --json interval names the big lock
#    (d.osd.big_lock, first contended in osd_handle_op) with contended
#    waits and a non-zero wait, and its site by symbol; the sites' waits
#    agree with the process's (two sums of the same waits, which the shim
#    keeps apart: per site and per thread);
#  - after the load, an interval shows the same lock with no wait: the
#    figures are the interval's, not the totals (which stay > 0);
#  - -d/--interval print one line per interval; the text view names the lock;
#  - the shards' queue locks (heap locks, one per shard, each first
#    contended in shards_queue or shards_worker_main) are grouped by that
#    site as report groups them: a family row "shards_...+0x.. xN" in
#    text, and in JSON with its members, whose waits sum to the row's;
#  - a daemon with CORECAP_STATS_DIR is found there;
#  - a PID that does not exist, a process without the shim (where kernel
#    events are not allowed), a segment
#    that belongs to another PID, bad options: clear errors, exit 1 or 2;
#    corecap-stats-dump --help is its usage.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
need_refosd
DUMP="$CORECAP_BUILD/preload/corecap-stats-dump"

start_refosd big --big-lock --op-cpu-us 50 --debug 0 --msgr-threads 1 --shards 4 \
	--threads-per-shard 2
"$REFBENCH" -p "$OSD_PORT" -t 8 -b 1 -d 4 --no-progress write >"$WORK/bench.out" 2>&1 &
bench=$!
track "$bench"
sleep 1
"$CORECAP" stat -p "$OSD_PID" --once --json --interval 1 >"$WORK/load.json"
"$CORECAP" stat -p "$OSD_PID" --once --interval 0.5 >"$WORK/load.txt"
"$CORECAP" stat -p "$OSD_PID" -d 1 --interval 0.25 --json >"$WORK/lines.json"
wait "$bench" || { echo "FAIL: refbench failed:"; cat "$WORK/bench.out"; exit 1; }

big="[l for l in d['locks'] if l['name'] == 'd.osd.big_lock']"
expect_eq "under load: the big lock is named by its symbol" 1 "$(json "$WORK/load.json" "len($big)")"
expect_true "... first contended in osd_handle_op" \
	grep -q '^osd_handle_op+' <(json "$WORK/load.json" "$big[0]['first_site_symbol']")
expect_calc "... contended in the interval" "$(json "$WORK/load.json" "$big[0]['contentions']") > 0"
expect_calc "... with a non-zero wait" "$(json "$WORK/load.json" "$big[0]['wait_ns']") > 0"
expect_calc "... and held in it (one op at a time, 50 us of CPU each)" \
	"$(json "$WORK/load.json" "$big[0]['hold_util']") > 0.1"
expect_calc "interval ~1 s" "$(json "$WORK/load.json" "d['interval_ns']") > 0.9e9 && $(json "$WORK/load.json" "d['interval_ns']") < 1.5e9"
site="[s for s in d['sites'] if s['symbol'].startswith('osd_handle_op+') and s['kind'] == 'mutex']"
expect_calc "its site osd_handle_op+... waited" "$(json "$WORK/load.json" "sum(s['wait_ns'] for s in $site)") > 0"
# The shim counts each contended wait twice: in its thread's slot (the
# process's figure is their sum) and at its call site.
proc=$(json "$WORK/load.json" "d['process']['lock_wait_ns']")
sites=$(json "$WORK/load.json" "sum(s['wait_ns'] for s in d['sites'] if s['kind'] != 'cond')")
echo "lock wait in the interval: process $proc ns, sites $sites ns"
expect_calc "the process waited for locks" "$proc > 0"
expect_calc "sites' lock wait within 5% of the process's" "$sites >= 0.95 * $proc && $sites <= 1.05 * $proc"
expect_true "the text view names the big lock" grep -q '^d\.osd\.big_lock ' "$WORK/load.txt"
fam="[l for l in d['locks'] if l.get('family') and l['first_site_symbol'].startswith('shards_')]"
expect_calc "the shards' queue locks are grouped into a family row" "$(json "$WORK/load.json" "len($fam)") >= 1"
expect_calc "... of 2 or more locks" "$(json "$WORK/load.json" "len($fam[0]['members'])") >= 2"
expect_true "... named by its site alone, SITE (the count is a column)" grep -Eq '^shards_[a-z_]+\+0x[0-9a-f]+$' \
	<(json "$WORK/load.json" "$fam[0]['name']")
expect_eq "... whose wait is its members' sum" "$(json "$WORK/load.json" "$fam[0]['wait_ns']")" \
	"$(json "$WORK/load.json" "sum(m['wait_ns'] for m in $fam[0]['members'])")"
expect_true "the text view has the family row, its LOCKS 2 or more" grep -Eq '^shards_[a-z_]+\+0x[0-9a-f]+ +([2-9]|[1-9][0-9]+) ' "$WORK/load.txt"
expect_eq "... and no bare heap-lock row" 0 "$(grep -Ec '^0x[0-9a-f]+ ' "$WORK/load.txt" || true)"
n=$(wc -l <"$WORK/lines.json")
expect_calc "-d 1 --interval 0.25: 3 to 5 intervals (got $n)" "$n >= 3 && $n <= 5"

sleep 0.3 # the shim's per-thread batches (<= 10 ms late) have arrived
"$CORECAP" stat -p "$OSD_PID" --once --json --interval 1 >"$WORK/idle.json"
expect_eq "idle: the big lock is still listed (hot)" 1 "$(json "$WORK/idle.json" "len($big)")"
expect_eq "... with no wait in the interval" 0 "$(json "$WORK/idle.json" "$big[0]['wait_ns']")"
expect_eq "... and no contention" 0 "$(json "$WORK/idle.json" "$big[0]['contentions']")"
expect_eq "the process waited for no lock" 0 "$(json "$WORK/idle.json" "d['process']['lock_wait_ns']")"
total=$("$DUMP" "$OSD_PID" | awk -F'\t' '$1 == "lock" && $2 == "'"$(json "$WORK/idle.json" "$big[0]['addr']")"'" { print $7 }')
expect_calc "... while its total wait since start is > 0 (${total:-none} ns)" "${total:-0} > 0"
"$DUMP" --copy "$WORK/segment-copy" "$OSD_PID"
stop_refosd

# A daemon with CORECAP_STATS_DIR (where older shims kept their file):
# nothing is made there, and stat reads the counters from the daemon.
mkdir -p "$WORK/statsdir"
launch_refosd moved env CORECAP_STATS_DIR="$WORK/statsdir" "$CORECAP" run -- "$REFOSD" --port 0 --debug 0
expect_eq "CORECAP_STATS_DIR: nothing is made there" "" "$(ls -A "$WORK/statsdir")"
"$CORECAP" stat -p "$OSD_PID" --once --json --interval 0.2 >"$WORK/moved.json" 2>"$WORK/moved.err" || true
expect_eq "CORECAP_STATS_DIR: stat reads the daemon's segment there" "$OSD_PID" "$(json "$WORK/moved.json" "d['pid']" 2>/dev/null)"
stop_refosd

# Error paths. The plain process is nobody's when we are root, so that
# nobody may look at it (and finds no shim there).
as_user=()
[ "$(id -u)" -ne 0 ] || as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
"${as_user[@]}" sleep 30 &
plain=$!
track "$plain"
# setpriv drops to nobody, then execs sleep: until then the PID is root's.
for _ in $(seq 100); do
	[ "$(cat "/proc/$plain/comm" 2>/dev/null)" = sleep ] && break
	sleep 0.05
done
# Without the shim stat turns to kernel events (e2e.stat_kernel); where
# they are not allowed (as nobody, when we are root) it names both causes.
expect_fail_naming "a process without the shim, no kernel events" "runs without the shim" \
	"${as_user[@]}" "$CORECAP" stat -p "$plain" --once
expect_true "... and says how to get one" grep -q "corecap run" "$WORK/err"
# A copy of refosd's counters where older shims kept their file, under the
# name of another PID: never read, and stat says it ignores it.
sleep 30 &
faked=$!
track "$faked"
cp "$WORK/segment-copy" "/dev/shm/corecap.$faked"
"$CORECAP" stat -p "$faked" --once --json >"$WORK/out" 2>"$WORK/err" || true
rm -f "/dev/shm/corecap.$faked"
expect_true "a file /dev/shm/corecap.PID is ignored, and stat says so" \
	grep -q "ignoring '/dev/shm/corecap.$faked'" "$WORK/err"
kill "$plain" "$faked"
wait "$plain" 2>/dev/null || true
expect_fail_naming "a PID that does not exist" "no process with PID $plain" "$CORECAP" stat -p "$plain" --once
expect_exit_naming "-p abc" 2 "not a process id" "$CORECAP" stat -p abc --once
expect_exit_naming "no -p" 2 "-p PID is required" "$CORECAP" stat --once
expect_exit_naming "--interval 0" 2 "positive number of seconds" "$CORECAP" stat -p 1 --interval 0
expect_exit_naming "corecap-stats-dump --help: usage on stdout" 0 "usage: corecap stats-dump" "$DUMP" --help
expect_true "... which says how its addresses are named" grep -q "addr2line -f -e" "$WORK/out"
expect_exit_naming "corecap-stats-dump --bogus" 2 "unrecognized option '--bogus'" "$DUMP" --bogus
finish
