#!/usr/bin/env bash
# A BlueStore OSD (block on one sparse file, RocksDB and its WAL on a second,
# --bluestore-db file) started under `corecap run --`: the shim sees its
# libaio I/O (issue #21). After `rados bench write -b 4096 -t 1`, the shim's
# counters (corecap-stats-dump) must show the bstore_aio threads reaping
# completions of both classes, data (block) and journal (block.db), and
# bstore_kv_sync syncing the journal class. Two methods agree on what went
# to the DB file: BlueFS, the only user of block.db, counts the bytes it
# wrote (perf dump bluefs: bytes_written_wal + bytes_written_sst +
# logged_bytes), written through libaio and plain pwrite; it reads the
# file with pread. So the shim's journal-class bytes, async and plain,
# must be at least BlueFS's written bytes (in runs without reads they
# were equal to the byte: 43831296 for 1969 writes, 30486528 for 1369),
# and its async ones, writes only, at most those.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
. "$CORECAP_SRC/tests/e2e/ceph_lib.sh"
ceph_need_tools
need_sessiond
stats_dump="$CORECAP_BUILD/preload/corecap-stats-dump"
[ -x "$stats_dump" ] || { echo "FAIL: $stats_dump is not built"; exit 1; }
ceph_bluestore_under_shim ceph-bsshim 48389
asok="$d/run/ceph-osd.0.asok"
expect_true "the OSD runs under the shim" grep -q libcorecap-preload "/proc/$pid/maps"
eval "$("$mc" env "$d")"

# Per thread name, summed: the shim's counters of class $2 (4 journal, 2 data).
# Columns of corecap-stats-dump's thread rows: 11-15 io_calls, 16-20 io_ns,
# 21-25 io_bytes, 26-30 aio_done, 31-35 aio_ns, 36-40 aio_bytes.
sum_of() { # TSV NAME_REGEX FIRST_COLUMN CLASS
	awk -F'\t' -v re="$2" -v col=$(($3 + $4)) '$1 == "thread" && $3 ~ re { s += $col } END { printf "%.0f\n", s }' "$1"
}
bluefs_written() {
	ceph daemon "$asok" perf dump bluefs | python3 -c '
import json, sys
b = json.load(sys.stdin)["bluefs"]
print(b["bytes_written_wal"] + b["bytes_written_sst"] + b["logged_bytes"])'
}

"$stats_dump" "$pid" >"$work/before.tsv"
fs0=$(bluefs_written)
rados -p bench bench 3 write -b 4096 -t 1 >"$work/bench.out" 2>&1 || true
fs1=$(bluefs_written)
"$stats_dump" "$pid" >"$work/after.tsv"
grep -E '^(Total writes made|Average IOPS|Average Latency)' "$work/bench.out" || tail "$work/bench.out"
writes=$(awk -F: '/^Total writes made/ { gsub(/ /, "", $2); print $2 }' "$work/bench.out")
expect_true "rados bench made writes (${writes:-none})" test "${writes:-0}" -gt 0

delta() { echo $(($(sum_of "$work/after.tsv" "$@") - $(sum_of "$work/before.tsv" "$@"))); }
j_aio=$(delta '^bstore_aio$' 26 4)
d_aio=$(delta '^bstore_aio$' 26 2)
j_aio_ns=$(delta '^bstore_aio$' 31 4)
kv_calls=$(delta '^bstore_kv_sync$' 11 4)
kv_ns=$(delta '^bstore_kv_sync$' 16 4)
j_bytes=$(delta . 36 4)
j_plain=$(delta . 21 4)
echo "bstore_aio reaped: journal $j_aio (${j_aio_ns} ns), data $d_aio"
echo "bstore_kv_sync journal-class calls: $kv_calls (${kv_ns} ns)"
echo "DB file: shim $j_bytes bytes by aio (and $j_plain by plain calls); BlueFS wrote $((fs1 - fs0)) bytes"
expect_true "bstore_aio reaped journal-class (block.db) completions" test "$j_aio" -gt 0
expect_true "their submission-to-completion time was measured" test "$j_aio_ns" -gt 0
expect_true "bstore_kv_sync spent time in journal-class calls (io_submit, fdatasync)" \
	test "$kv_calls" -gt 0 -a "$kv_ns" -gt 0
expect_true "BlueFS wrote to the DB file" test $((fs1 - fs0)) -gt 0
expect_true "the shim's DB-file bytes, async and plain ($((j_bytes + j_plain))), >= BlueFS's" \
	test $((j_bytes + j_plain)) -ge $((fs1 - fs0))
expect_true "its async DB-file bytes ($j_bytes) <= BlueFS's" test "$j_bytes" -le $((fs1 - fs0))
# The data writes (deferred: BlueStore takes a file on ext4 for a rotational
# device, so a 4 KiB write is committed in RocksDB's WAL first) reach the
# block file through aio as well, once BlueStore applies them.
echo "data-class aio (block file) during the bench: $d_aio"

# corecap record of the OSD under the same benchmark: the report lists
# BlueStore's kv_sync and aio threads as pools, and charges the kv_sync
# thread's journal-class I/O (its io_submit and fdatasync calls, events
# of corecap_io) to its io_ns.
rc=0
fs0=$(bluefs_written)
"$CORECAP" record -q -p "$pid" -o "$work/run" -- \
	rados -p bench bench 3 write -b 4096 -t 1 >"$work/rec.out" 2>"$work/rec.err" || rc=$?
fs1=$(bluefs_written)
expect_eq "corecap record -p OSD -- rados bench exits" 0 "$rc"
[ "$rc" -eq 0 ] || tail -n 5 "$work/rec.err"
rc=0
"$CORECAP" report "$work/run" --json >"$work/report.json" 2>"$work/report.err" || rc=$?
expect_eq "corecap report --json exits" 0 "$rc"
ceph_expect_bstore_pools "$work/report.json"
kv_io=$(json "$work/report.json" \
	"sum(t['io_ns'].get('journal', 0) for t in d.get('threads', []) if t.get('name') == 'bstore_kv_sync')" \
	2>/dev/null || echo 0)
echo "report: bstore_kv_sync journal io_ns $kv_io"
expect_true "the report charges bstore_kv_sync journal-class I/O" test "${kv_io:-0}" -gt 0
# The report's I/O by class, from the shim's counters over the window:
# journal (block.db) syncs and aio per benchmark op, and no more aio bytes
# to the DB file than BlueFS wrote over a span that holds the window.
"$CORECAP" report "$work/run" >"$work/report.txt" 2>/dev/null || true
sed -n '/^I\/O by class/,/^$/p' "$work/report.txt"
read -r j_sync_us j_aio_done j_aio_bytes < <(json "$work/report.json" "' '.join(str(x) for c in d['io_classes'] if c['class'] == 'journal' for x in (c['per_bench_op']['sync_us'], c['aio_done'], c['aio_bytes']))" 2>/dev/null || echo "0 0 0")
echo "report io_classes journal: sync ${j_sync_us} us/op, $j_aio_done aio, $j_aio_bytes aio bytes; BlueFS wrote $((fs1 - fs0)) bytes"
expect_calc "journal-class sync time per op > 0" "${j_sync_us:-0} > 0"
expect_true "journal-class aio in the window" test "${j_aio_done:-0}" -gt 0
expect_true "its aio bytes <= BlueFS's bytes written around the window" test "${j_aio_bytes:-0}" -le $((fs1 - fs0))

rc=0
"$mc" stop "$d" >/dev/null 2>&1 || rc=$?
expect_eq "stop exit status" 0 "$rc"
finish
