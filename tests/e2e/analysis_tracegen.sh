#!/usr/bin/env bash
# Known answers from corecap_tracegen, whose ops have a shape set on its
# command line, recorded by `corecap record` in a real LTTng session:
# each op spins --cpu-us, sleeps --lock-us reported as a lock wait (on
# lock_a, from tg_worker_run), writes a log line inside a log call, is
# queued --queue-us, sleeps --io-us as data I/O and --cond-us as a cond
# wait. The report must find each category near its setting, name the
# locks and the logging site from the symbols, group the threads in one
# pool, and conserve every op.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
need_sessiond

"$TRACEGEN" -t 2 -n 2000 --cpu-us 300 --lock-us 1500 --queue-us 3000 --io-us 1000 \
	--cond-us 700 >/dev/null &
gen=$!
track "$gen"
sleep 0.3
run="$WORK/run"
"$CORECAP" record -q -p "$gen" -o "$run" -d 2 >"$WORK/record.out" 2>&1 ||
	{ echo "FAIL: corecap record failed:"; cat "$WORK/record.out"; exit 1; }
kill "$gen" 2>/dev/null || true
"$CORECAP" report --json --dump-ops "$run.ops" "$run" >"$run.json"
"$CORECAP" report "$run" >"$run.txt"

n=$(json "$run.json" "d['ops']['count']")
expect_calc "ops traced in 2 s (two threads, ~6.5 ms an op)" "$n > 300"
check_conservation tracegen "$run.ops"
for t in write read; do
	b="d['ops']['by_type']['$t']['breakdown_us']"
	# Sleeps overshoot (more on a busy machine): a floor, and a loose ceiling.
	expect_calc "$t cpu ~ 300 us" "$(json "$run.json" "$b['cpu']") >= 290 && $(json "$run.json" "$b['cpu']") < 900"
	expect_calc "$t lock_wait ~ 1500 us" "$(json "$run.json" "$b['lock_wait']") >= 1500 && $(json "$run.json" "$b['lock_wait']") < 2500"
	expect_calc "$t queue ~ 3000 us" "$(json "$run.json" "$b['queue']") >= 3000 && $(json "$run.json" "$b['queue']") < 4500"
	expect_calc "$t io ~ 1000 us" "$(json "$run.json" "$b['io']") >= 1000 && $(json "$run.json" "$b['io']") < 2000"
	expect_calc "$t cond_wait ~ 700 us" "$(json "$run.json" "$b['cond_wait']") >= 700 && $(json "$run.json" "$b['cond_wait']") < 1600"
	expect_calc "$t logging small but there" "$(json "$run.json" "$b['logging']") > 0 && $(json "$run.json" "$b['logging']") < 200"
	expect_eq "$t other" 0 "$(json "$run.json" "$b['other']")"
	expect_eq "$t queue labelled by phase" "['begin', 'queued']" \
		"$(json "$run.json" "sorted(d['ops']['by_type']['$t']['detail_us']['queue'])")"
	expect_eq "$t io class" "['data']" "$(json "$run.json" "sorted(d['ops']['by_type']['$t']['detail_us']['io'])")"
done
expect_eq "write lock wait is on lock_a" "['lock_a']" \
	"$(json "$run.json" "sorted(d['ops']['by_type']['write']['detail_us']['lock_wait'])")"
expect_eq "locks named from the ELF symbols" "['lock_a', 'lock_b']" \
	"$(json "$run.json" "sorted(l['name'] for l in d['locks'])")"
expect_eq "lock_a's site is in tg_worker_run" True \
	"$(json "$run.json" "[l['symbol'] for l in d['locks'] if l['name'] == 'lock_a'][0].startswith('tg_worker_run+')")"
expect_eq "lock_b's site is logging code (log_*)" True \
	"$(json "$run.json" "[l['sites'][0]['logging'] for l in d['locks'] if l['name'] == 'lock_b'][0]")"
expect_eq "worker threads form one pool" 2 \
	"$(json "$run.json" "[p['threads'] for p in d['pools'] if p['name'] == 'tg-worker'][0]")"
expect_calc "window ~ 2 s" "$(json "$run.json" "d['window']['duration_s']") > 1.9"
expect_eq "no loss" 0 "$(json "$run.json" "d['quality']['loss_messages']")"
expect_true "text report has the verdict line" grep -q '^CEILING' "$run.txt"
finish
