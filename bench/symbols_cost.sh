#!/usr/bin/env bash
# What symbolization costs `corecap report`: two corecap builds (before and
# after a symbolizer change) on one run, alternating, -n pairs; prints the
# median wall and CPU seconds of each and the ratio NEW / OLD, and checks
# that both printed the same text report. Without RUN, records a run of the
# demo's size first (scripts/demo: refosd under `corecap run --cpuprofile`,
# `corecap record --wallclock` while refbench -t 16 -b 1 -d 10 write runs;
# needs an LTTng session daemon). Also times `flame --kind cpu` and
# `--kind wall`, which symbolize every sampled frame.
#
#   bench/symbols_cost.sh [-n PAIRS] OLD_CORECAP [NEW_CORECAP [RUN]]
#
# OLD_CORECAP: e.g. a build of 40cbb3f (git archive 40cbb3f | tar -x -C DIR;
# cmake -S DIR -B DIR/build; cmake --build DIR/build --target corecap).
# A benchmark, not a test: figures on a shared machine need several pairs.
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=7
if [ "${1:-}" = -n ]; then
	pairs=$2
	shift 2
fi
[ $# -ge 1 ] || { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
old=$1
new=${2:-build/cli/corecap}
run=${3:-}
for b in "$old" "$new"; do
	[ -x "$b" ] || { echo "symbols_cost: '$b' is not an executable corecap" >&2; exit 1; }
done
work=$(mktemp -d /tmp/symbols-cost.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT

if [ -z "$run" ]; then
	run="$work/run"
	# The tree's own build records (its corecap finds the shim beside it).
	build/cli/corecap run --cpuprofile -- build/tests/refosd/refosd --port 0 --log-file "$work/refosd.log" \
		>"$work/refosd.out" 2>"$work/refosd.err" &
	osd=$!
	pids+=("$osd")
	port=""
	for _ in $(seq 1 100); do
		port=$(sed -n 's/^refosd: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$work/refosd.out")
		[ -n "$port" ] && break
		sleep 0.1
	done
	[ -n "$port" ] || { echo "symbols_cost: refosd did not start" >&2; cat "$work/refosd.err" >&2; exit 1; }
	build/cli/corecap record -q -p "$osd" -o "$run" -d 20 --wallclock -- \
		build/tests/refosd/refbench -p "$port" --no-progress -t 16 -b 1 -d 10 write >/dev/null
	kill "$osd"
	wait "$osd" 2>/dev/null || true
fi
echo "run: $run ($(du -sh "$run" | cut -f1))"

# measure BINARY ARGS...: "wall_s cpu_s" of one run, output to $work/out.
measure() {
	python3 - "$work/out" "$@" <<'EOF'
import os, resource, subprocess, sys, time
out = open(sys.argv[1], "w")
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
t0 = time.monotonic()
rc = subprocess.call(sys.argv[2:], stdout=out, stderr=subprocess.DEVNULL)
t1 = time.monotonic()
r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
if rc:
    sys.exit(f"exit status {rc}: {' '.join(sys.argv[2:])}")
cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
print(f"{t1 - t0:.4f} {cpu:.4f}")
EOF
}

for what in "report" "flame --kind cpu" "flame --kind wall"; do
	: >"$work/old.t"
	: >"$work/new.t"
	# shellcheck disable=SC2086
	for i in $(seq 1 "$pairs"); do
		# Alternate which build goes first, so that neither always finds a warm cache.
		if [ $((i % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
		for side in $order; do
			bin=$old
			[ "$side" = new ] && bin=$new
			measure "$bin" $what "$run" >>"$work/$side.t"
			cp "$work/out" "$work/$side.out"
		done
	done
	same=yes
	[ "$what" = report ] && ! cmp -s "$work/old.out" "$work/new.out" && same=no
	python3 - "$what" "$work/old.t" "$work/new.t" "$same" <<'EOF'
import statistics, sys
what, old, new, same = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
o = [list(map(float, l.split())) for l in open(old)]
n = [list(map(float, l.split())) for l in open(new)]
ow, oc = statistics.median(x[0] for x in o), statistics.median(x[1] for x in o)
nw, nc = statistics.median(x[0] for x in n), statistics.median(x[1] for x in n)
line = (f"{what:18s} {len(o)} pairs: wall old {ow:.3f} s new {nw:.3f} s (new/old {nw / ow:.3f}); "
        f"cpu old {oc:.3f} s new {nc:.3f} s (new/old {nc / oc:.3f})")
if what == "report":
    line += "; same text report" if same == "yes" else "; TEXT REPORTS DIFFER"
print(line)
EOF
done
