#!/usr/bin/env bash
# Every key the collector writes in manifest.json is one of the list of
# corecap/manifest_keys.h, the list its readers take the names from: the
# manifests of a recording with every source on (trace, shim stats,
# wall-clock samples, cpu.prof, kernel events when permitted, a benchmark)
# and of a two-daemon recording are checked key path by key path
# (tests/e2e/format/manifest_keys check). And the list is the only place
# the names are spelled: no file that includes the header passes a key
# name as a string where a key goes (put, get, get_*, json-c's object
# calls, the benchmark summary's set/get), the manifest's writers and
# readers all include it, and every key of the list is named by the
# collector's sources (no key the writer has dropped).
set -u
. "${CORECAP_SRC:?}/tests/e2e/collector_lib.sh"
MK="$CORECAP_BUILD/tests/e2e/manifest_keys"
[ -x "$MK" ] || { echo "FAIL: $MK is not built"; exit 1; }

# paths FILE...: every key path of the JSON files, one a line ("devices[].name").
paths() {
	python3 - "$@" <<'PY'
import json, sys
def walk(v, p, out):
    if isinstance(v, dict):
        for k, x in v.items():
            q = p + "." + k if p else k
            out.add(q)
            walk(x, q, out)
    elif isinstance(v, list):
        for x in v:
            walk(x, p + "[]", out)
out = set()
for f in sys.argv[1:]:
    walk(json.load(open(f)), "", out)
print("\n".join(sorted(out)))
PY
}

# 1. The list and the sources.
"$MK" names >"$WORK/names"
expect_true "the list has machine.daemon_cpus" grep -q '^machine.daemon_cpus	CORECAP_MK_MACHINE_DAEMON_CPUS	' "$WORK/names"
expect_true "the list has devices[].limit.read_iops" grep -q '^devices\[\].limit.read_iops	' "$WORK/names"
echo "benchmark.summary.no_such_figure" | "$MK" check >"$WORK/neg.out"
expect_eq "a key the list does not have fails the check" 1 $?
echo "benchmark.summary.lat_p9999_s" | "$MK" check >/dev/null
expect_eq "a benchmark's percentile passes in the open summary" 0 $?
python3 - "$CORECAP_SRC" "$WORK/names" >"$WORK/literals" <<'PY'
import os, re, sys
src, names_file = sys.argv[1], sys.argv[2]
rows = [l.rstrip("\n").split("\t") for l in open(names_file) if l.strip()]
names = {r[0].rsplit(".", 1)[-1].replace("[]", "") for r in rows}
ids = [r[1] for r in rows]
# Calls whose argument at these positions is a key (0-based).
calls = {"put": (1,), "get": (1,), "str_of": (1,), "set_key": (1,),
         "json_object_object_get": (1,), "json_object_object_get_ex": (1,),
         "json_object_object_add": (1,), "corecap_bench_summary_set": (1,),
         "corecap_bench_summary_get": (1,), "dev_u64": (2,)}
for n in ("get_obj", "get_str", "get_num", "get_int", "get_u64", "get_bool"):
    calls[n] = (2, 3)
call = re.compile(r'\b(%s)\s*\(' % "|".join(sorted(calls, key=len, reverse=True)))
comment = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
def args_at(text, i):
    """The arguments of the call whose '(' is at i."""
    out, depth, cur, j = [], 0, "", i + 1
    while j < len(text):
        c = text[j]
        if c == '"':
            k = j + 1
            while k < len(text) and text[k] != '"':
                k += 2 if text[k] == "\\" else 1
            cur += text[j:k + 1]
            j = k + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                out.append(cur.strip())
                return out
            depth -= 1
        elif c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            j += 1
            continue
        cur += c
        j += 1
    return out
bad = 0
writer = ""
for top in ("collector", "analysis", "cli"):
    for dp, _, fs in os.walk(os.path.join(src, top)):
        for f in fs:
            if not f.endswith((".c", ".h")):
                continue
            p = os.path.join(dp, f)
            raw = open(p).read()
            if top == "collector":
                writer += raw
            if "corecap/manifest_keys.h" not in raw:
                continue
            text = comment.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), raw)
            for m in call.finditer(text):
                a = args_at(text, m.end() - 1)
                for pos in calls[m.group(1)]:
                    if pos < len(a) and re.fullmatch(r'"(\w+)"', a[pos]) and a[pos][1:-1] in names:
                        ln = text.count("\n", 0, m.start()) + 1
                        print("%s:%d: %s(... %s ...)" % (os.path.relpath(p, src), ln, m.group(1), a[pos]))
                        bad += 1
# The manifest's writers and readers name keys through the list: a file of
# them without the header would escape the literal check above.
for f in ("collector/record/manifest.c", "collector/record/record_multi.c",
          "collector/hosts/host_record.c", "collector/workload/bench_parse.c",
          "analysis/read/manifest.c", "analysis/read/multi_run.c",
          "analysis/read/hosts_run.c"):
    p = os.path.join(src, f)
    if not os.path.exists(p) or "corecap/manifest_keys.h" not in open(p).read():
        print("%s: a manifest writer or reader without corecap/manifest_keys.h" % f)
        bad += 1
unused = [i for i in ids if not re.search(r'\b%s\b' % i, writer)]
for i in unused:
    print("not written: %s" % i)
print("literals %d, unwritten %d" % (bad, len(unused)))
PY
expect_eq "key names spelled where a key goes, keys the collector never names" "literals 0, unwritten 0" "$(tail -n 1 "$WORK/literals")"
grep -v '^literals' "$WORK/literals" | head -n 20

# 2. A recording with every source, and one of two daemons.
need_sessiond
kernel_opt=--no-kernel
if [ "$(id -u)" = 0 ] && [ -e /sys/kernel/tracing/events/syscalls/sys_enter_futex/id ]; then
	kernel_opt=--kernel
else
	echo "note: no kernel events here (not root, or no futex tracepoint): kernel_events is not checked"
fi
start_daemon osd --cpuprofile
A=$OSD_PID A_PORT=$OSD_PORT
RUN="$WORK/run"
"$CORECAP" record -p "$A" -o "$RUN" --wallclock "$kernel_opt" -- \
	"$REFBENCH" -p "$A_PORT" -t 4 -b 1 -d 1 write >"$WORK/rec.out" 2>"$WORK/rec.err"
rc=$?
expect_eq "record exits" 0 "$rc"
[ "$rc" -eq 0 ] || cat "$WORK/rec.err"
paths "$RUN/manifest.json" >"$WORK/paths"
for k in window.start_ns machine.daemon_cpus wallclock.samples benchmark.summary.iops_avg \
	stats.copies cpu_prof.bytes lttng.session; do
	expect_true "the manifest has $k" grep -qx "$k" "$WORK/paths"
done
[ "$kernel_opt" = --kernel ] && expect_true "the manifest has kernel_events.records.switch" \
	grep -qx kernel_events.records.switch "$WORK/paths"
"$MK" check <"$WORK/paths" >"$WORK/check.out"
expect_eq "every key of the run's manifest is in manifest_keys.h" 0 $?
cat "$WORK/check.out"

start_daemon osd2
B=$OSD_PID
"$CORECAP" record -q -p "$A,$B" -o "$WORK/multi" -- \
	"$REFBENCH" -p "$A_PORT" --no-progress -t 2 -d 1 write >"$WORK/m.out" 2>"$WORK/m.err"
rc=$?
expect_eq "record of two daemons exits" 0 "$rc"
[ "$rc" -eq 0 ] || cat "$WORK/m.err"
paths "$WORK/multi/manifest.json" >"$WORK/mpaths"
expect_true "the two-daemon manifest has daemons[].pid" grep -qx 'daemons\[\].pid' "$WORK/mpaths"
"$MK" check <"$WORK/mpaths" >"$WORK/mcheck.out"
expect_eq "every key of the two-daemon manifest is in manifest_keys.h" 0 $?
cat "$WORK/mcheck.out"

finish
