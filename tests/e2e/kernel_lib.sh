# Helpers of the kernel source's end-to-end tests (sourced). The kernel
# source needs root (or CAP_PERFMON) and tracefs, which the collector
# mounts itself when it may.
# shellcheck shell=bash
. "${CORECAP_SRC:?CORECAP_SRC is not set}/tests/e2e/lib.sh"

CORECAP="${CORECAP_BUILD:?CORECAP_BUILD is not set}/cli/corecap"
WORKLOAD="$CORECAP_BUILD/tests/e2e/kernel_workload"
KREAD="$CORECAP_BUILD/tests/e2e/kernel_read"
for _b in "$CORECAP" "$WORKLOAD" "$KREAD"; do
	[ -x "$_b" ] || { echo "FAIL: $_b is not built"; exit 1; }
done

e2e_workdir kernel
chmod 755 "$WORK"

# need_kernel: skips unless this test may record kernel events.
need_kernel() {
	[ "$(id -u)" = 0 ] || skip "the kernel source's tests run as root (perf_event_open, tracefs)"
	[ -d /sys/kernel/tracing ] || skip "this kernel has no /sys/kernel/tracing"
	if ! mountpoint -q /sys/kernel/tracing; then
		mount -t tracefs nodev /sys/kernel/tracing ||
			skip "tracefs cannot be mounted at /sys/kernel/tracing"
	fi
	[ -e /sys/kernel/tracing/events/syscalls/sys_enter_futex/id ] ||
		skip "this kernel has no syscalls:sys_enter_futex tracepoint"
}

# start_workload NAME CMD...: runs CMD (a kernel_workload, maybe behind
# taskset or setpriv), waits for its "ready"; sets WL_PID and WL_MUTEX.
start_workload() {
	local name=$1 i
	shift
	"$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
	track $!
	for i in $(seq 1 100); do
		grep -q '^ready$' "$WORK/$name.out" 2>/dev/null && break
		sleep 0.05
	done
	WL_PID=$(sed -n 's/^pid //p' "$WORK/$name.out")
	WL_MUTEX=$(sed -n 's/^mutex 0x//p' "$WORK/$name.out")
	[ -n "$WL_PID" ] || { echo "FAIL: $* did not start:"; cat "$WORK/$name.err"; exit 1; }
	track "$WL_PID"
}

# workload_bench NAME: a benchmark command for `corecap record --` that
# starts workload NAME (SIGUSR1) and ends when it printed "done".
workload_bench() {
	echo "kill -USR1 $WL_PID; for i in \$(seq 1 600); do grep -q '^done\$' '$WORK/$1.out' && exit 0; sleep 0.05; done; exit 1"
}

# record_workload NAME: records workload NAME (started by start_workload)
# into $WORK/run with kernel events through the producer the test names,
# for as long as it runs; checks that record exits 0 and which producer.
record_workload() {
	local status=0
	"$CORECAP" record -p "$WL_PID" -o "$WORK/run" --no-trace --kernel "${KERNEL_VIA[@]}" -q -- \
		sh -c "$(workload_bench "$1")" >"$WORK/rec.out" 2>"$WORK/rec.err" || status=$?
	expect_eq "record exits" 0 "$status"
	[ "$status" = 0 ] || cat "$WORK/rec.err"
	expect_producer "$WORK/run"
}

# compare_stacks KREAD_OUT WALL_SAMPLES: of the kernel stacks whose thread
# the ptrace sampler also saw at the same instruction, prints how many,
# how many have the very frames of one of those samples, how many are
# deeper than all of them, how many shallower.
compare_stacks() {
	python3 - "$1" "$2" <<'PY'
import sys
wall = {}
for line in open(sys.argv[2]):
    f = line.rstrip("\n").split("\t")
    ips = f[3].split(" ")
    wall.setdefault((f[1], ips[0]), set()).add(tuple(ips))
pairs = same = deeper = shallower = 0
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] != "stack":
        continue
    frames = tuple(f[4:])
    cands = wall.get((f[1], frames[0]))
    if not cands:
        continue
    pairs += 1
    if frames in cands:
        same += 1
    elif len(frames) > max(len(c) for c in cands):
        deeper += 1
    elif len(frames) < min(len(c) for c in cands):
        shallower += 1
print(pairs, same, deeper, shallower)
PY
}
