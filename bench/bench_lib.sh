# Helpers of the bench/ scripts that start refosd and measure what runs
# on its recordings, sourced after the script sets $prog (the prefix of
# its messages, on stderr). bench_options sets $build, $corecap, $refosd
# and $refbench, bench_work the scratch directory $work (or the script
# makes its own), bench_refosd_start the daemon's $pid and $port; the
# other helpers use them.
# shellcheck shell=bash

# bench_options OPTSTRING USAGE ARG...: the script's options, getopts
# OPTSTRING over ARG...: -B BUILD_DIR, -r ROUNDS and -d SECONDS set $build
# (by default $CORECAP_BUILD, else build/ in the source tree), $rounds and
# $secs, -c CPU $bench_cpu (bench_measure's CPUs); any other letter goes to
# the script's `bench_option LETTER` (with
# $OPTARG), which returns 1 for one it does not take: then "usage: $0
# USAGE" and exit 2. Sets $corecap, $refosd and $refbench in $build; the
# caller shifts $((OPTIND - 1)).
bench_options() {
	local optstring=$1 usage=$2 o
	shift 2
	build=${CORECAP_BUILD:-$(cd "$(dirname "$0")/.." && pwd)/build}
	while getopts "$optstring" o; do
		case $o in
		B) build=$OPTARG ;;
		r) rounds=$OPTARG ;;
		d) secs=$OPTARG ;;
		c) bench_cpu=$OPTARG ;;
		*) bench_option "$o" || { echo "usage: $0 $usage" >&2; exit 2; } ;;
		esac
	done
	corecap="$build/cli/corecap"
	refosd="$build/tests/refosd/refosd"
	refbench="$build/tests/refosd/refbench"
}

# bench_need FILE...: exits 1 naming the first that is not executable.
bench_need() {
	local f
	for f in "$@"; do
		[ -x "$f" ] || { echo "$prog: cannot find '$f' (build first, or -B BUILD_DIR)" >&2; exit 1; }
	done
}

# bench_work TEMPLATE: a fresh $work (mktemp -d TEMPLATE), no daemon yet,
# and bench_cleanup on exit.
bench_work() {
	work=$(mktemp -d "$1")
	pid=""
	trap bench_cleanup EXIT
}

# bench_cleanup: stops the daemon if one runs, removes $work.
bench_cleanup() {
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$work"
}

# bench_refosd_start [PREFIX...]: `PREFIX... $refosd --port 0` in the
# background (e.g. `"$corecap" run --`, which execs refosd, or `env
# LD_PRELOAD=...`: $pid is the daemon's either way), its output in
# $work/osd.out and osd.err; sets $port from its "refosd: listening on
# 127.0.0.1:PORT" line, or exits 1 with its errors when it does not listen
# within 10 s or exits first.
bench_refosd_start() {
	port=""
	: >"$work/osd.out" # there before the daemon's shell opens it
	"$@" "$refosd" --port 0 >"$work/osd.out" 2>"$work/osd.err" &
	pid=$!
	for _ in $(seq 1 200); do
		port=$(sed -n 's/^refosd: listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$work/osd.out")
		[ -n "$port" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	[ -n "$port" ] || { echo "$prog: refosd did not start:" >&2; cat "$work/osd.err" >&2; exit 1; }
}

# bench_refosd_stop: SIGTERM to the daemon, and waits for it.
bench_refosd_stop() {
	kill -TERM "$pid"
	wait "$pid" 2>/dev/null || true
	pid=""
}

# bench_record DIR SECONDS [RECORD_OPTION...]: `corecap record -q
# RECORD_OPTION... -p $pid -o DIR` while refbench writes to $port for
# SECONDS (-t 16 -b 1), their output in $work/rec.out; record's status.
bench_record() {
	local dir=$1 s=$2
	shift 2
	"$corecap" record -q "$@" -p "$pid" -o "$dir" -- \
		"$refbench" -p "$port" --no-progress -t 16 -b 1 -d "$s" write >"$work/rec.out" 2>&1
}

# bench_measure CMD...: "user_s sys_s maxrss_kb wall_s" of the command (its
# output dropped), from wait4 and the monotonic clock; exits 1 when the
# command fails. With $bench_cpu (-c CPU, or a list such as 0,1) the
# command runs on those CPUs alone: the vCPUs of a shared VM need not run
# at one speed (one of this machine's two took 1.65x the other's user
# time for the same report), and a command left to the scheduler lands on
# either, which measures the CPUs rather than the commands.
bench_measure() {
	python3 -c '
import os, subprocess, sys, time
cpu = sys.argv[2]
pin = (lambda: os.sched_setaffinity(0, {int(c) for c in cpu.split(",")})) if cpu else None
t = time.monotonic()
p = subprocess.Popen(sys.argv[3:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     preexec_fn=pin)
_, status, ru = os.wait4(p.pid, 0)
wall = time.monotonic() - t
if os.waitstatus_to_exitcode(status):
    sys.exit(sys.argv[1] + ": failed: " + " ".join(sys.argv[3:]))
print("%.6f %.6f %d %.6f" % (ru.ru_utime, ru.ru_stime, ru.ru_maxrss, wall))' "$prog" "${bench_cpu:-}" "$@"
}

# bench_main RUN_DIR...: unless -n ($record 0), the script's `record_run
# DIR` into $work/run and its `bench_run DIR` on it; then bench_run on each
# RUN_DIR.
bench_main() {
	local d
	if [ "$record" = 1 ]; then
		record_run "$work/run"
		bench_run "$work/run"
	fi
	for d in "$@"; do
		bench_run "$d"
	done
}

# json FILE EXPR: a Python expression over the parsed JSON document `d`.
json() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# bench_projected2 REPORT_JSON: "IOPS BOUND..." at 2 cores from a `corecap
# report --json`'s projection, with the benchmark client on those cores
# when the run knows its CPU (the measurement on a 2-CPU box shares them).
bench_projected2() {
	json "$1" "(lambda p: '%s %s' % (p.get('iops_with_client', p['iops']), p.get('bound_with_client', p['bound_by'])))(d['ceiling']['projection'][1])"
}

# bench_iops FILE: the "Average IOPS:" of a refbench or rados bench summary.
bench_iops() { awk -F: '/^Average IOPS/ { gsub(/ /, "", $2); print $2 }' "$1"; }

# bench_interval: "LO HI CONFIDENCE" for the median of the numbers on
# stdin, one a line: the narrowest order statistics [x_(k), x_(n+1-k)]
# that hold it with at least 95% (the sign test's interval, free of any
# assumption on the distribution), CONFIDENCE their coverage in percent.
# Under 6 numbers none reach 95%: the range, with its 1 - 2^(1-n).
bench_interval() {
	python3 -c '
import sys
from math import comb
x = sorted(float(l) for l in sys.stdin if l.strip())
n = len(x)
if not n:
    sys.exit("bench_interval: no numbers")
k, cover = 1, 1 - 2.0 ** (1 - n)
for j in range(2, n // 2 + 1):
    c = 1 - 2 * sum(comb(n, i) for i in range(j)) / 2 ** n
    if c < 0.95:
        break
    k, cover = j, c
print("%g %g %.1f" % (x[k - 1], x[n - k], 100 * cover))'
}

# bench_build_bpf DIR: builds bench/bpf_record (the eBPF programs of
# bpf_record.bpf.c and their loader) into DIR/bpf_record and checks that
# it attaches here; if it cannot, prints on stdout why (one line), for
# the caller to say that its bpf configuration is left out.
bench_build_bpf() {
	local d=$1 t b
	b=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	[ "$(uname -m)" = x86_64 ] || { echo "not x86_64"; return; }
	[ -r /sys/kernel/btf/vmlinux ] || { echo "the kernel has no BTF (/sys/kernel/btf/vmlinux)"; return; }
	for t in clang bpftool; do
		command -v "$t" >/dev/null || { echo "'$t' is not installed (apt-get install clang bpftool libbpf-dev)"; return; }
	done
	[ -r /usr/include/bpf/libbpf.h ] || { echo "libbpf-dev is not installed"; return; }
	mkdir -p "$d"
	{ bpftool btf dump file /sys/kernel/btf/vmlinux format c >"$d/vmlinux.h" &&
		clang -O2 -g -target bpf -D__TARGET_ARCH_x86 -I"$d" -c "$b/bpf_record.bpf.c" -o "$d/bpf_record.bpf.o" &&
		bpftool gen skeleton "$d/bpf_record.bpf.o" name bpf_record_bpf >"$d/bpf_record.skel.h" &&
		cc -O2 -Wall -I"$d" -o "$d/bpf_record" "$b/bpf_record.c" -lbpf; } >"$d/build.log" 2>&1 ||
		{ echo "it did not build: $(tail -n 1 "$d/build.log")"; return; }
	"$d/bpf_record" $$ 0.01 >"$d/probe.out" 2>&1 ||
		{ echo "it cannot attach here: $(tail -n 1 "$d/probe.out")"; return; }
}

# bench_bpf_wrapper FILE: writes FILE, a wrapper to run a recorded
# benchmark under (`corecap record ... -- FILE OUT CMD...`), for runs with
# kernel.bpf_stats_enabled: the ids of the programs its parent, the
# collector, holds in OUT.ids (a BPF fd's fdinfo names its prog_id: other
# recorders may run here), bpftool's view of every program before and
# after CMD in OUT.before and OUT.after, and the CLOCK_MONOTONIC ns just
# after the first view and just before the second in OUT.span (the
# programs' counting is in between). bench_rows.py's bpf_programs reads
# them.
bench_bpf_wrapper() {
	cat >"$1" <<'EOF'
#!/bin/sh
out=$1
shift
mono() { python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))'; }
cat /proc/"$PPID"/fdinfo/* 2>/dev/null | sed -n 's/^prog_id:[[:space:]]*//p' | sort -u >"$out.ids"
bpftool -j prog show >"$out.before" 2>/dev/null
mono >"$out.span"
"$@"
rc=$?
mono >>"$out.span"
bpftool -j prog show >"$out.after" 2>/dev/null
exit $rc
EOF
	chmod 755 "$1"
}

# bench_rounds ROUNDS CFG...: the script's `run CFG ROUND` for rounds 1 to
# ROUNDS, each round's configurations in rotated order (round r starts
# with the r-th), so that none always runs first or after the same other.
bench_rounds() {
	local rounds=$1 r k c
	shift
	local -a all=("$@")
	for r in $(seq 1 "$rounds"); do
		k=$(((r - 1) % ${#all[@]}))
		for c in "${all[@]:k}" "${all[@]:0:k}"; do
			run "$c" "$r"
		done
	done
}

# bench_median: the median of the numbers on stdin, one a line.
bench_median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# bench_ratio_line WHAT FILE: the median of FILE's ratios (one a line) and
# its sign-test interval, as a line "ratio WHAT (CPU): ...".
bench_ratio_line() {
	local iv
	iv=$(bench_interval <"$2")
	printf 'ratio %s (CPU): median %s, interval [%s, %s] (%s%% confidence, sign test)\n' \
		"$1" "$(bench_median <"$2")" $iv
}
