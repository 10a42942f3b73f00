#!/usr/bin/env bash
# refosd_iops: refosd's throughput (refbench -t 16 -b 1 -d 5 write) bare,
# under the shim in its default mode, and under the shim with an LTTng
# session recording the shim's events (corecap_lock, corecap_io,
# corecap_thread), in alternating rounds; prints each run, the medians and
# their ratios to bare. A benchmark, not a test (the machine is shared:
# compare side by side and look at the medians).
#
# Besides IOPS it prints refosd's CPU time per op (utime + stime from
# /proc, over the ops refbench completed): on a loaded shared machine the
# IOPS of one run swing with the other tenants, while the CPU an op costs
# the daemon is what the shim adds to, and holds still.
#
# usage: bench/refosd_iops.sh [-B BUILD_DIR] [-r ROUNDS] [-d SECONDS] [-t CONCURRENCY]
# Budget (docs/shim.md): shim >= 97% of bare, shim + session >= 90%.
# EVENTS overrides the recorded events (e.g. EVENTS='corecap_*' adds the
# daemon's corecap_op annotations).
set -euo pipefail

build=${CORECAP_BUILD:-$(cd "$(dirname "$0")/.." && pwd)/build}
rounds=3
secs=5
conc=16
while getopts "B:r:d:t:" o; do
	case $o in
	B) build=$OPTARG ;;
	r) rounds=$OPTARG ;;
	d) secs=$OPTARG ;;
	t) conc=$OPTARG ;;
	*) echo "usage: $0 [-B BUILD_DIR] [-r ROUNDS] [-d SECONDS] [-t CONCURRENCY]" >&2; exit 2 ;;
	esac
done
events=${EVENTS:-corecap_lock:*,corecap_io:*,corecap_thread:*}
refosd="$build/tests/refosd/refosd"
refbench="$build/tests/refosd/refbench"
shim="$build/preload/libcorecap-preload.so"
for f in "$refosd" "$refbench" "$shim"; do
	[ -e "$f" ] || { echo "refosd_iops: cannot find '$f' (build first, or -B BUILD_DIR)" >&2; exit 1; }
done
prog=refosd_iops
. "$(dirname "$0")/bench_lib.sh"
tracing=1
if ! lttng list >/dev/null 2>&1; then
	echo "refosd_iops: no LTTng session daemon (scripts/sessiond-start): the traced runs are skipped" >&2
	tracing=0
fi

work=$(mktemp -d)
pid=""
session=""
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	[ -n "$session" ] && lttng -q destroy "$session" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT

# run CONFIG: one refosd, one refbench; prints the average IOPS.
run() {
	local cfg=$1 port iops
	local -a env=(env -u LD_PRELOAD)
	case $cfg in
	shim) env=(env LD_PRELOAD="$shim" CORECAP_DUMP=off) ;;
	traced)
		env=(env LD_PRELOAD="$shim" CORECAP_DUMP=off)
		session="corecap-bench-$$-$RANDOM"
		lttng -q create "$session" --output="$work/trace-$session"
		lttng -q enable-event -u -s "$session" "$events"
		lttng -q add-context -u -s "$session" -t vtid
		lttng -q start "$session"
		;;
	esac
	bench_refosd_start "${env[@]}"
	"$refbench" -p "$port" -t "$conc" -b 1 -d "$secs" --no-progress write >"$work/bench.out"
	iops=$(bench_iops "$work/bench.out")
	ops=$(sed -n 's/^Total writes made: *\([0-9]*\).*/\1/p' "$work/bench.out")
	# utime + stime (fields 14, 15 after the command name) in clock ticks.
	ticks=$(sed 's/.*) //' "/proc/$pid/stat" | awk '{ print $12 + $13 }')
	awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" -v n="${ops:-0}" \
		'BEGIN { printf "%.2f\n", n ? t / hz * 1e6 / n : 0 }' >>"$work/$cfg.cpu"
	bench_refosd_stop
	if [ "$cfg" = traced ]; then
		lttng -q stop "$session"
		echo "$(du -sm "$work/trace-$session" | cut -f1)" >>"$work/trace_mb"
		lttng -q destroy "$session"
		rm -rf "$work/trace-$session"
		session=""
	fi
	echo "${iops:-0}"
}

configs=(bare shim)
[ "$tracing" = 1 ] && configs+=(traced)
echo "refosd_iops: refbench -t $conc -b 1 -d $secs write; $rounds alternating rounds; traced events: $events"
for r in $(seq 1 "$rounds"); do
	for c in "${configs[@]}"; do
		v=$(run "$c")
		printf '  round %d  %-7s %10s IOPS  %8s us CPU/op\n' "$r" "$c" "$v" "$(tail -1 "$work/$c.cpu")"
		echo "$v" >>"$work/$c"
	done
done
base=$(bench_median <"$work/bare")
cbase=$(bench_median <"$work/bare.cpu")
printf 'median: bare    %10.1f IOPS  %8.2f us CPU/op\n' "$base" "$cbase"
for c in shim traced; do
	[ -e "$work/$c" ] || continue
	m=$(bench_median <"$work/$c")
	cm=$(bench_median <"$work/$c.cpu")
	budget=97
	[ "$c" = traced ] && budget=90
	awk -v m="$m" -v b="$base" -v c="$c" -v budget="$budget" -v cm="$cm" -v cb="$cbase" 'BEGIN {
		r = (b > 0) ? 100 * m / b : 0
		printf "median: %-7s %10.1f IOPS  %5.1f%% of bare  (budget %d%%: %s)  %8.2f us CPU/op  %.2fx bare\n", c, m, r, budget, (r >= budget) ? "met" : "NOT met", cm, (cb > 0) ? cm / cb : 0
	}'
done
[ -e "$work/trace_mb" ] && echo "trace size per traced run: $(bench_median <"$work/trace_mb") MB (median) for $secs s"
exit 0
