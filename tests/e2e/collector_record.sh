#!/usr/bin/env bash
# corecap record against refosd (under corecap run --cpuprofile) while
# refbench runs: every file of the run directory, checked with the tools
# that will read it.
set -u
. "${CORECAP_SRC:?}/tests/e2e/collector_lib.sh"
need_sessiond

start_daemon osd --cpuprofile
RUN="$WORK/run"
"$CORECAP" record -p "$OSD_PID" -o "$RUN" --wallclock --wallclock-via ptrace -- \
	"$REFBENCH" -p "$OSD_PORT" -t 8 -b 1 -d 2 write >"$WORK/rec.out" 2>"$WORK/rec.err"
rc=$?
expect_eq "record exits" 0 "$rc"
[ "$rc" -eq 0 ] || cat "$WORK/rec.err"
expect_true "the benchmark's output is echoed" grep -q '^Average IOPS:' "$WORK/rec.out"
expect_eq "the run directory is the last line on stdout" "$RUN" "$(tail -n 1 "$WORK/rec.out")"
expect_true "progress is shown on stderr" grep -q '^corecap record: [0-9.]* s |' "$WORK/rec.err"
expect_eq "the run directory is private" 700 "$(stat -c %a "$RUN")"

M="$RUN/manifest.json"
expect_true "manifest.json parses" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$M"
expect_eq "manifest format" "corecap-run 2" "$(json "$M" 'd["format"], d["version"]' | tr -d "(),'")"
expect_eq "manifest status" complete "$(json "$M" 'd["status"]')"
expect_eq "manifest pid" "$OSD_PID" "$(json "$M" 'd["pid"]')"
expect_eq "manifest comm" refosd "$(json "$M" 'd["comm"]')"
expect_eq "every source was recorded" "True" "$(json "$M" 'all(d["sources"][k] for k in ("trace", "threads", "stats", "maps", "buildids", "wall", "cpu_prof", "bench"))')"
expect_eq "the window is in the monotonic clock" monotonic "$(json "$M" 'd["clock"]')"
expect_true "the window lasted about the benchmark's 2 s" python3 -c 'import json, sys; w = json.load(open(sys.argv[1]))["window"]; sys.exit(not 1.8e9 < w["end_ns"] - w["start_ns"] < 4e9)' "$M"
expect_eq "benchmark exit status" 0 "$(json "$M" 'd["benchmark"]["exit_status"]')"
expect_eq "benchmark parser" rados "$(json "$M" 'd["benchmark"]["parser"]')"
expect_eq "IOPS in the summary as printed" "$(awk -F: '/^Average IOPS:/ { gsub(/ /, "", $2); print $2 ".0" }' "$RUN/bench.out")" \
	"$(json "$M" 'd["benchmark"]["summary"]["iops_avg"]')"
expect_true "p99 latency in the summary" test "$(json "$M" 'd["benchmark"]["summary"]["lat_p99_s"] > 0')" = True
expect_eq "LTTng loss counters are known" True "$(json "$M" 'd["lttng"]["discarded_events"] is not None and d["lttng"]["lost_packets"] is not None')"
expect_eq "the daemon was registered with its probes" True "$(json "$M" 'd["lttng"]["target_has_probes"]')"
# The cross-core wake-up (wake_probe.h): a few us on hardware, some tens on a
# busy VM; absent only on a machine of one CPU.
if [ "$(nproc)" -ge 2 ]; then
	expect_eq "the machine's cross-core wake-up is measured, 0.5-500 us" True \
		"$(json "$M" '500 <= d["machine"]["wake_ns"] <= 500000')"
else
	expect_eq "one CPU: no cross-core wake-up" None "$(json "$M" 'd["machine"]["wake_ns"]')"
fi

# trace/: babeltrace2 reads it, with corecap_op events of this daemon.
# One pass over babeltrace2's text: the event names and vtids seen.
babeltrace2 "$RUN/trace" 2>"$WORK/bt.err" | awk '
	{ if (match($0, / corecap_op:[a-z_]+:/)) ops[substr($0, RSTART + 1, RLENGTH - 2)]++
	  if (match($0, /\{ vtid = [0-9]+ \}/)) { ctx++
		split(substr($0, RSTART, RLENGTH), f, /[ ]+/); vtid[f[4]]++ } }
	END { for (o in ops) print "op", o, ops[o]; for (v in vtid) print "vtid", v; print "ctx", ctx + 0 }' \
	>"$WORK/trace.txt"
expect_eq "babeltrace2 reads the trace" 0 "${PIPESTATUS[0]}"
# refosd emits begin and end paired with its enter and exit (docs/events.md).
expect_true "the trace holds corecap_op:begin_enter events" grep -q '^op corecap_op:begin_enter [1-9]' "$WORK/trace.txt"
expect_true "the trace holds corecap_op:end_exit events" grep -q '^op corecap_op:end_exit [1-9]' "$WORK/trace.txt"
expect_true "events carry the vtid context (alone)" grep -q '^ctx [1-9]' "$WORK/trace.txt"
# Only the daemon is traced: every thread of the trace is one of its
# threads (threads.tsv samples the daemon's /proc/PID/task; refbench's
# threads are another process).
awk -F'\t' 'NR > 1 { print $2 }' "$RUN/threads.tsv" | sort -u >"$WORK/daemon_tids"
sed -n 's/^vtid //p' "$WORK/trace.txt" | sort -u >"$WORK/trace_tids"
expect_true "the trace has threads" test -s "$WORK/trace_tids"
expect_eq "only the daemon is traced (trace threads not the daemon's)" "" \
	"$(comm -23 "$WORK/trace_tids" "$WORK/daemon_tids" | tr '\n' ' ')"

# threads.tsv: the op and messenger threads used CPU during the window.
T="$RUN/threads.tsv"
expect_eq "threads.tsv header" "time_ns tid comm state utime_ns stime_ns cpu run_ns wait_ns vol_cs invol_cs cs" "$(head -n 1 "$T" | tr '\t' ' ')"
cpu_of() { # comm prefix: CPU ns used in the window by the threads so named
	awk -F'\t' -v p="$1" 'NR > 1 && index($3, p) == 1 {
		c = $5 + $6; if (!($2 in first)) first[$2] = c; last[$2] = c }
		END { s = 0; for (t in last) s += last[t] - first[t]; print s }' "$T"
}
expect_true "tp_osd_tp threads used CPU" test "$(cpu_of tp_osd_tp)" -gt 0
expect_true "msgr-worker threads used CPU" test "$(cpu_of msgr-worker)" -gt 0
expect_true "scheduler delays are there (schedstat)" awk -F'\t' 'NR > 1 && $9 > 0 { ok = 1 } END { exit !ok }' "$T"

# maps, buildids.tsv: refosd itself has a build-id, as readelf says.
expect_true "maps is the daemon's" grep -q " $REFOSD\$" "$RUN/maps"
expect_eq "refosd's build-id" "$(readelf -n "$REFOSD" | sed -n 's/.*Build ID: //p')" \
	"$(awk -F'\t' -v f="$REFOSD" '$1 == f { print $2 }' "$RUN/buildids.tsv")"

# wall.samples: stacks resolve to refosd's functions (with nm, analysis is not needed).
expect_true "wall.samples has lines" test -s "$RUN/wall.samples"
expect_true "every line is time, tid, stop_ns and hex IPs" awk -F'\t' 'NF != 4 || $1 !~ /^[0-9]+$/ || $4 !~ /^[0-9a-f]+( [0-9a-f]+)*$/ { bad = 1 } END { exit bad }' "$RUN/wall.samples"
python3 - "$RUN" "$REFOSD" >"$WORK/resolved.txt" <<'PY'
import bisect, collections, subprocess, sys
run, exe = sys.argv[1], sys.argv[2]
maps = []
for line in open(run + "/maps"):
    f = line.split()
    if len(f) >= 6 and f[5] == exe:
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        maps.append((lo, hi, int(f[2], 16)))
segs = []  # PT_LOAD: file offset, vaddr, size
for line in subprocess.run(["readelf", "-lW", exe], capture_output=True, text=True).stdout.splitlines():
    f = line.split()
    if f and f[0] == "LOAD":
        segs.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
syms = sorted((int(f[0], 16), f[2]) for f in (l.split() for l in subprocess.run(
    ["nm", "--defined-only", exe], capture_output=True, text=True).stdout.splitlines())
    if len(f) == 3 and f[1] in "tT")
addrs = [a for a, _ in syms]
hits = collections.Counter()
for line in open(run + "/wall.samples"):
    for i, ip in enumerate(line.rstrip("\n").split("\t")[3].split()):
        ip = int(ip, 16) - (1 if i else 0)  # return addresses: back into the call
        for lo, hi, off in maps:
            if lo <= ip < hi:
                foff = ip - lo + off
                for so, sv, sz in segs:
                    if so <= foff < so + sz:
                        k = bisect.bisect_right(addrs, foff - so + sv) - 1
                        if k >= 0:
                            hits[syms[k][1]] += 1
for name, n in hits.most_common():
    print(n, name)
PY
expect_true "stacks resolve to the op workers' loop" grep -q ' shards_worker_main$' "$WORK/resolved.txt"
expect_true "stacks resolve to the messenger's loop" grep -q ' messenger_worker_main$' "$WORK/resolved.txt"
expect_true "the sampler never held a thread for a second" test "$(json "$M" 'd["wallclock"]["stop_ns_max"] < 1e9')" = True

# stats-begin/-end: whole copies of the shim's counters file.
seg=$(find "/proc/$OSD_PID/fd" -lname "/memfd:corecap.$OSD_PID (deleted)" | head -n 1)
expect_eq "stats-begin is a full copy" "$(stat -L -c %s "$seg")" "$(stat -c %s "$RUN/stats-begin")"
expect_eq "stats files start with the magic" "ccpstat1 ccpstat1" "$(head -c 8 "$RUN/stats-begin"; echo -n ' '; head -c 8 "$RUN/stats-end")"

# cpu.prof: a legacy gperftools profile (header words 0, 3, 0, period), and it was switched off.
expect_eq "cpu.prof has the profile header" "0 3 0" "$(od -An -t u8 -N 24 "$RUN/cpu.prof" | xargs)"
expect_true "libprofiler's own file was cleaned up" test -z "$(ls "$(tr '\0' '\n' </proc/"$OSD_PID"/environ | sed -n 's/^CPUPROFILE=//p')".[0-9]* 2>/dev/null)"

# An existing run is refused; --force replaces it; -q prints only the path.
"$CORECAP" record -q -p "$OSD_PID" -o "$RUN" --no-trace -d 0.3 >"$WORK/again.out" 2>"$WORK/again.err"
expect_eq "an existing run directory is refused" 1 "$?"
expect_true "the refusal names it and --force" grep -q "'$RUN' already exists (use --force" "$WORK/again.err"
"$CORECAP" record -q -p "$OSD_PID" -o "$RUN" --no-trace --force -d 0.3 >"$WORK/again.out" 2>"$WORK/again.err"
expect_eq "--force replaces it" 0 "$?"
expect_eq "-q: stdout is the run directory" "$RUN" "$(cat "$WORK/again.out")"
expect_eq "-q: stderr is silent" "" "$(cat "$WORK/again.err")"
expect_eq "the replacement has no trace" False "$(json "$M" 'd["sources"]["trace"]')"

# The default name: ./corecap-<comm>-<pid>-<date>.
(cd "$WORK" && "$CORECAP" record -q -p "$OSD_PID" --no-trace -d 0.2 >"$WORK/default.out" 2>&1)
expect_true "the default run name" grep -qE "^corecap-refosd-$OSD_PID-[0-9]{8}-[0-9]{6}\$" "$WORK/default.out"

finish
