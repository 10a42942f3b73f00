#!/usr/bin/env bash
# Several OSDs on one box from scripts/ceph-minicluster (issue #21):
# `--osds 4` starts four memstore OSDs, all up and in, with one pool of 32
# PGs (8 per OSD) spanning them: every OSD holds some of its PGs, and
# `rados bench` writes reach every OSD (each one's op_w grows). `status`
# lists the four; `mkpool` makes a pool over all of them; `stop` stops all
# five daemons and nothing else (a process that only mentions the cluster's
# directory elsewhere, a `sleep` here, survives it).
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
. "$CORECAP_SRC/tests/e2e/ceph_lib.sh"
ceph_need_tools
work=$(mktemp -d /tmp/ceph-osds.XXXXXX)
d="$work/four"
bystander=
cleanup() {
	"$mc" stop "$d" >/dev/null 2>&1 || true
	[ -z "$bystander" ] || kill "$bystander" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

op_w() { ceph daemon "$d/run/ceph-osd.$1.asok" perf dump | python3 -c 'import json, sys; print(json.load(sys.stdin)["osd"]["op_w"])'; }
# PGs of pool $2 that OSD $1 holds.
pgs_on() {
	ceph daemon "$d/run/ceph-osd.$1.asok" dump_pgstate_history | python3 -c '
import json, sys
print(len({p["pg"] for p in json.load(sys.stdin)["pgs"] if p["pg"].split(".")[0] == sys.argv[1]}))' "$2"
}

base=$(ceph_free_base 48589) || skip "no free port base found from 48589 up"
echo "starting 4 memstore OSDs in $d (port base $base)"
t0=$SECONDS
ceph_start four "$base" --osds 4 --osd-wrapper "env CORECAP_E2E_WRAPPED=1"
echo "start took $((SECONDS - t0)) s"
cat "$work/four.start"
expect_true "start names 4 OSDs and 32 PGs" grep -q "4 memstore OSDs; pool 'bench', 32 PGs" "$work/four.start"
eval "$("$mc" env "$d")"
expect_eq "ceph osd stat: up and in" "4 4" \
	"$(ceph osd stat -f json | python3 -c 'import json, sys; d = json.load(sys.stdin); d = d.get("osdmap", d); print(d["num_up_osds"], d["num_in_osds"])')"
pool=$(ceph osd pool ls detail -f json | python3 -c 'import json, sys; print([p["pool_id"] for p in json.load(sys.stdin) if p["pool_name"] == "bench"][0])')
total=0
before=()
for id in 0 1 2 3; do
	pid=$(cat "$d/osd.$id.pid")
	expect_true "start prints osd.$id's pid ($pid)" grep -qx "osd.$id pid: $pid" "$work/four.start"
	expect_eq "osd.$id is ceph-osd under the wrapper's environment" "ceph-osd 1" \
		"$(cat "/proc/$pid/comm") $(grep -cz '^CORECAP_E2E_WRAPPED=1$' "/proc/$pid/environ")"
	n=$(pgs_on "$id" "$pool")
	expect_true "osd.$id holds some of the pool's PGs ($n)" test "$n" -gt 0
	total=$((total + n))
	before+=("$(op_w "$id")")
done
expect_eq "the OSDs hold the pool's 32 PGs between them" 32 "$total"
rados -p bench bench 3 write -b 1 -t 8 >"$work/bench.out" 2>&1 || true
grep -E '^(Total writes made|Average IOPS|Average Latency)' "$work/bench.out" || tail "$work/bench.out"
for id in 0 1 2 3; do
	after=$(op_w "$id")
	expect_true "osd.$id took writes (op_w ${before[$id]} -> $after)" test "$after" -gt "${before[$id]}"
done
out=$("$mc" status "$d") || true
expect_eq "status lists the mon and 4 running OSDs" 5 "$(grep -c ': running, pid' <<<"$out")"
expect_true "mkpool makes a pool over the 4 OSDs" "$mc" mkpool "$d" second
expect_true "and its PG count is 8 per OSD" bash -c "ceph osd pool get second pg_num | grep -qx 'pg_num: 32'"

python3 -c "import time; time.sleep(600)" "$d/" &
bystander=$!
rc=0
"$mc" stop "$d" >"$work/stop.out" 2>&1 || rc=$?
expect_eq "stop exit status" 0 "$rc"
expect_eq "daemons stopped" 5 "$(grep -c '^ceph-minicluster: stopping' "$work/stop.out")"
expect_eq "processes of the cluster left (the bystander only)" "$bystander" "$(ceph_procs_of_dir "$d" | tr -d '\n')"
rc=0
"$mc" status "$d" >/dev/null 2>&1 || rc=$?
expect_eq "status exit status once stopped" 1 "$rc"
finish
