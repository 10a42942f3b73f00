#!/usr/bin/env bash
# record --wallclock through the kernel (manifest sampler
# kernel-oncpu+offcpu-iter: cpu-clock samples on a CPU, a BPF task
# iterator's copies off it, unwound offline by DWARF CFI) against the
# ptrace sampler on the same refosd (built without frame pointers' help:
# the unwinding reads CFI), under the same load: the kernel's stacks are
# as deep and as well named (mean frames per sample at least 0.9 of
# ptrace's; the share reaching the outermost frame, clone3 or _start,
# within 0.05 of ptrace's or above; unresolved frames no more common),
# every thread of the daemon is sampled at the rate over its whole window
# (on average 0.9-1.1 of the samples due: hz x the window; each thread
# 0.5-1.5: a busy thread's varied from 0.57 to 1.21 between runs on a
# loaded VM, the blocked ones' within 0.03 of 1), and no thread
# was ever stopped (no stop counters, every stop_ns 0, the daemon never
# traced). --wallclock-via kernel without kernel events is refused.
. "${CORECAP_SRC:?}/tests/e2e/kernel_lib.sh"
need_kernel
skip_if_others_busy "${WALL_OTHERS_MAX:-0.5}" "the samples per thread hold on two free CPUs"
REFOSD="$CORECAP_BUILD/tests/refosd/refosd"
REFBENCH="$CORECAP_BUILD/tests/refosd/refbench"

launch_refosd osd "$REFOSD" --port 0
osd=$OSD_PID port=$OSD_PORT

# record_wall NAME ARGS...: a 2 s refbench window at --wallclock=100.
record_wall() {
	local name=$1 status=0
	shift
	"$CORECAP" record -p "$osd" -o "$WORK/$name" --no-trace --kernel "${KERNEL_VIA[@]}" \
		--wallclock=100 "$@" -q -- "$REFBENCH" -p "$port" -t 4 -b 1 -d 2 write \
		>"$WORK/$name.out" 2>"$WORK/$name.err" || status=$?
	expect_eq "$name: record exits 0" 0 "$status"
	[ "$status" -eq 0 ] || cat "$WORK/$name.err"
	"$CORECAP" flame "$WORK/$name" --kind wall >"$WORK/$name.folded" 2>"$WORK/$name.flame"
	echo "$name: $(json "$WORK/$name/manifest.json" "' '.join('%s=%s' % kv for kv in d['wallclock'].items())")"
}
# depth NAME: samples, mean frames, share reaching clone3/_start, share of unresolved frames.
depth() {
	awk '{ n = $NF; k = split($1, f, ";"); s += n; fr += n * (k - 1)
		if (f[2] == "clone3" || f[2] == "_start" || f[2] == "clone" || f[2] == "__clone") o += n
		for (i = 2; i <= k; i++) if (f[i] ~ /^\[?0x|\[unknown\]/) u += n }
		END { printf "%d %.2f %.3f %.4f\n", s, fr / s, o / s, u / fr }' "$WORK/$1.folded"
}

# --wallclock-via kernel without kernel events: refused, naming the cause.
status=0
"$CORECAP" record -p "$osd" -o "$WORK/nok" --no-trace --no-kernel --wallclock --wallclock-via kernel \
	-d 1 -q >/dev/null 2>"$WORK/nok.err" || status=$?
expect_eq "--wallclock-via kernel --no-kernel exits 1" 1 "$status"
expect_true "... naming the cause" grep -qF "cannot take the wall-clock stacks through the kernel (--wallclock-via kernel): no kernel events (--no-kernel)" "$WORK/nok.err"
expect_true "... and leaves no run" test ! -e "$WORK/nok"

record_wall kernel
expect_eq "kernel: record warns of nothing" "" "$(cat "$WORK/kernel.err")"
expect_eq "kernel: the manifest names the kernel's samplers" kernel-oncpu+offcpu-iter \
	"$(json "$WORK/kernel/manifest.json" 'd["wallclock"]["sampler"]')"
expect_eq "kernel: no stop counters" 0 \
	"$(json "$WORK/kernel/manifest.json" 'sum(1 for x in d["wallclock"] if "stop" in x)')"
expect_eq "kernel: every stop_ns is 0" 0 "$(awk -F'\t' '$3 != 0' "$WORK/kernel/wall.samples" | wc -l)"
expect_eq "kernel: refosd never traced" 0 "$(awk '/^TracerPid:/ { print $2 }' /proc/$osd/status)"
record_wall ptrace --wallclock-via ptrace
expect_eq "ptrace: the manifest names ptrace" ptrace \
	"$(json "$WORK/ptrace/manifest.json" 'd["wallclock"]["sampler"]')"

read -r ks kd ko ku < <(depth kernel)
read -r ps pd po pu < <(depth ptrace)
echo "samples, frames per sample, reaching clone3/_start, unresolved: kernel $ks $kd $ko $ku; ptrace $ps $pd $po $pu"
expect_calc "kernel stacks as deep ($kd frames per sample, ptrace $pd)" "$kd >= 0.9 * $pd"
expect_calc "as many reach the outermost frame ($ko, ptrace $po)" "$ko >= $po - 0.05"
expect_calc "no more unresolved frames ($ku, ptrace $pu)" "$ku <= $pu + 0.01"

# Per thread: samples against due (hz x the window, threads alive all of it).
python3 - "$WORK/kernel" >"$WORK/cover" <<'PY'
import csv, json, sys, collections
run = sys.argv[1]
m = json.load(open(run + "/manifest.json"))
hz = m["wallclock"]["hz"]; ws, we = m["window"]["start_ns"], m["window"]["end_ns"]
first, last, comm = {}, {}, {}
for r in csv.DictReader(open(run + "/threads.tsv"), delimiter="\t"):
    t = int(r["time_ns"]); first.setdefault(r["tid"], t); last[r["tid"]] = t; comm[r["tid"]] = r["comm"]
n = collections.Counter()
for line in open(run + "/wall.samples"):
    t, tid = line.split("\t")[:2]
    if ws <= int(t) <= we:
        n[tid] += 1
due = hz * (we - ws) / 1e9
for tid in first:
    if first[tid] <= ws + 2e8 and last[tid] >= we - 2e8:
        print(tid, n[tid], "%.3f" % (n[tid] / due), comm[tid].replace(" ", "_"))
PY
echo "tid samples of-due: $(tr '\n' ';' <"$WORK/cover")"
expect_calc "threads counted ($(wc -l <"$WORK/cover"))" "$(wc -l <"$WORK/cover") >= 4"
mean=$(awk '{ s += $3 } END { printf "%.3f", s / NR }' "$WORK/cover")
expect_calc "the threads got $mean of their due samples on average" "$mean >= 0.9 && $mean <= 1.1"
expect_eq "every thread got 0.5 to 1.5 of its due samples" "" "$(awk '$3 < 0.5 || $3 > 1.5' "$WORK/cover")"
finish
