"""Interop with c-blosc 1.x through python-blosc 1.11.4 (a Blosc1 chunk writer).

Chunks written by c-blosc 1.x (16-byte headers, format version 2) must decode
with our libblosc2 through blosc1_decompress and blosc1_getitem. (The other
direction is not a goal: like the reference c-blosc2, we write format version 5
even with BLOSC_BLOSC1_COMPAT, which c-blosc 1.x refuses.)

Usage: python3 interop_blosc1.py PATH/TO/libblosc2.so   (python-blosc importable)
"""
import ctypes
import os
import random
import sys
import time

import blosc  # python-blosc 1.11.4


def main():
    lib = ctypes.CDLL(sys.argv[1])
    lib.blosc1_decompress.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    lib.blosc1_getitem.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
    lib.blosc2_init()
    seed = int(os.environ.get("BLOSC2_TEST_SEED", time.time_ns() % 2**31))
    print(f"seed {seed}")
    rng = random.Random(seed)
    shuffles = [blosc.NOSHUFFLE, blosc.SHUFFLE, blosc.BITSHUFFLE]
    cases = 0
    for cname in blosc.compressor_list():
        for shuffle in shuffles:
            for typesize in (1, 2, 4, 8, 16, 3, 255):
                for _ in range(6):
                    n = rng.choice([0, 1, 17, 100, 4096, 65536 + 13, 300_000, rng.randrange(1, 2_000_000)])
                    kind = rng.randrange(3)
                    if kind == 0:
                        data = bytes(n)
                    elif kind == 1:
                        data = bytes((i // 7) & 0xFF for i in range(n))
                    else:
                        data = rng.randbytes(n)
                    clevel = rng.randrange(0, 10)
                    # c-blosc 1.x writes, we read
                    c = blosc.compress(data, typesize=typesize, clevel=clevel, shuffle=shuffle, cname=cname)
                    out = ctypes.create_string_buffer(max(n, 1))
                    r = lib.blosc1_decompress(c, out, n)
                    assert r == n and out.raw[:n] == data, (
                        f"seed {seed}: ours failed on blosc1 chunk {cname} shuffle {shuffle} ts {typesize} n {n} clevel {clevel}: {r}")
                    if n >= typesize * 4 and typesize <= 255:
                        nitems = n // typesize
                        start = rng.randrange(nitems)
                        cnt = rng.randrange(1, nitems - start + 1)
                        g = ctypes.create_string_buffer(cnt * typesize)
                        r = lib.blosc1_getitem(c, start, cnt, g)
                        assert r == cnt * typesize and g.raw == data[start * typesize:(start + cnt) * typesize], (
                            f"seed {seed}: getitem mismatch {cname} {shuffle} {typesize} {n} {start} {cnt}: {r}")
                    cases += 1
    print(f"blosc1 interop: {cases} c-blosc 1.x chunks decoded by ours")


if __name__ == "__main__":
    main()
