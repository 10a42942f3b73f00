#!/usr/bin/env bash
# Regenerates the golden run under tests/data/analysis (not a test):
# corecap_tracegen's paced ops recorded by `corecap record` for one
# second, the tracegen binary saved under golden-symfs/ so that symbols
# resolve post-mortem anywhere, and the expected report outputs.
#   CORECAP_SRC=. CORECAP_BUILD=build bash tests/e2e/analysis_golden_record.sh
# Review the diff of the .expect files before committing them.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
need_sessiond

run="$DATA/golden-run"
symfs="$DATA/golden-symfs"
rm -rf "$run" "$symfs"
"$TRACEGEN" -t 2 -n 100 --cpu-us 300 --lock-us 2000 --queue-us 20000 --io-us 1000 \
	--cond-us 1000 >/dev/null &
gen=$!
track "$gen"
sleep 0.3
"$CORECAP" record -q -p "$gen" -o "$run" -d 1
wait "$gen"
chmod -R u+rwX,go+rX "$run"
exe=$(readlink -f "$TRACEGEN")
mkdir -p "$symfs$(dirname "$exe")"
# Symbols are all a report needs: no DWARF (the build-id note stays).
objcopy --strip-debug "$exe" "$symfs$exe"
cd "$DATA"
"$CORECAP" report --json --symfs golden-symfs golden-run >golden-run.expect.json
"$CORECAP" report --symfs golden-symfs golden-run >golden-run.expect.txt
du -sh golden-run golden-symfs
