#!/usr/bin/env python3
"""Prints the symbols a run's kernel stacks land in, per module: for each
frame of RUN/kernel/stacks.bin (corecap/kernel_format.h, struct
corecap_krec_stack; frames[1..] are return addresses, looked up at
address - 1), the module of RUN/maps that maps it and the symbol of that
module's `nm -S` listing that contains it. Used by golden-kernel-record.sh
to keep only those symbols of the large libraries in golden-kernel-symfs.

usage: golden-kernel-frames.py RUN MODULE=SYMFILE...
prints: MODULE<TAB>SYMBOL, one line per distinct pair
"""
import bisect
import struct
import subprocess
import sys

HEADER_BYTES = 64
KREC_STACK = 16


def read_maps(path):
    """Executable mappings: (start, end, file offset, path), sorted."""
    maps = []
    with open(path) as f:
        for line in f:
            parts = line.split(None, 5)
            if len(parts) < 6 or "x" not in parts[1]:
                continue
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            maps.append((lo, hi, int(parts[2], 16), parts[5].strip()))
    maps.sort()
    return maps


def frames(path):
    with open(path, "rb") as f:
        data = f.read()
    off = HEADER_BYTES
    while off + 16 <= len(data):
        rtype, size = struct.unpack_from("<HH", data, off)
        if size < 16 or off + size > len(data):
            break
        if rtype == KREC_STACK and size >= 40:
            (nframes,) = struct.unpack_from("<H", data, off + 22)
            nframes = min(nframes, (size - 40) // 8)
            addrs = struct.unpack_from("<%dQ" % nframes, data, off + 40)
            for i, a in enumerate(addrs):
                yield a if i == 0 else a - 1
        off += size


def symbols(symfile):
    """(start, end, name) of every sized symbol of symfile, by start."""
    out = subprocess.run(["nm", "-S", "--defined-only", symfile], capture_output=True,
                         text=True, check=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4:
            start, size = int(parts[0], 16), int(parts[1], 16)
            if size:
                syms.append((start, start + size, parts[3]))
    syms.sort()
    return syms


def main():
    run = sys.argv[1]
    symfiles = dict(a.split("=", 1) for a in sys.argv[2:])
    maps = read_maps(run + "/maps")
    starts = [m[0] for m in maps]
    tables = {mod: symbols(f) for mod, f in symfiles.items()}
    found = set()
    for a in frames(run + "/kernel/stacks.bin"):
        i = bisect.bisect_right(starts, a) - 1
        if i < 0 or a >= maps[i][1]:
            continue
        lo, _, pgoff, mod = maps[i]
        if mod not in tables:
            continue
        # These libraries' segments have p_vaddr == p_offset.
        vaddr = a - lo + pgoff
        syms = tables[mod]
        j = bisect.bisect_right([s[0] for s in syms], vaddr) - 1
        # A symbol may nest in another (aliases, local labels): every one
        # that contains the address is kept.
        while j >= 0:
            s = syms[j]
            if s[0] <= vaddr < s[1]:
                found.add((mod, s[2]))
            if vaddr - s[0] > 1 << 20:
                break
            j -= 1
    for mod, name in sorted(found):
        print("%s\t%s" % (mod, name))


if __name__ == "__main__":
    main()
