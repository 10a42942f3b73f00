#!/usr/bin/env bash
# Known answer: the default `corecap record` (kernel events permitted, no
# --wallclock) writes the kernel's on-CPU stacks (cpu-clock samples, no
# thread stopped) as the run's wall-clock samples, through each producer
# (eBPF, perf_event_open). kernel_kwall_oncpu runs two spinning threads
# whose shares are set by their own CPU time: "mixed" 3/4 in
# log_format_entry and 1/4 in crunch_numbers, "worker" all in
# crunch_numbers. Each thread's samples, read through `corecap flame
# --kind wall` (symbolized, unwound by CFI: the program has no frame
# pointers), must split within 10% of those shares (mixed: 0.675-0.825
# in the logger, the rest in crunch_numbers); the manifest names
# the sampler; no sample stopped a thread and the process never stopped.
# Then --oncpu-hz 0 records no wall-clock samples, --wallclock the
# kernel's samplers' (kernel-oncpu+offcpu-iter), and --wallclock-via ptrace the
# ptrace sampler's instead.
. "${CORECAP_SRC:?}/tests/e2e/kernel_lib.sh"
need_kernel
SPIN="$CORECAP_BUILD/tests/e2e/kernel_kwall_oncpu"
[ -x "$SPIN" ] || { echo "FAIL: $SPIN is not built"; exit 1; }

# record_spin NAME RECORD_OPTS...: one 3 s run of the spinners into $WORK/NAME
# (at 199 Hz, 300-600 samples per thread: the 0.75 share's 10% bound is
# 2.5-3.5 standard errors).
record_spin() {
	local name=$1 status=0
	shift
	start_workload "$name" "$SPIN" 3
	"$CORECAP" record -p "$WL_PID" -o "$WORK/$name" --no-trace -q "$@" -- \
		sh -c "$(workload_bench "$name")" >"$WORK/$name.rec.out" 2>"$WORK/$name.rec.err" || status=$?
	expect_eq "$name: record exits 0" 0 "$status"
	[ "$status" -eq 0 ] || cat "$WORK/$name.rec.err"
	state=$(awk '/^State:/ { print $2 }' "/proc/$WL_PID/status")
	expect_true "$name: the process was never left stopped (State $state)" \
		test "$state" != T -a "$state" != t
	kill "$WL_PID" 2>/dev/null
}

for via in bpf perf; do
	record_spin "$via" --kernel --kernel-via "$via"
	[ -f "$WORK/$via/manifest.json" ] || continue
	expect_eq "$via: the kernel events' producer" "$via" \
		"$(json "$WORK/$via/manifest.json" 'd["kernel_events"]["producer"]')"
	expect_eq "$via: the manifest names the wall-clock sampler" kernel-oncpu \
		"$(json "$WORK/$via/manifest.json" 'd["wallclock"]["sampler"]')"
	expect_eq "$via: at the default rate" 199 "$(json "$WORK/$via/manifest.json" 'd["wallclock"]["hz"]')"
	expect_eq "$via: no sample stopped a thread (stop_ns 0)" 0 \
		"$(awk -F'\t' '$3 != 0' "$WORK/$via/wall.samples" | wc -l)"
	"$CORECAP" flame "$WORK/$via" --kind wall >"$WORK/$via.folded" 2>"$WORK/$via.flame.err"
	expect_eq "$via: corecap flame --kind wall exits 0" 0 "$?"
	"$CORECAP" flame "$WORK/$via" --kind wall --svg -o "$WORK/$via.svg" 2>/dev/null
	expect_true "$via: the wall flame graph says its samples are on CPU" \
		grep -q "wall-clock stacks on CPU (kernel cpu-clock samples): " "$WORK/$via.svg"
	# Per thread (the folded stack's root): samples, and how many pass
	# through log_format_entry and crunch_numbers.
	read -r mn ml mc wn wl wc < <(python3 - "$WORK/$via.folded" <<'PY'
import sys
n = {"mixed": [0, 0, 0], "worker": [0, 0, 0]}
for line in open(sys.argv[1]):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    frames = stack.split(";")
    if frames[0] not in n:
        continue
    c = int(count)
    n[frames[0]][0] += c
    n[frames[0]][1] += c if "log_format_entry" in frames else 0
    n[frames[0]][2] += c if "crunch_numbers" in frames else 0
print(*n["mixed"], *n["worker"])
PY
	)
	echo "$via: mixed $mn samples ($ml in log_format_entry, $mc in crunch_numbers); worker $wn ($wl, $wc)"
	expect_calc "$via: each thread has at least 100 samples (mixed $mn, worker $wn)" \
		"${mn:-0} >= 100 && ${wn:-0} >= 100"
	expect_calc "$via: mixed's samples in log_format_entry are 0.75 within 10% ($ml of $mn)" \
		"${mn:-0} > 0 && $ml / $mn >= 0.675 && $ml / $mn <= 0.825"
	expect_calc "$via: the rest of mixed's samples are in crunch_numbers ($ml + $mc of $mn)" \
		"${mn:-0} > 0 && ($ml + $mc) / $mn >= 0.95"
	expect_calc "$via: worker's samples are in crunch_numbers, none in the logger ($wc, $wl of $wn)" \
		"${wn:-0} > 0 && $wl == 0 && $wc / $wn >= 0.95"
done

record_spin off --kernel --oncpu-hz 0
expect_true "--oncpu-hz 0: no wall.samples" test ! -e "$WORK/off/wall.samples"
expect_eq "--oncpu-hz 0: no wallclock in the manifest" None \
	"$(json "$WORK/off/manifest.json" 'd.get("wallclock")')"
record_spin kwall --kernel --wallclock=50
expect_eq "--wallclock: the kernel's samplers, on and off a CPU" kernel-oncpu+offcpu-iter \
	"$(json "$WORK/kwall/manifest.json" 'd["wallclock"]["sampler"]')"
record_spin ptrace --kernel --wallclock=50 --wallclock-via ptrace
expect_eq "--wallclock-via ptrace: the ptrace sampler's samples" ptrace \
	"$(json "$WORK/ptrace/manifest.json" 'd["wallclock"]["sampler"]')"
finish
