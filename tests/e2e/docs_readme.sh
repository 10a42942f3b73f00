#!/usr/bin/env bash
# The README's recipe runs as written. Every ```sh block of README.md is
# preceded by a marker comment, `<!-- readme-test: run ... -->` or
# `<!-- readme-test: skip ... -->` (the quick start, which CI runs itself);
# a block with neither fails this test. Each `run` block is executed by
# bash -e in a scratch directory holding `build` (this build), with two
# placeholders replaced: '/path/to/daemon ARGS' by refosd (--big-lock, on
# a free port it reports) and 'BENCHMARK ARGS' by refbench against it;
# after a line that starts the daemon in the background, the test waits
# until it listens, as a user would. Then it checks what the recipe said
# it writes: run1/ that `report` reads, cpu.svg and wall.svg, run1.json.gz
# (export through RUN:PID on a run of one daemon, gzip'd), and that the
# `stat --once` taken during the benchmark saw the daemon at work.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"
need_sessiond
need_refosd
[ -e /usr/lib/x86_64-linux-gnu/libprofiler.so.0 ] || ldconfig -p | grep -q 'libprofiler\.so\.0 ' ||
	skip "gperftools' libprofiler.so.0 is not installed (scripts/install-deps), which run --cpuprofile preloads"

dir="$WORK/readme"
mkdir -p "$dir"
ln -s "$CORECAP_BUILD" "$dir/build"
python3 - "$CORECAP_SRC/README.md" "$WORK" <<'PY'
import re, sys
readme, work = sys.argv[1], sys.argv[2]
lines = open(readme, encoding='utf-8').read().split('\n')
run, bad, marker = [], [], None
i = 0
while i < len(lines):
    m = re.match(r'<!-- readme-test: (run|skip)\b', lines[i])
    if m:
        marker = m.group(1)
    elif lines[i].startswith('```sh'):
        j = i + 1
        while j < len(lines) and not lines[j].startswith('```'):
            j += 1
        if marker == 'run':
            run.append(lines[i + 1:j])
        elif marker is None:
            bad.append(i + 1)
        marker, i = None, j
    elif lines[i].strip():
        marker = None  # a marker applies to the block right after it
    i += 1
open(f'{work}/unmarked', 'w').write(''.join(f'{n}\n' for n in bad))
for k, block in enumerate(run):
    out = []
    for line in block:
        line = line.replace('/path/to/daemon ARGS',
                            '"$REFOSD" --port 0 --big-lock --op-cpu-us 20 --debug 1 >daemon.out 2>daemon.err')
        # 4 s: the recipe's stat looks 2 s into the record, during the benchmark.
        line = line.replace('BENCHMARK ARGS', '"$REFBENCH" -p "$PORT" -t 4 -b 1 -d 4 write')
        out.append(line)
        if re.search(r'&\s*(#.*)?$', line):
            out.append('readme_wait_daemon $!')
    open(f'{work}/block{k}.sh', 'w').write('\n'.join(out) + '\n')
print(f'{len(run)} block(s) to run, {len(bad)} unmarked')
PY
expect_eq "README sh blocks without a readme-test marker (at lines)" "" "$(cat "$WORK/unmarked")"
blocks=("$WORK"/block*.sh)
expect_calc "README blocks to run (${#blocks[@]})" "${#blocks[@]} >= 1"

# The prelude each block runs with: the placeholders' programs, and the wait.
cat >"$WORK/prelude.sh" <<PRE
set -euo pipefail
REFOSD='$REFOSD'
REFBENCH='$REFBENCH'
readme_wait_daemon() {
	echo "\$1" >>'$WORK/daemons'
	for _ in \$(seq 1 200); do
		PORT=\$(sed -n 's/^refosd: listening on 127\\.0\\.0\\.1:\\([0-9][0-9]*\\)\$/\\1/p' daemon.out)
		[ -n "\$PORT" ] && return 0
		kill -0 "\$1" 2>/dev/null || { echo "the daemon exited:"; cat daemon.err; return 1; }
		sleep 0.05
	done
	echo "the daemon did not listen within 10 s"; return 1
}
PRE
for b in "${blocks[@]}"; do
	echo "--- $(basename "$b"):"
	sed 's/^/    /' "$b"
	status=0
	(cd "$dir" && bash -c ". '$WORK/prelude.sh'; . '$b'") >"$b.out" 2>&1 || status=$?
	expect_eq "$(basename "$b") exits 0" 0 "$status"
	[ "$status" -eq 0 ] || tail -n 40 "$b.out"
	if [ -e "$WORK/daemons" ]; then
		while read -r pid; do
			kill -TERM "$pid" 2>/dev/null || true
		done <"$WORK/daemons"
		rm -f "$WORK/daemons"
	fi
done
expect_file "$dir/run1/manifest.json"
expect_true "report run1 reads the run" bash -c "'$CORECAP' report '$dir/run1' >/dev/null"
expect_true "run1 has the CPU profile" test -s "$dir/run1/cpu.prof"
for svg in cpu wall; do
	expect_true "$svg.svg is an SVG" grep -q '<svg' "$dir/$svg.svg"
done
expect_true "stat's live view named the daemon" grep -q 'corecap stat: PID [0-9]* (refosd)' "$WORK/block0.sh.out"
expect_true "stat, during the benchmark, saw the big lock contended" \
	grep -qE '^process: lock wait [0-9.]+ ms in [1-9][0-9]* contentions' "$WORK/block0.sh.out"
expect_true "run1.json.gz (export of run1:PID) is gzip" gzip -t "$dir/run1.json.gz"
expect_true "... of a Chrome trace with the daemon's events" python3 -c "
import gzip, json, sys
d = json.load(gzip.open('$dir/run1.json.gz'))
pid = json.load(open('$dir/run1/manifest.json'))['pid']
sys.exit(0 if sum(1 for e in d['traceEvents'] if e.get('pid') == pid) > 100 else 1)"
finish
