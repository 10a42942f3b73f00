#!/usr/bin/env bash
# Each op's client latency split (issue 46 item 3): refbench in host A
# (offset 0) writes to refosd under `corecap run` in B (+37.5 s) and C
# (-12.25 s), one `corecap record --hosts`. refbench sends each op's id
# (PROTO_FLAG_OP_ID), refosd records it (corecap_op:client), refbench
# appends its ops' times to RUN/client-ops.tsv (CORECAP_CLIENT_OPS, set by
# the record). `corecap report RUN` matches the two by id: most ops
# matched; per op the parts sum to the client's latency, and within the
# clock's bound no op's client latency is under its daemon's, no network
# part is negative, the network back agrees with the aligned reply. Then
# the same against the client log itself: the matched ops' client
# latencies are those refbench recorded. (~20 s)
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
. "$CORECAP_SRC/tests/e2e/hosts_lib.sh"
need_refosd
need_sessiond
e2e_cleanup_hook() { hosts_teardown; }
hosts_abc
cd "$WORK"

hosts_bc_refosd
cat >hosts.txt <<HOSTS
b b pid=$b_pid
c c pid=$c_pid
HOSTS
bench="$CORECAP_SRC/tests/e2e/hosts_rsh $HOSTS_DIR a sh -c"
rc=0
"$CORECAP" record --hosts hosts.txt --rsh "$HOSTS_RSH" --corecap-path "$CORECAP" -o run \
	-- $bench \
	"$REFBENCH -H $b_addr -p $b_port --no-progress -t 2 -b 1 -d 2 write & $REFBENCH -H $c_addr -p $c_port --no-progress -t 2 -b 1 -d 2 write; wait" \
	>record.out 2>record.err || rc=$?
cat record.err
expect_eq "record --hosts exit status" 0 "$rc"
expect_eq "both refbench ran" 2 "$(grep -c '^Average IOPS' run/bench.out || true)"
expect_true "the benchmark's ops are in RUN/client-ops.tsv" test -s run/client-ops.tsv
n_client=$(grep -vc '^#' run/client-ops.tsv || true)
n_bench=$(awk '/^Total writes made:/ {s += $4} END {print s}' run/bench.out)
echo "client-ops.tsv: $n_client ops; refbench made $n_bench"
expect_eq "one line per op refbench made" "$n_bench" "$n_client"

"$CORECAP" report run >whole.txt 2>whole.err || { echo "FAIL: corecap report run:"; cat whole.err; exit 1; }
"$CORECAP" report --json run >whole.json 2>whole.json.err ||
	{ echo "FAIL: corecap report --json run:"; cat whole.json.err; exit 1; }
sed -n '/^CLIENTS/,/^$/p' whole.txt
cs() { json whole.json "d['client_split']$1"; }
expect_eq "JSON: client_split holds the file's ops" "$n_client" "$(cs "['client_ops']")"
matched=$(cs "['matched']")
expect_calc "most ops matched by id ($matched of $n_client)" "$matched >= 0.95 * $n_client"
for h in b c; do
	hs() { json whole.json "[x for x in d['client_split']['hosts'] if x['host'] == '$h'][0]$1"; }
	ops=$(hs "['ops']") bound=$(hs "['bound_ns']")
	echo "host $h: $ops ops split; bound $bound ns; medians $(hs "['median_us']")"
	expect_calc "host $h: its ops split ($ops)" "$ops > 50"
	# Only refbench's metadata write after the run is not in the client's log.
	expect_calc "host $h: at most one of its client-named ops unmatched" "$(hs "['unmatched']") <= 1"
	expect_eq "host $h: every op's reply marked (corecap_op:reply)" "$ops" "$(hs "['replies_seen']")"
	expect_calc "host $h: the bound is a clock's (under 200 us: $bound ns)" "$bound > 0 && $bound < 200000"
	for v in client_below_daemon network_out_negative network_back_negative drift_over_bound; do
		expect_eq "host $h: no op's $v beyond the bound" 0 "$(hs "['beyond_bound']['$v']")"
	done
	expect_eq "host $h: the parts sum to the client's latency exactly, per op" 0 "$(hs "['max_sum_err_ns']")"
	d=$(calc "$(hs "['mean_us']['client_own']") + $(hs "['mean_us']['network_out']") + $(hs "['mean_us']['daemon']") + $(hs "['mean_us']['network_back']") - $(hs "['mean_us']['client']")")
	expect_calc "host $h: the means sum to the client's mean (rounding: $d us)" "$d < 0.01 && $d > -0.01"
	expect_calc "host $h: the daemon's median under the client's" \
		"$(hs "['median_us']['daemon']") <= $(hs "['median_us']['client']")"
	expect_true "text: host $h has its median and mean rows" \
		grep -qE "^  $h +median +$ops " whole.txt
done
# The client's side is refbench's own: the matched ops' mean client
# latency is the log's (the log's ops over both hosts, the split's
# weighted by its ops), within 2% (the few unmatched ones aside).
log_mean=$(awk '!/^#/ {s += $5 - $3; n++} END {printf "%.3f", s / n / 1e3}' run/client-ops.tsv)
split_mean=$(json whole.json "sum(x['ops'] * x['mean_us']['client'] for x in d['client_split']['hosts'] if x.get('ops')) / sum(x['ops'] for x in d['client_split']['hosts'] if x.get('ops'))")
echo "mean client latency: the log's $log_mean us, the split's $split_mean us"
expect_calc "the split's client latency is the log's" \
	"$split_mean - $log_mean <= 0.02 * $log_mean && $log_mean - $split_mean <= 0.02 * $log_mean"
# The page's system part is the text's (CLIENTS with it).
"$CORECAP" html -o whole.html run 2>whole.html.err || { echo "FAIL: corecap html run:"; cat whole.html.err; exit 1; }
expect_true "html: the CLIENTS part is on the page" grep -q "^CLIENTS " whole.html
finish
