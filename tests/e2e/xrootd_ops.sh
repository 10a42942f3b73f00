# Known answer: xrootd marks no ops, so corecap detects them from its
# socket I/O (CORECAP_NET_EVENTS=on, analysis/model/net_ops.c). Under
# xrdbench's 1-byte reads at -t 1 and -t 16, the detected kXR_read ops per
# second of the driver's run must be within 5% of the driver's IOPS (the
# report's own ops/s divides by the recording window, which also holds the
# driver's setup: 10-15% of a short round at -t 16), and every op's
# categories must sum to its latency (so their means sum to the mean
# latency). An event per socket call is up to 400k events/s at -t 16: its
# round lasts 0.5 s, so that LTTng's buffers (8 MiB per CPU) hold it;
# a round in which the tracer lost events leaves the ops in flight then
# out, and fails saying so (the test is labelled measured: three attempts).
. "$CORECAP_SRC/tests/e2e/xrootd_lib.sh"
xrd_need_tools
need_sessiond
[ -x "$CORECAP" ] || { echo "FAIL: $CORECAP is not built"; exit 1; }

CORECAP_NET_EVENTS=on xrd_start s1 --wrapper "$CORECAP run --"
for t in 1 16; do
	run="$WORK/t$t"
	secs=3
	[ "$t" -eq 1 ] || secs=0.5
	"$CORECAP" record -q -p "$XRD_PID" -o "$run" -- \
		"$XRDBENCH" -p "$XRD_PORT" -t "$t" -b 1 -d "$secs" read >"$run.record" 2>&1 ||
		{ echo "FAIL: corecap record -t $t failed:"; cat "$run.record"; finish; exit 1; }
	rc=0
	"$CORECAP" report --json --check-conservation --dump-ops "$run.ops" "$run" >"$run.json" 2>"$run.err" || rc=$?
	expect_eq "-t $t: report --check-conservation exits 0" 0 "$rc"
	"$CORECAP" report "$run" >"$run.txt"
	iops=$(xrd_iops_of "$run/bench.out")
	secs_run=$(awk -F: '/^Total time run/ { gsub(/ /, "", $2); print $2 }' "$run/bench.out")
	reads=$(json "$run.json" "d['ops']['by_type'].get('kXR_read', {}).get('count', 0)")
	lost=$(json "$run.json" "d['quality']['discarded_events']")
	ops_s=$(calc "$reads / $secs_run")
	echo "-t $t: xrdbench $iops IOPS; $reads kXR_read ops detected in its $secs_run s: $ops_s/s (over the window: $(json "$run.json" "d['ops']['ops_per_s']")/s)"
	sed -n '/^ops /,/^$/p;/^data/,$p' "$run.txt"
	expect_eq "-t $t: ops are detected" detected "$(json "$run.json" "d['ops']['source']")"
	expect_eq "-t $t: the tracer lost no events (else ops are left out)" 0 "$lost"
	expect_calc "-t $t: detected ops/s within 5% of the driver's IOPS" \
		"$ops_s >= 0.95 * $iops && $ops_s <= 1.05 * $iops"
	read_type=$(json "$run.json" "max(d['ops']['by_type'], key=lambda k: d['ops']['by_type'][k]['count'])")
	expect_eq "-t $t: the main type is XRootD's read request" kXR_read "$read_type"
	ty="d['ops']['by_type']['kXR_read']"
	expect_eq "-t $t: its categories sum to its mean latency (to 0.01 us)" True \
		"$(json "$run.json" "abs(sum($ty['breakdown_us'].values()) - $ty['latency_us']['avg']) < 0.01")"
	bad=$(awk -F'\t' 'NR > 1 { s = $6 + $7 + $8 + $9 + $10 + $11 + $12 - $5; if (s < 0) s = -s; if (s > 1000) b++ } END { print b + 0 }' "$run.ops")
	expect_eq "-t $t: ops whose categories miss their latency by > 1 us" 0 "$bad"
done
finish
