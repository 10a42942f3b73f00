#!/usr/bin/env bash
# cold_prefix: whether a reader that inflates only what a cold `corecap
# report --json RUN` needs of a binary's compressed DWARF, or a faster
# inflater, could meet issue #48's cold target (1.0 s of CPU, 150 MB).
# It runs the report once with an empty cache directory; the symbol file
# it leaves for the binary whose debug file is the largest (ceph-osd's,
# on a Ceph run) holds every address the report printed from it (its
# keys: analysis/read/sym_cache.h). bench/dwarf_prefix finds how far into
# each section of that debug file those addresses' compile units reach;
# bench/inflate_floor then times, in alternating rounds pinned to one
# CPU, zlib on every section whole (the floor), zlib on the needed
# prefixes only, and, when built with libdeflate, libdeflate on every
# section whole and on the needed sections whole (it cannot stop at a
# prefix): CPU (user + system, and user alone) and peak RSS, medians and
# sign-test intervals.
#
# usage: bench/cold_prefix.sh [-B BUILD_DIR] [-r ROUNDS] [-c CPU] RUN_DIR
# A benchmark, not a test: it exits 0 unless it cannot measure at all.
set -euo pipefail
prog=cold_prefix
. "$(dirname "$0")/bench_lib.sh"

rounds=5 bench_cpu=1
bench_option() { return 1; }
bench_options "B:r:c:" "[-B BUILD_DIR] [-r ROUNDS] [-c CPU] RUN_DIR" "$@"
shift $((OPTIND - 1))
[ $# = 1 ] || { echo "usage: $0 [-B BUILD_DIR] [-r ROUNDS] [-c CPU] RUN_DIR" >&2; exit 2; }
run=$1
inflate_floor="$build/bench/inflate_floor"
dwarf_prefix="$build/bench/dwarf_prefix"
bench_need "$corecap" "$inflate_floor" "$dwarf_prefix"
bench_work /tmp/corecap-cold-prefix.XXXXXX
mkdir -m 700 "$work/xdg"
unset CORECAP_SYMCACHE

XDG_CACHE_HOME="$work/xdg" "$corecap" report --json "$run" >/dev/null 2>"$work/report.err" ||
	{ echo "$prog: corecap report --json '$run' failed:" >&2; cat "$work/report.err" >&2; exit 1; }

# The symbol file whose debug file is the largest, and that debug file.
debug="" sym="" size=0
for f in "$work/xdg/corecap/"*.sym; do
	[ -f "$f" ] || continue
	id=$(basename "$f")
	id=${id%%-*}
	d="/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
	[ -f "$d" ] || continue
	s=$(stat -c %s "$d")
	if [ "$s" -gt "$size" ]; then
		debug=$d sym=$f size=$s
	fi
done
[ -n "$debug" ] || { echo "$prog: the report read no debug file under /usr/lib/debug/.build-id" >&2; exit 1; }

# The symbol file's keys (sym_cache.h's format), one hex address a line.
python3 - "$sym" >"$work/addrs" <<'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read()
if b[:8] != b"CCSYMC\r\n":
    sys.exit("not a symbol file")
_, bl, sl, nrec, _, _ = struct.unpack_from('<IHHIII', b, 8)
off = 28 + bl + sl
def skip_str(o):
    n, = struct.unpack_from('<H', b, o)
    return o + 2 + (0 if n == 0xffff else n)
for _ in range(nrec):
    kind, key = struct.unpack_from('<BQ', b, off)
    off += 9
    if kind == 1:
        n = b[off]
        off += 1
        for _ in range(n):
            off = skip_str(skip_str(off)) + 5
    else:
        off = skip_str(off)
    print('%x' % key)
EOF
echo "$prog: $run: $(wc -l <"$work/addrs") addresses printed from $debug ($((size >> 20)) MB)"
"$dwarf_prefix" "$debug" <"$work/addrs" | tee "$work/prefix" | sed 's/^/  /'

# -p SECTION=BYTES for every section the addresses reach (the small ones whole).
pre=(-p .debug_aranges=999999999999 -p .debug_line_str=999999999999)
while read -r name bytes _; do
	case $name in
	.debug_info | .debug_abbrev | .debug_line | .debug_str | .debug_rnglists) pre+=(-p "$name=$bytes") ;;
	esac
done <"$work/prefix"
needed=(-s .debug_aranges -s .debug_info -s .debug_abbrev -s .debug_line -s .debug_str
	-s .debug_rnglists -s .debug_line_str)
kinds=(zlib_whole zlib_prefix)
"$inflate_floor" -d -s .debug_abbrev "$debug" >/dev/null 2>&1 && kinds+=(libdeflate_whole libdeflate_needed)

echo "  once, unmeasured:"
taskset -c "$bench_cpu" "$inflate_floor" "${pre[@]}" "$debug" | sed 's/^/    /'
for k in "${kinds[@]}"; do : >"$work/$k"; done
for r in $(seq 1 "$rounds"); do
	order=("${kinds[@]}")
	[ $((r % 2)) = 0 ] && mapfile -t order < <(printf '%s\n' "${kinds[@]}" | tac)
	printf '  round %d' "$r"
	for k in "${order[@]}"; do
		case $k in
		zlib_whole) m=$(bench_measure "$inflate_floor" "$debug") ;;
		zlib_prefix) m=$(bench_measure "$inflate_floor" "${pre[@]}" "$debug") ;;
		libdeflate_whole) m=$(bench_measure "$inflate_floor" -d "$debug") ;;
		libdeflate_needed) m=$(bench_measure "$inflate_floor" -d "${needed[@]}" "$debug") ;;
		esac
		echo "$m" | awk '{ printf "%.3f %.3f %d\n", $1 + $2, $1, $3 }' >>"$work/$k"
		printf '   %s %.2f s' "$k" "$(tail -1 "$work/$k" | cut -d' ' -f1)"
	done
	echo
done
for k in "${kinds[@]}"; do
	iv=$(cut -d' ' -f1 "$work/$k" | bench_interval)
	printf '  %-17s CPU median %s s, interval [%s, %s] (%s%%); user %s s; peak RSS %s kB\n' "$k" \
		"$(cut -d' ' -f1 "$work/$k" | bench_median)" $iv \
		"$(cut -d' ' -f2 "$work/$k" | bench_median)" "$(cut -d' ' -f3 "$work/$k" | bench_median)"
done
echo "  target (issue #48): the whole cold report in <= 1.0 s of CPU and 150 MB"
