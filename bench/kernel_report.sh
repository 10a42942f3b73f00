#!/usr/bin/env bash
# kernel_report: the user CPU time of `corecap report RUN` on a run with
# kernel events over that of the same report without them (a copy of RUN
# whose kernel/ directory is left out: the kernel states, the futex lock
# table, the ops' critical paths and the wait-for graph are what the
# difference pays for), in alternating rounds, with the medians and the
# median of the rounds' ratios with its sign-test interval
# (bench_interval). It records a run of its own first (refosd
# under `corecap run`, `corecap record --kernel` while refbench writes for
# SECONDS, as bench/report_cpu.sh does); run directories given as
# arguments are measured too. User CPU, not wall time: on a loaded machine
# it is what holds still.
#
# usage: bench/kernel_report.sh [-B BUILD_DIR] [-r ROUNDS] [-d SECONDS] [-c CPU] [-n] [RUN_DIR...]
#   -c: run every measured command on that CPU (bench_measure).
#   -n: record nothing, measure the given run directories only.
# Target (issue #13): with kernel events at most 1.3x the report without.
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

# measure CMD...: the command's user CPU seconds (its output dropped).
measure() { bench_measure "$@" | awk '{ printf "%.3f\n", $1 }'; }

bench_run() {
	local dir=$1 bare="$work/bare.$RANDOM" r k b f
	[ -d "$dir/kernel" ] || { echo "kernel_report: '$dir' has no kernel directory" >&2; exit 1; }
	# The copy without kernel/: every other file linked, not copied.
	mkdir "$bare"
	for f in "$dir"/*; do
		[ "$(basename "$f")" = kernel ] || cp -al "$f" "$bare/" 2>/dev/null || cp -a "$f" "$bare/"
	done
	: >"$work/k"
	: >"$work/b"
	: >"$work/ratio"
	echo "kernel_report: $dir (kernel events $(du -sm "$dir/kernel" | cut -f1) MB); $rounds alternating rounds"
	for r in $(seq 1 "$rounds"); do
		# Odd rounds without first, even rounds with first.
		[ $((r % 2)) = 0 ] && k=$(measure "$corecap" report "$dir")
		b=$(measure "$corecap" report "$bare")
		[ $((r % 2)) = 1 ] && k=$(measure "$corecap" report "$dir")
		echo "$b" >>"$work/b"
		echo "$k" >>"$work/k"
		awk -v b="$b" -v k="$k" 'BEGIN { printf "%.3f\n", (b > 0 ? k / b : 0) }' >>"$work/ratio"
		printf '  round %d  without kernel events %7.2f s   with %7.2f s   ratio %s\n' \
			"$r" "$b" "$k" "$(tail -1 "$work/ratio")"
	done
	printf 'median: without %.2f s user, with %.2f s user\n' "$(bench_median <"$work/b")" "$(bench_median <"$work/k")"
	printf 'ratio with/without kernel events (user CPU): median %s, interval [%s, %s] (%s%% confidence, sign test); target <= 1.3\n' \
		"$(bench_median <"$work/ratio")" $(bench_interval <"$work/ratio")
	rm -rf "$bare"
}

bench_main "$@"
