#!/usr/bin/env bash
# `corecap scale --prepare CMD` (issue #45: each point starts from the same
# state): CMD runs before each point's record, the daemon already held to
# the point's CPUs, and outside the point's window. On refosd, points at
# 2 and 1 cores (1 last, so that its CPUs differ from the daemon's own):
#  - the command ran once per point, in order, with CORECAP_SCALE_POINT
#    and CORECAP_SCALE_CORES, while the daemon was on the point's CPUs;
#    it ended before the point's window started (the run's manifest, in
#    CLOCK_MONOTONIC), the second began after the first window ended; its
#    output is in cores-N.prepare.log, not in the run's bench.out;
#  - scale.json and the corecap-scale JSON carry the command and each
#    point's prepare_exit (0) and prepare_s, the text a prepare: line;
#  - a command that fails at the second point stops the scale: exit 1,
#    one error naming the command, the point, its exit and its last line;
#    the point is kept as prepare_failed, with no run; the daemon's
#    threads have their affinity back and the daemon is alive;
#  - SIGTERM while the command runs: it and its children are stopped,
#    exit 130, the point interrupted, the affinity back.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/scale_lib.sh"
need_sessiond
need_refosd
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (points at 2 and 1 cores)"

start_refosd prep --op-cpu-us 20 --debug 0
before=$(affinity "$OSD_PID")
bench=("$REFBENCH" -p "$OSD_PORT" --no-progress -t 4 -b 1 -d 2 write)
mono='python3 -c "import time; print(time.monotonic_ns())"'

# The command: when it starts and ends (CLOCK_MONOTONIC, the manifest's
# clock), the daemon's main thread's CPUs meanwhile, a line of output.
cat >"$WORK/prep.sh" <<EOF
#!/bin/sh
t0=\$($mono)
echo "prepare of \$CORECAP_SCALE_POINT"
sleep 0.3
cpus=\$(awk '/^Cpus_allowed_list:/ { print \$2 }' /proc/$OSD_PID/status)
t1=\$($mono)
echo "\$CORECAP_SCALE_POINT \$CORECAP_SCALE_CORES \$t0 \$t1 \$cpus" >>"$WORK/prep.times"
EOF
chmod +x "$WORK/prep.sh"

rc=0
"$CORECAP" scale -p "$OSD_PID" --cores 2,1 -o "$WORK/s" --json --record-opt=--no-kernel \
	--prepare "$WORK/prep.sh" -- "${bench[@]}" >"$WORK/s.json" 2>"$WORK/s.err" || rc=$?
expect_eq "the scale with --prepare exits 0" 0 "$rc"
[ "$rc" -eq 0 ] || { cat "$WORK/s.err"; finish; exit 1; }
cat "$WORK/prep.times"
expect_eq "the command ran once per point, in order, told which" "cores-2 2
cores-1 1" "$(awk '{ print $1, $2 }' "$WORK/prep.times")"
expect_eq "... the daemon on the point's CPUs meanwhile" "0-1 0" \
	"$(awk '{ print $5 }' "$WORK/prep.times" | paste -sd' ')"
win() { json "$WORK/s/$1/manifest.json" "d['window']['$2']"; }
read -r _ _ a0 a1 _ < <(sed -n 1p "$WORK/prep.times")
read -r _ _ b0 b1 _ < <(sed -n 2p "$WORK/prep.times")
expect_calc "the first command ended ($a1) before the first window started ($(win cores-2 start_ns))" \
	"$a1 < $(win cores-2 start_ns)"
expect_calc "the second began ($b0) after the first window ended ($(win cores-2 end_ns))" \
	"$b0 > $(win cores-2 end_ns)"
expect_calc "... and ended ($b1) before the second window started ($(win cores-1 start_ns))" \
	"$b1 < $(win cores-1 start_ns)"
expect_true "its output is in cores-1.prepare.log" grep -qx "prepare of cores-1" "$WORK/s/cores-1.prepare.log"
expect_true "... and not in the run's bench.out" bash -c "! grep -q 'prepare of' '$WORK/s/cores-1/bench.out'"
expect_eq "scale.json names the command" "$WORK/prep.sh" "$(json "$WORK/s/scale.json" "d['prepare']")"
expect_eq "... and each point's exit" "0 0" \
	"$(json "$WORK/s/scale.json" "' '.join(str(p['prepare_exit']) for p in d['points'])")"
expect_eq "the corecap-scale JSON too" "$WORK/prep.sh 0 0" \
	"$(json "$WORK/s.json" "d['prepare'] + ' ' + ' '.join(str(p['prepare_exit']) for p in d['points'])")"
expect_calc "... with each command's time (at least its 0.3 s sleep)" \
	"$(json "$WORK/s.json" "min(p['prepare_s'] for p in d['points'])") >= 0.3"
expect_eq "both points measured" "True True" \
	"$(json "$WORK/s.json" "' '.join(str(p['measured']) for p in d['points'])")"
expect_true "the text has a prepare: line" grep -q "^prepare: $WORK/prep.sh (before each point's window" \
	<("$CORECAP" scale --report "$WORK/s" 2>/dev/null)
expect_eq "the daemon's threads' affinity is as before" "$before" "$(affinity "$OSD_PID")"

# A command that fails at the second point.
rm -f "$WORK/prep.times"
fail='echo "failing at $CORECAP_SCALE_POINT on $(awk "/^Cpus_allowed_list:/ { print \$2 }" /proc/'$OSD_PID'/status)"; [ "$CORECAP_SCALE_CORES" != 1 ] || exit 3'
rc=0
"$CORECAP" scale -p "$OSD_PID" --cores 2,1 -o "$WORK/f" --record-opt=--no-kernel \
	--prepare "$fail" -- "${bench[@]}" >"$WORK/f.out" 2>"$WORK/f.err" || rc=$?
expect_eq "a failing command: exit 1" 1 "$rc"
cat "$WORK/f.err"
expect_eq "... one error naming the command, the point, its exit and last line" 1 \
	"$(grep -cF "corecap scale: the prepare command of the point at 1 cores failed: '$fail' exited 3 ($WORK/f/cores-1.prepare.log: failing at cores-1 on 0); the scale stops" "$WORK/f.err")"
expect_eq "... the daemon was on the point's CPU when it failed, and has its affinity back" "$before" "$(affinity "$OSD_PID")"
expect_alive "$OSD_PID"
expect_eq "... the point kept: prepare_failed, exit 3, no run, no record" "prepare_failed 3 None None" \
	"$(json "$WORK/f/scale.json" "' '.join(str(d['points'][1][k]) for k in ('status', 'prepare_exit', 'run', 'record_exit'))")"
expect_true "... and no run directory for it" test ! -e "$WORK/f/cores-1"
expect_true "... the first point was recorded" test -f "$WORK/f/cores-2/manifest.json"
expect_true "... nothing on stdout" test ! -s "$WORK/f.out"
expect_true "--report says why the point is not measured" \
	grep -q "its prepare command failed (exit 3): not recorded" <("$CORECAP" scale --report "$WORK/f" 2>&1)

# SIGTERM while the command runs: it and its child stop.
"$CORECAP" scale -p "$OSD_PID" --cores 1 -o "$WORK/t" --prepare "echo \$\$ >$WORK/t.pgid; touch $WORK/t.started; sleep 60" \
	-- "${bench[@]}" >"$WORK/t.out" 2>&1 &
sc=$!
track "$sc"
for i in $(seq 1 100); do [ -e "$WORK/t.started" ] && break; sleep 0.1; done
expect_file "$WORK/t.started"
expect_eq "during the command the daemon is on CPU 0" 0 \
	"$(awk '/^Cpus_allowed_list:/ { print $2 }' "/proc/$OSD_PID/status")"
t0=$SECONDS
kill -TERM "$sc"
rc=0
wait "$sc" || rc=$?
expect_eq "SIGTERM during the command: exit 130" 130 "$rc"
expect_calc "... within 5 s" "$SECONDS - $t0 <= 5"
expect_eq "... the point interrupted" interrupted "$(json "$WORK/t/scale.json" "d['points'][0]['status']")"
for i in $(seq 1 20); do pgrep -g "$(cat "$WORK/t.pgid")" >/dev/null || break; sleep 0.1; done
expect_eq "... its process group (its sleep) is gone" "" "$(pgrep -g "$(cat "$WORK/t.pgid")" || true)"
expect_eq "... the affinity back" "$before" "$(affinity "$OSD_PID")"
expect_alive "$OSD_PID"

# Usage.
rc=0
"$CORECAP" scale -p "$OSD_PID" --prepare ' ' -o "$WORK/u" -- true 2>"$WORK/u.err" || rc=$?
expect_eq "an empty --prepare: usage error" 2 "$rc"
expect_true "... saying so" grep -q "^corecap scale: --prepare: the command is empty" "$WORK/u.err"
stop_refosd
finish
