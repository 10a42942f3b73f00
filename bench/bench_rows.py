"""The summaries of the bench/ scripts that keep one JSON row per run
(kernel_cost.sh, hosts_overhead.sh, kernel_prog_cost.sh): their rows by
configuration and round, medians, the sign test's interval of a median
(bench_lib.sh's bench_interval, so that every script states its
intervals alike), and the eBPF programs' counts of a bpf_stats run
(bench_lib.sh's bench_bpf_wrapper)."""
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


def bpf_programs(prefix):
    """{name: [calls, kernel ns]} of the collector's programs between the
    two views bench_bpf_wrapper left at prefix ({} without them)."""
    if not os.path.exists(prefix + ".after"):
        return {}
    mine = {int(x) for x in open(prefix + ".ids").read().split()}

    def progs(path):
        try:
            views = json.load(open(path))
        except (OSError, ValueError):
            return {}
        return {p["id"]: p for p in views if p.get("id") in mine}
    a, b = progs(prefix + ".before"), progs(prefix + ".after")
    st = {}
    for i, p in b.items():
        q = a.get(i, {})
        e = st.setdefault(p.get("name", str(i)), [0, 0])
        e[0] += p.get("run_cnt", 0) - q.get("run_cnt", 0)
        e[1] += p.get("run_time_ns", 0) - q.get("run_time_ns", 0)
    return st


def bpf_span_ns(prefix):
    """The CLOCK_MONOTONIC (start, end) between those views, or None."""
    try:
        v = [int(x) for x in open(prefix + ".span").read().split()]
    except (OSError, ValueError):
        return None
    return (v[0], v[1]) if len(v) == 2 else None
