#!/usr/bin/env bash
# A Ceph cluster across hosts (issue 46): hosts A (the client, offset 0),
# B (+37.5 s), C (-12.25 s) and M (+21.125 s) are network and time
# namespaces (tests/e2e/hosts_lib.sh); scripts/ceph-minicluster starts the
# mon in M, osd.0 (memstore) in B and osd.1 in C, one pool of size 2, so
# each write's primary replicates it to the other host. One `corecap
# record --hosts` over B and C, each host's OSD found as record
# --ceph-osds finds it there (the cluster's run directory holds both admin
# sockets; a host sees only its own), during `rados bench` 4 KiB writes
# from A. The run is complete; each host's clock within 50 us of its
# namespace's; each host's report holds its OSD's OpTracker ops, their
# client writes and replica writes the benchmark's (osd.0's primary
# writes are osd.1's sub-ops and the other way round); the whole run's
# report one system diagnosis and each host's report beneath it, its text
# and JSON naming the same cap; html, flame and export --chrome take
# RUN:HOST. A second record keeps every op of a 1 s benchmark: each
# host's clock refined from its OSD's replication with the other's holds
# the namespace's true offset. Nothing is left behind: no daemon,
# namespace or LTTng session.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
. "$CORECAP_SRC/tests/e2e/hosts_lib.sh"
. "$CORECAP_SRC/tests/e2e/ceph_lib.sh"
ceph_need_tools
need_sessiond
cl="$WORK/cl"
e2e_cleanup_hook() {
	"$mc" stop "$cl" >/dev/null 2>&1 || true
	hosts_teardown
}
hosts_abc
hosts_add m 21.125
m_addr=$HOST_ADDR
cd "$WORK"

t0=$SECONDS
rc=0
"$mc" start "$cl" --osds 2 --pool-size 2 --rsh "$HOSTS_RSH" \
	--on "mon.a=m@$m_addr" --on "osd.0=b@$b_addr" --on "osd.1=c@$c_addr" >start.out 2>&1 || rc=$?
expect_eq "the cluster across hosts M, B and C starts" 0 "$rc"
[ "$rc" -eq 0 ] || { cat start.out; finish; exit 1; }
echo "cluster up in $((SECONDS - t0)) s: $(grep '^cluster:' start.out)"
osd0=$(cat "$cl/osd.0.pid") osd1=$(cat "$cl/osd.1.pid") mon=$(cat "$cl/mon.a.pid")
for x in "m $mon" "b $osd0" "c $osd1"; do
	set -- $x
	holder=$(cat "$HOSTS_DIR/$1.pid")
	expect_eq "host $1's daemon (PID $2) is in its network and time namespaces" \
		"$(readlink "/proc/$holder/ns/net") $(readlink "/proc/$holder/ns/time")" \
		"$(readlink "/proc/$2/ns/net") $(readlink "/proc/$2/ns/time")"
done
# Each host's view of the admin sockets: its own OSD's only.
expect_eq "host b sees osd.0's admin socket only" "ceph-osd.0.asok" \
	"$(hosts_rsh b cat /proc/net/unix | grep -o 'ceph-osd\.[0-9]*\.asok' | sort -u | tr '\n' ' ' | sed 's/ $//')"

perf() { ceph --admin-daemon "$cl/run/ceph-osd.$1.asok" perf dump; }
perf 0 >perf0.before
perf 1 >perf1.before
cat >hosts.txt <<HOSTS
b b ceph-osds=$cl/run
c c ceph-osds=$cl/run
HOSTS
start=$EPOCHREALTIME
rc=0
"$CORECAP" record --hosts hosts.txt --rsh "$HOSTS_RSH" --corecap-path "$CORECAP" -o run \
	--record-opt=--no-kernel -- "$CORECAP_SRC/tests/e2e/hosts_rsh" "$HOSTS_DIR" a \
	rados -c "$cl/ceph.conf" -k "$cl/ceph.client.admin.keyring" -p bench \
	bench 4 write -b 4096 -t 8 --no-cleanup >record.out 2>record.err || rc=$?
echo "record took $(calc "$EPOCHREALTIME - $start") s"
cat record.err
perf 0 >perf0.after
perf 1 >perf1.after
expect_eq "record --hosts exit status" 0 "$rc"
[ "$rc" -eq 0 ] || { finish; exit 1; }
grep -E '^(Total writes made|Average IOPS|Average Latency)' run/bench.out || tail run/bench.out
writes=$(awk -F: '/^Total writes made/ { gsub(/ /, "", $2); print $2 }' run/bench.out)
expect_calc "rados bench made writes ($writes)" "${writes:-0} > 100"

expect_eq "the run: complete, hosts b and c, each complete" "complete b complete c complete" \
	"$(json run/manifest.json 'd["status"], " ".join(h["name"] + " " + h["status"] for h in d["hosts"])' | tr -d "(),'")"
# Each host found its own OSD in the directory both share: the other
# host's admin socket is in the other network namespace.
for x in "b 0 $osd0" "c 1 $osd1"; do
	set -- $x
	expect_eq "host $1: its run is of osd.$2 only (PID $3, its admin socket), complete" \
		"1 $3 $2 $cl/run/ceph-osd.$2.asok complete" \
		"$(json "run/hosts/$1/manifest.json" '" ".join(str(x) for x in [len(d["daemons"])] + [[y["pid"], y["ceph_osd_id"], y["ceph_asok"], y["status"]] for y in d["daemons"]][0])')"
done
# The clocks: each host's offset within 50 us of its namespace's, at both ends.
for h in b c; do
	true_ns=$(calc "$(cat "$HOSTS_DIR/$h.offset") * 1e9")
	for end in start end; do
		got=$(json run/manifest.json "[x for x in d['hosts'] if x['name'] == '$h'][0]['clock']['$end']['offset_ns']")
		bound=$(json run/manifest.json "[x for x in d['hosts'] if x['name'] == '$h'][0]['clock']['$end']['bound_ns']")
		err=$(calc "$got - $true_ns")
		echo "host $h, window $end: true offset $true_ns ns, recovered $got ns (error $err ns), bound $bound ns"
		expect_calc "host $h, window $end: the offset within 50 us of the namespace's and within its bound" \
			"$err <= 50000 && $err >= -50000 && $err <= $bound && $err >= -$bound"
	done
done

# Each host's report: its OSD's OpTracker ops and perf counters.
for h in b c; do
	"$CORECAP" report --json "run:$h" >"$h.json" 2>"$h.err" || { echo "FAIL: report --json run:$h:"; cat "$h.err"; }
done
python3 - b.json c.json "$writes" >ops.check <<'PY2'
import json, sys
bench = int(sys.argv[3])
osd = {}
for name, path in (("b", sys.argv[1]), ("c", sys.argv[2])):
    d = json.load(open(path))
    [dm] = d["daemons"]
    r = dm["report"]
    ot, perf = r["ceph"]["optracker"], r["ceph"]["perf"]
    types = {t["type"]: t["count"] for t in ot["types"]}
    count = lambda k: perf[k]["count"] if k in perf else 0
    osd[name] = dict(ops=ot["ops"], write=types.get("write", 0), repop=types.get("osd_repop", 0),
                     op=count("op"), op_w=count("op_w"), subop=count("subop"), subop_w=count("subop_w"),
                     window_ops=ot["window_ops"], iops=r["diagnosis"]["iops"],
                     source=r["diagnosis"]["evidence"][0]["value"] if r["diagnosis"].get("evidence") else "")
    print("osd", name, json.dumps(osd[name], sort_keys=True))
b, c = osd["b"], osd["c"]
print("primaries", b["op_w"] + c["op_w"], "bench", bench)
print("replicas", b["op_w"] - c["subop_w"], c["op_w"] - b["subop_w"])
for n, o in osd.items():
    print("tracker", n, o["ops"] > 0, o["write"] > 0, o["repop"] > 0, o["window_ops"] == o["op"])
    share_drained = o["write"] / (o["write"] + o["repop"]) if o["write"] + o["repop"] else -1
    share_perf = o["op_w"] / (o["op_w"] + o["subop_w"]) if o["op_w"] + o["subop_w"] else -1
    print("share", n, "%.3f %.3f" % (share_drained, share_perf))
PY2
cat ops.check
for h in b c; do
	expect_eq "host $h: its OpTracker ops drained, client writes and replica writes among them; window_ops is the op counter's" \
		"tracker $h True True True True" "$(grep "^tracker $h " ops.check)"
	read -r _ _ drained perf_share <<<"$(grep "^share $h " ops.check)"
	expect_calc "host $h: the drained ops' share of client writes ($drained) is the perf counters' ($perf_share) within 0.1" \
		"$drained - $perf_share <= 0.1 && $perf_share - $drained <= 0.1"
done
read -r _ primaries _ bw <<<"$(grep '^primaries ' ops.check)"
expect_calc "the OSDs' client writes ($primaries, op_w summed) are rados bench's ($bw) and its metadata object's (at most 2 more)" \
	"$primaries >= $bw && $primaries <= $bw + 2"
expect_eq "each OSD's client writes are the other's replica writes (pool size 2): differences" "replicas 0 0" \
	"$(grep '^replicas ' ops.check)"

# The whole run: one system diagnosis naming what caps it, each host's report beneath.
"$CORECAP" report run >whole.txt 2>whole.err || { echo "FAIL: corecap report run:"; cat whole.err; }
"$CORECAP" report --json run >whole.json 2>whole.json.err || { echo "FAIL: corecap report --json run:"; cat whole.json.err; }
sed -n '1,/^========/p' whole.txt
# The hosts of the least headroom as the JSON prints it (rounded: two hosts
# of one cluster can tie there, where the report compares the unrounded).
least=$(json whole.json "' '.join(sorted((lambda hs: [h['name'] for h in hs if h['report']['daemons'][0]['report']['diagnosis']['headroom'] == min(x['report']['daemons'][0]['report']['diagnosis']['headroom'] for x in hs)])([h for h in d['hosts'] if h['report'] and h['report']['daemons'][0]['report']['diagnosis'].get('headroom')])))")
cap=$(json whole.json "d['system']['host']")
expect_true "JSON: the system's cap is a host of the least headroom ($least), here $cap" \
	grep -qw -- "$cap" <<<"$least"
expect_eq "JSON: no host without a headroom" 0 "$(json whole.json "d['system']['hosts_without_headroom']")"
expect_true "JSON: it names a kind of limit" test -n "$(json whole.json "d['system']['kind'] or ''")"
expect_eq "text: one SYSTEM line, the JSON's verdict" "SYSTEM     $(json whole.json "d['system']['verdict']")" \
	"$(grep '^SYSTEM' whole.txt)"
expect_true "text: it names host $cap's ceph-osd as the cap" grep -qE "^SYSTEM     host $cap's daemon PID [0-9]+ binds first" whole.txt
expect_eq "text: each host's report beneath, b then c" "b c" \
	"$(sed -n 's/^======== host [12] of 2: \([bc]\),.*/\1/p' whole.txt | tr '\n' ' ' | sed 's/ $//')"
for h in b c; do
	pid=$([ $h = b ] && echo "$osd0" || echo "$osd1")
	expect_true "text: host $h's line: its ceph-osd, complete, its headroom" \
		grep -qE "^ +$h +ceph-osd \(pid $pid\) +complete +[0-9]+ +[0-9.]+x" whole.txt
	expect_eq "JSON: host $h's nested report is report run:$h's" \
		"$(json "$h.json" "d['daemons'][0]['report']['diagnosis']['headline']")" \
		"$(json whole.json "[x for x in d['hosts'] if x['name'] == '$h'][0]['report']['daemons'][0]['report']['diagnosis']['headline']")"
	# RUN:HOST to the other commands.
	expect_true "html run:$h" "$CORECAP" html -o "$h.html" "run:$h"
	"$CORECAP" flame "run:$h" >"$h.folded" 2>"$h.flame.err" || { echo "FAIL: flame run:$h:"; cat "$h.flame.err"; }
	"$CORECAP" flame "run:$h:$pid" >"$h.pid.folded" 2>/dev/null || true
	expect_true "flame run:$h: the OSD's op stacks (its OpTracker's), as flame run:$h:PID's" \
		sh -c "grep -q '^write;' $h.folded && cmp -s $h.folded $h.pid.folded"
	"$CORECAP" export --chrome -o "$h.trace.json" "run:$h" 2>"$h.export.err" || { echo "FAIL: export run:$h:"; cat "$h.export.err"; }
	expect_true "export --chrome run:$h: the OSD's process" python3 -c "
import json, sys
d = json.load(open('$h.trace.json'))
sys.exit(0 if any(e.get('name') == 'process_name' and 'ceph-osd' in e['args']['name'] for e in d['traceEvents']) else 1)"
done
"$CORECAP" html -o whole.html run
expect_true "html run: the system's part as the text prints it" \
	grep -qF -- "$(grep '^SYSTEM' whole.txt | sed "s/'/\&#39;/g")" whole.html

# The clocks refined from the replication (docs/hosts.md): each write a
# primary sent to the other host's OSD, both ends in their OpTracker
# histories (the same request id), bounds the replica's host's clock
# through the primary's. The drains above sample each OSD in slices of
# their own phase (both ends of an op are in both only when the phases
# meet: 0 to 300 pairs in 7 runs), so a second record keeps every op: a
# 1 s benchmark's, under 10000 per OSD, dumped once at the window's end.
rc=0
"$CORECAP" record --hosts hosts.txt --rsh "$HOSTS_RSH" --corecap-path "$CORECAP" -o run2 \
	--record-opt=--no-kernel --record-opt=--ceph-history=end -- \
	"$CORECAP_SRC/tests/e2e/hosts_rsh" "$HOSTS_DIR" a \
	rados -c "$cl/ceph.conf" -k "$cl/ceph.client.admin.keyring" -p bench \
	bench 1 write -b 4096 -t 8 --no-cleanup >record2.out 2>record2.err || rc=$?
expect_eq "a second record --hosts, the history dumped at the end: exit status" 0 "$rc"
[ "$rc" -eq 0 ] || cat record2.err
"$CORECAP" report --json run2 >whole2.json 2>whole2.err || { echo "FAIL: report --json run2:"; cat whole2.err; }
"$CORECAP" report run2 >whole2.txt 2>>whole2.err || true
for h in b c; do
	true_ns=$(calc "$(cat "$HOSTS_DIR/$h.offset") * 1e9")
	ref() { json whole2.json "[x for x in d['hosts'] if x['name'] == '$h'][0]['clock']['refined']$1"; }
	if [ "$(ref "")" = None ]; then
		expect_true "host $h: its clock refined from replication pairs" false
		continue
	fi
	echo "host $h: refined from $(ref "['pairs']") $(ref "['from']") pairs: [$(ref "['pairs_low_ns']"), $(ref "['pairs_high_ns']")] ns, then $(ref "['offset_ns']") +- $(ref "['bound_ns']") ns; true $true_ns"
	expect_eq "host $h: refined from its OSD's replication with the other host's, no contradiction" \
		"osd_replication False" "$(ref "['from']") $(ref "['contradiction']")"
	expect_calc "host $h: from many pairs ($(ref "['pairs']"))" "$(ref "['pairs']") >= 50"
	expect_calc "host $h: the pairs' own interval holds the namespace's true offset" \
		"$(ref "['pairs_low_ns']") <= $true_ns && $true_ns <= $(ref "['pairs_high_ns']")"
	expect_calc "host $h: the refined offset within its bound of the true offset" \
		"$(ref "['offset_ns']") - $true_ns <= $(ref "['bound_ns']") && $true_ns - $(ref "['offset_ns']") <= $(ref "['bound_ns']")"
done
expect_eq "text: both hosts' clocks from their replication pairs" 2 \
	"$(grep -cE "^ +clock from [0-9]+ replication pairs: [+-]" whole2.txt)"

# Cleanup, here, checked: the cluster stopped, the hosts gone, no
# session or relayd of this test left, nothing mounted from it.
"$mc" stop "$cl" >stop.out 2>&1 || { echo "FAIL: the cluster does not stop:"; cat stop.out; }
holders=$(cat "$HOSTS_DIR"/*.pid)
hosts_dir=$HOSTS_DIR
hosts_teardown
sleep 0.5
expect_eq "no process of the cluster left" "" "$(ceph_procs_of_dir "$cl" | tr '\n' ' ')"
left=""
for p in $holders; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
expect_eq "no host's holder left (their namespaces go with them)" "" "$left"
expect_eq "the hosts' directory is gone" "" "$(ls -d "$hosts_dir" 2>/dev/null)"
# The hosts' sessions are named after their daemon's PID (corecap-PID-...).
expect_eq "no LTTng session of the OSDs' records left" "" \
	"$(lttng list 2>/dev/null | grep -oE "corecap-($osd0|$osd1)-[^ ]*" | tr '\n' ' ')"
relayd=$(sed -n 's/.*lttng-relayd (pid \([0-9]*\)).*/\1/p' record.err)
expect_true "record named its lttng-relayd" test -n "$relayd"
expect_eq "and it is gone" "" "$([ -n "$relayd" ] && kill -0 "$relayd" 2>/dev/null && echo "$relayd")"
expect_eq "nothing mounted from the test's directories" "" \
	"$(grep -F -e "$WORK" -e "$hosts_dir" /proc/mounts || true)"
finish
