//! Interop of the plugins the reference registers at start (bytedelta,
//! bytedelta_buggy, int_trunc, ndlz) with the reference c-blosc2 3.3.5
//! library: chunks written by each library decode byte-exact with the other.
//!
//! Needs the reference library (`scripts/fetch-reference.sh`); a missing one
//! fails the tests.

#[allow(dead_code)]
mod common;

use blosc2::chunk::{self, CParams, DParams, SplitMode};
use blosc2::codec;
use blosc2::format::header::{NOFILTER, SHUFFLE};
use common::reflib::{reflib, RefCParams};

const BYTEDELTA_BUGGY: u8 = 34;
const BYTEDELTA: u8 = 35;
const INT_TRUNC: u8 = 36;

/// Deterministic test data: slowly varying values with some noise, so that
/// deltas and truncation both matter.
fn data(len: usize, seed: u32) -> Vec<u8> {
    let mut x = seed.wrapping_mul(2_654_435_761) | 1;
    (0..len)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            ((i / 3) as u32).wrapping_add(x % 5) as u8
        })
        .collect()
}

fn ours(p: &RefCParams) -> CParams {
    CParams {
        compcode: p.compcode,
        compcode_meta: p.compcode_meta,
        clevel: p.clevel,
        use_dict: p.use_dict,
        typesize: p.typesize,
        nthreads: p.nthreads,
        blocksize: p.blocksize,
        splitmode: SplitMode::from_i32(p.splitmode),
        filters: p.filters,
        filters_meta: p.filters_meta,
        ..CParams::default()
    }
}

fn params(compcode: u8, typesize: i32, blocksize: i32, f: [u8; 6], m: [u8; 6]) -> RefCParams {
    RefCParams {
        compcode,
        compcode_meta: 0,
        clevel: 5,
        use_dict: false,
        typesize,
        nthreads: 1,
        blocksize,
        splitmode: 4,
        filters: f,
        filters_meta: m,
    }
}

/// Compress `src` with both libraries, decode each chunk with both, and check
/// that all four results equal `filtered` (the source, or the truncated source
/// for lossy filters; the source itself for chunks stored raw, where neither
/// library runs the filters).  Returns the two chunks.
fn cross_check(p: &RefCParams, src: &[u8], filtered: &[u8], what: &str) -> (Vec<u8>, Vec<u8>) {
    let r = reflib();
    let ours_chunk = chunk::compress(&ours(p), src)
        .unwrap_or_else(|e| panic!("{what}: our compression failed: {e:?}"));
    let (ref_chunk, overrun) = r.compress_chunk(p, src);
    assert_eq!(overrun, 0, "{what}: reference overran");
    let ref_chunk = ref_chunk.unwrap_or_else(|rc| panic!("{what}: reference compression rc {rc}"));
    let dp = DParams::default();
    for (name, c) in [("ours", &ours_chunk), ("reference", &ref_chunk)] {
        let memcpyed = c[2] & 0x02 != 0;
        let expect = if memcpyed { src } else { filtered };
        let mine = chunk::decompress(&dp, c)
            .unwrap_or_else(|e| panic!("{what}: we cannot decode the {name} chunk: {e:?}"));
        assert!(
            mine == expect,
            "{what}: our decoding of the {name} chunk differs (first at {:?})",
            mine.iter().zip(expect).position(|(x, y)| x != y)
        );
        let theirs = r.decompress(1, c, src.len());
        assert_eq!(theirs.overrun, 0, "{what}: reference overran");
        assert_eq!(
            theirs.rc,
            src.len() as i32,
            "{what}: reference cannot decode the {name} chunk"
        );
        assert!(
            theirs.out == expect,
            "{what}: reference decoding of the {name} chunk differs"
        );
    }
    (ours_chunk, ref_chunk)
}

/// The two libraries write the same bytes (checked where the reference's
/// block split is known to agree with ours).
fn same_chunk(a: &[u8], b: &[u8], what: &str) {
    if a != b {
        let at = a.iter().zip(b).position(|(x, y)| x != y);
        panic!(
            "{what}: chunks differ (sizes {} vs {}, first difference at {at:?})",
            a.len(),
            b.len()
        );
    }
}

#[test]
fn bytedelta_both_ways() {
    for id in [BYTEDELTA, BYTEDELTA_BUGGY] {
        for ts in [1i32, 2, 3, 4, 8, 12, 16] {
            for (len, bs) in [
                (4000usize, 0i32),
                (10_007, 1000),
                (256, 0),
                (65_536, 8192),
                (999, 0),
            ] {
                let len = if id == BYTEDELTA_BUGGY {
                    // The buggy forward leaves the leftover bytes unwritten in
                    // the reference: only whole items are comparable.
                    len / ts as usize * ts as usize
                } else {
                    len
                };
                // A user blocksize that is not a multiple of the typesize is a
                // known reference bug class (capi-tests/KNOWN_REFERENCE_FAILURES.txt).
                let bs = bs / ts * ts;
                let src = data(len, ts as u32 + len as u32);
                let mut f = [NOFILTER; 6];
                let mut m = [0u8; 6];
                f[4] = SHUFFLE;
                f[5] = id;
                m[5] = ts as u8;
                for compcode in [codec::BLOSCLZ, codec::ZSTD] {
                    let p = params(compcode, ts, bs, f, m);
                    let what = format!("filter {id} ts {ts} len {len} bs {bs} codec {compcode}");
                    let (a, b) = cross_check(&p, &src, &src, &what);
                    if len % ts as usize == 0 && bs % ts == 0 {
                        same_chunk(&a, &b, &what);
                    }
                }
            }
        }
    }
}

#[test]
fn bytedelta_meta_zero_needs_a_schunk() {
    let src = data(4096, 1);
    let mut f = [NOFILTER; 6];
    f[5] = BYTEDELTA;
    let p = params(codec::LZ4, 4, 0, f, [0; 6]);
    assert!(chunk::compress(&ours(&p), &src).is_err());
    let (r, _) = reflib().compress_chunk(&p, &src);
    assert!(r.is_err());
    // A chunk the reference wrote with meta 4 decodes with meta patched to 0? No:
    // the meta is in the chunk; check both refuse a chunk naming meta 0.
    let mut m = [0u8; 6];
    m[5] = 4;
    let p4 = params(codec::LZ4, 4, 0, f, m);
    let (c, _) = reflib().compress_chunk(&p4, &src);
    let mut c = c.unwrap();
    // filters_meta of the last filter lives at byte 18 + 5 + 6 = header offset 24+5?
    // extended header: filters at 16..22, udcompcode 22, compcode_meta 23, filters_meta 24..30.
    assert_eq!(c[29], 4);
    c[29] = 0;
    assert!(chunk::decompress(&DParams::default(), &c).is_err());
    let out = reflib().decompress(1, &c, src.len());
    assert!(out.rc < 0, "reference rc {}", out.rc);
}

fn truncated(src: &[u8], ts: usize, prec: i8) -> Vec<u8> {
    let width = ts as u32 * 8;
    let zeroed = if prec >= 0 {
        width - prec as u32
    } else {
        (-(prec as i32)) as u32
    };
    let mask: u64 = !((1u64 << zeroed) - 1);
    let mut out = src.to_vec();
    for item in out.chunks_exact_mut(ts) {
        for (k, b) in item.iter_mut().enumerate() {
            *b &= (mask >> (8 * k)) as u8;
        }
    }
    out
}

#[test]
fn int_trunc_both_ways() {
    for ts in [1i32, 2, 4, 8] {
        let width = ts * 8;
        for prec in [1i32, 3, width - 1, width, -1, -(width - 1), -3] {
            let prec = prec as i8;
            for (len, bs) in [(4096usize, 0i32), (10_000, 1024), (64, 0)] {
                let src = data(len, (ts * 100 + prec as i32) as u32);
                let mut f = [NOFILTER; 6];
                let mut m = [0u8; 6];
                f[4] = INT_TRUNC;
                f[5] = SHUFFLE;
                m[4] = prec as u8;
                let p = params(codec::LZ4, ts, bs, f, m);
                let expect = truncated(&src, ts as usize, prec);
                let what = format!("int_trunc ts {ts} prec {prec} len {len} bs {bs}");
                let (a, b) = cross_check(&p, &src, &expect, &what);
                if len % ts as usize == 0 && bs % ts == 0 {
                    same_chunk(&a, &b, &what);
                }
            }
        }
    }
}

#[test]
fn int_trunc_rejects_like_the_reference() {
    let src = data(4096, 7);
    for (ts, prec) in [(3i32, 2i8), (4, 0), (4, -32), (1, 9), (2, -16), (16, 4)] {
        let mut f = [NOFILTER; 6];
        let mut m = [0u8; 6];
        f[5] = INT_TRUNC;
        m[5] = prec as u8;
        let p = params(codec::LZ4, ts, 0, f, m);
        let ours = chunk::compress(&ours(&p), &src);
        let (theirs, _) = reflib().compress_chunk(&p, &src);
        assert!(ours.is_err(), "ts {ts} prec {prec}: we accepted");
        assert!(
            theirs.is_err(),
            "ts {ts} prec {prec}: the reference accepted"
        );
    }
}

// ------------------------------------------------------------------ ndlz

/// The "b2nd" metalayer our engine sees through its super-chunk context while
/// the ndlz test runs.
static NDLZ_META: std::sync::RwLock<Vec<u8>> = std::sync::RwLock::new(Vec::new());

/// The super-chunk our engine sees in the ndlz test: typesize 1 and the
/// metalayer in `NDLZ_META`.
struct NdlzSchunk;

impl blosc2::plugin::SchunkContext for NdlzSchunk {
    fn typesize(&self) -> Option<i32> {
        Some(1)
    }
    fn metalayer(&self, name: &str) -> Option<Vec<u8>> {
        hook_meta(name)
    }
}

fn hook_meta(name: &str) -> Option<Vec<u8>> {
    let m = NDLZ_META.read().unwrap_or_else(|e| e.into_inner());
    (name == "b2nd" && !m.is_empty()).then(|| m.clone())
}

/// A 2-D test image with flat areas, repeated cells, repeated rows and noise.
fn image(h: usize, w: usize, seed: u32) -> Vec<u8> {
    let noise = data(h * w, seed);
    (0..h * w)
        .map(|i| {
            let (r, c) = (i / w, i % w);
            match (r / 8 + c / 8 + seed as usize) % 5 {
                0 => 9,
                1 => ((r % 4) * 5 + c % 4) as u8,
                2 => (c % 8) as u8 * 13,
                3 => noise[i] & 3,
                _ => noise[i],
            }
        })
        .collect()
}

#[test]
fn ndlz_both_ways() {
    use blosc2::plugin::SchunkRef;
    let mut cases = 0;
    for cell in [4u8, 8] {
        for (b0, b1, nblocks) in [
            (16i32, 16i32, 4usize),
            (32, 32, 3),
            (64, 64, 2),
            (12, 20, 5),
            (13, 27, 3),
            (20, 8, 4),
            (100, 50, 1),
            (7, 9, 2),
        ] {
            for seed in [1u32, 2, 3] {
                let bsize = (b0 * b1) as usize;
                let src: Vec<u8> = (0..nblocks)
                    .flat_map(|k| image(b0 as usize, b1 as usize, seed + k as u32 % 2))
                    .collect();
                let shape = [(b0 as i64) * nblocks as i64, b1 as i64];
                let meta = blosc2::format::b2nd_meta::write(
                    &shape,
                    &[shape[0] as i32, b1],
                    &[b0, b1],
                    "|u1",
                    0,
                )
                .unwrap();
                *NDLZ_META.write().unwrap_or_else(|e| e.into_inner()) = meta.clone();
                let mut p = params(codec::ndlz::NDLZ, 1, bsize as i32, [NOFILTER; 6], [0; 6]);
                p.compcode_meta = cell;
                let what = format!("ndlz{cell} block {b0}x{b1} x{nblocks} seed {seed}");
                let mut cp = ours(&p);
                cp.schunk = Some(SchunkRef(std::sync::Arc::new(NdlzSchunk)));
                let mine = chunk::compress(&cp, &src)
                    .unwrap_or_else(|e| panic!("{what}: our compression failed: {e:?}"));
                let (theirs, overrun) = reflib().compress_chunk_with_meta(&p, "b2nd", &meta, &src);
                assert_eq!(overrun, 0, "{what}: reference overran");
                let theirs =
                    theirs.unwrap_or_else(|rc| panic!("{what}: reference compression rc {rc}"));
                same_chunk(&mine, &theirs, &what);
                for (name, c) in [("ours", &mine), ("reference", &theirs)] {
                    let back = chunk::decompress(&DParams::default(), c).unwrap_or_else(|e| {
                        panic!("{what}: we cannot decode the {name} chunk: {e:?}")
                    });
                    assert!(
                        back == src,
                        "{what}: our decoding of the {name} chunk differs"
                    );
                    let r = reflib().decompress(1, c, src.len());
                    assert_eq!(
                        r.rc,
                        src.len() as i32,
                        "{what}: reference cannot decode {name}"
                    );
                    assert!(
                        r.out == src,
                        "{what}: reference decoding of the {name} chunk differs"
                    );
                }
                if mine[2] & 0x02 == 0 {
                    cases += 1;
                }
            }
        }
    }
    assert!(
        cases > 20,
        "too few cases actually went through ndlz: {cases}"
    );
    NDLZ_META.write().unwrap_or_else(|e| e.into_inner()).clear();
}

#[test]
fn ndlz_without_b2nd_fails_like_the_reference() {
    let src = image(32, 32, 5);
    let mut p = params(codec::ndlz::NDLZ, 1, 1024, [NOFILTER; 6], [0; 6]);
    p.compcode_meta = 4;
    // No super-chunk at all.
    assert!(chunk::compress(&ours(&p), &src).is_err());
    let (r, _) = reflib().compress_chunk(&p, &src);
    assert!(r.is_err(), "reference accepted ndlz without a super-chunk");
    // A super-chunk without "b2nd".
    let (r, _) = reflib().compress_chunk_with_meta(&p, "other", b"x", &src);
    assert!(r.is_err(), "reference accepted ndlz without b2nd");
    // A bad cell size.
    p.compcode_meta = 5;
    let meta = blosc2::format::b2nd_meta::write(&[32, 32], &[32, 32], &[32, 32], "|u1", 0).unwrap();
    let (r, _) = reflib().compress_chunk_with_meta(&p, "b2nd", &meta, &src);
    assert!(r.is_err(), "reference accepted ndlz meta 5");
}

// ------------------------------------------------------------------ unknown ids

#[test]
fn unknown_codec_and_filter_ids_fail_cleanly() {
    let src: Vec<u8> = (0..8192u32).map(|i| (i / 64) as u8).collect();
    let p = params(codec::LZ4, 4, 0, [0, 0, 0, 0, 0, SHUFFLE], [0; 6]);
    let good = chunk::compress(&ours(&p), &src).unwrap();
    assert_eq!(good[2] & 0x02, 0, "test chunk must not be stored raw");
    // Extended header: byte 16.. filters, 22 udcompcode, 23 compcode_meta.
    for id in [36u8, 37, 38, 40, 100, 159, 200] {
        // A chunk naming user codec `id`.
        let mut c = good.clone();
        c[2] = (c[2] & !0xe0) | (6 << 5); // BLOSC_UDCODEC_FORMAT
        c[22] = id;
        let e = chunk::decompress(&DParams::default(), &c).err();
        assert_eq!(e.map(|e| e.code()), Some(-7), "codec {id}");
        let r = reflib().decompress(1, &c, src.len());
        assert!(r.rc < 0, "reference decoded codec {id}: {}", r.rc);
        // Compressing with it.
        let q = params(id, 4, 0, [0, 0, 0, 0, 0, SHUFFLE], [0; 6]);
        assert!(
            chunk::compress(&ours(&q), &src).is_err(),
            "codec {id} compressed"
        );
    }
    // 32..=36 are registered at start (ndcell, ndmean, bytedelta_buggy,
    // bytedelta, int_trunc): see tests/interop_ndfilters.rs for the first two.
    for id in [37u8, 38, 100, 159, 200] {
        let mut c = good.clone();
        c[16 + 4] = id;
        let e = chunk::decompress(&DParams::default(), &c).err();
        assert!(e.is_some_and(|e| e.code() < 0), "filter {id}");
        let mut f = [0u8; 6];
        f[4] = id;
        f[5] = SHUFFLE;
        let q = params(codec::LZ4, 4, 0, f, [0; 6]);
        assert!(
            chunk::compress(&ours(&q), &src).is_err(),
            "filter {id} compressed"
        );
    }
}
