#!/usr/bin/env python3
"""Compares `corecap flame --kind cpu` with `google-pprof --collapsed` on
one profile, line for line, after the normalisations docs/flame.md lists:

  flame_pprof_compare.py PPROF_OUT CORECAP_OUT LIBC_SYMBOLS

1. pprof's "<address>" tags (nm's start address) are removed, and its lines
   summed per name stack (pprof prints one line per address stack); so is
   the version nm -D appends to a dynamic symbol ("@@GLIBCXX_3.4.11").
2. An address pprof printed as hex reads without leading zeros.
3. glibc's aliases of one address read as one name: a frame that starts
   with "_" without "__GI_", leading underscores and a trailing "_N"; a
   GCC clone suffix (".part.0", ".isra.0", ".constprop.0", ".cold") goes,
   since addr2line gives the DWARF name and nm the clone's symbol; and
   glibc's memcpy_* and memmove_* variants, which share their code.
4. pprof runs addr2line -i only for a file whose nm output has _fini:
   libc.so.6 has none (nor does libc6-dbg's debug file), so pprof names
   each libc address by the innermost function addr2line finds there, with
   no [inline] frames. corecap's frames of one libc address (its function,
   named in LIBC_SYMBOLS, then the inlined calls) read as that one name.
5. A frame corecap leaves unnamed (module+0xOFFSET: no symbol covers it)
   matches whatever pprof printed there (pprof takes the nearest dynamic
   symbol below, whatever its size, e.g. in stripped libstdc++).
Prints the differences and exits 1 if any, else prints the line count.
"""
import collections
import re
import sys

INLINE = "[inline]"


def canon(frame):
    if re.fullmatch(r"0x[0-9a-f]+", frame):
        return hex(int(frame, 16))
    tail = INLINE if frame.endswith(INLINE) else ""
    name = frame[: -len(tail)] if tail else frame
    name = re.sub(r"@@?[A-Za-z_]+[0-9.]*$", "", name)
    name = re.sub(r"(\.(part|isra|constprop|cold)(\.[0-9]+)?)+$", "", name)
    name = re.sub(r" \[clone \.[a-z]+(\.[0-9]+)?\]$", "", name)
    m = re.fullmatch(r"(?:__GI_)?_*([A-Za-z][A-Za-z0-9_]*?)(?:_[0-9]+)?", name)
    if m and name.startswith("_"):
        name = m.group(1)
    # glibc's memcpy and memmove variants are one function (one address).
    name = re.sub(r"^memcpy_", "memmove_", name)
    return name + tail


def read(path):
    stacks = collections.Counter()
    for line in open(path):
        line = line.rstrip("\n")
        if not line:
            continue
        stack, count = line.rsplit(" ", 1)
        stack = re.sub(r"<[0-9a-f]+>", "", stack)
        stacks[tuple(stack.split(";"))] += int(count)
    return stacks


def collapse_libc(frames, libc):
    """Rule 4: one libc address's frames -> the innermost name."""
    out = []
    i = 0
    while i < len(frames):
        j = i + 1
        while j < len(frames) and frames[j].endswith(INLINE):
            j += 1
        if frames[i] in libc and j > i + 1:
            out.append(frames[j - 1][: -len(INLINE)])
        else:
            out.extend(frames[i:j])
        i = j
    return out


UNNAMED = re.compile(r"^[^;]+\+0x[0-9a-f]+$")


def main():
    pprof, corecap = read(sys.argv[1]), read(sys.argv[2])
    libc = set(l.strip() for l in open(sys.argv[3]))
    p = collections.Counter()
    for st, n in pprof.items():
        p[tuple(canon(f) for f in st)] += n
    c = collections.Counter()
    for st, n in corecap.items():
        c[tuple(canon(f) if not UNNAMED.match(f) else "*" for f in collapse_libc(list(st), libc))] += n
    # Exact matches first, then rule 5's wildcards against what is left.
    left_p = collections.Counter(p)
    left_c = collections.Counter()
    for st, n in c.items():
        if "*" not in st and left_p.get(st) == n:
            del left_p[st]
        else:
            left_c[st] = n
    for st, n in list(left_c.items()):
        if "*" not in st:
            continue
        match = [q for q in left_p if len(q) == len(st) and
                 all(a == "*" or a == b for a, b in zip(st, q))]
        if sum(left_p[q] for q in match) == n:
            for q in match:
                del left_p[q]
            del left_c[st]
    if left_p or left_c:
        print("stacks only in (or counted differently by) pprof:")
        for st, n in sorted(left_p.items()):
            print("  ", ";".join(st), n)
        print("stacks only in (or counted differently by) corecap:")
        for st, n in sorted(left_c.items()):
            print("  ", ";".join(st), n)
        return 1
    print(f"{len(c)} stacks, {sum(c.values())} samples")
    return 0


if __name__ == "__main__":
    sys.exit(main())
