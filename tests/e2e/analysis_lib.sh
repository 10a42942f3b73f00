# Helpers for the analysis' end-to-end tests (sourced). Every process
# started here is killed when the test exits, whatever happens.
# shellcheck shell=bash
. "${CORECAP_SRC:?CORECAP_SRC is not set}/tests/e2e/lib.sh"

CORECAP="${CORECAP_BUILD:?CORECAP_BUILD is not set}/cli/corecap"
TRACEGEN="$CORECAP_BUILD/bench/corecap_tracegen"
REFOSD="$CORECAP_BUILD/tests/refosd/refosd"
REFBENCH="$CORECAP_BUILD/tests/refosd/refbench"
DATA="$CORECAP_SRC/tests/data/analysis"
for _b in "$CORECAP" "$TRACEGEN"; do
	# Built by this project: missing means broken, not skipped.
	[ -x "$_b" ] || { echo "FAIL: $_b is not built"; exit 1; }
done

e2e_workdir analysis
_sessions=()

# LTTng sessions a test made itself (analysis_loss) are destroyed at exit.
e2e_cleanup_hook() {
	local s
	for s in "${_sessions[@]}"; do
		lttng -q destroy "$s" >/dev/null 2>&1 || true
	done
}

# need_refosd: the reference daemon and the shim are part of this build.
need_refosd() {
	local b
	for b in "$REFOSD" "$REFBENCH" "$CORECAP_BUILD/preload/libcorecap-preload.so"; do
		[ -e "$b" ] || { echo "FAIL: $b is not built"; exit 1; }
	done
}

# launch_refosd NAME CMD...: tests/e2e/lib.sh.

# start_refosd NAME [refosd options...]: refosd under `corecap run` (the
# shim preloaded); sets OSD_PID and OSD_PORT.
start_refosd() {
	local name=$1
	shift
	launch_refosd "$name" "$CORECAP" run -- "$REFOSD" --port 0 "$@"
}

stop_refosd() {
	kill -TERM "$OSD_PID" 2>/dev/null || true
	wait "$OSD_PID" 2>/dev/null || true
}

# record_refbench RUN [refbench options...]: records the running refosd
# while refbench runs against it, then writes RUN.json (corecap report
# --json) and RUN.ops (--dump-ops). RECORD_OPTS (an array) adds options
# to `corecap record`. Sets STOLEN: the percent of the machine's time the
# hypervisor took during the recording (lib.sh's cpu_since).
record_refbench() {
	local run=$1
	shift
	cpu_mark
	"$CORECAP" record -q ${RECORD_OPTS[@]+"${RECORD_OPTS[@]}"} -p "$OSD_PID" -o "$run" -- \
		"$REFBENCH" -p "$OSD_PORT" --no-progress "$@" >"$run.record.out" 2>&1 ||
		{ echo "FAIL: corecap record failed:"; cat "$run.record.out"; exit 1; }
	# The known answers assume the cores are the test's: say how idle the
	# machine was (100% = both cores idle), so a failure on a busy machine reads as such.
	cpu_since
	STOLEN=$STEAL_PCT
	echo "machine idle during the run: $IDLE_PCT%, stolen by the hypervisor: $STOLEN%"
	"$CORECAP" report --json --dump-ops "$run.ops" "$run" >"$run.json" ||
		{ echo "FAIL: corecap report $run failed"; exit 1; }
	"$CORECAP" report "$run" >"$run.txt"
}

# expect_same_piped WHAT RUN [REPORT_OPTION...]: `corecap report --json`
# of RUN is the same byte for byte with the trace read on a thread of its
# own (read/trace_pipe.h) as without (CORECAP_TRACE_PIPE=1 and 0).
expect_same_piped() {
	local what=$1 run=$2 p
	shift 2
	for p in 0 1; do
		CORECAP_TRACE_PIPE=$p "$CORECAP" report --json "$@" "$run" >"$run.pipe$p.json" ||
			{ echo "FAIL: $what: CORECAP_TRACE_PIPE=$p corecap report $* $run failed"; exit 1; }
	done
	expect_eq "$what: the report read piped is the one read unpiped" same \
		"$(cmp -s "$run.pipe0.json" "$run.pipe1.json" && echo same || echo differs)"
}

# record_refosd_quiet NAME RUN [refosd options] -- [refbench options]:
# starts refosd (start_refosd NAME), records it under refbench
# (record_refbench RUN) and stops it; all again, up to QUIET_ROUNDS (3)
# rounds, while the report says the hypervisor took the cores (its steal
# warning, docs/methodology.md): such a round measures the host, not the
# daemon. The last round stands; sets STOLEN (record_refbench) and
# DISTURBED (1 if the report warns of steal, else 0). A report that does
# not warn at 10% steal or over, or warns under 2%, fails the test.
record_refosd_quiet() {
	local name=$1 run=$2 round osd_opts=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		osd_opts+=("$1")
		shift
	done
	[ "${1:-}" = -- ] && shift
	for round in $(seq 1 "${QUIET_ROUNDS:-3}"); do
		rm -rf "$run" "$run.json" "$run.ops" "$run.txt"
		start_refosd "$name" "${osd_opts[@]}"
		record_refbench "$run" "$@"
		stop_refosd
		DISTURBED=$(json "$run.json" "int(any('(steal)' in w for w in d['quality']['warnings']))")
		if [ "$(calc "$STOLEN >= 10")" = 1 ]; then
			expect_eq "round $round: $STOLEN% stolen: the report warns of steal" 1 "$DISTURBED"
		elif [ "$(calc "$STOLEN < 2")" = 1 ]; then
			expect_eq "round $round: $STOLEN% stolen: no steal warning" 0 "$DISTURBED"
		fi
		[ "$DISTURBED" = 0 ] && return 0
		echo "round $round: the report warns that the hypervisor took the cores; recording again"
	done
	echo "note: every round was disturbed by the hypervisor; the last one stands"
}

# check_conservation WHAT OPS_TSV: every op's categories sum to its latency
# within 1 us, checked op by op from the --dump-ops file.
check_conservation() {
	local what=$1 tsv=$2 out
	out=$(awk -F'\t' 'NR > 1 {
		n++; s = $6 + $7 + $8 + $9 + $10 + $11 + $12; d = s - $5; if (d < 0) d = -d
		if (d > 1000) bad++
		if (d > max) max = d
	} END { printf "%d %d %d", n, bad, max }' "$tsv")
	set -- $out
	expect_calc "$what: ops dumped" "$1 > 0"
	expect_eq "$what: ops whose categories miss their latency by > 1 us (of $1, max $3 ns)" 0 "$2"
}

# cgroup_hierarchy CONTROLLER V1FILE V1DIR...: the hierarchy a new cgroup
# with CONTROLLER goes under: cgroup v2's (at /sys/fs/cgroup, or at
# /sys/fs/cgroup/unified beside v1 mounts: cgv=2, the controller enabled
# for its children), else the first V1DIR that holds V1FILE (cgv=1). Sets
# cgv and base; skips the test, saying why, when there is none.
cgroup_hierarchy() {
	local ctl=$1 file=$2 d
	shift 2
	cgv=""
	for d in /sys/fs/cgroup /sys/fs/cgroup/unified; do
		if grep -qw "$ctl" "$d/cgroup.controllers" 2>/dev/null; then
			cgv=2 base=$d
			break
		fi
	done
	if [ -z "$cgv" ]; then
		for d in "$@"; do
			if [ -f "$d/$file" ]; then
				cgv=1 base=$d
				break
			fi
		done
	fi
	[ -n "$cgv" ] || skip "no cgroup hierarchy has the $ctl controller (neither cgroup v2's cgroup.controllers nor $file in $*)"
	if [ "$cgv" = 2 ] && ! grep -qw "$ctl" "$base/cgroup.subtree_control"; then
		echo "+$ctl" >"$base/cgroup.subtree_control" ||
			skip "cannot enable the $ctl controller in $base/cgroup.subtree_control"
	fi
}

# render_diagnosis RUN: RUN.json, RUN.txt and RUN.html rendered from the run
# RUN, and the text's DIAGNOSIS section on standard output.
render_diagnosis() {
	"$CORECAP" report --json "$1" >"$1.json"
	"$CORECAP" report "$1" >"$1.txt"
	"$CORECAP" html -o "$1.html" "$1" >/dev/null
	sed -n '/^DIAGNOSIS/,/^$/p' "$1.txt"
}

# expect_relief RUN BENCH_OUT WHAT: refbench's IOPS in BENCH_OUT, measured
# with the cause relieved, within 20% of the headroom RUN.json's diagnosis
# stated; WHAT says what held the measured run ("with the busy loop").
expect_relief() {
	local relieved stated
	relieved=$(awk -F: '/^Average IOPS/ { gsub(/ /, "", $2); print $2 }' "$2")
	stated=$(json "$1.json" "d['diagnosis']['headroom_iops']")
	echo "measured $(json "$1.json" "d['diagnosis']['iops']") ops/s $3; stated headroom" \
		"$(json "$1.json" "d['diagnosis']['headroom']")x (to $stated ops/s); measured $relieved without it"
	expect_calc "relieved IOPS within 20% of the stated headroom ($relieved vs $stated)" \
		"$relieved >= 0.8 * $stated && $relieved <= 1.2 * $stated"
}
