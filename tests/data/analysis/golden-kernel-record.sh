#!/usr/bin/env bash
# Regenerates the golden kernel run beside this script (not a test; root,
# for the kernel events): a bare refosd --big-lock (no shim, no trace, as
# a user's daemon runs) recorded by `corecap record --kernel --kernel-via
# bpf` while refbench -t 4 writes for one second, so that the report's
# kernel sections (the futex lock table with its sites, holders and
# stacks, the idle waits, the thread states, the diagnosis from futex
# events) have content. Each op burns 8 ms of CPU under the big lock: few
# ops, so the run stays near 130 KB (260 KB with its symbols and reports).
#
# It makes:
#   golden-kernel/                 the run (without its empty trace/ and vdso.so)
#   golden-kernel-symfs/           for `--symfs`: refosd's symbols and DWARF
#                                  (code sections emptied, debug sections
#                                  compressed), and of libc's symbols only
#                                  those the run's stacks land in (from its
#                                  debug file, libc6-dbg), so that symbols
#                                  resolve the same on any machine
#   golden-kernel.expect.txt/.json `corecap report --symfs` of it
# and checks that the report under golden-kernel-symfs is this machine's
# report with all its symbols (the text byte for byte; the JSON too, but
# for the file and line of libc's frames, whose DWARF is left out).
#   CORECAP_SRC=. CORECAP_BUILD=build-x bash tests/data/analysis/golden-kernel-record.sh
# Review the diff of the .expect files before committing them (e2e.kernel_golden).
set -euo pipefail
# Symbols from the files named here alone, not from a debuginfod server.
unset DEBUGINFOD_URLS
# Absolute: the reports run from the data directory.
CORECAP_SRC=$(realpath "${CORECAP_SRC:?CORECAP_SRC is not set}")
CORECAP_BUILD=$(realpath "${CORECAP_BUILD:?CORECAP_BUILD is not set}")
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
. "$CORECAP_SRC/tests/e2e/kernel_analysis_lib.sh"
need_refosd

run="$DATA/golden-kernel"
symfs="$DATA/golden-kernel-symfs"
rm -rf "$run" "$symfs" "$DATA/golden-kernel.expect.txt" "$DATA/golden-kernel.expect.json"
KERNEL_VIA=(--kernel-via bpf)
# Other processes' load adds switches and wakes (about 70 KB of records
# on a quiet machine, three times that under a test suite): a run over
# MAX_EVENTS_BYTES is recorded again, three times at most.
MAX_EVENTS_BYTES=${MAX_EVENTS_BYTES:-160000}
for attempt in 1 2 3; do
	rm -rf "$run"
	start_bare_refosd golden --big-lock --op-cpu-us 8000 --debug 0 --msgr-threads 1 \
		--shards 2 --threads-per-shard 2
	[ "$attempt" -gt 1 ] || need_kernel_record "$OSD_PID"
	record_kernel "$run" -t 4 -b 1 -d 1 write
	stop_refosd
	bytes=$(stat -c %s "$run/kernel/events.bin")
	echo "attempt $attempt: kernel/events.bin $bytes bytes"
	[ "$bytes" -gt "$MAX_EVENTS_BYTES" ] || break
	[ "$attempt" -lt 3 ] ||
		{ echo "FAIL: over $MAX_EVENTS_BYTES bytes of kernel records three times: a quieter machine"; exit 1; }
done
producer=$(json "$run/manifest.json" "d['kernel_events']['producer']")
[ "$producer" = bpf ] || { echo "FAIL: the kernel events came from '$producer', not bpf"; exit 1; }
# Not needed: the empty trace/, and vdso.so (.gitignore's *.so; none of
# the run's stacks is in the vDSO, and the check below would see one).
rm -rf "$run/trace" "$run/vdso.so" "$run.record.out"
chmod -R u+rwX,go+rX "$run"

# The symbol files, at the paths the run's maps name (as golden-symfs).
exe=$(readlink -f "$REFOSD")
mkdir -p "$symfs$(dirname "$exe")"
objcopy --only-keep-debug --compress-debug-sections=zlib "$exe" "$symfs$exe"
libc=$(awk '$6 ~ /\/libc\.so\.6$/ { print $6; exit }' "$run/maps")
id=$(awk -v p="$libc" '$1 == p { print $2 }' "$run/buildids.tsv")
debug="/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
[ -r "$debug" ] || { echo "FAIL: no debug file for $libc ($debug): install libc6-dbg"; exit 1; }
python3 "$DATA/golden-kernel-frames.py" "$run" "$libc=$debug" | cut -f2 >"$WORK/libc.keep"
mkdir -p "$symfs$(dirname "$libc")"
objcopy --strip-all --keep-symbols="$WORK/libc.keep" "$debug" "$symfs$libc"
chmod -R u+rwX,go+rX "$symfs"

cd "$DATA"
"$CORECAP" report --symfs golden-kernel-symfs golden-kernel >golden-kernel.expect.txt
"$CORECAP" report --json --symfs golden-kernel-symfs golden-kernel >golden-kernel.expect.json
"$CORECAP" report golden-kernel >"$WORK/host.txt"
"$CORECAP" report --json golden-kernel >"$WORK/host.json"
diff -u "$WORK/host.txt" golden-kernel.expect.txt ||
	{ echo "FAIL: the report under golden-kernel-symfs is not this machine's"; exit 1; }
python3 - "$WORK/host.json" golden-kernel.expect.json "$CORECAP_SRC" <<'PY'
import json, os, sys
host, gold = (json.load(open(p)) for p in sys.argv[1:3])
src = os.path.realpath(sys.argv[3]) + "/"
bad = []
def walk(a, b, at):
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        for k in a:
            # A frame outside refosd (libc's): no DWARF under the symfs.
            if k in ("file", "line") and b[k] is None and not str(a.get("file")).startswith(src):
                continue
            walk(a[k], b[k], at + "." + k)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, "%s[%d]" % (at, i))
    elif a != b:
        bad.append("%s: %r here, %r under the symfs" % (at, a, b))
for line in bad[:20]:
    print("FAIL: " + line)
sys.exit(1 if bad else 0)
PY
grep -c . golden-kernel.expect.txt
du -sk golden-kernel golden-kernel-symfs golden-kernel.expect.txt golden-kernel.expect.json
