#!/usr/bin/env bash
# Every man page in docs/man renders without a warning under
# `man --warnings` (groff's -ww: unknown requests, lines that cannot be
# adjusted, bad escapes), at 80 columns; every command of `corecap --help`
# has its page, cited by its --help, and corecap(1) lists each of them
# and cites it in SEE ALSO.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
command -v man >/dev/null || skip "man (man-db) is not installed (scripts/install-deps)"
CORECAP="${CORECAP_BUILD:?}/cli/corecap"
[ -x "$CORECAP" ] || { echo "FAIL: $CORECAP is not built"; exit 1; }
e2e_workdir docs

pages=("$CORECAP_SRC"/docs/man/*.1)
expect_calc "man pages found (${#pages[@]})" "${#pages[@]} >= 10"
for p in "${pages[@]}"; do
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$p" >"$WORK/page" 2>"$WORK/warn" || true
	expect_eq "$(basename "$p"): man --warnings" "" "$(cat "$WORK/warn")"
	expect_true "$(basename "$p"): renders some text" test -s "$WORK/page"
done
cmds=$("$CORECAP" --help | awk '/^commands:/ { on = 1; next } on && /^   [a-z]/ { print $1 }')
expect_true "corecap --help lists commands" test -n "$cmds"
for c in $cmds; do
	expect_file "$CORECAP_SRC/docs/man/corecap-$c.1"
	expect_true "corecap help $c (= $c --help) cites corecap-$c(1)" \
		grep -qi "see also.*corecap-$c(1)" <("$CORECAP" help "$c" | tr '\n' ' ')
	expect_true "... and so does $c --help" grep -q "corecap-$c(1)" <("$CORECAP" "$c" --help 2>&1)
	expect_true "corecap(1) describes '$c'" grep -qx ".B $c" "$CORECAP_SRC/docs/man/corecap.1"
	expect_true "corecap(1) cites corecap-$c(1) in SEE ALSO" \
		grep -qx ".BR corecap-$c (1)[,]*" <(sed -n '/^\.SH SEE ALSO/,$p' "$CORECAP_SRC/docs/man/corecap.1")
done
finish
