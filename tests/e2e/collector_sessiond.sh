#!/usr/bin/env bash
# corecap record starts a session daemon when none answers. Done as
# nobody with a private LTTNG_HOME, so the session daemon the other tests
# share is not touched; the daemon it starts is stopped at the end.
set -u
. "${CORECAP_SRC:?}/tests/e2e/collector_lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to run as nobody with a private LTTNG_HOME"
command -v setpriv >/dev/null || skip "setpriv is not installed (util-linux)"
command -v lttng-sessiond >/dev/null || skip "lttng-sessiond is not installed"
getent passwd nobody >/dev/null || skip "there is no user 'nobody'"

home="$WORK/home"
mkdir -m 700 "$home"
chown nobody "$home" "$WORK"
as_nobody=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups env HOME="$home" LTTNG_HOME="$home")
_stop_private_sessiond() {
	local p
	p=$(cat "$home/.lttng/lttng-sessiond.pid" 2>/dev/null) && kill "$p" 2>/dev/null
	e2e_cleanup
}
trap _stop_private_sessiond EXIT

# A checkout under a private directory (mktemp -d makes one 0700) keeps
# nobody from the binaries: that is the machine's setup, not a fault here.
"${as_nobody[@]}" "$CORECAP" --version >/dev/null 2>&1 ||
	skip "user nobody cannot run '$CORECAP' (a parent directory is private); check out where others may read"

"${as_nobody[@]}" lttng list >/dev/null 2>&1
expect_eq "no session daemon answers for nobody at first" 1 "$?"

launch_refosd osd "${as_nobody[@]}" "$CORECAP" run -- "$REFOSD" --port 0

"${as_nobody[@]}" "$CORECAP" record -p "$OSD_PID" -o "$WORK/run" -- \
	"$REFBENCH" -p "$OSD_PORT" -t 2 -b 1 -d 1 write >"$WORK/rec.out" 2>"$WORK/rec.err"
expect_eq "record as nobody" 0 "$?"
expect_true "it says it started lttng-sessiond" grep -q 'started lttng-sessiond' "$WORK/rec.err"
expect_true "a session daemon now answers for nobody" "${as_nobody[@]}" lttng list
expect_eq "the manifest says so" True "$(json "$WORK/run/manifest.json" 'd["lttng"]["started_sessiond"]')"
expect_eq "the daemon registered in time" True "$(json "$WORK/run/manifest.json" 'd["lttng"]["target_has_probes"]')"
babeltrace2 "$WORK/run/trace" 2>/dev/null | grep -q -m1 'corecap_op:begin'
expect_eq "the trace holds corecap_op events" 0 "$?"

finish
