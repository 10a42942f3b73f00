#!/usr/bin/env bash
# Known answers of the lock table (docs/report-json.md, "lock_rows"):
# - refosd --big-lock --op-cpu-us 200 with 6 workers: every op holds one
#   global mutex for 200 us of CPU while the other workers wait for it, so
#   by default (total wait) the big lock is the first row in text, JSON
#   and HTML (measured: 6.9 s of wait against the finisher lock's 0.4 s);
#   --sort hold / contended keep it first too, and its mean hold,
#   hold_ns / holds, covers the 200 us of CPU (0.8x: the shim's hold
#   counts are estimates, docs/shim.md) and stays below 20x that: holds
#   and hold_ns come from one source (they were 35x apart when holds
#   counted the contended hold events only).
# - refosd --pgs 4 without the big lock: the four PG mutexes, heap locks
#   all taken in osd_handle_op, are one family row named by that SITE
#   alone (one name per lock: the count is the row's detail, not its
#   name) whose members are the four locks and whose figures are their sums;
#   beside the name, their type and member from DWARF at that call: pg.lock.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
need_sessiond
need_refosd

RECORD_OPTS=(--no-kernel)
start_refosd big --big-lock --op-cpu-us 200 --debug 0 --msgr-threads 1 --shards 2 \
	--threads-per-shard 3
run="$WORK/big"
record_refbench "$run" -t 16 -b 1 -d 2 write
stop_refosd
j="$run.json"
big="[r for r in d['lock_rows'] if r['source'] == 'shim'][0]"
echo "first row: $(json "$j" "$big['name']"), wait $(json "$j" "$big['wait_ns']") ns"
sed -n '/^locks /,/^$/p' "$run.txt" | head -12
expect_eq "JSON: lock_sort is wait" wait "$(json "$j" "d['lock_sort']")"
expect_eq "JSON: the most-waited lock heads the rows" \
	"$(json "$j" "max((r for r in d['lock_rows'] if r['source'] == 'shim'), key=lambda r: r['wait_ns'])['name']")" \
	"$(json "$j" "$big['name']")"
expect_true "JSON: the first row is the big lock (named, taken in osd_handle_op)" python3 -c "
import json, sys
r = [r for r in json.load(open('$j'))['lock_rows'] if r['source'] == 'shim'][0]
sys.exit(not (r['name'].endswith('big_lock') and not r['family'] and r['symbol'].startswith('osd_handle_op+')))"
first_txt=$(awk '/^locks      \(by total wait\)/ { getline; print $1; exit }' "$run.txt")
expect_eq "text: the first row is the big lock" "$(json "$j" "$big['name']")" "$first_txt"
for s in hold contended; do
	"$CORECAP" report --json --sort "$s" "$run" >"$WORK/sort-$s.json"
	expect_eq "--sort $s: lock_sort" "$s" "$(json "$WORK/sort-$s.json" "d['lock_sort']")"
	expect_eq "--sort $s: the big lock still first" "$(json "$j" "$big['name']")" \
		"$(json "$WORK/sort-$s.json" "[r for r in d['lock_rows'] if r['source'] == 'shim'][0]['name']")"
done
"$CORECAP" report --json --sort avg "$run" >"$WORK/sort-avg.json"
expect_true "--sort avg: rows by mean wait, descending" python3 -c "
import json, sys
v = [r['avg_wait_ns'] or 0 for r in json.load(open('$WORK/sort-avg.json'))['lock_rows'] if r['source'] == 'shim']
sys.exit(v != sorted(v, reverse=True))"
expect_exit_naming "--sort bogus" 2 "invalid --sort 'bogus'" "$CORECAP" report --sort bogus "$run"
# Holds and hold time from one source: the mean hold covers the 200 us of CPU.
lock="[l for l in d['locks'] if l['address'] == $big['members'][0]][0]"
avg=$(json "$j" "$lock['hold_ns'] / $lock['holds']")
echo "big lock: $(json "$j" "$lock['holds']") holds ($(json "$j" "$lock['hold_source']")), hold_ns/holds = $avg ns, avg_hold_ns $(json "$j" "$lock['avg_hold_ns']")"
expect_calc "big lock: hold_ns / holds >= 0.8 x 200 us of CPU" "$avg >= 160000"
expect_calc "big lock: hold_ns / holds < 20 x 200 us" "$avg < 4000000"
expect_calc "big lock: avg_hold_ns = hold_ns / holds" \
	"$(json "$j" "abs($lock['avg_hold_ns'] - $lock['hold_ns'] // $lock['holds'])") <= 1"
"$CORECAP" html -o "$WORK/big.html" "$run" >/dev/null 2>&1
expect_true "HTML: the lock table's first row is the big lock" python3 -c "
import re, sys
h = open('$WORK/big.html').read()
t = h[h.index('<h2>Locks'):]
row = re.search(r'<tr><td>(.*?)</td>', t).group(1)
sys.exit('$(json "$j" "$big['name']")' not in row)"

# A family: the PG locks, without the big lock in front of them.
start_refosd pgs --pgs 4 --op-cpu-us 50 --debug 0 --msgr-threads 1 --shards 2 \
	--threads-per-shard 2
run="$WORK/pgs"
record_refbench "$run" -t 8 -b 1 -d 2 write
stop_refosd
j="$run.json"
sed -n '/^locks /,/^$/p' "$run.txt" | head -12
fam="[r for r in d['lock_rows'] if r['family'] and (r['symbol'] or '').startswith('osd_handle_op+')][0]"
expect_eq "the PG locks are one family row of 4" 4 "$(json "$j" "len($fam['members'])")"
expect_eq "... named by its SITE alone" "$(json "$j" "$fam['symbol']")" "$(json "$j" "$fam['name']")"
expect_eq "... its wait is its members' sum" "$(json "$j" "$fam['wait_ns']")" \
	"$(json "$j" "sum(l['wait_ns'] for l in d['locks'] if l['address'] in $fam['members'] and l['source'] == 'shim')")"
expect_eq "... its contentions are its members' sum" "$(json "$j" "$fam['contentions']")" \
	"$(json "$j" "sum(l['contentions'] for l in d['locks'] if l['address'] in $fam['members'] and l['source'] == 'shim')")"
# A heap lock's type and member, from DWARF at the call that takes it
# (pthread_mutex_lock(&pg->lock) in osd_handle_op): beside its one name.
expect_eq "... its object by type and member, from DWARF: pg.lock" pg.lock "$(json "$j" "$fam['object']")"
expect_true "text: said under the row" grep -qxF '             a pg.lock (its type and member, from DWARF at its top site)' \
	<(grep -A1 -E '^           osd_handle_op\+0x[0-9a-f]+ ' "$run.txt")
"$CORECAP" html -o "$WORK/pgs-object.html" "$run" >/dev/null 2>&1
expect_true "HTML: said under the family's name too" grep -qF '<small class="cc-lock-object">a pg.lock</small>' "$WORK/pgs-object.html"
expect_eq "a named lock has no object line (the big lock of the first run)" False \
	"$(json "$WORK/big.json" "'object' in $big")"
expect_true "text: the family is one row 'osd_handle_op+0x..' whose detail counts 4 locks" \
	grep -qE '^             4 locks taken here:' <(grep -A3 -E '^           osd_handle_op\+0x[0-9a-f]+ ' "$run.txt")
"$CORECAP" html -o "$WORK/pgs.html" "$run" >/dev/null 2>&1
expect_calc "HTML: the family's details list its 4 members" \
	"$(python3 -c "
import re
h = open('$WORK/pgs.html').read()
m = re.search(r'<details><summary><span title=\"osd_handle_op\+0x[0-9a-f]+\">.*?</summary><ul>(.*?)</ul>', h)
print(m.group(1).count('<li>') if m else 0)") == 4"
finish
