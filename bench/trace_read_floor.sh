#!/usr/bin/env bash
# trace_read_floor: what babeltrace2's muxer costs of its read of a run's
# trace (issue 48's floor). Three reads of RUN/trace, pinned to one CPU,
# in alternating rounds (odd rounds in this order, even rounds the other
# way round): `babeltrace2 RUN/trace -c sink.utils.dummy` (the target's
# denominator), bench/trace_read_floor mux (the same graph built by hand:
# a check that it costs what the CLI's does) and trace_read_floor nomux
# (each stream into a dummy sink of its own, no muxer). Prints every
# round, the medians and the median of the ratios nomux/dummy and
# mux/dummy with their sign-test intervals.
#
# usage: bench/trace_read_floor.sh [-B BUILD_DIR] [-r ROUNDS] [-c CPU] RUN_DIR...
# A benchmark, not a test: it exits 0 unless it cannot measure at all.
set -euo pipefail
prog=trace_read_floor
. "$(dirname "$0")/bench_lib.sh"

rounds=7 record=0
bench_option() { return 1; }
bench_options "B:r:c:" "[-B BUILD_DIR] [-r ROUNDS] [-c CPU] RUN_DIR..." "$@"
shift $((OPTIND - 1))
floor=$build/bench/trace_read_floor
bench_need "$floor"
command -v babeltrace2 >/dev/null || { echo "$prog: babeltrace2 is not installed" >&2; exit 1; }
[ $# -gt 0 ] || { echo "$prog: give a RUN_DIR" >&2; exit 2; }
bench_work /tmp/corecap-trace-read-floor.XXXXXX

measure() { bench_measure "$@" | awk '{ printf "%.3f\n", $1 + $2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f\n", (b > 0 ? a / b : 0) }'; }
bench_run() {
	local dir=$1 r b m n f
	[ -d "$dir/trace" ] || { echo "$prog: '$dir' has no trace directory" >&2; exit 1; }
	for f in bt mux nomux nb mb; do : >"$work/$f"; done
	echo "$prog: $dir (trace $(du -sm "$dir/trace" | cut -f1) MB); $rounds alternating rounds"
	for r in $(seq 1 "$rounds"); do
		if [ $((r % 2)) = 1 ]; then
			b=$(measure babeltrace2 "$dir/trace" -c sink.utils.dummy)
			m=$(measure "$floor" mux "$dir/trace")
			n=$(measure "$floor" nomux "$dir/trace")
		else
			n=$(measure "$floor" nomux "$dir/trace")
			m=$(measure "$floor" mux "$dir/trace")
			b=$(measure babeltrace2 "$dir/trace" -c sink.utils.dummy)
		fi
		echo "$b" >>"$work/bt"
		echo "$m" >>"$work/mux"
		echo "$n" >>"$work/nomux"
		ratio "$n" "$b" >>"$work/nb"
		ratio "$m" "$b" >>"$work/mb"
		printf '  round %d  dummy %6.2f s  mux %6.2f s  nomux %6.2f s\n' "$r" "$b" "$m" "$n"
	done
	printf 'median CPU: babeltrace2 dummy %.2f s, mux %.2f s, nomux %.2f s\n' \
		"$(bench_median <"$work/bt")" "$(bench_median <"$work/mux")" "$(bench_median <"$work/nomux")"
	bench_ratio_line "mux/dummy (the same graph: about 1)" "$work/mb"
	bench_ratio_line "nomux/dummy (the read without the muxer)" "$work/nb"
}

bench_main "$@"
