#!/usr/bin/env bash
# The critical path of a disk-backed OSD's writes (issue #41,
# docs/methodology.md, "The device's completions"): one bare ceph-osd on
# BlueStore (block on a sparse file, RocksDB and its WAL on a second one,
# O_DIRECT and libaio; no shim, no trace: the kernel's records alone)
# recorded with kernel events during `rados bench write -b 4096 -t 16`.
# A write waits on BlueStore's kv_sync thread, which waits on the device:
# its fdatasync (an uninterruptible sleep the completion ends) and its
# aio (a condition variable the bstore_aio thread signals when the
# completion wakes it). Known answers:
#  - the writes' critical path sums to their latency (arrival to reply),
#    and every op's conserves it;
#  - the device's time is io (the path has io), and `queue` (no thread
#    of the daemon had the op) is at most 15% of the latency: before the
#    path followed the op through the device's completions it was 69-81%;
#  - the diagnosis names what caps the OSD: the kv_sync thread, the
#    device, or the cores (JSON diagnosis.kind and name).
set -uo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
. "$CORECAP_SRC/tests/e2e/ceph_lib.sh"
ceph_need_tools
ceph_work diagnosis-kvsync
ceph_need_odirect "$work"
. "$CORECAP_SRC/tests/e2e/kernel_analysis_lib.sh"

base=$(ceph_free_base 49689) || skip "no free port range found for the cluster"
ceph_start osd "$base" --objectstore bluestore --bluestore-db file
pid=$(cat "$work/osd/osd.0.pid")
expect_true "the OSD's bstore_kv_sync and bstore_aio threads run" \
	bash -c "cat /proc/$pid/task/*/comm | grep -q '^bstore_kv_sync\$' && cat /proc/$pid/task/*/comm | grep -q '^bstore_aio\$'"
need_kernel_record "$pid"
run="$work/run"
ceph_record_kernel_bench "$run" "$pid" 16
rc=0
"$CORECAP" report --json "$run" >"$run.json" 2>"$run.report.err" || rc=$?
expect_eq "corecap report --json exits" 0 "$rc"
[ "$rc" -eq 0 ] || { cat "$run.report.err"; finish; exit 1; }
rc=0
"$CORECAP" report "$run" >"$run.txt" 2>>"$run.report.err" || rc=$?
expect_eq "corecap report exits" 0 "$rc"

read -r lat sum queue io ops viol kind name <<<"$(python3 - "$run.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
w = [t for t in r["ceph"]["optracker"]["types"] if t["type"] == "write"][0]
cp = w.get("critical_path") or {"lat_avg_us": 0, "us": {}, "ops": 0}
us = cp["us"]
print(" ".join("%s=%s" % (k, v) for k, v in us.items() if v), file=sys.stderr)
cons = (r["ceph"]["optracker"].get("critical_path") or {}).get("conservation") or {}
d = r.get("diagnosis") or {}
print(d.get("headline"), file=sys.stderr)
print(cp["lat_avg_us"], round(sum(us.values()), 3), us.get("queue", -1), us.get("io", 0),
      cp.get("ops", 0), cons.get("violations", -1), d.get("kind") or "-",
      (d.get("name") or "-").replace(" ", "_"))
PY
)"
echo "write: $ops ops, latency $lat us, critical path sums to $sum us, io $io us, queue $queue us"
echo "diagnosis: $kind $name"
expect_true "writes with a critical path" test "${ops:-0}" -gt 0
expect_calc "the path sums to the latency ($sum vs $lat us, rounding 1)" \
	"${sum:--1} - ${lat:-0} <= 1 && ${lat:-0} - ${sum:--1} <= 1"
expect_eq "every op's path conserves its latency (violations)" 0 "$viol"
expect_calc "the device's time is io on the path ($io us)" "${io:-0} > 0"
expect_calc "queue at most 15% of the latency ($queue of $lat us)" \
	"${queue:--1} >= 0 && ${queue:--1} <= 0.15 * ${lat:-0}"
case "$kind:$name" in
cores:* | device:* | thread:bstore_kv_sync*) ok=1 ;;
*) ok=0 ;;
esac
expect_eq "the diagnosis names the kv_sync thread, the device or the cores ($kind $name)" 1 "$ok"
expect_true "the text report leads with the same diagnosis" \
	grep -qF -- "$(json "$run.json" "d['diagnosis']['headline'][:60]")" "$run.txt"
finish
