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
# every host, in text, JSON and html, the next host named by its daemon
# when it has several; each daemon's ops' client latency split on a row
# of its own. Last, compare of two such runs: a second record of host b's
# daemons, two of them started since, compared with the first daemon by
# daemon (paired by PID, in order, one in one run only).
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
. "$CORECAP_SRC/tests/e2e/hosts_lib.sh"
need_refosd
need_sessiond
e2e_cleanup_hook() { hosts_teardown; }
hosts_abc
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
	"$rb -H $b_addr -p $b1_port -t 2 & $rb -H $b_addr -p $b2_port -t 1 & $rb -H $c_addr -p $c_port -t 8; wait" \
	>record.out 2>record.err || rc=$?
echo "record took $(calc "$EPOCHREALTIME - $start") s"
cat record.err
expect_eq "record --hosts exit status" 0 "$rc"
expect_eq "the run: complete, hosts b and c" "complete b c" \
	"$(json run/manifest.json 'd["status"], " ".join(h["name"] for h in d["hosts"])' | tr -d "(),'")"
expect_eq "host b's entry lists its daemons' PIDs" "$b1_pid $b2_pid" \
	"$(json run/manifest.json "' '.join(str(p) for p in d['hosts'][0]['pids'])")"
hosts_manifest_keys run/manifest.json paths
expect_true "and it has hosts[].pids" grep -qx 'hosts\[\].pids' paths
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

# RUN:HOST:PID names one daemon of one host to every command: its report
# is the one of its directory, the name aside.
strip() { python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("run_dir", "run"):
    d.pop(k, None)
print(json.dumps(d, sort_keys=True))' "$1"; }
for p in $b1_pid $b2_pid; do
	"$CORECAP" report --json "run:b:$p" >"named-$p.json" 2>"named-$p.err" ||
		{ echo "FAIL: report run:b:$p:"; cat "named-$p.err"; }
	"$CORECAP" report --json "run/hosts/b/daemons/$p" >"dir-$p.json"
	strip "dir-$p.json" >a.s
	strip "named-$p.json" >b.s
	expect_true "report --json run:b:$p is the daemon's own report" cmp -s a.s b.s
	"$CORECAP" report "run:b:$p" | tail -n +2 >"named-$p.txt"
	"$CORECAP" report "run/hosts/b/daemons/$p" | tail -n +2 >"dir-$p.txt"
	expect_true "report run:b:$p (text) is the daemon's own report" cmp -s "dir-$p.txt" "named-$p.txt"
	ops=$(json "named-$p.json" 'd["ops"]["count"]')
	expect_calc "host b, PID $p: the benchmark's ops ($ops)" "$ops > 20"
	expect_true "html run:b:$p" "$CORECAP" html -o "page-$p.html" "run:b:$p"
	expect_true "flame run:b:$p" sh -c "'$CORECAP' flame --kind op 'run:b:$p' >flame-$p.txt 2>/dev/null"
	expect_true "export --chrome run:b:$p" "$CORECAP" export --chrome -o "chrome-$p.json" "run:b:$p"
done
rc=0
"$CORECAP" compare "run:b:$b1_pid" "run:b:$b2_pid" >cmp.txt 2>cmp.err || rc=$?
expect_eq "compare run:b:P1 run:b:P2" 0 "$rc"
[ "$rc" = 0 ] || cat cmp.err
# RUN:HOST of a host of several daemons: that host's several-daemon report.
"$CORECAP" report --json run:b >b.json
"$CORECAP" report --json run/hosts/b >b-dir.json
expect_eq "report run:b: the host's several-daemon report" "corecap-report-multi $b1_pid $b2_pid" \
	"$(json b.json "d['format'] + ' ' + ' '.join(str(x['pid']) for x in sorted(d['daemons'], key=lambda x: x['pid']))")"
strip b-dir.json >a.s
strip b.json >b.s
expect_true "report --json run:b is run/hosts/b's" cmp -s a.s b.s
expect_true "html run:b: the host's page of several daemons" "$CORECAP" html -o b.html run:b
for p in $b1_pid $b2_pid; do
	expect_eq "html run:b: PID $p's section and its page's name" 2 \
		"$(grep -c "id=\"cc-daemon-$p\"\|corecap html run:b:$p</code>" b.html)"
done
"$CORECAP" export --chrome -o b.trace.json run:b 2>b.export.err || { echo "FAIL: export run:b:"; cat b.export.err; }
expect_eq "export --chrome run:b: both daemons' processes" 2 \
	"$(json b.trace.json "len(set(e['pid'] for e in d['traceEvents'] if e.get('name') == 'process_name' and e['args']['name'].startswith('refosd')))")"
# A host of one daemon takes its PID too, as a run of one daemon does.
"$CORECAP" report --json "run:c:$c_pid" >c-named.json
"$CORECAP" report --json run:c >c.json
strip c.json >a.s
strip c-named.json >b.s
expect_true "report run:c:PID is run:c's report" cmp -s a.s b.s

# Refused, the cause named: a PID the host does not have, a host the run
# does not have, and anything but digits after a host.
refused() {
	local what=$1 arg=$2 says=$3 rc=0
	"$CORECAP" report "$arg" >refused.out 2>refused.err || rc=$?
	expect_eq "$what: refused" 1 "$rc"
	expect_true "$what: says '$says'" grep -qF -- "$says" refused.err
	[ "$rc" = 1 ] && grep -qF -- "$says" refused.err || cat refused.err
}
refused "an unknown PID of host b" "run:b:999999" "'run:b' has no daemon of PID 999999"
refused "another PID than host c's" "run:c:999999" "'run:c' is a run of one daemon, PID $c_pid, not 999999"
refused "an unknown host" "run:zz:$b1_pid" "'run' has no host 'zz'"
for bad in "+$b1_pid" "0$b1_pid" " $b1_pid" "../../etc" "$b1_pid$b1_pid$b1_pid$b1_pid" "-1"; do
	refused "PID '$bad'" "run:b:$bad" "takes a PID (decimal digits, at most 10)"
done
refused "html of an unknown PID" "run:b:999999" "has no daemon of PID 999999"

# The system: the least headroom over every daemon of every host.
"$CORECAP" report --json run >whole.json
"$CORECAP" report run >whole.txt
sed -n '1,/^========/p' whole.txt
least=$(python3 -c '
import json, sys
best = None
for f in sys.argv[1:]:
    host, pid, path = f.split(":")
    d = json.load(open(path))["diagnosis"]
    h = d.get("headroom")
    if h is not None and (best is None or h < best[0]):
        best = (h, host, pid)
print("%.3f %s %s" % best if best else "none")' "b:$b1_pid:named-$b1_pid.json" "b:$b2_pid:named-$b2_pid.json" "c:$c_pid:c.json")
echo "least headroom over the daemons: $least"
expect_eq "the system's headroom, host and PID: the least over every daemon" "$least" \
	"$(json whole.json "'%.3f %s %s' % (d['system']['headroom'], d['system']['host'], d['system']['pid'])")"
# The next host: the other one, at its least; host b's by its daemon
# (b:PID and its name), c's by its name alone.
next=$(python3 -c '
import json, sys
least = sys.argv[1].split()[1]
by = {}
for f in sys.argv[2:]:
    host, pid, path = f.split(":")
    h = json.load(open(path))["diagnosis"].get("headroom")
    if h is not None and host != least and (host not in by or h < by[host][0]):
        by[host] = (h, pid)
if by:
    host = min(by, key=lambda k: by[k][0])
    h, pid = by[host]
    print("%s %s %.2f" % (host, pid if host == "b" else "-", h))
else:
    print("none")' "$least" "b:$b1_pid:named-$b1_pid.json" "b:$b2_pid:named-$b2_pid.json" "c:$c_pid:c.json")
echo "the next host by the daemons' reports: $next"
if [ "$next" != none ]; then
	read -r next_host next_pid next_h <<<"$next"
	expect_eq "JSON: the next host and its capping daemon's PID (null for a host of one)" \
		"$next_host $([ "$next_pid" = - ] && echo None || echo "$next_pid")" \
		"$(json whole.json "'%s %s' % (d['system']['next_host'], d['system']['next_pid'])")"
	if [ "$next_host" = b ]; then
		want="  then       host b:$next_pid (refosd) at"
	else
		want="  then       host $next_host at"
	fi
	then_line=$(grep -m 1 '^  then       host ' whole.txt || true)
	expect_eq "text: the then line names it" "$want" "${then_line% *}"
	# Its figure: the daemon's headroom (rounded twice here: the JSON's 3 digits, then 2).
	then_h=${then_line##* }
	then_h=${then_h%x}
	expect_calc "text: at its headroom (${then_h}x against ${next_h}x)" \
		"$then_h - $next_h <= 0.011 && $next_h - $then_h <= 0.011"
fi
expect_eq "JSON: host b lists its two daemons, c its one" "b $b1_pid $b2_pid c $c_pid" \
	"$(json whole.json "' '.join(h['name'] + ' ' + ' '.join(str(x['pid']) for x in sorted(h['daemons'], key=lambda x: x['pid'])) for h in d['hosts'])")"
expect_eq "JSON: host b's report is its several-daemon report" corecap-report-multi \
	"$(json whole.json "d['hosts'][0]['report']['format']")"
for p in $b1_pid $b2_pid; do
	expect_true "text: a line for host b's PID $p" grep -qE "^ +b +refosd \(pid $p\) +complete" whole.txt
done
expect_true "text: a line for host c's daemon" grep -qE "^ +c +refosd \(pid $c_pid\) +complete" whole.txt
# The clients' latency split: a row per daemon, B's named by PID, each
# daemon's ops matched (refbench writes RUN/client-ops.tsv), none beyond
# the bound.
expect_eq "JSON: a client split row per daemon" "b:$b1_pid b:$b2_pid c" \
	"$(json whole.json "' '.join(h['host'] + (':' + str(h['pid']) if h['pid'] else '') for h in sorted(d['client_split']['hosts'], key=lambda h: (h['host'], h['pid'] or 0)))")"
expect_eq "JSON: every daemon's ops split, none beyond the bound" "0 0" \
	"$(json whole.json "sum(1 for h in d['client_split']['hosts'] if not h.get('ops')), sum(sum(h['beyond_bound'].values()) for h in d['client_split']['hosts'] if h.get('ops'))" | tr -d "(),")"
expect_true "text: host b's PID $b1_pid has its split row" grep -qE "^  b:$b1_pid +median +[0-9]+ " whole.txt
sys_line=$(grep '^SYSTEM' whole.txt)
expect_eq "text: the SYSTEM line is the JSON's verdict" "SYSTEM     $(json whole.json "d['system']['verdict']")" "$sys_line"
"$CORECAP" html -o whole.html run
expect_true "html: the system's part as the text prints it" grep -qF -- "$(printf '%s' "$sys_line" | sed "s/'/\&#39;/g")" whole.html
expect_true "html: a section for host b" grep -q 'id="cc-host-b"' whole.html
# The whole run's flame graph and time line: a root frame and a process
# per daemon of host b ("b:PID"), as each daemon's own.
"$CORECAP" flame --kind op run >whole.folded 2>whole.flame.err ||
	{ echo "FAIL: flame run:"; cat whole.flame.err; }
expect_eq "flame run: a root frame per daemon of b, one for c" "b:$b1_pid b:$b2_pid c" \
	"$(cut -d';' -f1 whole.folded | sort -u | tr '\n' ' ' | sed 's/ $//')"
"$CORECAP" flame --kind op "run:b:$b1_pid" | sort >own.folded
grep "^b:$b1_pid;" whole.folded | sed "s/^b:$b1_pid;//" | sort >part.folded
expect_true "flame run: b:PID's lines are flame run:b:PID's" cmp -s own.folded part.folded
"$CORECAP" export --chrome -o whole.trace.json run 2>export.err || { echo "FAIL: export run:"; cat export.err; }
expect_eq "export --chrome run: a process per daemon, b's two and c's" \
	"b:$b1_pid b:$b2_pid c:$c_pid" \
	"$(json whole.trace.json "' '.join(h['name'] + ':' + str(h['pid']) for h in d['otherData']['hosts'])")"
expect_eq "export --chrome run: b's processes named HOST: comm (pid N)" \
	"b: refosd (pid $b1_pid)|b: refosd (pid $b2_pid)" \
	"$(json whole.trace.json "'|'.join(h['process'] for h in d['otherData']['hosts'] if h['name'] == 'b')")"
# compare RUN_A RUN_B pairs a host's daemons (analysis/daemon_pairing.h)
# and compares each pair beneath its host. The run against itself: host
# b's two daemons each with itself, by PID. Against run3, a second record
# of host b's daemons P3, P2, P4 (P3 and P4 started since): P2 with P2 by
# PID, P1 with P3 in order (the first refosd each run has left), P4 in run3
# only; host c compared whole as before. Each pair's section is byte for
# byte `compare run:b:X run3:b:Y`, its JSON that command's, and the text,
# JSON and HTML name the same pairs.
"$CORECAP" compare run run >self.txt 2>self.err || { echo "FAIL: compare run run:"; cat self.err; }
sed -n '/^hosts /,/^========/p' self.txt
for p in $b1_pid $b2_pid; do
	expect_true "compare run run: host b's PID $p paired with itself, by PID" \
		grep -qxF "             run:b:$p with run:b:$p: the same PID, $p" self.txt
	expect_true "compare run run: its section" grep -qxF "======== host b: corecap compare run:b:$p run:b:$p ========" self.txt
done
expect_true "compare run run: b compared daemon by daemon, c whole" \
	grep -qxF 'hosts      compared below, each as `corecap compare A:NAME B:NAME` prints it: b (daemon by daemon), c' self.txt
expect_true "compare run run: host c compared" grep -q "^======== host c: corecap compare run:c run:c" self.txt

hosts_start_refosd b "$b_addr" 3
b3_pid=$OSD_PID b3_port=$OSD_PORT
hosts_start_refosd b "$b_addr" 4
b4_pid=$OSD_PID b4_port=$OSD_PORT
cat >hosts3.txt <<HOSTS
b b pid=$b3_pid,$b2_pid,$b4_pid
c c pid=$c_pid
HOSTS
rb="$REFBENCH --no-progress -d 2 write"
rc=0
"$CORECAP" record --hosts hosts3.txt --rsh "$HOSTS_RSH" --corecap-path "$CORECAP" -o run3 \
	--record-opt=--no-kernel -- $bench \
	"$rb -H $b_addr -p $b3_port -t 2 & $rb -H $b_addr -p $b2_port -t 2 & $rb -H $b_addr -p $b4_port -t 1 & $rb -H $c_addr -p $c_port -t 2; wait" \
	>record3.out 2>record3.err || rc=$?
expect_eq "record --hosts run3 exit status" 0 "$rc"
[ "$rc" = 0 ] || cat record3.err
expect_eq "run3: host b's daemons in the order given" "$b3_pid $b2_pid $b4_pid" \
	"$(json run3/hosts/b/manifest.json "' '.join(str(x['pid']) for x in d['daemons'])")"
"$CORECAP" compare run run3 >cmp3.txt 2>cmp3.err || { echo "FAIL: compare run run3:"; cat cmp3.err; }
"$CORECAP" compare --json run run3 >cmp3.json 2>cmp3.json.err || { echo "FAIL: compare --json run run3:"; cat cmp3.json.err; }
"$CORECAP" compare --html cmp3.html run run3 2>cmp3.html.err || { echo "FAIL: compare --html run run3:"; cat cmp3.html.err; }
sed -n '/^hosts /,/^========/p' cmp3.txt
expect_eq "JSON: host b's pairs, in run's order, and how" \
	"$b1_pid-$b3_pid:order $b2_pid-$b2_pid:pid" \
	"$(json cmp3.json "' '.join('%s-%s:%s' % (x['a']['pid'], x['b']['pid'], x['paired_by']) for x in d['hosts'][0]['daemons'])")"
expect_eq "JSON: P4 in run3 only, none in run only" "[] $b4_pid run3:b:$b4_pid refosd" \
	"$(json cmp3.json "d['hosts'][0]['only_a_daemons'], ' '.join('%s %s %s' % (x['pid'], x['name'], x['comm']) for x in d['hosts'][0]['only_b_daemons'])" | tr -d "(),'")"
expect_eq "JSON: host b compared by daemon (its own compare null), host c whole (daemons null)" \
	"b True False c False True" \
	"$(json cmp3.json "' '.join('%s %s %s' % (h['name'], h['compare'] is None, h['daemons'] is None) for h in d['hosts'])")"
expect_true "text: P1 with P3, the note says in order" grep -qxF \
	"             run:b:$b1_pid with run3:b:$b3_pid: PIDs differ ($b1_pid and $b3_pid): A's 1st refosd left with B's 1st, in the order each run recorded them" cmp3.txt
expect_true "text: P2 with P2, the same PID" grep -qxF "             run:b:$b2_pid with run3:b:$b2_pid: the same PID, $b2_pid" cmp3.txt
expect_true "text: P4 in run3 only" grep -qxF "             only in B: PID $b4_pid (refosd) (not compared)" cmp3.txt
for pair in "$b1_pid $b3_pid" "$b2_pid $b2_pid"; do
	set -- $pair
	"$CORECAP" compare "run:b:$1" "run3:b:$2" >"cmp3.$1-$2.txt" 2>/dev/null
	"$CORECAP" compare --json "run:b:$1" "run3:b:$2" >"cmp3.$1-$2.json" 2>/dev/null
done
"$CORECAP" compare run:c run3:c >cmp3.c.txt 2>/dev/null
# Each section of the text against its pair's own compare and the JSON's
# pair: the same pairs in the same order, the same notes, the same bodies.
python3 - cmp3.txt cmp3.json >cmp3.check <<'PY'
import json, sys
text = open(sys.argv[1]).read()
whole = json.load(open(sys.argv[2]))
sections = []
for p in text.split("\n======== host ")[1:]:
    head, _, body = p.partition(" ========\n")
    note = None
    if body.startswith("paired     "):
        note, _, body = body.partition("\n")
        note = note[len("paired     "):]
    body = body[1:]
    host, _, cmd = head.partition(": corecap compare ")
    a, b = cmd.split(" ")
    if ":" in a[len("run:"):]:
        alone = open("cmp3.%s-%s.txt" % (a.split(":")[2], b.split(":")[2])).read()
    else:
        alone = open("cmp3.%s.txt" % host).read()
    sections.append((host, a, b, note))
    print("text", a, b, "same" if body == alone else "differs")
want = []
for h in whole["hosts"]:
    if h["daemons"] is None:
        want.append((h["name"], "run:" + h["name"], "run3:" + h["name"], None))
        continue
    for x in h["daemons"]:
        want.append((h["name"], x["a"]["name"], x["b"]["name"], x["note"]))
        alone = json.load(open("cmp3.%s-%s.json" % (x["a"]["pid"], x["b"]["pid"])))
        print("json", x["a"]["name"], x["b"]["name"], "same" if x["compare"] == alone else "differs")
print("pairs", "agree" if sections == want else "differ: text %s json %s" % (sections, want))
PY
cat cmp3.check
expect_eq "compare run run3: each section is its pair's compare (text), each pair's JSON its compare --json, text and JSON the same pairs" \
	"text run:b:$b1_pid run3:b:$b3_pid same|text run:b:$b2_pid run3:b:$b2_pid same|text run:c run3:c same|json run:b:$b1_pid run3:b:$b3_pid same|json run:b:$b2_pid run3:b:$b2_pid same|pairs agree" \
	"$(paste -sd'|' cmp3.check)"
for pair in "$b1_pid-$b3_pid" "$b2_pid-$b2_pid"; do
	expect_true "html: a section for host b's pair $pair, with how it was paired" \
		grep -q "<h2 id=\"host-b-$pair\">" cmp3.html
done
expect_eq "html: the pairs' notes, as the JSON's" "$(json cmp3.json "'|'.join(x['note'] for x in d['hosts'][0]['daemons'])" | sed "s/'/\&#39;/g")" \
	"$(sed -n 's|^<p class="paired">paired: \(.*\)</p>$|\1|p' cmp3.html | paste -sd'|')"
expect_true "html: the hosts' part names P4 in run3 only" grep -qF "only in B: PID $b4_pid (refosd) (not compared)" cmp3.html
expect_true "html: host c whole" grep -q '<h2 id="host-c">' cmp3.html

# ceph-osds per host: host C's record looks for its OSDs as record
# --ceph-osds does, there; a directory without one fails that host with
# the cause, host B's two daemons are still recorded, the run partial.
mkdir no-osds
cat >hosts2.txt <<HOSTS
b b pid=$b1_pid,$b2_pid
c c ceph-osds=$WORK/no-osds
HOSTS
rc=0
"$CORECAP" record --hosts hosts2.txt --rsh "$HOSTS_RSH" --corecap-path "$CORECAP" -o run2 \
	--record-opt=--no-kernel -d 1 >record2.out 2>record2.err || rc=$?
expect_eq "a host without OSDs: record exits 1" 1 "$rc"
expect_eq "run2: partial, host b complete, host c failed" "partial complete failed" \
	"$(json run2/manifest.json "d['status'], d['hosts'][0]['status'], d['hosts'][1]['status']" | tr -d "(),'")"
hosts_manifest_keys run2/manifest.json paths2
expect_true "and it has hosts[].ceph_osds" grep -qx 'hosts\[\].ceph_osds' paths2
expect_eq "run2: host c's entry keeps its OSD directory" "$WORK/no-osds" \
	"$(json run2/manifest.json "d['hosts'][1]['ceph_osds']")"
expect_true "host c's log says why, as record --ceph-osds says it" \
	grep -qF -- "--ceph-osds: no running ceph-osd listens on an admin socket in '$WORK/no-osds'" run2/hosts/c.log
expect_eq "run2: host b's run of its two daemons" "3 2" \
	"$(json run2/hosts/b/manifest.json "d['version'], len(d['daemons'])" | tr -d "(),'")"

# The host's daemons were left as they were: running and serving.
serves() { "$CORECAP_SRC/tests/e2e/hosts_rsh" "$HOSTS_DIR" a "$REFBENCH" -H "$b_addr" -p "$1" \
	--no-progress -t 1 -d 1 write >"serves-$1.out" 2>&1; }
expect_true "host b's first daemon still serves" serves "$b1_port"
expect_true "host b's second daemon still serves" serves "$b2_port"
expect_true "host b's third daemon still serves" serves "$b3_port"
finish
