#!/usr/bin/env bash
# Several daemons in one record (issue #21): the bad PID lists and a
# daemon dying mid-window, without Ceph or LTTng (sleep processes, no
# trace, no kernel events). Each error names the PID and leaves no run
# behind; a daemon that exits mid-window ends its own recording only: the
# others' runs are complete, the run is partial naming the PID, and the
# report says so and still merges the others.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
CORECAP="${CORECAP_BUILD:?}/cli/corecap"
[ -x "$CORECAP" ] || { echo "FAIL: $CORECAP is not built"; exit 1; }
e2e_workdir multi
cd "$WORK"

sleep 600 & a=$!; track "$a"
sleep 600 & b=$!; track "$b"
sleep 600 & c=$!; track "$c"
gone=$(bash -c 'echo $$')   # a PID that ran and is gone
rec=("$CORECAP" record -q --no-trace --no-kernel -d 1)

expect_exit_naming "a PID given twice" 2 "PID $a is given twice in '$a,$b,$a'" \
	"${rec[@]}" -p "$a,$b,$a" -o dup
expect_exit_naming "an empty entry" 2 "invalid PID list '$a,,$b'" "${rec[@]}" -p "$a,,$b" -o empty
expect_exit_naming "a PID that is not a number" 2 "invalid PID 'x1'" "${rec[@]}" -p "$a,x1" -o nan
expect_fail_naming "a PID that is not running" "no process with PID $gone" \
	"${rec[@]}" -p "$a,$gone,$b" -o notrunning
expect_true "and no run is left behind" test ! -e notrunning
expect_fail_naming "corecap itself" "is corecap itself" \
	bash -c 'exec "$@" -p '"$a"',$$ -o self' _ "${rec[@]}"
expect_exit_naming "-p with --ceph-osds" 2 "-p and --ceph-osds exclude each other" \
	"${rec[@]}" -p "$a,$b" --ceph-osds -o both
expect_fail_naming "--ceph-osds with no OSD in the directory" \
	"no running ceph-osd listens on an admin socket in '$WORK'" \
	"${rec[@]}" --ceph-osds="$WORK" -o noosd
expect_true "and no run is left behind" test ! -e noosd

# Two daemons, one window; the second one killed 1 s into 3.
(sleep 1; kill "$b") &
rc=0
"$CORECAP" record -q --no-trace --no-kernel -d 3 -p "$a,$b,$c" -o died >died.out 2>died.err || rc=$?
cat died.err
expect_eq "a daemon dying mid-window: exit status" 1 "$rc"
expect_true "the error names the PID" grep -q "PID $b (sleep) exited at +1" died.err
m=died/manifest.json
expect_eq "the run is version 3, partial" "3 partial" "$(json "$m" 'd["version"], d["status"]' | tr -d "(),'")"
expect_true "its reason names the PID" bash -c "grep -q '\"partial_reason\": \"PID $b (sleep) exited at +1' $m"
expect_eq "the daemons listed" "$a $b $c" "$(json "$m" '" ".join(str(x["pid"]) for x in d["daemons"])')"
expect_eq "their states" "complete partial complete" \
	"$(json "$m" '" ".join(x["status"] for x in d["daemons"])')"
expect_calc "the window went on for the others (3 s)" "$(json "$m" 'd["window"]["duration_s"]') >= 2.9"
for p in "$a" "$c"; do
	expect_eq "PID $p's own run is complete, of PID $p" "complete $p" \
		"$(json "died/daemons/$p/manifest.json" 'd["status"], d["pid"]' | tr -d "(),'")"
	expect_calc "PID $p's window is the whole window" \
		"$(json "died/daemons/$p/manifest.json" 'd["window"]["duration_s"]') >= 2.9"
done
expect_eq "PID $b's own run is partial" "partial" "$(json "died/daemons/$b/manifest.json" 'd["status"]')"
"$CORECAP" report died >report.txt
expect_true "the report names the dead daemon" grep -q "sleep (pid $b): partial, PID $b (sleep) exited" report.txt
expect_eq "and has a section per daemon" 3 "$(grep -c '^======== daemon [1-3] of 3' report.txt)"
"$CORECAP" report --json died >report.json
expect_eq "JSON: three daemons analysed" 3 "$(json report.json 'd["merged"]["daemons_analysed"]')"
expect_eq "JSON: partial" True "$(json report.json 'd["partial"]')"
expect_fail_naming "flame of a run of several daemons" "name it as RUN:PID" "$CORECAP" flame -o f.svg died
expect_fail_naming "a PID the run does not have" "'died' has no daemon of PID 1" "$CORECAP" report died:1
expect_true "RUN:PID reads one daemon" bash -c "'$CORECAP' report died:$a | grep -q '^daemon     sleep (pid $a)'"
expect_fail_naming "compare of a run of several daemons" "a run of 3 daemons (format version 3): name one as RUN:PID" \
	"$CORECAP" compare died "died:$a"
expect_true "compare RUN:PID RUN:PID" "$CORECAP" compare "died:$a" "died:$c"
finish
