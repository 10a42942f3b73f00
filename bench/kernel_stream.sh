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
#                               [SHORT_RUN LONG_RUN]
#   BASE_CORECAP: a corecap binary built from the commit before the reader
#   streamed (e.g. `git worktree add /tmp/base afa5625` and build it there).
# A benchmark, not a test: it exits 0 unless it cannot measure at all.
set -euo pipefail

build=${CORECAP_BUILD:-$(cd "$(dirname "$0")/.." && pwd)/build}
base=""
rounds=5
secs=3
while getopts "b:B:r:d:" o; do
	case $o in
	b) base=$OPTARG ;;
	B) build=$OPTARG ;;
	r) rounds=$OPTARG ;;
	d) secs=$OPTARG ;;
	*) echo "usage: $0 -b BASE_CORECAP [-B BUILD_DIR] [-r ROUNDS] [-d SECONDS] [SHORT_RUN LONG_RUN]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
corecap="$build/cli/corecap"
refosd="$build/tests/refosd/refosd"
refbench="$build/tests/refosd/refbench"
[ -n "$base" ] && [ -x "$base" ] || { echo "kernel_stream: -b BASE_CORECAP: a corecap binary to compare with" >&2; exit 2; }
for f in "$corecap" "$refosd" "$refbench"; do
	[ -x "$f" ] || { echo "kernel_stream: cannot find '$f' (build first, or -B BUILD_DIR)" >&2; exit 1; }
done
[ $# -eq 0 ] || [ $# -eq 2 ] || { echo "kernel_stream: give both SHORT_RUN and LONG_RUN, or neither" >&2; exit 2; }

work=$(mktemp -d /tmp/corecap-kernel-stream.XXXXXX)
pid=""
cleanup() {
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# record_run DIR SECONDS: refosd under `corecap run`, kernel events required.
record_run() {
	local dir=$1 s=$2 port="" i
	"$corecap" run -- "$refosd" --port 0 >"$work/osd.out" 2>"$work/osd.err" &
	pid=$!
	for i in $(seq 1 200); do
		port=$(sed -n 's/^refosd: listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$work/osd.out")
		[ -n "$port" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	[ -n "$port" ] || { echo "kernel_stream: refosd did not start:" >&2; cat "$work/osd.err" >&2; exit 1; }
	"$corecap" record -q --kernel -p "$pid" -o "$dir" -- \
		"$refbench" -p "$port" --no-progress -t 16 -b 1 -d "$s" write >"$work/rec.out" 2>&1 ||
		{ echo "kernel_stream: corecap record --kernel failed:" >&2; cat "$work/rec.out" >&2; exit 1; }
	kill -TERM "$pid"
	wait "$pid" 2>/dev/null || true
	pid=""
}

# measure CMD...: "cpu_s maxrss_kb" (user + system CPU) of the command, its output dropped.
measure() {
	python3 -c '
import os, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, status, ru = os.wait4(p.pid, 0)
if os.waitstatus_to_exitcode(status):
    sys.exit("kernel_stream: failed: " + " ".join(sys.argv[1:]))
print("%.3f %d" % (ru.ru_utime + ru.ru_stime, ru.ru_maxrss))' "$@"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

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
	echo "$(cut -d' ' -f1 "$work/b" | median) $(cut -d' ' -f2 "$work/b" | median)" >"$work/$name.base"
	echo "$(cut -d' ' -f1 "$work/n" | median) $(cut -d' ' -f2 "$work/n" | median)" >"$work/$name.new"
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
