#!/usr/bin/env bash
# The shim beside tcmalloc (Ceph links it): preloaded before or after the
# shim, or linked into the program. Every thread mallocs while it
# contends; the run must finish (no deadlock: each run has a deadline),
# give the program's own output, and show the contention in the counters.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
. "$CORECAP_SRC/tests/e2e/preload_lib.sh"

tc=/usr/lib/x86_64-linux-gnu/libtcmalloc.so.4
[ -r "$tc" ] || skip "tcmalloc is not installed: $tc (libgoogle-perftools4)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() { # what preload program
	local what=$1 preload=$2 prog=$3 status=0
	CORECAP_DUMP=off LD_PRELOAD="$preload" timeout 30 "$prog" 4 200 50 \
		>"$work/out" 2>"$work/err" || status=$?
	expect_eq "$what: finishes" 0 "$status"
	expect_true "$what: the program's output" grep -q '^contend: done$' "$work/out"
	expect_true "$what: contention counted" \
		grep -Eq 'contend: shim lock contentions=[1-9]' "$work/out"
	expect_eq "$what: nothing on stderr" "" "$(cat "$work/err")"
}

run "shim then tcmalloc" "$shim:$tc" "$helpers/preload_contend"
run "tcmalloc then shim" "$tc:$shim" "$helpers/preload_contend"
if [ -x "$helpers/preload_contend_tcmalloc" ]; then
	expect_true "linked with tcmalloc" \
		sh -c "ldd '$helpers/preload_contend_tcmalloc' | grep -q tcmalloc"
	run "tcmalloc linked" "$shim" "$helpers/preload_contend_tcmalloc"
fi
finish
