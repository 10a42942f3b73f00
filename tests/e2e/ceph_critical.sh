#!/usr/bin/env bash
# The critical path of a real ceph-osd's OpTracker ops (issue #13,
# docs/methodology.md, "The critical path of an OpTracker op"). One
# ceph-osd runs under the shim; its debug levels are switched through the
# admin socket between alternating rounds of `rados bench write -b 1 -t 1`
# recorded by the default `corecap record` (kernel events, with the
# kernel's on-CPU stacks as the wall-clock samples; no thread is
# stopped): the 16.2 defaults (debug_osd 1/5, debug_ms
# 0/0) and verbose (20/20, 1/1). Known answers:
#  - every op's critical path sums to its latency (arrival to reply), and
#    so does every phase's; the phases' paths add up to the op's; the
#    runqueue split by whom it waited behind adds up to the runqueue;
#  - the critical path's `logging` explains 0.8-1.2 of the latency verbose
#    logging adds, on the means over the rounds;
#  - `queue` (no thread of the daemon had the op) is at most 15% of the
#    verbose latency.
set -uo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
. "$CORECAP_SRC/tests/e2e/ceph_lib.sh"
ceph_need_tools
need_sessiond
ceph_work ceph-critical

ROUNDS=${CORECAP_CEPH_ROUNDS:-3}
BENCH_S=${CORECAP_CEPH_BENCH_S:-2}
# The default record's on-CPU stacks (manifest wallclock.sampler
# kernel-oncpu) give the op-path threads' share of logging code, which
# splits the paths' cpu (Ceph formats its log entries in the caller).
# CORECAP_CEPH_CRIT_RECORD_OPTS adds record options, e.g. the ptrace
# sampler's "--wallclock=500 --wallclock-threads msgr-worker-*,tp_osd_tp,
# fn_anonymous,finisher" to compare it (the sampler check then differs).
read -r -a EXTRA <<<"${CORECAP_CEPH_CRIT_RECORD_OPTS:-}"
SAMPLER=kernel-oncpu
[ "${#EXTRA[@]}" -gt 0 ] && SAMPLER=$(printf '%s\n' "${EXTRA[@]}" | grep -q '^--wallclock' && echo ptrace || echo kernel-oncpu)
. "$CORECAP_SRC/tests/e2e/kernel_analysis_lib.sh"

base=$(ceph_free_base 48389) || skip "no free port range found for the cluster"
ceph_start osd "$base" --osd-wrapper "$CORECAP run --"
pid=$(cat "$work/osd/osd.0.pid")
asok="$work/osd/run/ceph-osd.0.asok"
need_kernel_record "$pid"

# round NAME: one recorded rados bench on a fresh pool; prints
# "lat_us logging_us queue_us ops max_phase_err_us conserved".
round() {
	local name=$1 run="$work/$1" rc=0
	"$mc" mkpool "$work/osd" "$name" >>"$work/pools.log" 2>&1 || { echo "FAIL: mkpool $name" >&2; return 1; }
	(
		eval "$("$mc" env "$work/osd")"
		"$CORECAP" record -q -p "$pid" ${EXTRA[@]+"${EXTRA[@]}"} -o "$run" -- \
			rados -p "$name" bench "$BENCH_S" write -b 1 -t 1 --no-cleanup
	) >"$run.out" 2>"$run.err" || rc=$?
	"$mc" rmpool "$work/osd" "$name" >>"$work/pools.log" 2>&1 || echo "warning: rmpool $name failed" >&2
	[ "$rc" -eq 0 ] || { echo "FAIL: corecap record ($name) exited $rc" >&2; tail -n 5 "$run.err" >&2; return 1; }
	"$CORECAP" report "$run" --json >"$run.json" 2>"$run.report.err" ||
		{ echo "FAIL: corecap report $name" >&2; cat "$run.report.err" >&2; return 1; }
	python3 - "$run.json" "$run/manifest.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
wall = json.load(open(sys.argv[2])).get("wallclock") or {}
ot = r["ceph"]["optracker"]
w = [t for t in ot["types"] if t["type"] == "write"][0]
cp = w["critical_path"]
us = cp["us"]
# The phases' paths, per op of the type, add up to the op's (each phase
# is a walk of its own). An end that found no thread to end on leaves
# either way: a phase without one leaves a gap (the sum below the op's),
# an op without one (then its last phase, which ends at the same stamp,
# has none either) leaves its other phases counted without it (the sum
# above the op's): the bound is exact only when every end found a thread.
ph = sum(sum(p["us"].values()) for p in cp["phases"] if p["us"])
cons = r["ops"]["critical_path_conservation"]
# Whom the runqueue waited behind sums to it.
behind = cp["runqueue_behind_us"]
cons_ok = cons["violations"] == 0 and cons["checked"] > 0 and \
    abs(sum(behind.values()) - us["runqueue"]) <= 0.01 + 1e-3 * us["runqueue"]
print(cp["lat_avg_us"], us["logging"], us["queue"], cp["ops"],
      round(cp["lat_avg_us"] - ph, 3), cons_ok,
      ot["critical_path"]["ends_without_thread"],
      "%s:%s" % (wall.get("sampler", "none"), wall.get("samples", 0)),
      " ".join("%s=%s" % (k, v) for k, v in us.items() if v) + " (runqueue behind: " +
      " ".join("%s=%s" % (k, v) for k, v in behind.items()) + ")")
PY
}

declare -A lat log que
n_ok=0
for r in $(seq 1 "$ROUNDS"); do
	for cfg in default verbose; do
		if [ "$cfg" = default ]; then ceph_set_debug "$asok" 1/5 0/0; else ceph_set_debug "$asok" 20/20 1/1; fi
		line=$(round "$cfg$r") || { expect_true "round $cfg$r recorded and reported" false; continue; }
		read -r l lg q n gap cons unpicked wall cats <<<"$line"
		echo "round $r $cfg: write latency $l us over $n ops; critical path: $cats (ends without a thread: $unpicked; wall-clock samples $wall)"
		expect_true "round $r $cfg: the wall-clock samples are the $SAMPLER sampler's, at least 100 ($wall)" \
			awk -v w="$wall" -v s="$SAMPLER" 'BEGIN { split(w, a, ":"); exit !(a[1] == s && a[2] >= 100) }'
		expect_eq "round $r $cfg: every op's and phase's path sums to its latency, its runqueue's holders to its runqueue" True "$cons"
		expect_true "round $r $cfg: at least 100 write ops have a path ($n)" \
			awk -v n="$n" 'BEGIN { exit !(n >= 100) }'
		expect_true "round $r $cfg: the phases cover the op's path (gap $gap us of $l, $unpicked ends without a thread)" \
			awk -v g="$gap" -v l="$l" -v u="$unpicked" \
			'BEGIN { exit !(g >= (u > 0 ? -0.02 * l : -0.01) && g <= 0.02 * l) }'
		lat[$cfg]="${lat[$cfg]:-} $l"
		log[$cfg]="${log[$cfg]:-} $lg"
		que[$cfg]="${que[$cfg]:-} $q"
		n_ok=$((n_ok + 1))
	done
done
ceph_set_debug "$asok" 1/5 0/0
[ "$n_ok" -eq $((2 * ROUNDS)) ] || { finish; exit 1; }
mean() { printf '%s\n' $1 | awk '{ s += $1; n++ } END { printf "%.1f", s / n }'; }
ld=$(mean "${lat[default]}") lv=$(mean "${lat[verbose]}")
gd=$(mean "${log[default]}") gv=$(mean "${log[verbose]}")
qv=$(mean "${que[verbose]}")
added=$(awk -v a="$lv" -v b="$ld" 'BEGIN { printf "%.1f", a - b }')
explained=$(awk -v a="$gv" -v b="$gd" 'BEGIN { printf "%.1f", a - b }')
share=$(awk -v e="$explained" -v a="$added" 'BEGIN { printf "%.2f", (a > 0 ? e / a : 0) }')
echo "means over $ROUNDS rounds: latency default $ld us, verbose $lv us (+$added us); critical-path logging default $gd us, verbose $gv us (+$explained us): it explains $share; verbose queue $qv us"
expect_true "verbose logging adds latency ($ld -> $lv us)" awk -v a="$added" 'BEGIN { exit !(a > 20) }'
expect_true "the critical path's logging explains 0.8-1.2 of the added latency ($share)" \
	awk -v s="$share" 'BEGIN { exit !(s >= 0.8 && s <= 1.2) }'
expect_true "queue is at most 15% of the verbose latency ($qv of $lv us)" \
	awk -v q="$qv" -v l="$lv" 'BEGIN { exit !(q <= 0.15 * l) }'
"$CORECAP" report "$work/verbose1" 2>/dev/null | sed -n '/^ceph ops/,/^$/p'
finish
