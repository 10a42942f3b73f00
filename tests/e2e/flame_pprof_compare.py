#!/usr/bin/env python3
"""Compares `corecap flame --kind cpu` with `google-pprof --collapsed` on
one profile, line for line, after the normalisations docs/flame.md lists:

  flame_pprof_compare.py PPROF_OUT CORECAP_OUT            (--names pprof)
  flame_pprof_compare.py PPROF_OUT CORECAP_OUT LIBC_SYMBOLS  (corecap's names)

corecap's output of `--names pprof` gets only the normalisations of
pprof's decorations (1 and 2); corecap's own names (the default) all five:

1. pprof's lines are summed per name stack (pprof prints one line per
   address stack).
2. pprof's decorations go: the "<address>" tags (nm's start address) and
   the version nm -D appends to a dynamic symbol ("@@GLIBCXX_3.4.11");
   hex addresses are read as numbers (pprof pads them to 16 digits).
3. glibc's aliases of one address read as one name: the first in
   LIBC_SYMBOLS (nm's output for libc6-dbg's debug file) of the names at
   that address; a frame that starts with "_" without "__GI_", leading
   underscores and a trailing "_N" (pprof's DWARF names); a
   GCC clone suffix (".part.0", ".isra.0", ".constprop.0", ".cold") goes,
   since addr2line gives the DWARF name and nm the clone's symbol; and
   glibc's memcpy_* and memmove_* variants, which share their code.
4. pprof runs addr2line -i only for a file whose nm output has _fini:
   libc.so.6 and ld-linux-x86-64.so.2 have none (nor do libc6-dbg's debug
   files), so pprof names each glibc address by the innermost function
   addr2line finds there, with no [inline] frames. corecap's frames of one
   glibc address (its function, named in LIBC_SYMBOLS, then the inlined
   calls) read as that one name.
5. A frame corecap leaves unnamed (module+0xOFFSET: no symbol covers it)
   matches whatever pprof printed there (pprof takes the nearest dynamic
   symbol below, whatever its size, e.g. in stripped libstdc++), and an
   address pprof left unnamed (the vDSO, which corecap names) whatever
   corecap printed there.
Prints the differences and exits 1 if any, else prints the line count.
"""
import collections
import re
import sys

INLINE = "[inline]"


ALIAS = {}


def canon(frame):
    if re.fullmatch(r"0x[0-9a-f]+", frame):
        return hex(int(frame, 16))
    tail = INLINE if frame.endswith(INLINE) else ""
    name = frame[: -len(tail)] if tail else frame
    name = re.sub(r"@@?[A-Za-z_][A-Za-z0-9_.]*$", "", name)
    name = ALIAS.get(name, name)
    name = re.sub(r"(\.(part|isra|constprop|cold)(\.[0-9]+)?)+$", "", name)
    name = re.sub(r" \[clone \.[a-z]+(\.[0-9]+)?\]$", "", name)
    m = re.fullmatch(r"(?:__GI_)?_*([A-Za-z][A-Za-z0-9_]*?)(?:_[0-9]+)?", name)
    if m and name.startswith("_"):
        name = m.group(1)
    # glibc's memcpy and memmove variants are one function (one address).
    name = re.sub(r"^memcpy_", "memmove_", name)
    return name + tail


def read(path, tags):
    """A folded file's stacks; tags: drop nm's "<address>" tags (16 hex digits)."""
    stacks = collections.Counter()
    for line in open(path):
        line = line.rstrip("\n")
        if not line:
            continue
        stack, count = line.rsplit(" ", 1)
        if tags:
            stack = re.sub(r"<[0-9a-f]{16}>", "", stack)
        stacks[tuple(stack.split(";"))] += int(count)
    return stacks


def collapse_libc(frames, libc):
    """Rule 4: one glibc address's frames -> the innermost name. libc: the
    names of LIBC_SYMBOLS as nm prints them; a frame is glibc's if its name
    is one, or is one without its leading "_" (the loader's DWARF names:
    corecap's dl_sort_maps is nm's _dl_sort_maps). Versioned names
    (pthread_mutex_lock@@GLIBC_2.2.5) do not match: the shim defines
    functions of those names too."""
    out = []
    i = 0
    while i < len(frames):
        j = i + 1
        while j < len(frames) and frames[j].endswith(INLINE):
            j += 1
        if (frames[i] in libc or "_" + frames[i] in libc) and j > i + 1:
            out.append(frames[j - 1][: -len(INLINE)])
        else:
            out.extend(frames[i:j])
        i = j
    return out


UNNAMED = re.compile(r"^[^;]+\+0x[0-9a-f]+$")


def undecorated(frame):
    """Rule 2 alone: pprof's version suffixes and hex padding."""
    if re.fullmatch(r"0x[0-9a-f]+", frame):
        return hex(int(frame, 16))
    tail = INLINE if frame.endswith(INLINE) else ""
    name = frame[: -len(tail)] if tail else frame
    return re.sub(r"@@?[A-Za-z_][A-Za-z0-9_.]*$", "", name) + tail


def report(left_p, left_c):
    print("stacks only in (or counted differently by) pprof:")
    for st, n in sorted(left_p.items()):
        print("  ", ";".join(st), n)
    print("stacks only in (or counted differently by) corecap:")
    for st, n in sorted(left_c.items()):
        print("  ", ";".join(st), n)
    return 1


def main_pprof_names(pprof, corecap):
    """--names pprof: equal stack for stack after rules 1 and 2 only."""
    p, c = collections.Counter(), collections.Counter()
    for st, n in pprof.items():
        p[tuple(undecorated(f) for f in st)] += n
    for st, n in corecap.items():
        c[tuple(undecorated(f) for f in st)] += n
    left_p = collections.Counter({st: n for st, n in p.items() if c.get(st) != n})
    left_c = collections.Counter({st: n for st, n in c.items() if p.get(st) != n})
    if left_p or left_c:
        return report(left_p, left_c)
    print(f"{len(c)} stacks, {sum(c.values())} samples, names as pprof's")
    return 0


def main():
    pprof, corecap = read(sys.argv[1], True), read(sys.argv[2], False)
    if len(sys.argv) == 3:
        return main_pprof_names(pprof, corecap)
    by_addr = collections.defaultdict(list)
    for line in open(sys.argv[3]):
        f = line.split()
        if len(f) == 3 and f[1] in "tTiIwW":
            by_addr[f[0]].append(f[2])
    for names in by_addr.values():
        for n in names:
            ALIAS[n] = min(names)
    libc = set(n for names in by_addr.values() for n in names)
    p = collections.Counter()
    for st, n in pprof.items():
        p[tuple("*" if re.fullmatch(r"0x[0-9a-f]+", f) else canon(f) for f in st)] += n
    c = collections.Counter()
    for st, n in corecap.items():
        c[tuple(canon(f) if not UNNAMED.match(f) else "*" for f in collapse_libc(list(st), libc))] += n
    # Exact matches first; then rule 5's wildcards (either side's "*")
    # against what is left: stacks that match each other form groups,
    # and each group must hold as many samples on both sides.
    left_p = collections.Counter(p)
    left_c = collections.Counter()
    for st, n in c.items():
        if "*" not in st and left_p.get(st) == n:
            del left_p[st]
        else:
            left_c[st] = n
    nodes = [("p", st) for st in left_p] + [("c", st) for st in left_c]
    parent = list(range(len(nodes)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, (si, a) in enumerate(nodes):
        for j in range(i + 1, len(nodes)):
            sj, b = nodes[j]
            if si != sj and len(a) == len(b) and ("*" in a or "*" in b) and \
                    all(x == y or "*" in (x, y) for x, y in zip(a, b)):
                parent[find(i)] = find(j)
    groups = collections.defaultdict(lambda: [0, 0, []])
    for i, (side, st) in enumerate(nodes):
        g = groups[find(i)]
        g[0 if side == "p" else 1] += (left_p if side == "p" else left_c)[st]
        g[2].append((side, st))
    for g in groups.values():
        if g[0] == g[1] and g[0]:
            for side, st in g[2]:
                del (left_p if side == "p" else left_c)[st]
    if left_p or left_c:
        return report(left_p, left_c)
    print(f"{len(c)} stacks, {sum(c.values())} samples")
    return 0


if __name__ == "__main__":
    sys.exit(main())
