#!/usr/bin/env bash
# Safety (issue #45 item 5): `corecap scale` gives every thread of the
# daemon its own affinity back whatever happens to it. One thread of
# refosd is first given an affinity of its own (CPU 1), so a restore to
# one mask for all would show. Then, each from a point at 1 core:
#  - kill -9 of corecap: its guard process restores every thread; the
#    point's recorder and the benchmark end (no corecap record is left);
#  - SIGTERM: exit 130, restored, the point kept and marked interrupted;
#  - a thread that leaves the point's CPUs (its affinity reset, here from
#    outside with taskset) is found, named in scale.json and the output,
#    and the point marked (hollow in the HTML chart).
# After each the daemon is alive and not stopped.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/scale_lib.sh"
need_sessiond
need_refosd
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (a point at 1 core of 2)"
command -v taskset >/dev/null || skip "taskset (util-linux) is not installed"

start_refosd safe --op-cpu-us 20 --debug 0
own=$(ls "/proc/$OSD_PID/task" | sort -n | sed -n 3p)
taskset -p -c 1 "$own" >/dev/null
before=$(affinity "$OSD_PID")
echo "before:"; echo "$before" | awk '{ print "  " $0 }'
bench=("$REFBENCH" -p "$OSD_PORT" --no-progress -t 4 -b 1 -d 6 write)

# wait_confined: until every thread is on CPU 0 (the point at 1 core), 10 s at most.
wait_confined() {
	local i
	for i in $(seq 1 100); do
		[ -z "$(affinity "$OSD_PID" | awk '$2 != "0"')" ] && return 0
		sleep 0.1
	done
	echo "FAIL: the daemon was never confined to CPU 0:"; affinity "$OSD_PID"; exit 1
}

# kill -9 during the point.
"$CORECAP" scale -p "$OSD_PID" --cores 1,2 -o "$WORK/k" -- "${bench[@]}" >"$WORK/k.out" 2>&1 &
sc=$!
track "$sc"
wait_confined
kill -KILL "$sc"
wait "$sc" 2>/dev/null || true
for i in $(seq 1 50); do [ "$(affinity "$OSD_PID")" = "$before" ] && break; sleep 0.1; done
expect_eq "kill -9: every thread's affinity is as before" "$before" "$(affinity "$OSD_PID")"
expect_alive "$OSD_PID"
for i in $(seq 1 100); do pgrep -f "[r]ecord -q -p $OSD_PID -o $WORK/k" >/dev/null || break; sleep 0.1; done
expect_true "kill -9: no corecap record of the point is left" \
	bash -c "! pgrep -f '[r]ecord -q -p $OSD_PID -o $WORK/k'"

# SIGTERM during the point.
"$CORECAP" scale -p "$OSD_PID" --cores 1,2 -o "$WORK/t" -- "${bench[@]}" >"$WORK/t.out" 2>&1 &
sc=$!
track "$sc"
wait_confined
kill -TERM "$sc"
rc=0
wait "$sc" || rc=$?
expect_eq "SIGTERM: exit 130" 130 "$rc"
expect_eq "SIGTERM: every thread's affinity is as before" "$before" "$(affinity "$OSD_PID")"
expect_eq "SIGTERM: the point is kept, interrupted" interrupted \
	"$(json "$WORK/t/scale.json" "d['points'][0]['status']")"
expect_true "SIGTERM: said on stderr" grep -q "interrupted; the points so far are in" "$WORK/t.out"
expect_alive "$OSD_PID"

# A thread leaves the point's CPUs.
"$CORECAP" scale -p "$OSD_PID" --cores 1 -o "$WORK/r" --json -- "${bench[@]}" >"$WORK/r.json" 2>"$WORK/r.err" &
sc=$!
track "$sc"
wait_confined
sleep 0.3
taskset -p -c 0-1 "$own" >/dev/null
rc=0
wait "$sc" || rc=$?
expect_eq "the scale with a reset thread ends" 0 "$rc"
expect_calc "the reset is counted" "$(json "$WORK/r.json" "d['points'][0]['affinity_resets']") >= 1"
expect_eq "... the thread named" True "$(json "$WORK/r.json" "$own in d['points'][0]['affinity_reset_tids']")"
expect_eq "... the point marked" True "$(json "$WORK/r.json" "d['points'][0]['marked']")"
expect_true "... and said on stderr" grep -q "left the CPUs of the point" "$WORK/r.err"
expect_true "... and in the text" grep -q "MARKED: .* reset their own affinity" <("$CORECAP" scale --report "$WORK/r" 2>/dev/null)
# The page: its chart parses as XML, one dot per measured point, hollow when marked.
expect_true "one core count: no fit, and the text says why" \
	grep -q "no fit: fewer than two distinct core counts" <("$CORECAP" scale --report "$WORK/r" 2>/dev/null)
"$CORECAP" scale --report "$WORK/r" --html >"$WORK/r.html" 2>/dev/null
expect_eq "the HTML chart: one hollow dot (the marked point), no fit from one core count, the text" "1 0 True" \
	"$(python3 -c '
import re, sys, xml.dom.minidom
t = open(sys.argv[1]).read()
svg = xml.dom.minidom.parseString(re.search(r"<svg.*</svg>", t, re.S).group(0))
dots = svg.getElementsByTagName("circle")
fit = [l for l in svg.getElementsByTagName("polyline") if "USL fit" in l.toxml()]
print(len([d for d in dots if d.getAttribute("fill") == "white"]), len(fit), "MARKED:" in t)' "$WORK/r.html")"
expect_eq "after it: every thread's affinity is as before" "$before" "$(affinity "$OSD_PID")"
expect_alive "$OSD_PID"
stop_refosd
finish
