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
# Each host's clock refined from its ops' send/receive pairs
# (model/clock_pairs.h): the pairs' own interval holds the namespace's
# true offset, its middle and the refined offset within 50 us of it, its
# bound no wider than the ping's (plus 20 us: the drift's share), no
# contradiction; when the split uses it, the split's bound is its.
for h in b:37500000000 c:-12250000000; do
	name=${h%%:*} true_ns=${h#*:}
	hr() { json whole.json "[x for x in d['hosts'] if x['name'] == '$name'][0]['clock']$1"; }
	ping_bound=$(json whole.json "max(c['bound_ns'] for h in d['hosts'] if h['name'] == '$name' for c in (h['clock']['start'], h['clock']['end']) if c)")
	echo "host $name: ping $(hr "['start']['offset_ns']") +- $ping_bound ns; refined $(hr "['refined']")"
	expect_eq "host $name: its pairs agree with the ping" False "$(hr "['refined']['contradiction']")"
	lo=$(hr "['refined']['pairs_low_ns']") hi=$(hr "['refined']['pairs_high_ns']")
	expect_calc "host $name: the pairs' own interval [$lo, $hi] holds the true offset" \
		"$lo <= $true_ns && $true_ns <= $hi"
	expect_calc "host $name: the pairs' own middle within 50 us of the true offset" \
		"($lo + $hi) / 2 - $true_ns <= 50000 && $true_ns - ($lo + $hi) / 2 <= 50000"
	off=$(hr "['refined']['offset_ns']") rb=$(hr "['refined']['bound_ns']")
	expect_calc "host $name: the refined offset within 50 us of the true one ($off vs $true_ns)" \
		"$off - $true_ns <= 50000 && $true_ns - $off <= 50000"
	expect_calc "host $name: the refined bound ($rb ns) no wider than the ping's ($ping_bound) + 20 us" \
		"$rb <= $ping_bound + 20000"
	if [ "$(hr "['refined']['used_by_split']")" = True ]; then
		sb=$(json whole.json "[x for x in d['client_split']['hosts'] if x['host'] == '$name'][0]['bound_ns']")
		expect_calc "host $name: the split's bound is the refined one's ($sb <= $(hr "['refined']['bound_max_ns']"))" \
			"$sb <= $(hr "['refined']['bound_max_ns']")"
	fi
done
expect_true "text: the hosts' lines give the refined clock" grep -q "clock from [0-9]* op pairs" whole.txt
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
