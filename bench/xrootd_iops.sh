#!/usr/bin/env bash
# xrootd_iops: xrootd's IOPS under xrdbench bare and under the shim in its
# default mode (`corecap run --`), two servers started side by side
# (scripts/xrootd-server), measured in alternating rounds (ABBA: bare,
# shim, shim, bare, ...) so that the machine's drift falls on both alike.
# Prints every round, each pair's ratio shim/bare, their geometric mean
# with a one-sided 95% lower bound, and xrootd's CPU time per op (utime +
# stime from /proc over the round's ops), which holds still on a shared
# machine when IOPS swing with the other tenants.
#
# With -a both servers run bare (an A/A run: the noise floor, and any
# bias of the server's position). With -N it measures, instead, what CORECAP_NET_EVENTS=on costs while
# recording (the mode that lets corecap detect xrootd's ops): both servers
# run under the shim, one with the setting, and each round is recorded by
# `corecap record`; the ratio is then net-events/default.
#
# usage: bench/xrootd_iops.sh [-B BUILD_DIR] [-n PAIRS] [-d SECONDS] [-t CONCURRENCY]
#                             [-b BYTES] [-m MODE] [-a | -N] [-g MIN_RATIO]
# -g: exit 1 when the geometric mean of the ratios is below MIN_RATIO (a
# gross-regression gate for tests; the 97% target is read from the output).
# Exit status: 0, 1 (error or gate failed), 2 (usage).
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${CORECAP_BUILD:-$src/build}
pairs=4 secs=3 conc=1 bytes=1 mode=read net=0 aa=0 gate=""
usage() {
	echo "usage: $0 [-B BUILD_DIR] [-n PAIRS] [-d SECONDS] [-t CONCURRENCY] [-b BYTES] [-m MODE] [-a | -N] [-g MIN_RATIO]" >&2
	exit 2
}
while getopts "B:n:d:t:b:m:aNg:" o; do
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
	*) usage ;;
	esac
done
for v in "$pairs" "$secs" "$conc" "$bytes"; do
	case $v in '' | *[!0-9]* | 0) echo "xrootd_iops: '$v' is not a positive number" >&2; usage ;; esac
done
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
	rm -rf "$work"
}
trap cleanup EXIT

# Server a is the reference, b the one measured against it.
if [ "$net" -eq 1 ]; then
	names=(default net-events)
	"$xs" start "$work/a" --wrapper "$corecap run --" >"$work/a.start" 2>&1
	CORECAP_NET_EVENTS=on "$xs" start "$work/b" --wrapper "$corecap run --" >"$work/b.start" 2>&1
elif [ "$aa" -eq 1 ]; then
	names=(bare bare2)
	"$xs" start "$work/a" >"$work/a.start" 2>&1
	"$xs" start "$work/b" >"$work/b.start" 2>&1
else
	names=(bare shim)
	"$xs" start "$work/a" >"$work/a.start" 2>&1
	"$xs" start "$work/b" --wrapper "$corecap run --" >"$work/b.start" 2>&1
fi
port_of() { sed -n 's/^xrootd port: //p' "$work/$1.start"; }
pid_of() { sed -n 's/^xrootd pid: //p' "$work/$1.start"; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

# round SERVER: one xrdbench round; prints "IOPS CPU_US_PER_OP".
round() {
	local s=$1 pid port c0 c1 iops ops out=$work/round.out
	pid=$(pid_of "$s")
	port=$(port_of "$s")
	c0=$(cpu_ticks "$pid")
	if [ "$net" -eq 1 ]; then
		rm -rf "$work/run"
		"$corecap" record -q -p "$pid" -o "$work/run" -- \
			"$xrdbench" -p "$port" -t "$conc" -b "$bytes" -d "$secs" "$mode" >/dev/null 2>&1
		cp "$work/run/bench.out" "$out"
	else
		"$xrdbench" -p "$port" -t "$conc" -b "$bytes" -d "$secs" "$mode" >"$out"
	fi
	c1=$(cpu_ticks "$pid")
	iops=$(awk -F: '/^Average IOPS/ { gsub(/ /, "", $2); print $2 }' "$out")
	ops=$(awk -F: '/^Total (reads|writes) made/ { gsub(/ /, "", $2); print $2 }' "$out")
	awk -v i="$iops" -v n="$ops" -v c=$((c1 - c0)) -v hz="$hz" \
		'BEGIN { printf "%d %.2f\n", i, n ? c * 1e6 / hz / n : 0 }'
}

echo "xrdbench -t $conc -b $bytes -d $secs $mode; $pairs pairs of rounds, ${names[0]} (a) against ${names[1]} (b), ABBA order"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
round a >/dev/null # warm-up of both
round b >/dev/null
ratios=()
for p in $(seq 1 "$pairs"); do
	if [ $((p % 2)) -eq 1 ]; then order=(a b); else order=(b a); fi
	declare -A res=()
	for s in "${order[@]}"; do res[$s]=$(round "$s"); done
	read -r ia ca <<<"${res[a]}"
	read -r ib cb <<<"${res[b]}"
	r=$(awk -v a="$ia" -v b="$ib" 'BEGIN { printf "%.4f", a ? b / a : 0 }')
	ratios+=("$r")
	printf 'pair %2d (%s first): %s %7d IOPS %6.2f us cpu/op   %s %7d IOPS %6.2f us cpu/op   ratio %s\n' \
		"$p" "${names[$([ "${order[0]}" = a ] && echo 0 || echo 1)]}" "${names[0]}" "$ia" "$ca" "${names[1]}" "$ib" "$cb" "$r"
	unset res
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
# Geometric mean of the pair ratios and a one-sided 95% lower bound (t over the log ratios).
printf '%s\n' "${ratios[@]}" | awk -v gate="$gate" -v an="${names[1]}" -v bn="${names[0]}" '
	{ l[NR] = log($1); s += l[NR] }
	END {
		n = NR; m = s / n
		for (i = 1; i <= n; i++) v += (l[i] - m) ^ 2
		sd = n > 1 ? sqrt(v / (n - 1)) : 0
		split("6.314 2.920 2.353 2.132 2.015 1.943 1.895 1.860 1.833 1.812 1.796 1.782 1.771 1.761 1.753", tt, " ")
		t = n - 1 >= 1 && n - 1 <= 15 ? tt[n - 1] : 1.645
		lo = exp(m - t * sd / sqrt(n))
		printf "%s / %s IOPS: geometric mean %.4f over %d pairs (one-sided 95%% lower bound %.4f)\n", an, bn, exp(m), n, lo
		if (gate != "" && exp(m) < gate) { printf "gate: %.4f is below %s\n", exp(m), gate; exit 1 }
	}'
