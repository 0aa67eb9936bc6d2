"""Bloscpack interop: bloscpack 0.16.0 (PyPI, on python-blosc 1.11.4) versus `blosc2 pack/unpack`.

Both directions, byte-exact after unpacking, for every checksum, with and
without offsets, for several codecs, typesizes, chunk sizes and with metadata;
then corrupt files must fail with one line on stderr, exit status 1 and no OUT.

    python3 tests/python/interop_bloscpack.py PATH/TO/blosc2

bloscpack is pip-installed into .ref/py-bloscpack when it is not there yet.
"""
import collections
import collections.abc
import os
import random
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYBP = os.path.join(ROOT, ".ref", "py-bloscpack")


def import_bloscpack():
    if not os.path.isdir(os.path.join(PYBP, "bloscpack")):
        subprocess.check_call([sys.executable, "-m", "pip", "install", "-q",
                               "--disable-pip-version-check", "--target", PYBP,
                               "bloscpack==0.16.0", "blosc==1.11.4"])
    sys.path.insert(0, PYBP)
    # bloscpack 0.16.0 predates Python 3.10, which removed these aliases.
    for name in ("MutableMapping", "Mapping", "Sequence", "Iterable", "Callable"):
        if not hasattr(collections, name):
            setattr(collections, name, getattr(collections.abc, name))
    import bloscpack  # noqa: E402
    return bloscpack


CHECKSUMS = ["None", "adler32", "crc32", "md5", "sha1", "sha224", "sha256", "sha384", "sha512"]


def run(cmd, expect=0):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != expect:
        raise SystemExit(f"FAIL: {' '.join(cmd)} exited {p.returncode} (wanted {expect}):\n{p.stderr}")
    return p


def main():
    blosc2 = os.path.abspath(sys.argv[1])
    bp = import_bloscpack()
    from bloscpack.args import BloscArgs, BloscpackArgs
    print(f"bloscpack {bp.__version__}, python-blosc {__import__('blosc').__version__}")
    seed = int(os.environ.get("BLOSC2_TEST_SEED", "12345"))
    rng = random.Random(seed)
    tmp = tempfile.mkdtemp(prefix="bp-interop-")
    datasets = {
        "empty": b"",
        "small": bytes(range(7)),
        "int64-ramp": b"".join((i * 3).to_bytes(8, "little") for i in range(300_001)),
        "text": (b"the quick brown fox jumps over the lazy dog %d\n" * 40_000) % tuple(range(40_000)),
        "random": rng.randbytes(700_001),
    }
    codecs = ["blosclz", "lz4", "lz4hc", "zlib", "zstd"]
    cases = 0
    for checksum in CHECKSUMS:
        for offsets in (True, False):
            for name, data in datasets.items():
                codec = codecs[cases % len(codecs)]
                typesize = [1, 2, 4, 8, 3][cases % 5]
                chunk_size = rng.choice([65_536, 100_000, 1 << 20])
                shuffle = cases % 3 != 2
                metadata = {"case": cases, "name": name} if cases % 4 == 0 else None
                src = os.path.join(tmp, f"{name}.bin")
                with open(src, "wb") as f:
                    f.write(data)
                tag = f"{name} checksum={checksum} offsets={offsets} codec={codec} ts={typesize} chunk={chunk_size}"

                # theirs writes, ours reads
                theirs = os.path.join(tmp, "theirs.blp")
                bp.pack_file_to_file(
                    src, theirs, chunk_size=chunk_size, metadata=metadata,
                    blosc_args=BloscArgs(typesize=typesize, clevel=rng.randrange(1, 10),
                                         shuffle=shuffle, cname=codec),
                    bloscpack_args=BloscpackArgs(offsets=offsets, checksum=checksum))
                out = os.path.join(tmp, "ours.out")
                run([blosc2, "unpack", theirs, out])
                with open(out, "rb") as f:
                    assert f.read() == data, f"ours unpacked bloscpack's file wrong: {tag}"
                run([blosc2, "info", theirs])

                # ours writes, theirs reads
                ours = os.path.join(tmp, "ours.blp")
                cmd = [blosc2, "pack", src, ours, "--checksum", checksum.lower(), "--codec", codec,
                       "--typesize", str(typesize), "--chunk-size", str(chunk_size),
                       "--clevel", str(rng.randrange(0, 10)),
                       "--filter", ["shuffle", "bitshuffle", "noshuffle"][cases % 3]]
                if not offsets:
                    cmd.append("--no-offsets")
                if metadata is not None:
                    mpath = os.path.join(tmp, "meta.json")
                    with open(mpath, "w") as f:
                        f.write('{"case": %d, "name": "%s"}' % (cases, name))
                    cmd += ["--metadata", mpath]
                run(cmd)
                back = os.path.join(tmp, "theirs.out")
                got_meta = bp.unpack_file_from_file(ours, back)
                with open(back, "rb") as f:
                    assert f.read() == data, f"bloscpack unpacked our file wrong: {tag}"
                if metadata is not None:
                    assert got_meta == metadata, f"metadata differs: {got_meta} {tag}"
                else:
                    assert got_meta is None
                cases += 1
    print(f"bloscpack interop: {cases} files each way, byte-exact after unpack")

    # Corrupt files: one line on stderr, exit 1, no OUT left behind (and an
    # existing OUT is kept as it was).
    data = datasets["int64-ramp"]
    src = os.path.join(tmp, "ramp.bin")
    with open(src, "wb") as f:
        f.write(data)
    good = os.path.join(tmp, "good.blp")
    run([blosc2, "pack", src, good, "--chunk-size", "100000", "--checksum", "crc32"])
    blob = open(good, "rb").read()
    variants = {
        "bad magic": b"blpX" + blob[4:],
        "bad version": blob[:4] + b"\x07" + blob[5:],
        "wrong checksum": blob[:-1] + bytes([blob[-1] ^ 0xFF]),
        "flipped chunk byte": blob[:len(blob) // 2] + bytes([blob[len(blob) // 2] ^ 0x10]) + blob[len(blob) // 2 + 1:],
        "truncated chunk": blob[:len(blob) - 100],
        "lying nchunks": blob[:16] + (10**12).to_bytes(8, "little") + blob[24:],
        "lying chunk size": blob[:8] + (50_000).to_bytes(4, "little") + blob[12:],
        "empty file": b"",
    }
    for what, bad in variants.items():
        path = os.path.join(tmp, "bad.blp")
        with open(path, "wb") as f:
            f.write(bad)
        out = os.path.join(tmp, "bad.out")
        if os.path.exists(out):
            os.remove(out)
        p = run([blosc2, "unpack", path, out], expect=1)
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("blosc2: error:"), f"{what}: {p.stderr!r}"
        assert not os.path.exists(out), f"{what}: partial output left behind"
        with open(out, "wb") as f:
            f.write(b"previous content")
        run([blosc2, "unpack", path, out], expect=1)
        assert open(out, "rb").read() == b"previous content", f"{what}: OUT overwritten"
        leftovers = [n for n in os.listdir(tmp) if ".tmp-" in n]
        assert not leftovers, f"{what}: temporary files left: {leftovers}"
        print(f"corrupt ({what}): {lines[0]}")
    shutil.rmtree(tmp)
    print("bloscpack interop: OK")


if __name__ == "__main__":
    main()
