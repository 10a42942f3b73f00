# Detected ops (xrootd marks none: analysis/model/net_ops.c) get the
# critical path annotated ones get: on a real xrootd under xrdbench -t 1
# -b 1 read, recorded with kernel events (root), every detected op has a
# critical path summing to its latency (conservation), and the kXR_read
# type's path categories sum to its mean latency. Skipped without kernel
# events.
. "$CORECAP_SRC/tests/e2e/xrootd_lib.sh"
. "$CORECAP_SRC/tests/e2e/kernel_analysis_lib.sh"
xrd_need_tools
need_sessiond
[ -x "$CORECAP" ] || { echo "FAIL: $CORECAP is not built"; exit 1; }

CORECAP_NET_EVENTS=on xrd_start s1 --wrapper "$CORECAP run --"
need_kernel_record "$XRD_PID"

run="$WORK/k1"
"$CORECAP" record -q --kernel -p "$XRD_PID" -o "$run" -- \
	"$XRDBENCH" -p "$XRD_PORT" -t 1 -b 1 -d 2 read >"$run.record" 2>&1 ||
	{ echo "FAIL: corecap record failed:"; cat "$run.record"; finish; exit 1; }
"$CORECAP" report --json "$run" >"$run.json"
"$CORECAP" report "$run" >"$run.txt"
sed -n '/^ops /,/^$/p' "$run.txt"
cons="d['ops']['critical_path_conservation']"
echo "critical path conservation: $(json "$run.json" "$cons")"
expect_eq "ops are detected" detected "$(json "$run.json" "d['ops']['source']")"
expect_eq "critical paths computed for the detected ops" True \
	"$(json "$run.json" "$cons is not None and $cons['checked'] > 100")"
expect_eq "every detected op with a path: checked against the ops (at least 99%)" True \
	"$(json "$run.json" "$cons['checked'] >= 0.99 * d['ops']['count']")"
expect_eq "ops whose critical path misses their latency" 0 "$(json "$run.json" "$cons['violations']")"
ty="d['ops']['by_type']['kXR_read']"
echo "kXR_read: latency $(json "$run.json" "$ty['latency_us']['avg']") us; breakdown $(json "$run.json" "$ty['breakdown_us']"); critical path $(json "$run.json" "$ty['critical_path_us']")"
expect_eq "kXR_read: its critical path's categories sum to its mean latency (1%)" True \
	"$(json "$run.json" "abs(sum($ty['critical_path_us'].values()) - $ty['latency_us']['avg']) <= 0.01 * $ty['latency_us']['avg']")"

finish
