#!/usr/bin/env bash
# Symbols on a real ceph-osd with Debian's ceph-osd-dbg (its DWARF, found
# by build-id under /usr/lib/debug/.build-id): one OSD under the shim and
# gperftools' profiler, recorded with wall-clock samples during a rados
# bench with 16 writes in flight. Known answers, from the OSD's own debug
# file:
#  - the lock table's sites and stacks carry inlined calls and Ceph source
#    files with lines (report --json 'source'/'sources', report --lines);
#  - the wall and cpu flame graphs have [inline] frames of Ceph's code;
#  - no module reports a build-id mismatch, and no shim frame is left.
set -uo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
. "$CORECAP_SRC/tests/e2e/ceph_lib.sh"
ceph_need_tools
need_sessiond
osd_bin=$(command -v ceph-osd)
osd_id=$(readelf -n "$osd_bin" | sed -n 's/.*Build ID: \([0-9a-f]*\)/\1/p')
[ -e "/usr/lib/debug/.build-id/${osd_id:0:2}/${osd_id:2}.debug" ] ||
	skip "ceph-osd-dbg is not installed (scripts/install-deps-ceph): ceph-osd has no DWARF here"
[ -e /usr/lib/x86_64-linux-gnu/libprofiler.so.0 ] ||
	skip "gperftools' libprofiler is absent (Debian package libgoogle-perftools4)"
work=$(mktemp -d /tmp/ceph-dbg.XXXXXX)
chmod 755 "$work"
cleanup() {
	"$mc" stop "$work/osd" >/dev/null 2>&1 || true
	[ -n "${CORECAP_CEPH_KEEP:-}" ] && { echo "kept $work"; return; }
	rm -rf "$work"
}
trap cleanup EXIT

base=$(ceph_free_base 48389) || skip "no free port range found for the cluster"
ceph_start osd "$base" --osd-wrapper "$CORECAP run --cpuprofile --"
pid=$(cat "$work/osd/osd.0.pid")
run="$work/run"
"$mc" mkpool "$work/osd" dbg >"$work/pool.log" 2>&1 || { echo "FAIL: mkpool"; cat "$work/pool.log"; exit 1; }
rc=0
(
	eval "$("$mc" env "$work/osd")"
	timeout 120 "$CORECAP" record -q -p "$pid" --wallclock=100 -o "$run" -- \
		rados -p dbg bench 3 write -b 4096 -t 16 --no-cleanup
) >"$work/record.out" 2>"$work/record.err" || rc=$?
expect_eq "corecap record exit status" 0 "$rc"
[ "$rc" -eq 0 ] || { tail -5 "$work/record.err"; finish; exit 1; }

"$CORECAP" report --json "$run" >"$work/report.json" 2>"$work/report.err"
expect_eq "report --json exit status" 0 "$?"
"$CORECAP" report --lines "$run" >"$work/report.txt" 2>>"$work/report.err"
expect_eq "no build-id mismatch" 0 "$(grep -c 'build-id differs' "$work/report.txt")"
counts=$(python3 - "$work/report.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
srcs = [s["source"] for l in d["locks"] for s in l["sites"]]
srcs += [c for l in d["locks"] for st in l["stacks"] for c in st["sources"]]
frames = [f for c in srcs for f in c]
osd = [f for f in frames if f["file"] and "/src/" in f["file"] and f["line"]]
print(len(srcs), len(osd), sum(f["inlined"] for f in osd))
EOF
)
read -r n_chains n_lines n_inlined <<<"$counts"
echo "lock sites and stack frames: $n_chains, frames with a Ceph source line: $n_lines, inlined: $n_inlined"
expect_calc "lock frames with Ceph source lines ($n_lines)" "${n_lines:-0} > 10"
expect_calc "lock frames that are inlined calls ($n_inlined)" "${n_inlined:-0} > 0"
expect_true "report --lines prints Ceph file:line" grep -qE '\([A-Za-z_]+\.(cc|h):[0-9]+\)' "$work/report.txt"
grep -m3 'top stack' "$work/report.txt" | cut -c1-300

for k in wall cpu; do
	"$CORECAP" flame --kind "$k" "$run" >"$work/$k.folded" 2>"$work/$k.err"
	expect_eq "flame --kind $k exit status" 0 "$?"
	expect_calc "$k: stacks with Ceph's inlined calls" \
		"$(grep -cE '(OSD|PG|PrimaryLogPG|BlueStore|MemStore|ceph::)[^;]*\[inline\]' "$work/$k.folded") > 0"
	expect_eq "$k: no shim frame left" 0 "$(grep -cE ';(mutex_slow|lock_track_|corecap_cond_wait_current)' "$work/$k.folded")"
done
finish
