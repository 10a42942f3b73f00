# Known answer for the wakings: two threads hand a turn to each other
# through one futex word for 2 s (kernel_workload pingpong). Each wait of
# a thread that slept and was woken (the program counts them) is one
# waking by its partner, so the run must hold, per thread, exactly that
# many wakings by the partner and none by another thread: a waking lost,
# written twice or given the wrong waker fails. The eBPF producer keeps a
# waking in a slot of its thread until the thread's switch-in carries it,
# and writes those still held after its programs detach: the eBPF
# producer's only (perf's rings lose records at this rate).
. "${CORECAP_SRC:?}/tests/e2e/kernel_lib.sh"
need_kernel

start_workload p "$WORKLOAD" pingpong 2
record_workload p
expect_eq "no record lost" 0 "$(json "$WORK/run/manifest.json" 'd["kernel_events"]["lost"]["total"]')"
"$KREAD" "$WORK/run" >"$WORK/k.txt"
expect_eq "kernel_read reads the files" 0 "$?"
expect_eq "two threads" 2 "$(grep -c '^pair ' "$WORK/p.out")"
while read -r _ tid partner _ woken; do
	by_partner=$(awk -v t="$tid" -v w="$partner" '$1 == "wakings" && $2 == t && $3 == w { print $4 }' "$WORK/k.txt")
	by_other=$(awk -v t="$tid" -v w="$partner" '$1 == "wakings" && $2 == t && $3 != w { n += $4 } END { print n + 0 }' "$WORK/k.txt")
	echo "thread $tid: woken $woken times (its count), wakings by $partner ${by_partner:-0}, by others $by_other"
	expect_calc "thread $tid was woken out of its waits" "$woken > 1000"
	expect_eq "thread $tid: a waking by its partner per wait woken" "$woken" "${by_partner:-0}"
	expect_eq "thread $tid: no waking by another thread" 0 "$by_other"
done < <(grep '^pair ' "$WORK/p.out")
finish
