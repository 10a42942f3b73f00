#!/usr/bin/env python3
"""diagnosis_diag_agree.py [-q] [--run NAME] TEXT JSON [HTML]: the report's
diagnosis says the same in each rendering (docs/methodology.md, "The
diagnosis"): the headline kind and sentence, the headroom, the next limit,
the projection at this machine's cores and the action (the relief in
words, and its verify command); the JSON's older keys agree with it; no old
verdict section is printed; and no two sections name different limits:
the CANDIDATES detail ranks no other resource above the headline's, the
PROJECTION detail names the headline's limit at this machine's cores, the
threads and pools tables' top entry is the headline's thread or pool.
Prints one line per check (with -q, none but the failure); exits 1 on the
first disagreement, naming both sides and, with --run, the run."""
import html
import json
import re
import sys

args = sys.argv[1:]
quiet = False
run = None
while args and args[0].startswith("-"):
    if args[0] == "-q":
        quiet = True
        args = args[1:]
    elif args[0] == "--run":
        run = args[1]
        args = args[2:]
    else:
        sys.exit("usage: diagnosis_diag_agree.py [-q] [--run NAME] TEXT JSON [HTML]")

# Figures the text prints to 0.1%: a ranking closer than this is a tie.
TIE = 0.0015


def fail(what, a, b):
    print("FAIL: %s%s: %r != %r" % ("run %s: " % run if run else "", what, a, b))
    sys.exit(1)


def same(what, a, b):
    if a != b:
        fail(what, a, b)
    if not quiet:
        print("ok: %s agree (%s)" % (what, a))


text = open(args[0]).read()
rep = json.load(open(args[1]))
page = html.unescape(open(args[2]).read()) if len(args) > 2 else None
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


# The relief: the action in words and its verify command, the same everywhere.
act = re.search(r"^  action +(.*)$", text, re.M)
same("action (text, json)", act and act.group(1), d["action"])
ver = re.search(r"^  verify +(.*)$", text, re.M)
same("verify command (text, json)", ver and ver.group(1), d.get("verify_command"))
if page is not None:
    pa = re.search(r"<tr><td>action</td><td colspan=\"2\">(.*?)</td></tr>", page, re.S)
    same("action (html, json)", pa and pa.group(1), d["action"])
    pv = re.search(r"<tr><td>verify</td><td colspan=\"2\"><code>(.*?)</code>", page, re.S)
    same("verify command (html, json)", pv and pv.group(1), d.get("verify_command"))

# What the headline names, as the detail sections spell it.
tid_pool = {t["tid"]: t.get("pool") for t in rep.get("threads", [])}


def pool_of(kind, name):
    """The pool of a thread named "NAME (tid N)", else None."""
    m = re.search(r"\(tid (\d+)\)$", name or "")
    return tid_pool.get(int(m.group(1))) if kind == "thread" and m else None


named = d["kind"] in ("lock", "thread", "pool") and d.get("name")
head = "%s %s" % (d["kind"], d["name"]) if named else None

# CANDIDATES (text and JSON): none ranks above the headline's resource but
# a thread of the headline's pool (a thread gives way to its pool); with a
# headline of none, no candidate is saturated (run 70% or more).
cands = rep["ceiling"].get("candidates") or []
sec = re.search(r"^CANDIDATES .*\n(?:  .*\n)*", text, re.M)
rows = re.findall(r"^  (lock|thread|pool) +(.*?) +(\d+\.\d) +(\d+\.\d|-)$",
                  sec.group(0) if sec else "", re.M)
same("CANDIDATES entries (text, json)", [(k, nm) for k, nm, _, _ in rows],
     [(c["kind"], c["name"]) for c in cands])
for (k, nm, r, w), c in zip(rows, cands):
    same("CANDIDATES %s %s run%% (text, json, within rounding)" % (k, nm),
         abs(float(r) - 100 * c["running"]) <= 0.051, True)
if named and cands:
    mine = [c for c in cands if (c["kind"], c["name"]) == (d["kind"], d["name"])]
    if mine:
        for c in cands:
            if c is mine[0]:
                break
            if c["running"] <= mine[0]["running"] + TIE:
                continue
            if d["kind"] == "pool" and pool_of(c["kind"], c["name"]) == d["name"]:
                continue
            fail("CANDIDATES ranks %s %s (run %.1f%%) above the headline's %s (run %.1f%%)" %
                 (c["kind"], c["name"], 100 * c["running"], head, 100 * mine[0]["running"]),
                 c["name"], d["name"])
        same("the headline's resource leads CANDIDATES", head, head)
    elif d["utilization"]["running"] is not None:
        # Listed or not, it must not run more than the least of the five listed.
        low = min(c["running"] for c in cands)
        if d["utilization"]["running"] > low + TIE:
            fail("CANDIDATES leave out the headline's %s (run %.1f%%) but list one that ran %.1f%%"
                 % (head, 100 * d["utilization"]["running"], 100 * low), None, d["name"])
if d["kind"] == "none" and "nothing measured is saturated" in d["headline"]:
    hot = ["%s %s" % (c["kind"], c["name"]) for c in cands
           if c["kind"] != "lock" and c["running"] >= 0.70 + TIE]
    same("no candidate runs 70% or more under a headline of nothing saturated", hot, [])

# PROJECTION at this machine's cores names the headline's limit.
if proj and here and d["kind"] in ("lock", "thread", "pool", "cores"):
    bound = proj[n - 1].get("bound_by")
    same("PROJECTION's bound at this machine's %d cores (text, json)" % n,
         bound is not None and re.search(r"^ +%d +\d+  %s" % (n, re.escape(bound)), text, re.M)
         is not None, True)
    want = head if named else "cores"
    # The projection gives the daemon its CPUs to itself: where the cores
    # bind only because others took them, the next limit binds there.
    if d["kind"] == "cores" and d["next"] and bound != "cores":
        want = "%s%s" % (d["next"]["kind"], " " + d["next"]["name"] if d["next"].get("name") else "")
    same("PROJECTION at this machine's cores names the headline's limit (or, for the cores, "
         "the next)", bound, want)
    lim = rep["ceiling"].get("daemon_limit")
    if named and lim and lim.get("name"):
        got = "%s %s" % (lim["kind"], lim["name"])
        if not (d["kind"] == "pool" and pool_of(lim["kind"], lim["name"]) == d["name"]):
            same("ceiling.daemon_limit and the headline", got, head)

# The threads and pools tables: the headline's thread runs most of the
# threads; the headline's pool most of the pools of 2+ threads.
if d["kind"] == "thread" and named:
    ths = [t for t in rep.get("threads", []) if t.get("cpu_util") is not None]
    m = re.search(r"\(tid (\d+)\)$", d["name"])
    top = re.search(r"^threads .*\n +(\S+) +(\d+) ", text, re.M)
    if ths and m:
        mine = [t for t in ths if t["tid"] == int(m.group(1))]
        same("the headline's thread is in the threads table (json)", bool(mine), True)
        if ths[0]["tid"] != mine[0]["tid"] and ths[0]["cpu_util"] > mine[0]["cpu_util"] + TIE:
            fail("the threads table's top entry and the headline's thread",
                 "%s (tid %d)" % (ths[0]["name"], ths[0]["tid"]), d["name"])
        same("the threads table's top entry (text, json)", top and int(top.group(2)),
             ths[0]["tid"])
        if page is not None:
            ph = re.search(r"<h2>Threads .*?</tr>\n<tr><td>.*?</td><td>(\d+)</td>", page, re.S)
            same("the threads table's top entry (html, json)", ph and int(ph.group(1)),
                 ths[0]["tid"])
if d["kind"] == "pool" and named:
    pls = [p for p in rep.get("pools", []) if p["threads"] >= 2 and p.get("cpu_util") is not None]
    mine = [p for p in pls if p["name"] == d["name"]]
    same("the headline's pool is in the pools table (json)", bool(mine), True)
    best = max(pls, key=lambda p: p["cpu_util"])
    if best["name"] != d["name"] and best["cpu_util"] > mine[0]["cpu_util"] + TIE:
        fail("the pools table's busiest pool (run) and the headline's pool", best["name"],
             d["name"])
    same("the headline's pool runs most of the pools", d["name"], d["name"])
if run:
    print("agree: run %s: %s%s: text, JSON%s agree" % (
        run, d["kind"], " " + d["name"] if d.get("name") else "",
        " and HTML" if page is not None else ""))
