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
# with its sign-test interval (bench_interval: 95% or more from 6 rounds
# on; the range below that). Odd rounds run dummy, report, html; even
# rounds html, report, dummy.
#
# usage: bench/report_cpu.sh [-B BUILD_DIR] [-r ROUNDS] [-d SECONDS] [-c CPU] [-n] [-H] [RUN_DIR...]
#   -c: run every measured command on that CPU (bench_measure).
#   -n: record nothing, measure the given run directories only.
# Targets (issue #19): report <= 1.1x the dummy sink, memory flat in trace
# length; html <= 1.2x report.
# A benchmark, not a test: it exits 0 unless it cannot measure at all.
set -euo pipefail
prog=report_cpu
. "$(dirname "$0")/bench_lib.sh"

rounds=5 secs=3 record=1 html=0
bench_option() {
	case $1 in
	n) record=0 ;;
	H) html=1 ;;
	*) return 1 ;;
	esac
}
bench_options "B:r:d:c:nH" "[-B BUILD_DIR] [-r ROUNDS] [-d SECONDS] [-c CPU] [-n] [-H] [RUN_DIR...]" "$@"
shift $((OPTIND - 1))
bench_need "$corecap"
[ "$record" = 0 ] || bench_need "$refosd" "$refbench"
command -v babeltrace2 >/dev/null || { echo "report_cpu: babeltrace2 is not installed" >&2; exit 1; }
[ "$record" = 1 ] || [ $# -gt 0 ] || { echo "report_cpu: -n needs a RUN_DIR" >&2; exit 2; }

bench_work /tmp/corecap-report-cpu.XXXXXX

# record_run DIR: refosd under `corecap run`, recorded while refbench writes.
record_run() {
	local dir=$1 run_opts=() rec_opts=()
	[ "$html" = 1 ] && run_opts=(--cpuprofile) && rec_opts=(--wallclock)
	bench_refosd_start "$corecap" run "${run_opts[@]}" --
	if ! bench_record "$dir" "$secs" --kernel "${rec_opts[@]}"; then
		echo "report_cpu: no kernel events ($(tail -1 "$work/rec.out")): recording without" >&2
		rm -rf "$dir"
		bench_record "$dir" "$secs" "${rec_opts[@]}" ||
			{ echo "report_cpu: corecap record failed:" >&2; cat "$work/rec.out" >&2; exit 1; }
	fi
	bench_refosd_stop
}

# measure CMD...: "user_s maxrss_kb" of the command (its output dropped).
measure() { bench_measure "$@" | awk '{ printf "%.3f %d\n", $1, $3 }'; }

# ratio_line NAME FILE TARGET: the median of FILE's ratios and its interval.
ratio_line() {
	local iv
	iv=$(bench_interval <"$2")
	printf 'ratio %s (user CPU): median %s, interval [%s, %s] (%s%% confidence, sign test); target <= %s\n' \
		"$1" "$(bench_median <"$2")" $iv "$3"
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
		# Even rounds run the three the other way round: no one of them
		# always comes first (a cold cache, a neighbour's burst).
		[ $((r % 2)) = 0 ] && [ "$html" = 1 ] && h=$(measure "$corecap" html -o "$work/page.html" "$dir")
		[ $((r % 2)) = 0 ] && c=$(measure "$corecap" report "$dir")
		b=$(measure babeltrace2 "$dir/trace" -c sink.utils.dummy)
		[ $((r % 2)) = 1 ] && c=$(measure "$corecap" report "$dir")
		echo "$b" >>"$work/bt"
		echo "$c" >>"$work/cc"
		awk -v b="${b% *}" -v c="${c% *}" 'BEGIN { printf "%.3f\n", (b > 0 ? c / b : 0) }' >>"$work/ratio"
		printf '  round %d  babeltrace2 dummy %7.2f s %7d kB   corecap report %7.2f s %7d kB   ratio %s\n' \
			"$r" "${b% *}" "${b#* }" "${c% *}" "${c#* }" "$(tail -1 "$work/ratio")"
		[ "$html" = 1 ] || continue
		[ $((r % 2)) = 1 ] && h=$(measure "$corecap" html -o "$work/page.html" "$dir")
		echo "$h" >>"$work/ht"
		awk -v c="${c% *}" -v h="${h% *}" 'BEGIN { printf "%.3f\n", (c > 0 ? h / c : 0) }' >>"$work/hratio"
		printf '           corecap html %7.2f s %7d kB   html/report %s\n' \
			"${h% *}" "${h#* }" "$(tail -1 "$work/hratio")"
	done
	printf 'median: babeltrace2 dummy %.2f s user, %d kB; corecap report %.2f s user, %d kB\n' \
		"$(cut -d' ' -f1 "$work/bt" | bench_median)" "$(cut -d' ' -f2 "$work/bt" | bench_median)" \
		"$(cut -d' ' -f1 "$work/cc" | bench_median)" "$(cut -d' ' -f2 "$work/cc" | bench_median)"
	ratio_line report/dummy "$work/ratio" 1.1
	[ "$html" = 1 ] || return 0
	printf 'median: corecap html %.2f s user, %d kB\n' \
		"$(cut -d' ' -f1 "$work/ht" | bench_median)" "$(cut -d' ' -f2 "$work/ht" | bench_median)"
	ratio_line html/report "$work/hratio" 1.2
}

bench_main "$@"
