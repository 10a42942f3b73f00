# refosd and refbench on bad input: a malformed frame (bad magic, absurd
# length, unknown op) closes only that connection while another client
# keeps working; bad options exit 2 with the usage; refbench against a
# closed port, a killed daemon or an empty store exits 1 with a clear message.
. "$CORECAP_SRC/tests/e2e/refosd_lib.sh"

# frame_is_refused NAME PRINTF_FORMAT: send the bytes on a new connection;
# the daemon must close it (read sees end of file, not a 3 s timeout).
frame_is_refused() {
	local what=$1 fmt=$2 fd rc=0 line
	exec {fd}<>"/dev/tcp/127.0.0.1/$OSD_PORT"
	# shellcheck disable=SC2059
	printf "$fmt" >&"$fd"
	read -r -t 3 -u "$fd" line || rc=$?
	exec {fd}>&-
	expect_eq "$what: the daemon closes the connection (1: end of file, >128: timeout)" 1 "$rc"
}

start_refosd osd --log-file "$WORK/osd.log"
osd=$OSD_PID

# A hand-made valid frame gets a reply: a read of a missing object, tag 42.
exec {good}<>"/dev/tcp/127.0.0.1/$OSD_PORT"
printf 'RFQ1\x02\x00\x07\x00\x2a\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00missing' >&"$good"
reply=$(timeout 5 head -c 24 <&"$good" | od -An -tx1 | tr -d ' \n')
expect_eq "reply to a valid read of a missing object (RFR1, read, -ENOENT, no data, tag 42)" \
	"524652310200" "${reply:0:12}"
expect_eq "reply status -ENOENT, data 0, tag 42" "0000feffffff000000002a00000000000000" "${reply:12}"

echo "refbench -t 4 -b 1 -d 3 write in the background, malformed frames meanwhile"
"$BIN/refbench" -p "$OSD_PORT" -t 4 -b 1 -d 3 --no-progress write >"$WORK/bg.out" 2>"$WORK/bg.err" &
bg=$!
sleep 0.5
frame_is_refused "bad magic" 'XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX'
frame_is_refused "absurd data length" 'RFQ1\x01\x00\x01\x00\x01\x00\x00\x00\x00\x00\x00\x00\xff\xff\xff\xffx'
frame_is_refused "absurd name length" 'RFQ1\x02\x00\xff\xff\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00'
frame_is_refused "unknown op" 'RFQ1\x09\x00\x01\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00x'
# The valid connection opened before still works, and dies by its own bad frame only.
printf 'RFQ1\x02\x00\x07\x00\x2b\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00missing' >&"$good"
reply=$(timeout 5 head -c 24 <&"$good" | od -An -tx1 | tr -d ' \n')
expect_eq "the earlier valid connection still gets replies (tag 43)" "2b00000000000000" "${reply:32}"
rc=0
wait "$bg" || rc=$?
expect_eq "the concurrent refbench run exit status" 0 "$rc"
expect_eq "the concurrent refbench run stderr" "" "$(cat "$WORK/bg.err")"
expect_true "the concurrent refbench run made writes" test "$(summary_value "$WORK/bg.out" "Total writes made")" -gt 0
expect_true "refosd is still running" kill -0 "$osd"
for reason in "bad magic" "length over the limit" "unknown op"; do
	expect_true "refosd says why it closed a connection: '$reason'" grep -q "refosd: closing connection 127.0.0.1:[0-9]*: $reason" "$WORK/osd.err"
done
rc=0
"$BIN/refbench" -p "$OSD_PORT" -t 2 -b 1 -d 1 --no-progress seq >"$WORK/after.out" 2>&1 || rc=$?
expect_eq "a new client after the malformed frames: seq exit status" 0 "$rc"
exec {good}>&-
stop_refosd "$osd"
expect_eq "refosd exit status after SIGTERM" 0 "$STOP_STATUS"
expect_true "the log counts the 4 malformed frames" grep -q "4 malformed frames" "$WORK/osd.log"

echo "bad options"
for args in "--bogus" "--port abc" "--port 70000" "--debug 21" "--shards 0" "--msgr-threads x" \
	"--store nowhere" "--fsync" "--op-cpu-us -5" "--big-lock=1" "extra"; do
	rc=0
	# shellcheck disable=SC2086
	timeout 5 "$BIN/refosd" $args >"$WORK/opt.out" 2>"$WORK/opt.err" || rc=$?
	expect_eq "refosd $args: exit status" 2 "$rc"
	expect_true "refosd $args: names the problem and prints the usage" \
		grep -q "^refosd: .*'" "$WORK/opt.err"
	expect_true "refosd $args: usage on stderr" grep -q "^usage: refosd" "$WORK/opt.err"
done
rc=0
timeout 5 "$BIN/refosd" --help >"$WORK/help.out" 2>&1 || rc=$?
expect_eq "refosd --help exit status" 0 "$rc"
expect_true "refosd --help prints the usage on stdout" grep -q "^usage: refosd" "$WORK/help.out"
for args in "write" "-p 1" "-p 1 -t 0 write" "-p 1 -b 0 write" "-p 1 -d x write" "-p 1 read" "-p 1 -q write"; do
	rc=0
	# shellcheck disable=SC2086
	timeout 5 "$BIN/refbench" $args >"$WORK/opt.out" 2>"$WORK/opt.err" || rc=$?
	expect_eq "refbench $args: exit status" 2 "$rc"
	expect_true "refbench $args: usage on stderr" grep -q "^usage: refbench" "$WORK/opt.err"
done

echo "refbench against a closed port, an empty store, a killed daemon"
start_refosd closed
port=$OSD_PORT
rc=0
"$BIN/refbench" -p "$port" -t 2 -d 1 seq >"$WORK/empty.out" 2>"$WORK/empty.err" || rc=$?
expect_eq "seq without a prior write: exit status" 1 "$rc"
expect_true "seq without a prior write says so" grep -q "no 'benchmark_last_metadata' object on 127.0.0.1:$port: run 'refbench ... write' first" "$WORK/empty.err"
stop_refosd "$OSD_PID"
rc=0
"$BIN/refbench" -p "$port" -t 2 -b 1 -d 1 write >"$WORK/refused.out" 2>"$WORK/refused.err" || rc=$?
expect_eq "refbench against a closed port: exit status" 1 "$rc"
expect_eq "refbench against a closed port: message" \
	"refbench: cannot connect to 127.0.0.1:$port: Connection refused" "$(cat "$WORK/refused.err")"

start_refosd killed
rc=0
"$BIN/refbench" -p "$OSD_PORT" -t 4 -b 1 -d 10 --no-progress write >"$WORK/killed.out" 2>"$WORK/killed.err" &
bg=$!
sleep 1
kill -KILL "$OSD_PID"
wait "$bg" || rc=$?
expect_eq "refbench when the daemon dies mid-run: exit status" 1 "$rc"
expect_true "refbench when the daemon dies mid-run: says the connection went" \
	grep -Eq "^refbench: connection to 127.0.0.1:$OSD_PORT (closed by the daemon|lost: .+)$" "$WORK/killed.err"
finish
