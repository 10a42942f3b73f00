# Known answer: two threads spinning on one CPU (taskset) share it, so
# each is preempted often (switch-outs with prev_state R) and spends at
# least half of its time runnable, waiting for the CPU (about half on an
# idle machine; more when other work shares that CPU). Two methods agree:
# the time between switches equals the kernel's own schedstat counters
# (threads.tsv run_ns and wait_ns, read from /proc), within 20%.
. "${CORECAP_SRC:?}/tests/e2e/kernel_lib.sh"
need_kernel
command -v taskset >/dev/null || skip "taskset is not installed"

start_workload s taskset -c 0 "$WORKLOAD" spin 2
status=0
"$CORECAP" record -p "$WL_PID" -o "$WORK/run" --no-trace --kernel "${KERNEL_VIA[@]}" -q -- \
	sh -c "$(workload_bench s)" >"$WORK/rec.out" 2>"$WORK/rec.err" || status=$?
expect_eq "record exits" 0 "$status"
expect_producer "$WORK/run"
"$KREAD" "$WORK/run" >"$WORK/k.txt"
for tid in $(awk '/^thread / { print $2 }' "$WORK/s.out"); do
	read -r _ _ run_ns rq_ns r_outs s_outs < <(grep "^thread $tid " "$WORK/k.txt")
	echo "thread $tid: running ${run_ns:-?} ns, runnable ${rq_ns:-?} ns, $r_outs preempted, $s_outs blocked"
	expect_calc "thread $tid preempted often" "${r_outs:-0} >= 10"
	expect_calc "thread $tid runnable at least about half the time" \
		"${rq_ns:-0} > 0 && $rq_ns / ($run_ns + $rq_ns) >= 0.4"
	# schedstat, cumulative since the thread started: its last row in the window.
	read -r ss_run ss_wait < <(awk -F'\t' -v t="$tid" '$2 == t { r = $8; w = $9 } END { print r, w }' \
		"$WORK/run/threads.tsv")
	echo "thread $tid: schedstat running $ss_run ns, runnable $ss_wait ns"
	expect_calc "thread $tid running time agrees with schedstat" \
		"$ss_run > 0 && $run_ns >= 0.8 * $ss_run && $run_ns <= 1.2 * $ss_run"
	expect_calc "thread $tid runnable time agrees with schedstat" \
		"$ss_wait > 0 && $rq_ns >= 0.8 * $ss_wait && $rq_ns <= 1.2 * $ss_wait"
done
finish
