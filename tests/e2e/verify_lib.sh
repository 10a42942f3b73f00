# Helpers for corecap verify's end-to-end tests (sourced): refosd under
# the shim, and its sites by function name.
# shellcheck shell=bash
. "$CORECAP_SRC/tests/e2e/refosd_lib.sh"
. "$CORECAP_SRC/tests/e2e/preload_lib.sh"

CORECAP="$CORECAP_BUILD/cli/corecap"
[ -x "$CORECAP" ] || { echo "FAIL: $CORECAP is not built"; exit 1; }
command -v addr2line >/dev/null || skip "addr2line (binutils) is not installed"

# start_shimmed NAME [refosd options]: refosd under the shim; OSD_PID, OSD_PORT.
start_shimmed() {
	local name=$1
	shift
	launch_refosd "$name" env LD_PRELOAD="$shim" "$BIN/refosd" --port 0 "$@"
}

# site_of FUNCTION: the shim's site (refosd+0xOFF) whose call is in FUNCTION;
# the daemon must have waited there at least once.
site_of() {
	local addr off
	"$stats_dump" "$OSD_PID" | awk -F'\t' '$1 == "site" && $4 != "cond" { print $3 }' |
		sed -n 's/.*refosd+\(0x[0-9a-f]*\)$/\1/p' >"$WORK/sites"
	while read -r off; do
		# A return address: the call is the byte before.
		if [ "$(addr2line -f -e "$BIN/refosd" "$(printf '0x%x' $((off - 1)))" | head -1)" = "$1" ]; then
			echo "refosd+$off"
			return 0
		fi
	done <"$WORK/sites"
	return 1
}

# site_in FUNCTION: the site (refosd+0xOFF, the return address) of FUNCTION's
# first call to pthread_mutex_lock, from the binary: a site need not have
# been contended to take a delay (the shim tracks every hold at the delayed
# site).
site_in() {
	command -v objdump >/dev/null || skip "objdump (binutils) is not installed"
	objdump -d --no-show-raw-insn "$BIN/refosd" | awk -v fn="<$1>:" '
		$2 == fn { inside = 1; next }
		inside && /^$/ { exit }
		inside && want { sub(/:$/, "", $1); print "refosd+0x" $1; exit }
		inside && /call.*<pthread_mutex_lock@plt>/ { want = 1 }' | grep . ||
		{ echo "FAIL: no call to pthread_mutex_lock in $1 (refosd)" >&2; return 1; }
}

# control_field NAME: a field of the stats file's control line.
control_field() {
	"$stats_dump" "$OSD_PID" | awk -F'\t' -v k="$1" '$1 == "control" { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }'
}

# bench_iops SECONDS: refbench's average IOPS against the daemon.
bench_iops() {
	"$BIN/refbench" -p "$OSD_PORT" -t 8 -b 1 -d "$1" --no-progress write >"$WORK/bench.out" 2>&1 ||
		{ echo "FAIL: refbench exited non-zero"; cat "$WORK/bench.out"; exit 1; }
	summary_value "$WORK/bench.out" "Average IOPS"
}
