#!/usr/bin/env python3
"""diagnosis_diag_agree.py TEXT JSON [HTML]: the report's diagnosis says
the same in each rendering (docs/methodology.md, "The diagnosis"): the
headline kind and sentence, the headroom, the next limit and the
projection at this machine's cores; the JSON's older keys agree with it;
no old verdict section is printed. Prints one line per check; exits 1 on
the first disagreement, naming both sides."""
import html
import json
import re
import sys


def fail(what, a, b):
    print("FAIL: %s: %r != %r" % (what, a, b))
    sys.exit(1)


def same(what, a, b):
    if a != b:
        fail(what, a, b)
    print("ok: %s agree (%s)" % (what, a))


text = open(sys.argv[1]).read()
rep = json.load(open(sys.argv[2]))
page = html.unescape(open(sys.argv[3]).read()) if len(sys.argv) > 3 else None
d = rep["diagnosis"]

m = re.search(r"^DIAGNOSIS  (\S+): (.*)$", text, re.M)
if not m:
    fail("text has a DIAGNOSIS line", None, "DIAGNOSIS")
first = [l for l in text.splitlines() if re.match(r"^[A-Z]{4,}", l)]
same("the text's first section", first[0].split()[0], "DIAGNOSIS")
for old in ("CEILING", "MACHINE", "DAEMON", "RELIEF"):
    if re.search(r"^%s\b" % old, text, re.M):
        fail("no old verdict section in the text", old, None)
same("kind (text, json)", m.group(1), d["kind"])
same("headline (text, json)", m.group(2), d["headline"])
same("ceiling.kind (json) and diagnosis.kind", rep["ceiling"]["kind"], d["kind"])
mach = rep["ceiling"].get("on_this_machine")
if mach is not None:
    same("on_this_machine.cores_bind and a cores headline", mach["cores_bind"], d["kind"] == "cores")
room = re.search(r"^  headroom +(.*?)  \(", text, re.M).group(1)
if d["headroom"] is not None:
    hm_ = re.match(r"(\d+\.\d\d)x \(to (\d+) ops/s\)$", room)
    same("headroom (text, json, within rounding)",
         bool(hm_) and abs(float(hm_.group(1)) - d["headroom"]) <= 0.006 and
         abs(int(hm_.group(2)) - d["headroom_iops"]) <= 1, True)
then = re.search(r"^  then +(.*)$", text, re.M).group(1)
if d["next"]:
    # The JSON's figure is rounded to 0.1: the text's may differ by one in the last digit.
    tm = re.match(r"(.*) at (\d+) ops/s$", then)
    same("next limit (text, json)", tm and tm.group(1), "%s%s" % (
        d["next"]["kind"], " " + d["next"]["name"] if d["next"].get("name") else ""))
    same("next limit's ops/s (text, json, within rounding)",
         abs(int(tm.group(2)) - d["next"]["ops_per_s"]) <= 1, True)
proj = rep["ceiling"].get("projection")
here = re.search(r"^ +(\d+) +(\d+)  .*\(this machine\)$", text, re.M)
if proj and here:
    n = int(here.group(1))
    same("projection at this machine's %d cores (text, json, within rounding)" % n,
         abs(int(here.group(2)) - proj[n - 1]["iops"]) <= 1, True)
    if d["headroom"] is not None and not (d["kind"] == "closed_loop" and
                                          not rep["ceiling"]["closed_loop"]["modelled"]):
        a, b = d["headroom_iops"], proj[n - 1]["iops"]
        same("headroom x measured and the projection here (within rounding)",
             abs(a - b) <= 1 + 1e-3 * b, True)
if page is not None:
    hm = re.search(r"Diagnosis \((\S+)\):</b> (.*?)</p>", page, re.S)
    if not hm:
        fail("the page's top box has the diagnosis", None, "Diagnosis")
    same("kind (html, json)", hm.group(1), d["kind"])
    same("headline (html, json)", hm.group(2), d["headline"])
    hr = re.search(r'<td id="headroom">(.*?)</td>', page).group(1)
    same("headroom (html, text)", hr, room)
    if proj and here:
        hh = re.search(r"<tr><td>%d \(this machine\)</td><td>(\d+)</td>" % n, page)
        same("projection at this machine's cores (html, text)", hh and hh.group(1),
             here.group(2))
    if page.index("Diagnosis (") > page.index("<h2>"):
        fail("the diagnosis is the page's top box", "after a section", "first")
