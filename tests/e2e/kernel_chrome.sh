#!/usr/bin/env bash
# `corecap export --chrome` of a run with kernel events: each thread's
# kernel states (running, runnable, futex, blocked) as slices in a second
# process, "refosd kernel thread states". On a bare refosd (no shim, no
# trace) under refbench: the slices of each thread tile its span (no gap,
# no overlap), their sums per state equal the report's kernel_states of
# the same run to the nanosecond (two outputs of one model, written by two
# different writers), and @tracerbench/trace-model's buildModel imports
# the file with every slice, flow (futex wake edges: holder's wake ->
# waiter's return), thread name and category (as e2e.flame_trace_model
# does for the golden run).
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
. "$CORECAP_SRC/tests/e2e/kernel_analysis_lib.sh"
need_refosd
command -v node >/dev/null || skip "node is not installed (scripts/install-deps-browser installs nodejs and npm)"
[ -d "$CORECAP_SRC/tests/e2e/js/node_modules/@tracerbench/trace-model" ] ||
	skip "@tracerbench/trace-model is not installed in tests/e2e/js (scripts/install-deps-browser runs npm ci there)"

start_bare_refosd bare --op-cpu-us 20 --debug 0
need_kernel_record "$OSD_PID"
run="$WORK/bare"
record_kernel "$run" -t 8 -b 1 -d 2 write
stop_refosd
"$CORECAP" report --json "$run" >"$run.json"
status=0
"$CORECAP" export --chrome -o "$run.chrome.json" "$run" 2>"$run.export.err" || status=$?
expect_eq "export --chrome: exit status" 0 "$status"
[ "$status" = 0 ] || cat "$run.export.err"

python3 - "$run.chrome.json" "$run.json" >"$WORK/check.out" <<'PY'
import collections, json, sys

trace = json.load(open(sys.argv[1]))["traceEvents"]
report = json.load(open(sys.argv[2]))
states = {"running": "running_ns", "runnable": "runnable_ns", "futex": "futex_ns", "blocked": "blocked_ns"}
kpids = {e["pid"] for e in trace if e["ph"] == "M" and e["name"] == "process_name"
         and e["args"]["name"].endswith(" kernel thread states")}
slices = collections.defaultdict(list)
for e in trace:
    if e["ph"] == "X" and e.get("cat") == "kernel":
        slices[e["tid"]].append(e)
bad_pid = sum(1 for s in slices.values() for e in s if e["pid"] not in kpids)
bad_name = sum(1 for s in slices.values() for e in s if e["name"] not in states)
threads = [t for t in report["threads"] if t.get("kernel_states")]
untiled, unequal = [], []
for t in threads:
    k, s = t["kernel_states"], sorted(slices.get(t["tid"], []), key=lambda e: e["ts"])
    # Each slice starts where the one before ended (printed to the ns).
    if any(abs(a["ts"] + a["dur"] - b["ts"]) > 0.0015 for a, b in zip(s, s[1:])):
        untiled.append(t["tid"])
    for name, key in states.items():
        ns = sum(e["dur"] for e in s if e["name"] == name) * 1e3
        if abs(ns - k[key]) > 2 + 1e-9 * k["span_ns"]:
            unequal.append((t["tid"], name, round(ns), k[key]))
    if abs(sum(e["dur"] for e in s) * 1e3 - k["span_ns"]) > 2 + 1e-9 * k["span_ns"]:
        unequal.append((t["tid"], "span", k["span_ns"]))
print("kernel_processes", len(kpids))
print("threads", len(threads), "with_slices", sum(1 for t in threads if slices.get(t["tid"])))
print("slices", sum(len(s) for s in slices.values()))
print("bad_pid", bad_pid, "bad_name", bad_name)
print("untiled", untiled)
print("unequal", unequal[:5], len(unequal))
for name, key in states.items():
    print("total_" + name, sum(t["kernel_states"][key] for t in threads))
PY
cat "$WORK/check.out"
val() { awk -v k="$1" '$1 == k { print $2 }' "$WORK/check.out"; }
expect_eq "one kernel states process" 1 "$(val kernel_processes)"
expect_eq "every thread of the report has its slices" "$(val threads)" "$(awk '$1 == "threads" { print $4 }' "$WORK/check.out")"
expect_calc "threads with kernel states" "$(val threads) >= 4"
expect_eq "kernel slices outside that process, or of other names" "bad_pid 0 bad_name 0" "$(grep '^bad_pid' "$WORK/check.out")"
expect_eq "each thread's slices tile its span" "untiled []" "$(grep '^untiled' "$WORK/check.out")"
expect_eq "slice sums per state = the report's kernel_states" "unequal [] 0" "$(grep '^unequal' "$WORK/check.out")"
for s in running runnable futex blocked; do
	expect_calc "some $s time" "$(val "total_$s") > 0"
done

status=0
python3 "$CORECAP_SRC/tests/e2e/flame_chrome_check.py" "$run.chrome.json" >"$WORK/rules.out" 2>&1 || status=$?
expect_eq "the importers' rules (flame_chrome_check.py: nesting per thread, names...)" 0 "$status"
[ "$status" = 0 ] || cat "$WORK/rules.out"
status=0
node "$CORECAP_SRC/tests/e2e/flame_trace_model.js" "$run.chrome.json" >"$WORK/model.json" || status=$?
expect_eq "buildModel imports the export (exit status)" 0 "$status"
cat "$WORK/model.json"
count() { json "$run.chrome.json" "len([e for e in d['traceEvents'] if $1])"; }
expect_eq "the model's processes: the daemon's and the kernel states'" 2 "$(json "$WORK/model.json" "d['processes']")"
expect_eq "X slices in the model = in the file" "$(count "e['ph'] == 'X'")" "$(json "$WORK/model.json" "d['slices']")"
expect_eq "threads in the model = threads named in the file" "$(count "e['ph'] == 'M' and e['name'] == 'thread_name'")" \
	"$(json "$WORK/model.json" "d['named_threads']")"
expect_eq "every thread named" "$(json "$WORK/model.json" "d['threads']")" "$(json "$WORK/model.json" "d['named_threads']")"
expect_eq "events without a category" 0 "$(json "$WORK/model.json" "d['without_cat']")"
# Futex wake edges: flows from the holder's wake to the waiter's return.
expect_calc "futex wake flows" "$(count "e['ph'] == 's'") > 100"
expect_eq "each flow ends (s = f)" "$(count "e['ph'] == 's'")" "$(count "e['ph'] == 'f'")"
expect_eq "flows in the model = in the file" "$(count "e['ph'] == 's'")" "$(json "$WORK/model.json" "d['flows']")"

# Kernel records against schedstat: a copy of the run whose threads.tsv
# says the busiest thread never ran (run_ns, utime and stime frozen at its
# first sample) must warn of one thread, and give that thread
# threads.tsv's figures (no kernel states), not the kernel's.
busiest=$(json "$run.json" "max(d['threads'], key=lambda t: t['cpu_ns'])['tid']")
cp -r "$run" "$WORK/frozen"
awk -F'\t' -v OFS='\t' -v tid="$busiest" '
	NR > 1 && $2 == tid { if (!(tid in f)) { f[tid] = $5 OFS $6 OFS $8 } split(f[tid], v, OFS); $5 = v[1]; $6 = v[2]; $8 = v[3] }
	{ print }' "$run/threads.tsv" >"$WORK/frozen/threads.tsv"
"$CORECAP" report --json "$WORK/frozen" >"$WORK/frozen.json"
expect_eq "a thread that ran by the kernel's records and not by schedstat: counted" 1 \
	"$(json "$WORK/frozen.json" "d['quality']['kernel']['threads_schedstat_disagree']")"
expect_eq "... and warned of" 1 \
	"$(json "$WORK/frozen.json" "sum('than by their own schedstat' in w for w in d['quality']['warnings'])")"
expect_eq "... its figures are threads.tsv's" "None 0" \
	"$(json "$WORK/frozen.json" "' '.join(str(x) for t in d['threads'] if t['tid'] == $busiest for x in (t['kernel_states'], t['cpu_ns']))")"
expect_eq "the run itself: no thread disagrees" 0 \
	"$(json "$run.json" "d['quality']['kernel']['threads_schedstat_disagree']")"
finish
