#!/usr/bin/env bash
# The -o FILE of every analysis command (export --chrome, flame, html,
# report --dump-ops) never truncates or removes a path it did not create:
# a failed command leaves an existing file byte for byte and a device a
# device; a successful one replaces a regular file whole (same mode) and
# writes a FIFO in place.
set -uo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"

bad="$WORK/bad-run"
mkdir "$bad"
echo '{"format": "corecap-run", "version": 1, "window": {' >"$bad/manifest.json"
good="$WORK/good-run"
cp -r "$DATA/golden-run" "$good"
chmod -R u+w "$good"

# cmd NAME OUT RUN: the command line of NAME writing OUT from RUN.
cmd() {
	case $1 in
	export) echo "$CORECAP export --chrome -o $2 $3" ;;
	flame) echo "$CORECAP flame --kind op --svg -o $2 $3" ;;
	html) echo "$CORECAP html -o $2 $3" ;;
	report) echo "$CORECAP report --dump-ops $2 $3" ;;
	esac
}

for c in export flame html report; do
	# An existing file survives a failed command byte for byte, mode and all.
	keep="$WORK/$c.keep"
	head -c 5000 /dev/urandom >"$keep"
	chmod 640 "$keep"
	sum=$(sha256sum <"$keep")
	status=0
	$(cmd "$c" "$keep" "$bad") >/dev/null 2>"$WORK/$c.err" || status=$?
	expect_eq "$c on a bad run: exit status" 1 "$status"
	expect_eq "$c on a bad run: the existing file is untouched" "$sum" "$(sha256sum <"$keep")"
	expect_eq "$c on a bad run: no temporary file is left" "" \
		"$(find "$WORK" -maxdepth 1 -name '.*corecap-*')"
	# The same through a symbolic link: the link and its file stay.
	ln -s "$keep" "$WORK/$c.link"
	$(cmd "$c" "$WORK/$c.link" "$bad") >/dev/null 2>&1
	expect_true "$c on a bad run: the link is still a link" test -L "$WORK/$c.link"
	expect_eq "$c on a bad run: its file is untouched" "$sum" "$(sha256sum <"$keep")"

	# A successful command replaces the file whole and keeps its mode.
	status=0
	$(cmd "$c" "$keep" "$good") >/dev/null 2>"$WORK/$c.err" || status=$?
	expect_eq "$c on a good run: exit status" 0 "$status"
	expect_true "$c on a good run: the file was replaced" test "$sum" != "$(sha256sum <"$keep")"
	expect_eq "$c on a good run: the mode is kept" 640 "$(stat -c %a "$keep")"
	# Through the link: the link stays a link, its target gets the output.
	rm -f "$keep" && : >"$keep"
	$(cmd "$c" "$WORK/$c.link" "$good") >/dev/null 2>&1
	expect_true "$c on a good run, through a link: still a link" test -L "$WORK/$c.link"
	expect_true "$c on a good run, through a link: the target was written" test -s "$keep"

	# A FIFO is written in place: the reader gets the output, the FIFO stays.
	fifo="$WORK/$c.fifo"
	mkfifo "$fifo"
	timeout 60 cat "$fifo" >"$WORK/$c.fifo.out" &
	reader=$!
	track "$reader"
	$(cmd "$c" "$fifo" "$good") >/dev/null 2>&1
	wait "$reader"
	expect_true "$c into a FIFO: it is still a FIFO" test -p "$fifo"
	expect_true "$c into a FIFO: the reader got the output" test -s "$WORK/$c.fifo.out"

	# A directory is refused by name and left alone.
	mkdir "$WORK/$c.dir"
	expect_fail_naming "$c into a directory" "cannot create '$WORK/$c.dir': Is a directory" \
		$(cmd "$c" "$WORK/$c.dir" "$good")
done

# As root, a failed command writing a device must leave it a device. The
# device is a private node of /dev/null's (1, 3) in $WORK, so that a
# regression does not remove the machine's /dev/null.
if [ "$(id -u)" -eq 0 ] && mknod -m 666 "$WORK/null" c 1 3 2>/dev/null; then
	for c in export flame html report; do
		$(cmd "$c" "$WORK/null" "$bad") >/dev/null 2>&1
		expect_true "$c -o DEVICE on a bad run: it is still a character device" \
			test -c "$WORK/null"
		[ -c "$WORK/null" ] || { rm -f "$WORK/null"; mknod -m 666 "$WORK/null" c 1 3; }
	done
	# And a successful one writes into it, leaving it a device.
	$(cmd export "$WORK/null" "$good") >/dev/null 2>&1
	expect_true "export -o DEVICE on a good run: still a character device" test -c "$WORK/null"
else
	echo "note: not root (or no mknod here): the device checks are skipped"
fi

# A command ended by the trace guard (libbabeltrace2 stalls on metadata cut
# short; the guard's _exit skips every cleanup) removes its own temporary
# file and leaves the existing one alone.
stall="$WORK/stall-run"
cp -r "$DATA/golden-run" "$stall"
chmod -R u+w "$stall"
truncate -s 5000 "$(find "$stall/trace" -name metadata)"
for c in export flame html report; do
	keep="$WORK/$c.stall"
	head -c 3000 /dev/urandom >"$keep"
	sum=$(sha256sum <"$keep")
	# shellcheck disable=SC2046
	expect_fail_naming "$c -o FILE ended by the trace guard" "libbabeltrace2 made no progress" \
		env CORECAP_CTF_CHECK=0 CORECAP_TRACE_STALL_S=1 timeout 60 $(cmd "$c" "$keep" "$stall")
	expect_eq "$c ended by the trace guard: the existing file is untouched" "$sum" "$(sha256sum <"$keep")"
	expect_eq "$c ended by the trace guard: no temporary file is left" "" \
		"$(find "$WORK" -maxdepth 1 -name '.*corecap-*')"
done
finish
