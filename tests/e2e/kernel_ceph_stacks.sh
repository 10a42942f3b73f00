# A bare, unmodified ceph-osd (built without frame pointers) on a
# one-node cluster, recorded with the kernel source and the ptrace wall
# sampler at once during rados bench: the futex-wait and switch-out
# stacks, unwound by DWARF CFI from 16 KiB copies, reach the outermost
# frame; where both saw a thread at the same instruction, 80% have the
# very same frames and at most 10% are shallower than every ptrace
# sample there (a thread at one futex reached from two call paths is
# counted as different, hence not 100%).
. "${CORECAP_SRC:?}/tests/e2e/kernel_lib.sh"
need_kernel
. "$CORECAP_SRC/tests/e2e/ceph_lib.sh"
ceph_need_tools
work=$WORK
e2e_cleanup_hook() { "$mc" stop "$work/c" >/dev/null 2>&1 || true; }

ceph_start c "$(ceph_free_base 54000)"
osd=$(sed -n 's/^osd.0 pid: //p' "$work/c.start")
eval "$("$mc" env "$work/c")"
status=0
"$CORECAP" record -p "$osd" -o "$WORK/run" --no-trace --kernel --wallclock --wallclock-via ptrace -q -- \
	rados -p bench bench 4 write -b 1 -t 10 --no-cleanup >"$WORK/rec.out" 2>"$WORK/rec.err" || status=$?
expect_eq "record exits" 0 "$status"
"$KREAD" "$WORK/run" >"$WORK/k.txt"
read -r _ n matched ok trunc nocfi failed max median < <(grep '^stacks ' "$WORK/k.txt")
wall_max=$(awk -F'\t' '{ n = split($4, a, " "); if (n > m) m = n } END { print m + 0 }' "$WORK/run/wall.samples")
echo "kernel stacks: $n, joined $matched, complete $ok, truncated $trunc, no CFI $nocfi, failed $failed, depth max $max median $median; ptrace samples' depth max $wall_max"
expect_calc "stacks were taken" "$n >= 100"
expect_calc "95% of them reach the outermost frame" "$ok >= 0.95 * $n"
read -r pairs same deeper shallower < <(compare_stacks "$WORK/k.txt" "$WORK/run/wall.samples")
echo "kernel stacks where the ptrace sampler saw the thread at the same instruction: $pairs; same frames: $same, deeper: $deeper, shallower: $shallower"
expect_calc "kernel and ptrace stacks met" "$pairs >= 50"
expect_calc "they have the same frames (80%)" "$same >= 0.8 * $pairs"
expect_calc "they are as deep: shallower than the ptrace sample at most 10%" "$shallower <= 0.1 * $pairs"
finish
