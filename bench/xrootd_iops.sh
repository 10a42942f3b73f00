#!/usr/bin/env bash
# xrootd_iops: xrootd's IOPS under xrdbench bare and under the shim in its
# default mode (`corecap run --`), servers started side by side
# (scripts/xrootd-server) and measured in short alternating rounds, so
# that the machine's drift falls on all alike. By default three servers:
# bare (a), under the shim (b) and bare again (c, the control: c/a is the
# noise floor of the same run), in blocks of three rounds whose order
# rotates (abc, bca, cab, then reversed) so that no server keeps a
# position. With two CPUs or more, the servers run pinned to CPU 0 and
# xrdbench to CPU 1 (taskset; -C to choose, -C none for no pinning).
# Prints every block, and for b/a and c/a: the median of the blocks'
# ratios with a 95% bootstrap interval and a 95% sign-test interval, and
# the geometric mean with a one-sided 95% lower bound (t over the log
# ratios); and the same for xrootd's CPU time per op (the sum of its
# threads' run time, /proc/PID/task/*/schedstat in ns, over the round's
# ops), which holds stiller on a shared machine when IOPS swing with the
# other tenants. -P adds a perf profile of the shim's server over
# one more round (3 s at least): the shim's share of xrootd's CPU samples,
# by object.
#
# With -a only two bare servers run (an A/A run). With -N it measures,
# instead, what CORECAP_NET_EVENTS=on costs while recording (the mode
# that lets corecap detect xrootd's ops): two servers under the shim, one
# with the setting, each round recorded by `corecap record`; the ratio is
# then net-events/default.
#
# usage: bench/xrootd_iops.sh [-B BUILD_DIR] [-n BLOCKS] [-d SECONDS] [-t CONCURRENCY]
#                             [-b BYTES] [-m MODE] [-a | -N] [-C SRV_CPUS:DRV_CPUS|none]
#                             [-P] [-g MIN_RATIO]
# -d takes a decimal (0.5). -g: exit 1 when the geometric mean of b/a is
# below MIN_RATIO (a gross-regression gate for tests; the 97% target is
# read from the output). Exit status: 0, 1 (error or gate failed), 2 (usage).
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${CORECAP_BUILD:-$src/build}
pairs=4 secs=3 conc=1 bytes=1 mode=read net=0 aa=0 gate="" pin=auto perf=0
usage() {
	echo "usage: $0 [-B BUILD_DIR] [-n BLOCKS] [-d SECONDS] [-t CONCURRENCY] [-b BYTES] [-m MODE] [-a | -N] [-C SRV_CPUS:DRV_CPUS|none] [-P] [-g MIN_RATIO]" >&2
	exit 2
}
while getopts "B:n:d:t:b:m:aNC:Pg:" o; do
	case $o in
	B) build=$OPTARG ;;
	n) pairs=$OPTARG ;;
	d) secs=$OPTARG ;;
	t) conc=$OPTARG ;;
	b) bytes=$OPTARG ;;
	m) mode=$OPTARG ;;
	N) net=1 ;;
	a) aa=1 ;;
	g) gate=$OPTARG ;;
	C) pin=$OPTARG ;;
	P) perf=1 ;;
	*) usage ;;
	esac
done
for v in "$pairs" "$conc" "$bytes"; do
	case $v in '' | *[!0-9]* | 0) echo "xrootd_iops: '$v' is not a positive number" >&2; usage ;; esac
done
if ! [[ $secs =~ ^[0-9]*\.?[0-9]+$ ]] || ! awk -v s="$secs" 'BEGIN { exit !(s > 0) }'; then
	echo "xrootd_iops: '$secs' is not a positive number of seconds" >&2
	usage
fi
if [ "$pin" = auto ]; then
	if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then pin=0:1; else pin=none; fi
fi
srv_pin=() drv_pin=()
if [ "$pin" != none ]; then
	[[ $pin =~ ^[0-9,-]+:[0-9,-]+$ ]] || { echo "xrootd_iops: -C '$pin' is not SRV_CPUS:DRV_CPUS or none" >&2; usage; }
	command -v taskset >/dev/null || { echo "xrootd_iops: -C needs taskset (util-linux)" >&2; exit 1; }
	srv_pin=(taskset -c "${pin%%:*}") drv_pin=(taskset -c "${pin#*:}")
fi
if [ "$perf" -eq 1 ] && ! command -v perf >/dev/null; then
	echo "xrootd_iops: -P needs perf (linux-perf)" >&2
	exit 1
fi
xs="$src/scripts/xrootd-server"
xrdbench="$build/tests/xrootd/xrdbench"
corecap="$build/cli/corecap"
for f in "$xrdbench" "$corecap" "$build/preload/libcorecap-preload.so"; do
	[ -e "$f" ] || { echo "xrootd_iops: cannot find '$f' (build first, or -B BUILD_DIR)" >&2; exit 1; }
done
command -v xrootd >/dev/null || { echo "xrootd_iops: xrootd is not installed (scripts/install-deps-xrootd)" >&2; exit 1; }
if [ "$net" -eq 1 ] && ! lttng list >/dev/null 2>&1; then
	echo "xrootd_iops: -N records rounds: no LTTng session daemon answers (scripts/sessiond-start)" >&2
	exit 1
fi

work=$(mktemp -d /tmp/xrootd-iops.XXXXXX)
chmod 755 "$work"
cleanup() {
	"$xs" stop "$work/a" >/dev/null 2>&1 || true
	"$xs" stop "$work/b" >/dev/null 2>&1 || true
	"$xs" stop "$work/c" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

# Server a is the reference, b the one measured against it, c (if any) a
# second reference: the control.
start() { # NAME [start options]
	local n=$1
	shift
	"${srv_pin[@]}" "$xs" start "$work/$n" "$@" >"$work/$n.start" 2>&1 ||
		{ echo "xrootd_iops: server $n did not start:" >&2; cat "$work/$n.start" >&2; exit 1; }
}
if [ "$net" -eq 1 ]; then
	names=(default net-events)
	start a --wrapper "$corecap run --"
	CORECAP_NET_EVENTS=on start b --wrapper "$corecap run --"
elif [ "$aa" -eq 1 ]; then
	names=(bare bare2)
	start a
	start b
else
	names=(bare shim bare2)
	start a
	start b --wrapper "$corecap run --"
	start c
fi
servers=(a b c)
servers=("${servers[@]:0:${#names[@]}}")
port_of() { sed -n 's/^xrootd port: //p' "$work/$1.start"; }
pid_of() { sed -n 's/^xrootd pid: //p' "$work/$1.start"; }
# The run time of all of PID's threads, ns (schedstat's first field).
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'; }

# round SERVER: one xrdbench round; prints "IOPS CPU_US_PER_OP".
round() {
	local s=$1 pid port c0 c1 iops ops out=$work/round.out
	pid=$(pid_of "$s")
	port=$(port_of "$s")
	c0=$(cpu_ns "$pid")
	if [ "$net" -eq 1 ]; then
		rm -rf "$work/run"
		"$corecap" record -q -p "$pid" -o "$work/run" -- \
			"${drv_pin[@]}" "$xrdbench" -p "$port" -t "$conc" -b "$bytes" -d "$secs" "$mode" >/dev/null 2>&1
		cp "$work/run/bench.out" "$out"
	else
		"${drv_pin[@]}" "$xrdbench" -p "$port" -t "$conc" -b "$bytes" -d "$secs" "$mode" >"$out"
	fi
	c1=$(cpu_ns "$pid")
	iops=$(awk -F: '/^Average IOPS/ { gsub(/ /, "", $2); print $2 }' "$out")
	ops=$(awk -F: '/^Total (reads|writes) made/ { gsub(/ /, "", $2); print $2 }' "$out")
	awk -v i="$iops" -v n="$ops" -v c=$((c1 - c0)) \
		'BEGIN { printf "%d %.3f\n", i, n ? c / 1e3 / n : 0 }'
}

echo "xrdbench -t $conc -b $bytes -d $secs $mode; $pairs blocks of ${#names[@]} rounds ($(
	for i in "${!names[@]}"; do printf '%s%s (%s)' "$([ "$i" -gt 0 ] && echo ', ')" "${names[$i]}" "${servers[$i]}"; done
)), rotating order; pinning: $([ "$pin" = none ] && echo none || echo "servers on CPU ${pin%%:*}, xrdbench on CPU ${pin#*:}")"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for s in "${servers[@]}"; do round "$s" >/dev/null; done # warm-up of each
: >"$work/blocks"
orders=()
if [ "${#servers[@]}" -eq 3 ]; then
	orders=("a b c" "b c a" "c a b" "c b a" "a c b" "b a c")
else
	orders=("a b" "b a")
fi
for p in $(seq 1 "$pairs"); do
	order=${orders[$(((p - 1) % ${#orders[@]}))]}
	declare -A res=()
	for s in $order; do res[$s]=$(round "$s"); done
	line="$p"
	for s in "${servers[@]}"; do line+=" ${res[$s]}"; done
	echo "$line" >>"$work/blocks"
	read -r ia ca <<<"${res[a]}"
	read -r ib cb <<<"${res[b]}"
	msg=$(printf 'block %2d (%s): %s %7d IOPS %6.3f us cpu/op   %s %7d IOPS %6.3f us cpu/op' \
		"$p" "${order// /}" "${names[0]}" "$ia" "$ca" "${names[1]}" "$ib" "$cb")
	if [ -n "${res[c]:-}" ]; then
		read -r ic cc <<<"${res[c]}"
		msg+=$(printf '   %s %7d IOPS %6.3f us cpu/op' "${names[2]}" "$ic" "$cc")
	fi
	echo "$msg"
	unset res
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
# Per ratio (b/a, c/a): the median of the blocks' ratios with a 95%
# percentile-bootstrap interval (10000 resamples, fixed seed) and the
# sign-test interval (order statistics; distribution-free), and the
# geometric mean with a one-sided 95% lower bound.
python3 - "$work/blocks" "$gate" "${names[@]}" <<'PY'
import math, random, statistics, sys
from math import comb

path, gate, names = sys.argv[1], sys.argv[2], sys.argv[3:]
rows = [list(map(float, l.split()))[1:] for l in open(path) if l.strip()]
iops = [[r[2 * i] for r in rows] for i in range(len(names))]
cpu = [[r[2 * i + 1] for r in rows] for i in range(len(names))]
ttab = [6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860, 1.833, 1.812, 1.796, 1.782,
        1.771, 1.761, 1.753, 1.746, 1.740, 1.734, 1.729, 1.725, 1.721, 1.717, 1.714, 1.711,
        1.708, 1.706, 1.703, 1.701, 1.699, 1.697]


def sign_interval(x):
    """The narrowest order statistics [x_(k), x_(n-k+1)] holding the median with >= 95%."""
    x, n = sorted(x), len(x)
    best = None
    for k in range(1, n // 2 + 1):
        cover = 1 - 2 * sum(comb(n, i) for i in range(k)) / 2 ** n
        if cover >= 0.95:
            best = (x[k - 1], x[n - k], cover)
    return best


def report(i, series, what):
    r = [b / a for a, b in zip(series[0], series[i]) if a > 0]
    n = len(r)
    med = statistics.median(r)
    rng = random.Random(12345)
    boots = sorted(statistics.median(rng.choices(r, k=n)) for _ in range(10000))
    lo, hi = boots[249], boots[9749]
    logs = [math.log(v) for v in r if v > 0]
    m = sum(logs) / len(logs)
    sd = statistics.stdev(logs) if len(logs) > 1 else 0
    t = ttab[n - 2] if 2 <= n <= len(ttab) + 1 else 1.645
    s = sign_interval(r)
    sign = f"[{s[0]:.4f}, {s[1]:.4f}] ({100 * s[2]:.1f}%)" if s else "none (too few blocks)"
    print(f"{names[i]} / {names[0]} {what}: median {med:.4f} over {n} blocks, bootstrap 95% "
          f"[{lo:.4f}, {hi:.4f}], sign test {sign}; blocks' ratios {min(r):.4f}-{max(r):.4f}")
    if what == "IOPS":
        print(f"{names[i]} / {names[0]} IOPS: geometric mean {math.exp(m):.4f} over {n} pairs "
              f"(one-sided 95% lower bound {math.exp(m - t * sd / math.sqrt(n)):.4f})")
    return math.exp(m), min(lo, s[0]) if s else None


for i in range(len(names)):
    print(f"{names[i]}: IOPS median {statistics.median(iops[i]):.0f}, CPU per op median "
          f"{statistics.median(cpu[i]):.3f} us ({min(cpu[i]):.3f}-{max(cpu[i]):.3f})")
gm, lo = report(1, iops, "IOPS")
if len(names) > 2:
    report(2, iops, "IOPS")
report(1, cpu, "CPU per op")
if len(names) > 2:
    report(2, cpu, "CPU per op")
# The verdict needs both intervals (so 6 blocks at least) above 0.97.
if lo is None:
    verdict = "not shown (too few blocks for a sign-test interval: 6 at least)"
elif lo >= 0.97:
    verdict = "shown (both intervals' low ends are at or above 0.97)"
else:
    verdict = f"not shown (an interval reaches {lo:.4f}, below 0.97)"
print(f"target {names[1]} >= 0.97 x {names[0]}: {verdict}")
if gate and gm < float(gate):
    print(f"gate: {gm:.4f} is below {gate}")
    sys.exit(1)
PY
if [ "$perf" -eq 1 ]; then
	# One more round of the measured server under perf (cpu-clock: no
	# hardware counters needed), its samples by object.
	pid=$(pid_of b)
	psecs=$(awk -v s="$secs" 'BEGIN { print s < 3 ? 3 : s }')
	perf record -q -e cpu-clock -F 4999 -p "$pid" -o "$work/perf.data" -- sleep "$psecs" >/dev/null 2>&1 &
	pp=$!
	sleep 0.2
	secs=$(awk -v s="$psecs" 'BEGIN { print s - 0.4 }') round b >/dev/null
	wait "$pp" || true
	perf report -q -i "$work/perf.data" --sort dso --stdio 2>/dev/null | awk -v who="${names[1]}" '
		$1 ~ /%$/ { p = $1; sub(/%/, "", p); d = $2; if (d ~ /corecap/) s += p; if (d ~ /lttng/) l += p; t += p;
			    if (d ~ /corecap|lttng/) printf "perf: %s %.2f%% of %s server samples\n", d, p, who }
		END { printf "perf: the shim (libcorecap*) %.2f%% of the %s server'"'"'s CPU samples, LTTng-UST %.2f%% (of %.1f%% listed)\n", s, who, l, t }'
fi
