#!/usr/bin/env bash
# Every file the collector writes is one the analysis knows: a recording
# with every source on (trace, shim stats, wall-clock samples, cpu.prof,
# kernel events when permitted, a benchmark) is listed against the table
# of run_format.h (tests/e2e/format/run_files), and so are the runs of a
# killed collector. And the table is the only place the names are
# spelled: no string literal of the collector, analysis, shim or CLI
# sources holds one (bench/ writes runs of its own, not run directories).
set -u
. "${CORECAP_SRC:?}/tests/e2e/collector_lib.sh"
RUN_FILES="$CORECAP_BUILD/tests/e2e/run_files"
[ -x "$RUN_FILES" ] || { echo "FAIL: $RUN_FILES is not built"; exit 1; }

# 1. The sources: a run-file name in a string literal outside the header.
"$RUN_FILES" names >"$WORK/names"
expect_true "the table lists manifest.json" grep -q '^manifest.json	' "$WORK/names"
python3 - "$CORECAP_SRC" "$WORK/names" >"$WORK/literals" <<'PY'
import os, re, sys
src, names_file = sys.argv[1], sys.argv[2]
names = [l.split("\t")[0] for l in open(names_file) if l.strip()]
# Names that are also plain words (trace, maps, kernel, ceph) count only as
# a whole literal or next to a '/'; the others wherever they appear.
pats = []
whole = set()  # plain words: a whole literal counts where a path is made or opened
pathcall = re.compile(r'(path_in|at|run_dir_\w+|fopen|open)\s*\(')
for n in names:
    e = re.escape(n)
    if re.fullmatch(r"[a-z]+", n):
        pats.append(re.compile(r'^%s/|(%%s|RUN)/%s(/|\W|$)' % (e, e)))
        whole.add(n)
    else:
        pats.append(re.compile(r'(?<![\w.-])%s(?![\w-])' % e))
lit = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
comment = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
bad = 0
for top in ("collector", "analysis", "preload", "cli", "tracepoints", "common"):
    for dp, _, fs in os.walk(os.path.join(src, top)):
        for f in fs:
            if not f.endswith((".c", ".h")) or f == "run_format.h":
                continue
            p = os.path.join(dp, f)
            text = comment.sub(lambda m: "\n" * m.group(0).count("\n"), open(p).read())
            for ln, line in enumerate(text.split("\n"), 1):
                # #include lines and getopt's option names ({"kernel", no_argument...}).
                if line.lstrip().startswith("#include") or re.search(r'\{"[\w-]+", *\w+_argument', line):
                    continue
                for m in lit.finditer(line):
                    v = m.group(1)
                    if v.startswith(("/proc/", "/sys/")):
                        continue
                    if any(pt.search(v) for pt in pats) or (v in whole and pathcall.search(line)):
                        print("%s:%d: %s" % (os.path.relpath(p, src), ln, m.group(0)))
                        bad += 1
print("literals", bad)
PY
expect_eq "run-file names spelled outside run_format.h" "literals 0" "$(tail -n 1 "$WORK/literals")"
grep -v '^literals' "$WORK/literals" | head -n 20

# 2. A recording with every source.
need_sessiond
kernel_opt=--no-kernel
if [ "$(id -u)" = 0 ] && [ -e /sys/kernel/tracing/events/syscalls/sys_enter_futex/id ] ||
	{ [ "$(id -u)" = 0 ] && mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null &&
		[ -e /sys/kernel/tracing/events/syscalls/sys_enter_futex/id ]; }; then
	kernel_opt=--kernel
else
	echo "note: no kernel events here (not root, or no futex tracepoint): kernel/ is not checked"
fi
start_daemon osd --cpuprofile
RUN="$WORK/run"
"$CORECAP" record -p "$OSD_PID" -o "$RUN" --wallclock "$kernel_opt" -- \
	"$REFBENCH" -p "$OSD_PORT" -t 4 -b 1 -d 1 write >"$WORK/rec.out" 2>"$WORK/rec.err"
rc=$?
expect_eq "record exits" 0 "$rc"
[ "$rc" -eq 0 ] || cat "$WORK/rec.err"
for f in manifest.json threads.tsv stats-begin stats-end wall.samples cpu.prof bench.out maps; do
	expect_file "$RUN/$f"
done
[ "$kernel_opt" = --kernel ] && expect_file "$RUN/kernel/events.bin"
"$RUN_FILES" check "$RUN" >"$WORK/check.out"
expect_eq "every file of the run is in run_format.h's table" 0 $?
cat "$WORK/check.out"

# 3. A collector killed mid-window leaves only known names too.
RUN2="$WORK/run-killed"
"$CORECAP" record -p "$OSD_PID" -o "$RUN2" --wallclock "$kernel_opt" -d 30 \
	>"$WORK/rec2.out" 2>"$WORK/rec2.err" &
rec=$!
track "$rec"
wait_window "$WORK/rec2.err" && sleep 1
kill -KILL "$rec" 2>/dev/null
wait "$rec" 2>/dev/null
"$RUN_FILES" check "$RUN2" >"$WORK/check2.out"
expect_eq "every file a killed collector left is in the table" 0 $?
cat "$WORK/check2.out"
# Its LTTng session outlives it: stop it so it does not write on.
lttng list 2>/dev/null | sed -n "s/^ *[0-9]*) \(corecap-$OSD_PID-[^ ]*\) .*/\1/p" |
	while read -r s; do lttng destroy "$s" >/dev/null 2>&1; done

finish
