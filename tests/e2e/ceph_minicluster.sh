#!/usr/bin/env bash
# scripts/ceph-minicluster end to end: a one-node cluster in a temporary
# directory, its OSD started through a wrapper that execs it, takes
# `rados bench` writes (the OSD's op_w counter grows by them), and stops
# cleanly, leaving no process of it behind.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"

for t in ceph ceph-mon ceph-osd ceph-authtool monmaptool rados uuidgen python3; do
	command -v "$t" >/dev/null || skip "$t is not installed (scripts/install-deps-ceph)"
done

mc="$CORECAP_SRC/scripts/ceph-minicluster"
work=$(mktemp -d)
dir="$work/cluster"
cleanup() {
	"$mc" stop "$dir" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

# Processes whose command line mentions the cluster's directory.
procs_of_dir() {
	local p
	for p in /proc/[0-9]*; do
		tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -qF -- "$dir/" && echo "${p#/proc/}"
	done
	return 0
}

# A port base whose ports nobody uses (another test, another user).
base=$("$mc" port-base 46789) || skip "no free port base found from 46789 up"
expect_true "port-base prints a port number ($base)" bash -c "[[ '$base' =~ ^[0-9]+$ ]]"
rc=0
"$mc" port-base nope >/dev/null 2>"$work/pb.err" || rc=$?
expect_eq "port-base with a bad number exits 1" 1 "$rc"
expect_true "and names it" grep -q "'nope' is not a port number" "$work/pb.err"

echo "starting a cluster in $dir (port base $base)"
rc=0
"$mc" start "$dir" --port-base "$base" --osd-wrapper "env CORECAP_E2E_WRAPPED=1" \
	>"$work/start.out" 2>&1 || rc=$?
cat "$work/start.out"
expect_eq "ceph-minicluster start exit status" 0 "$rc"
[ "$rc" -eq 0 ] || { finish; exit 1; }

asok="$dir/run/ceph-osd.0.asok"
pid=$(cat "$dir/osd.0.pid")
expect_true "start prints the OSD's pid ($pid)" grep -qx "osd.0 pid: $pid" "$work/start.out"
expect_true "start prints the admin socket" grep -qx "osd.0 admin socket: $asok" "$work/start.out"
expect_eq "the OSD pid file names ceph-osd itself (the wrapper exec'd it)" ceph-osd \
	"$(cat "/proc/$pid/comm" 2>/dev/null || echo gone)"
expect_true "the OSD runs under the wrapper's environment" \
	grep -qz '^CORECAP_E2E_WRAPPED=1$' "/proc/$pid/environ"
expect_true "the OSD runs in its own session" \
	test "$(awk '{print $6}' "/proc/$pid/stat")" = "$pid"
expect_true "status says both daemons run" "$mc" status "$dir"
expect_true "the OSD admin socket exists" test -S "$asok"

eval "$("$mc" env "$dir")"
expect_eq "env exports CEPH_CONF" "$dir/ceph.conf" "$CEPH_CONF"

op_w() {
	ceph daemon "$asok" perf dump | python3 -c 'import json, sys; print(json.load(sys.stdin)["osd"]["op_w"])'
}
before=$(op_w)
rados -p bench bench 3 write -b 1 -t 4 >"$work/bench.out" 2>&1 || true
grep -E '^(Total writes made|Average IOPS|Average Latency)' "$work/bench.out" || tail "$work/bench.out"
after=$(op_w)
iops=$(awk -F: '/^Average IOPS/ { gsub(/ /, "", $2); print $2 }' "$work/bench.out")
writes=$(awk -F: '/^Total writes made/ { gsub(/ /, "", $2); print $2 }' "$work/bench.out")
expect_true "rados bench: Average IOPS ($iops) > 0" test "${iops:-0}" -gt 0
echo "perf dump osd.op_w: $before -> $after (rados bench made ${writes:-?} writes)"
expect_true "osd.op_w grew by at least the writes made" test "$after" -ge $((before + ${writes:-1}))

rc=0
"$mc" stop "$dir" || rc=$?
expect_eq "ceph-minicluster stop exit status" 0 "$rc"
expect_eq "processes of the cluster left" "" "$(procs_of_dir | tr '\n' ' ')"
expect_true "the OSD shut down in full (no fast shutdown)" \
	grep -q 'osd.0 [0-9]* shutdown' "$dir/log/ceph-osd.0.log"
expect_true "no immediate (_exit) shutdown" \
	bash -c "! grep -q 'Immediate shutdown' '$dir/log/ceph-osd.0.log'"
rc=0
"$mc" status "$dir" >/dev/null 2>&1 || rc=$?
expect_eq "status exit status once stopped" 1 "$rc"
finish
