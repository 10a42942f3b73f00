#!/usr/bin/env bash
# `corecap stat` as a top, in a terminal (tmux), on refosd --big-lock under
# `corecap run` while refbench writes to it:
#  - the live view's header has the elapsed time and the threads' sort key
#    (LOCK% first); the thread table has CPU% and RUNQ% columns with
#    figures (schedstat) on refosd's tp_osd_tp rows;
#  - `s` sorts the threads by CPU% at once (the header says so and the
#    rows' CPU% do not grow down the table); `<` steps back to LOCK%;
#  - `q` exits with status 0 and the terminal is as before (stty -a equal);
#    SIGTERM too;
#  - the kernel view (where kernel events may be read): its futex tables
#    in report's words and rows, its keys, the terminal restored;
#  - output on a terminal but input not: the header without the keys, the
#    terminal left canonical;
#  - off a terminal, --once --json's threads carry cpu_ns and runq_ns, and
#    the text has the columns but no keys line;
#  - as nobody, a root daemon's counters: a message naming the permission
#    problem, not "no shim segment".
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
need_refosd
command -v tmux >/dev/null || { echo "skipped: tmux is not installed (scripts/install-deps)"; exit 77; }

# A command that fails under set -e ends the test: say which, where, how.
trap 'echo "FAIL: line $LINENO: \"$BASH_COMMAND\" exited $?"' ERR

TMUX_SOCK="corecap-stat-top-$$"
tm() { tmux -L "$TMUX_SOCK" "$@"; }
e2e_cleanup_hook() { tm kill-server >/dev/null 2>&1 || true; }

# screen: what the terminal shows now.
screen() { tm capture-pane -p -t top; }
# wait_screen WHAT REGEX: up to 10 s for REGEX on the screen; fails naming WHAT.
wait_screen() {
	local what=$1 re=$2 i
	for i in $(seq 1 100); do
		screen >"$WORK/screen" 2>/dev/null || true
		grep -Eq -- "$re" "$WORK/screen" && return 0
		sleep 0.1
	done
	echo "FAIL: $what: no /$re/ on the screen after 10 s:"
	cat "$WORK/screen"
	exit 1
}
# start_top [STAT OPTION...]: stat -p OSD_PID in a fresh tmux terminal, its
# stty -a before and after, and its exit status, in $WORK/{before,after,rc}.
start_top() {
	rm -f "$WORK/before" "$WORK/after" "$WORK/rc" "$WORK/stat.pid"
	cat >"$WORK/top.sh" <<EOF
stty -a >"$WORK/before"
echo \$\$ >"$WORK/stat.pid"
"$CORECAP" stat -p $OSD_PID --interval 0.5 $*
echo \$? >"$WORK/rc"
stty -a >"$WORK/after"
sleep 60
EOF
	# A tmux server that is still going away from the last session may refuse once.
	tm new-session -d -s top -x 200 -y 60 "bash $WORK/top.sh" ||
		{ sleep 0.5 && tm new-session -d -s top -x 200 -y 60 "bash $WORK/top.sh"; }
}
wait_rc() {
	local i
	for i in $(seq 1 50); do
		[ -s "$WORK/after" ] && return 0
		sleep 0.1
	done
	echo "FAIL: $1: stat did not exit within 5 s:"
	screen
	exit 1
}

start_refosd top --big-lock --op-cpu-us 50 --debug 0 --msgr-threads 1 --shards 4 \
	--threads-per-shard 2
"$REFBENCH" -p "$OSD_PORT" -t 8 -b 1 -d 12 --no-progress write >"$WORK/bench.out" 2>&1 &
bench=$!
track "$bench"
sleep 0.5

start_top
wait_screen "the live view's header: elapsed time and sort key" \
	'^elapsed [0-9]+:[0-9]{2}:[0-9]{2}, threads sorted by LOCK%; keys: s or >/< sort, q quit$'
wait_screen "the thread table has CPU% and RUNQ% columns" '^ +TID THREAD +CPU% +RUNQ% +LOCK ms +LOCK%'
wait_screen "refosd's workers have CPU% and RUNQ% figures" \
	'^ +[0-9]+ tp_osd_tp +[0-9]+\.[0-9] +[0-9]+\.[0-9] '
wait_screen "the elapsed time counts up" '^elapsed 0:00:0[1-9],'
tty=$(tm display-message -p -t top '#{pane_tty}')
stty -a -F "$tty" >"$WORK/during"
expect_true "while the view runs, its terminal is non-canonical without echo" \
	grep -Eq '(^| )-icanon .*(^| )-echo ' "$WORK/during"
tm send-keys -t top s
wait_screen "'s' sorts the threads by CPU%" '^elapsed .* threads sorted by CPU%;'
# The rows as they are now (the redraw is at once, from the same interval).
screen >"$WORK/sorted"
awk '/^ +TID THREAD/ { on = 1; next } on && /^ +[0-9]+ / { print $3 } on && /^$/ { exit }' \
	"$WORK/sorted" >"$WORK/cpu"
expect_calc "... with 3 or more thread rows ($(wc -l <"$WORK/cpu"))" "$(wc -l <"$WORK/cpu") >= 3"
expect_true "... whose CPU% do not grow down the table ($(tr '\n' ' ' <"$WORK/cpu"))" \
	bash -c "grep -v '^-' '$WORK/cpu' | sort -g -r -c"
tm send-keys -t top s
wait_screen "'s' again: run-queue%" '^elapsed .* threads sorted by RUNQ%;'
tm send-keys -t top '<'
tm send-keys -t top '<'
wait_screen "'<' twice: back to lock wait" '^elapsed .* threads sorted by LOCK%;'
tm send-keys -t top q
wait_rc "q"
expect_eq "q: stat exits with status 0" 0 "$(cat "$WORK/rc")"
expect_true "q: the terminal is restored (stty -a before and after equal)" \
	cmp "$WORK/before" "$WORK/after"
expect_true "... canonical with echo, as before stat" grep -Eq '(^| )icanon .*(^| )echo ' "$WORK/after"
tm kill-session -t top

start_top
wait_screen "second view" '^elapsed '
pkill -TERM -P "$(cat "$WORK/stat.pid")" -x corecap
wait_rc "SIGTERM"
expect_eq "SIGTERM: stat exits with status 0" 0 "$(cat "$WORK/rc")"
expect_true "SIGTERM: the terminal is restored" cmp "$WORK/before" "$WORK/after"
tm kill-session -t top

# Output on a terminal, input not: the header without keys, the terminal untouched.
start_top '</dev/null'
wait_screen "stdin not a terminal: elapsed and sort key, no keys" '^elapsed [0-9:]+, threads sorted by LOCK%$'
stty -a -F "$(tm display-message -p -t top '#{pane_tty}')" >"$WORK/during"
expect_true "... and the terminal stays canonical" grep -Eq '(^| )icanon .*(^| )echo ' "$WORK/during"
pkill -TERM -P "$(cat "$WORK/stat.pid")" -x corecap
wait_rc "SIGTERM, stdin not a terminal"
tm kill-session -t top

# Off a terminal: the same columns and JSON keys, no keys line.
"$CORECAP" stat -p "$OSD_PID" --once --interval 0.5 </dev/null >"$WORK/once.txt"
expect_true "--once has CPU% and RUNQ%" grep -Eq '^ +TID THREAD +CPU% +RUNQ% ' "$WORK/once.txt"
expect_eq "--once has no keys line" 0 "$(grep -c '^elapsed ' "$WORK/once.txt" || true)"
# The process's CPU time (utime + stime, all threads, in ticks) around the interval.
ticks0=$(awk '{ print $14 + $15 }' "/proc/$OSD_PID/stat")
"$CORECAP" stat -p "$OSD_PID" --once --json --interval 1 >"$WORK/once.json"
ticks1=$(awk '{ print $14 + $15 }' "/proc/$OSD_PID/stat")
proc_s=$(calc "($ticks1 - $ticks0) / $(getconf CLK_TCK)")
threads_s=$(json "$WORK/once.json" "sum(t.get('cpu_ns', 0) for t in d['threads']) / 1e9")
echo "CPU time in the interval: threads' cpu_ns summed $threads_s s, the process's utime+stime around it $proc_s s"
expect_calc "the threads' CPU time is the process's (0.7 to 1.05 of it, plus a tick each side)" \
	"$threads_s >= 0.7 * $proc_s - 0.02 && $threads_s <= 1.05 * $proc_s + 0.02"
workers="[t for t in d['threads'] if t['name'] == 'tp_osd_tp']"
expect_calc "JSON: every worker has cpu_ns" "$(json "$WORK/once.json" "int(sum('cpu_ns' in t for t in $workers) == len($workers) > 0)") == 1"
expect_calc "JSON: the workers ran (cpu_ns summed > 0)" "$(json "$WORK/once.json" "sum(t['cpu_ns'] for t in $workers)") > 0"
expect_calc "JSON: no worker ran longer than the interval" \
	"$(json "$WORK/once.json" "int(max(t['cpu_ns'] for t in $workers) <= d['interval_ns'] * 1.05)") == 1"
expect_calc "JSON: runq_ns where the kernel has schedstat" \
	"$(json "$WORK/once.json" "int(all('runq_ns' in t for t in $workers) or not __import__('os').path.exists('/proc/self/schedstat'))") == 1"

# The kernel view (root and tracefs): the same keys, its own sort keys
# (from the next interval), and its futex tables in report's words and rows.
if "$CORECAP" stat -p "$OSD_PID" --kernel --once --interval 0.5 >"$WORK/k.txt" 2>"$WORK/k.err"; then
	expect_true "kernel view: the mutexes under report's title" \
		grep -q '^locks (source: futex mutexes, by total wait): contention$' "$WORK/k.txt"
	expect_true "... the big lock among them" grep -q '^d\.osd\.big_lock ' "$WORK/k.txt"
	expect_true "... the idle waits apart, in report's words" \
		grep -q '^idle: waiting for work or a hand-off: condition and other futex waits' "$WORK/k.txt"
	expect_true "... after the mutexes" awk '/^locks \(source: futex mutexes/ { m = NR } /^idle: waiting/ { i = NR } END { exit !(m && i > m) }' "$WORK/k.txt"
	expect_true "... the workers' condition words one family row (LOCKS 2 or more)" \
		grep -Eq '^shards_worker_main\+0x[0-9a-f]+ +([2-9]|[1-9][0-9]+) futex_wait' "$WORK/k.txt"
	start_top --kernel
	wait_screen "kernel view: sort key in the header" '^elapsed .* threads sorted by RUN%\+RUNQ%;'
	tm send-keys -t top s
	wait_screen "kernel view: 's' sorts by RUN% from the next interval" '^elapsed .* threads sorted by RUN%;'
	tm send-keys -t top q
	wait_rc "kernel view: q"
	expect_eq "kernel view: q exits 0" 0 "$(cat "$WORK/rc")"
	expect_true "kernel view: the terminal is restored" cmp "$WORK/before" "$WORK/after"
	tm kill-session -t top
else
	echo "note: no kernel events here ($(head -1 "$WORK/k.err")): the kernel view's part is left out"
fi
wait "$bench" || { echo "FAIL: refbench failed:"; cat "$WORK/bench.out"; exit 1; }

# Permission: a daemon of root's, watched by nobody.
if [ "$(id -u)" -eq 0 ]; then
	expect_fail_naming "nobody on root's daemon: the permission problem is named" \
		"Permission denied" setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$CORECAP" stat -p "$OSD_PID" --once
	expect_eq "... not 'no shim segment'" 0 "$(grep -c 'no shim segment' "$WORK/err" || true)"
	expect_true "... and says whose it is" grep -q "as the daemon's user (uid 0) or as root" "$WORK/err"
else
	echo "note: not root: the permission case needs a daemon of another user"
fi
stop_refosd
finish
