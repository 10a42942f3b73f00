#!/usr/bin/env bash
# Clock alignment across hosts (issue 46 item 2): three test hosts whose
# CLOCK_MONOTONIC is offset from the machine's by 0, +37.5 s and -12.25 s
# (time namespaces, tests/e2e/hosts_lib.sh); `corecap clock` through the
# hosts' remote shell recovers each offset within 50 us and within its
# own stated bound, the drift between namespaces of one kernel is 0
# within its bound, and a host it cannot reach is named with the cause.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
. "$CORECAP_SRC/tests/e2e/hosts_lib.sh"
CORECAP="${CORECAP_BUILD:?}/cli/corecap"
[ -x "$CORECAP" ] || { echo "FAIL: $CORECAP is not built"; exit 1; }
e2e_workdir hosts
e2e_cleanup_hook() { hosts_teardown; }
need_hosts
hosts_add a 0
hosts_add b 37.5
hosts_add c -12.25
clock=("$CORECAP" clock --rsh "$HOSTS_RSH" --corecap-path "$CORECAP")

"${clock[@]}" a b c | tee "$WORK/clock.txt"
expect_eq "one line per host" 3 "$(grep -c 'offset .* s, bound .* us' "$WORK/clock.txt")"
"${clock[@]}" -d 1 --json a b c >"$WORK/clock.json"
for h in a b c; do
	true_ns=$(calc "$(cat "$HOSTS_DIR/$h.offset") * 1e9")
	got=$(json "$WORK/clock.json" "[x for x in d['hosts'] if x['host'] == '$h'][0]['offset_ns']")
	bound=$(json "$WORK/clock.json" "[x for x in d['hosts'] if x['host'] == '$h'][0]['bound_ns']")
	drift=$(json "$WORK/clock.json" "[x for x in d['hosts'] if x['host'] == '$h'][0]['drift_ppm']")
	dbound=$(json "$WORK/clock.json" "[x for x in d['hosts'] if x['host'] == '$h'][0]['drift_bound_ppm']")
	err=$(calc "$got - $true_ns")
	echo "host $h: true offset $true_ns ns, recovered $got ns (error $err ns), bound $bound ns; drift $drift ppm +- $dbound"
	expect_calc "host $h: the offset within 50 us of the namespace's" "$err <= 50000 && $err >= -50000"
	expect_calc "host $h: and within its stated bound" "$err <= $bound && $err >= -$bound"
	expect_calc "host $h: the bound is under 50 us" "$bound < 50000"
	expect_calc "host $h: one kernel's clocks do not drift (0 within the bound)" \
		"$drift <= $dbound + 0.001 && $drift >= -$dbound - 0.001"
done
expect_exit_naming "a host the remote shell cannot reach" 1 \
	"cannot measure host 'nosuch': the remote shell closed the connection" "${clock[@]}" a nosuch
expect_eq "the reachable host is still measured" 1 "$(grep -c '^a: offset' "$WORK/out")"
expect_exit_naming "a host without corecap" 1 "cannot measure host 'b'" \
	"$CORECAP" clock --rsh "$HOSTS_RSH" --corecap-path /nonexistent/corecap b
expect_exit_naming "a bad -n" 2 "bad -n '5'" "${clock[@]}" -n 5 a
finish
