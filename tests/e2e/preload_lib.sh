# Shared by the preload_*.sh tests: where things are, and small helpers.
# Sourced after tests/e2e/lib.sh.
shim="$CORECAP_BUILD/preload/libcorecap-preload.so"
stats_dump="$CORECAP_BUILD/preload/corecap-stats-dump"
helpers="$CORECAP_BUILD/tests/e2e"
[ -r "$shim" ] || skip "the shim is not built: $shim"
[ -x "$stats_dump" ] || skip "corecap-stats-dump is not built: $stats_dump"

# wait_for FILE PATTERN [SECONDS]: until a line of FILE matches.
wait_for() {
	local i
	for i in $(seq 1 $((${3:-10} * 20))); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# field TSV_LINE N: the Nth tab-separated field.
field() {
	printf '%s\n' "$1" | cut -f"$2"
}
