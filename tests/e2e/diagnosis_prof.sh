#!/usr/bin/env bash
# The profiler out of the findings (issue #41, item 3;
# analysis/model/profiler_own.h). refosd under `corecap run --cpuprofile`
# (the shim, LTTng-UST's listener threads, gperftools' profiler), recorded
# with kernel events and the wall-clock sampler (the collector's ptrace
# stops) while refbench -t 16 runs. By default no row of the pools, the
# threads, the kernel states, the lock tables (shim, futex, idle waits) or
# the wait-for graph, and no line of the folded wall and lock flame graphs,
# names an LTTng-UST thread, LTTng-UST's, gperftools' or libunwind's code
# or shared memory (the tracepoints the daemon inlined are its own code),
# or the collector (as a holder, or "(profiler)": the sampler's wakes), and
# export --chrome has no track of LTTng-UST's threads; with
# --keep-profiler they are back in the pools, the threads, the wall flame
# graph and the timeline. The profiler's cost is stated in the text, the
# JSON (the same figures) and the HTML page.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
. "$CORECAP_SRC/tests/e2e/kernel_analysis_lib.sh"
[ "$(id -u)" = 0 ] || skip "kernel events need root (perf_event_open, tracefs)"
need_sessiond
need_refosd

launch_refosd prof "$CORECAP" run --cpuprofile -- "$REFOSD" --port 0
need_kernel_record "$OSD_PID"
run="$WORK/run"
"$CORECAP" record -q --kernel "${KERNEL_VIA[@]}" --wallclock -p "$OSD_PID" -o "$run" -- \
	"$REFBENCH" -p "$OSD_PORT" --no-progress -t 16 -b 1 -d 3 write >"$run.record.out" 2>&1 ||
	{ echo "FAIL: corecap record failed:"; cat "$run.record.out"; exit 1; }
stop_refosd
comm=$(json "$run/manifest.json" "d['comm']")
col=$(json "$run/manifest.json" "d['collector']['pid']")
ust="${comm:0:11}-ust" # LTTng-UST's listeners: the process's name, cut, then -ust
echo "daemon '$comm', LTTng-UST's threads '$ust', collector pid $col"
expect_true "the run has LTTng-UST's threads ($ust in threads.tsv)" \
	grep -q "	$ust	" "$run/threads.tsv"
expect_true "the run has wall-clock samples" test -s "$run/wall.samples"

for keep in "" --keep-profiler; do
	"$CORECAP" report $keep "$run" >"$run$keep.txt" 2>"$run$keep.err"
	"$CORECAP" report --json $keep "$run" >"$run$keep.json" 2>>"$run$keep.err"
	"$CORECAP" flame --kind wall $keep "$run" >"$run$keep.wall" 2>>"$run$keep.err"
	"$CORECAP" flame --kind lock $keep "$run" >"$run$keep.lock" 2>>"$run$keep.err"
	"$CORECAP" html $keep -o "$run$keep.html" "$run" 2>>"$run$keep.err"
	"$CORECAP" export --chrome --to 1 $keep -o "$run$keep.chrome.json" "$run" 2>>"$run$keep.err"
done
j="$run.json"
# Every name a row of the default report gives, one per line (JSON).
rows() {
	json "$1" "'\n'.join(
		[p['name'] for p in d['pools']] +
		[t['name'] + ' ' + str(t['tid']) for t in d['threads']] +
		[json.dumps(r) for r in d['locks'] + d['lock_rows'] + (d.get('idle_wait_rows') or []) + (d.get('idle_waits') or [])] +
		[e['from'] + ' -> ' + e['to'] for e in d['waitfor']['edges']])"
}
rows "$j" >"$WORK/rows"
expect_calc "the default report has rows ($(wc -l <"$WORK/rows"))" "$(wc -l <"$WORK/rows") > 20"
expect_eq "no pool, thread, lock or wait-for row names LTTng-UST's threads, its, gperftools' or libunwind's code, the collector or the sampler's wakes" "" \
	"$(grep -E -e "$ust|lttng|libprofiler|libunwind|ProfileHandler|corecap-dump|\(profiler\)" "$WORK/rows" || true)"
expect_eq "no lock holder is the collector ($col)" "[]" \
	"$(json "$j" "[h for l in d['locks'] for h in (l['holders'] or []) if h['tid'] == $col]")"
expect_eq "the text's tables name none of them" "" \
	"$(sed '/^data quality/,$d' "$run.txt" | grep -E -e "$ust|lttng|libprofiler|libunwind|\(profiler\)|\? $col " || true)"
expect_eq "the wall flame graph has no LTTng-UST thread nor the profiler's frames" "" \
	"$(grep -E -e "^$ust;|liblttng|libprofiler|libunwind|ProfileHandler" "$run.wall" | head -3 || true)"
expect_true "the wall flame graph has the daemon's threads" grep -q '^finisher;' "$run.wall"
expect_eq "the lock flame graph has no lock or frame of the profiler" "" \
	"$(grep -E -e "liblttng|lttng-ust-wait|libprofiler|libunwind|ProfileHandler" "$run.lock" | head -3 || true)"
expect_true "flame says what it cut" grep -q "the profiler's [0-9]* samples and" "$run.err"

# The cost, once, the same in text and JSON.
p="d['profiler']"
expect_eq "the profiler's threads are LTTng-UST's" True \
	"$(json "$j" "len(${p}['threads']) >= 1 and all(t['name'] == '$ust' for t in ${p}['threads'])")"
expect_eq "its cores are measured (the collector's CPU is in the manifest)" True \
	"$(json "$j" "${p}['cpu_cores'] is not None and ${p}['cpu_cores'] > 0 and ${p}['collector_cpu_cores'] > 0")"
expect_eq "its run-queue wait per op is measured (kernel events)" True \
	"$(json "$j" "${p}['runqueue_us_per_op'] is not None and ${p}['runqueue_us_per_op'] >= 0")"
line=$(grep '^profiler   ' "$run.txt" || true)
echo "$line"
expect_eq "one profiler line in the text" 1 "$(grep -c "corecap's own cost" "$run.txt")"
cores=$(sed -n "s/.*corecap's own cost: \([0-9.]*\) cores.*/\1/p" <<<"$line")
runq=$(sed -n 's/.*; \([0-9.]*\) us per op of run-queue wait behind.*/\1/p' <<<"$line")
expect_calc "text cores $cores = JSON $(json "$j" "${p}['cpu_cores']")" \
	"${cores:-x} != \"\" && (${cores:-0} - $(json "$j" "${p}['cpu_cores']"))^2 <= 0.0055^2"
expect_calc "text runqueue $runq us/op = JSON $(json "$j" "${p}['runqueue_us_per_op']")" \
	"${runq:-x} != \"\" && (${runq:-0} - $(json "$j" "${p}['runqueue_us_per_op']"))^2 <= 0.0505^2"
expect_eq "the JSON's collector cores are the manifest's CPU over the window" True \
	"$(json "$j" "abs(${p}['collector_cpu_cores'] - (json.load(open('$run/manifest.json'))['collector']['cpu_user_s'] + json.load(open('$run/manifest.json'))['collector']['cpu_sys_s']) / d['window']['duration_s']) < 0.002")"
expect_true "the HTML page states it" grep -q "id=\"profiler\".*corecap's own cost: $cores cores" "$run.html"

# --keep-profiler: classified, counted, and shown.
k="$run--keep-profiler"
expect_eq "kept: LTTng-UST's threads are a pool again" True \
	"$(json "$k.json" "any(p['name'] == '$ust' for p in d['pools']) and any(t['name'] == '$ust' for t in d['threads'])")"
expect_eq "kept: the cost is the same" "$(json "$j" "${p}['cpu_cores']")" "$(json "$k.json" "${p}['cpu_cores']")"
expect_eq "kept: the JSON says so" True "$(json "$k.json" "${p}['kept']")"
expect_true "kept: the text says so" grep -q "kept in the tables (--keep-profiler)" "$k.txt"
expect_true "kept: the wall flame graph has LTTng-UST's threads" grep -q "^$ust;" "$k.wall"
# The timeline: LTTng-UST's threads have no track, nor their pool a counter, unless kept.
tracks() {
	json "$1" "sorted(set(e['args']['name'] for e in d['traceEvents'] if e.get('ph') == 'M' and e.get('name') == 'thread_name') | set(k for e in d['traceEvents'] if e.get('ph') == 'C' for k in e.get('args', {})))"
}
expect_eq "export: no track or counter of LTTng-UST's threads" "" \
	"$(tracks "$run.chrome.json" | grep -F "'$ust'" || true)"
expect_true "kept: export has their tracks" grep -qF "'$ust'" <(tracks "$k.chrome.json")
expect_calc "kept: more rows than by default" "$(rows "$k.json" | wc -l) > $(wc -l <"$WORK/rows")"
finish
