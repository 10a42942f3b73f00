#!/usr/bin/env python3
"""Writes the seeds of fuzz_sym_cache (tests/fuzz/corpus/sym_cache/): cache
files in the format of analysis/read/sym_cache.h, written here from the
format's description (not by corecap), each behind the harness's mode byte
(0: as is, 1: checksum fixed by the harness). Run from anywhere:
    python3 tests/fuzz/sym_cache_seeds.py"""
import os
import struct

BID = b"0123456789abcdef0123456789abcdef01234567"
SRC = b"seed"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "sym_cache")


def fnv(h, data):
    for c in data:
        h = ((h ^ c) * 16777619) & 0xFFFFFFFF
    return h


def s(v):
    if v is None:
        return struct.pack("<H", 0xFFFF)
    b = v.encode()
    return struct.pack("<H", len(b)) + b


def frames(key, fs):
    out = struct.pack("<BQB", 1, key, len(fs))
    for fn, file, line, inl in fs:
        out += s(fn) + s(file) + struct.pack("<IB", line, inl)
    return out


def data(key, name):
    return struct.pack("<BQ", 2, key) + s(name)


def obj(key, name):
    return struct.pack("<BQ", 3, key) + s(name)


def cache(recs, version=2, bid=BID, src=SRC):
    payload = b"".join(recs)
    h = fnv(fnv(fnv(2166136261, bid), src), payload)
    return (b"CCSYMC\r\n" + struct.pack("<IHHIII", version, len(bid), len(src), len(recs),
                                        len(payload), h) + bid + src + payload)


recs = [
    frames(0x1234, [("std::mutex::lock()", "/usr/include/c++/12/bits/std_mutex.h", 100, 1),
                    ("PG::lock(bool) const", "/build/ceph/src/osd/PG.cc", 350, 0)]),
    frames(0x5678, [("main", None, 0, 0)]),
    frames(0x9abc, []),
    data(0x4000, "d.osd.big_lock"),
    data(0x4100, None),
    obj(0x4000, "a PG (PG::_lock)"),
    obj(0x1234, None),
]
seeds = {
    "valid-mixed": b"\0" + cache(recs),
    "valid-empty": b"\0" + cache([]),
    "valid-data": b"\0" + cache(recs[3:]),
    "fixup-mixed": b"\1" + cache(recs)[:24] + b"\0\0\0\0" + cache(recs)[28:],
    "truncated": b"\0" + cache(recs)[:60],
    "valid-objects": b"\0" + cache(recs[5:]),
    "other-version": b"\0" + cache(recs, version=1),
    "other-build-id": b"\0" + cache(recs, bid=b"fedcba98"),
    "fixup-twice": b"\1" + cache([recs[3], recs[3]]),
}
os.makedirs(OUT, exist_ok=True)
for name, blob in seeds.items():
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(blob)
