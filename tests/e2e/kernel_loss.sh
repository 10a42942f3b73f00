# Lost records: with 8 KiB ring buffers (CORECAP_KERNEL_RING_KB) the
# 16 KiB stack copies cannot fit and a busy mutex overruns them. The loss
# is counted per CPU, warned about, marked in the manifest (complete
# false), and the file stays readable, its LOST records adding up to the
# manifest's count.
. "${CORECAP_SRC:?}/tests/e2e/kernel_lib.sh"
need_kernel

start_workload m "$WORKLOAD" mutex 8 20 1
status=0
CORECAP_KERNEL_RING_KB=8 "$CORECAP" record -p "$WL_PID" -o "$WORK/run" --no-trace --kernel "${KERNEL_VIA[@]}" -- \
	sh -c "$(workload_bench m)" >"$WORK/rec.out" 2>"$WORK/rec.err" || status=$?
expect_eq "record exits" 0 "$status"
expect_producer "$WORK/run"
m="$WORK/run/manifest.json"
lost=$(json "$m" 'd["kernel_events"]["lost"]["total"]')
per_cpu=$(json "$m" 'sum(d["kernel_events"]["lost"]["per_cpu"])')
echo "lost $lost records (per CPU: $(json "$m" 'd["kernel_events"]["lost"]["per_cpu"]'))"
expect_calc "records were lost" "$lost > 0"
expect_eq "per-CPU losses add up" "$lost" "$per_cpu"
expect_eq "kernel_events.complete" False "$(json "$m" 'd["kernel_events"]["complete"]')"
expect_true "the loss is warned about" grep -q 'records lost' "$WORK/rec.err"
"$KREAD" "$WORK/run" >"$WORK/k.txt"
expect_eq "kernel_read reads the file" 0 "$?"
expect_eq "LOST records add up to the manifest's count" "lost $lost" "$(grep '^lost ' "$WORK/k.txt")"
finish
