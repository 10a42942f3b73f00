#!/usr/bin/env bash
# Disk-backed OSDs from scripts/ceph-minicluster (issue #21). BlueStore on a
# sparse file under the cluster's directory, its RocksDB and WAL on a second
# sparse file (--bluestore-db file): it starts, takes `rados bench` 4 KiB
# writes, which reach its block files (BlueStore's own perf counters grow by
# them, and the files hold more allocated bytes than before), and stops,
# leaving no process behind. Then FileStore, its OSD under the shim
# (`corecap run --`): its writes go through the journal file (the journal's
# perf counters count them, and the OSD's log says the journal runs with
# O_DIRECT and aio), and the shim's journal class carries them: its
# journal-class aio completions and bytes are FileStore's journal_wr and
# journal_wr_bytes, plus the journal header's 4 KiB blocks, which FileStore
# does not count there: FileJournal::do_aio_write rewrites the header after a
# sync as an aio of its own (one more completion, 4 KiB), or inside a
# wrapping write's second part (one more completion for the split, 4 KiB),
# or alone when the write it rides on is empty (a journal_wr of 0 bytes: no
# more completions, 4 KiB). So the extra bytes are whole 4 KiB blocks, a few
# of them, and never fewer than none. Last, the option's errors.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
. "$CORECAP_SRC/tests/e2e/ceph_lib.sh"
ceph_need_tools
[ -x "$CORECAP_BUILD/preload/corecap-stats-dump" ] || { echo "FAIL: corecap-stats-dump is not built"; exit 1; }
work=$(mktemp -d /tmp/ceph-disk.XXXXXX)
WORK=$work
cleanup() {
	"$mc" stop "$work/blue" >/dev/null 2>&1 || true
	"$mc" stop "$work/file" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
ceph_need_odirect "$work"

# perf dump counter: perf_of ASOK 'PYTHON EXPR over d'.
perf_of() { ceph daemon "$1" perf dump | python3 -c 'import json, sys; d = json.load(sys.stdin); print(eval(sys.argv[1]))' "$2"; }
# Allocated bytes of a file (sparse: less than its size).
alloc_of() { echo $(($(stat -L -c %b "$1") * $(stat -L -c %B "$1"))); }

base=$(ceph_free_base 48189) || skip "no free port base found from 48189 up"
echo "bluestore: starting a cluster in $work/blue (port base $base)"
t0=$SECONDS
ceph_start blue "$base" --objectstore bluestore --bluestore-db file
echo "bluestore start took $((SECONDS - t0)) s"
cat "$work/blue.start"
d="$work/blue"
asok="$d/run/ceph-osd.0.asok"
pid=$(cat "$d/osd.0.pid")
expect_true "start names the store" grep -q '1 bluestore OSD;' "$work/blue.start"
expect_true "the block file is a sparse file in the cluster's directory" \
	test "$(alloc_of "$d/osd.0/block")" -lt "$(stat -c %s "$d/osd.0/block")"
expect_eq "block.db points to the second file" "$d/dev/osd.0.block.db" "$(readlink "$d/osd.0/block.db")"
expect_true "the OSD holds the block file open" \
	bash -c "ls -l /proc/$pid/fd | grep -q -- '-> $d/osd.0/block\$'"
expect_true "the OSD holds the DB file open" \
	bash -c "ls -l /proc/$pid/fd | grep -q -- '-> $d/dev/osd.0.block.db\$'"
expect_true "the OSD's bstore_kv_sync and bstore_aio threads run" \
	bash -c "cat /proc/$pid/task/*/comm | grep -q '^bstore_kv_sync\$' && cat /proc/$pid/task/*/comm | grep -q '^bstore_aio\$'"
expect_eq "ceph osd metadata: osd_objectstore" bluestore \
	"$(ceph -c "$d/ceph.conf" -k "$d/ceph.client.admin.keyring" osd metadata 0 -f json |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["osd_objectstore"])')"

eval "$("$mc" env "$d")"
db0=$(alloc_of "$d/dev/osd.0.block.db")
txc0=$(perf_of "$asok" 'd["bluestore"]["kv_sync_lat"]["avgcount"]')
w0=$(perf_of "$asok" 'd["osd"]["op_w"]')
rados -p bench bench 3 write -b 4096 -t 1 >"$work/blue.bench" 2>&1 || true
grep -E '^(Total writes made|Average IOPS|Average Latency)' "$work/blue.bench" || tail "$work/blue.bench"
writes=$(awk -F: '/^Total writes made/ { gsub(/ /, "", $2); print $2 }' "$work/blue.bench")
iops=$(ceph_iops_of "$work/blue.bench")
expect_true "rados bench on bluestore: Average IOPS (${iops:-none}) > 0" test "${iops:-0}" -gt 0
expect_true "osd.op_w grew by the writes made (${writes:-?})" \
	test "$(perf_of "$asok" 'd["osd"]["op_w"]')" -ge $((w0 + ${writes:-1}))
txc1=$(perf_of "$asok" 'd["bluestore"]["kv_sync_lat"]["avgcount"]')
echo "bluestore.kv_sync_lat.avgcount: $txc0 -> $txc1"
expect_true "BlueStore synced its KV store for them" test "$txc1" -gt "$txc0"
echo "block.db allocated: $db0 -> $(alloc_of "$d/dev/osd.0.block.db") bytes"
expect_true "RocksDB's WAL wrote into the DB file" test "$(alloc_of "$d/dev/osd.0.block.db")" -gt "$db0"

rc=0
t0=$SECONDS
"$mc" stop "$d" >/dev/null 2>&1 || rc=$?
echo "bluestore stop took $((SECONDS - t0)) s"
expect_eq "stop exit status" 0 "$rc"
expect_eq "processes of the bluestore cluster left" "" "$(ceph_procs_of_dir "$d" | tr '\n' ' ')"
expect_true "the OSD shut down in full" grep -q 'osd.0 [0-9]* shutdown' "$d/log/ceph-osd.0.log"

# FileStore: every write goes to the journal first.
base=$(ceph_free_base "$((base + 100))") || skip "no second free port base"
echo "filestore: starting a cluster in $work/file (port base $base)"
t0=$SECONDS
ceph_start file "$base" --objectstore filestore --osd-wrapper "$CORECAP run --"
echo "filestore start took $((SECONDS - t0)) s"
d="$work/file"
asok="$d/run/ceph-osd.0.asok"
expect_true "the journal runs with O_DIRECT and aio" \
	grep -q "journal _open $d/osd.0/journal fd [0-9]*: [0-9]* bytes, block size 4096 bytes, directio = 1, aio = 1" \
	"$d/log/ceph-osd.0.log"
eval "$("$mc" env "$d")"
fpid=$(cat "$d/osd.0.pid")
# The shim's journal-class aio (class 4): completions (columns 26-30 of
# corecap-stats-dump's thread rows) and bytes (36-40), over all threads.
shim_journal() {
	"$CORECAP_BUILD/preload/corecap-stats-dump" "$fpid" |
		awk -F'\t' -v col="$1" '$1 == "thread" { s += $(col + 4) } END { printf "%.0f\n", s }'
}
# The four figures come from separate reads (two perf dumps, two stats
# dumps) while the OSD may still write its journal (a PG's first writes
# after the start, a sync after the bench): read them until two passes
# agree, so that they describe one moment, before the bench and after it.
figures() {
	echo "$(perf_of "$asok" 'd["filestore"]["journal_wr"]') $(perf_of "$asok" 'd["filestore"]["journal_wr_bytes"]["sum"]') $(shim_journal 26) $(shim_journal 36)"
}
settled_figures() {
	local prev cur
	prev=$(figures)
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		sleep 0.3
		cur=$(figures)
		[ "$cur" = "$prev" ] && break
		prev=$cur
	done
	echo "$cur"
}
read -r j0 jb0 sa0 sb0 <<<"$(settled_figures)"
rados -p bench bench 3 write -b 4096 -t 1 >"$work/file.bench" 2>&1 || true
grep -E '^(Total writes made|Average IOPS|Average Latency)' "$work/file.bench" || tail "$work/file.bench"
writes=$(awk -F: '/^Total writes made/ { gsub(/ /, "", $2); print $2 }' "$work/file.bench")
read -r j1 jb1 sa1 sb1 <<<"$(settled_figures)"
echo "filestore.journal_wr: $j0 -> $j1 (rados bench made ${writes:-?} writes)"
expect_true "rados bench on filestore made writes" test "${writes:-0}" -gt 0
expect_true "the journal took at least one write per write made" test "$j1" -ge $((j0 + ${writes:-1}))
echo "shim journal class: $((sa1 - sa0)) aio, $((sb1 - sb0)) bytes; filestore: $((j1 - j0)) journal writes, $((jb1 - jb0)) bytes"
extra=$(((sa1 - sa0) - (j1 - j0)))
expect_true "the shim's journal-class aio completions are FileStore's journal writes, +0..4 ($extra)" \
	test "$extra" -ge 0 -a "$extra" -le 4
hdr=$(((sb1 - sb0) - (jb1 - jb0)))
expect_true "and their bytes its journal_wr_bytes plus whole 4 KiB header blocks, 0..8 of them ($hdr bytes)" \
	test "$hdr" -ge 0 -a $((hdr % 4096)) -eq 0 -a "$hdr" -le $((8 * 4096))
rc=0
"$mc" stop "$d" >/dev/null 2>&1 || rc=$?
expect_eq "filestore stop exit status" 0 "$rc"
expect_eq "processes of the filestore cluster left" "" "$(ceph_procs_of_dir "$d" | tr '\n' ' ')"

# Bad options: usage errors (exit 2) naming the value.
for bad in "--objectstore xfs:'xfs'" "--osds 5:'5'" "--osds 0:'0'" "--bluestore-db ssd:'ssd'"; do
	opt=${bad%%:*} needle=${bad#*:}
	rc=0
	# shellcheck disable=SC2086
	"$mc" start "$work/bad" $opt >"$work/bad.out" 2>&1 || rc=$?
	expect_eq "start $opt: exit status" 2 "$rc"
	expect_true "start $opt: the error names $needle" grep -qF -- "$needle" "$work/bad.out"
done
rc=0
"$mc" start "$work/bad" --bluestore-db file >"$work/bad.out" 2>&1 || rc=$?
expect_eq "--bluestore-db file without bluestore: exit status" 2 "$rc"
expect_true "and says it needs bluestore" grep -q 'needs --objectstore bluestore' "$work/bad.out"
expect_true "a refused start creates no directory" test ! -e "$work/bad"
finish
