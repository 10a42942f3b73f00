#!/usr/bin/env bash
# corecap's command table, and what `corecap run` hands to the command it execs.
set -u
. "${CORECAP_SRC:?}/tests/e2e/collector_lib.sh"

status() { "$@" >"$WORK/out" 2>"$WORK/err"; echo $?; }

expect_eq "corecap --help exits" 0 "$(status "$CORECAP" --help)"
expect_true "--help lists run" grep -q '^ *run ' "$WORK/out"
expect_true "--help lists record" grep -q '^ *record ' "$WORK/out"
expect_eq "corecap --version exits" 0 "$(status "$CORECAP" --version)"
expect_true "--version prints the version" grep -qx 'corecap [0-9][0-9.]*' "$WORK/out"
expect_eq "corecap help record exits" 0 "$(status "$CORECAP" help record)"
expect_true "help record shows its usage" grep -q 'usage: corecap record -p PID' "$WORK/out"
expect_eq "corecap help run exits" 0 "$(status "$CORECAP" help run)"
expect_eq "corecap help nosuch exits" 2 "$(status "$CORECAP" help nosuch)"
expect_eq "corecap help of a typo'd command says the command meant" "corecap: unknown command 'reprot' (did you mean 'report'?)" "$(status "$CORECAP" help reprot >/dev/null; cat "$WORK/err")"
expect_eq "an unknown command exits" 2 "$(status "$CORECAP" nosuch)"
expect_true "an unknown command names itself" grep -q "unknown command 'nosuch'" "$WORK/err"
expect_true "... in one line, not the whole usage" sh -c "[ \$(wc -l <'$WORK/err') -eq 1 ] && ! grep -q 'usage: corecap' '$WORK/err'"
expect_eq "a typo'd command exits" 2 "$(status "$CORECAP" reprot)"
expect_eq "... and says the command meant" "corecap: unknown command 'reprot' (did you mean 'report'?)" "$(cat "$WORK/err")"
expect_eq "a command's prefix" "corecap: unknown command 'rec' (did you mean 'record'?)" "$(status "$CORECAP" rec >/dev/null; cat "$WORK/err")"
expect_eq "no command exits" 2 "$(status "$CORECAP")"

# corecap run: same PID, our libraries first, the old LD_PRELOAD kept.
probe='echo "pid=$$"; echo "preload=$LD_PRELOAD"; echo "cpuprofile=${CPUPROFILE:-}"; echo "signal=${CPUPROFILESIGNAL:-}"'
LD_PRELOAD=/lib/x86_64-linux-gnu/libm.so.6 "$CORECAP" run -- sh -c "$probe" >"$WORK/run.out" 2>"$WORK/run.err" &
p=$!
wait $p
expect_eq "corecap run execs in place (same PID)" "pid=$p" "$(grep '^pid=' "$WORK/run.out")"
preload=$(sed -n 's/^preload=//p' "$WORK/run.out")
expect_eq "the shim comes first" "$CORECAP_BUILD/preload/libcorecap-preload.so" "${preload%%:*}"
expect_true "the LTTng-UST fork helper is preloaded" grep -q 'preload=.*:/usr/lib/x86_64-linux-gnu/liblttng-ust-fork.so' "$WORK/run.out"
expect_eq "the existing LD_PRELOAD comes last" "/lib/x86_64-linux-gnu/libm.so.6" "${preload##*:}"
expect_eq "no profiler without --cpuprofile" "cpuprofile=" "$(grep '^cpuprofile=' "$WORK/run.out")"

"$CORECAP" run --no-shim -- sh -c "$probe" >"$WORK/run.out" 2>&1
expect_eq "--no-shim preloads only the probes" "preload=$CORECAP_BUILD/tracepoints/libcorecap-tp.so" "$(grep '^preload=' "$WORK/run.out")"

"$CORECAP" run --cpuprofile -- sh -c "$probe" >"$WORK/run.out" 2>"$WORK/run.err" &
p=$!
wait $p
expect_true "--cpuprofile preloads libprofiler" grep -q 'preload=.*/usr/lib/x86_64-linux-gnu/libprofiler.so.0' "$WORK/run.out"
prof=$(sed -n 's/^cpuprofile=//p' "$WORK/run.out")
expect_true "--cpuprofile names a profile in a private directory of its own" \
	sh -c "echo '$prof' | grep -Eq '^/.*/corecap-cpu\.[A-Za-z0-9]{6}/prof\$'"
expect_true "... which is gone once the command has exited" sh -c "for i in \$(seq 50); do [ -e '${prof%/*}' ] || exit 0; sleep 0.1; done; exit 1"
expect_eq "--cpuprofile sets the toggle signal" "signal=12" "$(grep '^signal=' "$WORK/run.out")"

expect_eq "CORECAP_PRELOAD_LIB overrides the shim" "preload=/lib/x86_64-linux-gnu/libm.so.6:/usr/lib/x86_64-linux-gnu/liblttng-ust-fork.so" \
	"$(CORECAP_PRELOAD_LIB=/lib/x86_64-linux-gnu/libm.so.6 "$CORECAP" run -- sh -c "$probe" | grep '^preload=')"
expect_eq "a missing shim is an error" 1 "$(CORECAP_PRELOAD_LIB=/nonexistent/shim.so status "$CORECAP" run -- true)"
expect_true "the error names the library" grep -q "CORECAP_PRELOAD_LIB='/nonexistent/shim.so'" "$WORK/err"
expect_eq "run without a command is a usage error" 2 "$(status "$CORECAP" run)"
expect_eq "run of a missing command is an error" 1 "$(status "$CORECAP" run -- /nonexistent/cmd)"
expect_true "the error names the command" grep -q "cannot run '/nonexistent/cmd'" "$WORK/err"

# record: usage errors are exit 2 with the usage text.
expect_eq "record without -p" 2 "$(status "$CORECAP" record)"
expect_true "record without -p says so" grep -q 'missing -p PID' "$WORK/err"
expect_true "record's usage follows" grep -q 'usage: corecap record' "$WORK/err"
expect_eq "record with a bad duration" 2 "$(status "$CORECAP" record -p 1 -d soon)"
expect_eq "record with a stray argument" 2 "$(status "$CORECAP" record -p 1 refbench)"
expect_eq "record --help" 0 "$(status "$CORECAP" record --help)"

finish
