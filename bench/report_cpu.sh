#!/usr/bin/env bash
# report_cpu: the user CPU time of `corecap report RUN` over that of
# `babeltrace2 RUN/trace -c sink.utils.dummy` (the floor of any
# libbabeltrace2 reader) on the same trace, in alternating rounds, with
# each one's peak RSS. It records a run of its own first: refosd under
# `corecap run`, `corecap record --kernel` (plain `record` if the kernel
# events cannot be recorded) while refbench writes for SECONDS; run
# directories given as arguments are measured too. User CPU, not wall
# time: on a loaded machine it is what holds still.
#
# -H also measures `corecap html RUN` (the report, the four flame graphs
# and the charts) against `corecap report RUN`, alternating in the same
# rounds; the run it records then has every flame graph's source
# (`corecap run --cpuprofile`, `corecap record --wallclock`).
#
# Prints every round, the medians, and the median of the rounds' ratios
# with its interval: the smallest and largest ratio, which hold the true
# median ratio with the confidence printed (1 - 2^(1-ROUNDS)).
#
# usage: bench/report_cpu.sh [-B BUILD_DIR] [-r ROUNDS] [-d SECONDS] [-n] [-H] [RUN_DIR...]
#   -n: record nothing, measure the given run directories only.
# Targets (issue #19): report <= 1.1x the dummy sink, memory flat in trace
# length; html <= 1.2x report.
# A benchmark, not a test: it exits 0 unless it cannot measure at all.
set -euo pipefail

build=${CORECAP_BUILD:-$(cd "$(dirname "$0")/.." && pwd)/build}
rounds=5
secs=3
record=1
html=0
while getopts "B:r:d:nH" o; do
	case $o in
	B) build=$OPTARG ;;
	r) rounds=$OPTARG ;;
	d) secs=$OPTARG ;;
	n) record=0 ;;
	H) html=1 ;;
	*) echo "usage: $0 [-B BUILD_DIR] [-r ROUNDS] [-d SECONDS] [-n] [-H] [RUN_DIR...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
corecap="$build/cli/corecap"
refosd="$build/tests/refosd/refosd"
refbench="$build/tests/refosd/refbench"
need=("$corecap")
[ "$record" = 1 ] && need+=("$refosd" "$refbench")
for f in "${need[@]}"; do
	[ -x "$f" ] || { echo "report_cpu: cannot find '$f' (build first, or -B BUILD_DIR)" >&2; exit 1; }
done
command -v babeltrace2 >/dev/null || { echo "report_cpu: babeltrace2 is not installed" >&2; exit 1; }
[ "$record" = 1 ] || [ $# -gt 0 ] || { echo "report_cpu: -n needs a RUN_DIR" >&2; exit 2; }

work=$(mktemp -d /tmp/corecap-report-cpu.XXXXXX)
pid=""
cleanup() {
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# record_run DIR: refosd under `corecap run`, recorded while refbench writes.
record_run() {
	local dir=$1 port="" i run_opts=() rec_opts=()
	[ "$html" = 1 ] && run_opts=(--cpuprofile) && rec_opts=(--wallclock)
	: >"$work/osd.out"
	"$corecap" run "${run_opts[@]}" -- "$refosd" --port 0 >"$work/osd.out" 2>"$work/osd.err" &
	pid=$!
	for i in $(seq 1 200); do
		port=$(sed -n 's/^refosd: listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$work/osd.out")
		[ -n "$port" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	[ -n "$port" ] || { echo "report_cpu: refosd did not start:" >&2; cat "$work/osd.err" >&2; exit 1; }
	if ! "$corecap" record -q --kernel "${rec_opts[@]}" -p "$pid" -o "$dir" -- \
		"$refbench" -p "$port" --no-progress -t 16 -b 1 -d "$secs" write >"$work/rec.out" 2>&1; then
		echo "report_cpu: no kernel events ($(tail -1 "$work/rec.out")): recording without" >&2
		rm -rf "$dir"
		"$corecap" record -q "${rec_opts[@]}" -p "$pid" -o "$dir" -- \
			"$refbench" -p "$port" --no-progress -t 16 -b 1 -d "$secs" write >"$work/rec.out" 2>&1 ||
			{ echo "report_cpu: corecap record failed:" >&2; cat "$work/rec.out" >&2; exit 1; }
	fi
	kill -TERM "$pid"
	wait "$pid" 2>/dev/null || true
	pid=""
}

# measure CMD...: "user_s maxrss_kb" of the command (its output dropped), from wait4.
measure() {
	python3 -c '
import os, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, status, ru = os.wait4(p.pid, 0)
if os.waitstatus_to_exitcode(status):
    sys.exit("report_cpu: failed: " + " ".join(sys.argv[1:]))
print("%.3f %d" % (ru.ru_utime, ru.ru_maxrss))' "$@"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# ratio_line NAME FILE TARGET: the median of FILE's ratios and their interval.
ratio_line() {
	printf 'ratio %s (user CPU): median %s, interval [%s, %s] (%.0f%% confidence); target <= %s\n' \
		"$1" "$(median <"$2")" "$(sort -g "$2" | head -1)" "$(sort -g "$2" | tail -1)" \
		"$(awk -v n="$rounds" 'BEGIN { print 100 * (1 - 2 ^ (1 - n)) }')" "$3"
}

bench_run() {
	local dir=$1 r b c h
	[ -d "$dir/trace" ] || { echo "report_cpu: '$dir' has no trace directory" >&2; exit 1; }
	: >"$work/bt"
	: >"$work/cc"
	: >"$work/ht"
	: >"$work/ratio"
	: >"$work/hratio"
	echo "report_cpu: $dir (trace $(du -sm "$dir/trace" | cut -f1) MB, kernel events" \
		"$(du -sm "$dir/kernel" 2>/dev/null | cut -f1 || echo 0) MB); $rounds alternating rounds"
	if [ "$html" = 1 ]; then
		# Once unmeasured, for what the page holds ("wrote FILE (N flame graphs)").
		"$corecap" html -o "$work/page.html" "$dir" >/dev/null 2>"$work/html.err" ||
			{ echo "report_cpu: corecap html failed:" >&2; cat "$work/html.err" >&2; exit 1; }
		echo "  html: $(grep -o '[0-9]* flame graphs' "$work/html.err" || echo "no flame graph")"
	fi
	for r in $(seq 1 "$rounds"); do
		b=$(measure babeltrace2 "$dir/trace" -c sink.utils.dummy)
		c=$(measure "$corecap" report "$dir")
		echo "$b" >>"$work/bt"
		echo "$c" >>"$work/cc"
		awk -v b="${b% *}" -v c="${c% *}" 'BEGIN { printf "%.3f\n", (b > 0 ? c / b : 0) }' >>"$work/ratio"
		printf '  round %d  babeltrace2 dummy %7.2f s %7d kB   corecap report %7.2f s %7d kB   ratio %s\n' \
			"$r" "${b% *}" "${b#* }" "${c% *}" "${c#* }" "$(tail -1 "$work/ratio")"
		[ "$html" = 1 ] || continue
		h=$(measure "$corecap" html -o "$work/page.html" "$dir")
		echo "$h" >>"$work/ht"
		awk -v c="${c% *}" -v h="${h% *}" 'BEGIN { printf "%.3f\n", (c > 0 ? h / c : 0) }' >>"$work/hratio"
		printf '           corecap html %7.2f s %7d kB   html/report %s\n' \
			"${h% *}" "${h#* }" "$(tail -1 "$work/hratio")"
	done
	printf 'median: babeltrace2 dummy %.2f s user, %d kB; corecap report %.2f s user, %d kB\n' \
		"$(cut -d' ' -f1 "$work/bt" | median)" "$(cut -d' ' -f2 "$work/bt" | median)" \
		"$(cut -d' ' -f1 "$work/cc" | median)" "$(cut -d' ' -f2 "$work/cc" | median)"
	ratio_line report/dummy "$work/ratio" 1.1
	[ "$html" = 1 ] || return 0
	printf 'median: corecap html %.2f s user, %d kB\n' \
		"$(cut -d' ' -f1 "$work/ht" | median)" "$(cut -d' ' -f2 "$work/ht" | median)"
	ratio_line html/report "$work/hratio" 1.2
}

if [ "$record" = 1 ]; then
	record_run "$work/run"
	bench_run "$work/run"
fi
for d in "$@"; do
	bench_run "$d"
done
