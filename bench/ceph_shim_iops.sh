#!/usr/bin/env bash
# ceph_shim_iops: a real ceph-osd's write IOPS bare and under the shim in
# its default mode (`corecap run --`, LD_PRELOAD of libcorecap-preload.so),
# measured side by side (issue #7: shim >= 95% of bare). Two fresh one-node
# clusters run at once (scripts/ceph-minicluster; with -F a fresh pair for
# every pair of rounds); N pairs of rounds of
# `rados -p POOL bench S write -b 1 -t T --no-cleanup` alternate between
# them in ABBA order (bare,shim, shim,bare, bare,shim, ...), each round on
# a fresh pool (mkpool before, rmpool after), so that a drift of the
# machine's load or of the clusters' state weighs on both configurations
# alike. It prints every round, each pair's ratio shim/bare, the median of
# those ratios and their range, and the OSD's CPU time per op (utime+stime
# of /proc/PID/stat over the round, over the ops rados completed): at -t 10
# the OSD is CPU-bound, so IOPS follow the CPU an op costs, which is what
# the shim adds to. Each round also shows the
# load average and the share of the machine's CPU time the hypervisor
# stole during it (/proc/stat), which explain most outliers, and for the
# shimmed OSD the shim's own counters (corecap-stats-dump): how many locks
# are hot (of a hot lock's uncontended holds 1 in CORECAP_HOLD_TIME is
# tracked and stands for that many) and their holds, all acquisitions and the
# contentions per op.
#
# -a runs the same protocol on two bare clusters (A/A): the spread of its
# ratios is the noise floor that a shim/bare ratio must be read against.
# -P also runs `perf stat -p OSD` over each round and prints task-clock,
# context switches and syscalls per op. -R runs `perf record -e cpu-clock
# -F 2000 -p OSD` over each round instead and, at the end, the functions
# whose time per op differs most between the two (bare/shim or A/B), with
# the rounds' ops pooled per configuration. Before the pairs, each cluster
# runs one warm-up round that is not counted (-W: none). -E VAR=VAL starts
# both OSDs under `env VAR=VAL` (e.g. -E GLIBC_TUNABLES=glibc.malloc.arena_max=64).
# The bare (or A) cluster starts first and takes the lower ports; -r starts
# the other one first, to see whether the order matters.
#
# -F starts a fresh pair of clusters for every pair of rounds (each with its
# own warm-up round) instead of one pair for the whole run, and alternates
# which of the two starts first (and takes the lower ports): in A/A runs
# the cluster started second was about 2% faster. One OSD
# process differs from another by up to +-10% in CPU per op, bare or not
# (thread placement, which threads share a malloc arena, ...), and with
# one pair of clusters that difference weighs on every pair of rounds
# alike: more rounds cannot average it out, fresh clusters do. A pair
# then takes about 40 s instead of 15.
#
# usage: bench/ceph_shim_iops.sh [-B BUILD_DIR] [-n PAIRS] [-s SECONDS]
#                                [-t CONCURRENCY] [-p PORT_BASE] [-a] [-r] [-P] [-W]
#                                [-E VAR=VAL]... [-k] [-R] [-F]
# A benchmark, not a test: it exits 0 whatever the ratio. Measured figures
# and what they show: docs/ceph.md, "The shim's cost in write IOPS".
set -uo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${CORECAP_BUILD:-$src/build}
pairs=8
secs=3
conc=10
port_base=52000
aa=0
warmup=1
perfstat=0
perfrec=0
keep=0
reverse=0
fresh=0
counted=1
osd_env=()
usage() {
	echo "usage: $0 [-B BUILD_DIR] [-n PAIRS] [-s SECONDS] [-t CONCURRENCY] [-p PORT_BASE] [-a] [-r] [-P] [-W] [-E VAR=VAL]... [-k] [-R] [-F]" >&2
	echo "  -E: environment for both OSDs (no blanks)  -a: A/A (two bare clusters, the noise floor)  -P: perf stat per round  -R: perf record per round" >&2
	echo "  -r: start the second configuration's cluster first  -W: no warm-up round  -k: keep the work dir (outputs, logs)" >&2
	echo "  -F: fresh clusters for every pair of rounds" >&2
	exit 2
}
while getopts "B:n:s:t:p:arPRWE:kF" o; do
	case $o in
	B) build=$OPTARG ;;
	n) pairs=$OPTARG ;;
	s) secs=$OPTARG ;;
	t) conc=$OPTARG ;;
	p) port_base=$OPTARG ;;
	a) aa=1 ;;
	r) reverse=1 ;;
	P) perfstat=1 ;;
	R) perfrec=1 ;;
	W) warmup=0 ;;
	E) osd_env+=("$OPTARG") ;;
	k) keep=1 ;;
	F) fresh=1 ;;
	*) usage ;;
	esac
done
for v in "$pairs" "$secs" "$conc" "$port_base"; do
	case $v in '' | *[!0-9]* | 0) echo "ceph_shim_iops: '$v' is not a positive number" >&2; usage ;; esac
done
mc="$src/scripts/ceph-minicluster"
corecap="$build/cli/corecap"
[ -x "$corecap" ] || { echo "ceph_shim_iops: cannot find '$corecap' (build first, or -B BUILD_DIR)" >&2; exit 1; }
for t in ceph ceph-osd rados python3; do
	command -v "$t" >/dev/null || { echo "ceph_shim_iops: '$t' is not installed (scripts/install-deps-ceph)" >&2; exit 1; }
done
[ "$perfstat$perfrec" = 00 ] || command -v perf >/dev/null || { echo "ceph_shim_iops: -P and -R need perf" >&2; exit 1; }
[ "$perfstat$perfrec" != 11 ] || { echo "ceph_shim_iops: -P and -R cannot be combined" >&2; exit 1; }

if [ "$aa" = 1 ]; then
	cfgs=(bareA bareB)
else
	cfgs=(bare shim)
fi
work=$(mktemp -d /tmp/iops-XXXXXX)
chmod 755 "$work"
perf_pid=""
cleanup() {
	[ -n "$perf_pid" ] && kill -INT "$perf_pid" 2>/dev/null
	for c in "${cfgs[@]}"; do
		[ -e "$work/$c/.ceph-minicluster" ] && "$mc" stop "$work/$c" >/dev/null 2>&1
	done
	if [ "$keep" = 1 ]; then
		echo "kept $work" >&2
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'echo "ceph_shim_iops: interrupted, stopping the clusters" >&2; exit 130' INT TERM

declare -A pid
start_order=("${cfgs[@]}")
[ "$reverse" = 1 ] && start_order=("${cfgs[1]}" "${cfgs[0]}")
# start_clusters: a fresh cluster per configuration in $work/CFG.
start_clusters() {
	local c base=$port_base wrap
	for c in "${start_order[@]}"; do
		base=$("$mc" port-base "$base") || exit 1
		wrap=""
		[ "${#osd_env[@]}" -gt 0 ] && wrap="env ${osd_env[*]}"
		[ "$c" = shim ] && wrap="${wrap:+$wrap }$corecap run --"
		wrap=(${wrap:+--osd-wrapper "$wrap"})
		echo "starting cluster '$c' in $work/$c (port base $base)" >&2
		"$mc" start "$work/$c" --port-base "$base" "${wrap[@]}" >"$work/$c.start" 2>&1 ||
			{ echo "ceph_shim_iops: cluster '$c' did not start:" >&2; cat "$work/$c.start" >&2; exit 1; }
		pid[$c]=$(cat "$work/$c/osd.0.pid")
		base=$((base + 100))
	done
	if [ "$aa" = 0 ]; then
		grep -q libcorecap-preload "/proc/${pid[shim]}/maps" ||
			{ echo "ceph_shim_iops: the shimmed OSD has no libcorecap-preload.so mapped" >&2; exit 1; }
		grep -q libcorecap-preload "/proc/${pid[bare]}/maps" &&
			{ echo "ceph_shim_iops: the bare OSD has libcorecap-preload.so mapped" >&2; exit 1; }
	fi
}
stop_clusters() {
	local c
	for c in "${cfgs[@]}"; do
		"$mc" stop "$work/$c" >/dev/null 2>&1 || echo "ceph_shim_iops: stopping cluster '$c' failed" >&2
		rm -rf "${work:?}/$c"
	done
}

# The OSD's utime+stime in clock ticks (all its threads, live and exited).
osd_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
hz=$(getconf CLK_TCK)
# The machine's "steal total" ticks (/proc/stat): on a shared VM the host
# takes CPU from it at times, and a round with steal runs slower.
# The shim's own counters (shim OSD only): hot locks (those contended at
# least once: their holds are counted, the uncontended ones sampled), their holds, and all
# acquisitions and contentions, as "hot_locks holds acquisitions contentions".
shim_counts() {
	"$build/preload/corecap-stats-dump" "$1" 2>/dev/null | awk -F'\t' '
		$1 == "lock" { n++; h += $8 + $11 }
		$1 == "total" { a = $5; c = $7 }
		END { print n + 0, h + 0, a + 0, c + 0 }'
}
cpu_steal() { awk '/^cpu / { t = 0; for (i = 2; i <= 9; i++) t += $i; print $9, t }' /proc/stat; }

# round CFG N: one rados bench write on a fresh pool of cluster CFG; appends
# "iops cpu_us_per_op [task_ms cs_per_op sys_per_op]" to $work/CFG.rounds and
# prints that round's line.
round() {
	local c=$1 n=$2 pool=r$2 out=$work/$1.$2.out t0 t1 s0 s1 k0 k1 iops ops load
	"$mc" mkpool "$work/$c" "$pool" >>"$work/pools.log" 2>&1 ||
		{ echo "ceph_shim_iops: mkpool $c $pool failed" >&2; tail -n 5 "$work/pools.log" >&2; return 1; }
	load=$(cut -d' ' -f1 /proc/loadavg)
	if [ "$perfstat" = 1 ]; then
		perf stat -x, -e task-clock,context-switches,raw_syscalls:sys_enter \
			-p "${pid[$c]}" -o "$out.perf" &
		perf_pid=$!
		sleep 0.2
	elif [ "$perfrec" = 1 ]; then
		perf record -q -e cpu-clock -F 2000 -p "${pid[$c]}" -o "$out.perf.data" 2>/dev/null &
		perf_pid=$!
		sleep 0.2
	fi
	t0=$(osd_ticks "${pid[$c]}")
	s0=$(cpu_steal)
	k0=""
	[ "$c" = shim ] && k0=$(shim_counts "${pid[$c]}")
	(
		eval "$("$mc" env "$work/$c")"
		rados -p "$pool" bench "$secs" write -b 1 -t "$conc" --no-cleanup >"$out" 2>"$out.err"
	) || echo "ceph_shim_iops: rados bench on '$c' failed: $(tail -n 1 "$out.err")" >&2
	t1=$(osd_ticks "${pid[$c]}")
	s1=$(cpu_steal)
	k1=""
	[ "$c" = shim ] && k1=$(shim_counts "${pid[$c]}")
	if [ -n "$perf_pid" ]; then
		kill -INT "$perf_pid" 2>/dev/null
		wait "$perf_pid" 2>/dev/null
		perf_pid=""
	fi
	"$mc" rmpool "$work/$c" "$pool" >>"$work/pools.log" 2>&1 ||
		echo "ceph_shim_iops: rmpool $c $pool failed" >&2
	iops=$(awk -F: '/^Average IOPS/ { gsub(/ /, "", $2); print $2 }' "$out")
	ops=$(awk -F: '/^Total writes made/ { gsub(/ /, "", $2); print $2 }' "$out")
	[ "$perfrec$counted" != 11 ] || echo "$out.perf.data ${ops:-0}" >>"$work/$c.perfrec"
	awk -v i="${iops:-0}" -v n="${ops:-0}" -v d=$((t1 - t0)) -v hz="$hz" -v perf="$out.perf" -v c="$c" \
		-v r="$n" -v load="$load" -v rounds="$([ "$counted" = 1 ] && echo "$work/$c.rounds")" -v s0="$s0" -v s1="$s1" -v k0="$k0" -v k1="$k1" 'BEGIN {
		cpu = n ? d / hz * 1e6 / n : 0
		split(s0, a, " ")
		split(s1, b, " ")
		steal = (b[2] > a[2]) ? 100 * (b[1] - a[1]) / (b[2] - a[2]) : 0
		line = sprintf("%d %.1f", i, cpu)
		extra = ""
		while ((getline l < perf) > 0) {
			split(l, f, ",")
			if (f[3] == "task-clock") tc = f[1]
			if (f[3] == "context-switches") cs = f[1]
			if (f[3] == "raw_syscalls:sys_enter") sc = f[1]
		}
		if (tc != "" && n) {
			line = line sprintf(" %.1f %.2f %.2f", tc * 1e3 / n, cs / n, sc / n)
			extra = sprintf("  perf: %.1f us task-clock/op, %.2f cs/op, %.2f syscalls/op", tc * 1e3 / n, cs / n, sc / n)
		}
		if (k1 != "" && n) {
			split(k0, x, " ")
			split(k1, y, " ")
			extra = extra sprintf("  shim: %d hot locks, %.2f hot holds/op, %.1f acquisitions/op, %.3f contentions/op",
				y[1], (y[2] - x[2]) / n, (y[3] - x[3]) / n, (y[4] - x[4]) / n)
		}
		if (rounds != "")
			print line >> rounds
		printf "round %2d %-6s %6d IOPS  %6.1f us CPU/op  (%d ops, load %s, steal %.0f%%)%s\n", r, c, i, cpu, n, load, steal, extra
	}'
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

a=${cfgs[0]} b=${cfgs[1]}
echo "ceph_shim_iops: rados bench $secs write -b 1 -t $conc, $pairs pairs in ABBA order ($a/$b), a fresh pool per round$([ "$fresh" = 1 ] && echo ", fresh clusters per pair")"
# The first round on a fresh cluster does more work per op (its first
# pool after the start: ~10 syscalls per op instead of ~6.5): one round on
# each, not counted.
warm_up() {
	local c
	counted=0
	[ "$warmup" = 1 ] && for c in "$a" "$b"; do round "$c" "w$1" >/dev/null; done
	counted=1
}
clusters_line() {
	echo "OSD pids: $a ${pid[$a]}, $b ${pid[$b]}; started first: ${start_order[0]}${osd_env[*]:+; OSD environment: ${osd_env[*]}}$([ "$warmup" = 1 ] && echo "; warm-up rounds done")"
}
if [ "$fresh" = 0 ]; then
	start_clusters
	warm_up 0
	clusters_line
fi
for p in $(seq 1 "$pairs"); do
	if [ "$fresh" = 1 ]; then
		# Odd pairs start in the given order, even pairs the other way.
		start_order=("${cfgs[@]}")
		[ $(((p + reverse) % 2)) = 0 ] && start_order=("${cfgs[1]}" "${cfgs[0]}")
		start_clusters
		warm_up "$p"
		clusters_line
	fi
	if [ $((p % 2)) = 1 ]; then order=("$a" "$b"); else order=("$b" "$a"); fi
	for c in "${order[@]}"; do round "$c" "$p"; done
	[ "$fresh" = 1 ] && stop_clusters
done

# Each pair is one line in both files (the order of its rounds aside).
paste -d' ' "$work/$b.rounds" "$work/$a.rounds" >"$work/pairs"
n=$(wc -l <"$work/pairs")
printf '%s\n' "pair ratios $b/$a (IOPS):" \
	"$(awk '{ printf "%.3f ", ($(NF/2+1) > 0) ? $1 / $(NF/2+1) : 0 } END { print "" }' "$work/pairs")"
awk '{ if ($(NF/2+1) > 0) print $1 / $(NF/2+1) }' "$work/pairs" >"$work/ratios"
awk '{ if ($(NF/2+2) > 0) print $2 / $(NF/2+2) }' "$work/pairs" >"$work/cpu_ratios"
mr=$(median <"$work/ratios")
lo=$(sort -g "$work/ratios" | head -n 1)
hi=$(sort -g "$work/ratios" | tail -n 1)
below=$(awk '$1 < 0.95' "$work/ratios" | wc -l)
ma=$(cut -d' ' -f1 "$work/$a.rounds" | median)
mb=$(cut -d' ' -f1 "$work/$b.rounds" | median)
ca=$(cut -d' ' -f2 "$work/$a.rounds" | median)
cb=$(cut -d' ' -f2 "$work/$b.rounds" | median)
mcr=$(median <"$work/cpu_ratios")
printf 'median IOPS: %s %s, %s %s (ratio of medians %.3f)\n' "$a" "$ma" "$b" "$mb" "$(awk -v x="$mb" -v y="$ma" 'BEGIN { print (y > 0) ? x / y : 0 }')"
printf 'median of the %d pair ratios %s/%s: %.3f (range %.3f-%.3f; %d below 0.95)\n' "$n" "$b" "$a" "$mr" "$lo" "$hi" "$below"
# The geometric mean of the ratios and its one-sided 95% confidence bounds
# (Student's t on the logarithms): what a run of N pairs can say about the
# true ratio, given the spread of its pairs.
awk -v b="$b" -v a="$a" '$1 > 0 { n++; l[n] = log($1); s += l[n] }
	END {
		if (n < 2) { printf "geometric mean of the pair ratios %s/%s: needs 2 pairs or more\n", b, a; exit }
		m = s / n
		for (i = 1; i <= n; i++) v += (l[i] - m) ^ 2
		sd = sqrt(v / (n - 1))
		split("6.314 2.920 2.353 2.132 2.015 1.943 1.895 1.860 1.833 1.812", t, " ")
		tq = (n - 1 <= 10) ? t[n - 1] : 1.8
		printf "geometric mean of the %d pair ratios %s/%s: %.3f (one-sided 95%% bounds: lower %.3f, upper %.3f; sd of the log ratios %.3f)\n",
			n, b, a, exp(m), exp(m - tq * sd / sqrt(n)), exp(m + tq * sd / sqrt(n)), sd
	}' "$work/ratios"
printf 'median CPU per op: %s %.1f us, %s %.1f us (ratio of medians %.3f; median of pair ratios %.3f)\n' \
	"$a" "$ca" "$b" "$cb" "$(awk -v x="$cb" -v y="$ca" 'BEGIN { print (y > 0) ? x / y : 0 }')" "$mcr"
if [ "$perfstat" = 1 ]; then
	for c in "$a" "$b"; do
		printf 'median perf stat per op, %s: %.1f us task-clock, %.2f context switches, %.2f syscalls\n' "$c" \
			"$(cut -d' ' -f3 "$work/$c.rounds" | median)" "$(cut -d' ' -f4 "$work/$c.rounds" | median)" \
			"$(cut -d' ' -f5 "$work/$c.rounds" | median)"
	done
fi
# perf_per_op CFG: "dso symbol us_per_op" for CFG's rounds pooled (a
# cpu-clock sample at 2000 Hz is 500 us of CPU).
perf_per_op() {
	local data ops total=0
	while read -r data ops; do
		total=$((total + ops))
		perf report -i "$data" --stdio -q --no-children --sort dso,sym -n -F sample,dso,sym 2>/dev/null
	done <"$work/$1.perfrec" | awk -v ops="$(awk '{ n += $2 } END { print n }' "$work/$1.perfrec")" '
		NF >= 3 { k = $2; for (i = 3; i <= NF; i++) k = k " " $i; s[k] += $1 }
		END { for (k in s) printf "%s\t%.3f\n", k, s[k] * 500 / ops }'
}
if [ "$perfrec" = 1 ]; then
	perf_per_op "$a" | sort >"$work/$a.perop"
	perf_per_op "$b" | sort >"$work/$b.perop"
	printf 'perf record, us of CPU per op (pooled rounds): %s %.1f, %s %.1f\n' \
		"$a" "$(awk -F'\t' '{ t += $2 } END { print t }' "$work/$a.perop")" \
		"$b" "$(awk -F'\t' '{ t += $2 } END { print t }' "$work/$b.perop")"
	echo "functions whose time per op differs most ($b minus $a, us per op):"
	join -t "$(printf '\t')" -a1 -a2 -e 0 -o 0,1.2,2.2 "$work/$a.perop" "$work/$b.perop" |
		awk -F'\t' '{ printf "%8.3f  %8.3f %8.3f  %s\n", $3 - $2, $2, $3, $1 }' |
		sort -g -k1,1 | awk '{ l[NR] = $0 } END { for (i = 1; i <= 12 && i <= NR; i++) print l[i]; print "  ..."; for (i = (NR > 24 ? NR - 11 : 13); i <= NR; i++) print l[i] }'
fi
exit 0
