#!/usr/bin/env bash
# The hosts' LTTng traces through lttng-relayd (issue 46 item 1,
# docs/hosts.md "Traces through lttng-relayd"): hosts B (+37.5 s) and C
# (-12.25 s) run refosd under `corecap run`, refbench in A drives both.
# `corecap record --hosts` starts its own lttng-relayd: each host's trace
# arrives through it (the manifest says relayd; the relayd's session
# directories existed during the record; the trace's op events are the
# ops the report counts), the hosts' reports have what a record over the
# stream (--no-relayd) gives, and no relayd is left. Then the relayd's
# port taken by another listener: a clear message, the traces over the
# stream, the run complete; and a host that cannot be reached: the relayd
# still stopped. Each record's total time and its tail (the window's end
# to its exit) are printed, relayd against stream.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
. "$CORECAP_SRC/tests/e2e/hosts_lib.sh"
need_refosd
need_sessiond
command -v lttng-relayd >/dev/null || skip "lttng-relayd is not installed (package lttng-tools)"
command -v babeltrace2 >/dev/null || skip "babeltrace2 is not installed"
e2e_cleanup_hook() { hosts_teardown; }
hosts_abc
cd "$WORK"

hosts_start_refosd b "$b_addr"
b_pid=$OSD_PID b_port=$OSD_PORT
hosts_start_refosd c "$c_addr"
c_pid=$OSD_PID c_port=$OSD_PORT
printf 'b b pid=%s\nc c comm=refosd\n' "$b_pid" >hosts.txt
bench="$CORECAP_SRC/tests/e2e/hosts_rsh $HOSTS_DIR a sh -c"
load="$REFBENCH -H $b_addr -p $b_port --no-progress -t 2 -d 2 write & $REFBENCH -H $c_addr -p $c_port --no-progress -t 2 -d 2 write; wait"

# relayd_gone RECORD_ERR: the relayd the record named has exited.
relayd_gone() {
	local pid
	pid=$(sed -n 's/.*lttng-relayd (pid \([0-9]*\)).*/\1/p' "$1" | head -n 1)
	[ -n "$pid" ] || return 1
	[ ! -e "/proc/$pid" ] || [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != lttng-relayd ]
}

# op_ends TRACE: its corecap_op:end_exit events, by babeltrace2 one stream at
# a time and without its muxer: in a time namespace the consumer's packet
# stamps are in the machine's clock and the events in the namespace's, so
# the muxer refuses the trace as out of order (corecap's reader orders by
# the events' times).
op_ends() {
	local dir s d n=0
	dir=$(dirname "$(find "$1" -name metadata | head -n 1)")
	for s in "$dir"/corecap_*; do
		d=$(mktemp -d "$WORK/bt.XXXXXX")
		cp "$dir/metadata" "$s" "$d/"
		n=$((n + $(babeltrace2 run -c src:src.ctf.fs -p "inputs=[\"$d\"]" -c sink:sink.text.details \
			-p with-metadata=no --connect src:sink 2>"$d.err" | grep -c 'Event `corecap_op:end_exit`' || true)))
	done
	echo "$n"
}

# record RUN [OPTS...]: one record of both hosts under the load; its times.
record() {
	local run=$1 rc=0 start end_mono
	shift
	start=$EPOCHREALTIME
	"$CORECAP" record --hosts hosts.txt --rsh "$HOSTS_RSH" --corecap-path "$CORECAP" -o "$run" \
		$kernel_opt "$@" -- $bench "$load" >"$run.out" 2>"$run.err" || rc=$?
	end_mono=$(python3 -c 'import time; print(time.monotonic_ns())')
	echo "$run: record took $(calc "$EPOCHREALTIME - $start") s," \
		"window end to exit $(calc "($end_mono - $(json "$run/manifest.json" 'd["window"]["end_ns"]')) / 1e9") s" \
		"(the exit read by python, ~0.03 s late)"
	cat "$run.err"
	return $rc
}

# RELAYD_MEASURE=N: N records through the relayd and N over the stream, in
# turn, their times printed (RELAYD_MEASURE_KERNEL=1: with kernel events),
# and nothing checked but their exit status.
kernel_opt="--record-opt --no-kernel"
if [ -n "${RELAYD_MEASURE:-}" ]; then
	[ -n "${RELAYD_MEASURE_KERNEL:-}" ] && kernel_opt=""
	for i in $(seq 1 "$RELAYD_MEASURE"); do
		expect_true "measure: record $i through the relayd" record "m$i"
		expect_true "measure: record $i over the stream" record "s$i" --no-relayd
		echo "sizes: relayd run $(du -sk "m$i/hosts" | cut -f1) KiB, stream run $(du -sk "s$i/hosts" | cut -f1) KiB"
	done
	finish
	exit
fi

# relayd_peers RUN_ERR OUT: the addresses the relayd's control port
# accepted connections from while a record runs (/proc/net/tcp6: an IPv4
# client of a listener on "::" shows as ::ffff:A.B.C.D), into OUT, once
# the relayd the record named has exited (30 s at most). The test hosts
# share this machine's session daemon, so the relayd's connections are
# this machine's, on its loopback: the namespaces' bridge never carries them.
relayd_peers() {
	python3 - "$1" "$2" <<'PY'
import ipaddress, os, re, struct, sys, time
err, out = sys.argv[1], sys.argv[2]
pid = port = None
seen, end = set(), time.time() + 30
while time.time() < end:
    m = re.search(r"lttng-relayd \(pid (\d+)\) on \S+, ports (\d+) \(control\)", open(err).read())
    if m:
        pid, port = int(m.group(1)), int(m.group(2))
        for line in open("/proc/net/tcp6").read().splitlines()[1:]:
            f = line.split()
            lport, raddr = int(f[1].split(":")[1], 16), f[2].split(":")[0]
            if lport == port and f[3] == "01":
                b = b"".join(struct.pack("<I", int(raddr[i:i + 8], 16)) for i in range(0, 32, 8))
                a = ipaddress.IPv6Address(b)
                seen.add("::ffff:%s" % a.ipv4_mapped if a.ipv4_mapped else str(a))
        if not os.path.exists("/proc/%d" % pid):
            break
    time.sleep(0.02)
open(out, "w").write(" ".join(sorted(seen)) + "\n")
PY
}

# The relayd's session directories, seen while the record runs.
watch_dirs() {
	local i
	for i in $(seq 1 400); do
		ls -d "$1"/relayd.out/*/corecap-*/* 2>/dev/null | sed 's|.*/||' >>seen.txt || true
		sleep 0.025
	done
}
: >seen.txt
watch_dirs run &
watcher=$!
track $watcher
: >run.err
relayd_peers run.err run.peers &
peers=$!
track $peers
rc=0
record run || rc=$?
kill $watcher 2>/dev/null || true
wait $peers || true
expect_eq "record through the relayd: exit status" 0 "$rc"
expect_eq "the run complete, each host's trace via relayd" "complete relayd relayd" \
	"$(json run/manifest.json 'd["status"], d["hosts"][0].get("trace_via"), d["hosts"][1].get("trace_via")' | tr -d "(),'")"
expect_eq "the relayd's session directories existed: one per host" "b c" "$(sort -u seen.txt | tr '\n' ' ' | sed 's/ $//')"
# Without --relayd-url it listens on every address of both families where
# it can ("::" takes IPv4 too while net.ipv6.bindv6only is 0), else IPv4's.
any=0.0.0.0
[ "$(cat /proc/sys/net/ipv6/bindv6only 2>/dev/null)" = 0 ] && [ -e /proc/net/if_inet6 ] && any=::
expect_true "the record named its relayd, on $any" grep -q "lttng-relayd (pid [0-9]*) on $any, ports" run.err
expect_true "no relayd left running" relayd_gone run.err
expect_eq "its output directory is gone from the run" "" "$(ls -d run/relayd.out 2>/dev/null || true)"
for h in b c; do
	expect_eq "host $h: no trace_via_reason" False "$(json run/manifest.json "'trace_via_reason' in [x for x in d['hosts'] if x['name'] == '$h'][0]")"
	expect_eq "host $h: trace files 0600, directories 0700, no links" "600 700" \
		"$(find "run/hosts/$h/trace" \( -type f -printf '%m\n' \) -o \( -type d -printf '%m\n' \) -o -printf 'other\n' | sort -u | tr '\n' ' ' | sed 's/ $//')"
	"$CORECAP" report --json "run/hosts/$h" >"$h.json" 2>"$h.err" || { echo "FAIL: report run/hosts/$h:"; cat "$h.err"; }
	ops=$(json "$h.json" 'd["ops"]["count"]')
	expect_calc "host $h: report reads it: the benchmark's ops ($ops)" "$ops > 50"
	ends=$(op_ends "run/hosts/$h/trace")
	expect_eq "host $h: the trace's op end events (babeltrace2) are the ops the report counts" "$ops" "$ends"
	"$CORECAP" report "run:$h" >"$h.txt" 2>/dev/null
	expect_true "host $h: report RUN:NAME reads it" grep -q "ops" "$h.txt"
done

# The same over the stream: trace_via stream, the same report keys.
rc=0
record srun --no-relayd || rc=$?
expect_eq "record over the stream: exit status" 0 "$rc"
expect_eq "the run complete, each host's trace via stream" "complete stream stream" \
	"$(json srun/manifest.json 'd["status"], d["hosts"][0].get("trace_via"), d["hosts"][1].get("trace_via")' | tr -d "(),'")"
expect_eq "no relayd started" "" "$(grep lttng-relayd srun.err || true)"
keys() {
	python3 -c '
import json, sys
def walk(v, p):
    if isinstance(v, dict):
        for k, x in v.items():
            yield p + "." + k
            if p.count(".") < 1:
                yield from walk(x, p + "." + k)
print("\n".join(sorted(set(walk(json.load(open(sys.argv[1])), "")))))' "$1"
}
for h in b c; do
	"$CORECAP" report --json "srun/hosts/$h" >"s$h.json" 2>"s$h.err" || { echo "FAIL: report srun/hosts/$h:"; cat "s$h.err"; }
	keys "$h.json" >"$h.keys"
	keys "s$h.json" >"s$h.keys"
	# The objects' keys, two levels (lists' items and deeper keys vary with what each run measured).
	expect_eq "host $h: the report over the relayd has the keys it has over the stream" "" \
		"$(diff "$h.keys" "s$h.keys" | head -5)"
	sops=$(json "s$h.json" 'd["ops"]["count"]')
	expect_eq "host $h: over the stream too, the op end events are the ops counted" "$sops" "$(op_ends "srun/hosts/$h/trace")"
	expect_eq "host $h: the same op types" "$(json "s$h.json" 'sorted(d["ops"]["by_type"])')" \
		"$(json "$h.json" 'sorted(d["ops"]["by_type"])')"
done

# Over IPv6 (relayd_peers above).
if [ -e /proc/net/if_inet6 ] && python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null; then
	# --relayd-url net6://[::1]: the relayd on tcp6://[::1] alone, each
	# host told net6://[::1]:CTRL:DATA/..., as lttng-create spells it.
	: >v6run.err
	relayd_peers v6run.err v6run.peers &
	watcher=$!
	track $watcher
	rc=0
	record v6run --relayd-url 'net6://[::1]' || rc=$?
	wait $watcher || true
	expect_eq "net6://[::1]: exit status" 0 "$rc"
	expect_true "net6://[::1]: the relayd on ::1" grep -q "lttng-relayd (pid [0-9]*) on ::1, ports" v6run.err
	expect_eq "net6://[::1]: the run complete, each host's trace via relayd" "complete relayd relayd" \
		"$(json v6run/manifest.json 'd["status"], d["hosts"][0].get("trace_via"), d["hosts"][1].get("trace_via")' | tr -d "(),'")"
	expect_eq "net6://[::1]: its connections came from ::1" "::1" "$(cat v6run.peers)"
	# Its ops as the report counts them are the trace's op end events, and
	# some (how many the load made varies with the machine's: not checked).
	"$CORECAP" report --json v6run/hosts/b >v6b.json 2>/dev/null || true
	ops=$(json v6b.json 'd["ops"]["count"]')
	expect_calc "net6://[::1]: host b's trace has the benchmark's ops ($ops)" "$ops > 0"
	expect_eq "net6://[::1]: its op end events (babeltrace2) are the ops the report counts" "$ops" "$(op_ends v6run/hosts/b/trace)"
	expect_true "net6://[::1]: no relayd left running" relayd_gone v6run.err
	# Without --relayd-url, hosts whose ssh connection came over IPv6 (the
	# first word of SSH_CONNECTION, given to their remote shell here): each
	# streams to net6://[::1]:..., and the relayd, on "::", takes them.
	if [ "$any" = :: ]; then
		: >sshv6.err
		relayd_peers sshv6.err sshv6.peers &
		watcher=$!
		track $watcher
		rc=0
		HOSTS_RSH="env SSH_CONNECTION=::1 $HOSTS_RSH" record sshv6 || rc=$?
		wait $watcher || true
		expect_eq "ssh over IPv6: exit status" 0 "$rc"
		expect_eq "ssh over IPv6: each host's trace via relayd" "complete relayd relayd" \
			"$(json sshv6/manifest.json 'd["status"], d["hosts"][0].get("trace_via"), d["hosts"][1].get("trace_via")' | tr -d "(),'")"
		expect_eq "ssh over IPv6: the relayd's connections came from ::1, not ::ffff:127.0.0.1" "::1" "$(cat sshv6.peers)"
		# The same hosts without SSH_CONNECTION reach it over IPv4 (the run above).
		expect_eq "the first run's connections: IPv4 on the dual-stack listener" "::ffff:127.0.0.1" "$(cat run.peers)"
	else
		echo "skipped: ssh over IPv6 without --relayd-url (the relayd listens on 0.0.0.0 here: net.ipv6.bindv6only is not 0)"
	fi
else
	echo "skipped: the relayd over IPv6 (no IPv6 loopback here)"
fi

# The relayd's port taken by another listener: said, the traces over the stream.
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True); time.sleep(60)' >taken.port &
taker=$!
track $taker
for i in $(seq 1 100); do [ -s taken.port ] && break; sleep 0.05; done
port=$(cat taken.port)
rc=0
record trun --relayd-url "net://127.0.0.1:$port:$((port == 65535 ? port - 1 : port + 1))" || rc=$?
kill $taker 2>/dev/null || true
expect_eq "port taken: exit status 0 (the traces came anyway)" 0 "$rc"
expect_true "port taken: the message names the relayd, its port and the cause" \
	grep -q "warning: no lttng-relayd: lttng-relayd on tcp://127.0.0.1:$port and .* exited at once (it said: .*Address already in use" trun.err
expect_true "port taken: and the fallback" grep -q "the hosts' traces come over the remote shell" trun.err
expect_eq "port taken: the run complete, the traces via stream, with the reason" "complete stream stream True" \
	"$(json trun/manifest.json 'd["status"], d["hosts"][0].get("trace_via"), d["hosts"][1].get("trace_via"), "Address already in use" in d["hosts"][1].get("trace_via_reason", "")' | tr -d "(),'")"
expect_true "port taken: host b's run reportable" "$CORECAP" report trun/hosts/b
expect_eq "port taken: no relayd of ours left" "" "$(pgrep -x lttng-relayd -a | grep -F "$WORK/trun/" || true)"

# bg_record RUN SIG: a record of both hosts (-d 4), sent SIG once its window started.
bg_record() {
	local run=$1 sig=$2 rp i rc=0
	"$CORECAP" record --hosts hosts.txt --rsh "$HOSTS_RSH" --corecap-path "$CORECAP" -o "$run" \
		--record-opt --no-kernel -d 4 >"$run.out" 2>"$run.err" &
	rp=$!
	for i in $(seq 1 300); do
		grep -q "window started" "$run.err" && break
		sleep 0.05
	done
	sleep 0.5
	kill "-$sig" "$rp"
	wait "$rp" || rc=$?
	echo "$rc"
}
# SIGTERM mid-window: the hosts' runs and traces still come, then the relayd ends.
rc=$(bg_record krun TERM)
cat krun.err
expect_eq "SIGTERM: exit status 143" 143 "$rc"
expect_eq "SIGTERM: the traces through the relayd" "relayd relayd" \
	"$(json krun/manifest.json 'd["hosts"][0].get("trace_via"), d["hosts"][1].get("trace_via")' | tr -d "(),'")"
expect_true "SIGTERM: no relayd left running" relayd_gone krun.err
# SIGKILL: corecap gone at once; its relayd follows it (PR_SET_PDEATHSIG).
rc=$(bg_record xrun KILL)
expect_eq "SIGKILL: exit status 137" 137 "$rc"
for i in $(seq 1 100); do relayd_gone xrun.err && break; sleep 0.05; done
expect_true "SIGKILL: its relayd ended with it" relayd_gone xrun.err
# The hosts' records end their windows when the connection closes; let them finish.
for i in $(seq 1 200); do
	pgrep -f -- "record -q -p $b_pid -o /tmp/corecap-host\\." >/dev/null ||
		pgrep -f -- "record -q -p $c_pid -o /tmp/corecap-host\\." >/dev/null || break
	sleep 0.05
done

# The relayd killed before the hosts' sessions are made: each host's record
# cannot reach it, says so, and its trace comes in the stream, the reason
# in the manifest; the dead relayd is still reaped.
"$CORECAP" record --hosts hosts.txt --rsh "$HOSTS_RSH" --corecap-path "$CORECAP" -o drun \
	--record-opt --no-kernel -d 1 >drun.out 2>drun.err &
rp=$!
dpid=""
for i in $(seq 1 1000); do
	dpid=$(sed -n 's/.*lttng-relayd (pid \([0-9]*\)).*/\1/p' drun.err | head -n 1)
	[ -n "$dpid" ] && break
	sleep 0.01
done
[ -n "$dpid" ] && kill -KILL "$dpid"
rc=0
wait "$rp" || rc=$?
cat drun.err
expect_eq "relayd killed: exit status 0 (the traces came anyway)" 0 "$rc"
expect_eq "relayd killed: the traces via stream, each with the host's reason" "complete stream stream True" \
	"$(json drun/manifest.json 'd["status"], d["hosts"][0].get("trace_via"), d["hosts"][1].get("trace_via"), all("cannot stream the trace to lttng-relayd at" in h.get("trace_via_reason", "") for h in d["hosts"])' | tr -d "(),'")"
expect_true "relayd killed: the recording host says so, quoting the host" \
	grep -q "warning: host 'c': its trace came over the stream, not through lttng-relayd (its record could not stream to lttng-relayd: .*cannot stream the trace to lttng-relayd at 'net://127.0.0.1:" drun.err
expect_true "relayd killed: host b's run reportable" "$CORECAP" report drun/hosts/b

# A host that cannot reach the relayd (here: nothing listens on its port):
# its record says so with the cause and the trace comes in the stream.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
{
	sleep 0.2
	for i in $(seq 1 300); do grep -q '^ready' agent.out 2>/dev/null && break; sleep 0.05; done
	echo go
	sleep 1
} | "$CORECAP_SRC/tests/e2e/hosts_rsh" "$HOSTS_DIR" b "$CORECAP" host-record --pid "$b_pid" \
	--relayd-url "net://127.0.0.1:$port:$((port + 1))/corecap-x/b" --record-opt --no-kernel \
	>agent.out 2>agent.err || true
expect_true "unreachable relayd: the host's record says so, with the URL and the cause" \
	grep -q "warning: cannot stream the trace to lttng-relayd at 'net://127.0.0.1:$port:$((port + 1))/corecap-x/b': .*; writing it into the run instead" agent.err
grep -q "cannot stream the trace" agent.err || { echo "the host said:"; cat agent.err agent.out | head -20; }
# The stream follows the line "done STATUS" (collector/hosts/host_agent.c).
python3 - agent.out agent.tar <<'PY' || true
import sys
data = open(sys.argv[1], "rb").read()
i = data.index(b"\ndone ")
open(sys.argv[2], "wb").write(data[data.index(b"\n", i + 1) + 1:])
PY
expect_true "unreachable relayd: the trace is in the host's stream" \
	sh -c 'tar -tf agent.tar | grep -q "^run/trace/ust/uid/0/64-bit/metadata$"'

# A host that cannot be reached: the other's trace through the relayd, the relayd stopped.
printf 'b b pid=%s\ngone gone pid=1\n' "$b_pid" >hosts.txt
rc=0
record frun || rc=$?
expect_eq "a failing host: exit status 1" 1 "$rc"
expect_eq "b's trace via relayd, gone failed" "partial relayd failed" \
	"$(json frun/manifest.json 'd["status"], d["hosts"][0].get("trace_via"), d["hosts"][1]["status"]' | tr -d "(),'")"
expect_true "a failing host: no relayd left running" relayd_gone frun.err
expect_eq "no relayd of this test left at all" "" "$(pgrep -x lttng-relayd -a | grep -F "$WORK/" || true)"
for p in "$b_pid" "$c_pid"; do
	expect_true "daemon $p alive" kill -0 "$p"
	expect_eq "daemon $p: no thread stopped (state t or T)" "" \
		"$(cat /proc/"$p"/task/*/stat 2>/dev/null | sed -n 's/^\([0-9]*\) (.*) \([tT]\) .*/\1 \2/p')"
done
finish
