#!/usr/bin/env bash
# The HTML page's critical paths and wait-for graph (analysis/render/
# html_paths.c) against the JSON report of the same run: refosd under the
# shim recorded with kernel events (root, tracefs), its page has the
# critical-path table whose figures per op type and category are the
# JSON's (`ops.by_type[T].breakdown_us`, `critical_path_us`,
# `critical_path_top`, `critical_path_runqueue_behind_us`), and an inline
# wait-for SVG, well-formed on its own
# (xmllint), whose edges are the JSON's `waitfor.edges` (the heaviest, in
# order), refosd's hand-overs among them (tp_osd_tp -> msgr-worker and
# finisher -> tp_osd_tp, cond). A run recorded without kernel events gets
# a page that says so instead of the tables.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
. "$CORECAP_SRC/tests/e2e/kernel_analysis_lib.sh"
need_sessiond
need_refosd
command -v xmllint >/dev/null || skip "xmllint is not installed (scripts/install-deps-browser)"

# check_page HTML JSON SVG_OUT: the page's sections equal the report's;
# prints each check, exits non-zero if one failed.
check_page() {
	python3 - "$@" <<'PY'
import json, re, sys, xml.etree.ElementTree as ET
from html.parser import HTMLParser

page, d, svg_out = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), sys.argv[3]
fails = 0
def check(what, ok, detail=""):
    global fails
    print(("ok: " if ok else "FAIL: ") + what + ("" if ok else ": " + detail))
    fails += not ok

class Tables(HTMLParser):
    """Rows of the tables with an id: [(tr attrs, [(td attrs, text)])]."""
    def __init__(self):
        super().__init__()
        self.tables, self.cur, self.row, self.cell = {}, None, None, None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and "id" in a:
            self.cur = self.tables.setdefault(a["id"], [])
        elif tag == "tr" and self.cur is not None:
            self.row = (a, [])
            self.cur.append(self.row)
        elif tag == "td" and self.row is not None:
            self.cell = [a, ""]
    def handle_data(self, data):
        if self.cell is not None:
            self.cell[1] += data
    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.row[1].append(tuple(self.cell))
            self.cell = None
        elif tag == "table":
            self.cur = self.row = None

p = Tables()
p.feed(page)
close = lambda a, b: abs(float(a) - float(b)) <= 0.0006
types = d["ops"]["by_type"]
rows = p.tables.get("critical-path", [])
check("the page has the critical-path table", len(rows) > 1, "none")
seen = set()
for tr, tds in rows[1:]:
    t, src = tr.get("data-type"), tr.get("data-source")
    ty = types.get(t)
    if ty is None:
        check(f"critical path: type {t} is the JSON's", False, str(list(types)))
        continue
    want = ty["breakdown_us"] if src == "annotations" else ty["critical_path_us"]
    check(f"critical path: {t} has a path in both", src != "none" and want is not None, src)
    if want is None or src == "none":
        continue
    seen.add((t, src))
    cells = {a["data-cat"]: a.get("data-v") for a, _ in tds if "data-cat" in a}
    check(f"{t} {src}: the categories are the JSON's", set(k for k, v in cells.items() if v) == set(want),
          f"{sorted(cells)} vs {sorted(want)}")
    for k, v in want.items():
        check(f"{t} {src}: {k} {cells.get(k)} us = JSON's {v}", cells.get(k) is not None and close(cells[k], v))
    if src == "annotations":
        check(f"{t}: latency {tds[3][0].get('data-v')} = JSON's {ty['latency_us']['avg']}",
              close(tds[3][0]["data-v"], ty["latency_us"]["avg"]))
for t in types:
    check(f"{t}: both rows in the page", {(t, "annotations"), (t, "critical_path")} <= seen)
    top = [(int(tds[2][1]), tds[3][1], float(tds[4][0]["data-v"]))
           for tr, tds in p.tables.get("critical-path-top", [])[1:] if tr.get("data-type") == t]
    want = [(e["tid"], e["category"], e["us_per_op"]) for e in types[t]["critical_path_top"]]
    check(f"{t}: the threads on the path are the JSON's ({len(want)})",
          len(top) == len(want) and all(a[:2] == b[:2] and close(a[2], b[2]) for a, b in zip(top, want)),
          f"{top} vs {want}")
    behind = [{a["data-behind"]: a["data-v"] for a, _ in tds if "data-behind" in a}
              for tr, tds in p.tables.get("critical-path-behind", [])[1:] if tr.get("data-type") == t]
    want = types[t]["critical_path_runqueue_behind_us"]
    check(f"{t}: whom the runqueue waited behind is the JSON's",
          len(behind) == 1 and set(behind[0]) == set(want) and all(close(behind[0][k], v) for k, v in want.items()),
          f"{behind} vs {want}")

m = re.search(r'<svg [^>]*id="waitfor".*?</svg>', page, re.S)
check("the page has the wait-for SVG", m is not None, "none")
if m:
    open(svg_out, "w").write(m.group(0))
    ns = "{http://www.w3.org/2000/svg}"
    root = ET.fromstring(m.group(0))
    got = [(g.get("data-from"), g.get("data-to"), g.get("data-kind"), float(g.get("data-ms")))
           for g in root.iter(ns + "g") if g.get("class") == "edge"]
    # The idle threads' edges (to "(not woken)", listed last) are not drawn.
    want = [(e["from"], e["to"], e["kind"], e["ms"]) for e in d["waitfor"]["edges"]
            if e["to"] != "(not woken)"][:24]
    idle = [e["to"] == "(not woken)" for e in d["waitfor"]["edges"]]
    check("the JSON's idle edges come last", idle == sorted(idle), "")
    check(f"the SVG's {len(got)} edges are the JSON's heaviest, in order",
          len(got) == len(want) and all(a[:3] == b[:3] and close(a[3], b[3]) for a, b in zip(got, want)),
          f"{got[:4]} vs {want[:4]}")
    pools = {g.get("data-pool") for g in root.iter(ns + "g") if g.get("class") == "node"}
    check("one node per pool of the edges drawn", pools == {x for e in want for x in e[:2]}, str(pools))
    for a, b in (("tp_osd_tp", "msgr-worker"), ("finisher", "tp_osd_tp")):
        check(f"the SVG has {a} -> {b} (cond) with waits",
              sum(e[3] for e in got if e[:3] == (a, b, "cond")) > 1, str(got[:6]))
    # The width of an edge is proportional to its ms (the lightest kept visible).
    ws = [(float(g.get("data-ms")), float(g.get("data-width"))) for g in root.iter(ns + "g") if g.get("class") == "edge"]
    top_ms = max(w[0] for w in ws)
    check("edge widths proportional to ms",
          all(abs(w - max(0.75, 12 * ms / top_ms)) < 0.01 for ms, w in ws), str(ws[:5]))
sys.exit(1 if fails else 0)
PY
}

# Without kernel events first: it needs no root.
read -r -a RECORD_OPTS <<<"$(record_opts_without_kernel)"
start_refosd nokernel --debug 0
record_refbench "$WORK/nokernel" -t 1 -b 1 -d 1 write
stop_refosd
"$CORECAP" html -o "$WORK/nokernel.html" "$WORK/nokernel"
expect_eq "no kernel events: the JSON has no critical path" None \
	"$(json "$WORK/nokernel.json" "d['ops']['critical_path_conservation']")"
expect_true "no kernel events: the page says the critical path is missing and why" \
	grep -q 'id="critical-path-missing">Not computed: the run has no kernel events' "$WORK/nokernel.html"
expect_true "no kernel events: the page says the wait-for graph is missing and why" \
	grep -q 'id="waitfor-missing">Not computed: the run has no kernel events' "$WORK/nokernel.html"
expect_eq "no kernel events: no empty critical-path table or wait-for SVG" 0 \
	"$(grep -c 'id="critical-path"\|id="waitfor"' "$WORK/nokernel.html" || true)"

RECORD_OPTS=()
start_refosd paths --debug 0
need_kernel_record "$OSD_PID"
record_refbench "$WORK/paths" -t 1 -b 1 -d 2 write
stop_refosd
"$CORECAP" html -o "$WORK/paths.html" "$WORK/paths"
expect_true "the page's critical paths and wait-for graph are the JSON's" \
	check_page "$WORK/paths.html" "$WORK/paths.json" "$WORK/waitfor.svg"
expect_true "the wait-for SVG is well-formed on its own (xmllint)" xmllint --noout "$WORK/waitfor.svg"
python3 -c 'import re,sys; m = re.search(r"<svg [^>]*id=\"critical-path-bars\".*?</svg>", open(sys.argv[1]).read(), re.S); open(sys.argv[2], "w").write(m.group(0) if m else "")' \
	"$WORK/paths.html" "$WORK/bars.svg"
expect_true "the critical path's bars are well-formed SVG (xmllint)" xmllint --noout "$WORK/bars.svg"
finish
