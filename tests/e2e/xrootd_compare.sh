# A ceph-osd and an xrootd compared (docs/xrootd.md): a one-node cluster's
# OSD under `rados bench write -b 1 -t 1` and xrootd under `xrdbench -b 1
# -t 1 read`, both under the shim and recorded; `corecap compare OSD XROOTD`
# must say they are different daemons, put their per-op costs side by side
# (cpu us/op, lock waits/op, logging us/op, I/O syscalls/op, context
# switches/op) and name in its headline what makes the OSD costlier per op.
# Known answer: the OSD spends more CPU per op than xrootd (here ~25x).
. "$CORECAP_SRC/tests/e2e/xrootd_lib.sh"
work=$WORK
. "$CORECAP_SRC/tests/e2e/ceph_lib.sh"
xrd_need_tools
ceph_need_tools
need_sessiond
e2e_cleanup_hook() {
	local d
	for d in "${_xrd_dirs[@]}"; do "$xs" stop "$d" >/dev/null 2>&1 || true; done
	"$mc" stop "$work/osd" >/dev/null 2>&1 || true
}

base=$(ceph_free_base 49389) || skip "no free port range found for the cluster"
ceph_start osd "$base" --osd-wrapper "$CORECAP run --"
osd_pid=$(cat "$work/osd/osd.0.pid")
(
	eval "$("$mc" env "$work/osd")"
	"$CORECAP" record -q -p "$osd_pid" -o "$WORK/osd.run" -- rados -p bench bench 3 write -b 1 -t 1 --no-cleanup
) >"$WORK/osd.record" 2>&1 || { echo "FAIL: recording the OSD failed:"; tail -5 "$WORK/osd.record"; finish; exit 1; }
"$mc" stop "$work/osd" >/dev/null 2>&1

CORECAP_NET_EVENTS=on xrd_start x1 --wrapper "$CORECAP run --"
"$CORECAP" record -q -p "$XRD_PID" -o "$WORK/xrd.run" -- "$XRDBENCH" -p "$XRD_PORT" -t 1 -b 1 -d 3 read \
	>"$WORK/xrd.record" 2>&1 || { echo "FAIL: recording xrootd failed:"; tail -5 "$WORK/xrd.record"; finish; exit 1; }

rc=0
"$CORECAP" compare "$WORK/osd.run" "$WORK/xrd.run" >"$WORK/cmp.txt" 2>"$WORK/cmp.err" || rc=$?
expect_eq "compare exits 0" 0 "$rc"
"$CORECAP" compare --json "$WORK/osd.run" "$WORK/xrd.run" >"$WORK/cmp.json"
sed -n '1,/^benchmark/p;/^per op/,/^$/p' "$WORK/cmp.txt"
expect_true "the text says they are different daemons" grep -q "^warning: different daemons: ceph-osd and xrootd" "$WORK/cmp.txt"
expect_eq "JSON: same_daemon" False "$(json "$WORK/cmp.json" "d['same_daemon']")"
p="d['figures']['per op (whole daemon)']"
# Each figure measured for both daemons; a row zero in both is left out
# (compare's rule: logging here, where neither run has logging code named).
for k in cpu_us lock_waits lock_wait_us logging_us syscalls ctx_switches; do
	expect_eq "per op '$k' for both daemons, or zero in both and left out" True \
		"$(json "$WORK/cmp.json" "'$k' not in $p or ($p['$k']['a'] is not None and $p['$k']['b'] is not None)")"
done
for k in cpu_us syscalls ctx_switches; do
	expect_eq "per op '$k' is there" True "$(json "$WORK/cmp.json" "'$k' in $p")"
done
expect_calc "the OSD spends more CPU per op than xrootd" \
	"$(json "$WORK/cmp.json" "$p['cpu_us']['a']") > $(json "$WORK/cmp.json" "$p['cpu_us']['b']")"
json "$WORK/cmp.json" "d['headline']" >"$WORK/headline"
expect_true "the headline makes the OSD (A) the costlier" grep -q '^per op, A (ceph-osd) costs' "$WORK/headline"
expect_true "the headline names cpu as a cost" grep -q 'more cpu +' "$WORK/headline"
# The same daemon twice: no "different daemons" line.
"$CORECAP" compare "$WORK/xrd.run" "$WORK/xrd.run" >"$WORK/same.txt"
expect_true "xrootd against itself is the same daemon" sh -c "! grep -q 'different daemons' '$WORK/same.txt'"
finish
