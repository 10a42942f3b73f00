#!/usr/bin/env bash
# The scale known answer on a real Ceph OSD (issue #45): one bare
# ceph-osd (memstore, no shim) measured by `corecap scale --cores
# 1,1.5,2` while `rados bench write -b 1 -t 16` runs (the 1.5-core point
# through a CPU quota: the OSD is moved into a cgroup of its own and back),
# each point from an empty pool (`--prepare`: the pool deleted and made
# again, scripts/ceph-minicluster rmpool and mkpool).
# Asserted:
#  - three points measured, each after its prepare command (exit 0); the
#    OSD's threads' affinity and cgroup as before, and the OSD alive;
#  - the report of the 1-core point takes the scale fit, and its 2-core
#    projection is nearer the 2-core measurement than one run's constant
#    demand (which was 1.7-2.0x in the issue, 2.8-3.0x here);
# Printed, not asserted (docs/methodology.md, "Scaling", the Ceph points):
# the issue's two targets, the fit within 10% of every point and the 1 and
# 1.5-core points predicting the 2-core one within 20%. On this 2-vCPU VM
# the 2-core point runs below the 1.5-core one (the OSD's CPU per op
# 81-83 us at 1 and 1.5 cores, 121-142 us at 2, the client on the same
# CPUs), which no fit of the first two points foresees: in CI's run the
# fit was 10.3-14.4% off and the prediction 1.48-1.64x in two rounds of
# three.
set -uo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
. "$CORECAP_SRC/tests/e2e/ceph_lib.sh"
. "$CORECAP_SRC/tests/e2e/scale_lib.sh"
ceph_need_tools
[ "$(id -u)" -eq 0 ] || skip "a fractional point on a daemon in the root cgroup moves it between cgroups: root"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (points at 1, 1.5 and 2 cores)"
ceph_work ceph-scale
skip_if_others_busy "${SCALE_OTHERS_MAX:-0.5}" "the points' throughput cannot be measured"

base=$(ceph_free_base 48889) || skip "no free port range found for the cluster"
ceph_start osd "$base"
pid=$(cat "$work/osd/osd.0.pid")
before=$(affinity "$pid")
cg_before=$(grep -E '^[0-9]+:([^:]*,)?cpu(,[^:]*)?:|^0::' "/proc/$pid/cgroup" | sort)
s="$work/sc"
rc=0
(
	eval "$("$mc" env "$work/osd")"
	"$CORECAP" scale -p "$pid" --cores 1,1.5,2 -o "$s" --json --record-opt=--no-kernel \
		--prepare "'$mc' rmpool '$work/osd' bench && '$mc' mkpool '$work/osd' bench" -- \
		rados -p bench bench 4 write -b 1 -t 16 --no-cleanup
) >"$s.json" 2>"$s.err" || rc=$?
expect_eq "corecap scale exits (at $SECONDS s)" 0 "$rc"
[ "$rc" -eq 0 ] || { tail -n 8 "$s.err"; finish; exit 1; }
"$CORECAP" scale --report "$s" 2>/dev/null
expect_eq "the OSD's threads' affinity is as before" "$before" "$(affinity "$pid")"
expect_eq "... and its cgroup" "$cg_before" \
	"$(grep -E '^[0-9]+:([^:]*,)?cpu(,[^:]*)?:|^0::' "/proc/$pid/cgroup" | sort)"
expect_alive "$pid"
expect_eq "three points measured" "True True True" \
	"$(json "$s.json" "' '.join(str(p['measured']) for p in d['points'])")"
expect_eq "... each after a fresh pool (prepare_exit)" "0 0 0" \
	"$(json "$s.json" "' '.join(str(p['prepare_exit']) for p in d['points'])")"
skip_if_points_busy "$s" "${SCALE_POINT_OTHERS_MAX:-0.35}"

x1=$(iops_at "$s" 1)
x15=$(iops_at "$s" 1.5)
x2=$(iops_at "$s" 2)
err=$(json "$s.json" "d['fit']['max_rel_err']")
echo "measured: 1 core $x1, 1.5 cores $x15, 2 cores $x2 ops/s; the fit within $(calc "100 * $err")%"
echo "target (printed): the fit within 10% of every point: $([ "$(calc "$err <= 0.10")" = 1 ] && echo met || echo "not met ($err)")"

# The 1-core and 1.5-core points alone, in a scale directory of their own.
sub="$work/sub"
mkdir "$sub"
cp -a "$s/cores-1" "$s/cores-1.5" "$sub/"
python3 - "$s/scale.json" "$sub/scale.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["points"] = [p for p in d["points"] if p["cores"] in (1, 1.5)]
json.dump(d, open(sys.argv[2], "w"))
EOF
"$CORECAP" scale --report "$sub" --json >"$sub.json" 2>/dev/null
p2=$(json "$sub.json" "d['fit']['lambda'] * 2 / (1 + d['fit']['sigma'] + 2 * d['fit']['kappa'])")
"$CORECAP" report --json --no-scale "$s/cores-1" >"$work/one.json" 2>/dev/null
one2=$(json "$work/one.json" "[p for p in d['ceiling']['projection'] if p['cores'] == 2][0]['iops']")
echo "2 cores: measured $x2; from the 1 and 1.5-core points' fit $p2 ($(calc "$p2 / $x2")x); one run's constant demand from the 1-core point $one2 ($(calc "$one2 / $x2")x)"
echo "target (printed): the 1 and 1.5-core points predict the 2-core one within 20%: $([ "$(calc "$p2 >= 0.8 * $x2 && $p2 <= 1.2 * $x2")" = 1 ] && echo met || echo "not met ($(calc "$p2 / $x2")x)")"

# The 1-core point's report takes the full fit.
"$CORECAP" report --json "$s/cores-1" >"$work/p1.json" 2>/dev/null
expect_eq "the 1-core point's report projects with the scale fit" scale_fit \
	"$(json "$work/p1.json" "d['ceiling']['assumption']")"
proj2=$(json "$work/p1.json" "[p for p in d['ceiling']['projection'] if p['cores'] == 2][0]['iops']")
expect_calc "... its 2-core point ($proj2) nearer the 2-core measurement ($x2) than one run's constant demand ($one2)" \
	"($proj2 - $x2)^2 < ($one2 - $x2)^2"
expect_calc "... and within the fit's own error of it (max_rel_err $err)" \
	"$proj2 >= (1 - $err) * $x2 - 1 && $proj2 <= (1 + $err) * $x2 + 1"
finish
