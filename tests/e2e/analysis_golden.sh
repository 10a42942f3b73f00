#!/usr/bin/env bash
# `corecap report` on the committed golden run (tests/data/analysis,
# recorded by analysis_golden_record.sh) prints exactly the committed
# JSON and text: the reader, the model and both renderings, post-mortem
# (symbols from golden-symfs), byte for byte.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"

cd "$DATA"
for fmt in json txt; do
	opts=(--symfs golden-symfs)
	[ "$fmt" = json ] && opts+=(--json)
	status=0
	"$CORECAP" report "${opts[@]}" golden-run >"$WORK/out.$fmt" || status=$?
	expect_eq "report ($fmt) exit status" 0 "$status"
	_checks=$((_checks + 1))
	if diff -u "golden-run.expect.$fmt" "$WORK/out.$fmt" >"$WORK/diff.$fmt"; then
		echo "ok: $fmt output matches golden-run.expect.$fmt"
	else
		echo "FAIL: $fmt output differs from golden-run.expect.$fmt:"
		head -60 "$WORK/diff.$fmt"
		_failures=$((_failures + 1))
	fi
done
# The golden run is small and stays so.
expect_calc "golden run size (KiB)" "$(du -sk golden-run | cut -f1) < 200"
expect_eq "JSON ceiling kind" none "$(json "$WORK/out.json" "d['ceiling']['kind']")"
expect_eq "every op conserved" 0 "$(json "$WORK/out.json" "d['ops']['conservation']['violations']")"
# The hypervisor's steal (manifest machine.steal_cpu_s): a fifth of the
# window's CPU time gets a warning that names it; the golden run's own
# manifest has none, and no warning.
cp -r golden-run "$WORK/stolen"
python3 - "$WORK/stolen/manifest.json" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d.setdefault("machine", {})["steal_cpu_s"] = 0.2 * d["window"]["duration_s"] * d["nproc"]
json.dump(d, open(p, "w"))
PY
"$CORECAP" report --symfs golden-symfs --json "$WORK/stolen" >"$WORK/stolen.json"
expect_eq "a fifth of the CPU stolen: the report warns" 1 \
	"$(json "$WORK/stolen.json" "sum('the hypervisor took 20.0% of the machine' in w for w in d['quality']['warnings'])")"
expect_eq "the golden run: no steal warning" 0 \
	"$(json "$WORK/out.json" "sum('hypervisor' in w for w in d['quality']['warnings'])")"
# Thread names: without threads.tsv each thread is named by its events'
# procname; with it, the sampled comm wins over the procname (the report
# reads the procname only while a thread has no better name).
names="sorted((t['tid'], t['name'], t['pool']) for t in d['threads'] if t['tid'] in (17467, 17468))"
cp -r golden-run "$WORK/nothreads"
rm "$WORK/nothreads/threads.tsv"
"$CORECAP" report --symfs golden-symfs --json "$WORK/nothreads" >"$WORK/nothreads.json"
expect_eq "no threads.tsv: named by the procname" \
	"[(17467, 'tg-worker-0', 'tg-worker'), (17468, 'tg-worker-1', 'tg-worker')]" \
	"$(json "$WORK/nothreads.json" "$names")"
cp -r golden-run "$WORK/sampled"
sed -i 's/\ttg-worker-0\t/\tsampled-w0\t/' "$WORK/sampled/threads.tsv"
"$CORECAP" report --symfs golden-symfs --json "$WORK/sampled" >"$WORK/sampled.json"
expect_eq "threads.tsv's comm names a thread before the procname" \
	"[(17467, 'sampled-w0', 'sampled-w'), (17468, 'tg-worker-1', 'tg-worker')]" \
	"$(json "$WORK/sampled.json" "$names")"
finish
