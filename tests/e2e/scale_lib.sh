# Helpers for `corecap scale`'s end-to-end tests (sourced; issue #45).
# shellcheck shell=bash
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"

# affinity PID: each thread's "TID Cpus_allowed_list", one a line, sorted.
affinity() {
	local t
	for t in /proc/"$1"/task/*; do
		echo "${t##*/} $(awk '/^Cpus_allowed_list:/ { print $2 }' "$t/status" 2>/dev/null)"
	done | sort -n
}

# expect_alive PID: the daemon runs and is not stopped (State not T or t).
expect_alive() {
	local st
	st=$(awk '/^State:/ { print $2 }' "/proc/$1/status" 2>/dev/null || true)
	expect_true "the daemon is alive (state '$st')" test -n "$st"
	expect_true "the daemon is not stopped (state '$st')" test "$st" != T -a "$st" != t
}

# scale_points DIR: "CORES IOPS CPU_US" of each measured point of DIR's JSON (DIR.json).
scale_points() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["points"]:
    if p["measured"]:
        print(p["cores"], p["iops"], p["cpu_us_per_op"])' "$1.json"
}

# iops_at DIR N: the throughput measured at N cores.
iops_at() {
	json "$1.json" "[p['iops'] for p in d['points'] if p['cores'] == $2][0]"
}

# skip_if_points_busy DIR MAX: other processes took the CPUs during the
# points too (their `other_cores`, from each run's /proc/stat less the
# daemon and the benchmark): over MAX cores at any point, the test is
# reported skipped with the figure (the check before the points cannot see
# a load that starts during them).
skip_if_points_busy() {
	local worst
	worst=$(json "$1.json" "max(p['other_cores'] or 0 for p in d['points'])")
	echo "others during the points: at most $worst cores"
	[ "$(calc "$worst <= $2")" = 1 ] ||
		skip "other processes took $worst cores during a point (over $2): its throughput is theirs as much as the daemon's"
}
