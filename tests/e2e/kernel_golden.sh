#!/usr/bin/env bash
# `corecap report` on the committed kernel run (tests/data/analysis/
# golden-kernel, made by golden-kernel-record.sh there: a bare refosd
# --big-lock recorded with kernel events by the eBPF producer) prints
# exactly the committed text and JSON: the kernel reader, the scheduler
# and futex models, the lock tables, the diagnosis from futex events and
# both renderings, post-mortem, byte for byte, with symbols from
# golden-kernel-symfs. Run as nobody (setpriv) when started as root, as
# whoever starts it otherwise: reading a kernel run needs no privilege.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"

as=()
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null || skip "setpriv is not installed (util-linux)"
	getent passwd nobody >/dev/null || skip "there is no user nobody"
	as=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
	chmod 755 "$WORK"
	# A checkout under a private directory (mktemp -d makes one 0700) keeps
	# nobody from the binaries and the data: then as root, said.
	if ! "${as[@]}" test -x "$CORECAP" -a -r "$DATA/golden-kernel.expect.txt"; then
		echo "note: user nobody cannot reach '$CORECAP' or the data (a parent directory is private): the reports run as root"
		as=()
	fi
fi
out="$WORK/out"
mkdir "$out"
[ ${#as[@]} -eq 0 ] || chown nobody:nogroup "$out"
# A symbol cache of the test's own (the first rendering fills it, the
# second reads it), none of the user's; and no debuginfod server, whose
# debug files would add libc's source lines to the JSON.
cache=(env -u DEBUGINFOD_URLS HOME="$out" XDG_CACHE_HOME="$out/cache")
expect_eq "the reports run as" "$([ ${#as[@]} -eq 0 ] && id -un || echo nobody)" \
	"$("${as[@]}" id -un)"

cd "$DATA"
for fmt in txt json; do
	opts=(--symfs golden-kernel-symfs)
	[ "$fmt" = json ] && opts+=(--json)
	status=0
	"${as[@]}" "${cache[@]}" "$CORECAP" report "${opts[@]}" golden-kernel >"$WORK/out.$fmt" \
		2>"$WORK/err.$fmt" || status=$?
	expect_eq "report ($fmt) exit status" 0 "$status"
	[ "$status" = 0 ] || sed 's/^/    /' "$WORK/err.$fmt"
	_checks=$((_checks + 1))
	if diff -u "golden-kernel.expect.$fmt" "$WORK/out.$fmt" >"$WORK/diff.$fmt"; then
		echo "ok: $fmt output matches golden-kernel.expect.$fmt"
	else
		echo "FAIL: $fmt output differs from golden-kernel.expect.$fmt (regenerate with golden-kernel-record.sh only for a deliberate change):"
		head -80 "$WORK/diff.$fmt"
		_failures=$((_failures + 1))
	fi
done

# The run is what the golden stands for: kernel events from the eBPF
# producer, none lost, and the report's kernel sections with content.
expect_eq "the run's kernel events: producer, lost" "bpf 0" \
	"$(json golden-kernel/manifest.json "'%s %d' % (d['kernel_events']['producer'], d['kernel_events']['lost']['total'])")"
expect_true "the text has the kernel thread states" grep -q '^states     (kernel' golden-kernel.expect.txt
expect_eq "the futex lock table's first row, the big lock taken in osd_handle_op" \
	"d.osd.big_lock futex osd_handle_op" \
	"$(json "$WORK/out.json" "' '.join([d['locks'][0]['name'], d['locks'][0]['source'], d['locks'][0]['symbol'].split('+')[0]])")"
expect_eq "the diagnosis: the big lock, from futex events" "lock d.osd.big_lock futex" \
	"$(json "$WORK/out.json" "' '.join([d['diagnosis']['kind'], d['diagnosis']['name'], d['ceiling']['source']])")"
# Small, and stays so: the run, its symbols and the expected reports.
expect_calc "golden kernel files (bytes)" \
	"$(find golden-kernel golden-kernel-symfs golden-kernel.expect.* -type f -printf '%s\n' |
		awk '{ n += $1 } END { print n }') < 400000"
finish
