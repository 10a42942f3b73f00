#!/usr/bin/env python3
"""Drives a corecap flame graph SVG in headless Chromium through
chromedriver (W3C WebDriver over HTTP; no client library), as a user would:
the labels fit their frames, Search (Ctrl-F, then the prompt typed into)
highlights the matching frames and says "Matched: N%" equal to the folded
stacks' share, the button resets it, a click on a frame zooms it to the
full width with its callees scaled and its callers kept, Reset Zoom puts
everything back; in an HTML page, every embedded picture has its own
working script. Prints "ok: ..." / "FAIL: ..." lines; exit 1 on a failure.

usage: flame_svg_browser.py CHROMEDRIVER CHROMIUM PROFILE_DIR SVG FOLDED REGEX PAGE.html
"""
import json
import re
import subprocess
import sys
import time
import urllib.request

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"  # the W3C web element identifier
driver_bin, chromium, profile, svg_path, folded_path, regex, page_path = sys.argv[1:8]
failures = 0


def check(what, cond, detail=""):
    global failures
    if cond:
        print(f"ok: {what}")
    else:
        failures += 1
        print(f"FAIL: {what} {detail}")


drv = subprocess.Popen([driver_bin, "--port=0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
port = None
deadline = time.time() + 20
while time.time() < deadline and port is None:
    line = drv.stdout.readline()
    m = re.search(r"started successfully on port (\d+)", line)
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


sid = None
try:
    caps = {"capabilities": {"alwaysMatch": {
        "browserName": "chrome",
        "goog:chromeOptions": {"binary": chromium, "args": [
            "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--no-first-run", "--disable-extensions", f"--user-data-dir={profile}"]},
        "unhandledPromptBehavior": "ignore"}}}
    sid = call("POST", "/session", caps)["sessionId"]
    s = f"/session/{sid}"

    def js(script, *args):
        return call("POST", s + "/execute/sync", {"script": script, "args": list(args)})

    def click(el):
        call("POST", s + f"/element/{el[ELEMENT]}/click", {})

    def frames():
        """Every frame: name (from its tooltip), x, width, display, opacity, fill, label."""
        return js("""return Array.prototype.map.call(document.querySelectorAll('g.f'), function (g) {
            var r = g.querySelector('rect'), t = g.querySelector('text');
            return {name: g.querySelector('title').textContent.split('\\n')[0].replace(/ \\([0-9,]+ [^()]*\\)$/, ''),
                    x: +r.getAttribute('x'), w: +r.getAttribute('width'), y: +r.getAttribute('y'),
                    shown: g.getAttribute('display') !== 'none', opacity: g.getAttribute('opacity'),
                    fill: r.getAttribute('fill'), label: t ? t.textContent : '',
                    label_px: t && t.textContent ? t.getComputedTextLength() : 0};
        });""")

    call("POST", s + "/url", {"url": "file://" + svg_path})
    width = float(js("return document.documentElement.getAttribute('data-width');"))
    pad = float(js("return document.documentElement.getAttribute('data-pad');"))
    full = width - 2 * pad
    before = frames()
    check(f"the SVG has frames ({len(before)})", len(before) > 3)

    # Labels: within their frame by the browser's measure; the whole name, or >= 6 characters and "..".
    bad = [f for f in before if f["label"] and (f["label_px"] > f["w"] - 5 or (
        f["label"] != f["name"] and not (f["label"].endswith("..") and len(f["label"]) >= 8
                                          and f["name"].startswith(f["label"][:-2]))))]
    check("every label fits its frame and is the name or at least 6 characters of it and '..'",
          not bad, str(bad[:3]))
    check("labels are drawn", sum(1 for f in before if f["label"]) >= 3)

    # Search with Ctrl-F: the prompt, typed into.
    call("POST", s + "/actions", {"actions": [{"type": "key", "id": "kb", "actions": [
        {"type": "keyDown", "value": "\ue009"}, {"type": "keyDown", "value": "f"},
        {"type": "keyUp", "value": "f"}, {"type": "keyUp", "value": "\ue009"}]}]})
    prompt = call("GET", s + "/alert/text")
    check("Ctrl-F opens the search prompt", "regular expression" in (prompt or ""), repr(prompt))
    call("POST", s + "/alert/text", {"text": regex})
    call("POST", s + "/alert/accept", {})
    matched = js("return document.querySelector('.cf-matched').textContent;")
    # What the folded stacks say: the share of the weight under a frame the regex matches.
    total = hit = 0
    for line in open(folded_path):
        stack, w = line.rstrip("\n").rsplit(" ", 1)
        total += int(w)
        if any(re.search(regex, fr) for fr in stack.split(";")):
            hit += int(w)
    want = 100.0 * hit / total
    m = re.match(r"Matched: ([0-9.]+)%$", matched)
    check(f"'{matched}' = the folded stacks' share {want:.2f}%", m and abs(float(m.group(1)) - want) <= 0.06,
          repr(matched))
    check("the search matches something, not everything", 0 < want < 100, f"{want}")
    now = frames()
    lit = [f["name"] for f in now if f["fill"] == "rgb(230,0,230)"]
    want_lit = [f["name"] for f in now if re.search(regex, f["name"])]
    check(f"the matched frames, and only they, are highlighted ({len(lit)})", lit == want_lit and lit,
          f"{lit} vs {want_lit}")
    search_btn = js("return document.querySelector('.cf-search');")
    check("the Search button now resets", js("return arguments[0].textContent;", search_btn) == "Reset Search")
    click(search_btn)
    now = frames()
    check("Reset Search restores every colour", [f["fill"] for f in now] == [f["fill"] for f in before])
    check("and clears Matched", js("return document.querySelector('.cf-matched').textContent;") == "")

    # Zoom: the widest frame at the second level above the root with callees of its own.
    root_y = max(f["y"] for f in before)
    cands = [i for i, f in enumerate(before) if f["y"] == root_y - 32 and f["w"] < full * 0.9
             and any(g["y"] < f["y"] and g["x"] >= f["x"] - 0.02 and g["x"] + g["w"] <= f["x"] + f["w"] + 0.02
                     for g in before)]
    check("a frame to zoom into", cands)
    z = max(cands, key=lambda i: before[i]["w"])
    zf = before[z]
    el = js("return document.querySelectorAll('g.f')[arguments[0]];", z)
    click(el)
    now = frames()
    check(f"zoom: '{zf['name']}' ({zf['w']:.1f} px) takes the full width", abs(now[z]["w"] - full) < 0.02
          and abs(now[z]["x"] - pad) < 0.02, f"{now[z]}")
    scale = full / zf["w"]
    kids = [i for i, f in enumerate(before) if f["y"] < zf["y"] and f["x"] >= zf["x"] - 0.02
            and f["x"] + f["w"] <= zf["x"] + zf["w"] + 0.02]
    check(f"its callees ({len(kids)}) are scaled by {scale:.2f}",
          kids and all(now[i]["shown"] and abs(now[i]["w"] - before[i]["w"] * scale) < 0.05 + 0.01 * scale
                       for i in kids))
    parents = [i for i, f in enumerate(before) if f["y"] > zf["y"] and f["x"] <= zf["x"] + 0.02
               and f["x"] + f["w"] >= zf["x"] + zf["w"] - 0.02]
    check(f"its callers ({len(parents)}) stay, full width, dimmed",
          parents and all(now[i]["shown"] and abs(now[i]["w"] - full) < 0.02 and now[i]["opacity"] == "0.5"
                          for i in parents))
    others = [i for i in range(len(before)) if i != z and i not in kids and i not in parents]
    check(f"the other frames ({len(others)}) are hidden", others and all(not now[i]["shown"] for i in others))
    check("zoomed labels still fit", all(f["label_px"] <= f["w"] - 5 for f in now if f["shown"] and f["label"]))
    reset = js("return document.querySelector('.cf-reset');")
    check("Reset Zoom is shown", js("return arguments[0].getAttribute('visibility');", reset) == "visible")
    click(reset)
    now = frames()
    check("Reset Zoom puts every frame back", all(
        a["shown"] and abs(a["x"] - b["x"]) < 0.011 and abs(a["w"] - b["w"]) < 0.011 and not a["opacity"]
        for a, b in zip(now, before)))

    # An HTML page: each embedded picture's script found its own SVG.
    call("POST", s + "/url", {"url": "file://" + page_path})
    n_svg = js("return document.querySelectorAll('svg[data-width]').length;")
    shown = js("""return Array.prototype.filter.call(document.querySelectorAll('svg[data-width] .cf-search'),
        function (b) { return b.getAttribute('visibility') === 'visible'; }).length;""")
    check(f"the page's {n_svg} flame graphs each have a working Search button", n_svg >= 2 and shown == n_svg,
          f"{shown} of {n_svg}")
    # Zoom in the page's second picture leaves the first alone.
    first_w = js("return [].map.call(document.querySelectorAll('svg[data-width]')[0].querySelectorAll('g.f rect'),"
                 " function (r) { return r.getAttribute('width'); });")
    g2 = js("var gs = document.querySelectorAll('svg[data-width]')[1].querySelectorAll('g.f');"
            " return gs[gs.length - 1];")
    click(g2)
    check("a zoom in one picture of the page leaves the other alone", first_w == js(
        "return [].map.call(document.querySelectorAll('svg[data-width]')[0].querySelectorAll('g.f rect'),"
        " function (r) { return r.getAttribute('width'); });"))
    check("and zooms its own", js("return document.querySelectorAll('svg[data-width]')[1]"
                                  ".querySelector('.cf-reset').getAttribute('visibility');") == "visible")
except Exception as e:  # a WebDriver error is a failure of the test, with what it said
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
