# The projection's bound and the diagnosis differ across refosd configurations whose bound
# is constructed (bench/ceiling_projection.sh): projected to 2 CPUs from a
# run pinned to 1, each names its constructed bound, relieving it raises
# the throughput, and the six are not all the same; a benchmark with one
# op in flight is bound by its closed loop. Projected vs measured
# IOPS are printed, not asserted (the benchmark's table, in rounds, is the
# record of those); relieved IOPS are asserted against what the diagnosis
# stated (below).
#
# Measured on a 2-core machine: other processes' CPU changes what binds
# (the daemon's threads then wait for CPUs), so the test first measures
# the others' CPU and reports itself skipped above OTHERS_MAX cores.
. "$CORECAP_SRC/tests/e2e/lib.sh"
e2e_workdir ceiling

OTHERS_MAX=${CEILING_OTHERS_MAX:-0.3}
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (one for the daemon, one for the benchmark)"
command -v taskset >/dev/null || skip "taskset (util-linux) is not installed"
skip_if_others_busy "$OTHERS_MAX" "what binds on 1 CPU cannot be constructed"

CEILING_OUT="$WORK/runs" CEILING_BENCH_S=2 CEILING_ROUNDS=1 bash "$CORECAP_SRC/bench/ceiling_projection.sh" "$CORECAP_BUILD" ||
	{ echo "FAIL: bench/ceiling_projection.sh failed"; exit 1; }
v="$WORK/runs/verdicts.tsv"
named() { awk -F'\t' -v n="$1" '$1 == n { print $3 }' "$v"; }
expect_true "big lock: the lock is named ($(named biglock))" grep -q 'lock.*big_lock' <(named biglock)
expect_true "one messenger: its thread is named ($(named msgr))" grep -q 'msgr-worker' <(named msgr)
expect_true "the finisher is named ($(named finisher))" grep -q 'finisher' <(named finisher)
expect_true "--debug 20: the log thread or its lock is named ($(named debug20))" grep -q 'log' <(named debug20)
expect_true "plain CPU: the cores are named ($(named cpu))" grep -qx 'cores' <(named cpu)
expect_true "one op in flight: the closed loop is named ($(named loop))" grep -q 'closed loop' <(named loop)
expect_calc "the six verdicts are not all the same" "$(cut -f3 "$v" | sort -u | wc -l) > 1"
# The diagnosis of a recorded run on 2 CPUs names the constructed cause
# (docs/methodology.md, "The diagnosis"): exactly one kind each, and its
# text, JSON and HTML agree.
diag() { awk -F'\t' -v n="$1" '$1 == n { print $7 " " $8 }' "$v"; }
expect_true "diagnosis, big lock: the lock ($(diag biglock))" grep -q '^lock .*big_lock' <(diag biglock)
expect_true "diagnosis, one messenger: its thread ($(diag msgr))" grep -q '^thread msgr-worker' <(diag msgr)
expect_true "diagnosis, the finisher ($(diag finisher))" grep -q '^thread finisher' <(diag finisher)
expect_true "diagnosis, --debug 20: the log thread or its lock ($(diag debug20))" grep -Eq '^(thread|lock) .*log' <(diag debug20)
expect_true "diagnosis, plain CPU: the cores ($(diag cpu))" grep -q '^cores' <(diag cpu)
expect_true "diagnosis, one op in flight: the closed loop ($(diag loop))" grep -q '^closed_loop' <(diag loop)
for c in biglock msgr finisher debug20 cpu loop; do
	d="$WORK/runs/$c.diag"
	expect_true "$c: the diagnosis agrees in text, JSON and HTML" \
		python3 "$CORECAP_SRC/tests/e2e/diagnosis_diag_agree.py" "$d.txt" "$d.json" "$d.html"
done
# The named bound is the one to relieve: without the option that
# constructs it, the same daemon on 2 CPUs does at least 10% more.
for c in biglock msgr finisher debug20; do
	read -r meas rel < <(awk -F'\t' -v n="$c" '$1 == n { print $5, $6 }' "$v")
	expect_calc "$c: relieving its bound raises the IOPS measured on 2 CPUs ($meas -> $rel)" \
		"$rel >= 1.1 * $meas"
done
# Relieved, the throughput is what the diagnosis stated (issue #41's known
# answer, within 20%), in the same conditions as its recorded run (the
# daemon on CPUs 0-1, refbench beside it, not recorded). What it stated
# for the relief: its headroom (headroom_iops) is how far the named bound
# lets the throughput grow (1/U for a lock or a thread); relieved, that
# bound is gone and the next limit binds, at the throughput the
# diagnosis gives it ("then ... at N ops/s": next_iops). For a cores
# headline the headroom is itself the relief (its CPUs to itself).
#  - biglock: --big-lock dropped; the ops' work is unchanged.
#  - msgr: --msgr-threads 1 dropped: its 60 us per request spread over
#    refosd's 3 messenger threads, the work unchanged.
#  - loop: 16 ops in flight (-t 16) instead of 1: relieving a closed loop
#    is more concurrency, the daemon unchanged (the diagnosis' action).
#  - finisher, debug20: refosd has one finisher and one log thread, so
#    no relief keeps the work: dropping --finisher-cpu-us / --log-cpu-us
#    also takes their CPU per op away, which the next limit (the cores at
#    the recorded CPU per op) counts. The relieved IOPS is printed against
#    it, not asserted: it measured 2.3x (finisher) and 4.5x (debug20) of
#    it, as a model of the same work on more threads must miss.
#  - cpu: the cores; this machine has no more to relieve them with.
# Measured (2026-12-06, 2 s runs, the bench in a cgroup weighted above
# other processes' 0.2-1.3 CPU), two runs: relieved over stated 1.08 and
# 1.04 (biglock, 20470 vs 19034, 21005 vs 20169), 0.81 and 0.91 (msgr,
# 15651 vs 19380, 17703 vs 19527), 1.12 and 1.09 (loop, 22487 vs 20005,
# 20632 vs 18994).
stated() { # CONFIG: the throughput the diagnosis stated for its relief
	awk -F'\t' -v n="$1" '$1 == n { print ($7 == "cores") ? $9 : $11 }' "$v"
}
for c in biglock msgr loop finisher debug20; do
	read -r rel kind < <(awk -F'\t' -v n="$c" '$1 == n { print $6, $7 }' "$v")
	st=$(stated "$c")
	echo "$c: diagnosis $kind, relief stated $st ops/s, measured $rel: ratio $(calc "$rel / $st")"
	case $c in finisher | debug20) continue ;; esac
	if [ "$c" = loop ]; then
		# The loop's next limit is the cores at the CPU per op of the run
		# with one op in flight, which pays a hand-off between threads
		# per op that 16 in flight share: the relief measures above it
		# (constant demand per op, what the projection says it assumes).
		# One 2-CPU run with -t 1: 105 us per op, so 19050 ops/s on the
		# cores; -t 16 then made 23699 with its client on the same cores,
		# under 84 us per op. Relieved over stated, 2026-12-07: 1.19-1.24
		# quiet (two builds, two runs each), 1.27-1.54 in a CI rehearsal.
		# Held to at least 0.8 of it, and at most 1.6.
		expect_calc "$c: relieved IOPS at least 0.8 and at most 1.6 of what the diagnosis stated ($rel vs $st)" \
			"$rel >= 0.8 * $st && $rel <= 1.6 * $st"
		continue
	fi
	expect_calc "$c: relieved IOPS within 20% of what the diagnosis stated ($rel vs $st)" \
		"$rel >= 0.8 * $st && $rel <= 1.2 * $st"
done
finish
