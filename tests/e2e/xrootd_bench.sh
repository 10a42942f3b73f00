# xrdbench against a real xrootd: every mode runs and prints rados bench's
# summary (parsed by the collector's parser through corecap record later);
# its files are removed at the end; a refused connection, a kXR_error and a
# server killed mid-run each exit 1 naming the cause; bad usage exits 2.
. "$CORECAP_SRC/tests/e2e/xrootd_lib.sh"
xrd_need_tools

xrd_start s1
for m in read write stat ping; do
	rc=0
	"$XRDBENCH" -p "$XRD_PORT" -t 2 -b 16 -d 1 "$m" >"$WORK/$m.out" 2>"$WORK/$m.err" || rc=$?
	expect_eq "xrdbench $m exits 0" 0 "$rc"
	iops=$(xrd_iops_of "$WORK/$m.out")
	expect_calc "xrdbench $m: Average IOPS > 100" "${iops:-0} > 100"
	expect_true "xrdbench $m prints p99.9" grep -q "^p99.9 latency(s):" "$WORK/$m.out"
done
made=$(awk -F: '/^Total reads made/ { gsub(/ /, "", $2); print $2 }' "$WORK/read.out")
secs=$(awk -F: '/^Total time run/ { gsub(/ /, "", $2); print $2 }' "$WORK/read.out")
expect_calc "Average IOPS = reads made / time run, to 1%" \
	"$(xrd_iops_of "$WORK/read.out") >= 0.99 * $made / $secs - 1"
expect_eq "the streams' files are removed at the end" "" "$(ls -A "$WORK/s1/data")"

# Refused: a port nobody listens on (this server's, once it is stopped, below).
expect_fail_naming "kXR_error is quoted" "kXR_error 3010" \
	"$XRDBENCH" -p "$XRD_PORT" -t 1 -d 1 -P "/a/../b" read
echo "xrdbench ping for 10 s, the server killed after 1 s"
"$XRDBENCH" -p "$XRD_PORT" -t 2 -d 10 ping >"$WORK/drop.out" 2>"$WORK/drop.err" &
bg=$!
track "$bg"
sleep 1
kill -KILL "$XRD_PID"
rc=0
wait "$bg" || rc=$?
expect_eq "xrdbench exits 1 when the server drops the connection" 1 "$rc"
expect_true "the error says the connection was dropped" grep -q "connection dropped by the server during kXR_ping" "$WORK/drop.err"
"$xs" stop "$WORK/s1" >/dev/null 2>&1 || true
expect_fail_naming "connection refused" "Connection refused" "$XRDBENCH" -p "$XRD_PORT" -t 1 -d 1 ping

for bad in "-p 0 ping" "-p 1 -t 0 ping" "-p 1 -b 0 read" "-p 1 bogus" "-p 1" "-p 1 -P rel read"; do
	rc=0
	# shellcheck disable=SC2086
	"$XRDBENCH" $bad >/dev/null 2>&1 || rc=$?
	expect_eq "xrdbench $bad: usage error" 2 "$rc"
done
finish
