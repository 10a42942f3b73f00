#!/usr/bin/env bash
# Four memstore OSDs under one `corecap record --ceph-osds` (issue #21's
# third known answer): one window, one run of four daemons, each OSD found
# through its admin socket in the cluster's run directory and paired with
# its own PID (checked against the OSD's pid file). Every OSD's pools are
# listed, in its own section and merged; the merged cores used equal the
# sum of the daemons' (their threads.tsv, /proc), and agree with the OSDs'
# own /proc/PID/stat CPU, read by the benchmark as it starts and ends; the box's
# verdict names what caps it, consistent with its busy cores. The Chrome
# export holds one process per OSD (and one of its kernel thread states);
# html and compare read the run.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
. "$CORECAP_SRC/tests/e2e/ceph_lib.sh"
ceph_need_tools
work=$(mktemp -d /tmp/ceph-multi.XXXXXX)
d="$work/four"
cleanup() {
	"$mc" stop "$d" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
WORK=$work

# The OSDs' CPU seconds (utime + stime, /proc/PID/stat), summed, and the time: "cpu_s time_s".
cpu_now() {
	local p sum=0
	for p in "$@"; do
		sum=$(awk -v s="$sum" -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); print s + ($12 + $13) / hz }' "/proc/$p/stat")
	done
	echo "$sum $(date +%s.%N)"
}

base=$(ceph_free_base 48689) || skip "no free port base found from 48689 up"
t0=$SECONDS
ceph_start four "$base" --osds 4
echo "4 memstore OSDs started in $((SECONDS - t0)) s"
eval "$("$mc" env "$d")"
pids=()
for id in 0 1 2 3; do
	pids+=("$(cat "$d/osd.$id.pid")")
done
# The benchmark reads the OSDs' /proc/PID/stat as it starts and ends, inside the window.
cat >"$work/bench.sh" <<BENCH
$(declare -f cpu_now)
cpu_now ${pids[*]} >"$work/cpu.begin"
rados -p bench bench 5 write -t 10 -b 1 --no-cleanup
rc=\$?
cpu_now ${pids[*]} >"$work/cpu.end"
exit \$rc
BENCH
rc=0
"$CORECAP" record -q --ceph-osds="$d/run" -o "$work/run" -- bash "$work/bench.sh" \
	>"$work/record.out" 2>"$work/record.err" || rc=$?
cat "$work/record.err"
grep -E '^(Total writes made|Average IOPS|Average Latency)' "$work/record.out" || tail "$work/record.out"
own=()
expect_eq "record exit status" 0 "$rc"
[ "$rc" -eq 0 ] || { finish; exit 1; }
run=$work/run
m=$run/manifest.json
expect_eq "one run of 4 daemons, complete" "3 complete 4" \
	"$(json "$m" 'd["version"], d["status"], len(d["daemons"])' | tr -d "(),'")"
for id in 0 1 2 3; do
	p=${pids[$id]}
	expect_eq "osd.$id is PID $p (its pid file), found by its admin socket" \
		"$p $id $d/run/ceph-osd.$id.asok complete" \
		"$(json "$m" '" ".join(str(x) for x in [[y["pid"], y["ceph_osd_id"], y["ceph_asok"], y["status"]] for y in d["daemons"] if y["ceph_osd_id"] == '"$id"'][0])')"
	expect_eq "osd.$id's own run is of PID $p" "$p" "$(json "$run/daemons/$p/manifest.json" 'd["pid"]')"
	expect_true "osd.$id's own run has its OpTracker history and perf dumps" \
		test -s "$run/daemons/$p/ceph/historic_ops.json.zst" -a -s "$run/daemons/$p/ceph/perf-end.json"
	expect_true "osd.$id's perf dumps are its own: op_w grew over the window" python3 -c '
import json, sys
b, e = (json.load(open(sys.argv[1] + f))["osd"]["op_w"] for f in ("/perf-begin.json", "/perf-end.json"))
sys.exit(0 if e > b else 1)' "$run/daemons/$p/ceph"
done

# The text report: its JSON is the same structure (e2e.multi_errors), and
# rendering four OSDs' JSON (DWARF lines of every stack) takes ~20 s each here.
"$CORECAP" report "$run" >"$work/r.txt"
sed -n '1,/^======== daemon 1/p' "$work/r.txt"
# section N: the lines of daemon N's own report (read whole: no SIGPIPE under pipefail).
section() { awk -v n="$1" '/^======== daemon / { s = ($3 == n) } s' "$work/r.txt" >"$work/section"; cat "$work/section"; }
for id in 0 1 2 3; do
	p=${pids[$id]}
	n=$(sed -n "s/^======== daemon \([1-4]\) of 4: ceph-osd (pid $p, osd\.$id) ========$/\1/p" "$work/r.txt")
	expect_true "osd.$id (PID $p) has its own section" test -n "$n"
	[ -n "$n" ] || continue
	section "$n" >/dev/null
	pools=$(awk '/^pools / { s = 1; next } s && /^ *lock, cond/ { next } s && /^$/ { s = 0 } s { print $1 }' "$work/section" | tr '\n' ' ')
	echo "osd.$id's pools: $pools"
	expect_true "osd.$id's pools listed: tp_osd_tp" grep -qw tp_osd_tp <<<"$pools"
	expect_true "osd.$id's pools listed: msgr-worker" grep -qw msgr-worker <<<"$pools"
	c=$(sed -n 's/^cores      the daemon used \([0-9.]*\) of.*/\1/p' "$work/section")
	expect_true "osd.$id's cores used ($c)" test -n "$c"
	own+=("${c:-0}")
done
expect_eq "the merged pools take tp_osd_tp from all 4 OSDs" 4 \
	"$(awk '/^pools      \(merged/ { s = 1; next } s && /^$/ { s = 0 } s && $1 == "tp_osd_tp" { print $2 }' "$work/r.txt")"
merged=$(sed -n "s/^cores      the daemons used \([0-9.]*\) of the box's .*/\1/p" "$work/r.txt")
sum=$(calc "${own[0]} + ${own[1]} + ${own[2]} + ${own[3]}")
read -r c0 t0 <"$work/cpu.begin"
read -r c1 t1 <"$work/cpu.end"
proc=$(calc "($c1 - $c0) / ($t1 - $t0)")
echo "cores used: merged $merged, the daemons' own reports $sum, /proc/PID/stat over the benchmark $proc"
expect_calc "the merged cores used equal the sum of the daemons' (within 5%)" \
	"$merged > 0 && $merged >= 0.95 * $sum && $merged <= 1.05 * $sum"
expect_calc "and the OSDs' own /proc CPU over the benchmark (within 5%)" \
	"$merged >= 0.95 * $proc && $merged <= 1.05 * $proc"

verdict=$(sed -n 's/^BOX        what caps the box: //p' "$work/r.txt")
read -r busy nproc < <(sed -n "s/^cores      the daemons used [0-9.]* of the box's \([0-9]*\); the box: \([0-9.]*\) busy.*/\2 \1/p" "$work/r.txt")
echo "what caps the box: $verdict (busy $busy of $nproc cores)"
expect_true "the verdict names what caps the box" test -n "$verdict"
if [ "$(calc "$busy >= 0.9 * $nproc")" = 1 ]; then
	expect_true "the box's cores were busy ($busy of $nproc): they cap it" \
		grep -q "^the box's cores: $busy of $nproc busy" <<<"$verdict"
else
	expect_true "the box's cores were not all busy ($busy of $nproc): an OSD's resource or none" \
		grep -qE '^(nothing on the box saturates|(lock|thread|pool) .* of PID [0-9]+ \(ceph-osd\) at (7[0-9]|8[0-9]|9[0-9]|1[0-9][0-9])%)' <<<"$verdict"
fi

"$CORECAP" export --chrome -o "$work/run.chrome.json" "$run" 2>/dev/null
# Each OSD's kernel thread states are a second process of its own, at PID + 4194304
# (docs/flame.md), the highest PID Linux gives being 4194304.
expect_eq "export --chrome: one process per OSD" "$(printf '%s\n' "${pids[@]}" | sort -n | tr '\n' ' ')" \
	"$(json "$work/run.chrome.json" '" ".join(str(p) for p in sorted({e["pid"] for e in d["traceEvents"] if e["pid"] < 4194304})) + " "')"
expect_eq "... and one process of kernel thread states per OSD" \
	"$(for p in "${pids[@]}"; do echo $((p + 4194304)); done | sort -n | tr '\n' ' ')" \
	"$(json "$work/run.chrome.json" '" ".join(str(p) for p in sorted({e["pid"] for e in d["traceEvents"] if e["pid"] >= 4194304})) + " "')"
expect_true "html renders the merged view" bash -c "'$CORECAP' html '$run' | grep -q 'The box, merged'"
expect_true "compare two OSDs of the run" bash -c "'$CORECAP' compare '$run:${pids[0]}' '$run:${pids[1]}' >/dev/null"
finish
