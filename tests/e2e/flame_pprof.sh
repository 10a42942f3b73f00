#!/usr/bin/env bash
# The differential test of corecap's own gperftools profile reader: on the
# same profile and binary, `corecap flame PROFILE` prints what
# `google-pprof --collapsed BINARY PROFILE` (Debian's google-perftools)
# prints, line for line after sorting, up to the two differences of form
# docs/flame.md explains: pprof prints one line per distinct address stack
# (corecap one per distinct name stack: pprof's lines are summed), and pprof
# tags names it found with nm by their start address ("main<0000000000001139>":
# the tags are stripped). The program (tests/data/flame/prof_target.c) has
# three threads, a shared library and C++ names, and is built without
# inlining (pprof names inlined frames from DWARF, corecap from the symbol
# table: docs/flame.md). Then truncated and garbage profiles must fail with
# a clear error and no crash.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"

CORECAP="$CORECAP_BUILD/cli/corecap"
DATA="$CORECAP_SRC/tests/data/flame"
PROFILER=/usr/lib/x86_64-linux-gnu/libprofiler.so.0
[ -x "$CORECAP" ] || { echo "FAIL: $CORECAP is not built"; exit 1; }
command -v google-pprof >/dev/null || skip "google-pprof is not installed (Debian package google-perftools)"
[ -e "$PROFILER" ] || skip "$PROFILER is absent (Debian package libgoogle-perftools4)"
command -v cc >/dev/null && command -v c++ >/dev/null || skip "no C and C++ compilers (build-essential)"
command -v python3 >/dev/null || skip "python3 is not installed"

WORK=$(mktemp -d /tmp/flame-pprof.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# No inlining and no sibling calls: every frame a real function.
cflags=(-O1 -g -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls)
cc "${cflags[@]}" -fPIC -shared -o "$WORK/libprof_lib.so" "$DATA/prof_lib.c"
c++ "${cflags[@]}" -c -o "$WORK/prof_cpp.o" "$DATA/prof_cpp.cpp"
cc "${cflags[@]}" -c -o "$WORK/prof_target.o" "$DATA/prof_target.c"
c++ -o "$WORK/prof_target" "$WORK/prof_target.o" "$WORK/prof_cpp.o" -L"$WORK" -lprof_lib \
	-Wl,-rpath,"$WORK" -lpthread

CPUPROFILE="$WORK/cpu.prof" CPUPROFILE_FREQUENCY=1000 LD_PRELOAD="$PROFILER" \
	"$WORK/prof_target" 2 >/dev/null 2>"$WORK/target.err"
samples=$(sed -n 's|^PROFILE: interrupts/evictions/bytes = \([0-9]*\)/.*|\1|p' "$WORK/target.err")
echo "libprofiler: $samples samples"
expect_true "the profile has samples" test "${samples:-0}" -gt 30

status=0
"$CORECAP" flame "$WORK/cpu.prof" >"$WORK/corecap.folded" 2>"$WORK/corecap.err" || status=$?
expect_eq "corecap flame PROFILE exit status" 0 "$status"
google-pprof --collapsed "$WORK/prof_target" "$WORK/cpu.prof" >"$WORK/pprof.raw" 2>/dev/null
# Both sides are summed per stack after the documented normalizations
# (docs/flame.md): pprof's "<address>" tags go; glibc's aliases of one
# address (__GI___clock_gettime, __clock_gettime_2, __clock_gettime) read
# as one name, since the two tools pick different aliases from libc's
# debug symbols; and an address no symbol covers (a sample in the vDSO)
# reads without leading zeros, which pprof pads to 16 digits.
fold() {
	python3 - "$1" <<'EOF'
import collections, re, sys
def canon(frame):
    if re.fullmatch(r"0x[0-9a-f]+", frame):
        return hex(int(frame, 16))
    m = re.fullmatch(r"(?:__GI_)?_*([A-Za-z][A-Za-z0-9_]*?)(?:_[0-9]+)?", frame)
    return m.group(1) if m and frame.startswith("_") else frame
stacks = collections.Counter()
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if not line:
        continue
    stack, count = line.rsplit(" ", 1)
    stack = re.sub(r"<[0-9a-f]+>", "", stack)
    stacks[";".join(canon(f) for f in stack.split(";"))] += int(count)
for stack in sorted(stacks, key=lambda s: s.encode()):
    print(stack, stacks[stack])
EOF
}
fold "$WORK/pprof.raw" >"$WORK/pprof.folded"
fold "$WORK/corecap.folded" >"$WORK/corecap.canon"
LC_ALL=C sort "$WORK/corecap.folded" >"$WORK/corecap.sorted"
_checks=$((_checks + 1))
if diff -u "$WORK/pprof.folded" "$WORK/corecap.canon" >"$WORK/diff"; then
	echo "ok: corecap flame = google-pprof --collapsed ($(wc -l <"$WORK/corecap.canon") stacks)"
else
	echo "FAIL: corecap flame differs from google-pprof --collapsed:"
	head -40 "$WORK/diff"
	_failures=$((_failures + 1))
fi
total=$(awk '{ s += $NF } END { print s }' "$WORK/corecap.sorted")
expect_eq "corecap's samples = libprofiler's interrupts" "$samples" "$total"
expect_true "C++ names demangled with their arguments" \
	grep -q ';store::Shard::apply(std::vector<int, std::allocator<int> > const&, int) const;store::Codec<unsigned long>::encode(unsigned long, int) [0-9]*$' "$WORK/corecap.sorted"
expect_true "frames of the shared library" grep -q ';worker_main;lib_hash_block;mix [0-9]*$' "$WORK/corecap.sorted"
expect_true "recursion kept frame by frame" grep -q ';recurse;recurse;recurse;spin [0-9]*$' "$WORK/corecap.sorted"
expect_true "stdout is sorted" cmp -s "$WORK/corecap.folded" "$WORK/corecap.sorted"

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
size=$(stat -c %s "$WORK/cpu.prof")
head -c 20 "$WORK/cpu.prof" >"$WORK/header.prof"
head -c $((size / 3)) "$WORK/cpu.prof" >"$WORK/third.prof"
head -c 300 /dev/urandom >"$WORK/random.prof"
: >"$WORK/empty.prof"
fails_with "truncated header" "cannot read profile '$WORK/header.prof': truncated header" "$WORK/header.prof"
fails_with "profile cut at a third" "cannot read profile '$WORK/third.prof': truncated" "$WORK/third.prof"
fails_with "random bytes" "cannot read profile '$WORK/random.prof'" "$WORK/random.prof"
fails_with "empty file" "cannot read profile '$WORK/empty.prof': empty file" "$WORK/empty.prof"
fails_with "an ELF file" "not a CPU profile" "$WORK/prof_target"
fails_with "a missing file" "No such file or directory" "$WORK/none.prof"
finish
