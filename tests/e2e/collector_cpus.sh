#!/usr/bin/env bash
# record --collector-cpus (issue 43, item 6): corecap keeps its own threads
# on the CPUs given, off the daemon's, and the benchmark it runs is not
# confined with it.
# - every thread of the record (the main loop, the kernel reader, the
#   wall-clock sampler's) has that list as its Cpus_allowed_list while the
#   window runs, and the manifest's collector.cpus says so;
# - the benchmark runs on the CPUs record was started on (it prints its own
#   Cpus_allowed_list into bench.out);
# - a CPU record may not run on (beyond the machine, or outside a taskset it
#   was started in) is refused naming it, before any run directory is made;
#   a list that is not one is a usage error.
set -u
. "${CORECAP_SRC:?}/tests/e2e/collector_lib.sh"
need_sessiond
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (one for the daemon, one for corecap)"
command -v taskset >/dev/null || skip "taskset (util-linux) is not installed"

all=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)
last=$(($(nproc) - 1))
start_daemon osd -- --debug 0

run="$WORK/run"
"$CORECAP" record -p "$OSD_PID" -o "$run" --wallclock --collector-cpus "$last" -- \
	sh -c "grep Cpus_allowed_list /proc/self/status; exec '$REFBENCH' -p $OSD_PORT --no-progress -t 2 -b 1 -d 2 write" \
	>"$WORK/rec.out" 2>"$WORK/rec.err" &
rec=$!
track "$rec"
wait_window "$WORK/rec.err" || exit 1
sleep 0.5
# Every thread of the record, its CPUs, one "tid list" per line.
threads_cpus=$(for s in /proc/"$rec"/task/*/status; do
	awk -v t="${s%/status}" '/^Cpus_allowed_list:/ { sub(/.*\//, "", t); print t, $2 }' "$s"
done)
n_threads=$(printf '%s\n' "$threads_cpus" | grep -c .)
echo "record's threads and their CPUs: $(printf '%s\n' "$threads_cpus" | tr '\n' ';')"
expect_calc "record runs several threads in its window ($n_threads)" "$n_threads >= 2"
expect_eq "every one of them is kept on CPU $last" "" \
	"$(printf '%s\n' "$threads_cpus" | awk -v c="$last" '$2 != c')"
wait "$rec"
expect_eq "record exits 0" 0 "$?"
expect_eq "the manifest names the collector's CPUs" "$last" "$(json "$run/manifest.json" "d['collector']['cpus']")"
expect_true "the benchmark ran on the CPUs record was started on ($all)" \
	grep -qx "Cpus_allowed_list:[[:space:]]*$all" "$run/bench.out"
expect_true "... and got answers" grep -q "^Total writes made: *[1-9]" "$run/bench.out"

# Without the option: the collector's CPUs are the ones it was started on.
"$CORECAP" record -q -p "$OSD_PID" -o "$WORK/plain" --no-trace -d 0.3 >/dev/null 2>&1
expect_eq "without it, the manifest gives all of record's CPUs" "$all" \
	"$(json "$WORK/plain/manifest.json" "d['collector']['cpus']")"

# CPUs record may not run on: refused naming them, nothing made.
expect_exit_naming "a CPU beyond the machine" 1 \
	"--collector-cpus $((last + 1)): CPU $((last + 1)) is not among the CPUs corecap may run on ($all)" \
	"$CORECAP" record -q -p "$OSD_PID" -o "$WORK/beyond" --collector-cpus "$((last + 1))" -d 0.3
expect_true "... and no run directory made" test ! -e "$WORK/beyond"
if [ "$last" -eq 1 ]; then outside="CPU 1 is"; else outside="CPUs 1-$last are"; fi
expect_exit_naming "a CPU outside the taskset record was started in" 1 \
	"--collector-cpus 0-$last: $outside not among the CPUs corecap may run on (0)" \
	taskset -c 0 "$CORECAP" record -q -p "$OSD_PID" -o "$WORK/outside" --collector-cpus "0-$last" -d 0.3
expect_true "... and no run directory made" test ! -e "$WORK/outside"
expect_exit_naming "a list that is not one" 2 \
	"invalid --collector-cpus: '1-' is not a CPU list" \
	"$CORECAP" record -q -p "$OSD_PID" -o "$WORK/bad" --collector-cpus 1- -d 0.3
finish
