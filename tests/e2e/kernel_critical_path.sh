#!/usr/bin/env bash
# Known answers of the ops' critical paths (analysis/model/critical_path.c),
# refosd under the shim recorded with kernel events (root):
#  1. at --debug 0 and --debug 20, one op in flight: the critical path's
#     categories per op type equal the annotation-based breakdown's within
#     10% of the mean latency (two independent methods: wake-up edges and
#     scheduler states vs enter/exit annotations). The annotations cannot
#     split CPU from waiting for it, nor a queue from the wake-up that ends
#     it: their cpu + queue (+ other) is compared with the path's cpu +
#     runqueue + queue (+ other); logging, lock_wait, cond_wait and io one
#     by one. The path's waits for a CPU are moved to the annotations' view
#     first: inside a log call of the waiter's they are its logging there,
#     outside one its cpu (critical_path_runqueue_in_log_us and
#     critical_path_runqueue_logging_us). Every op's path sums to its latency (conservation, checked).
#     The wait-for graph has refosd's hand-overs: the workers (tp_osd_tp)
#     wait for the messenger's signal and the finisher for the workers'
#     (kind cond), and its edges never sum to more than the daemon's
#     threads slept (futex + blocked time from the same records).
#     The report is the same whether the trace is read on a thread of its
#     own or not (CORECAP_TRACE_PIPE).
#  2. refosd and a busy-loop hog pinned on one CPU (taskset): runqueue is
#     on the critical path (at least 10% of the latency) and its largest
#     holder is the hog.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
. "$CORECAP_SRC/tests/e2e/kernel_analysis_lib.sh"
need_sessiond
need_refosd
command -v taskset >/dev/null || skip "taskset is not installed"

# expect_json WHAT JSON EXPR: the Python expression over the report is true.
expect_json() {
	expect_eq "$1 ($3)" True "$(json "$2" "$3")"
}

# check_conservation_path NAME JSON: critical paths computed, each summing
# to its op's latency.
check_conservation_path() {
	local name=$1 j=$2
	expect_eq "$name: critical paths computed" True \
		"$(json "$j" "d['ops']['critical_path_conservation'] is not None and d['ops']['critical_path_conservation']['checked'] > 100")"
	expect_eq "$name: ops whose critical path misses their latency" 0 \
		"$(json "$j" "d['ops']['critical_path_conservation']['violations']")"
}

# compare_paths NAME JSON: each op type's two breakdowns.
compare_paths() {
	local name=$1 j=$2 ty t
	for ty in $(json "$j" "' '.join(d['ops']['by_type'])"); do
		t="d['ops']['by_type']['$ty']"
		echo "$name $ty: latency $(json "$j" "${t}['latency_us']['avg']") us"
		echo "  annotations:   $(json "$j" "${t}['breakdown_us']")"
		echo "  critical path: $(json "$j" "${t}['critical_path_us']")"
		echo "  on the path:   $(json "$j" "[(e['thread'] or e['tid'], e['category'], e['us_per_op']) for e in ${t}['critical_path_top']]")"
		echo "  waits for a CPU: behind a logger, outside a log call $(json "$j" "${t}['critical_path_runqueue_logging_us']"), inside one behind another $(json "$j" "${t}['critical_path_runqueue_in_log_us']")"
		for k in lock_wait cond_wait io; do
			expect_json "$name $ty: $k within 10% of the latency" "$j" \
				"abs(${t}['critical_path_us']['$k'] - ${t}['breakdown_us']['$k']) <= 0.1 * ${t}['latency_us']['avg']"
		done
		# The annotations' view of the path's waits for a CPU: inside a
		# log call of the waiter's, logging; outside, its cpu.
		mv="- ${t}['critical_path_runqueue_logging_us'] + ${t}['critical_path_runqueue_in_log_us']"
		expect_json "$name $ty: logging within 10% of the latency" "$j" \
			"abs(${t}['critical_path_us']['logging'] $mv - ${t}['breakdown_us']['logging']) <= 0.1 * ${t}['latency_us']['avg']"
		expect_json "$name $ty: cpu + queue within 10% of the latency" "$j" \
			"abs(sum(${t}['critical_path_us'][k] for k in ('cpu', 'runqueue', 'queue', 'other')) - ($mv) - sum(${t}['breakdown_us'][k] for k in ('cpu', 'queue', 'other'))) <= 0.1 * ${t}['latency_us']['avg']"
	done
}

for level in 0 20; do
	start_refosd "debug$level" --debug "$level"
	if [ "$level" = 0 ]; then need_kernel_record "$OSD_PID"; fi
	record_refbench "$WORK/debug$level" -t 1 -b 1 -d 3 write
	stop_refosd
	check_conservation "debug $level" "$WORK/debug$level.ops"
	check_conservation_path "debug $level" "$WORK/debug$level.json"
	compare_paths "debug $level" "$WORK/debug$level.json"
	expect_same_piped "debug $level" "$WORK/debug$level"
done

j="$WORK/debug0.json"
# The op split leads with the critical path (docs/methodology.md, "Which
# split leads"): first in the text, split_lead in JSON, and the
# annotations' line after it says what it counts differently.
expect_json "every op type's split is led by its critical path" "$j" \
	"all(t['split_lead'] == 'critical_path' and 'runqueue' in t['annotations_differ'] for t in d['ops']['by_type'].values())"
expect_true "text: the critical path's line comes before the annotations' line" \
	awk '/^             critical path \(kernel events/ { c = NR } /^             annotations \(/ { a = NR } END { exit !(c && a && c < a) }' "$WORK/debug0.txt"
"$CORECAP" html -o "$WORK/debug0.html" "$WORK/debug0" >/dev/null
expect_true "html: the critical path's table comes before the annotations'" \
	awk '/Critical path \(kernel events/ { c = NR } /<h3>Annotations<\/h3>/ { a = NR } END { exit !(c && a && c < a) }' "$WORK/debug0.html"
json "$j" "'\n'.join('  %s -> %s (%s): %.1f ms' % (e['from'], e['to'], e['kind'], e['ms']) for e in d['waitfor']['edges'][:8])"
for edge in tp_osd_tp:msgr-worker finisher:tp_osd_tp; do
	expect_json "wait-for: ${edge%%:*} -> ${edge##*:} (cond) has waits" "$j" \
		"sum(e['ms'] for e in d['waitfor']['edges'] if (e['from'], e['to'], e['kind']) == ('${edge%%:*}', '${edge##*:}', 'cond')) > 1"
done
# A thread whose kernel running time disagrees with its schedstat CPU has
# no kernel_states (docs/report-json.md, threads_schedstat_disagree), but
# its waits are edges still: it counts as asleep the whole window at most.
unstated="sum(1 for t in d['threads'] if not t['kernel_states'])"
sleep_ms="(sum(t['kernel_states']['futex_ns'] + t['kernel_states']['blocked_ns'] for t in d['threads'] if t['kernel_states']) / 1e6 + 1e3 * d['window']['duration_s'] * $unstated)"
json "$j" "'edges %.3f ms, sleeping %.3f ms, threads without kernel states %d' % (sum(e['ms'] for e in d['waitfor']['edges']), $sleep_ms, $unstated)"
expect_json "wait-for: the edges sum to at most the threads' sleeping time" "$j" \
	"sum(e['ms'] for e in d['waitfor']['edges']) <= 1.0001 * $sleep_ms"

# The hog and every thread of the daemon on CPU 0.
taskset -c 0 sh -c 'while :; do :; done' &
hog=$!
track "$hog"
start_refosd hog --debug 0
taskset -a -p -c 0 "$OSD_PID" >/dev/null
record_refbench "$WORK/hog" -t 1 -b 1 -d 3 write
stop_refosd
kill "$hog" 2>/dev/null || true
j="$WORK/hog.json"
check_conservation_path hog "$j"
t="d['ops']['by_type']['write']"
echo "hog ($hog): critical path $(json "$j" "${t}['critical_path_us']")"
echo "  on the path: $(json "$j" "[(e['thread'] or e['tid'], e['category'], e['us_per_op']) for e in ${t}['critical_path_top']]")"
expect_json "hog: runqueue is at least 10% of the latency" "$j" \
	"${t}['critical_path_us']['runqueue'] >= 0.1 * ${t}['latency_us']['avg']"
expect_eq "hog: the largest runqueue holder on the path is the hog ($hog)" "$hog" \
	"$(json "$j" "[e['tid'] for e in ${t}['critical_path_top'] if e['category'] == 'runqueue'][:1]" | tr -d '[]')"
expect_eq "hog: the collector named the hog's thread (HOLDER records)" sh \
	"$(json "$j" "[e['thread'] for e in ${t}['critical_path_top'] if e['tid'] == $hog][0]")"
# The hog is another process: most of the runqueue waited behind other
# processes, and the split sums to the runqueue.
b="${t}['critical_path_runqueue_behind_us']"
echo "  runqueue behind: $(json "$j" "$b")"
expect_json "hog: the runqueue's holders sum to it" "$j" \
	"abs(sum(${b}.values()) - ${t}['critical_path_us']['runqueue']) <= 0.01 + 1e-3 * ${t}['critical_path_us']['runqueue']"
expect_json "hog: over half of the runqueue waited behind other processes" "$j" \
	"${b}['other_processes'] > 0.5 * ${t}['critical_path_us']['runqueue']"
finish
