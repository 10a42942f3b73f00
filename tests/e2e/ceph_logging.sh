#!/usr/bin/env bash
# What Ceph's verbose logging costs a write, and whether corecap's report
# says so (issue #7). One ceph-osd runs under the shim; its debug levels
# are switched through the admin socket between alternating rounds of
# `rados bench write -b 1 -t 1` (one op in flight, as in the measurement
# that "default logging costs 0.1-0.2 ms per op"): the 16.2 defaults
# (debug_osd 1/5, debug_ms 0/0) and verbose (20/20, 1/1). Each round is
# recorded with wall-clock samples of the op-path threads, and the report
# splits the OpTracker's write ops into categories (docs/methodology.md,
# "Ops without annotations"). Known answers:
#  - per round, the categories and queue sum to the ops' mean latency;
#  - verbose logging adds latency, and the report's `logging` grows by at
#    least half of what it adds: (log_v - log_d) >= 0.5 (lat_v - lat_d),
#    on the means over the rounds.
set -uo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
. "$CORECAP_SRC/tests/e2e/ceph_lib.sh"
ceph_need_tools
need_sessiond
ceph_work ceph-logging

ROUNDS=${CORECAP_CEPH_ROUNDS:-3}
# 2 s rounds: at up to ~3.5k IOPS the OSD's OpTracker history (10000 ops
# while corecap records) holds every op; a longer round can overflow it.
BENCH_S=${CORECAP_CEPH_BENCH_S:-2}
HZ=${CORECAP_CEPH_WALL_HZ:-200}
OP_THREADS='msgr-worker-*,tp_osd_tp,fn_anonymous'

base=$(ceph_free_base 48189) || skip "no free port range found for the cluster"
ceph_start osd "$base" --osd-wrapper "$CORECAP run --"
pid=$(cat "$work/osd/osd.0.pid")
asok="$work/osd/run/ceph-osd.0.asok"

# round NAME: one recorded rados bench on a fresh pool; prints
# "lat_us cpu_us logging_us lock_wait_us io_us queue_us samples complete bench_lat_us".
round() {
	local name=$1 run="$work/$1" rc=0
	"$mc" mkpool "$work/osd" "$name" >>"$work/pools.log" 2>&1 || { echo "FAIL: mkpool $name" >&2; return 1; }
	(
		eval "$("$mc" env "$work/osd")"
		"$CORECAP" record -q -p "$pid" --wallclock="$HZ" --wallclock-threads "$OP_THREADS" \
			-o "$run" -- rados -p "$name" bench "$BENCH_S" write -b 1 -t 1 --no-cleanup
	) >"$run.out" 2>"$run.err" || rc=$?
	"$mc" rmpool "$work/osd" "$name" >>"$work/pools.log" 2>&1 || echo "warning: rmpool $name failed" >&2
	[ "$rc" -eq 0 ] || { echo "FAIL: corecap record ($name) exited $rc" >&2; tail -n 5 "$run.err" >&2; return 1; }
	"$CORECAP" report "$run" >"$run.txt" 2>"$run.report.err" &&
		"$CORECAP" report "$run" --json >"$run.json" 2>>"$run.report.err" ||
		{ echo "FAIL: corecap report $name" >&2; cat "$run.report.err" >&2; return 1; }
	python3 - "$run.json" "$run/manifest.json" "$pid" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
wall = json.load(open(sys.argv[2]))["wallclock"]
ot = r["ceph"]["optracker"]
w = [t for t in ot["types"] if t["type"] == "write"][0]
c = w["categories"]
print(c["lat_avg_us"], c["cpu_us"], c["logging_us"], c["lock_wait_us"], c["io_us"],
      c["queue_us"], c["samples"], ot["complete"], r["benchmark"]["summary"]["lat_avg_s"] * 1e6,
      wall["max_threads"], len(os.listdir(f"/proc/{sys.argv[3]}/task")))
PY
}

declare -A lat log
n_ok=0
for r in $(seq 1 "$ROUNDS"); do
	for cfg in default verbose; do
		if [ "$cfg" = default ]; then ceph_set_debug "$asok" 1/5 0/0; else ceph_set_debug "$asok" 20/20 1/1; fi
		line=$(round "$cfg$r") || { expect_true "round $cfg$r recorded and reported" false; continue; }
		read -r l cpu lg lw io q n complete blat sampled all <<<"$line"
		echo "round $r $cfg: write latency (arrival to reply) $l us = cpu $cpu + logging $lg + lock_wait $lw + io $io + queue $q ($n samples; history complete: $complete; rados bench avg $blat us)"
		expect_eq "round $r $cfg: the OpTracker history holds every op" True "$complete"
		expect_true "round $r $cfg: only the op-path threads were sampled ($sampled of the OSD's $all)" \
			awk -v s="$sampled" -v a="$all" 'BEGIN { exit !(s >= 3 && s < a / 2) }'
		expect_true "round $r $cfg: the categories sum to the latency ($cpu+$lg+$lw+$io+$q = $l)" \
			awk -v a="$cpu" -v b="$lg" -v c="$lw" -v d="$io" -v e="$q" -v l="$l" \
			'BEGIN { s = a + b + c + d + e; exit !(s >= l - 0.6 && s <= l + 0.6) }'
		expect_true "round $r $cfg: at least 50 samples of op-path threads inside ops ($n)" \
			awk -v n="$n" 'BEGIN { exit !(n >= 50) }'
		lat[$cfg]="${lat[$cfg]:-} $l"
		log[$cfg]="${log[$cfg]:-} $lg"
		n_ok=$((n_ok + 1))
	done
done
ceph_set_debug "$asok" 1/5 0/0
[ "$n_ok" -eq $((2 * ROUNDS)) ] || { finish; exit 1; }
mean() { printf '%s\n' $1 | awk '{ s += $1; n++ } END { printf "%.1f", s / n }'; }
ld=$(mean "${lat[default]}") lv=$(mean "${lat[verbose]}")
gd=$(mean "${log[default]}") gv=$(mean "${log[verbose]}")
added=$(awk -v a="$lv" -v b="$ld" 'BEGIN { printf "%.1f", a - b }')
explained=$(awk -v a="$gv" -v b="$gd" 'BEGIN { printf "%.1f", a - b }')
share=$(awk -v e="$explained" -v a="$added" 'BEGIN { printf "%.2f", (a > 0 ? e / a : 0) }')
echo "means over $ROUNDS rounds: latency default $ld us, verbose $lv us (+$added us); logging default $gd us, verbose $gv us (+$explained us): logging explains $share of the added latency"
expect_true "verbose logging adds latency ($ld -> $lv us)" awk -v a="$added" 'BEGIN { exit !(a > 20) }'
expect_true "the report's logging explains at least half of the added latency (+$explained of +$added us)" \
	awk -v e="$explained" -v a="$added" 'BEGIN { exit !(a > 0 && e >= 0.5 * a) }'
sed -n '/^ceph ops/,/^$/p' "$work/verbose1.txt"
finish
