#!/usr/bin/env bash
# ceph_projection: issue #15's Ceph known answer, reported and not
# asserted: a real ceph-osd (memstore, under the shim: `corecap run --`)
# pinned to CPU 0 while `rados bench write -b 1 -t 10` runs on CPU 1 is
# recorded, `corecap report --json` projects its throughput to 2 CPUs with
# the client on them (ceiling.projection[1].iops_with_client) and names
# the bound; then every thread of the same OSD is allowed both CPUs
# (taskset -a -p) and the same benchmark, unpinned, measures it. Rounds
# alternate the two on one cluster; prints each round and the medians.
#
# usage: bench/ceph_projection.sh [-B BUILD_DIR] [-r ROUNDS] [-d SECONDS] [-p PORT_BASE] [-k]
# -k keeps the work directory (the runs, their reports, the benchmarks' output).
# A benchmark, not a test: it exits 0 whatever the ratio (1 if it cannot
# measure). Figures: docs/methodology.md, "Projection".
set -euo pipefail
prog=ceph_projection
. "$(dirname "$0")/bench_lib.sh"
rounds=3
secs=5
port_base=""
keep=0
bench_option() {
	case $1 in
	p) port_base=$OPTARG ;;
	k) keep=1 ;;
	*) return 1 ;;
	esac
}
bench_options "B:r:d:p:k" "[-B BUILD_DIR] [-r ROUNDS] [-d SECONDS] [-p PORT_BASE] [-k]" "$@"
bench_need "$corecap"
for t in ceph ceph-osd rados taskset python3; do
	command -v "$t" >/dev/null || { echo "$prog: '$t' is not installed (scripts/install-deps-ceph)" >&2; exit 1; }
done
[ "$(nproc)" -ge 2 ] || { echo "$prog: needs 2 CPUs (have $(nproc))" >&2; exit 1; }
src=$(cd "$(dirname "$0")/.." && pwd)
mc="$src/scripts/ceph-minicluster"
"$src/scripts/sessiond-start"
work=$(mktemp -d /tmp/ceph-projection.XXXXXX)
chmod 755 "$work"
trap '"$mc" stop "$work/c" >/dev/null 2>&1; if [ "$keep" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi' EXIT
[ -n "$port_base" ] || port_base=$("$mc" port-base)
"$mc" start "$work/c" --port-base "$port_base" --osd-wrapper "$corecap run --" >"$work/start.out" 2>&1 ||
	{ echo "$prog: the cluster did not start:" >&2; tail -n 20 "$work/start.out" >&2; exit 1; }
osd=$(sed -n 's/^osd\.0 pid: \([0-9]*\)$/\1/p' "$work/start.out")
[ -n "$osd" ] || { echo "$prog: no OSD pid in the cluster's start output" >&2; exit 1; }
eval "$("$mc" env "$work/c")"


# One warm-up run on both CPUs, not counted.
rados -p bench bench 2 write -b 1 -t 10 --no-cleanup >/dev/null 2>&1 || true
printf '%-5s %10s %10s %6s  %s\n' round projected measured ratio "bound named at 2 CPUs (with the client)"
pjs=() meass=()
for r in $(seq 1 "$rounds"); do
	taskset -a -p -c 0 "$osd" >/dev/null
	"$corecap" record -q -p "$osd" -o "$work/run.$r" --force -- \
		taskset -c 1 rados -p bench bench "$secs" write -b 1 -t 10 --no-cleanup >"$work/record.$r" 2>&1 ||
		{ echo "$prog: record failed:" >&2; tail -n 20 "$work/record.$r" >&2; exit 1; }
	"$corecap" report --json "$work/run.$r" >"$work/run.$r.json"
	read -r pj bound < <(bench_projected2 "$work/run.$r.json")
	taskset -a -p -c 0-1 "$osd" >/dev/null
	rados -p bench bench "$secs" write -b 1 -t 10 --no-cleanup >"$work/measure.$r" 2>&1 ||
		{ echo "$prog: rados bench failed:" >&2; tail -n 5 "$work/measure.$r" >&2; exit 1; }
	meas=$(bench_iops "$work/measure.$r")
	printf '%-5s %10.0f %10.0f %6.2f  %s\n' "$r" "$pj" "$meas" "$(awk -v a="$pj" -v b="$meas" 'BEGIN { print a / b }')" "$bound"
	pjs+=("$pj") meass+=("$meas")
done
pj=$(printf '%s\n' "${pjs[@]}" | bench_median) meas=$(printf '%s\n' "${meass[@]}" | bench_median)
printf '%-5s %10.0f %10.0f %6.2f\n' median "$pj" "$meas" "$(awk -v a="$pj" -v b="$meas" 'BEGIN { print a / b }')"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
