#!/usr/bin/env bash
# Bad input to `corecap report`: a missing, truncated or corrupt trace, a
# manifest of an unknown version or with an empty window, bad usage. Each
# is a clear error naming the file, and exit 1 (2 for usage).
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"

# copy_run NAME: a writable copy of the golden run.
copy_run() {
	rm -rf "${WORK:?}/$1"
	cp -r "$DATA/golden-run" "$WORK/$1"
	chmod -R u+w "$WORK/$1"
	echo "$WORK/$1"
}

expect_fail_naming "missing run directory" "cannot open run directory '$WORK/nope'" \
	"$CORECAP" report "$WORK/nope"
# The cause is the file's, not a stale errno ("Inappropriate ioctl for device").
echo "not a run" >"$WORK/afile"
expect_fail_naming "run directory that is a file" \
	"cannot open run directory '$WORK/afile': Not a directory" "$CORECAP" report "$WORK/afile"

run=$(copy_run notrace)
rm -rf "$run/trace"
expect_fail_naming "run without trace/" "cannot open trace '$run/trace': No such file or directory" \
	"$CORECAP" report "$run"

run=$(copy_run nometa)
find "$run/trace" -name metadata -delete
expect_fail_naming "trace without metadata" "no CTF trace under '$run/trace'" \
	"$CORECAP" report "$run"

run=$(copy_run truncated)
stream=$(find "$run/trace" -name 'corecap_*' -type f -size +4k | head -n 1)
truncate -s 5000 "$stream"
expect_fail_naming "truncated stream file" "cannot read trace '$run/trace'" \
	"$CORECAP" report "$run"

run=$(copy_run corrupt)
meta=$(find "$run/trace" -name metadata)
printf 'this is not CTF metadata' | dd of="$meta" bs=1 seek=100 conv=notrunc status=none
expect_fail_naming "corrupt metadata" "$(dirname "$meta")" "$CORECAP" report "$run"

run=$(copy_run version5)
sed -i 's/"version": 1,/"version": 5,/' "$run/manifest.json"
expect_fail_naming "manifest of version 5 (from the future)" \
	"'$run/manifest.json': unsupported run format version 5" "$CORECAP" report "$run"
# Version 4 is a run of several hosts: report reads its hosts[] (none
# here), the other commands take one host's run.
run=$(copy_run version4)
sed -i 's/"version": 1,/"version": 4,/' "$run/manifest.json"
expect_fail_naming "manifest of version 4 (several hosts) without hosts" \
	"'$run/manifest.json': a run of several hosts without 'hosts'" "$CORECAP" report "$run"
expect_fail_naming "html of a run of several hosts without hosts" \
	"'$run/manifest.json': a run of several hosts without 'hosts'" "$CORECAP" html -o "$WORK/v4.html" "$run"

run=$(copy_run emptywin)
python3 - "$run/manifest.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["window"]["end_ns"] = d["window"]["start_ns"]
json.dump(d, open(sys.argv[1], "w"))
PY
expect_fail_naming "empty window" "'$run/manifest.json': empty measurement window" \
	"$CORECAP" report "$run"

run=$(copy_run notjson)
echo '{"version": 1, "window": {' >"$run/manifest.json"
expect_fail_naming "manifest that is not JSON" "'$run/manifest.json': cannot parse" \
	"$CORECAP" report "$run"

run=$(copy_run badthreads)
printf 'time_ns\ttid\n1\t2\n' >"$run/threads.tsv"
expect_fail_naming "threads.tsv without its columns" "'$run/threads.tsv' line 1" \
	"$CORECAP" report "$run"

# A run without a manifest is partial: reported, with the window from the trace.
run=$(copy_run nomanifest)
rm "$run/manifest.json"
status=0
"$CORECAP" report --json "$run" >"$WORK/partial.json" 2>"$WORK/err" || status=$?
expect_eq "run without manifest: exit status" 0 "$status"
expect_eq "run without manifest: partial" True "$(json "$WORK/partial.json" "d['quality']['partial']")"
expect_eq "run without manifest: window from" trace "$(json "$WORK/partial.json" "d['window']['source']")"

# A run recorded with --no-trace says so in its manifest: reported, without ops.
run=$(copy_run recorded_notrace)
rm -rf "$run/trace"
python3 - "$run/manifest.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["sources"]["trace"] = False
json.dump(d, open(sys.argv[1], "w"))
PY
status=0
"$CORECAP" report --json "$run" >"$WORK/notrace.json" 2>"$WORK/err" || status=$?
expect_eq "run recorded without a trace: exit status" 0 "$status"
expect_eq "run recorded without a trace: ops not measured (null, not 0)" None \
	"$(json "$WORK/notrace.json" "d['ops']['count']")"
expect_eq "run recorded without a trace: says so" True \
	"$(json "$WORK/notrace.json" "'trace' in d['quality']['missing_sources']")"
expect_calc "run recorded without a trace: threads still there" \
	"$(json "$WORK/notrace.json" "len([t for t in d['threads'] if t['cpu_util'] is not None])") > 0"

status=0
"$CORECAP" report >/dev/null 2>&1 || status=$?
expect_eq "no run directory: usage exit status" 2 "$status"
status=0
"$CORECAP" report --no-such-option "$DATA/golden-run" >/dev/null 2>&1 || status=$?
expect_eq "unknown option: usage exit status" 2 "$status"
status=0
"$CORECAP" report --top 0 "$DATA/golden-run" >/dev/null 2>"$WORK/err" || status=$?
expect_eq "--top 0: usage exit status" 2 "$status"
finish
