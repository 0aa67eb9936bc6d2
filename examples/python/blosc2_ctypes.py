"""Using libblosc2 (libblosc2-rs) from Python through ctypes, no extension module.

    python3 blosc2_ctypes.py [PATH/TO/libblosc2.so.9]

Compresses and decompresses a buffer with every codec, then writes a super-chunk
to a contiguous frame file, opens it again and checks every chunk.
"""
import ctypes
import ctypes.util
import os
import struct
import sys
import tempfile

MAX_FILTERS = 6
BLOSC_BITSHUFFLE = 2
BLOSC_ZSTD = 5
MAX_OVERHEAD = 32


class CParams(ctypes.Structure):
    _fields_ = [
        ("compcode", ctypes.c_uint8),
        ("compcode_meta", ctypes.c_uint8),
        ("clevel", ctypes.c_uint8),
        ("use_dict", ctypes.c_int),
        ("typesize", ctypes.c_int32),
        ("nthreads", ctypes.c_int16),
        ("blocksize", ctypes.c_int32),
        ("splitmode", ctypes.c_int32),
        ("schunk", ctypes.c_void_p),
        ("filters", ctypes.c_uint8 * MAX_FILTERS),
        ("filters_meta", ctypes.c_uint8 * MAX_FILTERS),
        ("prefilter", ctypes.c_void_p),
        ("preparams", ctypes.c_void_p),
        ("tuner_params", ctypes.c_void_p),
        ("tuner_id", ctypes.c_int),
        ("instr_codec", ctypes.c_bool),
        ("codec_params", ctypes.c_void_p),
        ("filter_params", ctypes.c_void_p * MAX_FILTERS),
    ]


class DParams(ctypes.Structure):
    _fields_ = [
        ("nthreads", ctypes.c_int16),
        ("schunk", ctypes.c_void_p),
        ("postfilter", ctypes.c_void_p),
        ("postparams", ctypes.c_void_p),
        ("typesize", ctypes.c_int32),
    ]


class Storage(ctypes.Structure):
    _fields_ = [
        ("contiguous", ctypes.c_bool),
        ("urlpath", ctypes.c_char_p),
        ("cparams", ctypes.POINTER(CParams)),
        ("dparams", ctypes.POINTER(DParams)),
        ("io", ctypes.c_void_p),
    ]


class Schunk(ctypes.Structure):
    """The leading, read-only members of blosc2_schunk."""
    _fields_ = [
        ("version", ctypes.c_uint8),
        ("compcode", ctypes.c_uint8),
        ("compcode_meta", ctypes.c_uint8),
        ("clevel", ctypes.c_uint8),
        ("splitmode", ctypes.c_uint8),
        ("typesize", ctypes.c_int32),
        ("blocksize", ctypes.c_int32),
        ("chunksize", ctypes.c_int32),
        ("flags2", ctypes.c_uint8),
        ("use_dict", ctypes.c_uint8),
        ("filters", ctypes.c_uint8 * MAX_FILTERS),
        ("filters_meta", ctypes.c_uint8 * MAX_FILTERS),
        ("nchunks", ctypes.c_int64),
        ("current_nchunk", ctypes.c_int64),
        ("nbytes", ctypes.c_int64),
        ("cbytes", ctypes.c_int64),
    ]


def load(path=None):
    path = path or ctypes.util.find_library("blosc2") or "libblosc2.so.9"
    lib = ctypes.CDLL(path)
    lib.blosc2_get_version_string.restype = ctypes.c_char_p
    lib.blosc2_compress.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int32,
                                    ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32]
    lib.blosc2_decompress.argtypes = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32]
    lib.blosc1_set_compressor.argtypes = [ctypes.c_char_p]
    lib.blosc2_schunk_new.argtypes = [ctypes.POINTER(Storage)]
    lib.blosc2_schunk_new.restype = ctypes.POINTER(Schunk)
    lib.blosc2_schunk_open.argtypes = [ctypes.c_char_p]
    lib.blosc2_schunk_open.restype = ctypes.POINTER(Schunk)
    lib.blosc2_schunk_append_buffer.argtypes = [ctypes.POINTER(Schunk), ctypes.c_void_p, ctypes.c_int32]
    lib.blosc2_schunk_append_buffer.restype = ctypes.c_int64
    lib.blosc2_schunk_decompress_chunk.argtypes = [ctypes.POINTER(Schunk), ctypes.c_int64,
                                                   ctypes.c_void_p, ctypes.c_int32]
    lib.blosc2_schunk_free.argtypes = [ctypes.POINTER(Schunk)]
    lib.blosc2_remove_urlpath.argtypes = [ctypes.c_char_p]
    return lib


def compress(lib, data, typesize=8, clevel=5, shuffle=1):
    out = ctypes.create_string_buffer(len(data) + MAX_OVERHEAD)
    n = lib.blosc2_compress(clevel, shuffle, typesize, data, len(data), out, len(out))
    if n <= 0:
        raise RuntimeError(f"blosc2_compress failed: {n}")
    return out.raw[:n]


def decompress(lib, chunk, nbytes):
    out = ctypes.create_string_buffer(max(nbytes, 1))
    n = lib.blosc2_decompress(chunk, len(chunk), out, nbytes)
    if n != nbytes:
        raise RuntimeError(f"blosc2_decompress failed: {n}")
    return out.raw[:n]


def main():
    lib = load(sys.argv[1] if len(sys.argv) > 1 else None)
    lib.blosc2_init()
    print("libblosc2", lib.blosc2_get_version_string().decode())

    data = b"".join(struct.pack("<d", i * 0.25) for i in range(200_000))
    for codec in ("blosclz", "lz4", "lz4hc", "zlib", "zstd"):
        lib.blosc1_set_compressor(codec.encode())
        chunk = compress(lib, data)
        assert decompress(lib, chunk, len(data)) == data
        print(f"{codec:8} {len(data)} -> {len(chunk)} bytes, round trip ok")

    # A super-chunk written to a contiguous frame file, then opened and read back.
    cparams = CParams(compcode=BLOSC_ZSTD, clevel=5, typesize=8, nthreads=2)
    cparams.filters[MAX_FILTERS - 1] = BLOSC_BITSHUFFLE
    dparams = DParams(nthreads=2)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "python.b2frame").encode()
        storage = Storage(contiguous=True, urlpath=path,
                          cparams=ctypes.pointer(cparams), dparams=ctypes.pointer(dparams))
        sc = lib.blosc2_schunk_new(ctypes.byref(storage))
        assert sc, "blosc2_schunk_new failed"
        chunks = [b"".join(struct.pack("<q", c * 1000 + i) for i in range(100_000)) for c in range(5)]
        for i, c in enumerate(chunks):
            assert lib.blosc2_schunk_append_buffer(sc, c, len(c)) == i + 1
        lib.blosc2_schunk_free(sc)

        sc = lib.blosc2_schunk_open(path)
        assert sc, "blosc2_schunk_open failed"
        s = sc.contents
        assert s.nchunks == len(chunks), s.nchunks
        for i, c in enumerate(chunks):
            out = ctypes.create_string_buffer(len(c))
            assert lib.blosc2_schunk_decompress_chunk(sc, i, out, len(c)) == len(c)
            assert out.raw == c, f"chunk {i} differs"
        print(f"frame {os.path.getsize(path)} bytes: {s.nchunks} chunks, "
              f"nbytes {s.nbytes}, cbytes {s.cbytes}, ratio {s.nbytes / s.cbytes:.1f}, read back ok")
        lib.blosc2_schunk_free(sc)
    lib.blosc2_destroy()
    print("python-ctypes: OK")


if __name__ == "__main__":
    main()
