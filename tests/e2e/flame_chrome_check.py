#!/usr/bin/env python3
"""Checks a Chrome Trace Event JSON file the way Perfetto's and
chrome://tracing's JSON importers read it: one JSON object with a
traceEvents array; every event with a phase, integer pid and tid and a
non-negative ts; X slices with a non-negative dur, properly nested on each
thread (a slice that starts inside another ends inside it); async b/e
events balanced per id, ended in reverse order of beginning with the same
names; a thread_name for every thread that has events; numeric counters.

usage: flame_chrome_check.py FILE
Prints one line of figures ("events=N X=.. b=.. ...") and exits 0, or
prints each problem (at most 20) and exits 1.
"""
import collections
import json
import sys


def main():
    problems = []

    def bad(msg):
        if len(problems) < 20:
            problems.append(msg)

    with open(sys.argv[1], encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        print("FAIL: not an object with a traceEvents array")
        return 1
    events = doc["traceEvents"]
    phases = collections.Counter()
    slices = collections.defaultdict(list)
    open_async = collections.defaultdict(list)
    flows = {}  # (cat, id) of flows started, not ended: their start ts
    named = set()
    used = set()
    for i, e in enumerate(events):
        ph = e.get("ph")
        phases[ph] += 1
        if ph not in ("X", "b", "e", "n", "M", "C", "i", "s", "f"):
            bad(f"event {i}: unexpected phase {ph!r}")
            continue
        for key in ("pid", "tid"):
            if not isinstance(e.get(key), int):
                bad(f"event {i}: {key} is not an integer")
        ts = e.get("ts")
        if not isinstance(ts, (int, float)) or ts < 0:
            bad(f"event {i}: bad ts {ts!r}")
            continue
        if not isinstance(e.get("name"), str) or not e["name"]:
            bad(f"event {i}: no name")
        if ph == "M":
            if e["name"] == "thread_name":
                named.add((e["pid"], e["tid"]))
                if not e.get("args", {}).get("name"):
                    bad(f"event {i}: thread_name without a name")
            continue
        if ph in ("X", "i", "s", "f"):
            used.add((e["pid"], e["tid"]))
        if ph == "X":
            dur = e.get("dur")
            if not isinstance(dur, (int, float)) or dur < 0:
                bad(f"event {i}: X with bad dur {dur!r}")
                continue
            slices[(e["pid"], e["tid"])].append((ts, -dur, i))
        elif ph in ("b", "e"):
            if not e.get("cat") or "id" not in e:
                bad(f"event {i}: async event without cat or id")
                continue
            stack = open_async[(e["cat"], e["id"])]
            if ph == "b":
                stack.append((e["name"], ts))
            elif not stack:
                bad(f"event {i}: 'e' of {e['name']!r} id {e['id']} never begun")
            else:
                name, begun = stack.pop()
                if name != e["name"]:
                    bad(f"event {i}: 'e' of {e['name']!r} closes {name!r} (id {e['id']})")
                if ts < begun:
                    bad(f"event {i}: async {name!r} ends before it begins")
        elif ph in ("s", "f"):
            # A flow: one start, then one end of the same id, not earlier.
            if not e.get("cat") or "id" not in e:
                bad(f"event {i}: flow event without cat or id")
                continue
            if ph == "s":
                if (e["cat"], e["id"]) in flows:
                    bad(f"event {i}: flow id {e['id']} started twice")
                flows[(e["cat"], e["id"])] = ts
            elif (e["cat"], e["id"]) not in flows:
                bad(f"event {i}: flow id {e['id']} ends before it starts")
            elif ts < flows.pop((e["cat"], e["id"])):
                bad(f"event {i}: flow id {e['id']} ends before its start's time")
        elif ph == "C":
            args = e.get("args")
            if not isinstance(args, dict) or not args or not all(
                    isinstance(v, (int, float)) for v in args.values()):
                bad(f"event {i}: counter without numeric args")
    if flows:
        bad(f"{len(flows)} flows never ended")
    for key, stack in open_async.items():
        if stack:
            bad(f"async {key}: {len(stack)} slices never ended")
    # Nesting: sorted by start (longest first at equal starts), a slice must
    # end inside every slice it starts in. 1 ns of slack for rounding.
    for thread, xs in slices.items():
        xs.sort()
        ends = []
        for ts, negdur, i in xs:
            end = ts - negdur
            while ends and ends[-1] <= ts + 0.001:
                ends.pop()
            if ends and end > ends[-1] + 0.001:
                bad(f"thread {thread}: slice {i} [{ts}, {end}] overlaps its parent "
                    f"ending at {ends[-1]}")
            ends.append(end)
    for thread in sorted(used - named):
        bad(f"thread {thread} has events but no thread_name")
    if problems:
        for p in problems:
            print("FAIL:", p)
        return 1
    print(f"events={len(events)} " + " ".join(f"{k}={v}" for k, v in sorted(phases.items())) +
          f" threads={len(named)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
