#!/usr/bin/env bash
# Known answers for the projection (docs/methodology.md, "Projection"):
# refosd in six configurations whose bound differs by construction (the
# sixth, a benchmark with one op in flight: its closed loop). For
# each, the daemon runs pinned to CPU 0 (taskset; refbench on CPU 1),
# `corecap record` + `corecap report --json` project its throughput to 2
# CPUs with the client on the same cores (ceiling.projection[1]
# iops_with_client) and name the bound there; then the daemon runs on
# CPUs 0-1, refbench beside it, and the throughput at 2 is measured, with
# and without the option that constructs the bound (its relief); one
# more run on CPUs 0-1 is recorded for its diagnosis. Prints one row per
# configuration: the constructed bound, the bound named at 2 CPUs,
# projected vs measured IOPS and their ratio (the target: within 15%),
# and the IOPS measured with the bound relieved; verdicts.tsv adds the
# 2-CPU run's diagnosis (kind, name), the throughput it states for its
# headroom (headroom_iops) and its next limit (kind, ops/s).
#
# The relief of each bound (RELIEF below): the options that construct it
# dropped where that keeps the daemon's work (--big-lock; --msgr-threads 1,
# the messenger's 60 us per request then spread over refosd's default 3
# threads), else the work itself dropped (refosd has one finisher and one
# log thread: --finisher-cpu-us, --log-cpu-us); the closed loop's, 16 ops
# in flight (-t 16) for 1; the cores', none (this machine has no more).
#
# usage: bench/ceiling_projection.sh [BUILD_DIR]   (default ./build)
#   CEILING_BENCH_S   seconds per benchmark run (default 3)
#   CEILING_OUT       where the runs are kept (default a temp dir, removed)
#   CEILING_CONFIGS   the configurations to run (default all six)
#   CEILING_ROUNDS    rounds per configuration (default 3): the table gives
#                     the medians of the projected and the measured IOPS
# A benchmark, not a test: it exits 0 unless it cannot measure; the
# test tests/e2e/ceiling_verdicts.sh runs it and checks the verdicts.
set -euo pipefail
prog=ceiling_projection
. "$(dirname "$0")/bench_lib.sh"
build=$(cd "${1:-build}" && pwd)
corecap="$build/cli/corecap"
refosd="$build/tests/refosd/refosd"
refbench="$build/tests/refosd/refbench"
secs=${CEILING_BENCH_S:-3}
for b in "$corecap" "$refosd" "$refbench"; do
	[ -x "$b" ] || { echo "ceiling_projection: $b is not built" >&2; exit 1; }
done
# A daemon started before the session daemon is not registered with LTTng.
"$(dirname "$0")/../scripts/sessiond-start"
command -v taskset >/dev/null || { echo "ceiling_projection: taskset (util-linux) is missing" >&2; exit 1; }
[ "$(nproc)" -ge 2 ] || { echo "ceiling_projection: needs 2 CPUs (have $(nproc))" >&2; exit 1; }
if [ -n "${CEILING_OUT:-}" ]; then
	out=$CEILING_OUT
	mkdir -p "$out"
else
	out=$(mktemp -d /tmp/ceiling-projection.XXXXXX)
	trap 'rm -rf "$out"' EXIT
fi

osd_pid=""
cleanup_osd() {
	[ -z "$osd_pid" ] || { kill -TERM "$osd_pid" 2>/dev/null || true; wait "$osd_pid" 2>/dev/null || true; }
	osd_pid=""
}
trap 'cleanup_osd; [ -n "${CEILING_OUT:-}" ] || rm -rf "$out"' EXIT

# start CPUS NAME [refosd options]: refosd under the shim on CPUS; osd_pid, osd_port.
start() {
	local cpus=$1 name=$2 i
	shift 2
	: >"$out/$name.out"
	taskset -c "$cpus" "$corecap" run -- "$refosd" --port 0 "$@" >"$out/$name.out" 2>"$out/$name.err" &
	osd_pid=$!
	for i in $(seq 1 200); do
		osd_port=$(sed -n 's/^refosd: listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$out/$name.out")
		[ -n "$osd_port" ] && return 0
		sleep 0.05
	done
	echo "ceiling_projection: refosd $* did not start" >&2
	cat "$out/$name.err" >&2
	exit 1
}

busy() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat; }

# busy_cores T0_BUSY T0_S: the machine's busy cores since (busy, seconds).
busy_cores() {
	local m1 t1
	read -r m1 _ < <(busy)
	t1=$(date +%s.%N)
	awk -v a="$1" -v b="$m1" -v s="$(awk -v x="$2" -v y="$t1" 'BEGIN { print y - x }')" \
		-v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (b - a) / hz / (s > 0 ? s : 1) }'
}

# median of the arguments
median() { printf '%s\n' "$@" | bench_median; }

rounds=${CEILING_ROUNDS:-3}
printf '%-9s %-28s %-36s %10s %10s %6s %9s %s\n' config constructed "named at 2 CPUs" projected measured ratio \
	relieved "[min-max ratio of the rounds]; machine busy in the 1-CPU and the 2-CPU runs"
# measure2 NAME REFOSD_ARGS...: refosd on both CPUs, refbench beside it;
# prints its IOPS.
measure2() {
	local name=$1 iops
	shift
	start 0-1 "$name" "$@"
	"$refbench" -p "$osd_port" $bargs -d "$secs" --no-progress write >"$out/$name.bench" 2>&1
	cleanup_osd
	iops=$(bench_iops "$out/$name.bench")
	[ -n "$iops" ] || { echo "ceiling_projection: refbench printed no IOPS:" >&2; cat "$out/$name.bench" >&2; exit 1; }
	echo "$iops"
}

# diagnose2 NAME REFOSD_ARGS...: refosd on both CPUs recorded under
# refbench beside it; its report in NAME.diag.{json,txt,html}; prints the
# diagnosis' "KIND<TAB>NAME<TAB>HEADROOM_IOPS<TAB>NEXT_KIND<TAB>NEXT_IOPS"
# (docs/methodology.md, "The diagnosis"; "-" for a figure it does not state).
diagnose2() {
	local name=$1 run
	shift
	run="$out/$name.diag"
	start 0-1 "$name.diag" "$@"
	"$corecap" record -q -p "$osd_pid" -o "$run" --force -- \
		"$refbench" -p "$osd_port" $bargs -d "$secs" --no-progress write \
		>"$run.record" 2>&1 || { echo "ceiling_projection: record failed:" >&2; cat "$run.record" >&2; exit 1; }
	cleanup_osd
	"$corecap" report --json "$run" >"$run.json"
	"$corecap" report "$run" >"$run.txt"
	"$corecap" html -o "$run.html" "$run" >/dev/null 2>&1
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["diagnosis"]
n = d.get("next") or {}
f = lambda v: "-" if v is None else "%.0f" % v
print("\t".join([d["kind"], d["name"] or "", f(d.get("headroom_iops")), n.get("kind") or "-", f(n.get("ops_per_s"))]))' "$run.json"
}

# config NAME CONSTRUCTED BENCH_ARGS RELIEF -- REFOSD_ARGS: `rounds` rounds,
# each a run on 1 CPU projected to 2, a run measured on 2, and one on 2
# relieved (the constructed bound lifted): without the RELIEF options, or,
# for RELIEF "bench:ARGS", with the benchmark's ARGS instead ("-": none
# can be, the cores); medians of each.
config() {
	local name=$1 want=$2 bargs=$3 relief=$4 pj bound meas rel m0 t0 r run diag pjs=() meass=() rels=() ratios=() b1=() b2=()
	local relieved rbargs=$3
	shift 5
	relieved=$(printf ' %s' "$@")
	case $relief in
	bench:*) rbargs=${relief#bench:} ;;
	*) relieved=${relieved/" $relief"/} ;;
	esac
	case " ${CEILING_CONFIGS:-$name} " in *" $name "*) ;; *) return 0 ;; esac
	for r in $(seq 1 "$rounds"); do
		run="$out/$name.$r"
		# 1 CPU for the daemon, the other for refbench.
		start 0 "$name-1cpu" "$@"
		read -r m0 _ < <(busy)
		t0=$(date +%s.%N)
		"$corecap" record -q -p "$osd_pid" -o "$run" --force -- \
			taskset -c 1 "$refbench" -p "$osd_port" $bargs -d "$secs" --no-progress write \
			>"$run.record" 2>&1 || { echo "ceiling_projection: record failed:" >&2; cat "$run.record" >&2; exit 1; }
		b1+=("$(busy_cores "$m0" "$t0")")
		cleanup_osd
		"$corecap" report --json "$run" >"$run.json"
		# refbench shares the 2 CPUs of the measurement: the projection with the
		# client on the same cores (its CPU per op, from this run) is the one to
		# compare; without the client's CPU figure, the daemon's alone.
		read -r pj bound < <(bench_projected2 "$run.json")
		# Measured at 2 CPUs (refbench shares them).
		read -r m0 _ < <(busy)
		t0=$(date +%s.%N)
		meas=$(measure2 "$name.$r.2cpu" "$@")
		b2+=("$(busy_cores "$m0" "$t0")")
		# shellcheck disable=SC2086 # the relieved options, split on blanks
		[ "$relief" = - ] || rels+=("$(bargs=$rbargs measure2 "$name.$r.relieved" $relieved)")
		pjs+=("$pj") meass+=("$meas")
		ratios+=("$(awk -v a="$pj" -v b="$meas" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }')")
		echo "$name	$r	$bound	$pj	$meas" >>"$out/rounds.tsv"
	done
	# The diagnosis of one recorded run on 2 CPUs (the first round's options).
	diag=$(diagnose2 "$name" "$@")
	pj=$(median "${pjs[@]}") meas=$(median "${meass[@]}") rel=-
	[ "$relief" = - ] || rel=$(median "${rels[@]}")
	printf '%-9s %-28s %-36s %10.0f %10.0f %6.2f %9s [%s-%s]; %s; %s; diagnosis on 2: %s\n' "$name" "$want" "$bound" "$pj" "$meas" \
		"$(awk -v a="$pj" -v b="$meas" 'BEGIN { print (b > 0) ? a / b : 0 }')" \
		"$([ "$rel" = - ] && echo - || printf '%.0f' "$rel")" \
		"$(printf '%s\n' "${ratios[@]}" | sort -g | head -1)" "$(printf '%s\n' "${ratios[@]}" | sort -g | tail -1)" \
		"${b1[*]}" "${b2[*]}" "${diag//	/ }"
	echo "$name	$want	$bound	$pj	$meas	$rel	$diag" >>"$out/verdicts.tsv"
}

: >"$out/rounds.tsv"
: >"$out/verdicts.tsv"
config biglock "lock (the big lock)" "-t 16 -b 1" "--big-lock" -- --big-lock --op-cpu-us 50 --debug 0
config msgr "thread msgr-worker-0" "-t 16 -b 1" "--msgr-threads 1" -- --msgr-threads 1 --msgr-cpu-us 60 --debug 0
config finisher "thread finisher" "-t 32 -b 1" "--finisher-cpu-us 60" -- --shards 8 --threads-per-shard 2 --finisher-cpu-us 60 --debug 5
config debug20 "thread log (or its lock)" "-t 16 -b 1" "--log-cpu-us 10" -- --debug 20 --log-cpu-us 10
config cpu "cores" "-t 16 -b 1" - -- --op-cpu-us 100 --debug 0
config loop "the closed loop (-t 1)" "-t 1 -b 1" "bench:-t 16 -b 1" -- --op-cpu-us 50 --debug 0
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); runs in $out"
