#!/usr/bin/env bash
# `corecap compare` on two recordings of one bare ceph-osd (memstore
# mini cluster), debug_osd 1/5 (A) then 20/20 (B), set through its admin
# socket between the two (2 s of rados bench 4 KiB writes at -t 1 each,
# recorded with kernel events):
# - the configuration: Ceph's changed values, from each run's
#   RUN/ceph/config.json (the admin socket's `config show` that record
#   saves), name debug_osd with both values, and no key whose values are
#   the same; the daemons' command lines are the same;
# - one headline, the OpTracker ops' critical path's (a bare ceph-osd has
#   no traced ops), saying the latency per op grew, most of it logging;
#   text and JSON carry the same configuration. Ceph formats log entries
#   in the thread that logs: the default record's on-CPU stacks split that
#   off the path's cpu (docs/methodology.md, "Logging in the caller";
#   without them one CI run said "cpu +149.6" and no logging; with them
#   "logging +196.9, runqueue +44.7, cpu +21.3" of +262.4).
# Known answer, not a throughput measurement (about 40 s with the cluster).
set -uo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
. "$CORECAP_SRC/tests/e2e/ceph_lib.sh"
ceph_need_tools
need_sessiond
ceph_work compare-ceph

base=$(ceph_free_base 48389) || skip "no free port range found for the cluster"
ceph_start osd "$base"
pid=$(cat "$work/osd/osd.0.pid")
asok="$work/osd/run/ceph-osd.0.asok"

record_at() { # NAME DEBUG_OSD
	local rc=0
	ceph --admin-daemon "$asok" config set debug_osd "$2" >/dev/null ||
		{ echo "FAIL: config set debug_osd $2"; finish; exit 1; }
	(
		eval "$("$mc" env "$work/osd")"
		"$CORECAP" record -q --kernel -p "$pid" -o "$work/$1" -- \
			rados -p bench bench 2 write -b 4096 -t 1 --no-cleanup
	) >"$work/$1.out" 2>"$work/$1.err" || rc=$?
	expect_eq "record $1 exits" 0 "$rc"
	[ "$rc" -eq 0 ] || { tail -n 5 "$work/$1.err"; finish; exit 1; }
}
need_kernel() { # the critical path needs kernel events: without them, say so
	local status=0
	"$CORECAP" record -q --kernel --no-trace -p "$pid" -o "$work/probe" -d 0.2 \
		>"$work/probe.out" 2>&1 || status=$?
	rm -rf "$work/probe"
	[ "$status" = 0 ] || skip "no kernel events here: $(grep -m1 'corecap' "$work/probe.out")"
}
need_kernel
record_at a 1/5
record_at b 20/20
for r in a b; do
	expect_true "run $r: RUN/ceph/config.json saved" test -s "$work/$r/ceph/config.json"
done
"$CORECAP" compare "$work/a" "$work/b" >"$work/ab.txt" 2>"$work/ab.err" ||
	{ cat "$work/ab.err"; expect_true "compare exits 0" false; finish; exit 1; }
"$CORECAP" compare --json "$work/a" "$work/b" >"$work/ab.json" 2>/dev/null
grep -E '^(headline|config):' "$work/ab.txt"

expect_eq "one headline line" 1 "$(grep -c '^headline: ' "$work/ab.txt")"
head_j=$(json "$work/ab.json" "d['headline']")
expect_eq "JSON: the split is the critical path's (the OpTracker ops')" "critical path" \
	"$(json "$work/ab.json" "d['split']")"
expect_true "headline: the latency per op grew on the critical path, logging first ($head_j)" \
	grep -qE 'latency \+[0-9.]+ us/op on the critical path, of which logging \+[0-9.]+' <<<"$head_j"
expect_eq "text and JSON: the same headline" "headline: $head_j" "$(grep '^headline: ' "$work/ab.txt")"
expect_true "text: debug_osd's values" grep -qxF 'config:   ceph debug_osd: A 1/5, B 20/20' "$work/ab.txt"
expect_eq "JSON: the same" "1/5|20/20" \
	"$(json "$work/ab.json" "[c['a'] + '|' + c['b'] for c in d['config'] if c['what'] == 'ceph debug_osd'][0]")"
expect_eq "no key listed whose values are the same" "[]" \
	"$(json "$work/ab.json" "[c['what'] for c in d['config'] if c['a'] == c['b']]")"
expect_eq "text and JSON: the same configuration lines" \
	"$(json "$work/ab.json" "len(d['config'])")" "$(grep -c '^config:   [a-z].*: A ' "$work/ab.txt")"
expect_true "the daemons' command lines are the same" \
	grep -qE '^config:   the same in both: daemon command line' "$work/ab.txt"
finish
