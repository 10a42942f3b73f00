#!/usr/bin/env bash
# #47 item 3, what verify and stats-dump take and print, on refosd
# --big-lock under the shim (no slope is measured: the test runs on a busy
# machine too):
#  - corecap stats-dump prints the shim's op counter (layout version 3):
#    the header's ops=, each thread's and the total's ops column, agreeing
#    with each other and with refbench's writes (+1, its metadata object); a version-2 copy of the
#    same file prints '-' there, not 0;
#  - and its reply counter (layout version 4), counted from the socket
#    calls whether or not the daemon is annotated: the header's replies=,
#    the threads' and the total's last column agree, and are the ops
#    (each request refosd read got one reply); a version-3 copy prints
#    '-' for replies and still its ops;
#  - the lock's name as stat prints it (d.osd.big_lock) is a --site and
#    stands for the site stat prints beside it, the same address as that
#    FUNCTION+0xOFF and as the 0xADDR verify names; an unknown name is
#    refused with what to write;
#  - --delay-ns above 10 ms (perf lock -J's cap) is a usage error, 10 ms is
#    taken, and no delay is left on;
#  - a control predicted to slow the daemon as much as the site (the
#    finisher's lock, one hold per op, binding under --binding-util 0.01)
#    is warned of after the first round, and the verdict is inconclusive,
#    saying why.
. "$CORECAP_SRC/tests/e2e/verify_lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (the benchmark beside the daemon)"

start_shimmed osd --big-lock --op-cpu-us 50 --debug 0
"$BIN/refbench" -p "$OSD_PORT" -t 8 -b 1 -d 1 --no-progress write >"$WORK/bench.out" 2>&1 ||
	{ echo "FAIL: refbench exited non-zero"; cat "$WORK/bench.out"; exit 1; }
writes=$(summary_value "$WORK/bench.out" "Total writes made")

# stats-dump's op counter.
"$CORECAP" stats-dump "$OSD_PID" >"$WORK/dump"
hops=$(awk -F'\t' '$1 == "header" { for (i = 2; i <= NF; i++) if ($i ~ /^ops=/) print substr($i, 5) }' "$WORK/dump")
tops=$(awk -F'\t' '$1 == "total" { print $(NF - 1) }' "$WORK/dump")
sops=$(awk -F'\t' '$1 == "thread" { s += $(NF - 1) } END { print s + 0 }' "$WORK/dump")
expect_eq "the '# thread' line names the last two columns ops and replies" "ops replies" \
	"$(awk -F'\t' '$1 == "# thread" { print $(NF - 1), $NF }' "$WORK/dump")"
expect_eq "header ops= is the total line's ops" "$hops" "$tops"
expect_eq "the threads' ops sum to the total (no thread exited)" "$tops" "$sops"
expect_eq "the ops ended are refbench's $writes writes and its metadata object's" "$((writes + 1))" "$tops"
hrep=$(awk -F'\t' '$1 == "header" { for (i = 2; i <= NF; i++) if ($i ~ /^replies=/) print substr($i, 9) }' "$WORK/dump")
trep=$(awk -F'\t' '$1 == "total" { print $NF }' "$WORK/dump")
srep=$(awk -F'\t' '$1 == "thread" { s += $NF } END { print s + 0 }' "$WORK/dump")
echo "stats-dump: ops $tops, replies $trep (header $hrep, threads $srep)"
expect_eq "header replies= is the total line's replies" "$hrep" "$trep"
expect_eq "the threads' replies sum to the total" "$trep" "$srep"
expect_eq "every op refosd ended was one reply on its socket" "$tops" "$trep"
"$CORECAP" stats-dump --copy "$WORK/v4" "$OSD_PID"
# Version 3 is version 4 without the reply counter, version 2 is version 3
# without the op counter: the same bytes with the version field set back.
python3 - "$WORK/v4" "$WORK/v3" "$WORK/v2" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
assert struct.unpack_from("<I", b, 8)[0] == 4
for v, out in ((3, sys.argv[2]), (2, sys.argv[3])):
    struct.pack_into("<I", b, 8, v)
    open(out, "wb").write(b)
EOF
"$CORECAP" stats-dump "$WORK/v3" >"$WORK/dump3"
expect_true "a version-3 file: ops=$tops and replies=- in the header" \
	grep -qP "^header\tversion=3\t.*\tops=$tops\treplies=-\$" "$WORK/dump3"
expect_eq "... and '-' ending every thread and total line, after their ops" \
	"$(grep -cP '^(thread|total)\t' "$WORK/dump3")" "$(grep -cP '^(thread|total)\t.*\t[0-9]+\t-$' "$WORK/dump3")"
"$CORECAP" stats-dump "$WORK/v2" >"$WORK/dump2"
expect_true "a version-2 file: ops=- and replies=- in the header" grep -qP '^header\tversion=2\t.*\tops=-\treplies=-$' "$WORK/dump2"
expect_eq "... and '-' in the last two columns of every thread and total line" \
	"$(grep -cP '^(thread|total)\t' "$WORK/dump2")" "$(grep -cP '^(thread|total)\t.*\t-\t-$' "$WORK/dump2")"

# The lock's name and site as stat prints them, during a benchmark.
"$BIN/refbench" -p "$OSD_PORT" -t 8 -b 1 -d 3 --no-progress write >"$WORK/bench2.out" 2>&1 &
bench=$!
sleep 1
"$CORECAP" stat -p "$OSD_PID" --once >"$WORK/stat.txt"
wait "$bench"
read -r lock site < <(awk '$1 == "d.osd.big_lock" { print $1, $NF; exit }' "$WORK/stat.txt") || true
expect_eq "stat names the big lock" d.osd.big_lock "${lock:-}"
expect_true "stat prints its site as FUNCTION+0xOFF: ${site:-}" grep -qE '^osd_handle_op\+0x[0-9a-f]+$' <<<"${site:-}"
expect_exit_naming "--site d.osd.big_lock is the site stat prints beside it" 2 \
	"--control '$site' is the site itself" \
	"$CORECAP" verify -p "$OSD_PID" --site d.osd.big_lock --control "$site" -- true
addr=$(sed -n "s/.*--site 'd.osd.big_lock' is the lock at 0x[0-9a-f]*: its holds taken at \(0x[0-9a-f]*\),.*/\1/p" "$WORK/err")
expect_true "verify names the address it delays: ${addr:-}" test -n "${addr:-}"
expect_exit_naming "... which is 0xADDR's" 2 "--control '$addr' is the site itself" \
	"$CORECAP" verify -p "$OSD_PID" --site d.osd.big_lock --control "$addr" -- true
expect_exit_naming "a --control lock name too" 2 "--control 'd.osd.big_lock' is the site itself" \
	"$CORECAP" verify -p "$OSD_PID" --site "$site" --control d.osd.big_lock -- true
expect_exit_naming "an unknown lock name" 1 "has no contended lock of that name" \
	"$CORECAP" verify -p "$OSD_PID" --site d.osd.no_such_lock -- true
expect_true "... says what to write" grep -qF "write FUNCTION+0xOFF" "$WORK/err"

# The delay's hard cap.
expect_exit_naming "--delay-ns 10000001 (above 10 ms)" 2 "bad --delay-ns '10000001': expected 1-10000000" \
	"$CORECAP" verify -p "$OSD_PID" --site "$site" --delay-ns 10000001 -- true
status=0
"$CORECAP" verify -p "$OSD_PID" --site "$site" --delay-ns 10000000 --rounds 1 -- true >/dev/null 2>"$WORK/cap.err" || status=$?
expect_eq "--delay-ns 10000000 is taken (the benchmark 'true' prints no summary: exit 1)" 1 "$status"
expect_true "... not as a usage error" bash -c "! grep -q 'bad --delay-ns' '$WORK/cap.err'"
"$BIN/refbench" -p "$OSD_PORT" -t 2 -b 1 -d 1 --no-progress write >/dev/null 2>&1
expect_eq "no delay is left active" 0x0 "$(control_field active_site)"

# A control that cannot tell the site apart.
status=0
"$CORECAP" verify -p "$OSD_PID" --site d.osd.big_lock --control d.finisher.lock \
	--binding-util 0.01 --delay-ns 30000 --rounds 1 -- \
	"$BIN/refbench" -p "$OSD_PORT" -t 8 -b 1 -d 1 --no-progress write \
	>"$WORK/ctl.out" 2>"$WORK/ctl.err" || status=$?
grep -E '^(control|site) |predicted slope|^(inconclusive|confirmed|not confirmed):' "$WORK/ctl.out" || true
expect_eq "verify with a useless control: exit status" 0 "$status"
[ "$status" = 0 ] || sed 's/^/    /' "$WORK/ctl.err"
expect_true "it warns after the first round that the control cannot tell them apart" \
	grep -qF "warning: the control 'd.finisher.lock' is predicted to slow the daemon as much as the site" "$WORK/ctl.err"
expect_true "the verdict is inconclusive, with the ratio, its interval and R^2, saying why" \
	grep -qE "^inconclusive: .* \(ratio -?[0-9.]+ \[-?[0-9.]+, -?[0-9.]+\] over 1 rounds, R\^2 [0-9.]+\); the control site's predicted slope .* cannot tell them apart" "$WORK/ctl.out"
expect_true "... and its TSV form" grep -qP '^verdict\tinconclusive\t' "$WORK/ctl.out"
"$BIN/refbench" -p "$OSD_PORT" -t 2 -b 1 -d 1 --no-progress write >/dev/null 2>&1
expect_eq "no delay is left active" 0x0 "$(control_field active_site)"
expect_true "refosd is alive" kill -0 "$OSD_PID"
expect_true "... and not stopped" bash -c "! grep -qE '^State:\s+[Tt]' /proc/$OSD_PID/status"
finish
