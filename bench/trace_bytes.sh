#!/usr/bin/env bash
# trace_bytes: trace bytes per op of a recording of refosd at its default
# settings (issue #19: at most half of what the trace layout of run
# format 1 wrote). One refosd under `corecap run`, one
# `corecap record -- refbench -t T -b 1 -d S write`, then: the size of the
# run's trace/ (the LTTng-UST trace; kernel/ and the rest apart) over the
# ops refbench completed, and with -e the events per op of each kind
# (babeltrace2). Run it on two builds with the same options to compare.
#   usage: bench/trace_bytes.sh [-B BUILD_DIR] [-t CONCURRENCY] [-s SECONDS] [-r ROUNDS] [-e]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${CORECAP_BUILD:-$src/build}
conc=16 secs=3 rounds=1 per_event=0
while getopts "B:t:s:r:e" o; do
	case $o in
	B) build=$OPTARG ;;
	t) conc=$OPTARG ;;
	s) secs=$OPTARG ;;
	r) rounds=$OPTARG ;;
	e) per_event=1 ;;
	*) echo "usage: $0 [-B BUILD_DIR] [-t CONCURRENCY] [-s SECONDS] [-r ROUNDS] [-e]" >&2; exit 2 ;;
	esac
done
corecap=$build/cli/corecap refosd=$build/tests/refosd/refosd refbench=$build/tests/refosd/refbench
prog=trace_bytes
. "$(dirname "$0")/bench_lib.sh"
bench_need "$corecap" "$refosd" "$refbench"
work=$(mktemp -d /tmp/trace-bytes-XXXXXX)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	[ -n "${TRACE_BYTES_KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

echo "trace_bytes: refosd (defaults) under corecap run, corecap record -- refbench -t $conc -b 1 -d $secs write; build $build"
for r in $(seq 1 "$rounds"); do
	bench_refosd_start "$corecap" run --
	"$corecap" record -q --no-kernel --no-cpu-profile -p "$pid" -o "$work/run$r" -- \
		"$refbench" -p "$port" -t "$conc" -b 1 -d "$secs" --no-progress write >"$work/bench$r.out" 2>&1
	bench_refosd_stop
	ops=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["benchmark"]["summary"]["ops"])' \
		"$work/run$r/manifest.json" 2>/dev/null || true)
	[ -n "$ops" ] && [ "$ops" -gt 0 ] || { echo "trace_bytes: no op count in the run's manifest.json (benchmark.summary.ops):" >&2; cat "$work/run$r/bench.out" >&2; exit 1; }
	bytes=$(du -sb "$work/run$r/trace" | cut -f1)
	awk -v r="$r" -v b="$bytes" -v o="$ops" \
		'BEGIN { printf "round %d: %d trace bytes, %d ops: %.1f bytes/op\n", r, b, o, b / o }'
	if [ "$per_event" = 1 ]; then
		babeltrace2 "$work/run$r/trace" 2>/dev/null |
			sed -n 's/^.* \([a-z_]*:[a-z_]*\): {.*$/\1/p' | sort | uniq -c | sort -rn |
			awk -v o="$ops" '{ printf "  %-28s %8.3f events/op\n", $2, $1 / o }'
	fi
done
