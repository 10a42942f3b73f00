#!/usr/bin/env bash
# The shim's CORECAP_DUMP file in a shared directory (issue 42, item 2):
# a root daemon never follows a symlink a user planted at the name (the
# root 0600 file behind it stays byte for byte), never appends to a file
# another user owns, and never hangs at exit on a FIFO, with or without a
# reader; each refusal is one warning. Its own file is created 0600.
set -u
. "${CORECAP_SRC:?}/tests/e2e/collector_lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (the daemon runs as root beside a user)"
command -v setpriv >/dev/null || skip "setpriv is not installed (util-linux)"
as_nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
SHIM="$CORECAP_BUILD/preload/libcorecap-preload.so"
PROG="$CORECAP_BUILD/tests/e2e/security_profile_reexec"
[ -x "$PROG" ] || { echo "FAIL: $PROG is not built"; exit 1; }
# daemon DUMP: a short-lived program under the shim, as root, dumping to DUMP
# at its exit (bounded: a hang shows as 124). Its stderr in $WORK/err.
daemon() { CORECAP_DUMP="$1" LD_PRELOAD="$SHIM" timeout 10 "$PROG" --exit 2>"$WORK/err"; echo $?; }

shared="$WORK/shared"
mkdir -m 1777 "$shared"
head -c 4096 /dev/urandom >"$WORK/rootfile"
chmod 600 "$WORK/rootfile"
sum=$(sha256sum <"$WORK/rootfile")

"${as_nobody[@]}" ln -s "$WORK/rootfile" "$shared/dump.txt"
expect_eq "a dump name a user made a symlink to a root file: the daemon" 0 "$(daemon "$shared/dump.txt")"
expect_eq "... the root file is unchanged" "$sum" "$(sha256sum <"$WORK/rootfile")"
# In a sticky directory the kernel refuses the link itself (EACCES); elsewhere O_NOFOLLOW does.
expect_true "... one warning" sh -c "[ \$(wc -l <'$WORK/err') -eq 1 ] && grep -Eq \"^corecap: cannot open dump file '$shared/dump.txt': (Permission denied|a symbolic link, not followed); no dump\\\$\" '$WORK/err'"
userdir="$WORK/userdir"
mkdir -m 755 "$userdir"
chown nobody:nogroup "$userdir"
"${as_nobody[@]}" ln -s "$WORK/rootfile" "$userdir/dump.txt"
expect_eq "the same link in a directory of the user's: the daemon" 0 "$(daemon "$userdir/dump.txt")"
expect_eq "... the root file is unchanged" "$sum" "$(sha256sum <"$WORK/rootfile")"
expect_eq "... one warning" "corecap: cannot open dump file '$userdir/dump.txt': a symbolic link, not followed; no dump" "$(cat "$WORK/err")"

"${as_nobody[@]}" sh -c "echo mine >'$shared/users.txt'; chmod 666 '$shared/users.txt'"
expect_eq "a dump file another user owns (mode 0666): the daemon" 0 "$(daemon "$shared/users.txt")"
expect_eq "... appends nothing" "mine" "$(cat "$shared/users.txt")"
expect_eq "... one warning" "corecap: cannot open dump file '$shared/users.txt': it belongs to uid $(id -u nobody), not to this process's uid 0; no dump" "$(cat "$WORK/err")"

mkfifo -m 622 "$shared/fifo"
start=$(date +%s%N)
expect_eq "a FIFO with no reader: the daemon exits (not killed by the 10 s timeout)" 0 "$(daemon "$shared/fifo")"
expect_calc "... within 2 s" "($(date +%s%N) - $start) / 1e9 < 2"
expect_eq "... one warning" "corecap: cannot open dump file '$shared/fifo': not a regular file; no dump" "$(cat "$WORK/err")"
"${as_nobody[@]}" sh -c "exec cat '$shared/fifo' >'$userdir/fifo.read'" 2>/dev/null &
reader=$!
track "$reader"
sleep 0.2
expect_eq "a FIFO with a reader: the daemon exits" 0 "$(daemon "$shared/fifo")"
expect_eq "... one warning" "corecap: cannot open dump file '$shared/fifo': not a regular file; no dump" "$(cat "$WORK/err")"
wait "$reader" 2>/dev/null
expect_eq "... and wrote nothing to the reader" 0 "$(stat -c %s "$userdir/fifo.read")"

expect_eq "the daemon's own new dump file: the daemon" 0 "$(daemon "$WORK/own.%p")"
own=$(ls "$WORK"/own.* 2>/dev/null | head -n 1)
expect_true "... wrote its summary" grep -q '^corecap: summary of pid' "$own"
expect_eq "... into a file of mode 0600" "600" "$(stat -c %a "$own")"
expect_eq "... with no warning" "" "$(cat "$WORK/err")"
finish
