# Helpers for end-to-end tests. Each expect_* records a failure and goes
# on, so one run shows every broken check; finish exits 1 if any failed.
# Tests print what they check; a missing prerequisite exits 77 (skipped)
# with the reason.

_failures=0
_checks=0

expect_eq() { # what expected actual
	_checks=$((_checks + 1))
	if [ "$2" = "$3" ]; then
		echo "ok: $1 = $3"
	else
		echo "FAIL: $1: expected '$2', got '$3'"
		_failures=$((_failures + 1))
	fi
}

expect_true() { # what command...
	local what=$1
	shift
	_checks=$((_checks + 1))
	if "$@"; then
		echo "ok: $what"
	else
		echo "FAIL: $what ($*)"
		_failures=$((_failures + 1))
	fi
}

expect_file() {
	expect_true "file '$1' exists" test -e "$1"
}

# json FILE EXPR: a Python expression over the parsed JSON document `d`.
# The kernel source's producer a test records with: CTest sets
# CORECAP_TEST_KERNEL_VIA (bpf or perf) for the tests registered once per
# producer; unset, the collector's default (auto: eBPF where it loads).
KERNEL_VIA=(--kernel-via "${CORECAP_TEST_KERNEL_VIA:-auto}")

# expect_producer RUN: the run's kernel events came from the producer asked
# for (a corecap built without eBPF fails the bpf variant: it must not
# test perf_event_open twice unseen).
expect_producer() {
	[ -z "${CORECAP_TEST_KERNEL_VIA:-}" ] ||
		expect_eq "the kernel events' producer" "$CORECAP_TEST_KERNEL_VIA" \
			"$(json "$1/manifest.json" 'd["kernel_events"]["producer"]')"
}

json() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# calc EXPR: floating-point arithmetic and comparisons (1/0).
calc() {
	awk "BEGIN { print ($*) }"
}

# expect_calc WHAT EXPR: EXPR (awk) must be true.
expect_calc() {
	expect_eq "$1 ($2)" 1 "$(calc "$2")"
}

# expect_exit_naming WHAT STATUS NEEDLE CMD...: CMD exits STATUS and its
# stderr (or, for STATUS 0, its stdout: a report's warnings) names NEEDLE.
# Uses the caller's scratch directory $WORK.
expect_exit_naming() {
	local what=$1 want=$2 needle=$3 status=0 files=("$WORK/err")
	shift 3
	"$@" >"$WORK/out" 2>"$WORK/err" || status=$?
	expect_eq "$what: exit status" "$want" "$status"
	[ "$want" -eq 0 ] && files+=("$WORK/out")
	_checks=$((_checks + 1))
	if grep -qF -- "$needle" "${files[@]}"; then
		echo "ok: $what: the output names '$needle'"
	else
		echo "FAIL: $what: the output does not name '$needle':"
		sed 's/^/    /' "$WORK/err" | head -n 40
		_failures=$((_failures + 1))
	fi
}

# expect_fail_naming WHAT NEEDLE CMD...: CMD exits 1 and its stderr names NEEDLE.
expect_fail_naming() {
	local what=$1 needle=$2
	shift 2
	expect_exit_naming "$what" 1 "$needle" "$@"
}

# e2e_workdir AREA: a fresh scratch directory in $WORK. At exit, every
# process given to track is killed, e2e_cleanup_hook runs if the area
# defines one, and $WORK is removed (e2e_cleanup).
_e2e_pids=()
e2e_workdir() {
	WORK=$(mktemp -d "/tmp/$1-e2e.XXXXXX")
	trap e2e_cleanup EXIT
}

# track PID: kill it when the test exits.
track() {
	_e2e_pids+=("$1")
}

# launch_refosd NAME CMD...: runs CMD (refosd, maybe behind `corecap run`,
# env or another wrapper that execs it) in the background, tracked, its
# stdout and stderr in $WORK/NAME.out and .err, and waits (10 s at most)
# for the port it reports; sets OSD_PID and OSD_PORT. Exits the test with
# a failure if refosd exits or says nothing in time.
launch_refosd() {
	local name=$1 i
	shift
	# Created here, not only by the child's redirection, so that polling it never races.
	: >"$WORK/$name.out"
	"$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
	OSD_PID=$!
	track "$OSD_PID"
	OSD_PORT=""
	for i in $(seq 1 200); do
		OSD_PORT=$(sed -n 's/^refosd: listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' \
			"$WORK/$name.out")
		[ -n "$OSD_PORT" ] && return 0
		if ! kill -0 "$OSD_PID" 2>/dev/null; then
			echo "FAIL: $* exited at start:"
			cat "$WORK/$name.err"
			exit 1
		fi
		sleep 0.05
	done
	echo "FAIL: $* did not report its port within 10 s"
	exit 1
}

# e2e_check_runs DIR: the consistency check over every run this test
# recorded under DIR (a directory with manifest.json and the run mark
# .corecap-run), issue 41's known answer: its report, --json and html are
# rendered with the test's $CORECAP and tests/e2e/diagnosis_diag_agree.py
# checks that the headline, the headroom, the projection at this
# machine's cores and the action agree in the three and that no two
# sections name different limits. One line per run; a run is skipped only
# with its reason printed (partial, or a report that refuses it: the
# hostile and forged runs of the security tests); each rendering has
# AGREE_TIMEOUT_S (120) seconds, and one that hangs fails; once the
# check has taken AGREE_BUDGET_S (60) seconds in a test, the test's
# remaining runs are skipped, each named (a ceph-osd run with kernel
# events takes 10-30 s to render on a busy 2-core machine, and the CI
# suite must stay under 45 min). Returns 1 on a disagreement or a hang.
# CORECAP_AGREE=0 turns it off, saying so.
e2e_check_runs() {
	local dir=$1 cc=${CORECAP:-${CORECAP_BUILD:-}/cli/corecap} t=${AGREE_TIMEOUT_S:-120}
	local budget=${AGREE_BUDGET_S:-60}
	local mark run out status reason rc rc2 rc3 p1 p2 p3 bad=0 n=0 i=0 start=$EPOCHREALTIME
	[ -d "$dir" ] || return 0
	if [ "${CORECAP_AGREE:-1}" = 0 ]; then
		echo "agree: not checked (CORECAP_AGREE=0)"
		return 0
	fi
	[ -x "$cc" ] || return 0
	out=$(mktemp -d "/tmp/agree-check.XXXXXX") || return 1
	while IFS= read -r -d '' mark; do
		run=${mark%/.corecap-run}
		[ -f "$run/manifest.json" ] || {
			echo "agree: skip run $run: no manifest.json (its record did not finish)"
			continue
		}
		i=$((i + 1))
		# A test's runs get AGREE_BUDGET_S of checking; the rest are named as skipped.
		if [ "$(awk -v a="$start" -v b="$EPOCHREALTIME" -v m="$budget" 'BEGIN { print (b - a >= m) }')" = 1 ]; then
			echo "agree: skip run $run: this test's $budget s of checking are spent (AGREE_BUDGET_S)"
			continue
		fi
		# The manifest's top-level keys (two spaces in), without a python per run.
		status=$(sed -n '/^  "status": /{s/^  "status": "\([a-z]*\)",\{0,1\}$/\1/p;q}' "$run/manifest.json")
		if [ "$status" != complete ]; then
			reason=$(sed -n '/^  "partial_reason": /{s/^  "partial_reason": "\(.*\)",\{0,1\}$/\1/p;q}' \
				"$run/manifest.json")
			echo "agree: skip run $run: ${status:-no status in its manifest.json (torn, or not written by corecap)}${status:+: ${reason:-no reason given}}"
			continue
		fi
		if [ -d "$run/daemons" ]; then
			echo "agree: skip run $run: a run of several daemons (its report is the box's; each daemon's run under it is checked)"
			continue
		fi
		if [ -d "$run/hosts" ]; then
			echo "agree: skip run $run: a run of several hosts (its report is the system's; each host's run under it is checked)"
			continue
		fi
		# The three at once: a test runs alone (-j1) on two cores, and
		# each rendering reads the whole run.
		timeout "$t" "$cc" report "$run" >"$out/$i.txt" 2>"$out/$i.err" &
		p1=$!
		timeout "$t" "$cc" report --json "$run" >"$out/$i.json" 2>"$out/$i.err2" &
		p2=$!
		timeout "$t" "$cc" html -o "$out/$i.html" "$run" >/dev/null 2>"$out/$i.err3" &
		p3=$!
		rc=0 rc2=0 rc3=0
		wait "$p1" || rc=$?
		wait "$p2" || rc2=$?
		wait "$p3" || rc3=$?
		if [ "$rc" -eq 124 ] || [ "$rc2" -eq 124 ] || [ "$rc3" -eq 124 ]; then
			echo "FAIL: agree: run $run: a rendering did not finish in $t s (report $rc, --json $rc2, html $rc3)"
			bad=1
			continue
		elif [ "$rc" -ne 0 ]; then
			reason=$(head -n 1 "$out/$i.err")
			echo "agree: skip run $run: corecap report refuses it (exit $rc: $reason)"
			continue
		elif [ "$rc2" -ne 0 ] || [ "$rc3" -ne 0 ]; then
			echo "FAIL: agree: run $run: corecap report --json (exit $rc2) or html (exit $rc3) failed where report did not:"
			cat "$out/$i.err2" "$out/$i.err3" | sed 's/^/    /' | head -n 5
			bad=1
			continue
		fi
		n=$((n + 1))
		python3 "${CORECAP_SRC:?}/tests/e2e/diagnosis_diag_agree.py" -q --run "$run" \
			"$out/$i.txt" "$out/$i.json" "$out/$i.html" || bad=1
	done < <(find "$dir" -name .corecap-run -print0 2>/dev/null | sort -z)
	rm -rf "$out"
	[ "$i" -eq 0 ] || echo "agree: $n of $i run(s) checked in $(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
	return "$bad"
}

e2e_cleanup() {
	local p
	for p in "${_e2e_pids[@]}"; do
		kill -KILL "$p" 2>/dev/null || true
	done
	if declare -F e2e_cleanup_hook >/dev/null; then
		e2e_cleanup_hook
	fi
	wait 2>/dev/null || true
	# Before the runs go: a disagreement fails the test, whatever its status was.
	if ! e2e_check_runs "$WORK"; then
		rm -rf "$WORK"
		echo "FAIL: the runs' text, JSON and HTML disagree (above)"
		exit 1
	fi
	rm -rf "$WORK"
}

skip() {
	echo "SKIP: $*"
	exit 77
}

need_sessiond() {
	command -v lttng >/dev/null || skip "the lttng client is not installed"
	lttng list >/dev/null 2>&1 || skip "no LTTng session daemon answers (scripts/sessiond-start)"
}

finish() {
	echo "$((_checks - _failures)) passed, $_failures failed"
	[ "$_failures" -eq 0 ] || skip_if_stolen
	[ "$_failures" -eq 0 ]
}

# machine_busy_ticks: busy ticks of all CPUs (user, nice, system, irq,
# softirq, steal), from /proc/stat. Softirq time counts: the loopback
# traffic's softirq work is charged to the tasks that run it, so leaving it
# out would make "others" negative on an idle machine.
machine_busy_ticks() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat
}

# children_ticks FILE: CPU of this shell's reaped children, in ticks. Bash's
# `times` must run in this shell (a $(...) subshell has no such children),
# hence the file.
children_ticks() {
	times >"$1"
	awk -v hz="${HZ:-$(getconf CLK_TCK)}" 'NR == 2 {
		split($1, u, /[ms]/); split($2, s, /[ms]/)
		printf "%.0f\n", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * hz }' "$1"
}

# others_mark PID, then others_end PID: OTHERS, the cores that processes
# other than PID and this shell's children reaped in between (a benchmark,
# corecap record) used meanwhile: the machine's load, not the test's. Both
# run in this shell (children_ticks needs it); PID must still run at the end.
others_mark() {
	{ machine_busy_ticks; awk '{ print $14 + $15 }' "/proc/$1/stat"; children_ticks "$WORK/others.times"; date +%s.%N; } >"$WORK/others.0"
}
others_end() {
	{ machine_busy_ticks; awk '{ print $14 + $15 }' "/proc/$1/stat"; children_ticks "$WORK/others.times"; date +%s.%N; } >"$WORK/others.1"
	OTHERS=$(paste "$WORK/others.0" "$WORK/others.1" | awk -v hz="${HZ:-$(getconf CLK_TCK)}" '
		{ d[NR] = $2 - $1 }
		END { printf "%.3f\n", (d[1] - d[2] - d[3]) / (d[4] * hz) }')
}

# skip_if_others_busy MAX WHY: measures for 1 s the CPU the machine spends
# (this test runs nothing yet) and reports the test skipped, saying WHY,
# when it is over MAX cores.
skip_if_others_busy() {
	local b0 others
	b0=$(awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat)
	sleep 1
	others=$(awk -v b0="$b0" -v hz="$(getconf CLK_TCK)" \
		'$1 == "cpu" { print ($2 + $3 + $4 + $7 + $8 + $9 - b0) / hz }' /proc/stat)
	echo "others: $others cores"
	[ "$(calc "$others <= $1")" = 1 ] || skip "other processes keep $others cores busy (over $1): $2"
}

# The hypervisor's steal: this machine is a VM whose host, in bursts of a
# few seconds, does not run a busy vCPU for a fifth to a third of the time
# (/proc/stat's steal). Inside a hold that stretches the hold; across the
# daemon it halves its throughput; no known answer of a measurement holds
# through it. cpu_mark / cpu_since: the shares of the machine's time
# (/proc/stat's first line, user to steal) since the mark, in percent, in
# IDLE_PCT (idle and iowait) and STEAL_PCT (what the hypervisor took), from
# one reading; `cpu_since MARK` since a mark kept apart ($(_cpu_jiffies)).
_cpu_jiffies() { awk '/^cpu / { s = 0; for (i = 2; i <= 9; i++) s += $i; print $5 + $6, $9, s }' /proc/stat; }
cpu_mark() { _cpu0=($(_cpu_jiffies)); }
cpu_since() {
	local now=($(_cpu_jiffies)) m=(${1:-${_cpu0[*]}}) total
	total="(${now[2]} - ${m[2]} + (${now[2]} == ${m[2]}))"
	IDLE_PCT=$(calc "100 * (${now[0]} - ${m[0]}) / $total")
	STEAL_PCT=$(calc "100 * (${now[1]} - ${m[1]}) / $total")
}

# wait_quiet: for a test labelled measured (CORECAP_MEASURED=1, set by
# tests/e2e/CMakeLists.txt), waits until a one-second probe that keeps
# both cores busy loses at most QUIET_STEAL_MAX (3) percent of them to the
# hypervisor, for QUIET_WAIT_S (30) seconds at most; then measures anyway,
# saying so. Prints each probe.
wait_quiet() {
	local max=${QUIET_STEAL_MAX:-3} deadline=$((SECONDS + ${QUIET_WAIT_S:-30})) pct
	while :; do
		cpu_mark
		timeout 1 sh -c 'while :; do :; done' &
		timeout 1 sh -c 'while :; do :; done' &
		wait
		cpu_since
		pct=$STEAL_PCT
		if [ "$(calc "$pct <= $max")" = 1 ]; then
			echo "quiet machine: a busy second lost $pct% to the hypervisor"
			return 0
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			echo "note: the machine never got quiet (last probe lost $pct% to the hypervisor); measuring anyway"
			return 0
		fi
		echo "the hypervisor took $pct% of a busy second; waiting"
		sleep 2
	done
}

# skip_if_stolen: for a measured test whose checks failed, the share of
# the machine's busy time (/proc/stat, user to steal) that the hypervisor
# took since the test started measuring; at MEASURED_STEAL_MAX (10)
# percent or over, the attempt reports itself skipped with that figure:
# its failure measured the host. Under that, or for any other test, the
# failures stand.
skip_if_stolen() {
	[ "${CORECAP_MEASURED:-}" = 1 ] && [ -n "${_measured0:-}" ] || return 0
	local pct
	cpu_since "$_measured0"
	pct=$(calc "$IDLE_PCT < 100 ? 100 * $STEAL_PCT / (100 - $IDLE_PCT) : 0")
	echo "the hypervisor took $pct% of the machine's busy time during this test"
	[ "$(calc "$pct >= ${MEASURED_STEAL_MAX:-10}")" = 1 ] || return 0
	skip "$_failures check(s) of this measured test failed while the hypervisor took $pct% of the busy time (at least ${MEASURED_STEAL_MAX:-10}%): the figures are the host's, not the daemon's"
}

# A measured test starts on a quiet machine (lib.sh is sourced first by
# every test's library), and notes the machine's time from then on.
if [ "${CORECAP_MEASURED:-}" = 1 ]; then
	wait_quiet
	_measured0=$(_cpu_jiffies)
fi
