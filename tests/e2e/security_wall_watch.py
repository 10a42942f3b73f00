#!/usr/bin/env python3
"""Watches every thread of a process for ptrace/job-control stops.

security_wall_watch.py PID SECONDS OUT: reads /proc/PID/task/*/stat over
and over for SECONDS and writes to OUT, as "key value" lines:
  passes        how many times every thread was read
  pass_ms_max   the longest pass (the watch's resolution)
  stop_ms_max   the longest one thread was seen stopped (state t or T)
                without a pass seeing it run in between: from the first pass
                that saw it stopped to the last; a lower bound of its stop
                (or of two stops in a row, one pass apart at least)
  stop_tid      that thread
  stop_at       when that stop was first seen (CLOCK_MONOTONIC, s)
  threads       threads seen
"""
import os
import sys
import time


def state_of(path):
    try:
        with open(path, "rb") as f:
            s = f.read()
    except OSError:
        return None
    i = s.rfind(b")")
    return s[i + 2:i + 3] if i >= 0 else None


def main():
    pid, seconds, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    task = "/proc/%s/task" % pid
    since = {}  # tid -> when a pass first saw it stopped
    worst_at = 0.0
    seen = set()
    worst, worst_tid, passes, pass_max = 0.0, "", 0, 0.0
    end = time.monotonic() + seconds
    while True:
        t0 = time.monotonic()
        if t0 >= end:
            break
        try:
            tids = os.listdir(task)
        except OSError:
            break
        for tid in tids:
            seen.add(tid)
            st = state_of("%s/%s/stat" % (task, tid))
            now = time.monotonic()
            if st not in (b"t", b"T"):
                since.pop(tid, None)
                continue
            since.setdefault(tid, now)
            held = now - since[tid]
            if held > worst:
                worst, worst_tid, worst_at = held, tid, since[tid]
        passes += 1
        pass_max = max(pass_max, time.monotonic() - t0)
        time.sleep(0.002)
    with open(out + ".tmp", "w") as f:
        f.write("passes %d\npass_ms_max %.1f\nstop_ms_max %.1f\nstop_tid %s\nstop_at %.3f\n"
                "threads %d\n" % (passes, pass_max * 1e3, worst * 1e3, worst_tid or "-",
                                   worst_at, len(seen)))
    os.rename(out + ".tmp", out)


main()
