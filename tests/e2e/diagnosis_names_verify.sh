#!/usr/bin/env bash
# corecap verify takes a site as the report prints it (collector/verify/site_spec.h):
# refosd --big-lock under the shim is recorded, and the big lock's site is
# taken from `report --json` (its lock's `symbol`, FUNCTION+0xOFF, the
# text the tables and the diagnosis print). verify accepts it as is and
# ends with its verdict line; the same site written as MODULE+0xOFF (nm's
# address of the function plus the offset) and as an older report wrote
# it ("lock at SITE x2") resolves to the same address (verify refuses it
# as a control: "is the site itself"); a bare function name is refused
# with what to write. `corecap stats-dump` is the same program as
# corecap-stats-dump. One short round: the slopes are verify_refosd's
# known answer, not checked here, so the test does not measure and runs
# on a busy machine too.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
need_sessiond
need_refosd
command -v nm >/dev/null || skip "nm (binutils) is not installed"

run="$WORK/big"
start_refosd big --big-lock --op-cpu-us 50 --debug 0
record_refbench "$run" -t 8 -b 1 -d 2 write
j="$run.json"
site=$(json "$j" "[l for l in d['locks'] if (l['symbol'] or '').startswith('osd_handle_op+')][0]['symbol']")
echo "the report's site of the big lock: $site"
expect_true "the text report prints it" grep -qF "$site" "$run.txt"
vc=$(json "$j" "(d.get('diagnosis') or {}).get('verify_command') or ''")
if [ -n "$vc" ]; then
	expect_true "the diagnosis' verify line names it: $vc" grep -qF -- "--site '$site'" <<<"$vc"
fi

bench=("$REFBENCH" -p "$OSD_PORT" -t 8 -b 1 -d 1 --no-progress write)
status=0
"$CORECAP" verify -p "$OSD_PID" --site "$site" --delay-ns 30000 --rounds 1 -- "${bench[@]}" \
	>"$WORK/verify.out" 2>"$WORK/verify.err" || status=$?
cat "$WORK/verify.out"
expect_eq "verify --site '$site' (as the report prints it): exit status" 0 "$status"
[ "$status" = 0 ] || sed 's/^/    /' "$WORK/verify.err"
expect_eq "verify prints one verdict line" 1 \
	"$(grep -Ec '^(confirmed|not confirmed|inconclusive): .* IOPS per us measured against .* predicted \(ratio .* R\^2 ' "$WORK/verify.out" || true)"
expect_true "... and its TSV form" grep -Pq '^verdict\t(confirmed|not confirmed|inconclusive)\t' "$WORK/verify.out"
expect_true "... after the site's table, named as given" grep -qF "site $site (0x" "$WORK/verify.out"

# Other spellings of the same site resolve to the same address.
fn=${site%%+*}
off=${site##*+}
start=$(nm "$REFOSD" | awk -v f="$fn" '$3 == f && !n++ { print $1 }')
expect_true "nm finds $fn" test -n "$start"
mod="refosd+$(printf '0x%x' $((0x$start + off)))"
expect_exit_naming "MODULE+0xOFF ($mod) is the same site" 2 "is the site itself" \
	"$CORECAP" verify -p "$OSD_PID" --site "$site" --control "$mod" -- true
expect_exit_naming "an older report's 'lock at $site x2' is the same site" 2 "is the site itself" \
	"$CORECAP" verify -p "$OSD_PID" --site "lock at $site x2" --control "$site" -- true
expect_exit_naming "a bare function name is refused with what to write" 1 "write FUNCTION+0xOFF" \
	"$CORECAP" verify -p "$OSD_PID" --site "$fn" -- true
expect_exit_naming "a function the daemon lacks is named" 1 "no module or function 'no_such_fn'" \
	"$CORECAP" verify -p "$OSD_PID" --site no_such_fn+0x10 -- true
expect_exit_naming "an offset past the function's end is refused" 1 "past the end of '$fn'" \
	"$CORECAP" verify -p "$OSD_PID" --site "$fn+0x1000000" -- true

# corecap stats-dump is corecap-stats-dump.
"$CORECAP" stats-dump "$OSD_PID" >"$WORK/dump1"
"$CORECAP_BUILD/preload/corecap-stats-dump" "$OSD_PID" >"$WORK/dump2"
expect_eq "corecap stats-dump prints the records corecap-stats-dump does" \
	"$(cut -f1,3 "$WORK/dump2" | grep -v '^header' | sort -u | md5sum)" \
	"$(cut -f1,3 "$WORK/dump1" | grep -v '^header' | sort -u | md5sum)"
expect_true "... and lists the site as MODULE+0xOFF ($mod)" grep -qF "$mod" "$WORK/dump1"
expect_exit_naming "corecap stats-dump speaks as itself" 2 "corecap stats-dump: unrecognized option '--bogus'" \
	"$CORECAP" stats-dump --bogus "$OSD_PID"
stop_refosd
finish
