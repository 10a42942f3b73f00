# refosd + refbench end to end: a write run's summary is complete and
# consistent, seq and rand read the objects back (refbench checks their
# contents), the threads carry Ceph's names, the dir store keeps one file
# per object, and SIGTERM stops the daemon cleanly (exit 0, log flushed,
# pidfile removed); --op-log writes one line per op, and its error.
. "$CORECAP_SRC/tests/e2e/refosd_lib.sh"

start_refosd osd --pidfile "$WORK/osd.pid" --log-file "$WORK/osd.log"
osd=$OSD_PID
expect_eq "pidfile content" "$osd" "$(cat "$WORK/osd.pid" 2>/dev/null)"

threads=$(cat /proc/"$osd"/task/*/comm | sort | uniq -c | awk '{ printf "%s=%s ", $2, $1 }')
expect_eq "thread names (3 msgr, 5 shards x 2 workers)" \
	"finisher=1 log=1 msgr-worker-0=1 msgr-worker-1=1 msgr-worker-2=1 refosd=1 tp_osd_tp=10 " "$threads"

echo "refbench -t 8 -b 1 -d 2 write"
rc=0
"$BIN/refbench" -p "$OSD_PORT" -t 8 -b 1 -d 2 write >"$WORK/write.out" 2>"$WORK/write.err" || rc=$?
cat "$WORK/write.out"
expect_eq "write exit status" 0 "$rc"
expect_eq "write stderr" "" "$(cat "$WORK/write.err")"
for label in "Total time run" "Total writes made" "Write size" "Object size" "Bandwidth (MB/sec)" \
	"Stddev Bandwidth" "Max bandwidth (MB/sec)" "Min bandwidth (MB/sec)" "Average IOPS" \
	"Stddev IOPS" "Max IOPS" "Min IOPS" "Average Latency(s)" "Stddev Latency(s)" \
	"Max latency(s)" "Min latency(s)" "p50 latency(s)" "p99 latency(s)" "p99.9 latency(s)"; do
	expect_true "summary has '$label:'" test -n "$(summary_value "$WORK/write.out" "$label")"
done
t=$(summary_value "$WORK/write.out" "Total time run")
n=$(summary_value "$WORK/write.out" "Total writes made")
iops=$(summary_value "$WORK/write.out" "Average IOPS")
expect_eq "Write size" 1 "$(summary_value "$WORK/write.out" "Write size")"
expect_eq "Object size" 1 "$(summary_value "$WORK/write.out" "Object size")"
expect_true "Average IOPS $iops > 0" test "${iops:-0}" -gt 0
expect_true "run time $t s is 2-3 s" test "$(calc "$t >= 2 && $t < 3")" = 1
expect_true "writes made $n = IOPS $iops x time $t within 5%" \
	test "$(calc "$n > 0 && ($n - $iops * $t) / $n < 0.05 && ($iops * $t - $n) / $n < 0.05")" = 1
p50=$(summary_value "$WORK/write.out" "p50 latency(s)")
p99=$(summary_value "$WORK/write.out" "p99 latency(s)")
p999=$(summary_value "$WORK/write.out" "p99.9 latency(s)")
lmin=$(summary_value "$WORK/write.out" "Min latency(s)")
lmax=$(summary_value "$WORK/write.out" "Max latency(s)")
lavg=$(summary_value "$WORK/write.out" "Average Latency(s)")
expect_true "min <= p50 <= p99 <= p99.9 <= max latency" \
	test "$(calc "$lmin <= $p50 && $p50 <= $p99 && $p99 <= $p999 && $p999 <= $lmax")" = 1
expect_true "average latency x concurrency ~ time / ops (Little's law within 25%)" \
	test "$(calc "($lavg * $n / 8) / $t > 0.75 && ($lavg * $n / 8) / $t < 1.25")" = 1

echo "refbench -t 8 -d 2 seq"
rc=0
"$BIN/refbench" -p "$OSD_PORT" -t 8 -d 2 seq >"$WORK/seq.out" 2>"$WORK/seq.err" || rc=$?
expect_eq "seq exit status" 0 "$rc"
expect_eq "seq stderr (no read errors)" "" "$(cat "$WORK/seq.err")"
reads=$(summary_value "$WORK/seq.out" "Total reads made")
expect_true "seq reads made ($reads) > 0 and <= writes ($n)" test "${reads:-0}" -gt 0 -a "${reads:-0}" -le "$n"
expect_eq "Read size" 1 "$(summary_value "$WORK/seq.out" "Read size")"

echo "refbench -t 4 -d 1 rand"
rc=0
"$BIN/refbench" -p "$OSD_PORT" -t 4 -d 1 --no-progress rand >"$WORK/rand.out" 2>"$WORK/rand.err" || rc=$?
expect_eq "rand exit status" 0 "$rc"
expect_eq "rand stderr (no read errors)" "" "$(cat "$WORK/rand.err")"
expect_true "rand reads made > 0" test "$(summary_value "$WORK/rand.out" "Total reads made")" -gt 0

stop_refosd "$osd"
expect_eq "refosd exit status after SIGTERM" 0 "$STOP_STATUS"
expect_true "pidfile removed" test ! -e "$WORK/osd.pid"
last=$(tail -n 1 "$WORK/osd.log")
expect_true "log ends with the shutdown entry (flushed)" grep -q "refosd stopped: " <<<"$last"
done_ops=$(sed -n 's/.*refosd stopped: \([0-9]*\) ops done.*/\1/p' <<<"$last")
expect_true "ops done ($done_ops) >= writes + reads" test "${done_ops:-0}" -ge $((n + reads))

echo "dir store with fsync"
mkdir "$WORK/store"
start_refosd dir --store "dir:$WORK/store" --fsync
rc=0
"$BIN/refbench" -p "$OSD_PORT" -t 4 -b 4K -d 1 --no-progress write >"$WORK/dir.out" 2>&1 || rc=$?
expect_eq "dir-store write exit status" 0 "$rc"
dn=$(summary_value "$WORK/dir.out" "Total writes made")
expect_eq "one file per object, plus the metadata object" "$((dn + 1))" "$(ls "$WORK/store" | wc -l)"
expect_eq "object file size" 4096 "$(stat -c %s "$WORK/store/$(ls "$WORK/store" | grep -m1 _object)")"
rc=0
"$BIN/refbench" -p "$OSD_PORT" -t 4 -d 1 --no-progress seq >"$WORK/dirseq.out" 2>&1 || rc=$?
expect_eq "dir-store seq exit status" 0 "$rc"
# --op-log: one line per op (in completion order), its id PID << 32 |
# sequence, each once, its times in order.
rc=0
"$BIN/refbench" -p "$OSD_PORT" -t 2 -d 1 --no-progress --op-log "$WORK/ops.tsv" seq >"$WORK/oplog.out" 2>&1 &
bp=$!
wait "$bp" || rc=$?
expect_eq "seq --op-log exit status" 0 "$rc"
expect_eq "--op-log: one line per op read" "$(summary_value "$WORK/oplog.out" "Total reads made")" \
	"$(grep -vc '^#' "$WORK/ops.tsv")"
expect_eq "--op-log: ids of its PID, each once, times in order, types read" "0 0 0 read" \
	"$(awk -v pid="$bp" '!/^#/ { if (int($1 / 4294967296) != pid) badid++; if (seen[$1]++) badseq++
		if (!($3 <= $4 && $4 <= $5)) badt++; types[$2] = 1 }
		END { for (t in types) ty = ty t; print badid + 0, badseq + 0, badt + 0, ty }' "$WORK/ops.tsv")"
rc=0
"$BIN/refbench" -p "$OSD_PORT" -t 1 -d 1 --no-progress --op-log "$WORK/nodir/ops.tsv" seq >"$WORK/oplog2.out" 2>&1 || rc=$?
expect_eq "--op-log into a missing directory: exit status 1" 1 "$rc"
expect_true "and it says so" grep -q "cannot open '$WORK/nodir/ops.tsv'" "$WORK/oplog2.out"
stop_refosd "$OSD_PID"
expect_eq "dir-store refosd exit status" 0 "$STOP_STATUS"

finish
