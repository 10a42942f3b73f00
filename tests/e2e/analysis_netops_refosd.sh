# Two methods agreeing: refosd annotates its ops, and, run with
# CORECAP_NET_EVENTS=on, its ops can also be detected from its socket I/O
# (corecap report --ops detected). On the same trace, at -t 1 and -t 16,
# the detected ops must match the annotated ones: count within 1%, mean
# latency within 10%; and the detected ops' categories must sum to their
# latency. Then 4 MiB reads (refbench seq): the replies' ops, held back
# until the connection's next request (model/net_ops.h), still match the
# annotated ones (refosd's blocking sockets take each reply in one writev;
# xrootd's several writes per reply are e2e.xrootd_op_views'). Detected
# ops read piped or not give the same report (CORECAP_TRACE_PIPE).
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
need_sessiond
need_refosd

CORECAP_NET_EVENTS=on start_refosd n1
# mean latency (us) and count over every type of a report's ops.
ops_mean() { json "$1" "sum(t['count'] * t['latency_us']['avg'] for t in d['ops']['by_type'].values()) / max(1, sum(t['count'] for t in d['ops']['by_type'].values()))"; }
# compare_methods WHAT RUN: RUN's annotated and detected ops agree (count
# within 1%, mean latency within 10%, the detected ops conserved); sets NA.
compare_methods() {
	local what=$1 run=$2 rc=0 nd ma md
	"$CORECAP" report --json --ops annotated "$run" >"$run.a.json"
	"$CORECAP" report --json --ops detected --check-conservation "$run" >"$run.d.json" 2>"$run.d.err" || rc=$?
	expect_eq "$what: the detected ops' categories sum to their latency (--check-conservation)" 0 "$rc"
	NA=$(json "$run.a.json" "d['ops']['count']")
	nd=$(json "$run.d.json" "d['ops']['count']")
	ma=$(ops_mean "$run.a.json")
	md=$(ops_mean "$run.d.json")
	echo "$what: annotated $NA ops, mean $ma us; detected $nd ops, mean $md us"
	json "$run.d.json" "d['ops']['detection']"
	expect_eq "$what: detected ops are labelled so" detected "$(json "$run.d.json" "d['ops']['source']")"
	expect_calc "$what: detected count within 1% of annotated" "$nd >= 0.99 * $NA && $nd <= 1.01 * $NA"
	expect_calc "$what: detected mean latency within 10% of annotated" "$md >= 0.9 * $ma && $md <= 1.1 * $ma"
}
for t in 1 16; do
	run="$WORK/t$t"
	record_refbench "$run" -t "$t" -b 1 -d 3 write
	compare_methods "-t $t" "$run"
	expect_calc "-t $t: some ops" "$NA > 100"
	expect_same_piped "-t $t, ops detected" "$run" --ops detected
done
# Large replies: refbench write leaves the objects, seq reads them back.
"$REFBENCH" -p "$OSD_PORT" --no-progress -t 1 -b 4194304 -d 1 write >"$WORK/fill.out" 2>&1 ||
	{ echo "FAIL: refbench write -b 4M failed:"; cat "$WORK/fill.out"; exit 1; }
run="$WORK/big"
record_refbench "$run" -t 1 -b 4194304 -d 2 seq
compare_methods "-b 4M seq" "$run"
expect_calc "-b 4M seq: some ops" "$NA > 10"
expect_eq "-b 4M seq: no write outside an op" 0 "$(json "$run.d.json" "d['ops']['detection']['writes_without_op']")"
# Without CORECAP_NET_EVENTS the default report keeps refosd's annotations.
expect_eq "--ops auto uses the annotations" annotated "$(json "$WORK/t1.json" "d['ops']['source']")"
stop_refosd
finish
