#!/usr/bin/env bash
# The wall-clock sampler's cost, measured (not a CTest test: it takes a few
# minutes). refosd's IOPS under `refbench -t 16 -b 1 -d 5 write`, bare and
# recorded (--no-trace) without stack sampling, at 50 Hz and at 200 Hz, the
# four configurations alternating round after round; prints medians, the
# median of each configuration's ratio to the bare run of its round, the
# stop times and the collector's own CPU time.
#
#   bash tests/e2e/collector_overhead.sh [BUILD_DIR] [ROUNDS]
set -u
build=$(cd "${1:-build}" && pwd)
rounds=${2:-10}
work=$(mktemp -d /tmp/collector-overhead.XXXXXX)
"$build/tests/refosd/refosd" --port 0 >"$work/osd.out" 2>&1 &
osd=$!
trap 'kill $osd 2>/dev/null; wait $osd 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do
	port=$(sed -n 's/^refosd: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$work/osd.out")
	[ -n "$port" ] && break
	sleep 0.05
done
bench=("$build/tests/refosd/refbench" -p "$port" -t 16 -b 1 -d 5 write)
for r in $(seq 1 "$rounds"); do
	for cfg in bare proc wall50 wall200; do
		rm -rf "$work/run"
		case $cfg in
		bare) "${bench[@]}" >"$work/bench.out" 2>&1 ;;
		proc) opts=() ;;
		wall50) opts=(--wallclock=50) ;;
		wall200) opts=(--wallclock=200) ;;
		esac
		if [ "$cfg" != bare ]; then
			"$build/cli/corecap" record -q --no-trace "${opts[@]}" -p "$osd" -o "$work/run" -- \
				"${bench[@]}" >/dev/null 2>&1
			cp "$work/run/bench.out" "$work/bench.out"
		fi
		iops=$(awk -F: '/^Average IOPS:/ { gsub(/ /, "", $2); print $2 }' "$work/bench.out")
		extra=$([ -f "$work/run/manifest.json" ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
w = d.get("wallclock") or {}
c = d["collector"]
print(w.get("samples", 0), w.get("stop_ns_median", 0), w.get("stop_ns_p99", 0),
      c["cpu_user_s"] + c["cpu_sys_s"], d["window"]["duration_s"])' "$work/run/manifest.json")
		printf '%s\t%s\t%s\t%s\n' "$r" "$cfg" "$iops" "$extra" | tee -a "$work/results.tsv" >&2
	done
done
python3 - "$work/results.tsv" <<'PY'
import collections, statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
iops = collections.defaultdict(dict); extra = collections.defaultdict(list)
for r, cfg, v, x in rows:
    iops[cfg][r] = float(v)
    if x:
        extra[cfg].append([float(f) for f in x.split()])
base = statistics.median(iops["bare"].values())
print("%-8s %12s %9s %12s %14s %12s %16s" % ("config", "median IOPS", "of bare", "paired ratio",
      "stop median", "stop p99", "collector CPU"))
for cfg in ("bare", "proc", "wall50", "wall200"):
    m = statistics.median(iops[cfg].values())
    ratio = statistics.median(iops[cfg][r] / iops["bare"][r] for r in iops[cfg])
    e = extra[cfg]
    stop = "%11.0f us" % (statistics.median(x[1] for x in e) / 1e3) if e and e[0][0] else "%14s" % "-"
    p99 = "%9.0f us" % (statistics.median(x[2] for x in e) / 1e3) if e and e[0][0] else "%12s" % "-"
    cpu = "%13.1f %%" % (100 * statistics.median(x[3] / x[4] for x in e)) if e else "%16s" % "-"
    print("%-8s %12.0f %8.1f%% %12.3f %s %s %s" % (cfg, m, 100 * m / base, ratio, stop, p99, cpu))
print("IOPS per round:", {c: [int(iops[c][r]) for r in sorted(iops[c], key=int)] for c in iops})
PY
