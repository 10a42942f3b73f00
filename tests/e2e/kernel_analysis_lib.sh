# Helpers for the analysis of runs recorded without the shim (sourced
# after analysis_lib.sh or kernel_lib.sh, which set CORECAP, WORK and the
# cleanup): a daemon started bare, as a user's daemon is, and the checks
# every analysis command must pass on such a run.
# shellcheck shell=bash
REFOSD="${REFOSD:-$CORECAP_BUILD/tests/refosd/refosd}"
REFBENCH="${REFBENCH:-$CORECAP_BUILD/tests/refosd/refbench}"

# start_bare_refosd NAME [refosd options...]: refosd started directly (no
# `corecap run`, no shim: analysis_lib.sh's launch_refosd); sets OSD_PID
# and OSD_PORT.
start_bare_refosd() {
	local name=$1
	shift
	launch_refosd "$name" "$REFOSD" --port 0 "$@"
}

# record_opts_without_kernel: `--no-kernel` when this build's record has a
# kernel source (so that a run is without it), else nothing.
record_opts_without_kernel() {
	# The help read whole first: grep -q stops reading at its match, and
	# under pipefail the writer's SIGPIPE would fail the test (as it did
	# once the help grew past one pipe write).
	local help
	help=$("$CORECAP" record --help 2>&1 || true)
	if grep -q -- '--no-kernel' <<<"$help"; then
		echo --no-kernel
	fi
}

# expect_all_commands RUN: report, report --json (RUN.json), html, flame,
# flame --svg, export --chrome and compare (RUN with itself) exit 0.
expect_all_commands() {
	local run=$1 status
	for cmd in "report" "report --json" "html -o $run.html" "flame" "flame --svg -o $run.svg" \
		"export --chrome -o $run.chrome.json" "compare $run" "compare --json $run"; do
		status=0
		# shellcheck disable=SC2086
		"$CORECAP" $cmd "$run" >"$run.cmd.out" 2>"$run.cmd.err" || status=$?
		expect_eq "$(basename "$run"): corecap $cmd: exit status" 0 "$status"
		[ "$status" -eq 0 ] || sed 's/^/    /' "$run.cmd.err"
		case $cmd in
		report) cp "$run.cmd.out" "$run.txt" ;;
		"report --json") cp "$run.cmd.out" "$run.json" ;;
		esac
	done
}

# record_kernel RUN [refbench options...]: records the running refosd
# (OSD_PID, OSD_PORT) with kernel events into RUN while refbench runs.
record_kernel() {
	local run=$1
	shift
	"$CORECAP" record -q --kernel "${KERNEL_VIA[@]}" -p "$OSD_PID" -o "$run" -- \
		"$REFBENCH" -p "$OSD_PORT" --no-progress "$@" >"$run.record.out" 2>&1 ||
		{ echo "FAIL: corecap record failed:"; cat "$run.record.out"; exit 1; }
}

# need_kernel_record PID: skips unless `corecap record --kernel` can record
# PID here (root or CAP_PERFMON, tracefs, the futex tracepoints); the
# collector's own message says why not.
need_kernel_record() {
	local status=0
	"$CORECAP" record -q --kernel --no-trace -p "$1" -o "$WORK/probe" -d 0.2 \
		>"$WORK/probe.out" 2>&1 || status=$?
	rm -rf "$WORK/probe"
	[ "$status" = 0 ] || skip "no kernel events here: $(grep -m1 'corecap' "$WORK/probe.out")"
}

# expect_conservation JSON: every thread with kernel states has its four
# states summing to its span, exactly.
expect_conservation() {
	expect_eq "kernel states sum to each thread's span" "[]" \
		"$(json "$1" "[t['tid'] for t in d['threads'] if t['kernel_states'] and sum(t['kernel_states'][k] for k in ('running_ns', 'runnable_ns', 'futex_ns', 'blocked_ns')) != t['kernel_states']['span_ns']]")"
}
