# What annotated ops get, detected ops (xrootd marks none:
# analysis/model/net_ops.c) get too, on a real xrootd under xrdbench:
#  1. `corecap flame --kind op` folds the detected ops' categories (the
#     kXR_read stacks sum to its ops' latency), and `corecap export
#     --chrome` has them as op slices (an async begin and a typed end per
#     op, a slice on the thread that had it);
#  2. a reply in several writes is one reply: 4 MiB reads (xrootd writes
#     each such reply in two writev calls or more; 1 MiB in one) are one op
#     each, ended at the reply's last write: no write falls outside an op,
#     every reply had more than one write, and the detected ops match the
#     driver's reads (within 5%).
. "$CORECAP_SRC/tests/e2e/xrootd_lib.sh"
xrd_need_tools
need_sessiond
[ -x "$CORECAP" ] || { echo "FAIL: $CORECAP is not built"; exit 1; }

CORECAP_NET_EVENTS=on xrd_start s1 --wrapper "$CORECAP run --"
run="$WORK/r1"
"$CORECAP" record -q -p "$XRD_PID" -o "$run" -- \
	"$XRDBENCH" -p "$XRD_PORT" -t 1 -b 1 -d 2 read >"$run.record" 2>&1 ||
	{ echo "FAIL: corecap record failed:"; cat "$run.record"; finish; exit 1; }
"$CORECAP" report --json "$run" >"$run.json"
expect_eq "ops are detected" detected "$(json "$run.json" "d['ops']['source']")"
ty="d['ops']['by_type']['kXR_read']"

# 1. flame --kind op and export --chrome see the detected ops.
rc=0
"$CORECAP" flame --kind op -o "$run.folded" "$run" 2>"$run.flame.err" || rc=$?
expect_eq "flame --kind op exits 0" 0 "$rc"
[ "$rc" -eq 0 ] || cat "$run.flame.err"
folded_ns=$(awk '$1 ~ /^kXR_read;/ { s += $NF } END { print s + 0 }' "$run.folded")
want_ns=$(json "$run.json" "$ty['count'] * $ty['latency_us']['avg'] * 1000")
echo "flame --kind op: kXR_read stacks $folded_ns ns; its ops' latency $want_ns ns"
expect_calc "flame --kind op: kXR_read's stacks sum to its ops' latency (0.1%)" \
	"$folded_ns >= 0.999 * $want_ns && $folded_ns <= 1.001 * $want_ns"
rc=0
"$CORECAP" export --chrome -o "$run.chrome.json" "$run" 2>"$run.export.err" || rc=$?
expect_eq "export --chrome exits 0" 0 "$rc"
cat "$run.export.err"
ops=$(json "$run.json" "d['ops']['count']")
counts=$(python3 -c "
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
b = sum(1 for e in ev if e.get('cat') == 'op' and e.get('ph') == 'b')
e_ = [e for e in ev if e.get('cat') == 'op' and e.get('ph') == 'e']
reads = sum(1 for e in e_ if e.get('args', {}).get('type') == 'kXR_read')
sl = sum(1 for e in ev if e.get('cat') == 'op' and e.get('ph') == 'X')
print(b, len(e_), reads, sl)" "$run.chrome.json")
read -r nb ne nreads nslices <<<"$counts"
echo "export --chrome: $nb op begins, $ne op ends ($nreads kXR_read), $nslices op slices on threads; report: $ops ops"
expect_calc "export --chrome: an op begin per detected op (1%)" "$nb >= 0.99 * $ops && $nb <= 1.01 * $ops + 2"
expect_calc "export --chrome: an op end per detected op, typed (1%)" \
	"$ne >= 0.99 * $ops && $nreads >= 0.99 * $(json "$run.json" "$ty['count']")"
expect_calc "export --chrome: the ops' slices on their threads" "$nslices >= 0.99 * $ops"

# 2. 4 MiB reads: each reply is one op, ended at its last write.
run="$WORK/m1"
"$CORECAP" record -q -p "$XRD_PID" -o "$run" -- \
	"$XRDBENCH" -p "$XRD_PORT" -t 1 -b 4194304 -d 2 read >"$run.record" 2>&1 ||
	{ echo "FAIL: corecap record -b 4M failed:"; cat "$run.record"; finish; exit 1; }
"$CORECAP" report --json --check-conservation "$run" >"$run.json"
det="d['ops']['detection']"
echo "-b 4M: detection $(json "$run.json" "$det")"
reads=$(json "$run.json" "d['ops']['by_type'].get('kXR_read', {}).get('count', 0)")
made=$(awk -F: '/^Total reads made/ { gsub(/ /, "", $2); print $2 }' "$run/bench.out")
echo "-b 4M: $reads kXR_read ops detected; xrdbench made $made reads"
expect_calc "-b 4M: every reply in several writes (a write more per reply at least)" \
	"$(json "$run.json" "$det['reply_writes']") >= $reads && $reads > 10"
expect_eq "-b 4M: no write outside an op" 0 "$(json "$run.json" "$det['writes_without_op']")"
expect_calc "-b 4M: detected reads within 5% of the driver's" \
	"$reads >= 0.95 * $made && $reads <= 1.05 * $made"
finish
