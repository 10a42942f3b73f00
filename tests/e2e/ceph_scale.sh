#!/usr/bin/env bash
# The scale known answer on a real Ceph OSD (issue #45): one bare
# ceph-osd (memstore, no shim) measured by `corecap scale --cores
# 1,1.5,2` while `rados bench write -b 1 -t 16` runs (the 1.5-core point
# through a CPU quota: the OSD is moved into a cgroup of its own and back):
#  - the fit (three core counts: lambda, sigma and kappa) reproduces each
#    measured point within 10%;
#  - a fit of the 1-core and 1.5-core points alone predicts the 2-core
#    measurement within 20%, where one run's constant-demand projection
#    from the 1-core point was 1.7-2.0x (printed beside it);
#  - the report of the 1-core point takes the scale fit, and names it;
#  - the OSD's threads' affinity and cgroup are as before, and it serves.
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
	"$CORECAP" scale -p "$pid" --cores 1,1.5,2 -o "$s" --json --record-opt=--no-kernel -- \
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
skip_if_points_busy "$s" "${SCALE_POINT_OTHERS_MAX:-0.35}"

x1=$(iops_at "$s" 1)
x15=$(iops_at "$s" 1.5)
x2=$(iops_at "$s" 2)
err=$(json "$s.json" "d['fit']['max_rel_err']")
echo "measured: 1 core $x1, 1.5 cores $x15, 2 cores $x2 ops/s; the fit within $(calc "100 * $err")%"
expect_calc "the fit reproduces every point within 10% (at most $err off)" "$err <= 0.10"

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
expect_calc "the 1 and 1.5-core points predict the 2-core measurement within 20% ($p2 vs $x2)" \
	"$p2 >= 0.8 * $x2 && $p2 <= 1.2 * $x2"

# The 1-core point's report takes the full fit.
"$CORECAP" report --json "$s/cores-1" >"$work/p1.json" 2>/dev/null
expect_eq "the 1-core point's report projects with the scale fit" scale_fit \
	"$(json "$work/p1.json" "d['ceiling']['assumption']")"
proj2=$(json "$work/p1.json" "[p for p in d['ceiling']['projection'] if p['cores'] == 2][0]['iops']")
expect_calc "... its 2-core point within 10% of the measurement ($proj2 vs $x2)" \
	"$proj2 >= 0.9 * $x2 && $proj2 <= 1.1 * $x2"
finish
