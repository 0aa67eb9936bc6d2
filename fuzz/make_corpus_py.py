#!/usr/bin/env python3
"""Seed inputs for the fuzz targets written by python-blosc2 (the reference
C library underneath), next to the library's own seeds (make_corpus.c).

Usage: /work/pyb2/venv-ref/bin/python fuzz/make_corpus_py.py fuzz/corpus
(any Python with blosc2 4.14.1 and numpy).  Every file it writes starts
with "py-" so that both generators can share a directory.
"""

import os
import struct
import sys
import tempfile
import zlib

import blosc2
import numpy as np

# fuzz/sframe.c splits its input at this marker: index frame, then chunk files.
SFRAME_SEPARATOR = b"#B2CHUNK#"


def save(outdir, target, name, data):
    os.makedirs(os.path.join(outdir, target), exist_ok=True)
    with open(os.path.join(outdir, target, "py-" + name), "wb") as f:
        f.write(bytes(data))


def ramp(n, dtype):
    rng = np.random.default_rng(n)
    return (np.arange(n) * 3 + rng.integers(0, 7, n)).astype(dtype)


def chunks(outdir):
    data = ramp(2048, np.int32).tobytes()
    for codec, filt in [
        (blosc2.Codec.ZSTD, blosc2.Filter.SHUFFLE),
        (blosc2.Codec.LZ4, blosc2.Filter.BITSHUFFLE),
        (blosc2.Codec.BLOSCLZ, blosc2.Filter.DELTA),
        (blosc2.Codec.ZLIB, blosc2.Filter.NOFILTER),
    ]:
        c = blosc2.compress2(data, codec=codec, filters=[filt], filters_meta=[0], typesize=4, clevel=5)
        save(outdir, "chunk", f"{codec.name.lower()}-{filt.name.lower()}", c)
    # The Blosc1 call (blosc1 header flags, no extended header).
    save(outdir, "chunk", "blosc1-lz4", blosc2.compress(data, typesize=4, codec=blosc2.Codec.LZ4))


def vlchunks(outdir):
    blocks = [bytes(range(i, i + 50)) * (i + 1) for i in range(4)]
    c = blosc2.blosc2_ext.vlcompress(blocks, codec=blosc2.Codec.ZSTD, typesize=1)
    save(outdir, "vlchunk", "zstd-4blocks", c)
    c = blosc2.blosc2_ext.vlcompress([b"x" * 10, b"y", b"abc" * 40], codec=blosc2.Codec.LZ4)
    save(outdir, "vlchunk", "lz4-3blocks", c)


def frames(outdir, tmp):
    data = ramp(3000, np.float32)
    sc = blosc2.SChunk(chunksize=4000, data=data, cparams={"typesize": 4, "codec": blosc2.Codec.LZ4},
                       meta={"pymeta": [1, 2, 3]})
    sc.vlmeta["pyvl"] = {"a": 1, "b": "two"}
    for target in ("frame", "lazy"):
        save(outdir, target, "lz4-3chunks-meta-vlmeta", sc.to_cframe())
    arr = blosc2.asarray(ramp(600, np.int16).reshape(20, 30), chunks=(10, 15), blocks=(5, 5))
    arr.schunk.vlmeta["pyattr"] = "hello"
    save(outdir, "b2nd", "2d-i16", arr.to_cframe())
    arr = blosc2.zeros((50,), dtype=np.float64, chunks=(20,), blocks=(10,))
    save(outdir, "b2nd", "1d-zeros-f64", arr.to_cframe())
    # A frame of VL-block chunks (BatchArray stores one per batch).
    ba = blosc2.BatchArray(urlpath=os.path.join(tmp, "batch.b2b"), mode="w")
    ba.append([1, "two", 3.0])
    ba.append([b"four", [5]])
    for target in ("frame", "lazy"):
        save(outdir, target, "batcharray-vlblocks", ba.schunk.to_cframe())
    # Sparse frames: index and chunk files joined as fuzz/sframe.c expects.
    for name, arr_kw in [("lz4-3chunks-meta", True), ("zstd-2chunks", False)]:
        d = os.path.join(tmp, name + ".b2frame")
        if arr_kw:
            sc = blosc2.SChunk(chunksize=2000, data=ramp(1500, np.int32), urlpath=d, contiguous=False,
                               cparams={"typesize": 4, "codec": blosc2.Codec.LZ4}, meta={"m": 7})
            sc.vlmeta["v"] = [1, 2]
        else:
            sc = blosc2.SChunk(chunksize=1000, data=ramp(500, np.int32), urlpath=d, contiguous=False,
                               cparams={"typesize": 4, "codec": blosc2.Codec.ZSTD})
        n = sc.nchunks
        del sc
        parts = [open(os.path.join(d, "chunks.b2frame"), "rb").read()]
        for i in range(n):
            parts.append(open(os.path.join(d, f"{i:08X}.chunk"), "rb").read())
        save(outdir, "sframe", name, SFRAME_SEPARATOR.join(parts))


def bloscpack(outdir):
    """Bloscpack files (format version 3) around python-blosc2's Blosc1 chunks."""
    data = ramp(6000, np.int32).tobytes()
    chunk_size = 8192
    pieces = [data[i:i + chunk_size] for i in range(0, len(data), chunk_size)]
    comp = [blosc2.compress(p, typesize=4, codec=blosc2.Codec.BLOSCLZ) for p in pieces]
    for name, checksum_id, offsets, meta in [
        ("adler32-offsets", 1, True, None),
        ("crc32-meta", 2, False, b'{"dtype": "int32", "shape": [6000]}'),
        ("nochecksum", 0, False, None),
    ]:
        options = (1 if offsets else 0) | (2 if meta else 0)
        head = b"blpk" + struct.pack("<BBBBiiqq", 3, options, checksum_id, 4, chunk_size,
                                     len(pieces[-1]), len(pieces), len(pieces) if offsets else 0)
        body = bytearray(head)
        if meta:
            packed = zlib.compress(meta)
            room = len(packed) + 16
            body += b"JSON\0\0\0\0" + struct.pack("<BBBBIII", 0, 2, 1, 6, len(meta), room, len(packed))
            body += b"\0" * 8 + packed + b"\0" * (room - len(packed))
            # The metadata checksum uses the file's checksum (crc32 here) over the stored bytes.
            body += struct.pack("<I", zlib.crc32(packed))
        if offsets:
            start = len(body) + 8 * 2 * len(pieces)
            offs = []
            for c in comp:
                offs.append(start)
                start += len(c) + 4
            body += b"".join(struct.pack("<q", o) for o in offs) + b"\xff" * 8 * len(pieces)
        for c in comp:
            body += c
            if checksum_id == 1:
                body += struct.pack("<I", zlib.adler32(c))
            elif checksum_id == 2:
                body += struct.pack("<I", zlib.crc32(c))
        save(outdir, "bloscpack", name, body)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_corpus_py.py OUTDIR")
    outdir = sys.argv[1]
    chunks(outdir)
    vlchunks(outdir)
    with tempfile.TemporaryDirectory() as tmp:
        frames(outdir, tmp)
    bloscpack(outdir)


if __name__ == "__main__":
    main()
