#!/usr/bin/env bash
# compare's configuration differences name the object store (#47 item 1),
# which no other test reached (it needs two Ceph runs on two stores): the
# committed golden run, copied twice, given a Ceph perf dump pair
# (RUN/ceph/perf-begin.json and perf-end.json) of a BlueStore OSD in A and
# of a FileStore OSD in B. compare prints "objectstore: A bluestore, B
# filestore" in text and JSON; a pair on one store prints no such row.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"

for r in a b c; do
	cp -r "$DATA/golden-run" "$WORK/$r"
done
python3 - "$WORK" <<'PY'
import json, os, sys
w = sys.argv[1]
stores = {
    "a": ("bluestore", "kv_sync_lat", {"avgcount": 10, "sum": 0.01}, {"avgcount": 110, "sum": 0.21}),
    "b": ("filestore", "journal_wr", 10, 110),
    "c": ("bluestore", "kv_sync_lat", {"avgcount": 20, "sum": 0.02}, {"avgcount": 220, "sum": 0.42}),
}
for run, (store, key, v0, v1) in stores.items():
    os.makedirs(f"{w}/{run}/ceph")
    for name, v, ops in (("perf-begin.json", v0, 100), ("perf-end.json", v1, 200)):
        with open(f"{w}/{run}/ceph/{name}", "w") as f:
            json.dump({"osd": {"op_w": ops}, store: {key: v}}, f)
PY
"$CORECAP" compare "$WORK/a" "$WORK/b" >"$WORK/ab.txt" 2>"$WORK/ab.err" ||
	{ echo "FAIL: compare a b"; cat "$WORK/ab.err"; exit 1; }
"$CORECAP" compare --json "$WORK/a" "$WORK/b" >"$WORK/ab.json" 2>/dev/null
expect_true "text: the object stores" grep -qxF 'config:   objectstore: A bluestore, B filestore' "$WORK/ab.txt"
expect_eq "JSON: the same" "bluestore|filestore" \
	"$(json "$WORK/ab.json" "'|'.join(c['a'] + '|' + c['b'] for c in d['config'] if c['what'] == 'objectstore')")"
"$CORECAP" compare "$WORK/a" "$WORK/c" >"$WORK/ac.txt" 2>/dev/null
"$CORECAP" compare --json "$WORK/a" "$WORK/c" >"$WORK/ac.json" 2>/dev/null
expect_eq "one store on both sides: no objectstore row (text)" 0 "$(grep -c 'objectstore' "$WORK/ac.txt" || true)"
expect_eq "... nor in JSON" 0 "$(json "$WORK/ac.json" "sum(1 for c in d['config'] if c['what'] == 'objectstore')")"
finish
