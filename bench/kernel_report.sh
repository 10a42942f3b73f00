#!/usr/bin/env bash
# kernel_report: the user CPU time of `corecap report RUN` on a run with
# kernel events over that of the same report without them (a copy of RUN
# whose kernel/ directory is left out: the kernel states, the futex lock
# table, the ops' critical paths and the wait-for graph are what the
# difference pays for), in alternating rounds, with the medians and the
# median of the rounds' ratios. It records a run of its own first (refosd
# under `corecap run`, `corecap record --kernel` while refbench writes for
# SECONDS, as bench/report_cpu.sh does); run directories given as
# arguments are measured too. User CPU, not wall time: on a loaded machine
# it is what holds still.
#
# usage: bench/kernel_report.sh [-B BUILD_DIR] [-r ROUNDS] [-d SECONDS] [-n] [RUN_DIR...]
#   -n: record nothing, measure the given run directories only.
# Target (issue #13): with kernel events at most 1.3x the report without.
# A benchmark, not a test: it exits 0 unless it cannot measure at all.
set -euo pipefail

build=${CORECAP_BUILD:-$(cd "$(dirname "$0")/.." && pwd)/build}
rounds=5
secs=3
record=1
while getopts "B:r:d:n" o; do
	case $o in
	B) build=$OPTARG ;;
	r) rounds=$OPTARG ;;
	d) secs=$OPTARG ;;
	n) record=0 ;;
	*) echo "usage: $0 [-B BUILD_DIR] [-r ROUNDS] [-d SECONDS] [-n] [RUN_DIR...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
corecap="$build/cli/corecap"
refosd="$build/tests/refosd/refosd"
refbench="$build/tests/refosd/refbench"
need=("$corecap")
[ "$record" = 1 ] && need+=("$refosd" "$refbench")
for f in "${need[@]}"; do
	[ -x "$f" ] || { echo "kernel_report: cannot find '$f' (build first, or -B BUILD_DIR)" >&2; exit 1; }
done
[ "$record" = 1 ] || [ $# -gt 0 ] || { echo "kernel_report: -n needs a RUN_DIR" >&2; exit 2; }

work=$(mktemp -d /tmp/corecap-kernel-report.XXXXXX)
pid=""
cleanup() {
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# record_run DIR: refosd under `corecap run`, recorded with kernel events
# while refbench writes.
record_run() {
	local dir=$1 port="" i
	"$corecap" run -- "$refosd" --port 0 >"$work/osd.out" 2>"$work/osd.err" &
	pid=$!
	for i in $(seq 1 200); do
		port=$(sed -n 's/^refosd: listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$work/osd.out")
		[ -n "$port" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	[ -n "$port" ] || { echo "kernel_report: refosd did not start:" >&2; cat "$work/osd.err" >&2; exit 1; }
	"$corecap" record -q --kernel -p "$pid" -o "$dir" -- \
		"$refbench" -p "$port" --no-progress -t 16 -b 1 -d "$secs" write >"$work/rec.out" 2>&1 ||
		{ echo "kernel_report: corecap record --kernel failed:" >&2; tail -3 "$work/rec.out" >&2; exit 1; }
	kill -TERM "$pid"
	wait "$pid" 2>/dev/null || true
	pid=""
}

# measure CMD...: the command's user CPU seconds (its output dropped), from wait4.
measure() {
	python3 -c '
import os, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, status, ru = os.wait4(p.pid, 0)
if os.waitstatus_to_exitcode(status):
    sys.exit("kernel_report: failed: " + " ".join(sys.argv[1:]))
print("%.3f" % ru.ru_utime)' "$@"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

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
		b=$(measure "$corecap" report "$bare")
		k=$(measure "$corecap" report "$dir")
		echo "$b" >>"$work/b"
		echo "$k" >>"$work/k"
		awk -v b="$b" -v k="$k" 'BEGIN { printf "%.3f\n", (b > 0 ? k / b : 0) }' >>"$work/ratio"
		printf '  round %d  without kernel events %7.2f s   with %7.2f s   ratio %s\n' \
			"$r" "$b" "$k" "$(tail -1 "$work/ratio")"
	done
	printf 'median: without %.2f s user, with %.2f s user\n' "$(median <"$work/b")" "$(median <"$work/k")"
	printf 'ratio with/without kernel events (user CPU): median %s, interval [%s, %s]; target <= 1.3\n' \
		"$(median <"$work/ratio")" "$(sort -g "$work/ratio" | head -1)" "$(sort -g "$work/ratio" | tail -1)"
	rm -rf "$bare"
}

if [ "$record" = 1 ]; then
	record_run "$work/run"
	bench_run "$work/run"
fi
for d in "$@"; do
	bench_run "$d"
done
