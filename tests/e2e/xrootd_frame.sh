# XRootD's framing in the op detector (analysis/model/xrd_frame.c): on a
# real xrootd under xrdbench, each mode's ops are named for their request
# id and counted exactly as the driver counts them: kXR_write of 64 KiB
# (a request read in several reads, framed by its dlen), kXR_stat,
# kXR_ping, and kXR_read of 4 MiB (each reply a kXR_oksofar chunk and a
# final response: one op, ended by its final response, not by the hold or
# the next read). Every request frames (no frame lost) and every reply
# ends by its frame. About 20 s.
. "$CORECAP_SRC/tests/e2e/xrootd_lib.sh"
xrd_need_tools
need_sessiond
[ -x "$CORECAP" ] || { echo "FAIL: $CORECAP is not built"; exit 1; }

CORECAP_NET_EVENTS=on xrd_start s1 --wrapper "$CORECAP run --"
for spec in "write 65536 kXR_write" "stat 1 kXR_stat" "ping 1 kXR_ping" "read 4194304 kXR_read"; do
	read -r mode bytes type <<<"$spec"
	run="$WORK/$mode"
	"$CORECAP" record -q -p "$XRD_PID" -o "$run" -- \
		"$XRDBENCH" -p "$XRD_PORT" -t 2 -b "$bytes" -d 1 "$mode" >"$run.record" 2>&1 ||
		{ echo "FAIL: corecap record $mode failed:"; cat "$run.record"; finish; exit 1; }
	rc=0
	"$CORECAP" report --json --check-conservation "$run" >"$run.json" 2>"$run.err" || rc=$?
	expect_eq "$mode: report --check-conservation exits 0" 0 "$rc"
	[ "$rc" -eq 0 ] || cat "$run.err"
	made=$(awk -F: '/^Total (reads|writes) made/ { gsub(/ /, "", $2); print $2 }' "$run/bench.out")
	det="d['ops']['detection']"
	echo "$mode -b $bytes: xrdbench made $made; ops $(json "$run.json" "{k: v['count'] for k, v in d['ops']['by_type'].items()}")"
	echo "$mode: detection $(json "$run.json" "$det")"
	expect_eq "$mode: the tracer lost no events" 0 "$(json "$run.json" "d['quality']['discarded_events']")"
	n=$(json "$run.json" "d['ops']['by_type'].get('$type', {}).get('count', 0)")
	# read mode writes each stream's file once first (a kXR_write each).
	expect_eq "$mode: $type ops are the driver's count" "$made" "$n"
	expect_eq "$mode: no frame lost" 0 "$(json "$run.json" "$det['frames_lost']")"
	expect_eq "$mode: every op framed" "$(json "$run.json" "$det['ops_begun']")" "$(json "$run.json" "$det['framed_ops']")"
	expect_eq "$mode: every reply ended by its final response" \
		"$(json "$run.json" "$det['ops_ended']")" "$(json "$run.json" "$det['replies_by_frame']")"
	expect_eq "$mode: none by the hold" 0 "$(json "$run.json" "$det['replies_by_hold']")"
	expect_eq "$mode: no untyped op" "[]" \
		"$(json "$run.json" "sorted(k for k in d['ops']['by_type'] if not (k.startswith('kXR_') or k == 'handshake'))")"
	if [ "$mode" = read ]; then
		expect_eq "read -b 4M: a kXR_oksofar chunk per read" "$made" \
			"$(json "$run.json" "$det['partial_responses']")"
	fi
	if [ "$mode" = write ]; then
		expect_calc "write -b 64K: requests span several reads" \
			"$(json "$run.json" "$det['net_reads']") > 2 * $made"
	fi
done
finish
