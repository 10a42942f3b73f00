# Bad input: without root or CAP_PERFMON (run as nobody), with
# kernel.perf_event_paranoid relaxed but tracefs not readable, and with
# tracefs not mounted and no right to mount it. Each gives one line
# naming the cause and the remedy; the run goes on without kernel events,
# or, with --kernel, exits 1 and leaves no run behind.
. "${CORECAP_SRC:?}/tests/e2e/kernel_lib.sh"
need_kernel
command -v setpriv >/dev/null || skip "setpriv is not installed"
command -v unshare >/dev/null || skip "unshare is not installed"
id nobody >/dev/null 2>&1 || skip "there is no user 'nobody'"

paranoid_file=/proc/sys/kernel/perf_event_paranoid
saved_paranoid=$(cat "$paranoid_file")
e2e_cleanup_hook() { echo "$saved_paranoid" >"$paranoid_file"; }
mkdir "$WORK/nobody"
chmod 777 "$WORK/nobody"
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all "$@"; }

start_workload m as_nobody "$WORKLOAD" mutex 2 100 1
bench="kill -USR1 $WL_PID; sleep 0.3"

# record_case NAME NEEDLE [setup prefix...]: as nobody, with and without --kernel.
record_case() {
	local name=$1 needle=$2 status=0
	shift 2
	"$@" setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$CORECAP" record -p "$WL_PID" -o "$WORK/nobody/$name" --no-trace -q -- sh -c "$bench" \
		>"$WORK/$name.out" 2>"$WORK/$name.err" || status=$?
	expect_eq "$name: record goes on without kernel events" 0 "$status"
	expect_eq "$name: one warning line" 1 "$(grep -c 'recording without kernel events' "$WORK/$name.err")"
	expect_true "$name: it names '$needle'" grep -qF -- "$needle" "$WORK/$name.err"
	sed -n 's/^/    /; /kernel events/p' "$WORK/$name.err"
	expect_eq "$name: sources.kernel" False "$(json "$WORK/nobody/$name/manifest.json" 'd["sources"]["kernel"]')"
	expect_true "$name: no kernel/ in the run" test ! -e "$WORK/nobody/$name/kernel"
	status=0
	"$@" setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$CORECAP" record -p "$WL_PID" -o "$WORK/nobody/$name-k" --no-trace -q --kernel -- sh -c "$bench" \
		>"$WORK/$name-k.out" 2>"$WORK/$name-k.err" || status=$?
	expect_eq "$name --kernel: exit status" 1 "$status"
	expect_true "$name --kernel: it names '$needle'" grep -qF -- "$needle" "$WORK/$name-k.err"
	expect_true "$name --kernel: no run left behind" test ! -e "$WORK/nobody/$name-k"
}

echo 2 >"$paranoid_file"
record_case no-perfmon "kernel.perf_event_paranoid is 2: run as root, grant CAP_PERFMON"
echo -1 >"$paranoid_file"
record_case tracefs-unreadable "/sys/kernel/tracing/events/sched/sched_switch/format': Permission denied"
record_case tracefs-unmounted "tracefs is not mounted at /sys/kernel/tracing and mounting it needs root" \
	unshare -m sh -c 'umount /sys/kernel/tracing && exec "$@"' sh
echo "$saved_paranoid" >"$paranoid_file"
expect_eq "perf_event_paranoid restored" "$saved_paranoid" "$(cat "$paranoid_file")"
finish
