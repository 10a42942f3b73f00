#!/usr/bin/env bash
# The differential test on inlined code: tests/inline's C and C++ programs,
# built -O2 with inlining, run under `corecap run --cpuprofile` (the shim
# preloaded) and recorded by `corecap record --wallclock`. For each:
#  - `corecap flame --kind cpu --keep-shim-frames RUN` equals
#    `google-pprof --collapsed PROGRAM RUN/cpu.prof` line for line after the
#    normalisations of docs/flame.md (tests/e2e/flame_pprof_compare.py),
#    libc's frames included (libc6-dbg gives both tools their names);
#  - the inlined chains the sources make are there, marked [inline];
#  - by default no frame of the shim or LTTng-UST is left in any kind
#    (cpu, wall, lock, op) nor in the report's lock stacks, every sample
#    and every ns is kept, and --keep-shim-frames shows them;
#  - report --json gives the lock sites' inline chains with file:line,
#    and report --lines prints them.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/flame_lib.sh"
need_sessiond
need_refosd
PROFILER=/usr/lib/x86_64-linux-gnu/libprofiler.so.0
command -v google-pprof >/dev/null || skip "google-pprof is not installed (Debian package google-perftools)"
[ -e "$PROFILER" ] || skip "$PROFILER is absent (Debian package libgoogle-perftools4)"
[ -x "$CORECAP_BUILD/tests/inline/inline_cpp" ] || skip "no C++ compiler: tests/inline/inline_cpp is not built"
[ -e /usr/share/doc/libc6-dbg ] || skip "libc6-dbg is not installed (scripts/install-deps): libc has no symbols to compare"
SHIM_LIBS=("$CORECAP_BUILD/preload/libcorecap-preload.so" "$CORECAP_BUILD/tracepoints/libcorecap-tp.so")

# The names only the shim and LTTng-UST define (not libc, not the programs):
# none may be left in a stack unless --keep-shim-frames.
libc_symbols "$WORK/libc.syms" || { echo "FAIL: libc6-dbg is installed but libc's debug file is absent"; exit 1; }
ust=$(ls /usr/lib/x86_64-linux-gnu/liblttng-ust*.so.* 2>/dev/null || true)
# shellcheck disable=SC2086
nm -C --defined-only "${SHIM_LIBS[@]}" $ust 2>/dev/null | awk 'NF >= 3 && $2 ~ /[tTwW]/ { $1 = ""; $2 = ""; sub(/^  /, ""); print }' |
	sort -u | comm -23 - <(awk '{ print $3 }' "$WORK/libc.syms" | sort -u) >"$WORK/shim.syms"
expect_calc "the shim's own function names ($(wc -l <"$WORK/shim.syms"))" "$(wc -l <"$WORK/shim.syms") > 20"

# shim_frames FILE: how many frames of FILE's stacks (folded) are the shim's.
shim_frames() {
	python3 - "$WORK/shim.syms" "$1" <<'EOF'
import sys
shim = set(l.rstrip("\n") for l in open(sys.argv[1]))
n = 0
for line in open(sys.argv[2]):
    for f in line.rstrip("\n").rsplit(" ", 1)[0].split(";"):
        f = f[:-len("[inline]")] if f.endswith("[inline]") else f
        n += f in shim or f.split("(")[0] in shim
print(n)
EOF
}

run_one() { # name, the inlined chain its cpu stacks must show, libc functions they name
	local name=$1 chain=$2 libc_re=$3 bin="$CORECAP_BUILD/tests/inline/$1" run="$WORK/$1.run" pid status
	"$CORECAP" run --cpuprofile -- "$bin" 6 >"$WORK/$name.out" 2>"$WORK/$name.err" &
	pid=$!
	track "$pid"
	sleep 0.5
	status=0
	timeout 60 "$CORECAP" record -q -p "$pid" -o "$run" -d 3 --wallclock=100 >"$WORK/$name.rec" 2>&1 || status=$?
	expect_eq "$name: corecap record exit status" 0 "$status"
	wait "$pid" || true
	expect_file "$run/cpu.prof"

	# cpu, against pprof (which keeps the shim's frames).
	# pprof keeps the profiler's frames too (a sample taken while libunwind ran).
	"$CORECAP" flame --kind cpu --keep-shim-frames --keep-profiler "$run" >"$WORK/$name.cpu.keep" 2>"$WORK/$name.cpu.err"
	google-pprof --collapsed "$bin" "$run/cpu.prof" >"$WORK/$name.pprof" 2>/dev/null
	expect_pprof_equal "$name" "$WORK/$name.pprof" "$WORK/$name.cpu.keep" "$WORK/libc.syms"
	"$CORECAP" flame --kind cpu --keep-shim-frames --keep-profiler --names pprof "$run" >"$WORK/$name.cpu.pprof-names" 2>/dev/null
	expect_pprof_equal "$name, --names pprof" "$WORK/$name.pprof" "$WORK/$name.cpu.pprof-names"
	expect_calc "$name --names pprof: frames named in libc's symbol table (libc6-dbg)" "$(python3 - "$WORK/libc.syms" "$WORK/$name.cpu.pprof-names" <<'EOF'
import sys
libc = set(l.split()[2] for l in open(sys.argv[1]) if len(l.split()) == 3)
print(sum(f in libc for l in open(sys.argv[2]) for f in l.rsplit(" ", 1)[0].split(";")))
EOF
) > 0"
	expect_true "$name: the inlined chain $chain" grep -qF -- "$chain" "$WORK/$name.cpu.keep"

	# Every kind: no shim frame by default, the same total, and the shim's
	# frames back with --keep-shim-frames where the program waited in it.
	local kept=0 k
	for k in cpu wall lock op; do
		"$CORECAP" flame --kind "$k" "$run" >"$WORK/$name.$k.cut" 2>/dev/null
		"$CORECAP" flame --kind "$k" --keep-shim-frames "$run" >"$WORK/$name.$k.keep" 2>/dev/null
		expect_eq "$name $k: no shim frame left" 0 "$(shim_frames "$WORK/$name.$k.cut")"
		expect_eq "$name $k: cutting keeps the total" "$(folded_total "$WORK/$name.$k.keep")" \
			"$(folded_total "$WORK/$name.$k.cut")"
		kept=$((kept + $(shim_frames "$WORK/$name.$k.keep")))
	done
	expect_calc "$name: --keep-shim-frames shows the shim's frames ($kept)" "$kept > 0"
	expect_true "$name: libc's local functions named from libc6-dbg ($libc_re)" \
		grep -qE ";($libc_re)" "$WORK/$name.cpu.keep" "$WORK/$name.wall.keep"
	expect_true "$name wall: the threads waited in the shim's slow path" \
		grep -q 'mutex_slow' "$WORK/$name.wall.keep"

	# The report: lock stacks without shim frames, sites with their lines.
	"$CORECAP" report --json "$run" >"$WORK/$name.json"
	expect_eq "$name: no shim frame in the lock table's stacks" 0 "$(python3 - "$WORK/shim.syms" "$WORK/$name.json" <<'EOF'
import json, sys
shim = set(l.rstrip("\n") for l in open(sys.argv[1]))
d = json.load(open(sys.argv[2]))
print(sum(f["function"] in shim for l in d["locks"] for st in l["stacks"] for src in st["sources"] for f in src))
EOF
)"
	expect_calc "$name: lock sites with a source file and line" "$(json "$WORK/$name.json" \
		"sum(1 for l in d['locks'] for s in l['sites'] for f in s['source'] if f['file'] and f['line'])") > 0"
	"$CORECAP" report --lines "$run" >"$WORK/$name.txt"
	expect_true "$name: report --lines prints file:line" grep -qE "\\($name\\.c(pp)?:[0-9]+\\)" "$WORK/$name.txt"

	# html and compare --folded take --keep-shim-frames as flame does.
	"$CORECAP" html --idle -o "$WORK/$name.cut.html" "$run" 2>/dev/null
	"$CORECAP" html --idle --keep-shim-frames -o "$WORK/$name.keep.html" "$run" 2>/dev/null
	page_frames "$WORK/$name.cut.html" >"$WORK/$name.cut.page"
	page_frames "$WORK/$name.keep.html" >"$WORK/$name.keep.page"
	expect_eq "$name html: no shim frame in the page's flame graphs" 0 "$(shim_frames "$WORK/$name.cut.page")"
	expect_eq "$name html: no shim frame anywhere in the page (its text report too)" 0 \
		"$(grep -cE 'mutex_slow|lock_track_|corecap_cond_wait_current' "$WORK/$name.cut.html" || true)"
	expect_calc "$name html --keep-shim-frames: the shim's frames in the page's flame graphs" \
		"$(shim_frames "$WORK/$name.keep.page") > 0"
	for k in wall lock; do
		"$CORECAP" compare --folded --kind "$k" "$run" "$run" 2>/dev/null | sed 's/ \([0-9]*\) [0-9]*$/ \1/' >"$WORK/$name.$k.cmp.cut"
		"$CORECAP" compare --folded --kind "$k" --keep-shim-frames "$run" "$run" 2>/dev/null |
			sed 's/ \([0-9]*\) [0-9]*$/ \1/' >"$WORK/$name.$k.cmp.keep"
		# (compare names locks without their addresses: lock stacks may merge.)
		expect_eq "$name compare --folded --kind $k --keep-shim-frames: the shim's frames of flame --keep-shim-frames" \
			"$(shim_frames "$WORK/$name.$k.keep")" "$(shim_frames "$WORK/$name.$k.cmp.keep")"
		expect_eq "$name compare --folded --kind $k: no shim frame" 0 "$(shim_frames "$WORK/$name.$k.cmp.cut")"
	done
	expect_eq "$name compare --folded --kind wall --keep-shim-frames: run A's stacks = flame --keep-shim-frames'" \
		"$(md5sum <"$WORK/$name.wall.keep")" "$(md5sum <"$WORK/$name.wall.cmp.keep")"

	# The SVG tooltips' source lines.
	"$CORECAP" flame --kind cpu --svg -o "$WORK/$name.cpu.svg" "$run" 2>/dev/null
	expect_calc "$name SVG: tooltips with $name's file:line" \
		"$(grep -cE "(^|/)$name\\.c(pp)?:[0-9]+" "$WORK/$name.cpu.svg") > 3"
}

# page_frames PAGE: every flame graph frame of an HTML page, one per line, as
# a folded line of one frame (for shim_frames).
page_frames() {
	python3 - "$1" <<'EOF'
import html, re, sys
for m in re.finditer(r'<g class="f"><title>(.*?) \([0-9,]+ [^()\n]*\)', open(sys.argv[1]).read()):
    print(html.unescape(m.group(1)).replace(";", ":") + " 1")
EOF
}

# libc's local functions (in libc6-dbg's .symtab only, and DWARF's inlined
# calls): qsort's and snprintf's helpers; where a blocked thread waits.
run_one inline_c "worker_main;encode_batch[inline];hash_record[inline];mix_word[inline]" \
	'__vsnprintf_internal|__printf_fp_l|msort_with_tmp'
# encode_batch calls hash_record at one line (the source says which), where
# nearly all of its samples are: its tooltip says that line.
call_line=$(grep -n 'hash_record(recs, i + 1)' "$CORECAP_SRC/tests/inline/inline_c.c" | cut -d: -f1)
expect_true "C SVG: encode_batch's tooltip names the line of its call to hash_record (inline_c.c:$call_line)" \
	grep -qE "(^|/)inline_c\.c:$call_line( |<|$)" <(grep -A1 '<title>encode_batch\[inline\] (' "$WORK/inline_c.cpu.svg")
run_one inline_cpp "ceph::osd::ShardedOpWQ<ceph::osd::Op>::process(ceph::osd::Op const&)[inline];ceph::osd::PG::do_op(ceph::osd::Op const&)[inline]" \
	'__futex_abstimed_wait_common|futex_wait\[inline\]'
expect_true "C++: the lock's site names PG::do_op's inlined call" \
	python3 -c "
import json, sys
d = json.load(open('$WORK/inline_cpp.json'))
sys.exit(not any(f['function'].startswith('ceph::osd::PG::do_op') and f['inlined'] and f['file'].endswith('inline_cpp.cpp')
                 for l in d['locks'] for s in l['sites'] for f in s['source']))"
finish
