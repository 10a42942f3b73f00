#!/usr/bin/env bash
# compare's Ceph phases (OpTracker) on the committed golden run with the
# committed dump_historic_ops fixture (tests/data/ceph) as its ceph/: in B
# every op's events from reached_pg on are 1 ms later, so the phase
# queued_for_pg grows by 1000 us per op and the arrival-to-reply mean by
# as much, while every other phase stays; against a copy without ceph/,
# a warning says only one run has the OpTracker's history and no ceph
# section is compared.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"

for r in a b c; do
	cp -r "$DATA/golden-run" "$WORK/$r"
done
mkdir "$WORK/a/ceph" "$WORK/b/ceph"
cp "$CORECAP_SRC/tests/data/ceph/dump_historic_ops.json" "$WORK/a/ceph/historic_ops.json"
python3 - "$WORK/a/ceph/historic_ops.json" "$WORK/b/ceph/historic_ops.json" <<'PY'
import datetime, json, sys
d = json.load(open(sys.argv[1]))
fmt = "%Y-%m-%dT%H:%M:%S.%f"
for op in d["ops"]:
    late = False
    for e in op["type_data"]["events"]:
        late = late or e["event"] == "reached_pg"
        if late:
            t = datetime.datetime.strptime(e["time"][:26], fmt) + datetime.timedelta(milliseconds=1)
            e["time"] = t.strftime(fmt) + e["time"][26:]
json.dump(d, open(sys.argv[2], "w"))
PY
cmp_json() { "$CORECAP" compare --json --symfs "$DATA/golden-symfs" "$@"; }
cmp_json "$WORK/a" "$WORK/b" >"$WORK/ab.json"
fig() { json "$WORK/ab.json" "d['figures']['ceph op write']$1"; }
expect_eq "both runs' OpTracker ops are compared" "3 3" "$(json "$WORK/ab.json" "'%d %d' % (d['figures']['ceph op write']['count']['a'], d['figures']['ceph op write']['count']['b'])")"
expect_calc "queued_for_pg grows by 1000 us per op" \
	"($(fig "['phase_queued_for_pg_us']['delta']") - 1000)^2 < 0.01"
expect_calc "arrival to reply grows by 1000 us per op" "($(fig "['reply_avg_us']['delta']") - 1000)^2 < 0.01"
expect_eq "every other phase stays" "[]" \
	"$(json "$WORK/ab.json" "[k for k, v in d['figures']['ceph op write'].items() if k.startswith('phase_') and k != 'phase_queued_for_pg_us' and abs(v['delta']) > 0.01]")"
expect_eq "both have the OpTracker: no warning" "[]" "$(json "$WORK/ab.json" "d['warnings']")"
cmp_json "$WORK/a" "$WORK/c" >"$WORK/ac.json"
expect_true "only A has the OpTracker: a warning" \
	grep -q "only A has Ceph's OpTracker history" <<<"$(json "$WORK/ac.json" "'\n'.join(d['warnings'])")"
expect_eq "... and no ceph section" "[]" "$(json "$WORK/ac.json" "[k for k in d['figures'] if k.startswith('ceph op')]")"
finish
