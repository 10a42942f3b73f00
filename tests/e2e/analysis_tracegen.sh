#!/usr/bin/env bash
# Known answers from corecap_tracegen, whose ops have a shape set on its
# command line and which writes down what each op really did (--truth),
# recorded by `corecap record` in a real LTTng session:
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
	--cond-us 700 --truth "$WORK/truth.tsv" >/dev/null &
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

# Op by op against what tracegen measured it did (--truth): the waits it
# reported must come out exactly, the queue and the cpu at least as long
# as the sleep and the spin, and longer only by the few microseconds of
# the tracepoints around them (a margin for preemption on a busy machine).
python3 - "$run.ops" "$WORK/truth.tsv" >"$WORK/truth.out" <<'PY'
import csv, sys
ops = {r["op_id"]: r for r in csv.DictReader(open(sys.argv[1]), delimiter="\t") if r["excluded"] == "0"}
truth = {}
for line in open(sys.argv[2]):
    f = line.split("\t")
    truth[f[0]] = [int(x) for x in f[2:7]]
both = [k for k in ops if k in truth]
exact = {"lock_wait_ns": 1, "io_ns": 3, "cond_wait_ns": 4}
bad_exact = sum(1 for k in both for col, i in exact.items() if abs(int(ops[k][col]) - truth[k][i]) > 1000)
def close(col, i, margin):
    return sum(1 for k in both if -1000 <= int(ops[k][col]) - truth[k][i] <= margin)
print(len(ops), len(both), bad_exact, close("queue_ns", 2, 200000), close("cpu_ns", 0, 300000),
      sum(int(ops[k]["other_ns"]) for k in both))
PY
read -r n_ops n_both bad_exact queue_close cpu_close other <"$WORK/truth.out"
expect_calc "ops found in tracegen's truth ($n_both of $n_ops)" "$n_both >= 0.95 * $n_ops"
expect_eq "ops whose lock_wait, io or cond_wait differ from the truth by > 1 us" 0 "$bad_exact"
expect_calc "queue = the queue sleep (+ < 200 us) for 95% of ops ($queue_close of $n_both)" "$queue_close >= 0.95 * $n_both"
expect_calc "cpu = the spin (+ < 300 us) for 95% of ops ($cpu_close of $n_both)" "$cpu_close >= 0.95 * $n_both"
expect_eq "other" 0 "$other"
for t in write read; do
	b="d['ops']['by_type']['$t']['breakdown_us']"
	# Means: sleeps never undershoot.
	expect_calc "$t cpu >= 300 us" "$(json "$run.json" "$b['cpu']") >= 290"
	expect_calc "$t lock_wait >= 1500 us" "$(json "$run.json" "$b['lock_wait']") >= 1500"
	expect_calc "$t queue >= 3000 us" "$(json "$run.json" "$b['queue']") >= 3000"
	expect_calc "$t io >= 1000 us" "$(json "$run.json" "$b['io']") >= 1000"
	expect_calc "$t cond_wait >= 700 us" "$(json "$run.json" "$b['cond_wait']") >= 700"
	expect_calc "$t logging small but there" "$(json "$run.json" "$b['logging']") > 0 && $(json "$run.json" "$b['logging']") < 200"
	expect_eq "$t queue labelled by phase" "['begin', 'queued']" \
		"$(json "$run.json" "sorted(d['ops']['by_type']['$t']['detail_us']['queue'])")"
	expect_eq "$t io class" "['data']" "$(json "$run.json" "sorted(d['ops']['by_type']['$t']['detail_us']['io'])")"
done
expect_eq "write lock wait is on lock_a" "['lock_a']" \
	"$(json "$run.json" "sorted(d['ops']['by_type']['write']['detail_us']['lock_wait'])")"
# truth_lock (tracegen's own, held around its truth file's fflush) is
# contended too when two ops end together, as on a slowed (ASan) build.
expect_eq "locks named from the ELF symbols" "['lock_a', 'lock_b']" \
	"$(json "$run.json" "sorted(l['name'] for l in d['locks'] if l['name'] != 'truth_lock')")"
expect_eq "lock_a's site is in tg_worker_run" True \
	"$(json "$run.json" "[l['symbol'] for l in d['locks'] if l['name'] == 'lock_a'][0].startswith('tg_worker_run+')")"
expect_eq "lock_b's site is logging code (log_*)" True \
	"$(json "$run.json" "[l['sites'][0]['logging'] for l in d['locks'] if l['name'] == 'lock_b'][0]")"
expect_eq "worker threads form one pool" 2 \
	"$(json "$run.json" "[p['threads'] for p in d['pools'] if p['name'] == 'tg-worker'][0]")"
expect_calc "window ~ 2 s" "$(json "$run.json" "d['window']['duration_s']") > 1.9"
expect_eq "no loss" 0 "$(json "$run.json" "d['quality']['loss_messages']")"
expect_true "text report has the diagnosis first" grep -q '^DIAGNOSIS' "$run.txt"
finish
