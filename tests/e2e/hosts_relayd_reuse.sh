#!/usr/bin/env bash
# A running lttng-relayd reused (issue 46 item 1, docs/hosts.md "Traces
# through lttng-relayd"): the test starts an lttng-relayd of root's on
# free ports, writing into a directory of its own that already holds
# another session's trace, before `corecap record --hosts` over hosts B and
# C (tests/e2e/hosts_lib.sh). corecap streams the hosts' traces to it, says
# so, copies each host's trace from its output into the run and leaves it
# running; the manifest says "reused" with its PID, ports and output; the
# other session's files and the relayd's output stay, ours are gone. Then
# a relayd of another user (nobody) running alone: not trusted, said once,
# corecap starts its own and stops it; the manifest says "started", with
# its CPU time. (~25-40 s)
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
. "$CORECAP_SRC/tests/e2e/hosts_lib.sh"
need_refosd
need_sessiond
command -v lttng-relayd >/dev/null || skip "lttng-relayd is not installed"
command -v setpriv >/dev/null || skip "setpriv is not installed (util-linux)"
e2e_cleanup_hook() { hosts_teardown; }
hosts_abc
cd "$WORK"
hosts_bc_refosd

# Three free TCP ports (bound to 0, then closed: the relayd takes them next).
read -r p1 p2 p3 < <(python3 -c '
import socket
s = [socket.socket() for _ in range(3)]
for x in s:
    x.bind(("0.0.0.0", 0))
print(*(x.getsockname()[1] for x in s))')
# relayd_start NAME PREFIX...: lttng-relayd (behind PREFIX, e.g. setpriv)
# on those ports, its output in $WORK/NAME-out; its PID in relayd_pid once
# it listens on the control port, else the test fails.
relayd_start() {
	local name=$1 i
	shift
	"$@" lttng-relayd -o "$WORK/$name-out" -C "tcp://0.0.0.0:$p1" -D "tcp://0.0.0.0:$p2" \
		-L "tcp://127.0.0.1:$p3" >"$name.log" 2>&1 &
	relayd_pid=$!
	track "$relayd_pid"
	for i in $(seq 1 200); do
		grep -qi ":$(printf '%04X' "$p1") 00000000:0000 0A" /proc/net/tcp && return 0
		kill -0 "$relayd_pid" 2>/dev/null || break
		sleep 0.05
	done
	echo "FAIL: lttng-relayd ($name) did not listen on $p1:"
	cat "$name.log"
	exit 1
}

# Another session's trace in the relayd's output, before ours: it stays.
mkdir -p -m 0700 "$WORK/root-out/otherhost/other-session"
echo keep >"$WORK/root-out/otherhost/other-session/metadata"
relayd_start root
root_relayd=$relayd_pid
expect_eq "the test's relayd is root's" 0 "$(stat -c %u "/proc/$root_relayd")"

printf 'b b pid=%s\nc c pid=%s\n' "$b_pid" "$c_pid" >hosts.txt
bench="$CORECAP_SRC/tests/e2e/hosts_rsh $HOSTS_DIR a sh -c"
rb="$REFBENCH --no-progress -t 2 -d 2 write"
rc=0
"$CORECAP" record --hosts hosts.txt --rsh "$HOSTS_RSH" --corecap-path "$CORECAP" -o run \
	--record-opt=--no-kernel -- $bench "$rb -H $b_addr -p $b_port & $rb -H $c_addr -p $c_port; wait" \
	>record.out 2>record.err || rc=$?
cat record.err
expect_eq "record --hosts with a relayd running: exit status" 0 "$rc"
expect_true "it says it reuses the relayd, by PID and ports" \
	grep -qF "reusing lttng-relayd (pid $root_relayd), ports $p1 (control) and $p2 (data), output '$WORK/root-out'" record.err
expect_true "the relayd still runs after the record" kill -0 "$root_relayd"
expect_eq "the run: complete" complete "$(json run/manifest.json 'd["status"]')"
expect_eq "manifest: relayd reused, its PID, ports and output" \
	"reused $root_relayd $p1 $p2 $WORK/root-out" \
	"$(json run/manifest.json "' '.join(str(d['relayd'][k]) for k in ('how', 'pid', 'control_port', 'data_port', 'output'))")"
expect_eq "manifest: no CPU time for a relayd not ours" False \
	"$(json run/manifest.json "'cpu_user_s' in d['relayd']")"
hosts_manifest_keys run/manifest.json paths
expect_true "and it has relayd.output" grep -qx 'relayd.output' paths
expect_true "no relayd.log: the relayd is not ours" test ! -e run/relayd.log
for h in b c; do
	expect_eq "host $h: complete, its trace through the relayd" "complete relayd" \
		"$(json run/manifest.json "' '.join(str(x.get(k)) for x in d['hosts'] if x['name'] == '$h' for k in ('status', 'trace_via'))")"
	expect_true "host $h: its trace copied into the run, private" \
		sh -c "test -d run/hosts/$h/trace && test \"\$(stat -c %a run/hosts/$h/trace)\" = 700 && test -n \"\$(find run/hosts/$h/trace -type f -perm 600 -print -quit)\""
	expect_eq "host $h: no file of its trace that is not 0600" "" \
		"$(find "run/hosts/$h/trace" -type f ! -perm 600 -print -quit)"
	"$CORECAP" report --json "run:$h" >"$h.json" 2>"$h.err" || { echo "FAIL: report run:$h"; cat "$h.err"; }
	ops=$(json "$h.json" 'd["ops"]["count"]')
	expect_calc "host $h: its report reads the copied trace ($ops ops)" "$ops > 20"
done
expect_eq "the relayd's output: the other session's trace kept, nothing of ours left" \
	"$WORK/root-out/otherhost/other-session/metadata" \
	"$(find "$WORK/root-out" -mindepth 1 -not -type d -print; find "$WORK/root-out" -mindepth 1 -path '*corecap-*' -print)"
expect_eq "and our session's hostname directory is gone with it" "otherhost" \
	"$(ls "$WORK/root-out")"
kill -TERM "$root_relayd"
wait "$root_relayd" 2>/dev/null || true

# A relayd of another user: not trusted, said once; corecap starts its own.
mkdir -m 0755 "$WORK/nobody-out" "$WORK/nobody-home"
chown 65534:65534 "$WORK/nobody-out" "$WORK/nobody-home"
chmod 0711 "$WORK"
relayd_start nobody setpriv --reuid=65534 --regid=65534 --clear-groups \
	env HOME="$WORK/nobody-home" LTTNG_HOME="$WORK/nobody-home"
nobody_relayd=$relayd_pid
rc=0
"$CORECAP" record --hosts hosts.txt --rsh "$HOSTS_RSH" --corecap-path "$CORECAP" -o run2 \
	--record-opt=--no-kernel -- $bench "$rb -H $b_addr -p $b_port & $rb -H $c_addr -p $c_port; wait" \
	>record2.out 2>record2.err || rc=$?
chmod 0700 "$WORK"
cat record2.err
expect_eq "record --hosts beside another user's relayd: exit status" 0 "$rc"
expect_eq "it says once that relayd is not trusted" 1 \
	"$(grep -c "warning: not reusing lttng-relayd (pid $nobody_relayd): it runs as user 65534, corecap as 0: not trusted; starting one of ours" record2.err || true)"
expect_eq "manifest: a relayd started, not the other user's, with its CPU time" "started True True" \
	"$(json run2/manifest.json "d['relayd']['how'], d['relayd']['pid'] != $nobody_relayd, d['relayd']['cpu_user_s'] >= 0" | tr -d "(),'")"
expect_true "ours is stopped" sh -c "! kill -0 $(json run2/manifest.json "d['relayd']['pid']") 2>/dev/null"
expect_true "the other user's relayd still runs" kill -0 "$nobody_relayd"
expect_eq "its output untouched" "" "$(ls -A "$WORK/nobody-out")"
for h in b c; do
	expect_eq "host $h: through our relayd" relayd \
		"$(json run2/manifest.json "[x for x in d['hosts'] if x['name'] == '$h'][0].get('trace_via')")"
done
kill -TERM "$nobody_relayd"
wait "$nobody_relayd" 2>/dev/null || true
finish
