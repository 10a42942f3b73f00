#!/usr/bin/env bash
# Help and usage errors in git's habits (issue #47), for every command
# `corecap --help` lists, against the table below: `corecap CMD --help`,
# `corecap help CMD` and `corecap --help CMD` print the command's help
# (stdout, exit 0); a usage error (no operand, an unknown option) prints
# one line of error and one line of usage, "usage: corecap CMD ...; see
# 'corecap CMD --help'" (stderr, exit 2), never the whole help; every
# synopsis names each option of its table and no other. Then the
# permission advice of `record -p PID` (CAP_SYS_PTRACE only to a caller
# it would help), RUN:PID on a run of one daemon, and flame's fallback
# from its default kind, said on stderr. Needs the build and the golden
# run only (and root, setpriv and nobody for the advice, else that part
# is skipped with the reason).
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
CORECAP="${CORECAP_BUILD:?}/cli/corecap"
[ -x "$CORECAP" ] || { echo "FAIL: $CORECAP is not built"; exit 1; }
command -v python3 >/dev/null || skip "python3 is not installed (scripts/install-deps)"
e2e_workdir ux
chmod 755 "$WORK"
GOLDEN="$CORECAP_SRC/tests/data/analysis"

# run_case ARGS...: exit status in $st, stdout in $WORK/out, stderr in $WORK/err.
run_case() {
	st=0
	"$CORECAP" "$@" >"$WORK/out" 2>"$WORK/err" || st=$?
}

# check WHAT EXIT STREAM FIRST_LINE_REGEX MIN_LINES MAX_LINES ARGS...: one row
# of the table: the exit status, the first line of STREAM (out or err)
# matching the regex, its line count within [MIN, MAX], the other stream empty.
check() {
	local what=$1 want=$2 stream=$3 first=$4 min=$5 max=$6 other n
	shift 6
	run_case "$@"
	expect_eq "$what: exit status" "$want" "$st"
	other=$([ "$stream" = out ] && echo err || echo out)
	n=$(wc -l <"$WORK/$stream")
	expect_true "$what: first line of std$stream matches '$first' (got '$(head -n 1 "$WORK/$stream")')" \
		grep -qE -- "$first" <(head -n 1 "$WORK/$stream")
	expect_calc "$what: std$stream lines ($n) in [$min, $max]" "$min <= $n <= $max"
	expect_eq "$what: std$other is empty" "" "$(head -c 300 "$WORK/$other")"
}

cmds=$("$CORECAP" --help | awk '/^commands:/ { on = 1; next } on && /^   [a-z]/ { print $1 }')
expect_eq "commands listed by corecap --help" \
	"run record verify scale clock stats-dump report flame export html compare stat" "$(echo $cmds)"

# The table: per command, what a call without arguments says (its missing
# operand or option), on one line.
declare -A missing=(
	[run]="no command to run"
	[record]="missing -p PID"
	[verify]="no daemon: -p PID is required"
	[scale]="no daemon: -p PID is required"
	[clock]="expected at least one HOST"
	[stats-dump]="expected one PID or FILE, got 0 arguments"
	[report]="expected one run directory, got 0 arguments"
	[flame]="expected one run directory or profile, got 0 arguments"
	[export]="export needs a format: --chrome"
	[html]="expected one run directory, got 0 arguments"
	[compare]="expected two run directories, got 0 arguments"
	[stat]="-p PID is required"
)
for c in $cmds; do
	hint="^usage: corecap $c [^;]*; see 'corecap $c --help'\$"
	#     what                      exit stream first line                        lines  args
	check "$c --help"               0    out    "^usage: corecap $c "              5 90   "$c" --help
	cp "$WORK/out" "$WORK/help.$c"
	check "help $c"                 0    out    "^[a-z]"                           7 92   help "$c"
	expect_eq "help $c: its help after its summary and a blank line" \
		"$(cat "$WORK/help.$c")" "$(tail -n +3 "$WORK/out")"
	cp "$WORK/out" "$WORK/helpcmd.$c"
	check "--help $c"               0    out    "^[a-z]"                           7 92   --help "$c"
	expect_eq "--help $c = help $c" "$(cat "$WORK/helpcmd.$c")" "$(cat "$WORK/out")"
	check "$c (no arguments)"       2    err    "^corecap $c: ${missing[$c]}\$"    2 2    "$c"
	expect_true "$c (no arguments): the second line is the usage hint" grep -qE -- "$hint" <(sed -n 2p "$WORK/err")
	expect_calc "$c: the usage hint fits a line ($(sed -n 2p "$WORK/err" | wc -c) <= 160 chars)" \
		"$(sed -n 2p "$WORK/err" | wc -c) <= 160"
	check "$c --no-such-option"     2    err    "^corecap $c: .*'?--no-such-option'?" 2 2 "$c" --no-such-option
	expect_true "$c --no-such-option: the second line is the usage hint" grep -qE -- "$hint" <(sed -n 2p "$WORK/err")
done
check "help help"                   0    out    "^show a command's help\$"         3 12   help help
expect_true "help help: its usage" grep -qx "usage: corecap help \[COMMAND\]" "$WORK/out"
check "help --help"                 0    out    "^show a command's help\$"         3 12   help --help
check "help"                        0    out    "^usage: corecap "                 12 30  help
check "--help"                      0    out    "^usage: corecap "                 12 30  --help
check "help nosuch"                 2    err    "^corecap: unknown command 'nosuch'" 1 1 help nosuch
check "help reprot"                 2    err    "did you mean 'report'"           1 1    help reprot
check "help report flame"           2    err    "^corecap help: expected one command, got 2\$" 2 2 help report flame
check "no command"                  2    err    "^usage: corecap "                 12 30
check "a value error: --top 0"      2    err    "^corecap report: "                1 2    report --top 0 "$GOLDEN/golden-run"
check "stats-dump --copy, no value"  2    err    "^corecap stats-dump: option '--copy' needs a value\$" 2 2 stats-dump --copy
check "stats-dump -- alone"         2    err    "^corecap stats-dump: expected one PID or FILE, got 0 arguments\$" 2 2 stats-dump --

# Every synopsis names every option of its table (long or short form), and
# no option the table lacks.
python3 - "$WORK" $cmds >"$WORK/synopsis" <<'PY'
import re, sys
work = sys.argv[1]
for c in sys.argv[2:]:
    lines = open(f'{work}/help.{c}').read().split('\n')
    i = 0
    while i < len(lines) and not lines[i].startswith('usage: '):
        i += 1
    syn = []
    while i < len(lines) and lines[i].strip():
        syn.append(lines[i])
        i += 1
    syn = ' '.join(syn)
    table = []
    for l in lines[i:]:
        m = re.match(r'^ {1,8}(?:(-[A-Za-z]), )?(--?[a-z][a-z-]*)', l)
        if m:
            table.append((m.group(1), m.group(2)))
    names = lambda o: re.search(r'(?<![\w-])' + re.escape(o) + r'(?![\w-])', syn)
    for short, long in table:
        if long not in ('--help', '-h') and not (names(long) or (short and names(short))):
            print(f'{c}: the synopsis lacks {long}')
    known = {o for pair in table for o in pair if o}
    for o in re.findall(r'(?<![\w-])(--?[a-z][a-z-]*)', syn):
        if o not in known:
            print(f'{c}: the synopsis names {o}, which the options do not')
PY
expect_eq "synopses against their option tables" "" "$(cat "$WORK/synopsis")"

# Each man page's SYNOPSIS names the options of the command's --help, and no other.
python3 - "$WORK" "$CORECAP_SRC" $cmds >"$WORK/mansyn" <<'PY'
import re, sys
work, src = sys.argv[1], sys.argv[2]
for c in sys.argv[3:]:
    page = open(f'{src}/docs/man/corecap-{c}.1').read()
    m = re.search(r'^\.SH SYNOPSIS\n(.*?)^\.SH ', page, re.S | re.M)
    syn = m.group(1).replace('\\-', '-') if m else ''
    named = set(re.findall(r'(?<![\w-])(--?[a-z][a-z-]*)', syn)) - {'-', '--'}
    pairs = []
    for l in open(f'{work}/help.{c}').read().split('\n'):
        mm = re.match(r'^ {1,8}(?:(-[A-Za-z]), )?(--?[a-z][a-z-]*)', l)
        if mm and mm.group(2) not in ('--help', '-h'):
            pairs.append({o for o in mm.groups() if o})
    table = set().union(*pairs) if pairs else set()
    for o in sorted(named - table):
        print(f'corecap-{c}.1: SYNOPSIS names {o}, not in {c} --help')
    for p in pairs:
        if not p & named:
            print(f'corecap-{c}.1: SYNOPSIS lacks {"/".join(sorted(p))}')
PY
expect_eq "man pages' synopses against --help" "" "$(cat "$WORK/mansyn")"

# RUN:PID on a run of one daemon: accepted when PID is its daemon, refused
# naming the run's PID otherwise.
pid=$(json "$GOLDEN/golden-run/manifest.json" "d['pid']")
cd "$GOLDEN"
check "report golden-run:$pid"      0    out    "^corecap report: golden-run\$"    10 400 report --symfs golden-symfs "golden-run:$pid"
"$CORECAP" report --symfs golden-symfs golden-run >"$WORK/plain" 2>/dev/null
expect_eq "report RUN:PID = report RUN" "$(cat "$WORK/plain")" "$(cat "$WORK/out")"
check "report golden-run:12"        1    err    "^corecap report: 'golden-run' is a run of one daemon, PID $pid, not 12" 1 1 report golden-run:12
# flame without --kind on a run without a CPU profile says what it draws.
cd "$WORK"
st=0
"$CORECAP" flame "$GOLDEN/golden-run" 2>"$WORK/err" >"$WORK/out" || st=$?
expect_eq "flame RUN without a CPU profile: exit status" 0 "$st"
expect_true "... prints the lock stacks" grep -q ' [0-9][0-9]*$' "$WORK/out"
expect_true "flame: the fallback from cpu said on stderr" \
	grep -qx "corecap flame: '$GOLDEN/golden-run' has no CPU profile (the daemon was not started with 'corecap run --cpuprofile'): drawing --kind lock instead" "$WORK/err"

# record's permission advice: CAP_SYS_PTRACE or "that user" only to a
# caller they would help. A non-dumpable process of nobody's refuses
# nobody (same uid, no CAP_SYS_PTRACE); root's sleep refuses nobody.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && getent passwd nobody >/dev/null; then
	AS_NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
	# /usr/bin/python3: nobody may not read a python3 found in root's PATH.
	"${AS_NOBODY[@]}" /usr/bin/python3 -c 'import ctypes, os, sys, time
ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
print(os.getpid(), flush=True)
time.sleep(60)' >"$WORK/nd.pid" &
	track $!
	sleep infinity &
	rootp=$!
	track "$rootp"
	for _ in $(seq 100); do [ -s "$WORK/nd.pid" ] && break; sleep 0.05; done
	nd=$(cat "$WORK/nd.pid")
	expect_eq "the non-dumpable process runs as nobody" "$(id -u nobody)" "$(stat -c %u "/proc/$nd" 2>/dev/null || echo gone)"
	st=0
	(cd "$WORK" && "${AS_NOBODY[@]}" "$CORECAP" record -p "$nd" -d 1 --no-trace --no-kernel -o "$WORK/nd") >/dev/null 2>"$WORK/err" || st=$?
	expect_eq "nobody records its own non-dumpable process: refused" 1 "$st"
	expect_true "... saying the kernel refuses it though corecap runs as its uid" \
		grep -q "cannot attach to PID $nd: .*(it runs as uid 65534, and corecap as uid 65534; the kernel refuses it even so" "$WORK/err"
	expect_eq "... without the advice to record as that user" "" "$(grep 'record as that user' "$WORK/err" || true)"
	st=0
	(cd "$WORK" && "${AS_NOBODY[@]}" "$CORECAP" record -p "$rootp" -d 1 --no-trace --no-kernel -o "$WORK/rp") >/dev/null 2>"$WORK/err" || st=$?
	expect_eq "nobody records root's process: refused" 1 "$st"
	expect_true "... with the advice that helps: that user or CAP_SYS_PTRACE" \
		grep -q "cannot attach to PID $rootp: .*(it runs as uid 0; record as that user or with CAP_SYS_PTRACE)" "$WORK/err"
	kill "$nd" "$rootp" 2>/dev/null || true
else
	echo "SKIP (part): record's permission advice needs root, setpriv and the user nobody"
fi
finish
