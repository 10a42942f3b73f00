"""The summaries of the bench/ scripts that keep one JSON row per run
(kernel_cost.sh, hosts_overhead.sh): their rows by configuration and
round, medians, and the sign test's interval of a median (bench_lib.sh's
bench_interval, so that every script states its intervals alike)."""
import json
import os
import statistics
import subprocess

LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_lib.sh")


def load(path, keep=lambda r: True):
    """The rows of path that keep() takes, as {cfg: {round: row}}, and those it left out."""
    rows = [json.loads(line) for line in open(path)]
    by, left = {}, []
    for r in rows:
        if keep(r):
            by.setdefault(r["cfg"], {})[r["n"]] = r
        else:
            left.append(r)
    return by, left


def med(v):
    """The median, or NaN for no value."""
    return statistics.median(v) if v else float("nan")


def interval(v):
    """(lo, hi, coverage in percent as printed) of the median of v."""
    out = subprocess.run(["bash", "-c", '. "$1"; bench_interval', "-", LIB],
                         input="".join("%.6f\n" % x for x in v), capture_output=True, text=True,
                         check=True)
    lo, hi, conf = out.stdout.split()
    return float(lo), float(hi), conf
