#!/usr/bin/env bash
# The collector's own stall on a Ceph OSD (issue #43 item 5): reading the
# OpTracker history. A memstore ceph-osd under the shim (so that the
# shim's lock table times every wait on OpHistory's lock) recorded for
# 3 s (-d 3) in the middle of a 6 s `rados bench write -b 1 -t 16`,
# twice:
#  - `--ceph-history end`: one dump_historic_ops at the window's end, the
#    OSD formatting up to 10000 ops under its history lock;
#  - the default (drain): slices of about 50 ops each during the window.
# The drained run: its history file says how it was taken (corecap_drain),
# holds ops, and the longest wait on OpHistory's lock is far below the end
# dump's (printed; at most 50 ms on this busy 2-vCPU VM, a few ms quiet).
# Both leave the OSD's osd_op_history_size as it was, and so does a
# record killed with SIGKILL mid-window (its stop watchdog puts it back,
# from 0 if the drain was in a gap).
set -uo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
. "$CORECAP_SRC/tests/e2e/ceph_lib.sh"
ceph_need_tools
ceph_work ceph-drain

base=$(ceph_free_base 49189) || skip "no free port range found for the cluster"
ceph_start osd "$base" --osd-wrapper "$CORECAP run --"
pid=$(cat "$work/osd/osd.0.pid")
asok=$(ls "$work"/osd/run/*osd.0.asok 2>/dev/null || ls "$work"/osd/*osd.0.asok 2>/dev/null | head -1)
[ -S "$asok" ] || asok=$(find "$work/osd" -name '*osd.0.asok' | head -1)
history_size() { ceph --admin-daemon "$asok" config get osd_op_history_size 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["osd_op_history_size"])'; }
before=$(history_size)
echo "the OSD's osd_op_history_size: $before"

# record RUN [record options]: a 3 s window in 6 s of 1-byte writes at
# -t 16, so that the window ends while ops are still filed (a dump at a
# window's end that the benchmark outlived stalls them; one after the
# benchmark, nobody).
record() {
	local run=$1 rc=0 bench
	shift
	(
		eval "$("$mc" env "$work/osd")"
		rados -p bench bench 6 write -b 1 -t 16 --no-cleanup >"$run.bench" 2>&1 &
		bench=$!
		sleep 1
		"$CORECAP" record -q --no-kernel "$@" -p "$pid" -o "$run" -d 3 || rc=$?
		wait "$bench"
		exit "$rc"
	) >"$run.out" 2>"$run.err" || rc=$?
	expect_eq "$(basename "$run"): record exits" 0 "$rc"
	[ "$rc" -eq 0 ] || { tail -n 5 "$run.err"; finish; exit 1; }
	expect_eq "$(basename "$run"): the OSD's history size is as before" "$before" "$(history_size)"
	"$CORECAP" report --json "$run" >"$run.json" 2>/dev/null
}
# history_wait RUN: the longest wait (ms) on OpHistory's lock in RUN's shim lock table.
history_wait() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
w = [l.get("max_wait_ns") or 0 for l in d.get("locks") or [] if "OpHistory" in json.dumps(l)]
print("%.3f" % (max(w) / 1e6 if w else 0))' "$1.json"
}

record "$work/end" --ceph-history end
record "$work/drain"
end_ms=$(history_wait "$work/end")
drain_ms=$(history_wait "$work/drain")
# The history as the collector writes it: zstd-compressed (historic_ops.json.zst).
for r in drain end; do
	expect_true "$r: ceph/historic_ops.json.zst is one whole zstd frame" \
		zstd -q -t "$work/$r/ceph/historic_ops.json.zst"
	zstd -q -d -c "$work/$r/ceph/historic_ops.json.zst" >"$work/$r.historic_ops.json"
done
drain=$(json "$work/drain.historic_ops.json" "d['corecap_drain']")
echo "longest wait on OpHistory's lock: end dump $end_ms ms, drained $drain_ms ms; drain: $drain"
expect_eq "the end dump's file has no drain" False \
	"$(json "$work/end.historic_ops.json" "'corecap_drain' in d")"
expect_calc "the drained file holds ops ($(json "$work/drain.json" "d['ceph']['optracker']['ops']"))" \
	"$(json "$work/drain.json" "d['ceph']['optracker']['ops']") >= 200"
expect_eq "... and says how many it kept of those drained" True \
	"$(json "$work/drain.historic_ops.json" "d['corecap_drain']['ops_kept'] == len(d['ops']) and d['corecap_drain']['ops_seen'] >= len(d['ops'])")"
expect_eq "the report's JSON says it was drained" True \
	"$(json "$work/drain.json" "d['ceph']['optracker']['drain'] is not None and d['ceph']['optracker']['drain']['slices'] > 1")"
expect_true "the text says so" grep -q "ops drained from the OSD's OpTracker in" \
	<("$CORECAP" report "$work/drain" 2>/dev/null)
expect_calc "the longest wait on OpHistory's lock while drained ($drain_ms ms) is at most 50 ms" "$drain_ms <= 50"
expect_calc "... and below the end dump's ($end_ms ms)" "$drain_ms < $end_ms"

# SIGKILL mid-window: the stop watchdog puts the OSD's settings back.
(
	eval "$("$mc" env "$work/osd")"
	exec "$CORECAP" record -q --no-kernel -p "$pid" -o "$work/killed" -- \
		rados -p bench bench 6 write -b 1 -t 16 --no-cleanup
) >"$work/killed.out" 2>&1 &
rp=$!
sleep 3
kill -KILL "$rp"
wait "$rp" 2>/dev/null
for _ in $(seq 50); do [ "$(history_size)" = "$before" ] && break; sleep 0.1; done
expect_eq "record killed mid-window: the OSD's history size is as before" "$before" "$(history_size)"
pkill -f "rados -p bench bench 6 write" 2>/dev/null
expect_true "the OSD still serves" ceph --admin-daemon "$asok" version
finish
