#!/usr/bin/env bash
# What Ceph's verbose logging costs a write, and whether corecap's report
# says so (issue #7). One ceph-osd runs under the shim; its debug levels
# are switched through the admin socket between alternating rounds of
# `rados bench write -b 1 -t 1` (one op in flight, as in the measurement
# that "default logging costs 0.1-0.2 ms per op"): the 16.2 defaults
# (debug_osd 1/5, debug_ms 0/0) and verbose (20/20, 1/1). Each round is
# recorded by the default `corecap record`, as a user would: kernel
# events, whose on-CPU stacks are the wall-clock samples (no thread
# stopped), so the report leads the OpTracker's write ops with their
# critical path, whose `logging` takes the share of the op threads'
# samples in logging code (docs/methodology.md, "Logging in the caller").
# Known answers:
#  - per round, the samples are the kernel's (manifest wallclock.sampler
#    kernel-oncpu), and the report says why it has no categories from
#    samples (on-CPU samples do not see a thread off its CPU);
#  - verbose logging adds latency, and the report's `logging` grows by at
#    least half of what it adds: (log_v - log_d) >= 0.5 (lat_v - lat_d),
#    on the means over the rounds.
# CORECAP_CEPH_LOGGING_RECORD_OPTS adds record options, e.g.
# "--wallclock=200 --wallclock-threads msgr-worker-*,tp_osd_tp,fn_anonymous"
# for the ptrace sampler (the per-round checks then expect it).
set -uo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
. "$CORECAP_SRC/tests/e2e/ceph_lib.sh"
ceph_need_tools
need_sessiond
ceph_work ceph-logging

ROUNDS=${CORECAP_CEPH_ROUNDS:-3}
# 2 s rounds. The OpTracker history is drained in time slices (record's
# default, docs/ceph.md "The OpTracker drained"): a sample of the ops
# whatever their durations.
BENCH_S=${CORECAP_CEPH_BENCH_S:-2}
read -r -a EXTRA <<<"${CORECAP_CEPH_LOGGING_RECORD_OPTS:-}"
SAMPLER=kernel-oncpu
[ "${#EXTRA[@]}" -gt 0 ] && SAMPLER=$(printf '%s\n' "${EXTRA[@]}" | grep -q '^--wallclock' && echo ptrace || echo kernel-oncpu)
. "$CORECAP_SRC/tests/e2e/kernel_analysis_lib.sh"

base=$(ceph_free_base 48189) || skip "no free port range found for the cluster"
ceph_start osd "$base" --osd-wrapper "$CORECAP run --"
pid=$(cat "$work/osd/osd.0.pid")
asok="$work/osd/run/ceph-osd.0.asok"
need_kernel_record "$pid"

# round NAME: one recorded rados bench on a fresh pool; prints
# "lat_us logging_us complete sampler:samples why_no_categories" (the
# critical path's mean latency and logging of the write type).
round() {
	local name=$1 run="$work/$1" rc=0
	"$mc" mkpool "$work/osd" "$name" >>"$work/pools.log" 2>&1 || { echo "FAIL: mkpool $name" >&2; return 1; }
	(
		eval "$("$mc" env "$work/osd")"
		"$CORECAP" record -q -p "$pid" ${EXTRA[@]+"${EXTRA[@]}"} \
			-o "$run" -- rados -p "$name" bench "$BENCH_S" write -b 1 -t 1 --no-cleanup
	) >"$run.out" 2>"$run.err" || rc=$?
	"$mc" rmpool "$work/osd" "$name" >>"$work/pools.log" 2>&1 || echo "warning: rmpool $name failed" >&2
	[ "$rc" -eq 0 ] || { echo "FAIL: corecap record ($name) exited $rc" >&2; tail -n 5 "$run.err" >&2; return 1; }
	"$CORECAP" report "$run" >"$run.txt" 2>"$run.report.err" &&
		"$CORECAP" report "$run" --json >"$run.json" 2>>"$run.report.err" ||
		{ echo "FAIL: corecap report $name" >&2; cat "$run.report.err" >&2; return 1; }
	python3 - "$run.json" "$run/manifest.json" "$run.txt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
wall = json.load(open(sys.argv[2])).get("wallclock") or {}
ot = r["ceph"]["optracker"]
w = [t for t in ot["types"] if t["type"] == "write"][0]
cp = w["critical_path"]
why = "no categories: the wall-clock samples are the kernel's on-CPU stacks" in open(sys.argv[3]).read()
# Unbiased: every op, or drained (time slices, whatever the ops' durations),
# never one dump past the history's size (which keeps the slowest).
unbiased = ot["complete"] or (ot.get("drain") is not None and ot["ops"] >= 200)
print(cp["lat_avg_us"], cp["us"]["logging"], unbiased,
      "%s:%s" % (wall.get("sampler", "none"), wall.get("samples", 0)), why)
PY
}

declare -A lat log
n_ok=0
for r in $(seq 1 "$ROUNDS"); do
	for cfg in default verbose; do
		if [ "$cfg" = default ]; then ceph_set_debug "$asok" 1/5 0/0; else ceph_set_debug "$asok" 20/20 1/1; fi
		line=$(round "$cfg$r") || { expect_true "round $cfg$r recorded and reported" false; continue; }
		read -r l lg complete wall why <<<"$line"
		echo "round $r $cfg: write latency (arrival to reply) $l us, of which logging $lg us on the critical path (OpTracker ops unbiased: $complete; wall-clock samples $wall)"
		expect_eq "round $r $cfg: the OpTracker ops are every op, or drained in time slices (200 or more)" True "$complete"
		expect_true "round $r $cfg: the wall-clock samples are the $SAMPLER sampler's, at least 100 ($wall)" \
			awk -v w="$wall" -v s="$SAMPLER" 'BEGIN { split(w, a, ":"); exit !(a[1] == s && a[2] >= 100) }'
		expect_eq "round $r $cfg: the report says why on-CPU samples give no categories" \
			"$([ "$SAMPLER" = kernel-oncpu ] && echo True || echo False)" "$why"
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
