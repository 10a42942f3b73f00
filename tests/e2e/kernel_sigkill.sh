# A collector killed (SIGKILL) in the middle of its window: the daemon
# goes on, and kernel/events.bin is readable up to its last whole record
# (records are written whole), with the daemon's futex waits in it.
. "${CORECAP_SRC:?}/tests/e2e/kernel_lib.sh"
need_kernel

start_workload m "$WORKLOAD" mutex 4 500 3
"$CORECAP" record -p "$WL_PID" -o "$WORK/run" --no-trace --kernel -q -- \
	sh -c "$(workload_bench m)" >"$WORK/rec.out" 2>"$WORK/rec.err" &
rec=$!
track "$rec"
for i in $(seq 1 100); do
	[ -s "$WORK/run/kernel/events.bin" ] && [ "$(stat -c %s "$WORK/run/kernel/events.bin")" -gt 65536 ] && break
	sleep 0.05
done
sleep 0.5
kill -KILL "$rec"
wait "$rec" 2>/dev/null
expect_true "the daemon still runs" kill -0 "$WL_PID"
expect_eq "the manifest is the last checkpoint (partial)" partial \
	"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$WORK/run/manifest.json")"
status=0
"$KREAD" "$WORK/run" "$WL_MUTEX" >"$WORK/k.txt" || status=$?
expect_eq "kernel_read reads the file" 0 "$status"
read -r _ waits wait_ns waiters < <(grep '^waits_total ' "$WORK/k.txt")
echo "futex waits on the mutex before the kill: $waits (${wait_ns} ns, $waiters threads)"
expect_calc "the waits recorded so far are there" "${waits:-0} > 10 && ${waiters:-0} >= 2"
finish
