#!/usr/bin/env python3
"""Frame interop with python-blosc2 4.14.1 (which bundles the reference c-blosc2).

  python-blosc2 writes frames (in memory via SChunk.to_cframe(), on disk as
  .b2frame, contiguous and sparse (directories); several codecs and typesizes,
  metalayers, vlmetalayers, special chunks, deleted/inserted/updated chunks)
  -> ours reads them through ctypes; ours writes contiguous and sparse
  .b2frame -> blosc2.open() reads them.

Our library is used in a child process so that the two libblosc2.so.9 never
share one process.  Usage: PYTHONPATH=.ref/py-blosc2 python3 tests/python/interop_frames.py
"""
import ctypes
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OURS = os.environ.get("BLOSC2_RS_LIB", os.path.join(ROOT, "target", "release", "libblosc2.so"))

# ------------------------------------------------------------------ our side (child)

def ours_lib():
    lib = ctypes.CDLL(OURS)
    vp, i64, i32 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32
    lib.blosc2_schunk_from_buffer.restype = vp
    lib.blosc2_schunk_from_buffer.argtypes = [ctypes.c_char_p, i64, ctypes.c_bool]
    lib.blosc2_schunk_open.restype = vp
    lib.blosc2_schunk_open.argtypes = [ctypes.c_char_p]
    lib.blosc2_schunk_decompress_chunk.argtypes = [vp, i64, vp, i32]
    lib.blosc2_schunk_free.argtypes = [vp]
    lib.blosc2_vlmeta_get.argtypes = [vp, ctypes.c_char_p, ctypes.POINTER(ctypes.POINTER(ctypes.c_uint8)), ctypes.POINTER(i32)]
    lib.blosc2_vlmeta_exists.argtypes = [vp, ctypes.c_char_p]
    lib.blosc2_schunk_new.restype = vp
    lib.blosc2_schunk_new.argtypes = [vp]
    lib.blosc2_schunk_append_buffer.restype = i64
    lib.blosc2_schunk_append_buffer.argtypes = [vp, vp, i32]
    lib.blosc2_schunk_to_file.restype = i64
    lib.blosc2_schunk_to_file.argtypes = [vp, ctypes.c_char_p]
    lib.blosc2_meta_add.argtypes = [vp, ctypes.c_char_p, ctypes.c_char_p, i32]
    lib.blosc2_vlmeta_add.argtypes = [vp, ctypes.c_char_p, ctypes.c_char_p, i32, vp]
    lib.blosc2_schunk_delete_chunk.restype = i64
    lib.blosc2_schunk_delete_chunk.argtypes = [vp, i64]
    lib.blosc2_init()
    return lib


class SchunkFields(ctypes.Structure):
    # the leading fields of blosc2_schunk
    _fields_ = [("version", ctypes.c_uint8), ("compcode", ctypes.c_uint8),
                ("compcode_meta", ctypes.c_uint8), ("clevel", ctypes.c_uint8),
                ("splitmode", ctypes.c_uint8), ("typesize", ctypes.c_int32),
                ("blocksize", ctypes.c_int32), ("chunksize", ctypes.c_int32),
                ("flags2", ctypes.c_uint8), ("use_dict", ctypes.c_uint8),
                ("filters", ctypes.c_uint8 * 6), ("filters_meta", ctypes.c_uint8 * 6),
                ("nchunks", ctypes.c_int64), ("current_nchunk", ctypes.c_int64),
                ("nbytes", ctypes.c_int64), ("cbytes", ctypes.c_int64)]


def ours_digest(lib, sc, vlnames):
    f = SchunkFields.from_address(sc)
    out = {"nchunks": f.nchunks, "nbytes": f.nbytes, "typesize": f.typesize,
           "chunksize": f.chunksize, "compcode": f.compcode, "chunks": [], "vlmeta": {}}
    for i in range(f.nchunks):
        buf = ctypes.create_string_buffer(max(f.chunksize, 1) + 64)
        n = lib.blosc2_schunk_decompress_chunk(sc, i, buf, len(buf))
        assert n >= 0, (i, n)
        out["chunks"].append(buf.raw[:n].hex())
    for name in vlnames:
        p = ctypes.POINTER(ctypes.c_uint8)()
        ln = ctypes.c_int32()
        rc = lib.blosc2_vlmeta_get(sc, name.encode(), ctypes.byref(p), ctypes.byref(ln))
        assert rc >= 0, (name, rc)
        out["vlmeta"][name] = bytes(p[: ln.value]).hex()
    return out


def child(mode, arg):
    lib = ours_lib()
    if mode == "read":
        jobs = json.load(open(arg))
        res = {}
        for key, job in jobs.items():
            if job["kind"] == "file":
                sc = lib.blosc2_schunk_open(job["path"].encode())
            else:
                data = open(job["path"], "rb").read()
                sc = lib.blosc2_schunk_from_buffer(data, len(data), job.get("copy", False))
            assert sc, key
            res[key] = ours_digest(lib, sc, job["vlmeta"])
            lib.blosc2_schunk_free(sc)
        json.dump(res, sys.stdout)
    elif mode == "write":
        d = arg

        class CParams(ctypes.Structure):
            _fields_ = [("compcode", ctypes.c_uint8), ("compcode_meta", ctypes.c_uint8),
                        ("clevel", ctypes.c_uint8), ("use_dict", ctypes.c_int),
                        ("typesize", ctypes.c_int32), ("nthreads", ctypes.c_int16),
                        ("blocksize", ctypes.c_int32), ("splitmode", ctypes.c_int32),
                        ("schunk", ctypes.c_void_p), ("filters", ctypes.c_uint8 * 6),
                        ("filters_meta", ctypes.c_uint8 * 6), ("prefilter", ctypes.c_void_p),
                        ("preparams", ctypes.c_void_p), ("tuner_params", ctypes.c_void_p),
                        ("tuner_id", ctypes.c_int), ("instr_codec", ctypes.c_bool),
                        ("codec_params", ctypes.c_void_p), ("filter_params", ctypes.c_void_p * 6)]

        class Storage(ctypes.Structure):
            _fields_ = [("contiguous", ctypes.c_bool), ("urlpath", ctypes.c_char_p),
                        ("cparams", ctypes.POINTER(CParams)), ("dparams", ctypes.c_void_p),
                        ("io", ctypes.c_void_p)]
        lib.blosc2_get_blosc2_cparams_defaults.restype = CParams
        for codec, ts, contiguous in [(0, 4, True), (1, 8, True), (4, 2, True), (5, 16, True),
                                      (0, 4, False), (4, 8, False), (5, 2, False)]:
            cp = lib.blosc2_get_blosc2_cparams_defaults()
            cp.compcode, cp.typesize, cp.clevel = codec, ts, 5
            kind = "c" if contiguous else "s"
            path = os.path.join(d, f"ours_{codec}_{ts}_{kind}.b2frame").encode()
            st = Storage(contiguous, path, ctypes.pointer(cp), None, None)
            sc = lib.blosc2_schunk_new(ctypes.byref(st))
            assert sc
            lib.blosc2_meta_add(sc, b"mymeta", b"\x93\x01\x02\x03", 4)
            for c in range(4):
                a = (np.arange(10000 * 8 // ts * ts // 8, dtype=np.uint8) * (c + 1)).tobytes()[: 10000 * ts]
                assert lib.blosc2_schunk_append_buffer(sc, a, len(a)) == c + 1
            lib.blosc2_vlmeta_add(sc, b"info", b"\x81\xa1a\x01", 4, None)
            assert lib.blosc2_schunk_delete_chunk(sc, 1) == 3
            lib.blosc2_schunk_free(sc)


# ------------------------------------------------------------------ reference side (parent)

def run_child(mode, arg):
    out = subprocess.run([sys.executable, __file__, "--child", mode, arg], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout) if mode == "read" else None


def main():
    import blosc2
    print("python-blosc2", blosc2.__version__, "c-blosc2", blosc2.blosclib_version)
    tmp = tempfile.mkdtemp(prefix="b2interop-")
    jobs, expected = {}, {}
    rng = np.random.default_rng(1)
    for codec in [blosc2.Codec.BLOSCLZ, blosc2.Codec.LZ4, blosc2.Codec.ZLIB, blosc2.Codec.ZSTD]:
        for dtype in [np.uint8, np.int16, np.float32, np.float64]:
            ts = np.dtype(dtype).itemsize
            name = f"{codec.name}_{np.dtype(dtype).name}"
            cparams = blosc2.CParams(codec=codec, typesize=ts, clevel=5, nthreads=1)
            chunk_items = 5000
            # the sparse variants only for some combinations (they are slower)
            sparse = dtype in (np.int16, np.float64)
            path = os.path.join(tmp, name + (".sparse" if sparse else "") + ".b2frame")
            sc = blosc2.SChunk(chunksize=chunk_items * ts, cparams=cparams,
                               urlpath=path, contiguous=not sparse, mode="w",
                               meta={"m1": {"a": [1, 2]}, "m2": "text"})
            chunks = []
            for c in range(5):
                a = (rng.normal(size=chunk_items) * 100).astype(dtype)
                chunks.append(a.tobytes())
                sc.append_data(a)
            # special chunk, insert, update, delete
            sc.update_data(0, np.zeros(chunk_items, dtype=dtype), copy=True)
            chunks[0] = bytes(chunk_items * ts)
            b = (np.arange(chunk_items) % 100).astype(dtype)
            sc.insert_data(2, b, copy=True)
            chunks.insert(2, b.tobytes())
            sc.delete_chunk(4)
            del chunks[4]
            sc.vlmeta["attrs"] = {"x": 1, "name": name}
            sc.vlmeta["blob"] = b"\x00\x01" * 100
            cframe = sc.to_cframe()
            mem = os.path.join(tmp, name + ".cframe")
            open(mem, "wb").write(cframe)
            del sc
            for kind, p in [("file", path), ("buffer", mem)]:
                key = f"{name}:{kind}"
                jobs[key] = {"kind": kind, "path": p, "vlmeta": ["attrs", "blob"],
                             "copy": kind == "buffer" and codec == blosc2.Codec.ZSTD}
                expected[key] = [c.hex() for c in chunks]
    got = run_child("read", _dump(jobs, tmp))
    fails = 0
    for key, exp in expected.items():
        g = got[key]
        if g["chunks"] != exp:
            fails += 1
            print("MISMATCH chunks", key)
    # vlmeta bytes must agree between file and in-memory readings
    for key in got:
        if key.endswith(":file"):
            other = got[key.replace(":file", ":buffer")]
            if got[key]["vlmeta"] != other["vlmeta"]:
                fails += 1
                print("MISMATCH vlmeta", key)
    print(f"reference -> ours: {len(expected)} frames read, {fails} mismatches")

    # ours -> reference
    run_child("write", tmp)
    n = 0
    for f in sorted(os.listdir(tmp)):
        if not f.startswith("ours_"):
            continue
        sc = blosc2.open(os.path.join(tmp, f))
        _, codec, ts, kind = f[:-8].split("_")
        ts = int(ts)
        assert os.path.isdir(os.path.join(tmp, f)) == (kind == "s"), f
        assert sc.nchunks == 3, f
        assert sc.typesize == ts, f
        assert sc.meta["mymeta"] == [1, 2, 3], (f, sc.meta["mymeta"])
        assert sc.vlmeta["info"] == {"a": 1}, f
        for i, c in enumerate([0, 2, 3]):
            a = (np.arange(10000 * 8 // ts * ts // 8, dtype=np.uint8) * (c + 1)).tobytes()[: 10000 * ts]
            assert sc.decompress_chunk(i) == a, (f, i)
        n += 1
    print(f"ours -> reference: {n} frames (contiguous and sparse) read by blosc2.open(), all chunks equal")
    return 1 if fails else 0


def _dump(jobs, tmp):
    p = os.path.join(tmp, "jobs.json")
    json.dump(jobs, open(p, "w"))
    return p


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
    else:
        sys.exit(main())
