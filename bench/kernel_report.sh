#!/usr/bin/env bash
# kernel_report: the analysis time of `corecap report RUN` on a run with
# kernel events over that of the same report without them (a copy of RUN
# whose kernel/ directory is left out: the kernel states, the futex lock
# table, the ops' critical paths and the wait-for graph are what the
# difference pays for), in alternating rounds, with the medians and the
# median of the rounds' ratios with its sign-test interval
# (bench_interval): wall time, what the user waits, and user CPU beside
# it. It records a run of its own first (refosd under `corecap run`,
# `corecap record --kernel` while refbench writes for SECONDS, as
# bench/report_cpu.sh does); run directories given as arguments are
# measured too.
#
# On two CPUs or more a report reads its trace on a thread of its own
# (analysis/read/trace_pipe.h): the kernel events' work runs beside
# libbabeltrace2's decoding, so wall time falls while user CPU does not.
# With one CPU (-c 0) it reads unpiped, and the two ratios meet.
#
# usage: bench/kernel_report.sh [-B BUILD_DIR] [-r ROUNDS] [-d SECONDS] [-c CPUS] [-n] [RUN_DIR...]
#   -c: run every measured command on those CPUs (bench_measure), e.g. 0,1.
#   -n: record nothing, measure the given run directories only.
# Target (issue #13): with kernel events at most 1.3x the report without,
# in wall time.
# A benchmark, not a test: it exits 0 unless it cannot measure at all.
set -euo pipefail
prog=kernel_report
. "$(dirname "$0")/bench_lib.sh"

rounds=5 secs=3 record=1
bench_option() { case $1 in n) record=0 ;; *) return 1 ;; esac; }
bench_options "B:r:d:c:n" "[-B BUILD_DIR] [-r ROUNDS] [-d SECONDS] [-c CPU] [-n] [RUN_DIR...]" "$@"
shift $((OPTIND - 1))
bench_need "$corecap"
[ "$record" = 0 ] || bench_need "$refosd" "$refbench"
[ "$record" = 1 ] || [ $# -gt 0 ] || { echo "kernel_report: -n needs a RUN_DIR" >&2; exit 2; }

bench_work /tmp/corecap-kernel-report.XXXXXX

# record_run DIR: refosd under `corecap run`, recorded with kernel events
# while refbench writes.
record_run() {
	bench_refosd_start "$corecap" run --
	bench_record "$1" "$secs" --kernel ||
		{ echo "kernel_report: corecap record --kernel failed:" >&2; tail -3 "$work/rec.out" >&2; exit 1; }
	bench_refosd_stop
}

# measure CMD...: the command's "wall_s user_s" (its output dropped).
measure() { bench_measure "$@" | awk '{ printf "%.3f %.3f\n", $4, $1 }'; }

# summary WHAT FILE_B FILE_K FILE_RATIO: the medians and the ratio's.
summary() {
	printf '%s: median without %.2f s, with %.2f s; ratio with/without kernel events: median %s, interval [%s, %s] (%s%% confidence, sign test)\n' \
		"$1" "$(bench_median <"$2")" "$(bench_median <"$3")" "$(bench_median <"$4")" $(bench_interval <"$4")
}

bench_run() {
	local dir=$1 bare="$work/bare.$RANDOM" r k b f
	[ -d "$dir/kernel" ] || { echo "kernel_report: '$dir' has no kernel directory" >&2; exit 1; }
	# The copy without kernel/: every other file linked, not copied.
	mkdir "$bare"
	for f in "$dir"/*; do
		[ "$(basename "$f")" = kernel ] || cp -al "$f" "$bare/" 2>/dev/null || cp -a "$f" "$bare/"
	done
	for f in kw ku bw bu rw ru; do : >"$work/$f"; done
	echo "kernel_report: $dir (kernel events $(du -sm "$dir/kernel" | cut -f1) MB); $rounds alternating rounds"
	for r in $(seq 1 "$rounds"); do
		# Odd rounds without first, even rounds with first.
		[ $((r % 2)) = 0 ] && k=$(measure "$corecap" report "$dir")
		b=$(measure "$corecap" report "$bare")
		[ $((r % 2)) = 1 ] && k=$(measure "$corecap" report "$dir")
		echo "${k% *}" >>"$work/kw"
		echo "${k#* }" >>"$work/ku"
		echo "${b% *}" >>"$work/bw"
		echo "${b#* }" >>"$work/bu"
		awk -v b="${b% *}" -v k="${k% *}" 'BEGIN { printf "%.3f\n", (b > 0 ? k / b : 0) }' >>"$work/rw"
		awk -v b="${b#* }" -v k="${k#* }" 'BEGIN { printf "%.3f\n", (b > 0 ? k / b : 0) }' >>"$work/ru"
		printf '  round %d  without kernel events %5.2f s wall %5.2f s user   with %5.2f s wall %5.2f s user   ratio %s wall %s user\n' \
			"$r" "${b% *}" "${b#* }" "${k% *}" "${k#* }" "$(tail -1 "$work/rw")" "$(tail -1 "$work/ru")"
	done
	summary "wall time" "$work/bw" "$work/kw" "$work/rw"
	summary "user CPU" "$work/bu" "$work/ku" "$work/ru"
	echo "target: wall time ratio <= 1.3"
	rm -rf "$bare"
}

bench_main "$@"
