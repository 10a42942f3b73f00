#!/usr/bin/env bash
# The diagnosis' known answer on a real Ceph OSD (issue #41, docs/ceph.md,
# "The diagnosis of a bare memstore OSD"): one bare ceph-osd (no shim, as
# a user's daemon runs) recorded with kernel events while `rados bench
# write -b 4096` runs 2 s at -t 1, then with the wall-clock sampler (its
# ptrace stops) at -t 16. For each run the text, JSON and HTML reports:
#  - name one cause (diagnosis.kind, one DIAGNOSIS line) and agree
#    (diagnosis_diag_agree.py); at -t 1 the closed loop (about one op in
#    flight); at -t 16 a saturated resource of the daemon or the cores,
#    never the closed loop (16 in flight) nor "nothing saturated";
#  - lead the OpTracker write's split with its critical path (text: its
#    line before the phases', JSON split_lead, HTML: its table before the
#    phases'), whose `queue` (no thread of the daemon had the op) is at
#    most 15% of the latency;
#  - have no row (pool, thread, lock, idle wait, wait-for edge, critical
#    path pair, flame frame) of the profiler: LTTng-UST's threads or code,
#    the shim's, gperftools', libunwind's, or the collector's threads.
set -uo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
. "$CORECAP_SRC/tests/e2e/ceph_lib.sh"
ceph_need_tools
ceph_work diagnosis-ceph
. "$CORECAP_SRC/tests/e2e/kernel_analysis_lib.sh"

base=$(ceph_free_base 48589) || skip "no free port range found for the cluster"
ceph_start osd "$base"
pid=$(cat "$work/osd/osd.0.pid")
need_kernel_record "$pid"

# record RUN THREADS [record options]: 2 s of 4 KiB writes at -t THREADS;
# RUN.tids: the collector's thread ids, seen in /proc while it ran (other
# corecap processes on the box are other processes, not this run's).
record() {
	local run=$1 threads=$2 rc=0
	shift 2
	(
		eval "$("$mc" env "$work/osd")"
		"$CORECAP" record -q --kernel "$@" -p "$pid" -o "$run" -- \
			rados -p bench bench 2 write -b 4096 -t "$threads" --no-cleanup &
		rp=$!
		while kill -0 "$rp" 2>/dev/null; do
			ls "/proc/$rp/task" >>"$run.tids" 2>/dev/null
			sleep 0.2
		done
		wait "$rp"
	) >"$run.out" 2>"$run.err" || rc=$?
	sort -u -o "$run.tids" "$run.tids"
	expect_eq "$(basename "$run"): record exits (at $SECONDS s)" 0 "$rc"
	[ "$rc" -eq 0 ] || { tail -n 5 "$run.err"; finish; exit 1; }
}

# check RUN ALLOWED_KINDS: the checks above on one run.
check() {
	local run=$1 allowed=$2 name rc=0 kind col p1 p2 p3
	name=$(basename "$run")
	# The three at once (each reads the whole run), as lib.sh's check of every run.
	"$CORECAP" report "$run" >"$run.txt" 2>"$run.report.err" &
	p1=$!
	"$CORECAP" report --json "$run" >"$run.json" 2>"$run.json.err" &
	p2=$!
	"$CORECAP" html -o "$run.html" "$run" 2>"$run.html.err" &
	p3=$!
	wait "$p1" || rc=$?
	wait "$p2" || rc=$?
	wait "$p3" || rc=$?
	echo "$name: rendered at $SECONDS s"
	expect_eq "$name: report, report --json and html exit 0" 0 "$rc"
	[ "$rc" -eq 0 ] || { cat "$run.report.err" "$run.json.err" "$run.html.err"; return; }

	# One cause, said the same way in the three.
	kind=$(json "$run.json" "d['diagnosis']['kind']")
	echo "$name: $(grep '^DIAGNOSIS' "$run.txt")"
	s="d['benchmark']['summary']"
	echo "$name: $(json "$run.json" "'%.0f IOPS, ops in flight %.2f; cores %s' % ($s['iops_avg'], $s['iops_avg'] * $s['lat_avg_s'], d['diagnosis']['cores'])")"
	[ "$kind" = closed_loop ] && expect_eq "$name: the closed loop keeps under 1.5 ops in flight" True \
		"$(json "$run.json" "$s['iops_avg'] * $s['lat_avg_s'] < 1.5")"
	expect_eq "$name: one DIAGNOSIS line" 1 "$(grep -c '^DIAGNOSIS' "$run.txt")"
	expect_true "$name: the cause ($kind) is one of: $allowed" grep -qw -- "$kind" <<<"$allowed"
	expect_true "$name: text, JSON and HTML say the same diagnosis" \
		python3 "$CORECAP_SRC/tests/e2e/diagnosis_diag_agree.py" "$run.txt" "$run.json" "$run.html"

	# The OpTracker write's split, led by its critical path.
	w="[t for t in d['ceph']['optracker']['types'] if t['type'] == 'write'][0]"
	echo "$name: write critical path $(json "$run.json" "$w['critical_path']['us']"), latency $(json "$run.json" "$w['critical_path']['lat_avg_us']") us"
	expect_eq "$name: JSON: the write's split is led by its critical path (of 100 ops or more)" True \
		"$(json "$run.json" "$w['split_lead'] == 'critical_path' and $w['critical_path']['ops'] >= 100 and bool($w['phases_differ'])")"
	expect_eq "$name: the critical path's queue is at most 15% of the write's latency" True \
		"$(json "$run.json" "$w['critical_path']['us']['queue'] <= 0.15 * $w['critical_path']['lat_avg_us']")"
	expect_true "$name: text: the write's critical path line comes before its phases'" \
		awk '/^           write: / { w = NR } w && !c && /^             critical path of / { c = NR }
			w && !p && /^             phases \(the OpTracker/ { p = NR } END { exit !(w && c && p && c < p) }' "$run.txt"
	expect_true "$name: HTML: the write's critical path table comes before its phases' and the sampled categories" \
		awk '/<h3>Critical path of write / { c = NR } /<h3>Phases of write / { p = NR }
			/<p>Categories from wall-clock samples/ { s = NR } END { exit !(c && p && c < p && (!s || c < s)) }' "$run.html"

	# No row of the profiler.
	col=$(json "$run/manifest.json" "d['collector']['pid']")
	json "$run.json" "'\n'.join(
		[p['name'] for p in d['pools']] +
		[t['name'] + ' ' + str(t['tid']) for t in d['threads']] +
		[json.dumps(r) for r in d['locks'] + d['lock_rows'] + (d.get('idle_wait_rows') or []) + (d.get('idle_waits') or [])] +
		[e['from'] + ' -> ' + e['to'] for e in d['waitfor']['edges']] +
		[json.dumps(t['critical_path']) for t in d['ceph']['optracker']['types']])" >"$run.rows"
	expect_calc "$name: the report has rows ($(wc -l <"$run.rows"))" "$(wc -l <"$run.rows") > 20"
	expect_eq "$name: JSON: no row names LTTng-UST, the shim, gperftools or libunwind" "" \
		"$(grep -E -e 'ceph-osd-ust|lttng|libcorecap|libprofiler|libunwind|\(profiler\)' "$run.rows" | head -3 || true)"
	expect_true "$name: the collector's threads are known ($(wc -l <"$run.tids"), pid $col among them)" \
		grep -qx "$col" "$run.tids"
	expect_eq "$name: JSON: no row is a thread of the collector (a holder, an edge, a critical-path pair)" "" \
		"$(grep -o -E '"(tid|holder)": [0-9]+' "$run.rows" | grep -o '[0-9]*$' | grep -Fx -f "$run.tids" | head -3 || true)"
	expect_eq "$name: text: no table names them, nor a thread of the collector" "" \
		"$(sed '/^profiler   /d; /^data quality/,$d' "$run.txt" |
			grep -E -o -e 'ceph-osd-ust|lttng|libcorecap|libprofiler|libunwind|\(profiler\)|[a-z?_-]+ [0-9]+ (cpu|runqueue)|\? [0-9]+ ' |
			grep -E -e 'ust|lib|profiler' -e " ($(paste -sd'|' "$run.tids")) " | head -3 || true)"
	expect_eq "$name: HTML: no table or flame frame names them" "" \
		"$(grep -v 'id="profiler"' "$run.html" |
			grep -o -E -e '.{0,40}(ceph-osd-ust|lttng-ust|liblttng|libcorecap|libprofiler|libunwind|<td>corecap</td>|\(profiler\)).{0,40}' | head -3 || true)"
}

record "$work/t1" 1
check "$work/t1" "closed_loop"
record "$work/t16" 16 --wallclock --wallclock-via ptrace
"$CORECAP" flame --kind wall "$work/t16" >"$work/t16.wall" 2>"$work/t16.wall.err"
expect_eq "t16: the wall flame graph has no LTTng-UST thread nor the profiler's frames" "" \
	"$(grep -E -e '^ceph-osd-ust;|liblttng|libcorecap|libprofiler|libunwind' "$work/t16.wall" | head -3 || true)"
expect_true "t16: the wall flame graph has the daemon's threads" grep -q '^tp_osd_tp;' "$work/t16.wall"
check "$work/t16" "cores lock thread pool"
finish
