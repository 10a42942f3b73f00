#!/usr/bin/env bash
# A bare, unmodified ceph-osd (scripts/ceph-minicluster without a wrapper:
# no shim, no LTTng events), recorded with kernel events under rados bench.
# record, report and html exit 0; the pools tp_osd_tp and msgr-worker have
# kernel states (run-queue and futex-wait shares) that sum to 1; the lock
# table comes from futex events, and its top mutex sites carry Ceph's
# symbols (PG::lock, MemStore, ...), not addresses.
set -uo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
. "$CORECAP_SRC/tests/e2e/ceph_lib.sh"
ceph_need_tools
ceph_work kernel-report-ceph
. "$CORECAP_SRC/tests/e2e/kernel_analysis_lib.sh"

base=$(ceph_free_base 52289) || skip "no free port range found for the cluster"
ceph_start osd "$base"
pid=$(cat "$work/osd/osd.0.pid")
need_kernel_record "$pid"
run="$work/run"
ceph_record_kernel_bench "$run" "$pid" 16
for cmd in "report" "report --json" "html -o $run.html"; do
	rc=0
	# shellcheck disable=SC2086
	"$CORECAP" $cmd "$run" >"$run.cmd.out" 2>"$run.cmd.err" || rc=$?
	expect_eq "corecap $cmd: exit status" 0 "$rc"
	[ "$rc" -eq 0 ] || cat "$run.cmd.err"
	case $cmd in
	report) cp "$run.cmd.out" "$run.txt" ;;
	"report --json") cp "$run.cmd.out" "$run.json" ;;
	esac
done
j="$run.json"
echo "$(json "$j" "d['benchmark']['summary']['iops_avg']") IOPS; kernel records: $(json "$j" "d['quality']['kernel']")"
for pool in tp_osd_tp msgr-worker; do
	ks="[p for p in d['pools'] if p['name'] == '$pool'][0]['kernel_states']"
	echo "$pool: $(json "$j" "$ks")"
	expect_calc "$pool: kernel states sum to 1" \
		"$(json "$j" "abs(sum($ks.values()) - 1)") < 0.002"
	expect_calc "$pool: it ran and waited for a CPU" \
		"$(json "$j" "${ks}['running']") > 0 && $(json "$j" "${ks}['runnable']") > 0"
done
expect_calc "tp_osd_tp waits on futexes (its queue's condition, its locks)" \
	"$(json "$j" "[p for p in d['pools'] if p['name'] == 'tp_osd_tp'][0]['kernel_states']['futex']") > 0.05"
expect_conservation "$j"
expect_eq "every lock row comes from futex events" "[]" \
	"$(json "$j" "[l['name'] for l in d['locks'] if l['source'] != 'futex']")"
top="sorted([l for l in d['locks'] if l['kind'] == 'futex_wait'], key=lambda l: -l['wait_ns'])[:5]"
json "$j" "'\n'.join('  %s: %d waits, %.1f ms' % (l['name'], l['contentions'], l['wait_ns'] / 1e6) for l in $top)"
expect_calc "the top mutex sites carry Ceph's symbols (PG::, MemStore, OSD, ceph::, Messenger...)" \
	"$(json "$j" "len([l for l in $top if l['symbol'] and any(s in l['symbol'] for s in ('PG::', 'MemStore', 'OSD', 'ceph::', 'Message', 'Objecter', 'Protocol', 'AsyncConnection', 'Finisher'))])") >= 3"
expect_true "the text shows the futex table" grep -q 'source: futex' "$run.txt"
finish
