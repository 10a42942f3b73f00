#!/usr/bin/env bash
# run_cache_cpu: the CPU time (user + system) of `corecap report --json
# RUN` without the decoded-trace cache (CORECAP_RUNCACHE=0), with a cold
# one (emptied before: the read writes the file) and a warm one (the file
# replayed; analysis/read/run_cache.h), beside `babeltrace2 RUN/trace -c
# sink.utils.dummy`, in alternating rounds (odd rounds off, cold, warm,
# dummy; even rounds the other way round), with each one's peak RSS. It
# records a run of its own first (refosd under `corecap run`, `corecap
# record --kernel`, plain `record` when the kernel events cannot be
# recorded, while refbench writes for SECONDS); run directories given as
# arguments are measured too. Prints every round, the medians, and the
# median of the warm/cold and warm/off ratios with their sign-test
# intervals, and of the ratios to babeltrace2's read that issue #48's
# target names: cold/dummy (the first command on a run, which writes the
# cache: the target is 1.3) and warm/dummy (every later one). With -O, an
# older corecap's first command ("old", its own emptied cache) runs in
# the same rounds too (its own cache directory), and the ratio cold/old
# says what a change did.
#
# usage: bench/run_cache_cpu.sh [-B BUILD_DIR] [-r ROUNDS] [-d SECONDS] [-c CPU] [-O OLD_CORECAP] [-n] [RUN_DIR...]
# A benchmark, not a test: it exits 0 unless it cannot measure at all.
set -euo pipefail
prog=run_cache_cpu
. "$(dirname "$0")/bench_lib.sh"

rounds=5 secs=5 record=1 old=""
bench_option() {
	case $1 in
	n) record=0 ;;
	O) old=$OPTARG ;;
	*) return 1 ;;
	esac
}
bench_options "B:r:d:c:O:n" "[-B BUILD_DIR] [-r ROUNDS] [-d SECONDS] [-c CPU] [-O OLD_CORECAP] [-n] [RUN_DIR...]" "$@"
shift $((OPTIND - 1))
bench_need "$corecap"
[ -z "$old" ] || bench_need "$old"
[ "$record" = 0 ] || bench_need "$refosd" "$refbench"
command -v babeltrace2 >/dev/null || { echo "$prog: babeltrace2 is not installed" >&2; exit 1; }
[ "$record" = 1 ] || [ $# -gt 0 ] || { echo "$prog: -n needs a RUN_DIR" >&2; exit 2; }

bench_work /tmp/corecap-run-cache-cpu.XXXXXX
mkdir -m 700 "$work/xdg" "$work/xdg-old"
export XDG_CACHE_HOME="$work/xdg"

record_run() {
	local dir=$1
	bench_refosd_start "$corecap" run --
	if ! bench_record "$dir" "$secs" --kernel; then
		echo "$prog: no kernel events ($(tail -1 "$work/rec.out")): recording without" >&2
		rm -rf "$dir"
		bench_record "$dir" "$secs" ||
			{ echo "$prog: corecap record failed:" >&2; cat "$work/rec.out" >&2; exit 1; }
	fi
	bench_refosd_stop
}

# measure CMD...: "cpu_s maxrss_kb" of the command (user + system).
measure() { bench_measure "$@" | awk '{ printf "%.3f %d\n", $1 + $2, $3 }'; }

# old_first DIR: "cpu_s maxrss_kb" of the old corecap's first command on
# DIR (its own run cache emptied, its symbol cache kept, as the new
# one's), or "0 0" without -O.
old_first() {
	[ -n "$old" ] || { echo "0 0"; return; }
	rm -rf "$work/xdg-old/corecap/runs"
	XDG_CACHE_HOME="$work/xdg-old" measure "$old" report --json "$1"
}

ratio() { awk -v a="${1% *}" -v b="${2% *}" 'BEGIN { printf "%.3f\n", (b > 0 ? a / b : 0) }'; }

bench_run() {
	local dir=$1 r o c w b d f
	[ -d "$dir/trace" ] || { echo "$prog: '$dir' has no trace directory" >&2; exit 1; }
	for f in off cold warm bt old wc wo cb wb co; do : >"$work/$f"; done
	echo "$prog: $dir (trace $(du -sm "$dir/trace" | cut -f1) MB, kernel events" \
		"$(du -sm "$dir/kernel" 2>/dev/null | cut -f1 || echo 0) MB); $rounds alternating rounds"
	for r in $(seq 1 "$rounds"); do
		if [ $((r % 2)) = 1 ]; then
			o=$(CORECAP_RUNCACHE=0 measure "$corecap" report --json "$dir")
			rm -rf "$work/xdg/corecap/runs"
			c=$(measure "$corecap" report --json "$dir")
			w=$(measure "$corecap" report --json "$dir")
			d=$(old_first "$dir")
			b=$(measure babeltrace2 "$dir/trace" -c sink.utils.dummy)
		else
			b=$(measure babeltrace2 "$dir/trace" -c sink.utils.dummy)
			d=$(old_first "$dir")
			rm -rf "$work/xdg/corecap/runs"
			c=$(measure "$corecap" report --json "$dir")
			w=$(measure "$corecap" report --json "$dir")
			o=$(CORECAP_RUNCACHE=0 measure "$corecap" report --json "$dir")
		fi
		echo "$o" >>"$work/off"
		echo "$c" >>"$work/cold"
		echo "$w" >>"$work/warm"
		echo "$b" >>"$work/bt"
		echo "$d" >>"$work/old"
		ratio "$w" "$c" >>"$work/wc"
		ratio "$w" "$o" >>"$work/wo"
		ratio "$c" "$b" >>"$work/cb"
		ratio "$w" "$b" >>"$work/wb"
		ratio "$c" "$d" >>"$work/co"
		printf '  round %d  off %6.2f s %7d kB  cold %6.2f s %7d kB  warm %6.2f s %7d kB  dummy %6.2f s' \
			"$r" "${o% *}" "${o#* }" "${c% *}" "${c#* }" "${w% *}" "${w#* }" "${b% *}"
		[ -z "$old" ] || printf '  old cold %6.2f s %7d kB' "${d% *}" "${d#* }"
		printf '\n'
	done
	printf 'median CPU: off %.2f s, cold %.2f s, warm %.2f s, babeltrace2 dummy %.2f s; peak RSS off %d kB, cold %d kB, warm %d kB\n' \
		"$(cut -d' ' -f1 "$work/off" | bench_median)" "$(cut -d' ' -f1 "$work/cold" | bench_median)" \
		"$(cut -d' ' -f1 "$work/warm" | bench_median)" "$(cut -d' ' -f1 "$work/bt" | bench_median)" \
		"$(cut -d' ' -f2 "$work/off" | bench_median)" "$(cut -d' ' -f2 "$work/cold" | bench_median)" \
		"$(cut -d' ' -f2 "$work/warm" | bench_median)"
	echo "cache file: $(du -k "$work"/xdg/corecap/runs/*.ev | cut -f1) kB"
	bench_ratio_line warm/cold "$work/wc"
	bench_ratio_line warm/off "$work/wo"
	bench_ratio_line "cold/dummy (the first command; target 1.3)" "$work/cb"
	bench_ratio_line warm/dummy "$work/wb"
	if [ -n "$old" ]; then
		printf 'median CPU of the old first command: %.2f s, peak RSS %d kB\n' \
			"$(cut -d' ' -f1 "$work/old" | bench_median)" "$(cut -d' ' -f2 "$work/old" | bench_median)"
		bench_ratio_line cold/old "$work/co"
	fi
}

bench_main "$@"
