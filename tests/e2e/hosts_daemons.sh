#!/usr/bin/env bash
# Several daemons per host (issue 46): hosts A (the client), B (+37.5 s)
# and C (-12.25 s) are network and time namespaces (tests/e2e/hosts_lib.sh);
# B runs two refosd daemons, C one, each under `corecap run`, refbench in A
# drives all three. One `record --hosts` with B as "pid=P1,P2": B's run is
# a run of several daemons (daemons/P1, daemons/P2, each trace through the
# relayd), C's one daemon's. Then the names: RUN:b:PID is that daemon's
# report (the same as RUN/hosts/b/daemons/PID's), RUN:b the host's
# several-daemon report, an unknown PID and a hostile PID refused with the
# cause; and the system's headroom is the least over every daemon of
# every host, in text, JSON and html.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
. "$CORECAP_SRC/tests/e2e/hosts_lib.sh"
need_refosd
need_sessiond
e2e_cleanup_hook() { hosts_teardown; }
need_hosts
hosts_add a 0
hosts_add b 37.5
b_addr=$HOST_ADDR
hosts_add c -12.25
c_addr=$HOST_ADDR
cd "$WORK"

hosts_start_refosd b "$b_addr" 1
b1_pid=$OSD_PID b1_port=$OSD_PORT
hosts_start_refosd b "$b_addr" 2
b2_pid=$OSD_PID b2_port=$OSD_PORT
hosts_start_refosd c "$c_addr"
c_pid=$OSD_PID c_port=$OSD_PORT

cat >hosts.txt <<HOSTS
b b pid=$b1_pid,$b2_pid
c c pid=$c_pid
HOSTS
bench="$CORECAP_SRC/tests/e2e/hosts_rsh $HOSTS_DIR a sh -c"
rb="$REFBENCH --no-progress -d 3 write"
start=$EPOCHREALTIME
rc=0
# Without kernel events: the test is of the names and the system's rule, and stays short.
"$CORECAP" record --hosts hosts.txt --rsh "$HOSTS_RSH" --corecap-path "$CORECAP" -o run \
	--record-opt=--no-kernel -- $bench \
	"$rb -H $b_addr -p $b1_port -t 4 & $rb -H $b_addr -p $b2_port -t 1 & $rb -H $c_addr -p $c_port -t 2; wait" \
	>record.out 2>record.err || rc=$?
echo "record took $(calc "$EPOCHREALTIME - $start") s"
cat record.err
expect_eq "record --hosts exit status" 0 "$rc"
expect_eq "the run: complete, hosts b and c" "complete b c" \
	"$(json run/manifest.json 'd["status"], " ".join(h["name"] for h in d["hosts"])' | tr -d "(),'")"
expect_eq "host b's entry lists its daemons' PIDs" "$b1_pid $b2_pid" \
	"$(json run/manifest.json "' '.join(str(p) for p in d['hosts'][0]['pids'])")"
expect_eq "host b's run is one of several daemons (version 3), complete" "3 complete" \
	"$(json run/hosts/b/manifest.json 'd["version"], d["status"]' | tr -d "(),'")"
expect_eq "its daemons: both refosds" "$b1_pid $b2_pid" \
	"$(json run/hosts/b/manifest.json "' '.join(str(x['pid']) for x in sorted(d['daemons'], key=lambda x: x['pid']))")"
for p in $b1_pid $b2_pid; do
	expect_eq "host b, PID $p: its own complete run" complete "$(json "run/hosts/b/daemons/$p/manifest.json" 'd["status"]')"
	expect_true "host b, PID $p: its trace (through the relayd) in its run" test -d "run/hosts/b/daemons/$p/trace"
done
expect_eq "host b: its traces came through the relayd" relayd \
	"$(json run/manifest.json "d['hosts'][0].get('trace_via')")"
expect_eq "host c: one daemon's run, as before" "2 $c_pid relayd" \
	"$(json run/hosts/c/manifest.json 'd["version"], d["pid"]' | tr -d "(),'") $(json run/manifest.json "d['hosts'][1].get('trace_via')")"
