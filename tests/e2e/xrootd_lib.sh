# Helpers of the tests that run a real xrootd (scripts/xrootd-server), sourced.
# Every server started with xrd_start is stopped when the test exits.
# shellcheck shell=bash
. "${CORECAP_SRC:?CORECAP_SRC is not set}/tests/e2e/lib.sh"

xs="$CORECAP_SRC/scripts/xrootd-server"
XRDBENCH="${CORECAP_BUILD:?CORECAP_BUILD is not set}/tests/xrootd/xrdbench"
CORECAP="$CORECAP_BUILD/cli/corecap"
[ -x "$XRDBENCH" ] || { echo "FAIL: $XRDBENCH is not built"; exit 1; }

# Skips the test unless xrootd is installed (and, as root, its account exists).
xrd_need_tools() {
	command -v xrootd >/dev/null || skip "xrootd is not installed (scripts/install-deps-xrootd)"
	if [ "$(id -u)" -eq 0 ]; then
		getent passwd xrootd >/dev/null || skip "no account 'xrootd' for xrootd to run as (xrootd-server package)"
	fi
}

e2e_workdir xrootd
# xrootd drops to its own account: it must reach the servers' directories.
chmod 755 "$WORK"
_xrd_dirs=()
e2e_cleanup_hook() {
	local d
	for d in "${_xrd_dirs[@]}"; do "$xs" stop "$d" >/dev/null 2>&1 || true; done
}

# xrd_start NAME [start options]: a server in $WORK/NAME; sets XRD_PORT and
# XRD_PID; the test ends (failed) when it does not start.
xrd_start() {
	local name=$1 rc=0
	shift
	_xrd_dirs+=("$WORK/$name")
	"$xs" start "$WORK/$name" "$@" >"$WORK/$name.start" 2>&1 || rc=$?
	expect_eq "xrootd '$name' starts" 0 "$rc"
	[ "$rc" -eq 0 ] || { cat "$WORK/$name.start"; finish; exit 1; }
	XRD_PORT=$(sed -n 's/^xrootd port: //p' "$WORK/$name.start")
	XRD_PID=$(sed -n 's/^xrootd pid: //p' "$WORK/$name.start")
}

# Average IOPS of a rados-bench-like output file.
xrd_iops_of() { awk -F: '/^Average IOPS/ { gsub(/ /, "", $2); print $2 }' "$1"; }
