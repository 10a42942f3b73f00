#!/usr/bin/env bash
# The documentation cites nothing that is not in the repository: no
# DESIGN.md (the project's shared notes, outside it), no relative
# Markdown link to a missing file, and no repository path (docs/x.md,
# scripts/x, tests/e2e/x.sh, ...) named in README.md, docs/*.md or
# docs/man/*.1 that does not exist (a built program counts when its
# source file, PATH.c or PATH.sh, does; a prefix followed by '*' or '{' is a pattern).
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"
e2e_workdir docs
cd "$CORECAP_SRC"

files=(README.md docs/*.md docs/man/*.1)
expect_eq "files citing DESIGN.md" "" "$(grep -l 'DESIGN\.md' "${files[@]}" || true)"
python3 - "${files[@]}" >"$WORK/missing" <<'PY'
import os, re, sys
link = re.compile(r'\]\(([^)#\s]+)(?:#[^)]*)?\)')
path = re.compile(r'(?<![\w/.$~-])((?:docs|scripts|tests|analysis|collector|preload|common|cli|bench|tracepoints|\.ci)/[A-Za-z0-9_./+-]*[A-Za-z0-9_])([*{]?)')
for f in sys.argv[1:]:
    text = open(f, encoding='utf-8').read()
    if f.endswith('.1'):
        text = text.replace('\\-', '-').replace('\\:', '').replace('\\&', '')
    for n, line in enumerate(text.split('\n'), 1):
        for m in link.finditer(line):
            t = m.group(1)
            if re.match(r'^[a-z]+:', t):
                continue  # http:, https:, mailto:
            if not os.path.exists(os.path.join(os.path.dirname(f), t)):
                print(f'{f}:{n}: link to missing {t}')
        for m in path.finditer(line):
            p, glob = m.group(1), m.group(2)
            if glob or os.path.exists(p) or os.path.exists(p + '.c') or os.path.exists(p + '.sh'):
                continue
            print(f'{f}:{n}: names missing {p}')
PY
expect_eq "links and paths to files not in the repository" "" "$(cat "$WORK/missing")"
finish
