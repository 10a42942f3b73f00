#!/usr/bin/env bash
# kernel_stream: peak RSS and CPU time of `corecap report RUN` with the
# streaming kernel reader (this build) over a base build's (one that read
# kernel/events.bin whole), on a short run and one 4x longer, in
# alternating rounds. It records the two runs itself (refosd under
# `corecap run`, `corecap record --kernel` while refbench writes for
# SECONDS and 4 x SECONDS) unless run directories are given.
#
# Prints every round, each side's medians, the new/base ratios of the
# medians, and the long/short ratio of each side's peak RSS: 1 is memory
# flat in the trace's length (issue #12).
#
# usage: bench/kernel_stream.sh -b BASE_CORECAP [-B BUILD_DIR] [-r ROUNDS] [-d SECONDS]
#                               [-c CPU] [SHORT_RUN LONG_RUN]
#   -c: run every measured command on that CPU (bench_measure).
#   BASE_CORECAP: a corecap binary built from the commit before the reader
#   streamed (e.g. `git worktree add /tmp/base afa5625` and build it there).
# A benchmark, not a test: it exits 0 unless it cannot measure at all.
set -euo pipefail
prog=kernel_stream
. "$(dirname "$0")/bench_lib.sh"

base="" rounds=5 secs=3
bench_option() { case $1 in b) base=$OPTARG ;; *) return 1 ;; esac; }
bench_options "b:B:r:d:c:" "-b BASE_CORECAP [-B BUILD_DIR] [-r ROUNDS] [-d SECONDS] [-c CPU] [SHORT_RUN LONG_RUN]" "$@"
shift $((OPTIND - 1))
[ -n "$base" ] && [ -x "$base" ] || { echo "kernel_stream: -b BASE_CORECAP: a corecap binary to compare with" >&2; exit 2; }
bench_need "$corecap" "$refosd" "$refbench"
[ $# -eq 0 ] || [ $# -eq 2 ] || { echo "kernel_stream: give both SHORT_RUN and LONG_RUN, or neither" >&2; exit 2; }

bench_work /tmp/corecap-kernel-stream.XXXXXX

# record_run DIR SECONDS: refosd under `corecap run`, kernel events required.
record_run() {
	bench_refosd_start "$corecap" run --
	bench_record "$1" "$2" --kernel ||
		{ echo "kernel_stream: corecap record --kernel failed:" >&2; cat "$work/rec.out" >&2; exit 1; }
	bench_refosd_stop
}

# measure CMD...: "cpu_s maxrss_kb" (user + system CPU) of the command, its output dropped.
measure() { bench_measure "$@" | awk '{ printf "%.3f %d\n", $1 + $2, $3 }'; }

# bench_run NAME DIR: alternating rounds of the base and this build; "cpu rss" medians into $work/NAME.{base,new}.
bench_run() {
	local name=$1 dir=$2 r b n
	[ -f "$dir/kernel/events.bin" ] || { echo "kernel_stream: '$dir' has no kernel/events.bin" >&2; exit 1; }
	: >"$work/b"
	: >"$work/n"
	echo "kernel_stream: $name run $dir (kernel/events.bin $(du -m "$dir/kernel/events.bin" | cut -f1) MB); $rounds alternating rounds"
	for r in $(seq 1 "$rounds"); do
		b=$(measure "$base" report "$dir")
		n=$(measure "$corecap" report "$dir")
		echo "$b" >>"$work/b"
		echo "$n" >>"$work/n"
		printf '  round %d  base %6.2f s %7d kB   streaming %6.2f s %7d kB\n' \
			"$r" "${b% *}" "${b#* }" "${n% *}" "${n#* }"
	done
	echo "$(cut -d' ' -f1 "$work/b" | bench_median) $(cut -d' ' -f2 "$work/b" | bench_median)" >"$work/$name.base"
	echo "$(cut -d' ' -f1 "$work/n" | bench_median) $(cut -d' ' -f2 "$work/n" | bench_median)" >"$work/$name.new"
	read -r bc bm <"$work/$name.base"
	read -r nc nm <"$work/$name.new"
	awk -v bc="$bc" -v bm="$bm" -v nc="$nc" -v nm="$nm" -v name="$name" 'BEGIN {
		printf "%s: median base %.2f s CPU, %d kB; streaming %.2f s CPU, %d kB; ratio streaming/base: CPU %.3f, peak RSS %.3f\n",
			name, bc, bm, nc, nm, nc / bc, nm / bm }'
}

if [ $# -eq 2 ]; then
	short=$1
	long=$2
else
	short="$work/short"
	long="$work/long"
	record_run "$short" "$secs"
	record_run "$long" $((4 * secs))
fi
bench_run short "$short"
bench_run long "$long"
read -r _ bs <"$work/short.base"
read -r _ bl <"$work/long.base"
read -r _ ns <"$work/short.new"
read -r _ nl <"$work/long.new"
awk -v bs="$bs" -v bl="$bl" -v ns="$ns" -v nl="$nl" 'BEGIN {
	printf "peak RSS long/short: base %.2f, streaming %.2f (1.00: flat in the trace length)\n", bl / bs, nl / ns }'
