#!/usr/bin/env bash
# The wait-for graph of a real ceph-osd at `rados bench -t 10` (issue #13,
# docs/methodology.md, "The wait-for graph"): one bare ceph-osd (no shim:
# the kernel records alone give the graph) recorded with kernel events.
# Known answers:
#  - an edge msgr-worker -> tp_osd_tp (a messenger slept until a worker
#    woke it: the reply handed over) and one tp_osd_tp -> the finisher
#    (finisher, fn_anonymous) or the store's lock holder (a `lock` edge, or
#    a bstore_* pool);
#  - the ms of the two pools' edges sum within 10% of those pools'
#    blocked time (futex and other sleeps of their threads in the window).
set -uo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
. "$CORECAP_SRC/tests/e2e/ceph_lib.sh"
ceph_need_tools
ceph_work ceph-waitfor
. "$CORECAP_SRC/tests/e2e/kernel_analysis_lib.sh"

base=$(ceph_free_base 48489) || skip "no free port range found for the cluster"
ceph_start osd "$base"
pid=$(cat "$work/osd/osd.0.pid")
need_kernel_record "$pid"
run="$work/run"
ceph_record_kernel_bench "$run" "$pid" 10
rc=0
"$CORECAP" report --json "$run" >"$run.json" 2>"$run.report.err" || rc=$?
expect_eq "corecap report --json exits" 0 "$rc"
[ "$rc" -eq 0 ] || { cat "$run.report.err"; finish; exit 1; }
read -r m2t t2f sum blocked n_unstated unstated_max <<<"$(python3 - "$run.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
e = r["waitfor"]["edges"]
for x in e[:12]:
    print("  %s -> %s (%s): %.1f ms, %d wakes" % (x["from"], x["to"], x["kind"], x["ms"], x["wakes"]), file=sys.stderr)
m2t = sum(x["ms"] for x in e if x["from"] == "msgr-worker" and x["to"] == "tp_osd_tp")
t2f = sum(x["ms"] for x in e if x["from"] == "tp_osd_tp" and
          (x["to"] in ("finisher", "fn_anonymous") or x["to"].startswith("bstore") or x["kind"] == "lock"))
pools = ("msgr-worker", "tp_osd_tp")
s = sum(x["ms"] for x in e if x["from"] in pools)
b = sum((t["kernel_states"]["futex_ns"] + t["kernel_states"]["blocked_ns"]) / 1e6
        for t in r["threads"] if t["pool"] in pools and t["kernel_states"])
for p in pools:
    pe = sum(x["ms"] for x in e if x["from"] == p)
    pb = sum((t["kernel_states"]["futex_ns"] + t["kernel_states"]["blocked_ns"]) / 1e6
             for t in r["threads"] if t["pool"] == p and t["kernel_states"])
    print("  %s: edges %.1f ms of %.1f ms blocked (%.2f)" % (p, pe, pb, pe / pb if pb else 0), file=sys.stderr)
# A thread whose kernel running time disagrees with its schedstat CPU has
# no kernel_states (threads_schedstat_disagree) but its waits are edges:
# it may have been asleep the whole window, no more.
n = sum(1 for t in r["threads"] if t["pool"] in pools and not t["kernel_states"])
print(round(m2t, 1), round(t2f, 1), round(s, 1), round(b, 1), n, round(1e3 * r["window"]["duration_s"] * n, 1))
PY
)"
echo "msgr-worker -> tp_osd_tp $m2t ms; tp_osd_tp -> finisher/lock holder $t2f ms; the two pools' edges $sum ms of their $blocked ms blocked"
expect_true "an edge msgr-worker -> tp_osd_tp ($m2t ms)" awk -v m="$m2t" 'BEGIN { exit !(m > 0) }'
expect_true "an edge tp_osd_tp -> the finisher or the store's lock holder ($t2f ms)" \
	awk -v m="$t2f" 'BEGIN { exit !(m > 0) }'
expect_true "the pools' edges sum within 10% of their blocked time ($sum of $blocked ms; $n_unstated threads without kernel states, up to $unstated_max ms more)" \
	awk -v s="$sum" -v b="$blocked" -v u="$unstated_max" 'BEGIN { exit !(b > 0 && s >= 0.9 * b && s <= 1.1 * (b + u)) }'
finish
