#!/usr/bin/env bash
# One name per lock (analysis/model/lock_table.h, corecap_lock_label):
# refosd --big-lock recorded under refbench -t 16. The big lock is
# d.osd.big_lock (its variable, from DWARF) in every section of the text
# report that names it: the diagnosis, the candidates, the projection, the
# lock tables and the op split's lock_wait; the shards' heap locks are
# named by their site alone, FUNCTION+0xOFF, in the tables and the op
# split alike. No name anywhere is decorated ("lock at", " xN",
# " [0xADDR]", "lock lock"), and the op split's JSON has no "NAME [2]"
# key. The lock tables' top rows show file:line without --lines: the big
# lock's site is the line of refosd's pthread_mutex_lock(&osd->big_lock).
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
need_sessiond
need_refosd

run="$WORK/big"
start_refosd big --big-lock --op-cpu-us 50 --debug 0 --msgr-threads 1 --shards 2 --threads-per-shard 2
record_refbench "$run" -t 16 -b 1 -d 3 write
stop_refosd
txt="$run.txt"
j="$run.json"

big="[l for l in d['locks'] if (l['symbol'] or '').startswith('osd_handle_op+')][0]"
name=$(json "$j" "$big['name']")
site=$(json "$j" "$big['symbol']")
expect_eq "the big lock's name is its variable" d.osd.big_lock "$name"
echo "the big lock: $name, taken most at $site"

# Each section that names the big lock names it so.
section() { # TITLE-REGEX: the lines of the text section that starts with it
	awk -v re="$1" '$0 ~ "^" re { on = 1; print; next } on && /^[A-Za-z]/ { exit } on { print }' "$txt"
}
expect_true "the diagnosis names $name" grep -qF "$name" <(section DIAGNOSIS)
expect_true "the projection names $name" grep -qF "lock $name" <(section PROJECTION)
expect_true "the shim's lock table names $name" grep -Eq "^ +$name +[0-9]" <(section 'locks ')
expect_true "the op split's lock_wait names $name" grep -Eq "lock_wait: .*$name [0-9]" "$txt"
if grep -q '^CANDIDATES' "$txt"; then
	expect_true "the candidates name $name" grep -qF "$name" <(section CANDIDATES)
fi

# No decorated name anywhere.
expect_eq "no 'lock at SITE' in the text" 0 "$(grep -c 'lock at [A-Za-z_0-9]*+0x' "$txt" || true)"
expect_eq "no 'lock lock' in the text" 0 "$(grep -c 'lock lock' "$txt" || true)"
expect_eq "no 'NAME [0xADDR]' in the text" 0 "$(grep -Ec '[A-Za-z_0-9.]+ \[0x[0-9a-f]+\]' "$txt" || true)"
expect_eq "no 'SITE xN' in the text" 0 "$(grep -Ec '\+0x[0-9a-f]+ x[0-9]+' "$txt" || true)"
bad="[n for n in [l['name'] for l in d['locks'] + d['lock_rows'] + d.get('idle_waits', []) + d.get('idle_wait_rows', [])] if 'lock at' in n or ' [0x' in n or __import__('re').search(r' x[0-9]+$', n)]"
expect_eq "no decorated lock name in the JSON" "[]" "$(json "$j" "$bad")"
dup="[k for o in d['ops']['by_type'].values() for k in o['detail_us']['lock_wait'] if __import__('re').search(r' \[[0-9]+\]$', k)]"
expect_eq "no 'NAME [2]' key in the op split's JSON" "[]" "$(json "$j" "$dup")"

# The shards' queue locks: several heap locks at one site, one name (the
# site's). A shard lock is named by its busiest site, shards_queue's or
# its worker's (shards_worker_main's), so the two shards' locks form one
# family only in a run where both are busiest at the same site.
fam=$(json "$j" "([r['name'] for r in d['lock_rows'] if r['source'] == 'shim' and r['family'] and len(r['members']) > 1 and r['name'].startswith(('shards_queue+', 'shards_worker_main+'))] or [''])[0]")
if [ -n "$fam" ]; then
	expect_true "the family $fam lists its locks in its detail" \
		grep -Eq "^ +[0-9]+ locks taken here:" <(grep -A3 -F " $fam " <(section 'locks '))
	if grep -q "lock_wait: .*${fam%%+*}" "$txt"; then
		expect_eq "the op split names the shards' locks $fam once" 1 \
			"$(grep -m1 'lock_wait:' "$txt" | grep -o "${fam%%+*}+0x[0-9a-f]*" | sort -u | wc -l)"
	fi
else
	echo "note: no family of the two shards' locks was contended in this run"
fi

# file:line by default: the big lock's site is refosd's lock call.
line=$(grep -n 'pthread_mutex_lock(&osd->big_lock)' "$CORECAP_SRC/tests/refosd/osd.c" | head -1 | cut -d: -f1)
expect_true "the lock table shows $site at osd.c:$line without --lines" \
	grep -qF "* $site (osd.c:$line):" <(section 'locks ')
finish
