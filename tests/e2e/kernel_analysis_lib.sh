# Helpers for the analysis of runs recorded without the shim (sourced):
# a daemon started bare, as a user's daemon is, and the checks every
# analysis command must pass on such a run.
# shellcheck shell=bash
. "${CORECAP_SRC:?CORECAP_SRC is not set}/tests/e2e/analysis_lib.sh"

# start_bare_refosd NAME [refosd options...]: refosd started directly (no
# `corecap run`, no shim); sets OSD_PID and OSD_PORT.
start_bare_refosd() {
	local name=$1 i
	shift
	"$REFOSD" --port 0 "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
	OSD_PID=$!
	track "$OSD_PID"
	OSD_PORT=""
	for i in $(seq 1 200); do
		OSD_PORT=$(sed -n 's/^refosd: listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' \
			"$WORK/$name.out")
		[ -n "$OSD_PORT" ] && return 0
		kill -0 "$OSD_PID" 2>/dev/null || { echo "FAIL: refosd $* exited at start:"; cat "$WORK/$name.err"; exit 1; }
		sleep 0.05
	done
	echo "FAIL: refosd did not report its port within 10 s"
	exit 1
}

# record_opts_without_kernel: `--no-kernel` when this build's record has a
# kernel source (so that a run is without it), else nothing.
record_opts_without_kernel() {
	if "$CORECAP" record --help 2>&1 | grep -q -- '--no-kernel'; then
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
