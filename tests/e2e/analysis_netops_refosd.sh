# Two methods agreeing: refosd annotates its ops, and, run with
# CORECAP_NET_EVENTS=on, its ops can also be detected from its socket I/O
# (corecap report --ops detected). On the same trace, at -t 1 and -t 16,
# the detected ops must match the annotated ones: count within 1%, mean
# latency within 10%; and the detected ops' categories must sum to their
# latency.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
need_sessiond
need_refosd

CORECAP_NET_EVENTS=on start_refosd n1
# mean latency (us) and count over every type of a report's ops.
ops_mean() { json "$1" "sum(t['count'] * t['latency_us']['avg'] for t in d['ops']['by_type'].values()) / max(1, sum(t['count'] for t in d['ops']['by_type'].values()))"; }
for t in 1 16; do
	run="$WORK/t$t"
	record_refbench "$run" -t "$t" -b 1 -d 3 write
	"$CORECAP" report --json --ops annotated "$run" >"$run.a.json"
	rc=0
	"$CORECAP" report --json --ops detected --check-conservation "$run" >"$run.d.json" 2>"$run.d.err" || rc=$?
	expect_eq "-t $t: the detected ops' categories sum to their latency (--check-conservation)" 0 "$rc"
	na=$(json "$run.a.json" "d['ops']['count']")
	nd=$(json "$run.d.json" "d['ops']['count']")
	ma=$(ops_mean "$run.a.json")
	md=$(ops_mean "$run.d.json")
	echo "-t $t: annotated $na ops, mean $ma us; detected $nd ops, mean $md us"
	json "$run.d.json" "d['ops']['detection']"
	expect_eq "-t $t: detected ops are labelled so" detected "$(json "$run.d.json" "d['ops']['source']")"
	expect_calc "-t $t: some ops" "$na > 100"
	expect_calc "-t $t: detected count within 1% of annotated" "$nd >= 0.99 * $na && $nd <= 1.01 * $na"
	expect_calc "-t $t: detected mean latency within 10% of annotated" "$md >= 0.9 * $ma && $md <= 1.1 * $ma"
done
# Without CORECAP_NET_EVENTS the default report keeps refosd's annotations.
expect_eq "--ops auto uses the annotations" annotated "$(json "$WORK/t1.json" "d['ops']['source']")"
stop_refosd
finish
