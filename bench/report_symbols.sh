#!/usr/bin/env bash
# report_symbols: what symbolizing costs `corecap report RUN --json` with
# a cold symbol cache (an empty $XDG_CACHE_HOME: every name, inline chain
# and line from the binaries' DWARF) and a warm one (the cache the cold
# command left: analysis/read/sym_cache.h), in alternating rounds pinned
# to one CPU: CPU seconds (user + system) and peak RSS of each, their
# medians and sign-test intervals (bench_interval). With -O, an older
# corecap (one without the cache, say) is measured in the same rounds as
# "old". The three print the same JSON, which is checked once first.
# Beside them, "floor": the CPU of inflating the compressed sections of
# the debug files the cold command read (those of the binaries it left a
# symbol file for, found by build-id under /usr/lib/debug/.build-id) and
# nothing else (bench/inflate_floor.c), in the same rounds: the share of
# the cold CPU that the debug files' format costs any reader that needs
# the sections whole, as libdw inflates them.
#
# usage: bench/report_symbols.sh [-B BUILD_DIR] [-r ROUNDS] [-c CPU] [-O OLD_CORECAP] RUN_DIR...
#   -r: rounds (5); -c: the CPU every command runs on (1).
# Targets (issue #48), on a 10 s bare ceph-osd run with ceph-osd-dbg: cold
# <= 1.0 s and 150 MB, warm <= 0.3 s.
# A benchmark, not a test: it exits 0 unless it cannot measure at all.
set -euo pipefail
prog=report_symbols
. "$(dirname "$0")/bench_lib.sh"

rounds=5 bench_cpu=1 old=""
bench_option() {
	case $1 in
	O) old=$OPTARG ;;
	*) return 1 ;;
	esac
}
bench_options "B:r:c:O:" "[-B BUILD_DIR] [-r ROUNDS] [-c CPU] [-O OLD_CORECAP] RUN_DIR..." "$@"
shift $((OPTIND - 1))
bench_need "$corecap"
[ -z "$old" ] || bench_need "$old"
inflate_floor="$build/bench/inflate_floor"
[ -x "$inflate_floor" ] || echo "$prog: no '$inflate_floor' (build it): no floor measured" >&2
[ $# -gt 0 ] || { echo "usage: $0 [-B BUILD_DIR] [-r ROUNDS] [-c CPU] [-O OLD_CORECAP] RUN_DIR..." >&2; exit 2; }
bench_work /tmp/corecap-report-symbols.XXXXXX
unset CORECAP_SYMCACHE

# measure KIND CMD...: "cpu_s maxrss_kb" of the command; KIND cold runs it
# with an empty cache, warm with $work/warm's, old with $work/old's.
measure() {
	local kind=$1
	shift
	if [ "$kind" = cold ]; then
		rm -rf "$work/cold"
		mkdir -m 700 "$work/cold"
	fi
	XDG_CACHE_HOME="$work/$kind" bench_measure "$@" | awk '{ printf "%.3f %d\n", $1 + $2, $3 }'
}

# debug_files: the debug files of the binaries the cold command left a
# symbol file for in $work/warm (BUILD-ID-HASH.sym), one a line.
debug_files() {
	local f id
	for f in "$work/warm/corecap/"*.sym; do
		[ -f "$f" ] || continue
		id=$(basename "$f")
		id=${id%%-*}
		f="/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
		[ -f "$f" ] && echo "$f"
	done
	return 0
}

# line NAME FILE COLUMN UNIT: the median of FILE's column and its interval.
line() {
	local iv
	iv=$(cut -d' ' -f"$3" "$2" | bench_interval)
	printf '  %-5s median %s %s, interval [%s, %s] (%s%% confidence, sign test)\n' \
		"$1" "$(cut -d' ' -f"$3" "$2" | bench_median)" "$4" $iv
}

bench_run() {
	local dir=$1 r k order kinds=(cold warm) floor_files
	[ -d "$dir" ] || { echo "$prog: '$dir' is not a run directory" >&2; exit 1; }
	[ -n "$old" ] && kinds+=(old)
	mkdir -p -m 700 "$work/warm" "$work/old"
	# Once unmeasured: the warm cache filled, and the same JSON from each.
	XDG_CACHE_HOME="$work/warm" "$corecap" report --json "$dir" >"$work/fill.json" 2>/dev/null ||
		{ echo "$prog: corecap report --json '$dir' failed" >&2; exit 1; }
	XDG_CACHE_HOME="$work/warm" "$corecap" report --json "$dir" >"$work/warm.json" 2>/dev/null
	cmp -s "$work/fill.json" "$work/warm.json" ||
		{ echo "$prog: the warm cache's JSON differs from the cold one's" >&2; exit 1; }
	if [ -n "$old" ]; then
		XDG_CACHE_HOME="$work/old" "$old" report --json "$dir" >"$work/old.json" 2>/dev/null
		cmp -s "$work/fill.json" "$work/old.json" ||
			echo "$prog: note: the old corecap's JSON differs from this one's" >&2
	fi
	floor_files=()
	[ -x "$inflate_floor" ] && mapfile -t floor_files < <(debug_files)
	echo "$prog: $dir ($(du -sm "$dir" | cut -f1) MB), report --json on CPU $bench_cpu, $rounds alternating rounds"
	if [ "${#floor_files[@]}" -gt 0 ]; then
		kinds+=(floor)
		echo "  floor: inflating the compressed sections of the debug files read (once, unmeasured):"
		taskset -c "$bench_cpu" "$inflate_floor" "${floor_files[@]}" | sed 's/^/    /'
	fi
	for k in "${kinds[@]}"; do : >"$work/$k.t"; done
	for r in $(seq 1 "$rounds"); do
		# Even rounds the other way round: none always first.
		order=("${kinds[@]}")
		[ $((r % 2)) = 0 ] && order=($(printf '%s\n' "${kinds[@]}" | tac))
		for k in "${order[@]}"; do
			case $k in
			old) measure old "$old" report --json "$dir" >>"$work/old.t" ;;
			floor) measure floor "$inflate_floor" "${floor_files[@]}" >>"$work/floor.t" ;;
			*) measure "$k" "$corecap" report --json "$dir" >>"$work/$k.t" ;;
			esac
		done
		printf '  round %d' "$r"
		for k in "${kinds[@]}"; do
			printf '   %s %6.2f s %7d kB' "$k" $(tail -1 "$work/$k.t")
		done
		echo
	done
	for k in "${kinds[@]}"; do
		line "$k" "$work/$k.t" 1 "s CPU"
		line "$k" "$work/$k.t" 2 "kB peak RSS"
	done
	if [ -s "$work/floor.t" ]; then
		# Round by round: the floor's share of that round's cold CPU.
		paste -d' ' "$work/floor.t" "$work/cold.t" | awk '{ printf "%.3f\n", $1 / $3 }' >"$work/share.t"
		line share "$work/share.t" 1 "of the cold CPU is inflating the debug sections"
	fi
	echo "  targets: cold <= 1.0 s and 150 MB, warm <= 0.3 s (a 10 s bare ceph-osd run)"
}

for d in "$@"; do
	bench_run "$d"
done
