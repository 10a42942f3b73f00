# User stacks without frame pointers: refosd started bare, recorded with
# the kernel source and the ptrace wall sampler at once. The futex-wait
# and switch-out stacks, unwound by DWARF CFI from 16 KiB copies, must
# reach the outermost frame, and two methods must agree: where a kernel
# stack and a ptrace sample of the same thread stand at the same
# instruction (a thread blocked in the same futex wait), their frames
# are the same, as deep.
. "${CORECAP_SRC:?}/tests/e2e/kernel_lib.sh"
need_kernel
REFOSD="$CORECAP_BUILD/tests/refosd/refosd"
REFBENCH="$CORECAP_BUILD/tests/refosd/refbench"

launch_refosd osd "$REFOSD" --port 0 --big-lock
osd=$OSD_PID port=$OSD_PORT
status=0
"$CORECAP" record -p "$osd" -o "$WORK/run" --no-trace --kernel "${KERNEL_VIA[@]}" --wallclock --wallclock-via ptrace -q -- \
	"$REFBENCH" -p "$port" -t 4 -b 1 -d 2 write >"$WORK/rec.out" 2>"$WORK/rec.err" || status=$?
expect_eq "record exits" 0 "$status"
expect_producer "$WORK/run"
"$KREAD" "$WORK/run" >"$WORK/k.txt"
read -r _ n matched ok trunc nocfi failed max median < <(grep '^stacks ' "$WORK/k.txt")
echo "kernel stacks: $n, joined $matched, complete $ok, truncated $trunc, no CFI $nocfi, failed $failed, depth max $max median $median"
expect_calc "stacks were taken" "$n >= 50"
expect_calc "95% of them reach the outermost frame" "$ok >= 0.95 * $n"
expect_calc "95% joined to their event record" "$matched >= 0.95 * $n"
read -r pairs same deeper shallower < <(compare_stacks "$WORK/k.txt" "$WORK/run/wall.samples")
echo "kernel stacks at an instruction where the ptrace sampler also saw that thread: $pairs; same frames: $same, deeper: $deeper, shallower: $shallower"
expect_calc "kernel and ptrace stacks met" "$pairs >= 20"
expect_calc "they have the same frames (90%)" "$same >= 0.9 * $pairs"
expect_calc "they are as deep: shallower than the ptrace sample at most 5%" "$shallower <= 0.05 * $pairs"
finish
