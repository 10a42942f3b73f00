#!/usr/bin/env bash
# `corecap compare` says what changed between refosd at --debug 1 (A) and
# --debug 20 (B), both recorded with kernel events and wall-clock samples
# (refbench -t 1, 2 s each):
# - one headline, its split the critical path's (both runs have kernel
#   events), naming logging's growth ("logging +N" in its categories or in
#   what the ops grew behind); the same headline in text and JSON; what
#   the ops grew behind (JSON grew_behind) ends it and names a pool's
#   logging;
# - the configuration: the daemons' command lines differ in their --debug
#   arguments, printed as "A --debug 1, B --debug 20" (JSON config);
# - both diagnoses side by side;
# - no ratio of near-zero values (a ratio only where both values are at
#   least 10 units of their last decimal), no row zero in both runs;
# - the text and the JSON carry the same rows with the same deltas;
# - --svg: the differential flame graph exists and its red frames (grown
#   in B) include the logging functions (--kind wall: log_submitf's).
# Known answer, not a measurement of throughput (about 30 s).
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
need_sessiond
need_refosd

RECORD_OPTS=(--kernel "${KERNEL_VIA[@]}" --wallclock=200)
for level in 1 20; do
	start_refosd "debug$level" --debug "$level"
	if [ "$level" = 1 ]; then
		# The critical path needs kernel events: without them, say so.
		status=0
		"$CORECAP" record -q --kernel --no-trace -p "$OSD_PID" -o "$WORK/probe" -d 0.2 \
			>"$WORK/probe.out" 2>&1 || status=$?
		[ "$status" = 0 ] || skip "no kernel events here: $(grep -m1 'corecap' "$WORK/probe.out")"
	fi
	record_refbench "$WORK/debug$level" -t 1 -b 1 -d 2 write
	stop_refosd
done
a="$WORK/debug1"
b="$WORK/debug20"
"$CORECAP" compare "$a" "$b" >"$WORK/ab.txt" 2>"$WORK/ab.err" || { cat "$WORK/ab.err"; exit 1; }
"$CORECAP" compare --json "$a" "$b" >"$WORK/ab.json" 2>/dev/null
sed -n '1,/^$/p' "$WORK/ab.txt"

# One headline, the critical path's, logging's growth named.
head_j=$(json "$WORK/ab.json" "d['headline']")
expect_eq "text and JSON: the same headline" "headline: $head_j" "$(grep '^headline: ' "$WORK/ab.txt")"
expect_eq "one headline line" 1 "$(grep -c '^headline: ' "$WORK/ab.txt")"
expect_eq "JSON: the split is the critical path's" "critical path" "$(json "$WORK/ab.json" "d['split']")"
expect_true "headline: latency on the critical path" grep -q ' us/op on the critical path' <<<"$head_j"
log_h=$(grep -oE '(^|[ ,:])(log |[a-z_-]+ )?logging \+[0-9.]+' <<<"$head_j" | head -1 | grep -oE '[0-9.]+$' || true)
expect_true "headline names logging's growth ($head_j)" test -n "$log_h"
expect_calc "logging's growth is positive" "${log_h:-0} > 0"
# What the ops grew behind (the critical path's credits by pool and category).
grew_j=$(json "$WORK/ab.json" "d['grew_behind'] or ''")
expect_true "headline: what the ops grew behind, as JSON grew_behind ($grew_j)" \
	grep -qF "; grew behind: $grew_j" <<<"$head_j"
expect_true "... a pool's logging among it" grep -qE '(^|, )[a-z_-]+ logging \+[0-9.]+' <<<"$grew_j"
expect_eq "same daemon: no second per-op line (JSON cost_per_op null)" None "$(json "$WORK/ab.json" "d['cost_per_op']")"

# The configuration: the --debug arguments.
expect_true "text: the daemons' --debug arguments" \
	grep -qxF 'config:   daemon command line: A --debug 1, B --debug 20' "$WORK/ab.txt"
expect_eq "JSON: the same" "--debug 1|--debug 20" \
	"$(json "$WORK/ab.json" "[c['a'] + '|' + c['b'] for c in d['config'] if c['what'] == 'daemon command line'][0]")"

# Both diagnoses.
expect_true "text: diagnosis A and B" bash -c "grep -q '^diagnosis A ' '$WORK/ab.txt' && grep -q '^diagnosis B ' '$WORK/ab.txt'"
expect_eq "JSON: both diagnoses have a kind" 1 \
	"$(json "$WORK/ab.json" "int(bool(d['diagnosis_a']['kind']) and bool(d['diagnosis_b']['kind']))")"

# Ratios: none of near-zero values, none of 0.00x; no row zero in both.
expect_eq "no ratio where a side prints below 10 units of its last decimal" "" \
	"$(awk '$NF ~ /x$/ && NF >= 5 { a = $(NF-3); b = $(NF-2); n = split(a, p, "."); u = n > 1 ? 10 ^ -length(p[2]) : 1;
		if ((a < 0 ? -a : a) < 10 * u || (b < 0 ? -b : b) < 10 * u) print }' "$WORK/ab.txt")"
expect_eq "no 0.00x" 0 "$(grep -c ' 0\.00x$' "$WORK/ab.txt" || true)"
expect_eq "no row zero in both runs" "" \
	"$(awk 'NF >= 4 && $NF ~ /^[-+]0(\.0+)?$/ && $(NF-1) ~ /^-?0(\.0+)?$/ && $(NF-2) ~ /^-?0(\.0+)?$/' "$WORK/ab.txt")"
expect_eq "JSON: no ratio of a side within 1% of zero of the other" "[]" \
	"$(json "$WORK/ab.json" "[k for s in d['figures'].values() for k, v in s.items() if v['ratio'] is not None and (min(abs(v['a']), abs(v['b'])) == 0 or v['ratio'] > 100 or v['ratio'] < 0.01)]")"

# Text and JSON: the same rows, section by section, with the same deltas
# (to the text's printed decimals).
python3 - "$WORK/ab.txt" "$WORK/ab.json" <<'EOF' >"$WORK/same.out"
import json, re, sys
text = open(sys.argv[1]).read().split("\n")
d = json.load(open(sys.argv[2]))
rows, section = {}, None
for line in text:
    m = re.match(r"^(\S.*?)\s+A\s+B\s+B - A\s+B / A$", line)
    if m:
        section = m.group(1)
        rows[section] = []
        continue
    if section and line.startswith("  ") and not line.startswith("   " * 5):
        f = line.split()
        delta = next((x for x in f[::-1] if re.match(r"^[-+][0-9.]+$", x)), None)
        rows[section].append(delta)
    elif not line.strip():
        section = None
bad = []
for sec, figs in d["figures"].items():
    t = rows.get(sec)
    if t is None or len(t) != len(figs):
        bad.append("%s: %s rows in text, %d in JSON" % (sec, None if t is None else len(t), len(figs)))
        continue
    for (k, v), td in zip(figs.items(), t):
        if (v["delta"] is None) != (td is None):
            bad.append("%s %s: delta %s in JSON, %s in text" % (sec, k, v["delta"], td))
        elif td is not None:
            dec = len(td.split(".")[1]) if "." in td else 0
            if abs(v["delta"] - float(td)) > 0.5001 * 10 ** -dec:
                bad.append("%s %s: delta %s in JSON, %s in text" % (sec, k, v["delta"], td))
extra = [s for s in rows if s not in d["figures"]]
print("\n".join(bad + ["text only: " + s for s in extra]))
EOF
expect_eq "text and JSON: the same rows and deltas" "" "$(cat "$WORK/same.out")"

# The differential flame graph: red frames grew, logging's among them.
"$CORECAP" compare --svg "$WORK/op.svg" "$a" "$b" 2>"$WORK/svg.err" || { cat "$WORK/svg.err"; exit 1; }
"$CORECAP" compare --svg "$WORK/wall.svg" --kind wall --per-op "$a" "$b" 2>"$WORK/wall.err" ||
	{ cat "$WORK/wall.err"; exit 1; }
red() {
	python3 - "$1" <<'EOF'
import re, sys
s = open(sys.argv[1]).read()
for m in re.finditer(r'<g class="f"><title>([^<(]*) \([^<]*</title><rect[^>]*fill="rgb\(255,(\d+),\d+\)"', s):
    print(m.group(1))
EOF
}
expect_true "op.svg: an SVG document" grep -q '^<svg ' "$WORK/op.svg"
expect_true "op.svg: the logging frame is red (grew in B)" grep -qx logging <<<"$(red "$WORK/op.svg")"
expect_true "wall.svg: log_submitf's frame is red (grew in B)" grep -q '^log_submit' <<<"$(red "$WORK/wall.svg")"
expect_true "wall.svg: a frame shrank or stayed (not all red)" grep -qvE 'fill="rgb\(255,' "$WORK/wall.svg"
finish
