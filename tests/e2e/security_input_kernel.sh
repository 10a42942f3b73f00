#!/usr/bin/env bash
# Kernel record files cut short, and hostile ones (issue #42, items 7 and
# 8a), on a real run with kernel events (a mutex workload recorded bare):
# - kernel/events.bin cut to 25% of what the collector wrote: the report
#   says the run is partial (quality.partial, quality.partial_reason and a
#   warning) with the bytes and about how many records were lost; the
#   whole file is not partial;
# - stacks.bin cut: the same, for the stacks;
# - a sparse 10 GB stacks.bin (over its 1 GiB bound) is refused by its
#   size, a 512 MiB one of NULs by its magic before any allocation of its
#   size, a sparse 10 GB events.bin by its header: each command ends within
#   T seconds with the file named, under RSS_MAX_KB of memory.
set -uo pipefail
. "${CORECAP_SRC:?}/tests/e2e/kernel_lib.sh"
need_kernel
[ -x /usr/bin/time ] || skip "GNU time (/usr/bin/time) is absent: scripts/install-deps installs it"

T=10
RSS_MAX_KB=$((256 * 1024))

start_workload m "$WORKLOAD" mutex 4 200 2
run="$WORK/run"
status=0
"$CORECAP" record -p "$WL_PID" -o "$run" --no-trace --kernel "${KERNEL_VIA[@]}" -q -- \
	sh -c "$(workload_bench m)" >"$WORK/rec.out" 2>"$WORK/rec.err" || status=$?
expect_eq "record exits" 0 "$status"
[ "$status" = 0 ] || { cat "$WORK/rec.err"; exit 1; }
ev_bytes=$(stat -c %s "$run/kernel/events.bin")
expect_eq "the manifest's kernel_events.bytes.events is the file's size" "$ev_bytes" \
	"$(json "$run/manifest.json" "d['kernel_events']['bytes']['events']")"
echo "events.bin: $ev_bytes bytes"

# copy_run NAME: a fresh copy of the run, its path on stdout.
copy_run() {
	rm -rf "${WORK:?}/$1"
	cp -r "$run" "$WORK/$1"
	echo "$WORK/$1"
}

# The whole run: complete, no word of a cut.
"$CORECAP" report --json "$run" >"$WORK/whole.json" 2>"$WORK/whole.err"
expect_eq "the whole run: not partial" False "$(json "$WORK/whole.json" "d['quality']['partial']")"
expect_eq "the whole run: no cut named" 0 "$(grep -c 'cut short' "$WORK/whole.json")"

# events.bin cut to 25%.
cut=$(copy_run cut)
truncate -s $((ev_bytes / 4)) "$cut/kernel/events.bin"
status=0
"$CORECAP" report --json "$cut" >"$WORK/cut.json" 2>"$WORK/cut.err" || status=$?
expect_eq "events.bin cut to 25%: report --json exits 0" 0 "$status"
j="$WORK/cut.json"
expect_eq "events.bin cut to 25%: quality.partial" True "$(json "$j" "d['quality']['partial']")"
reason=$(json "$j" "d['quality']['partial_reason']")
echo "partial_reason: $reason"
expect_true "the reason names the file and the bytes it lacks" \
	grep -qF "kernel/events.bin is cut short: $((ev_bytes / 4)) of the $ev_bytes bytes the collector wrote, 75% lost ($((ev_bytes - ev_bytes / 4)) bytes, about " <<<"$reason"
expect_true "the reason says about how many records were lost" grep -qE "about [0-9]+ records" <<<"$reason"
expect_eq "a warning says it too" True \
	"$(json "$j" "any('kernel/events.bin is cut short' in w for w in d['quality']['warnings'])")"
status=0
"$CORECAP" report "$cut" >"$WORK/cut.txt" 2>&1 || status=$?
expect_eq "events.bin cut to 25%: report exits 0" 0 "$status"
expect_true "the text report says the run is partial, and why" grep -q "partial run: kernel/events.bin is cut short" "$WORK/cut.txt"
for cmd in "html -o $WORK/cut.html" "compare $run"; do
	status=0
	# shellcheck disable=SC2086
	"$CORECAP" $cmd "$cut" >"$WORK/cmd.out" 2>"$WORK/cmd.err" || status=$?
	expect_eq "events.bin cut to 25%: $cmd exits 0" 0 "$status"
done
expect_true "the html page names the cut" grep -q "kernel/events.bin is cut short" "$WORK/cut.html"

# stacks.bin cut.
st_bytes=$(stat -c %s "$run/kernel/stacks.bin" 2>/dev/null || echo 0)
if [ "$st_bytes" -gt 64 ]; then
	c2=$(copy_run stcut)
	truncate -s 64 "$c2/kernel/stacks.bin"
	"$CORECAP" report --json "$c2" >"$WORK/stcut.json" 2>/dev/null
	expect_eq "stacks.bin cut: quality.partial" True "$(json "$WORK/stcut.json" "d['quality']['partial']")"
	expect_true "stacks.bin cut: named" grep -q "kernel/stacks.bin is cut short: 64 of the $st_bytes bytes" "$WORK/stcut.json"
else
	echo "note: the run has no stacks (stacks.bin $st_bytes bytes): its cut is not checked"
fi

# bounded WHAT NEEDLE CMD...: CMD exits 1 within T s naming NEEDLE, under the memory bound.
bounded() {
	local what=$1 needle=$2 status=0 rss
	shift 2
	rm -f "$WORK/rss"
	timeout -k 2 "$T" /usr/bin/time -f %M -o "$WORK/rss" "$@" >"$WORK/out" 2>"$WORK/err" ||
		status=$?
	expect_eq "$what: exit status (124: longer than $T s)" 1 "$status"
	expect_true "$what: the output names '$needle'" grep -qF -- "$needle" "$WORK/err"
	rss=$(tail -n 1 "$WORK/rss" 2>/dev/null)
	[[ $rss =~ ^[0-9]+$ ]] || rss=999999999
	expect_calc "$what: peak memory $rss KiB under $RSS_MAX_KB KiB" "$rss < $RSS_MAX_KB"
}

# every_command CASE RUN NEEDLE: report, flame, export --chrome, html, compare.
every_command() {
	local c=$1 r=$2 needle=$3
	bounded "$c: report" "$needle" "$CORECAP" report "$r"
	bounded "$c: flame" "$needle" "$CORECAP" flame --kind lock "$r"
	bounded "$c: export --chrome" "$needle" "$CORECAP" export --chrome -o "$WORK/x.json" "$r"
	bounded "$c: html" "$needle" "$CORECAP" html -o "$WORK/x.html" "$r"
	bounded "$c: compare" "$needle" "$CORECAP" compare "$run" "$r"
}

r=$(copy_run st10g) && truncate -s 10G "$r/kernel/stacks.bin"
every_command "stacks.bin of 10 GB" "$r" "'$r/kernel/stacks.bin': 10737418240 bytes, more than the 1073741824"
r=$(copy_run stnul) && rm "$r/kernel/stacks.bin" && truncate -s 512M "$r/kernel/stacks.bin"
every_command "stacks.bin of 512 MiB of NULs" "$r" "'$r/kernel/stacks.bin': not a corecap kernel file (bad magic)"
r=$(copy_run ev10g) && rm "$r/kernel/events.bin" && truncate -s 10G "$r/kernel/events.bin"
every_command "events.bin of 10 GB of NULs" "$r" "'$r/kernel/events.bin': not a corecap kernel file (bad magic)"

finish
