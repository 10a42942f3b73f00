#!/usr/bin/env bash
# The differential test of corecap's own gperftools profile reader: on the
# same profile and binary, `corecap flame PROFILE` prints what
# `google-pprof --collapsed BINARY PROFILE` (Debian's google-perftools)
# prints, line for line, after the normalisations docs/flame.md lists
# (tests/e2e/flame_pprof_compare.py). The program
# (tests/data/flame/prof_target.c) has three threads, a shared library and
# C++ names; it is built -O2 with inlining, then without inlining. Then
# truncated and garbage profiles must fail with a clear error and no crash.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/flame_lib.sh"

DATA="$FLAME_DATA"
PROFILER=/usr/lib/x86_64-linux-gnu/libprofiler.so.0
command -v google-pprof >/dev/null || skip "google-pprof is not installed (Debian package google-perftools)"
[ -e "$PROFILER" ] || skip "$PROFILER is absent (Debian package libgoogle-perftools4)"
command -v cc >/dev/null && command -v c++ >/dev/null || skip "no C and C++ compilers (build-essential)"

# Built twice: without inlining or sibling calls (every frame a real
# function), and at -O2 with GCC's inlining (pprof's addr2line -i and
# corecap's DWARF both give the inlined calls as "[inline]" frames).
LIBC_SYMS="$WORK/libc.syms"
libc_symbols "$LIBC_SYMS" || true
# A sample in the loader's exit path (seen once in 755, CI): pprof names
# the address by its innermost function alone, corecap by ld.so's function
# and its inlined calls; docs/flame.md's rule 4 reads them as one.
if [ -s "$LIBC_SYMS" ]; then
	echo 'start;exit;run_exit_handlers;dl_fini;dfs_traversal;dfs_traversal 1' >"$WORK/ld.pprof"
	echo 'start;exit;run_exit_handlers;dl_fini;dl_sort_maps;dl_sort_maps_dfs[inline];dfs_traversal[inline];dfs_traversal 1' \
		>"$WORK/ld.corecap"
	expect_pprof_equal "the loader's inlined calls" "$WORK/ld.pprof" "$WORK/ld.corecap" "$LIBC_SYMS"
fi
build_and_compare() { # what, cflags...
	local what=$1 dir="$WORK/$1"
	shift
	mkdir -p "$dir"
	cc "$@" -fPIC -shared -o "$dir/libprof_lib.so" "$DATA/prof_lib.c"
	c++ "$@" -c -o "$dir/prof_cpp.o" "$DATA/prof_cpp.cpp"
	cc "$@" -c -o "$dir/prof_target.o" "$DATA/prof_target.c"
	c++ -o "$dir/prof_target" "$dir/prof_target.o" "$dir/prof_cpp.o" -L"$dir" -lprof_lib \
		-Wl,-rpath,"$dir" -lpthread
	CPUPROFILE="$dir/cpu.prof" CPUPROFILE_FREQUENCY=1000 LD_PRELOAD="$PROFILER" \
		"$dir/prof_target" 2 >/dev/null 2>"$dir/target.err"
	samples=$(sed -n 's|^PROFILE: interrupts/evictions/bytes = \([0-9]*\)/.*|\1|p' "$dir/target.err")
	echo "libprofiler ($what): $samples samples"
	expect_true "$what: the profile has samples" test "${samples:-0}" -gt 30
	status=0
	"$CORECAP" flame "$dir/cpu.prof" >"$dir/corecap.folded" 2>"$dir/corecap.err" || status=$?
	expect_eq "$what: corecap flame PROFILE exit status" 0 "$status"
	google-pprof --collapsed "$dir/prof_target" "$dir/cpu.prof" >"$dir/pprof.raw" 2>/dev/null
	expect_pprof_equal "$what" "$dir/pprof.raw" "$dir/corecap.folded" "$LIBC_SYMS"
	"$CORECAP" flame --names pprof "$dir/cpu.prof" >"$dir/pprof-names.folded" 2>/dev/null
	expect_pprof_equal "$what, --names pprof" "$dir/pprof.raw" "$dir/pprof-names.folded"
}
build_and_compare O2 -O2 -g -fno-omit-frame-pointer
expect_true "-O2: inlined calls are frames of their own" \
	grep -q ';worker_main;mid;leaf_[ab]\[inline\];spin\[inline\] [0-9]*$' "$WORK/O2/corecap.folded"
build_and_compare no-inline -O1 -g -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls
LC_ALL=C sort "$WORK/no-inline/corecap.folded" >"$WORK/corecap.sorted"
total=$(awk '{ s += $NF } END { print s }' "$WORK/corecap.sorted")
expect_eq "corecap's samples = libprofiler's interrupts" "$samples" "$total"
expect_true "C++ names demangled with their arguments" \
	grep -q ';store::Shard::apply(std::vector<int, std::allocator<int> > const&, int) const;store::Codec<unsigned long>::encode(unsigned long, int) [0-9]*$' "$WORK/corecap.sorted"
expect_true "frames of the shared library" grep -q ';worker_main;lib_hash_block;mix [0-9]*$' "$WORK/corecap.sorted"
expect_true "recursion kept frame by frame" grep -q ';recurse;recurse;recurse;spin [0-9]*$' "$WORK/corecap.sorted"
expect_true "stdout is sorted" cmp -s "$WORK/no-inline/corecap.folded" "$WORK/corecap.sorted"

# Truncated and garbage profiles: exit 1, one clear line, no crash.
fails_with() { # what needle file
	local status=0
	"$CORECAP" flame "$3" >"$WORK/out" 2>"$WORK/err" || status=$?
	expect_eq "$1: exit status" 1 "$status"
	_checks=$((_checks + 1))
	if grep -qF -- "$2" "$WORK/err"; then
		echo "ok: $1: $(cat "$WORK/err")"
	else
		echo "FAIL: $1: the error does not say '$2':"
		cat "$WORK/err"
		_failures=$((_failures + 1))
	fi
}
head -c 20 "$WORK/no-inline/cpu.prof" >"$WORK/header.prof"
# Inside the sample records (the header is 40 bytes), whatever their number.
head -c 100 "$WORK/no-inline/cpu.prof" >"$WORK/third.prof"
head -c 300 /dev/urandom >"$WORK/random.prof"
: >"$WORK/empty.prof"
fails_with "truncated header" "cannot read profile '$WORK/header.prof': truncated header" "$WORK/header.prof"
fails_with "profile cut in its records" "cannot read profile '$WORK/third.prof': truncated" "$WORK/third.prof"
fails_with "random bytes" "cannot read profile '$WORK/random.prof'" "$WORK/random.prof"
fails_with "empty file" "cannot read profile '$WORK/empty.prof': empty file" "$WORK/empty.prof"
fails_with "an ELF file" "not a CPU profile" "$WORK/no-inline/prof_target"
fails_with "a missing file" "No such file or directory" "$WORK/none.prof"
# --names: pprof or corecap, and pprof's names are for cpu stacks.
expect_exit_naming "--names bogus" 2 "invalid --names 'bogus': expected pprof or corecap" \
	"$CORECAP" flame --names bogus "$WORK/no-inline/cpu.prof"
expect_exit_naming "--names pprof --kind wall" 2 "--names pprof applies to --kind cpu only" \
	"$CORECAP" flame --names pprof --kind wall "$WORK/no-inline/cpu.prof"
finish
