# Known answer: 4 threads on one mutex held 1 ms at a time. The kernel
# file must hold futex waits of exactly these threads on the mutex's
# address (as the program prints it), summing within 20% of the
# program's own timing of its pthread_mutex_lock calls, each ended by a
# wake from one of the program's threads (the unlocking holder), not from
# an interrupt, and each hold's sleep ended from one (its timer's).
. "${CORECAP_SRC:?}/tests/e2e/kernel_lib.sh"
need_kernel

start_workload m "$WORKLOAD" mutex 4 1000 2
record_workload m
expect_eq "sources.kernel" True "$(json "$WORK/run/manifest.json" 'd["sources"]["kernel"]')"
expect_eq "no record lost" 0 "$(json "$WORK/run/manifest.json" 'd["kernel_events"]["lost"]["total"]')"
"$KREAD" "$WORK/run" "$WL_MUTEX" >"$WORK/k.txt"
expect_eq "kernel_read reads the files" 0 "$?"

prog_tids=$(awk '/^thread / { print $2 }' "$WORK/m.out" | sort -n | tr '\n' ' ')
wait_tids=$(awk '/^wait / { print $2 }' "$WORK/k.txt" | sort -n | tr '\n' ' ')
expect_eq "the threads that waited on mutex 0x$WL_MUTEX" "$prog_tids" "$wait_tids"
prog_ns=$(sed -n 's/^total_wait_ns //p' "$WORK/m.out")
kern_ns=$(awk '/^waits_total / { print $3 }' "$WORK/k.txt")
echo "program's lock wait ${prog_ns} ns, futex waits ${kern_ns} ns"
expect_calc "futex waits within 20% of the program's" \
	"$kern_ns >= 0.8 * $prog_ns && $kern_ns <= 1.2 * $prog_ns && $prog_ns > 100000000"
# The holder: whoever woke a waiter out of its wait is one of the program's threads.
total=$(grep -c '^woken_by ' "$WORK/k.txt")
ours=$(awk -v t=" $prog_tids" '/^woken_by / && index(t, " " $3 " ") { n++ } END { print n + 0 }' "$WORK/k.txt")
echo "waits ended by a wake: $total, by one of the program's threads: $ours"
expect_calc "the waits were ended by the program's threads (the holders)" "$total > 100 && $ours >= 0.95 * $total"
# Each waker told from an interrupt: a wait on the mutex is ended by the
# holder's FUTEX_WAKE, a thread's call; each hold's 1 ms nanosleep by its
# timer's interrupt. A detector that said "interrupt" always, or never,
# fails one of the two.
by_irq=$(awk '/^woken_by / && $4 == 1 { n++ } END { print n + 0 }' "$WORK/k.txt")
locks=$(awk '/^thread / { n += $6 } END { print n + 0 }' "$WORK/m.out")
irq_wakes=$(awk -v t=" $prog_tids" '/^irq_wakings / && index(t, " " $2 " ") { n += $3 } END { print n + 0 }' "$WORK/k.txt")
echo "mutex waits ended from an interrupt: $by_irq of $total; holds $locks, the program's wakings from an interrupt $irq_wakes"
expect_calc "the mutex waits were not ended from an interrupt" "$by_irq <= 0.05 * $total"
expect_calc "each hold's sleep was ended from an interrupt" "$locks > 100 && $irq_wakes >= 0.9 * $locks"
# Stacks of the waits: some taken, joined to their futex records, unwound.
read -r _ n matched ok _ _ failed _ _ < <(grep '^stacks ' "$WORK/k.txt")

expect_calc "futex-wait stacks taken, joined and unwound ($n, $matched, $ok, $failed)" \
	"$n > 20 && $matched >= 0.9 * $n && $ok >= 0.9 * $n"
finish
