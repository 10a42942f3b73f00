#!/usr/bin/env bash
# Hostile and unlucky run directories (issue #14), each made here from the
# golden run: keys of the wrong JSON type, Ceph files of another layout,
# stats files whose offsets wrap, truncated or abort-inducing CTF
# metadata, FIFOs in place of run files, a stream file cut at a packet
# boundary. No command may crash, hang or pass silently: each is a clear
# error (exit 1) or a warning (exit 0, the report marked), and every
# command runs under `timeout`, so a hang fails the check instead of the
# test's own timeout.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"

T=30 # seconds any one command may take; a hang shows as exit 124

copy_run() {
	rm -rf "${WORK:?}/$1"
	cp -r "$DATA/golden-run" "$WORK/$1"
	chmod -R u+w "$WORK/$1"
	echo "$WORK/$1"
}

# edit_manifest RUN PYTHON: runs PYTHON on the manifest's dict `d`.
edit_manifest() {
	python3 - "$1/manifest.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[2])
json.dump(d, open(sys.argv[1], "w"))
PY
}

# expect_ok WHAT NEEDLE CMD...: CMD exits 0 and its output (stdout+stderr) names NEEDLE.
expect_ok() {
	local what=$1 needle=$2
	shift 2
	expect_exit_naming "$what" 0 "$needle" "$@"
}

meta_of() { find "$1/trace" -name metadata; }

# ---- manifest.json ----
run=$(copy_run cmdstr)
edit_manifest "$run" 'd["benchmark"] = {"command": "rados bench 10 write", "exit_status": 0, "summary": [1, 2]}'
for c in report html; do
	expect_ok "benchmark.command a string: $c" "benchmark.command" \
		timeout $T "$CORECAP" $c "$run"
done
expect_eq "benchmark.command a string: JSON command null" None \
	"$(timeout $T "$CORECAP" report --json "$run" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["benchmark"]["command"])')"

run=$(copy_run nproc)
edit_manifest "$run" 'd["nproc"] = -2147483648; d["pid"] = "17461"; d["clk_tck"] = 1e300'
timeout $T "$CORECAP" report --json "$run" >"$WORK/nproc.json" 2>"$WORK/err" || true
expect_eq "nproc -2^31: cores available unknown" None "$(json "$WORK/nproc.json" "d['daemon']['cores_available']")"
expect_eq "nproc -2^31: warned" True \
	"$(json "$WORK/nproc.json" "any(\"'nproc' -2147483648 is out of range\" in w for w in d['quality']['warnings'])")"
expect_eq "pid a string: warned" True \
	"$(json "$WORK/nproc.json" "any(\"'pid' has JSON type string\" in w for w in d['quality']['warnings'])")"

run=$(copy_run emptymf)
: >"$run/manifest.json"
expect_fail_naming "empty manifest" "'$run/manifest.json': cannot parse: empty file" \
	timeout $T "$CORECAP" report "$run"
head -c 300 "$DATA/golden-run/manifest.json" >"$run/manifest.json"
expect_fail_naming "truncated manifest" "'$run/manifest.json': cannot parse: truncated" \
	timeout $T "$CORECAP" report "$run"
expect_true "truncated manifest: not json-c's 'continue'" \
	bash -c "! grep -q 'json_tokener_parse_ex failed' '$WORK/err'"

# ---- RUN itself ----
expect_fail_naming "RUN a regular file" "cannot open run directory '$DATA/golden-run/manifest.json': Not a directory" \
	timeout $T "$CORECAP" report "$DATA/golden-run/manifest.json"
expect_true "RUN a regular file: no stale errno" \
	bash -c "! grep -q 'Inappropriate ioctl' '$WORK/err'"
mkdir -p "$WORK/empty"
expect_fail_naming "empty directory" "'$WORK/empty' is not a run directory" \
	timeout $T "$CORECAP" report "$WORK/empty"
status=0
timeout $T "$CORECAP" report --top -1 "$DATA/golden-run" >/dev/null 2>"$WORK/err" || status=$?
expect_eq "--top -1: usage exit status" 2 "$status"

# ---- ceph/ ----
run=$(copy_run cephbad)
mkdir "$run/ceph"
echo '{"osd": 713}' >"$run/ceph/perf-end.json"
echo '{"osd": {"op_w": 5, "op_latency": {"avgcount": 1, "sum": 0.5}}}' >"$run/ceph/perf-begin.json"
python3 - "$CORECAP_SRC/tests/data/ceph/dump_historic_ops.json" "$run/ceph/historic_ops.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["ops"][0]["duration"] = -0.5      # a negative duration: rejected, not averaged
d["ops"].append(713)                # an op that is not an object
d["ops"].append({"description": None, "duration": 1})
json.dump(d, open(sys.argv[2], "w"))
PY
for c in report html; do
	expect_ok "perf-end.json {\"osd\": 713}: $c" "ceph/perf-end.json has no" \
		timeout $T "$CORECAP" $c "$run"
done
expect_ok "perf-end.json {\"osd\": 713}: compare" "corecap compare" \
	timeout $T "$CORECAP" compare "$run" "$run"
timeout $T "$CORECAP" report --json "$run" >"$WORK/ceph.json" 2>/dev/null || true
expect_eq "negative Ceph duration: the op is left out" 2 \
	"$(json "$WORK/ceph.json" "d['ceph']['optracker']['ops']")"
expect_eq "negative Ceph duration: counted in a warning" True \
	"$(json "$WORK/ceph.json" "any('3 ops rejected (1 with a negative' in w for w in d['quality']['warnings'])")"
echo '{"ops": {"a": 1}, "size": -5}' >"$run/ceph/historic_ops.json"
expect_ok "historic_ops.json of another shape" "no 'ops' array" \
	timeout $T "$CORECAP" report "$run"

# ---- stats-begin / stats-end ----
# mkstats FILE SITES_OFFSET [LOCK CONTENTIONS]: a stats file of the layout
# in corecap/stats_layout.h (version 2: 448-byte thread slots, 5 I/O
# classes) with one table entry each, the site table at SITES_OFFSET, its
# one hot lock at address LOCK with CONTENTIONS.
mkstats() {
	python3 - "$1" "$2" "${3:-0}" "${4:-0}" <<'PY'
import struct, sys
path, sites_off = sys.argv[1], eval(sys.argv[2])
lock, contentions = int(sys.argv[3], 0), int(sys.argv[4])
site, thread, lk = 640, 448, 128
size = 4096 + site + thread + lk
h = bytearray(4096)
struct.pack_into("<QIIQQQQQIIIIIIIIII", h, 0,
    0x3174617473706363, 2, 4096, size, 0,
    sites_off, 4096 + site, 4096 + site + thread,
    site, thread, lk, 1, 1, 1, 32, 32, 16, 5)
struct.pack_into("<ii", h, 96, 4242, 1)
tables = bytearray(size - 4096)
# the lock entry: addr, kind, reserved, first_site, hot_since_ns, acquisitions, contentions
struct.pack_into("<QIIQQQQ", tables, site + thread, lock, 0, 0, 0, 1, contentions, contentions)
open(path, "wb").write(bytes(h) + bytes(tables))
PY
}
run=$(copy_run statswrap)
mkstats "$run/stats-begin" "2**64 - 640"
cp "$run/stats-begin" "$run/stats-end"
expect_ok "stats offsets that wrap" "shim stats unusable" timeout $T "$CORECAP" report --json "$run"
mkstats "$run/stats-begin" 4100
cp "$run/stats-begin" "$run/stats-end"
expect_ok "misaligned stats offsets" "shim stats unusable" timeout $T "$CORECAP" report --json "$run"
mkstats "$run/stats-begin" 4096
cp "$run/stats-begin" "$run/stats-end"
expect_ok "well-formed stats (the same builder)" "corecap report" timeout $T "$CORECAP" report "$run"
expect_true "well-formed stats: used" bash -c "! grep -q 'shim stats unusable' '$WORK/out'"

# The shim counted far more contentions of the golden run's busiest lock than its trace holds.
lock=$(timeout $T "$CORECAP" report --json "$DATA/golden-run" 2>/dev/null |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["locks"][0]["address"])')
mkstats "$run/stats-begin" 4096 "$lock" 0
mkstats "$run/stats-end" 4096 "$lock" 1000
timeout $T "$CORECAP" report --json "$run" >"$WORK/shim.json" 2>/dev/null || true
expect_eq "trace far short of the shim's counts: partial" True "$(json "$WORK/shim.json" "d['quality']['partial']")"
expect_eq "trace far short of the shim's counts: stated" True \
	"$(json "$WORK/shim.json" "any('the trace holds 80 lock contentions where the shim counted 1000' in w for w in d['quality']['warnings'])")"
mkstats "$run/stats-end" 4096 "$lock" 85
timeout $T "$CORECAP" report --json "$run" >"$WORK/shim.json" 2>/dev/null || true
expect_eq "trace matching the shim's counts: not partial" False "$(json "$WORK/shim.json" "d['quality']['partial']")"

# ---- CTF metadata ----
run=$(copy_run metacut)
meta=$(meta_of "$run")
for n in 100 4096 5000; do
	truncate -s "$n" "$meta"
	expect_fail_naming "metadata cut to $n bytes" "invalid trace metadata '$meta': truncated" \
		timeout $T "$CORECAP" report "$run"
	cp "$(meta_of "$DATA/golden-run")" "$meta"
done
for c in "flame --kind lock" "export --chrome" "html"; do
	truncate -s 5000 "$meta"
	# shellcheck disable=SC2086
	expect_fail_naming "metadata cut short: $c" "truncated" timeout $T "$CORECAP" $c "$run"
	cp "$(meta_of "$DATA/golden-run")" "$meta"
done
# Without corecap's own check, the guard still ends the library's endless loop.
truncate -s 5000 "$meta"
start=$(date +%s)
expect_fail_naming "metadata cut short, check off: the watchdog" "libbabeltrace2 made no progress for 2 s" \
	env CORECAP_CTF_CHECK=0 CORECAP_TRACE_STALL_S=2 timeout $T "$CORECAP" report "$run"
expect_calc "the watchdog ended it within 10 s" "$(($(date +%s) - start)) <= 10"

# meta_text RUN PYTHON: replaces RUN's metadata by the golden text (unpacketized), edited by PYTHON on `t`.
meta_text() {
	python3 - "$(meta_of "$DATA/golden-run")" "$(meta_of "$1")" "$2" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read(); o = 0; t = b""
while o < len(d):
    cs, ps = struct.unpack_from("<II", d, o + 24)
    t += d[o + 37:o + cs // 8]; o += ps // 8
t = t.decode()
exec(sys.argv[3])
open(sys.argv[2], "w").write(t)
PY
}
hold='\tname = "corecap_lock:hold";\n\tid = 1;\n\tstream_id = 0;\n\tloglevel = 13;\n'
int8='integer { size = 8; align = 8; signed = 0; encoding = none; base = 10; }'
run=$(copy_run ctxseq)
meta_text "$run" "t = t.replace('$hold', '$hold\tcontext := struct { $int8 _n; $int8 _s[_n]; };\n')"
expect_fail_naming "sequence in an event context" "the context of event 'corecap_lock:hold' holds a sequence" \
	timeout $T "$CORECAP" report "$run"
status=0
env CORECAP_CTF_CHECK=0 timeout $T "$CORECAP" report "$run" >/dev/null 2>"$WORK/err" || status=$?
if grep -q 'Assertion' "$WORK/err"; then
	# libbabeltrace2 < 2.0.5 aborts here: the guard turns it into exit 1.
	expect_eq "sequence in an event context, check off: exit status" 1 "$status"
	expect_true "sequence in an event context, check off: says so" \
		grep -q "libbabeltrace2 aborted on it" "$WORK/err"
fi
meta_text "$run" "t = t.replace('$hold', '$hold\tcontext := struct { enum : $int8 { \"a\" = 0, \"b\" = 1 } _t; variant <_t> { $int8 a; $int8 b; } _v; };\n')"
expect_fail_naming "variant in an event context" "holds a variant" timeout $T "$CORECAP" report "$run"

run=$(copy_run syntax3)
meta_text "$run" "l = t.split('\n'); l.insert(2, 'typealias integer { size = 8; } := ;'); t = '\n'.join(l)"
expect_fail_naming "metadata syntax error at line 3: the library's cause" \
	"At line 3 in metadata stream: syntax error" timeout $T "$CORECAP" report "$run"

# ---- FIFOs in place of run files ----
fifo_run() { # NAME FILE: a copy of the golden run with FILE replaced by a FIFO
	local r
	r=$(copy_run "$1")
	rm -rf "${r:?}/$2"
	mkdir -p "$(dirname "$r/$2")"
	mkfifo "$r/$2"
	echo "$r"
}
for f in manifest.json threads.tsv maps buildids.tsv; do
	run=$(fifo_run "fifo-${f%%.*}" "$f")
	status=0
	timeout $T "$CORECAP" report "$run" >/dev/null 2>"$WORK/err" || status=$?
	expect_true "FIFO as $f: does not block (exit $status)" test "$status" -ne 124
	expect_true "FIFO as $f: named as not a regular file, or ignored" \
		bash -c "[ $status -eq 0 ] || grep -q 'not a regular file' '$WORK/err'"
done
run=$(fifo_run fifo-stats stats-begin)
mkstats "$run/stats-end" 4096
expect_ok "FIFO as stats-begin" "shim stats unusable" timeout $T "$CORECAP" report "$run"
run=$(fifo_run fifo-ceph ceph/perf-end.json)
echo '{"osd": {}}' >"$run/ceph/perf-begin.json"
expect_fail_naming "FIFO as ceph/perf-end.json" "not a regular file" timeout $T "$CORECAP" report "$run"
run=$(fifo_run fifo-kernel kernel/events.bin)
edit_manifest "$run" 'd["sources"]["kernel"] = True'
expect_fail_naming "FIFO as kernel/events.bin" "not a regular file" timeout $T "$CORECAP" report "$run"
run=$(copy_run fifo-stream)
stream=$(find "$run/trace" -name 'corecap_0' -type f)
rm "$stream"
mkfifo "$stream"
expect_fail_naming "FIFO as a stream file" "trace file '$stream': not a regular file" \
	timeout $T "$CORECAP" report "$run"
# The binaries a run's maps name are opened too: a FIFO there (under --symfs) must not block.
exe=$(awk '$2 ~ /x/ && $6 ~ /corecap_tracegen/ { print $6; exit }' "$DATA/golden-run/maps")
mkdir -p "$WORK/fifo-symfs$(dirname "$exe")"
mkfifo "$WORK/fifo-symfs$exe"
expect_ok "FIFO as the daemon's binary (symfs)" "corecap report" \
	timeout $T "$CORECAP" report --symfs "$WORK/fifo-symfs" "$DATA/golden-run"
run=$(fifo_run fifo-prof cpu.prof)
expect_fail_naming "FIFO as cpu.prof" "not a regular file" \
	timeout $T "$CORECAP" flame --kind cpu "$run"

# ---- a stream file cut at a packet boundary ----
# The golden stream corecap_0 holds one packet; its index gets a second,
# after the file's end: the shape a recording interrupted between a
# packet's index entry and its data leaves (and a stream file cut short).
run=$(copy_run cut)
idx=$(find "$run/trace" -name corecap_0.idx)
python3 - "$idx" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
e = list(struct.unpack(">9Q", d[16:88]))
size = e[1] // 8
e2 = [size, e[1], e[2], e[4], e[4] + 1000, e[5], e[6], e[7], e[8] + 1]
open(sys.argv[1], "wb").write(d + struct.pack(">9Q", *e2))
PY
timeout $T "$CORECAP" report --json "$run" >"$WORK/cut.json" 2>"$WORK/err" || true
expect_eq "stream cut at a packet boundary: partial" True "$(json "$WORK/cut.json" "d['quality']['partial']")"
expect_eq "stream cut at a packet boundary: the shortfall stated" True \
	"$(json "$WORK/cut.json" "any('1 of the 3 packets its stream indexes list are missing' in w for w in d['quality']['warnings'])")"
expect_ok "stream cut at a packet boundary: export warns" "the trace is cut short" \
	timeout $T "$CORECAP" export --chrome -o "$WORK/cut.chrome.json" "$run"
finish
