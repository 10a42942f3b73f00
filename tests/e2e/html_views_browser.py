#!/usr/bin/env python3
"""Drives corecap's HTML pages in headless Chromium through chromedriver
(W3C WebDriver over HTTP, no client library, as flame_svg_browser.py) and
checks the pprof views against the folded stacks `corecap flame` and
`corecap compare --folded` print. Prints "ok: ..." / "FAIL: ..." lines;
exit 1 on a failure.

usage: html_views_browser.py CHROMEDRIVER CHROMIUM PROFILE_DIR views PAGE.html KIND=FOLDED... [GAP_FROM_S GAP_TO_S]
       html_views_browser.py CHROMEDRIVER CHROMIUM PROFILE_DIR diff PAGE.html DIFF.folded
       html_views_browser.py CHROMEDRIVER CHROMIUM PROFILE_DIR multi PAGE.html GAP_FROM_S GAP_TO_S PID:KIND=FOLDED...

views: for each KIND (cpu, wall) the top table's rows are the folded
stacks' functions, self (innermost frame) and total (anywhere, once per
stack) equal to the folded sums, the self column sums to the total;
sorting by a header and the search filter; a click on a function shows
its callers and callees with the folded stacks' figures; the first flame
graph is as wide as its box and follows the window on a resize; with
GAP_FROM_S and GAP_TO_S a gap mark on the CPU chart overlaps that time.
diff: every frame of the differential flame graph is as wide as B's
folded weight under its stack prefix, its tooltip's change is B - A,
red where it grew and blue where it shrank.
multi: the page of a run of several daemons: in each daemon's section
(#cc-daemon-PID) the top table of each KIND (its ids ending in -PID) as
views checks it, against that daemon's folded stacks; a click on a
function in one daemon's table shows its callers there and leaves the
other daemons' views alone; one gap mark on each daemon's CPU chart over
GAP_FROM_S-GAP_TO_S and none elsewhere.
"""
import json
import re
import subprocess
import sys
import time
import urllib.request
from collections import defaultdict

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
driver_bin, chromium, profile, mode, page = sys.argv[1:6]
rest = sys.argv[6:]
failures = 0


def section(fn):
    """Runs one group of checks; an error in it fails it, the others still run."""
    global failures
    try:
        fn()
    except Exception as e:
        failures += 1
        print(f"FAIL: {fn.__name__}: {e}")


def check(what, cond, detail=""):
    global failures
    if cond:
        print(f"ok: {what}")
    else:
        failures += 1
        print(f"FAIL: {what} {detail}")


def read_folded(path, columns=1):
    out = []
    for line in open(path):
        line = line.rstrip("\n")
        if not line:
            continue
        parts = line.rsplit(" ", columns)
        out.append((parts[0].split(";"), [int(x) for x in parts[1:]]))
    return out


def tops(stacks):
    self_, total = defaultdict(int), defaultdict(int)
    for f, (w,) in stacks:
        self_[f[-1]] += w
        for name in set(f):
            total[name] += w
    return self_, total


def peek(stacks, fn):
    callers, callees = defaultdict(int), defaultdict(int)
    for f, (w,) in stacks:
        cs, ce = set(), set()
        for i, name in enumerate(f):
            if name == fn:
                cs.add(f[i - 1] if i else "(none: outermost frame)")
                ce.add(f[i + 1] if i < len(f) - 1 else "(self)")
        for c in cs:
            callers[c] += w
        for c in ce:
            callees[c] += w
    return dict(callers), dict(callees)


drv = subprocess.Popen([driver_bin, "--port=0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
port = None
deadline = time.time() + 20
while time.time() < deadline and port is None:
    m = re.search(r"started successfully on port (\d+)", drv.stdout.readline())
    if m:
        port = int(m.group(1))
if port is None:
    drv.kill()
    print("FAIL: chromedriver did not say its port")
    sys.exit(1)
base = f"http://127.0.0.1:{port}"


def call(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read())["value"]
    except urllib.error.HTTPError as e:
        raise RuntimeError(f"{method} {path}: {e.read().decode()[:400]}")


ROWS = """return [].map.call(document.querySelectorAll(arguments[0] + ' tr'), function (r) {
    return [].map.call(r.cells, function (c) { return c.tagName === 'TH' ? null : (c.getAttribute('data-v') || c.textContent); });
}).filter(function (r) { return r.length && r[0] !== null; });"""

FRAMES = """var svg = document.querySelectorAll('svg[data-width]')[arguments[0]];
return [].map.call(svg.querySelectorAll('g.f'), function (g) {
    var r = g.querySelector('rect'), t = g.querySelector('text'), tip = g.querySelector('title').textContent;
    return {tip: tip, x: +r.getAttribute('x'), w: +r.getAttribute('width'), y: +r.getAttribute('y'),
            fill: r.getAttribute('fill'), label_px: t && t.textContent ? t.getComputedTextLength() : 0};
});"""

sid = None
try:
    caps = {"capabilities": {"alwaysMatch": {
        "browserName": "chrome",
        "goog:chromeOptions": {"binary": chromium, "args": [
            "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--no-first-run", "--disable-extensions", f"--user-data-dir={profile}"]}}}}
    sid = call("POST", "/session", caps)["sessionId"]
    s = f"/session/{sid}"

    def js(script, *args):
        return call("POST", s + "/execute/sync", {"script": script, "args": list(args)})

    def el(css):
        return call("POST", s + "/element", {"using": "css selector", "value": css})

    def click(e):
        call("POST", s + f"/element/{e[ELEMENT]}/click", {})

    def rows(css):
        return js(ROWS, css)

    call("POST", s + "/url", {"url": "file://" + page})

    if mode == "views":
        gap = None
        kinds = []
        for a in rest:
            if "=" in a:
                kinds.append(a.split("=", 1))
            else:
                gap = gap or []
                gap.append(float(a))
        opts = js("return [].map.call(document.querySelectorAll('#cc-kind option'), function (o) { return o.value; });")
        check(f"the stacks offered are {[k for k, _ in kinds]} ({opts})", opts == [k for k, _ in kinds])
        for kind, path in kinds:
            stacks = read_folded(path)
            total = sum(w for _, (w,) in stacks)
            want_self, want_total = tops(stacks)
            js("var s = document.getElementById('cc-kind'); s.value = arguments[0];"
               "s.dispatchEvent(new Event('change'));", kind)
            got = rows("#cc-top tbody")
            names = [r[0] for r in got]
            check(f"{kind}: one row per function of the folded stacks ({len(got)})",
                  sorted(names) == sorted(want_total) and len(set(names)) == len(names))
            bad_self = [r for r in got if int(r[1]) != want_self.get(r[0], 0)]
            bad_total = [r for r in got if int(r[3]) != want_total.get(r[0], -1)]
            check(f"{kind}: each function's self = the folded stacks whose leaf it is", not bad_self, str(bad_self[:3]))
            check(f"{kind}: each function's total = the folded stacks holding it", not bad_total, str(bad_total[:3]))
            ssum = sum(int(r[1]) for r in got)
            check(f"{kind}: the self column sums to the folded total ({ssum} = {total})", ssum == total and total > 0)
            selfs = [int(r[1]) for r in got]
            check(f"{kind}: first shown by self, largest first", selfs == sorted(selfs, reverse=True))

        def sorting_and_search():
            # Sorting: by name (ascending, then descending), by total (largest first).
            kind, path = kinds[0]
            stacks = read_folded(path)
            js("var s = document.getElementById('cc-kind'); s.value = arguments[0];"
               "s.dispatchEvent(new Event('change'));", kind)
            click(el("#cc-top th[data-k=name]"))
            names = [r[0] for r in rows("#cc-top tbody")]
            check("a click on 'function' sorts by name", names == sorted(names) and len(names) > 2)
            click(el("#cc-top th[data-k=name]"))
            names2 = [r[0] for r in rows("#cc-top tbody")]
            check("a second click reverses it", names2 == sorted(names, reverse=True))
            click(el("#cc-top th[data-k=total]"))
            tot = [int(r[3]) for r in rows("#cc-top tbody")]
            check("a click on 'total' sorts by total, largest first", tot == sorted(tot, reverse=True) and tot[0] > tot[-1])

            # Search: a regular expression, case-insensitive; not one: a substring.
            want_self, want_total = tops(stacks)
            term = "main"
            box = el("#cc-search")
            call("POST", s + f"/element/{box[ELEMENT]}/value", {"text": term})
            got = [r[0] for r in rows("#cc-top tbody")]
            want = [n for n in want_total if re.search(term, n, re.I)]
            check(f"the search '{term}' keeps exactly the matching functions ({len(got)})", sorted(got) == sorted(want) and 0 < len(want) < len(want_total))
            shown = js("return document.getElementById('cc-shown').textContent;")
            check(f"and says how many: '{shown}'", shown.startswith(f"{len(want)} of {len(want_total)} functions"))
            call("POST", s + f"/element/{box[ELEMENT]}/clear", {})
            js("document.getElementById('cc-search').dispatchEvent(new Event('input'));")
            check("clearing it shows every function again", len(rows("#cc-top tbody")) == len(want_total))

        def callers_and_callees():
            # Callers and callees of the busiest function called from and calling others.
            cands = sorted(want_total, key=lambda n: -want_total[n])
            fn = None
            for n in cands:
                c, e = peek(stacks, n)
                if any(k != "(none: outermost frame)" for k in c) and any(k != "(self)" for k in e):
                    fn = n
                    break
            check(f"a function with callers and callees exists ({fn})", fn is not None)
            js("""var rows = document.querySelectorAll('#cc-top tbody tr');
    for (var i = 0; i < rows.length; i++) if (rows[i].cells[0].textContent === arguments[0]) { rows[i].click(); break; }""", fn)
            want_c, want_e = peek(stacks, fn)
            got_c = {r[0]: int(r[1]) for r in rows("#cc-callers")}
            got_e = {r[0]: int(r[1]) for r in rows("#cc-callees")}
            check(f"the view names the function clicked", js("return document.getElementById('cc-peek-fn').textContent;") == fn)
            check(f"its callers and their figures are the folded stacks' ({len(got_c)})", got_c == want_c, f"{got_c} vs {want_c}")
            check(f"its callees and their figures are the folded stacks' ({len(got_e)})", got_e == want_e, f"{got_e} vs {want_e}")
            summ = js("return document.getElementById('cc-peek-sum').textContent;")
            check(f"its total and self: '{summ}'", summ.startswith(f"total {want_total[fn]} ") and f", self {want_self.get(fn, 0)} " in summ)
            # A callee's row leads on to that function.
            callee = next(k for k in sorted(want_e, key=lambda k: -want_e[k]) if k != "(self)")
            js("""var rows = document.querySelectorAll('#cc-callees tr');
    for (var i = 0; i < rows.length; i++) if (rows[i].cells[0].textContent === arguments[0]) { rows[i].click(); break; }""", callee)
            want_c2, _ = peek(stacks, callee)
            got_c2 = {r[0]: int(r[1]) for r in rows("#cc-callers")}
            check(f"a click on the callee {callee} shows its own callers", got_c2 == want_c2 and fn in got_c2)
            # A click on the function's frame in its flame graph shows it again (and zooms there).
            hit = js("""var div = document.querySelector('div.flame[data-kind=' + arguments[0] + ']');
var gs = div ? div.querySelectorAll('g.f') : [];
for (var i = 0; i < gs.length; i++)
  if (gs[i].querySelector('title').textContent.split('\\n')[0].replace(/ \\([0-9,]+ [^()]*\\)$/, '') === arguments[1]) {
    gs[i].dispatchEvent(new MouseEvent('click', {bubbles: true}));
    return true;
  }
return false;""", kind, fn)
            check(f"a click on {fn}'s frame in the {kind} flame graph shows it",
                  hit and js("return document.getElementById('cc-peek-fn').textContent;") == fn
                  and {r[0]: int(r[1]) for r in rows("#cc-callers")} == want_c)
            js("document.querySelector('div.flame[data-kind=' + arguments[0] + '] .cf-reset').dispatchEvent(new MouseEvent('click'));", kind)

        def fit_to_window():
            # The flame graphs fit their box and follow the window.
            def geometry():
                return js("""var svg = document.querySelectorAll('svg[data-width]')[0];
    var all = [].filter.call(svg.querySelectorAll('g.f'), function (g) { return /^all /.test(g.querySelector('title').textContent); })[0];
    return {box: svg.parentNode.clientWidth, w: +svg.getAttribute('width'), shown: svg.getBoundingClientRect().width,
            all: +all.querySelector('rect').getAttribute('width'), pad: +svg.getAttribute('data-pad'), win: window.innerWidth};""")

            def settle():
                time.sleep(0.4)
                return geometry()

            g1 = settle()
            check(f"the first flame graph is as wide as its box at a {g1['win']} px window ({g1['w']} = {g1['box']})",
                  abs(g1["w"] - g1["box"]) <= 1 and abs(g1["shown"] - g1["box"]) <= 1 and g1["w"] != 1200)
            check("its root frame spans it, less the margins", abs(g1["all"] - (g1["w"] - 2 * g1["pad"])) <= 0.02)
            call("POST", s + "/window/rect", {"width": 800, "height": 900})
            g2 = settle()
            check(f"a narrower window ({g2['win']} px): the graph narrows with it ({g2['w']} = {g2['box']})",
                  abs(g2["w"] - g2["box"]) <= 1 and g2["w"] < g1["w"] - 400 and abs(g2["shown"] - g2["box"]) <= 1)
            check("its root frame spans it again", abs(g2["all"] - (g2["w"] - 2 * g2["pad"])) <= 0.02)
            fr = js(FRAMES, 0)
            over = [f["tip"].split("\n")[0] for f in fr if f["label_px"] and f["label_px"] > f["w"] - 5]
            check("every label still fits its frame", not over, str(over[:3]))
            call("POST", s + "/window/rect", {"width": 1600, "height": 900})
            g3 = settle()
            check(f"a wider window ({g3['win']} px): wider again ({g3['w']} = {g3['box']})",
                  abs(g3["w"] - g3["box"]) <= 1 and g3["w"] > g1["w"])

        def gap_marks():
            if gap:
                marks = js("""return [].map.call(document.querySelectorAll('g.cc-gap'), function (g) {
      var r = g.querySelector('rect').getBoundingClientRect();
      return {from: +g.getAttribute('data-from-s'), to: +g.getAttribute('data-to-s'), w: r.width, h: r.height,
              tip: g.querySelector('title').textContent};
    });""")
                print(f"gap marks: {marks}")
                hit = [m for m in marks if m["from"] < gap[1] and m["to"] > gap[0] and m["w"] > 1 and m["h"] > 10]
                check(f"a gap mark on the CPU chart over the sampler's stop ({gap[0]:.2f}-{gap[1]:.2f} s)", len(hit) == 1, str(marks))
                check("no mark elsewhere", len(marks) == len(hit), str(marks))

        kind, path = kinds[0]
        stacks = read_folded(path)
        want_self, want_total = tops(stacks)
        for part in (sorting_and_search, callers_and_callees, fit_to_window, gap_marks):
            section(part)
    elif mode == "multi":
        gap = (float(rest[0]), float(rest[1]))
        per = defaultdict(list)
        for a in rest[2:]:
            pid, kv = a.split(":", 1)
            per[pid].append(kv.split("=", 1))
        sections = js("return [].map.call(document.querySelectorAll('section[id^=cc-daemon-]'), function (x) { return x.id; });")
        check(f"one section per daemon ({sections})", sorted(sections) == sorted(f"cc-daemon-{p}" for p in per))
        for pid, kinds in per.items():
            sfx = f"-{pid}"
            opts = js("return [].map.call(document.querySelectorAll('#cc-kind' + arguments[0] + ' option'), function (o) { return o.value; });", sfx)
            check(f"PID {pid}: the stacks offered are {[k for k, _ in kinds]} ({opts})", opts == [k for k, _ in kinds])
            for kind, path in kinds:
                stacks = read_folded(path)
                total = sum(w for _, (w,) in stacks)
                want_self, want_total = tops(stacks)
                js("var s = document.getElementById('cc-kind' + arguments[1]); s.value = arguments[0];"
                   "s.dispatchEvent(new Event('change'));", kind, sfx)
                got = rows(f"#cc-top{sfx} tbody")
                names = [r[0] for r in got]
                check(f"PID {pid} {kind}: one row per function of its folded stacks ({len(got)})",
                      sorted(names) == sorted(want_total) and len(set(names)) == len(names) and names)
                bad = [r for r in got if int(r[1]) != want_self.get(r[0], 0) or int(r[3]) != want_total.get(r[0], -1)]
                check(f"PID {pid} {kind}: each function's self and total = its folded stacks'", not bad, str(bad[:3]))
                ssum = sum(int(r[1]) for r in got)
                check(f"PID {pid} {kind}: the self column sums to the folded total ({ssum} = {total})", ssum == total and total > 0)
                inside = js("return !!document.querySelector('#cc-daemon' + arguments[0] + ' #cc-top' + arguments[0]);", sfx)
                check(f"PID {pid}: its table is in its own section", inside)
            marks = js("""return [].map.call(document.querySelectorAll('#cc-daemon' + arguments[0] + ' g.cc-gap'), function (g) {
      var r = g.querySelector('rect').getBoundingClientRect();
      return {from: +g.getAttribute('data-from-s'), to: +g.getAttribute('data-to-s'), w: r.width, h: r.height};
    });""", sfx)
            hit = [m for m in marks if m["from"] < gap[1] and m["to"] > gap[0] and m["w"] > 1 and m["h"] > 10]
            check(f"PID {pid}: one gap mark on its CPU chart over the sampler's stop ({gap[0]:.2f}-{gap[1]:.2f} s)", len(hit) == 1, str(marks))
            check(f"PID {pid}: no mark elsewhere", len(marks) == len(hit), str(marks))
        # A click in the first daemon's table: its callers there, the others untouched.
        pids = list(per)
        first, kinds0 = pids[0], per[pids[0]]
        kind, path = kinds0[0]
        stacks = read_folded(path)
        _, want_total = tops(stacks)
        fn = next((n for n in sorted(want_total, key=lambda n: -want_total[n])
                   if any(k != "(none: outermost frame)" for k in peek(stacks, n)[0])), None)
        others = {p: js("return document.getElementById('cc-peek-' + arguments[0]).textContent;", p) for p in pids[1:]}
        js("var s = document.getElementById('cc-kind-' + arguments[1]); s.value = arguments[0];"
           "s.dispatchEvent(new Event('change'));", kind, first)
        js("""var rows = document.querySelectorAll('#cc-top-' + arguments[1] + ' tbody tr');
    for (var i = 0; i < rows.length; i++) if (rows[i].cells[0].textContent === arguments[0]) { rows[i].click(); break; }""", fn, first)
        want_c, _ = peek(stacks, fn)
        got_c = {r[0]: int(r[1]) for r in rows(f"#cc-callers-{first}")}
        check(f"PID {first}: a click on {fn} shows its callers from its folded stacks ({len(got_c)})", got_c == want_c and got_c, f"{got_c} vs {want_c}")
        after = {p: js("return document.getElementById('cc-peek-' + arguments[0]).textContent;", p) for p in pids[1:]}
        check("the other daemons' views are untouched", after == others)
    else:
        stacks = read_folded(rest[0], 2)
        pre = defaultdict(lambda: [0, 0])
        for f, ws in stacks:
            for i in range(1, len(f) + 1):
                p = pre[tuple(f[:i])]
                p[0] += ws[0]
                p[1] += ws[1]
        tot_a = sum(ws[0] for _, ws in stacks)
        tot_b = sum(ws[1] for _, ws in stacks)
        n = js("return document.querySelectorAll('svg[data-width]').length;")
        check("the page has one differential flame graph", n == 1)
        check("and the headline", bool(js("return document.getElementById('headline').textContent;")))
        fr = js(FRAMES, 0)
        # Each frame's stack from the picture itself: its parent is the frame below holding it.
        ys = sorted({f["y"] for f in fr}, reverse=True)
        rootf = [f for f in fr if f["y"] == ys[0]]
        check("one root frame", len(rootf) == 1)
        W = rootf[0]["w"]
        paths = {}
        for f in sorted(fr, key=lambda f: -f["y"]):
            f["name"] = re.sub(r" \([0-9,]+ [^()]*\)$", "", f["tip"].split("\n")[0])
            if f is rootf[0]:
                f["path"] = ()
                continue
            mid = f["x"] + f["w"] / 2
            par = [p for p in fr if abs(p["y"] - f["y"] - 16) < 0.01 and p.get("path") is not None
                   and p["x"] <= mid <= p["x"] + p["w"]]
            f["path"] = par[0]["path"] + (f["name"],) if len(par) == 1 else None
            if f["path"] is None:
                print(f"no single parent for {f['name']} at x {f['x']} w {f['w']} y {f['y']}: {len(par)}")
        lost = [f for f in fr if f.get("path") is None]
        check(f"every frame's stack found by its place ({len(fr)} frames)", not lost and len(fr) > 5, str(lost[:2]))
        bad_w, bad_d, bad_c = [], [], []
        for f in fr:
            if f.get("path") is None or f["path"] == ():
                continue
            a, b = pre[f["path"]]
            if abs(f["w"] - W * b / tot_b) > 0.02 + W * 1e-6:
                bad_w.append((f["path"], f["w"], W * b / tot_b))
            m = re.search(r"\nchange: ([-+][0-9]+) ", f["tip"])
            if not m or int(m.group(1)) != b - a:
                bad_d.append((f["path"], m and m.group(1), b - a))
            red, blue = f["fill"].startswith("rgb(255,") and b > a, f["fill"].endswith(",255)") and b < a
            white = f["fill"] == "rgb(250,250,250)" and b == a
            if not (red or blue or white):
                bad_c.append((f["path"], f["fill"], b - a))
        check(f"every frame's width is B's weight under its stack (B total {tot_b})", not bad_w, str(bad_w[:3]))
        check("every frame's change is the folded delta B - A", not bad_d, str(bad_d[:3]))
        check("red where B grew, blue where it shrank", not bad_c, str(bad_c[:3]))
        grew = sum(1 for f in fr if f.get("path") and pre[f["path"]][1] > pre[f["path"]][0])
        shrank = sum(1 for f in fr if f.get("path") and pre[f["path"]][1] < pre[f["path"]][0])
        print(f"frames: {len(fr)}, grew {grew}, shrank {shrank}; A {tot_a}, B {tot_b}")
        check("some frames grew", grew > 0)
        drawn = {f["path"] for f in fr if f.get("path")}
        want = {p for p, (a, b) in pre.items() if W * b / tot_b >= 0.1 + 0.02}
        check(f"every stack prefix wide enough is drawn ({len(want)})", want <= drawn, str(list(want - drawn)[:3]))
except Exception as e:
    failures += 1
    print(f"FAIL: {e}")
finally:
    if sid:
        try:
            call("DELETE", f"/session/{sid}")
        except Exception:
            pass
    drv.terminate()
    try:
        drv.wait(10)
    except subprocess.TimeoutExpired:
        drv.kill()
sys.exit(1 if failures else 0)
