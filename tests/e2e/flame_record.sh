#!/usr/bin/env bash
# Every picture of a real recording: refosd under `corecap run --cpuprofile`
# recorded with --wallclock while refbench writes. The CPU flame graph
# holds every sample of the run's cpu.prof and refosd's own functions; the
# wall-clock one has one root frame per thread (per pool with --pool), and
# refosd's threads by their names; the lock and op graphs add up to the
# report's figures; every SVG is well-formed; the Chrome trace passes the
# importer checks; the HTML page embeds the four graphs and the chart.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/flame_lib.sh"
need_sessiond
need_refosd
[ -e /usr/lib/x86_64-linux-gnu/libprofiler.so.0 ] ||
	skip "gperftools' libprofiler is absent (Debian package libgoogle-perftools4)"

run="$WORK/run"
start_refosd osd --cpuprofile -- --debug 5
record "$run" --wallclock=50 -- -t 8 -b 1 -d 3 write
stop_refosd
for f in cpu.prof wall.samples threads.tsv maps manifest.json; do
	expect_file "$run/$f"
done
"$CORECAP" report --json "$run" >"$WORK/report.json"

for kind in cpu wall lock op; do
	status=0
	"$CORECAP" flame --kind "$kind" "$run" >"$WORK/$kind.folded" 2>"$WORK/$kind.err" || status=$?
	expect_eq "flame --kind $kind exit status" 0 "$status"
	expect_calc "flame --kind $kind has stacks" "$(wc -l <"$WORK/$kind.folded") > 0"
	"$CORECAP" flame --kind "$kind" --svg -o "$WORK/$kind.svg" "$run" 2>/dev/null
	check_svg "$kind flame SVG" "$WORK/$kind.svg"
done

# cpu: every sample of the profile, as `corecap flame` counted them on stderr.
samples=$(sed -n 's/^corecap flame: cpu: \([0-9]*\) samples.*/\1/p' "$WORK/cpu.err")
expect_eq "cpu stacks' total = the profile's samples" "$samples" "$(folded_total "$WORK/cpu.folded")"
expect_calc "the profile has samples ($samples)" "${samples:-0} > 10"
expect_true "cpu stacks name refosd's functions" \
	grep -qE ';(shards_worker_main|messenger_worker_main|log_thread_main|finisher_main)(;| )' "$WORK/cpu.folded"

# wall: root frames are thread names; with --pool, pool names.
roots=$(cut -d';' -f1 "$WORK/wall.folded" | sort -u | tr '\n' ' ')
echo "wall root frames: $roots"
for t in tp_osd_tp msgr-worker-0 msgr-worker-2 log finisher; do
	expect_true "wall root frame '$t'" grep -q "^$t;" "$WORK/wall.folded"
done
"$CORECAP" flame --kind wall --pool "$run" >"$WORK/pool.folded" 2>/dev/null
expect_true "wall --pool root frame 'msgr-worker'" grep -q '^msgr-worker;' "$WORK/pool.folded"
expect_eq "wall --pool keeps every sample" "$(folded_total "$WORK/wall.folded")" "$(folded_total "$WORK/pool.folded")"
# LTTng-UST's threads are the profiler's (profiler_own.h): left out unless --keep-profiler.
"$CORECAP" flame --kind wall --keep-profiler "$run" >"$WORK/kept.folded" 2>/dev/null
expect_eq "wall --keep-profiler samples = lines of wall.samples" "$(wc -l <"$run/wall.samples")" "$(folded_total "$WORK/kept.folded")"
ust=$(json "$run/manifest.json" "d['comm'][:11]")-ust
expect_eq "wall samples = the kept ones less LTTng-UST's threads' ($ust)" \
	"$(folded_total "$WORK/kept.folded")" \
	"$(($(folded_total "$WORK/wall.folded") + $(grep "^$ust;" "$WORK/kept.folded" | awk '{ s += $NF } END { print s + 0 }')))"
expect_eq "no root frame is LTTng-UST's thread" "" "$(grep "^$ust;" "$WORK/wall.folded" | head -1)"

# lock and op add up to the report.
# The shim's rows: with kernel events the report lists the futex table's too.
expect_eq "lock stacks' total = the locks' total wait" \
	"$(json "$WORK/report.json" "sum(l['wait_ns'] for l in d['locks'] if l['source'] == 'shim')")" \
	"$(folded_total "$WORK/lock.folded")"
expect_calc "op stacks' total = ops x mean latency (within 0.1%)" \
	"$(folded_total "$WORK/op.folded") / $(json "$WORK/report.json" "sum(t['count'] * t['latency_us']['avg'] * 1000 for t in d['ops']['by_type'].values())") > 0.999 && $(folded_total "$WORK/op.folded") / $(json "$WORK/report.json" "sum(t['count'] * t['latency_us']['avg'] * 1000 for t in d['ops']['by_type'].values())") < 1.001"
expect_true "op stacks: logging at debug 5" grep -q '^write;logging;' "$WORK/op.folded"

# The Chrome trace, of the window's second half second (a busy daemon makes
# ~100 MB of JSON per second), and the page.
"$CORECAP" export --chrome --from 0.5 --to 1 -o "$WORK/trace.json" "$run" 2>/dev/null
figures=$(python3 "$CHECK_CHROME" "$WORK/trace.json") || { echo "FAIL: $figures"; _failures=$((_failures + 1)); }
echo "chrome trace: $figures"
# Whether an op is in flight at the window's edges is up to the daemon's
# timing: events lie within the span and cover it to 10 ms, and what is still
# open at the end (if anything) ends exactly at the end.
span=$(json "$WORK/trace.json" "' '.join(str(f(e['ts'] for e in d['traceEvents'] if e['ph'] != 'M')) for f in (min, max))")
echo "span exported: $span us; events marked unfinished: $(grep -o '"unfinished":true' "$WORK/trace.json" | wc -l)"
expect_calc "the span exported lies in 0 to 500 ms and covers it to 10 ms" \
	"$(echo "$span" | awk '{ print $1 " >= 0 && " $1 " <= 10000 && " $2 " <= 500000 && " $2 " >= 490000" }')"
expect_eq "what is unfinished ends at 500 ms" "" \
	"$(json "$WORK/trace.json" "' '.join(sorted({str(round(e['ts'] + e.get('dur', 0), 3)) for e in d['traceEvents'] if e.get('args', {}).get('unfinished')} - {'500000.0'}))")"
expect_calc "ops in that span" "$(grep -c '"ph":"b","pid":[0-9]*,"tid":[0-9]*,"ts":[0-9.]*,"name":"write"' "$WORK/trace.json") > 100"
"$CORECAP" html -o "$WORK/page.html" "$run" 2>/dev/null
expect_eq "page: the chart and four flame graphs (besides the critical path's and wait-for pictures)" 5 \
	"$(grep '^<svg' "$WORK/page.html" | grep -cvE 'id="(waitfor|critical-path-bars)"')"
expect_eq "page: no script loaded from elsewhere" 0 "$(grep -ciE '<script[^>]* (src|href)=' "$WORK/page.html" || true)"
expect_true "page: the wall graph leaves idle waits out by default" grep -q 'idle waits left out' "$WORK/page.html"

# --no-idle: the idle threads' stacks leave, every other sample stays.
"$CORECAP" flame --kind wall --no-idle "$run" >"$WORK/busy.folded" 2>"$WORK/busy.err"
idle=$(sed -n 's/.*, \([0-9]*\) idle samples left out.*/\1/p' "$WORK/busy.err")
echo "wall: $(folded_total "$WORK/wall.folded") samples, $idle idle left out"
expect_calc "--no-idle leaves idle samples out ($idle)" "${idle:-0} > 0"
expect_eq "--no-idle: kept + left out = every sample" "$(folded_total "$WORK/wall.folded")" \
	"$(( $(folded_total "$WORK/busy.folded") + ${idle:-0} ))"
# What is left out, read from the stacks themselves: a leaf in epoll_wait, or
# a cond wait's futex wait within the last frames (not under logging, nor
# retaking the mutex: that is a lock wait).
idle_stacks() {
	python3 - "$@" <<'EOF'
import re, sys
n = 0
for line in open(sys.argv[1]):
    frames = line.rsplit(" ", 1)[0].split(";")
    if any(f.startswith("log_") for f in frames):
        continue
    cond = any(re.search(r"pthread_cond_(timed|clock)?wait", f) for f in frames[-5:])
    # In the futex wait itself: a thread on CPU in pthread_cond_wait's own code,
    # or in a signal handler that interrupted the wait (gperftools'), is cpu.
    # (A futex wake inside the cond wait, __condvar_dec_grefs' futex_wake, is
    # work on a CPU, not a wait.)
    futex = "futex" in frames[-1] and "wake" not in frames[-1]
    if re.search(r"epoll_wait|epoll_pwait", frames[-1]) or (cond and futex and not any("lll_lock_wait" in f for f in frames[-3:])):
        n += 1
        if sys.argv[2:]:
            print("idle stack kept:", line[-300:].rstrip(), file=sys.stderr)
print(n)
EOF
}
expect_calc "the same reading finds idle stacks in the whole wall graph" "$(idle_stacks "$WORK/wall.folded") > 0"
bad=$(idle_stacks "$WORK/busy.folded" show)
expect_eq "--no-idle: no stack left waiting in epoll_wait or a cond wait" 0 "$bad"
expect_true "--no-idle keeps the op threads' work" grep -q '^tp_osd_tp;.*shards_worker_main' "$WORK/busy.folded"
status=0
"$CORECAP" flame --kind cpu --no-idle "$run" >/dev/null 2>"$WORK/err" || status=$?
expect_eq "--no-idle with another kind is a usage error" 2 "$status"
expect_true "and says so" grep -q -- "--no-idle applies to --kind wall only" "$WORK/err"
finish
