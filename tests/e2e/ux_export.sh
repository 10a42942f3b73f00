#!/usr/bin/env bash
# export --chrome --gzip (issue #47): the gzip output (--gzip, or -o
# FILE.json.gz by its name) gunzips to the very bytes of the plain JSON, is
# written aside and renamed (a failed export leaves the old file), and
# refuses a terminal; the size warning appears before writing when the
# estimate crosses the bound (CORECAP_EXPORT_WARN_MB, in MB; 100 by
# default), with the expected size and how to cut it, and not below it.
# Needs the build and the committed golden run.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
CORECAP="${CORECAP_BUILD:?}/cli/corecap"
[ -x "$CORECAP" ] || { echo "FAIL: $CORECAP is not built"; exit 1; }
command -v gzip >/dev/null || skip "gzip is not installed"
e2e_workdir ux
RUN="$CORECAP_SRC/tests/data/analysis/golden-run"
cd "$WORK"

st=0
"$CORECAP" export --chrome -o plain.json "$RUN" 2>plain.err || st=$?
expect_eq "export --chrome: exit status" 0 "$st"
st=0
"$CORECAP" export --chrome --gzip -o flag.gz.out "$RUN" 2>flag.err || st=$?
expect_eq "export --chrome --gzip: exit status" 0 "$st"
st=0
"$CORECAP" export --chrome -o named.json.gz "$RUN" 2>named.err || st=$?
expect_eq "export --chrome -o FILE.json.gz: exit status" 0 "$st"
"$CORECAP" export --chrome --gzip "$RUN" 2>/dev/null >stdout.gz
for f in flag.gz.out named.json.gz stdout.gz; do
	expect_eq "$f: gzip's magic bytes" "1f8b" "$(head -c 2 "$f" | od -An -tx1 | tr -d ' \n')"
	expect_true "$f: gzip -t finds it whole" gzip -t <"$f"
	expect_eq "$f gunzips to the plain JSON (sha256)" "$(sha256sum <plain.json)" "$(gzip -dc <"$f" | sha256sum)"
done
expect_calc "the gzip file is smaller than a third of the JSON ($(stat -c %s named.json.gz) of $(stat -c %s plain.json) bytes)" \
	"$(stat -c %s named.json.gz) * 3 < $(stat -c %s plain.json)"
expect_true "the plain JSON parses" python3 -c "import json, sys; json.load(open('plain.json'))"

# Written aside and renamed: an export that fails (--from past the window)
# leaves the old file byte for byte, and no temporary file beside it.
echo "old" >keep.json.gz
before=$(sha256sum <keep.json.gz)
st=0
"$CORECAP" export --chrome --from 100000 -o keep.json.gz "$RUN" 2>keep.err || st=$?
expect_eq "a failed --gzip export: exit status" 1 "$st"
expect_eq "... leaves the old file" "$before" "$(sha256sum <keep.json.gz)"
expect_eq "... and nothing beside it" "keep.err keep.json.gz" "$(ls keep* | tr '\n' ' ' | sed 's/ $//')"

# A terminal is refused (needs script(1) for a pty).
if command -v script >/dev/null; then
	script -qec "'$CORECAP' export --chrome --gzip '$RUN'; echo rc=\$?" /dev/null >tty.out 2>&1 || true
	expect_true "--gzip to a terminal: refused with exit 2" grep -q "rc=2" tty.out
	expect_true "... saying why" grep -q "will not write gzip data to a terminal" tty.out
fi

# The size warning: the golden run's estimate is about 0.4 MB of JSON
# (its trace's 94 KB; the file is 0.15 MB), 0.04 MB gzipped.
warn="corecap export: warning: 'w.json' will be about"
CORECAP_EXPORT_WARN_MB=0.1 "$CORECAP" export --chrome -o w.json "$RUN" 2>w.err
expect_true "bound 0.1 MB: the warning says the expected size" grep -qE "^$warn [0-9]+ MB \([0-9]+ MB of JSON, estimated from the run's events\)" w.err
expect_true "... and how to cut it: --from/--to and --gzip" \
	grep -q -- "--from SEC and --to SEC export a part of the window, and --gzip (or -o FILE.json.gz) writes about a tenth" w.err
expect_eq "... before writing: the first line of stderr" "1" "$(grep -n "will be about" w.err | cut -d: -f1)"
CORECAP_EXPORT_WARN_MB=0.1 "$CORECAP" export --chrome --gzip -o w.json "$RUN" 2>w.err
expect_eq "bound 0.1 MB with --gzip (0.04 MB expected): no warning" "" "$(grep 'will be about' w.err || true)"
CORECAP_EXPORT_WARN_MB=1 "$CORECAP" export --chrome -o w.json "$RUN" 2>w.err
expect_eq "bound 1 MB: no warning" "" "$(grep 'will be about' w.err || true)"
"$CORECAP" export --chrome -o w.json "$RUN" 2>w.err
expect_eq "the default bound, 100 MB: no warning" "" "$(grep 'will be about' w.err || true)"
CORECAP_EXPORT_WARN_MB=lots "$CORECAP" export --chrome -o w.json "$RUN" 2>w.err
expect_true "a bad CORECAP_EXPORT_WARN_MB is said" grep -q "CORECAP_EXPORT_WARN_MB='lots' is not a number of MB" w.err
CORECAP_EXPORT_WARN_MB=0.1 "$CORECAP" export --chrome --from 0 --to 0.01 -o w.json "$RUN" 2>w.err
expect_eq "bound 0.1 MB, --to 0.01 s of the window: no warning" "" "$(grep 'will be about' w.err || true)"
finish
