# --big-lock serializes the op path: with --op-cpu-us 50 at -t 8 on two
# cores the daemon uses about one core (the lock holder's spin plus the
# unlocked messenger and finisher work), while the same run without the
# big lock spreads the spin over both cores and uses clearly more. CPU use
# is the daemon's utime + stime from /proc/PID/stat over the refbench run.
#
# Calibration (2 cores, otherwise idle; docs/refosd.md): big lock 1.17-1.21
# cores at 11.5-12k IOPS, without it 1.60-1.69 cores at 20-23k IOPS; on
# 2026-12-04, 1.14-1.17 against 1.48-1.50 on the quiet machine, and in an
# hour when the vCPUs ran slower (no other process, no steal) 1.12-1.26
# against 1.32-1.44, the two runs of a round moving together.
# Asserted: big lock <= BIG_MAX in every round (other processes can only
# lower the daemon's share, never raise it), and without - big lock, taken
# within each round (back to back, one state of the machine) and averaged
# over two clean rounds, >= GAP_MIN. A lock that is not global (per
# shard, per PG) behaves like no big lock (a difference near 0) and fails
# it. The largest big lock against the smallest run without it, across
# rounds, mixed two states of the machine: in the slow hour its
# difference fell to 0.11-0.16 in three attempts of three, where the
# rounds' own differences averaged 0.18-0.24.
#
# CPU taken by other processes squeezes the run without the big lock (it
# wants the whole machine), so a round in which others used more than
# OTHERS_MAX cores does not count for the gap and is repeated; if no two
# clean rounds happen in MAX_ROUNDS and nothing failed, the test reports
# itself skipped and says why.
. "$CORECAP_SRC/tests/e2e/refosd_lib.sh"

BIG_MAX=${REFOSD_BIG_MAX:-1.35}
GAP_MIN=${REFOSD_GAP_MIN:-0.15}
OTHERS_MAX=${REFOSD_OTHERS_MAX:-0.30}
MAX_ROUNDS=${REFOSD_MAX_ROUNDS:-4}
HZ=$(getconf CLK_TCK)
nproc=$(nproc)
[ "$nproc" -ge 2 ] || skip "needs at least 2 CPUs to tell one core from more (have $nproc)"

# run NAME [refosd options]: sets CORES (daemon), WORKERS (its tp_osd_tp
# threads), IOPS and OTHERS (cores used by neither refosd nor refbench).
run() {
	local name=$1 s0 s1 w0 w1 m0 m1 c0 c1 t0 t1 dt rc=0
	shift
	start_refosd "$name" --op-cpu-us 50 "$@"
	children_ticks "$WORK/times" >"$WORK/c0"
	s0=$(cpu_ticks "$OSD_PID")
	w0=$(ticks_of_threads "$OSD_PID" tp_osd_tp)
	m0=$(machine_busy_ticks)
	t0=$(now_s)
	"$BIN/refbench" -p "$OSD_PORT" -t 8 -b 1 -d 2 --no-progress write >"$WORK/$name.bench" 2>&1 || rc=$?
	s1=$(cpu_ticks "$OSD_PID")
	w1=$(ticks_of_threads "$OSD_PID" tp_osd_tp)
	m1=$(machine_busy_ticks)
	t1=$(now_s)
	children_ticks "$WORK/times" >"$WORK/c1"
	c0=$(cat "$WORK/c0")
	c1=$(cat "$WORK/c1")
	stop_refosd "$OSD_PID"
	if [ "$rc" -ne 0 ]; then
		echo "FAIL: refbench against refosd $* exited $rc:"
		cat "$WORK/$name.bench"
		exit 1
	fi
	dt=$(calc "($t1 - $t0) * $HZ")
	CORES=$(calc "($s1 - $s0) / $dt")
	WORKERS=$(calc "($w1 - $w0) / $dt")
	OTHERS=$(calc "(($m1 - $m0) - ($s1 - $s0) - ($c1 - $c0)) / $dt")
	IOPS=$(summary_value "$WORK/$name.bench" "Average IOPS")
}

clean=0
gap_sum=0
gaps=
for round in $(seq 1 "$MAX_ROUNDS"); do
	# The two runs back to back, so that a round sees one state of the machine.
	run big$round --big-lock
	big=$CORES big_w=$WORKERS big_iops=$IOPS big_o=$OTHERS
	run free$round
	free=$CORES free_w=$WORKERS free_iops=$IOPS free_o=$OTHERS
	printf 'round %s: big lock %.2f cores (workers %.2f, others %.2f) %s IOPS; no big lock %.2f cores (workers %.2f, others %.2f) %s IOPS\n' \
		"$round" "$big" "$big_w" "$big_o" "$big_iops" "$free" "$free_w" "$free_o" "$free_iops"
	expect_true "big lock caps IOPS at 1/50us: $big_iops x 50 us <= 1 s" \
		test "$(calc "$big_iops * 50e-6 <= 1.0")" = 1
	expect_true "round $round: with the big lock the daemon uses about one core: $big <= $BIG_MAX" \
		test "$(calc "$big <= $BIG_MAX")" = 1
	if [ "$(calc "$big_o > $OTHERS_MAX || $free_o > $OTHERS_MAX")" = 1 ]; then
		echo "round $round disturbed: other processes used more than $OTHERS_MAX cores; repeating"
		continue
	fi
	clean=$((clean + 1))
	gap=$(calc "$free - $big")
	gap_sum=$(calc "$gap_sum + $gap")
	gaps="$gaps $(printf '%.2f' "$gap")"
	[ "$clean" -ge 2 ] && break
done
if [ "$clean" -lt 2 ]; then
	# A failed check stands even on a busy machine; only an undecided test is skipped.
	[ "$_failures" -eq 0 ] || finish
	skip "other processes kept more than $OTHERS_MAX cores busy in $MAX_ROUNDS rounds: one core cannot be told from two"
fi
gap=$(calc "$gap_sum / $clean")
expect_true "without it, clearly more: the rounds' differences$gaps average $(printf '%.2f' "$gap") >= $GAP_MIN" \
	test "$(calc "$gap >= $GAP_MIN")" = 1
finish
