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
# The diagnosis (docs/methodology.md, "The diagnosis"): nothing saturated,
# the missing sources named, and the same in text, JSON and HTML.
expect_eq "diagnosis kind" none "$(json "$WORK/out.json" "d['diagnosis']['kind']")"
expect_eq "diagnosis: no kernel events, said with what would provide them" 1 \
	"$(json "$WORK/out.json" "int(any('kernel events' in m and 'as root' in m for m in d['diagnosis']['missing_evidence']))")"
"$CORECAP" html --symfs golden-symfs -o "$WORK/out.html" golden-run >/dev/null
expect_true "the diagnosis agrees in text, JSON and HTML" \
	python3 "$CORECAP_SRC/tests/e2e/diagnosis_diag_agree.py" "$WORK/out.txt" "$WORK/out.json" "$WORK/out.html"
# A run without its thread CPU figures and without a manifest's benchmark:
# no headroom is guessed, and the missing sources are listed.
cp -r golden-run "$WORK/bare"
rm "$WORK/bare/threads.tsv"
"$CORECAP" report --symfs golden-symfs --json "$WORK/bare" >"$WORK/bare.json"
expect_eq "no threads.tsv: no headroom, the threads' CPU listed as missing" "None 1" \
	"$(json "$WORK/bare.json" "'%s %d' % (d['diagnosis']['headroom'], any('threads' in m for m in d['diagnosis']['missing_evidence']))")"
# An old run's manifest with a key this version does not know: read, not fatal.
cp -r golden-run "$WORK/future"
python3 - "$WORK/future/manifest.json" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["machine"] = dict(d.get("machine", {}), future_key={"x": 1})
d["collector"] = dict(d.get("collector", {}), cpu_user_s="not a number")
json.dump(d, open(p, "w"))
PY
status=0
"$CORECAP" report --symfs golden-symfs --json "$WORK/future" >"$WORK/future.json" 2>"$WORK/future.err" || status=$?
expect_eq "unknown manifest keys: the report still runs" 0 "$status"
expect_eq "... and the same diagnosis kind" none "$(json "$WORK/future.json" "d['diagnosis']['kind']")"
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
