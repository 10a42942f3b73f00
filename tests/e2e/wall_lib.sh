# Helpers of the wall-clock samplers' accuracy tests (sourced): wallshare
# (tests/wallshare/wallshare.c) runs threads whose shares of any window on
# a CPU, runnable and blocked are known; these start it on two CPUs of
# this machine and read a run's wall samples per thread and per phase.
# shellcheck shell=bash
. "${CORECAP_SRC:?CORECAP_SRC is not set}/tests/e2e/lib.sh"

CORECAP="${CORECAP_BUILD:?CORECAP_BUILD is not set}/cli/corecap"
WALLSHARE="$CORECAP_BUILD/tests/wallshare/wallshare"
for _b in "$CORECAP" "$WALLSHARE"; do
	[ -x "$_b" ] || { echo "FAIL: $_b is not built"; exit 1; }
done
command -v python3 >/dev/null || skip "python3 is not installed (the shares' count)"
[ "$(id -u)" = 0 ] || skip "wallshare is recorded as root (ptrace of a process not our child, perf events)"

e2e_workdir wall

# The two CPUs wallshare runs on: PAIR_CPU (the two spinners) and
# OTHER_CPU (the rest), the first two this test may run on.
read -r PAIR_CPU OTHER_CPU < <(python3 -c 'import os; c = sorted(os.sched_getaffinity(0)); print(*c[:2]) if len(c) >= 2 else None')
[ -n "${OTHER_CPU:-}" ] || skip "wallshare needs two CPUs (two spinners share one, the rest the other)"

# start_wallshare: runs wallshare, waits for its "ready"; sets WS_PID.
start_wallshare() {
	local i
	"$WALLSHARE" "$PAIR_CPU" "$OTHER_CPU" >"$WORK/ws.out" 2>"$WORK/ws.err" &
	track $!
	for i in $(seq 1 100); do
		grep -q '^ready$' "$WORK/ws.out" 2>/dev/null && break
		sleep 0.05
	done
	WS_PID=$(sed -n 's/^pid //p' "$WORK/ws.out")
	[ -n "$WS_PID" ] && grep -q '^ready$' "$WORK/ws.out" ||
		{ echo "FAIL: wallshare did not start:"; cat "$WORK/ws.err"; exit 1; }
}

# expect_unharmed: wallshare is alive, not stopped, not traced.
expect_unharmed() {
	local state
	state=$(awk '/^State:/ { print $2 }' "/proc/$WS_PID/status" 2>/dev/null)
	expect_true "wallshare is alive and not stopped (State ${state:-gone})" \
		test -n "$state" -a "$state" != T -a "$state" != t
	expect_eq "wallshare is detached" 0 "$(awk '/^TracerPid:/ { print $2 }' "/proc/$WS_PID/status" 2>/dev/null)"
}

# expect_coverage_warning RUN FLAME_ERR: the uneven-coverage warning on a
# run whose threads were covered evenly, and its bound on copies of the
# run: `flame` (its standard error in FLAME_ERR), `report`, its JSON and
# its HTML do not call the run's coverage uneven; on copies whose manifest
# says the coverage was uneven by 20% (the lowest coverage 80% of the
# highest) they do not either, and by more they do, in each of them.
expect_coverage_warning() {
	local run=$1 uneven="the wall-clock sampler covered its threads unevenly"
	expect_eq "flame does not call the coverage uneven" 0 "$(grep -c "$uneven" "$2")"
	"$CORECAP" report "$run" >"$WORK/report.txt" 2>/dev/null
	"$CORECAP" report --json "$run" >"$WORK/report.json" 2>/dev/null
	"$CORECAP" html "$run" -o "$WORK/report.html" 2>/dev/null
	expect_eq "nor do the report, its JSON and its HTML" 0 \
		"$(cat "$WORK/report.txt" "$WORK/report.json" "$WORK/report.html" | grep -c "$uneven")"
	_coverage_copy "$run" at20 720 900
	expect_eq "uneven by 20% (72.0% and 90.0%): no warning anywhere" 0 \
		"$(cat "$WORK/at20.txt" "$WORK/at20.json" "$WORK/at20.html" "$WORK/at20.flame.err" | grep -c "$uneven")"
	_coverage_copy "$run" over20 719 900
	expect_true "uneven by more (71.9% and 90.0%): the report says so" \
		grep -qF "$uneven: one got 71.9% of the samples due to it, another 90.0%" "$WORK/over20.txt"
	expect_eq "... its JSON quality.warnings" 1 "$(json "$WORK/over20.json" \
		"sum(1 for x in d['quality']['warnings'] if x.startswith('$uneven: one got 71.9%'))")"
	expect_true "... its HTML" grep -qF "$uneven: one got 71.9%" "$WORK/over20.html"
	expect_true "... and flame" grep -qF "$uneven: one got 71.9%" "$WORK/over20.flame.err"
	rm -rf "$WORK/at20" "$WORK/over20" # forged: not runs for e2e_check_runs
}

# _coverage_copy RUN NAME MIN_PM MAX_PM: a copy of RUN as $WORK/NAME whose
# manifest says its threads' coverage ranged from MIN_PM to MAX_PM per
# mille, and its report (text, JSON, HTML) and flame's standard error.
_coverage_copy() {
	cp -a "$1" "$WORK/$2"
	python3 - "$WORK/$2/manifest.json" "$3" "$4" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["wallclock"]["thread_coverage_min_pm"] = int(sys.argv[2])
m["wallclock"]["thread_coverage_max_pm"] = int(sys.argv[3])
json.dump(m, open(sys.argv[1], "w"))
PY
	"$CORECAP" report "$WORK/$2" >"$WORK/$2.txt" 2>/dev/null
	"$CORECAP" report --json "$WORK/$2" >"$WORK/$2.json" 2>/dev/null
	"$CORECAP" html "$WORK/$2" -o "$WORK/$2.html" 2>/dev/null
	"$CORECAP" flame "$WORK/$2" --kind wall >/dev/null 2>"$WORK/$2.flame.err"
}

# wall_shares RUN FOLDED: one line per thread (the folded stacks' root
# frame): its name, its samples, and for each phase (spin_until,
# sleep_until, futex_wait_until, futex_wait_woken, main_wait, other: the
# first of them in the stack) its samples; then, from threads.tsv, its
# share of the window on a CPU (run) and runnable (wait).
wall_shares() {
	python3 - "$1" "$2" <<'PY'
import collections, csv, sys
run, folded = sys.argv[1:3]
phases = ["spin_until", "sleep_until", "futex_wait_until", "futex_wait_woken", "main_wait", "other"]
n = collections.defaultdict(collections.Counter)
for line in open(folded):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    frames = stack.split(";")
    names = [f.split(" ")[0].split("+")[0] for f in frames[1:]]
    phase = next((p for p in phases if p in names), "other")
    n[frames[0]][phase] += int(count)
rows = collections.defaultdict(list)
for r in csv.DictReader(open(run + "/threads.tsv"), delimiter="\t"):
    rows[r["comm"]].append(r)
for t in sorted(n):
    first, last = rows[t][0], rows[t][-1]
    dt = int(last["time_ns"]) - int(first["time_ns"])
    run_share = (int(last["run_ns"]) - int(first["run_ns"])) / dt if dt > 0 else -1
    wait_share = (int(last["wait_ns"]) - int(first["wait_ns"])) / dt if dt > 0 else -1
    print(t, sum(n[t].values()), *(n[t][p] for p in phases), "%.4f %.4f" % (run_share, wait_share))
PY
}
