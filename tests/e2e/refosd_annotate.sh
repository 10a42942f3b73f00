# refosd's corecap_op annotations, in a real LTTng session: every op has
# begin and end, and each thread's part comes in the documented order
# (docs/refosd.md): messenger begin, enter, phase queued, exit; worker phase
# dequeued, enter, phase committed, exit; finisher enter, end, exit, with
# client after the begin and reply before the end for a client that sends
# its op ids, as refbench does when it logs its ops (--op-log; the
# back-to-back pairs as one begin_enter, phase_enter, end_exit event); the
# phases follow one another; log_enter/log_exit pairs balance per thread
# and every op-path log burst is bracketed.
. "$CORECAP_SRC/tests/e2e/refosd_lib.sh"
need_sessiond

tp="$CORECAP_BUILD/tracepoints/libcorecap-tp.so"
[ -e "$tp" ] || { echo "FAIL: $tp is not built"; exit 1; }
session="refosd-annotate-$$"
trap 'lttng -q destroy "$session" >/dev/null 2>&1 || true; e2e_cleanup' EXIT

lttng -q create "$session" --output="$WORK/trace"
# Per-process buffers that hold the whole run (about 25 events per op, a
# few thousand ops): other annotated processes of this user cannot fill
# them, and a busy machine cannot make the consumer discard events.
lttng -q enable-channel -u -s "$session" --buffers-pid --subbuf-size=4M --num-subbuf=8 big
lttng -q enable-event -u -s "$session" -c big 'corecap_op:*'
lttng -q add-context -u -s "$session" -c big -t vtid -t vpid -t procname
# Record no process until ours runs: others may be annotated too.
lttng -q untrack -u -s "$session" --all --vpid
lttng -q start "$session"
# The big lock and CPU work keep the op count (and the trace) small.
LD_PRELOAD="$tp" start_refosd osd --debug 20 --big-lock --op-cpu-us 300
lttng -q track -u -s "$session" --vpid="$OSD_PID"
rc=0
"$BIN/refbench" -p "$OSD_PORT" -t 4 -b 1 -d 1 --no-progress --op-log "$WORK/ops.tsv" write >"$WORK/bench.out" 2>&1 || rc=$?
stop_refosd "$OSD_PID"
lttng -q stop "$session"
expect_eq "refbench exit status" 0 "$rc"
expect_eq "refosd exit status" 0 "$STOP_STATUS"
ops=$(( $(summary_value "$WORK/bench.out" "Total writes made") + 1 )) # + the metadata object
babeltrace2 "$WORK/trace" >"$WORK/events.txt" 2>"$WORK/babeltrace.err"
expect_eq "no events discarded by the tracer" "" "$(grep -i 'discarded' "$WORK/babeltrace.err")"

LC_ALL=C awk -v want_ops="$ops" -v pid="$OSD_PID" '
function role(p) { return p ~ /^msgr-worker-/ ? "M" : p == "tp_osd_tp" ? "W" : p == "finisher" ? "F" : "?" }
{
	if (!match($0, /corecap_op:[a-z_]+:/) || !index($0, "vpid = " pid ","))
		next
	ev = substr($0, RSTART + 11, RLENGTH - 12)
	match($0, /vtid = [0-9]+/); tid = substr($0, RSTART + 7, RLENGTH - 7)
	match($0, /procname = "[^"]*"/); r = role(substr($0, RSTART + 12, RLENGTH - 13))
	if (ev == "log_enter" || ev == "log_exit") {
		if ((ev == "log_enter") == (depth[tid] == 1)) bad_log++
		depth[tid] = ev == "log_enter"
		if (ev == "log_enter") log_enters++
		next
	}
	match($0, /op_id = [0-9]+/); id = substr($0, RSTART + 8, RLENGTH - 8)
	if (ev == "phase" || ev == "phase_enter") { match($0, /name = "[a-z]+"/); name = substr($0, RSTART + 8, RLENGTH - 9) }
	# The paired events stand for two, as the analysis reads them (docs/events.md).
	if (ev == "begin_enter") { add(id, r, "begin"); add(id, r, "enter") }
	else if (ev == "phase_enter") { add(id, r, "phase:" name); add(id, r, "enter") }
	else if (ev == "end_exit") { add(id, r, "end"); add(id, r, "exit") }
	else add(id, r, ev == "phase" ? "phase:" name : ev)
}
function add(id, r, ev) {
	seq[id, r] = seq[id, r] " " ev
	n[id]++
	pos[id, ev] = n[id]
	if (ev == "begin") begins++
	if (ev == "end") ends++
	ids[id] = 1
}
END {
	for (id in ids) {
		# refbench sends each op id (PROTO_FLAG_OP_ID): refosd names it after the
		# begin (client) and marks its reply before the send (reply).
		if (seq[id, "M"] != " begin enter client phase:queued exit") bad_m++
		if (seq[id, "W"] != " phase:dequeued enter phase:committed exit") bad_w++
		if (seq[id, "F"] != " enter reply end exit") bad_f++
		if (seq[id, "?"] != "") bad_role++
		if (!(pos[id, "begin"] < pos[id, "phase:queued"] && pos[id, "phase:queued"] < pos[id, "phase:dequeued"] &&
		      pos[id, "phase:dequeued"] < pos[id, "phase:committed"] && pos[id, "phase:committed"] < pos[id, "end"]))
			bad_order++
		if (bad_m + bad_w + bad_f + bad_order && !shown++)
			printf "first bad op %s: M[%s] W[%s] F[%s]\n", id, seq[id, "M"], seq[id, "W"], seq[id, "F"]
	}
	for (t in depth) if (depth[t]) bad_log++
	printf "ops %d begins %d ends %d bad_m %d bad_w %d bad_f %d bad_role %d bad_order %d bad_log %d log_enters %d\n",
		want_ops, begins, ends, bad_m, bad_w, bad_f, bad_role, bad_order, bad_log, log_enters
}' "$WORK/events.txt" >"$WORK/check.txt"
cat "$WORK/check.txt"
get() { sed -n "s/.* $1 \([0-9]*\).*/\1/p" "$WORK/check.txt"; }
expect_true "ops were traced ($ops)" test "$ops" -gt 100
expect_eq "begin events, one per op" "$ops" "$(get begins)"
expect_eq "end events, one per op" "$ops" "$(get ends)"
expect_eq "ops whose messenger part is not: begin enter client phase:queued exit" 0 "$(get bad_m)"
expect_eq "ops whose worker part is not: phase:dequeued enter phase:committed exit" 0 "$(get bad_w)"
expect_eq "ops whose finisher part is not: enter reply end exit" 0 "$(get bad_f)"
expect_eq "op events from threads other than messenger, worker, finisher" 0 "$(get bad_role)"
expect_eq "ops whose begin, phases and end are out of order" 0 "$(get bad_order)"
expect_eq "unbalanced or nested log_enter/log_exit" 0 "$(get bad_log)"
expect_true "at --debug 20 each op has its 4 log bursts (messenger, worker x2, finisher)" \
	test "$(get log_enters)" -ge $((ops * 4))
finish
