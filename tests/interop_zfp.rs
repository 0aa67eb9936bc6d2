//! Interop of the ZFP codecs the reference registers at start (zfp_acc 33,
//! zfp_prec 34, zfp_rate 35) with the reference c-blosc2 3.3.5 library.
//!
//! zfp is lossy, so each chunk (ours and the reference's of the same input and
//! parameters) is decoded by both libraries and the two decodings must agree
//! byte for byte; the two chunks themselves must be identical too.  The codecs
//! read the block shape from the "b2nd" metalayer of the super-chunk: the
//! tests build it (msgpack) and hand it to our engine through the super-chunk
//! context and to the reference through a real in-memory super-chunk.
//!
//! Needs the reference library (`scripts/fetch-reference.sh`); a missing one
//! fails the tests.  Built only with the `zfp` feature
//! (`cargo test --features zfp --test interop_zfp`).

#![cfg(feature = "zfp")]

#[allow(dead_code)]
mod common;

use blosc2::chunk::{self, CParams, DParams, SplitMode};
use blosc2::format::header::NOFILTER;
use blosc2::plugin::SchunkRef;
use common::reflib::{reflib, RefCParams};
use std::sync::{Mutex, MutexGuard, RwLock};

const ZFP_ACC: u8 = 33;
const ZFP_PREC: u8 = 34;
const ZFP_RATE: u8 = 35;

// ------------------------------------------------------------------ our super-chunk

/// What our engine sees through its super-chunk context: (typesize, "b2nd").
static SCHUNK: common::schunk_context::Globals = RwLock::new((0, Vec::new()));
/// The tests share `SCHUNK`: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// Take the test lock.
fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// A super-chunk context for our parameters.
fn test_schunk() -> Option<SchunkRef> {
    common::schunk_context::schunk_from(&SCHUNK)
}

/// Make our super-chunk hold items of `typesize` bytes and the given "b2nd"
/// metalayer (none when empty).
fn set_schunk(typesize: i32, meta: &[u8]) {
    *SCHUNK.write().unwrap_or_else(|e| e.into_inner()) = (typesize, meta.to_vec());
}

// ------------------------------------------------------------------ b2nd metalayer

/// The "b2nd" metalayer (version 0) in msgpack: a fixarray of 7 with the
/// version, ndim, the shape (int64s), chunk shape and block shape (int32s),
/// the dtype format (0, NumPy) and the dtype string (str32).
fn b2nd_meta(shape: &[i64], chunkshape: &[i32], blockshape: &[i32], dtype: &str) -> Vec<u8> {
    let nd = shape.len();
    assert!(nd < 16 && chunkshape.len() == nd && blockshape.len() == nd);
    let mut m = vec![0x90 | 7, 0, nd as u8];
    m.push(0x90 | nd as u8);
    for &s in shape {
        m.push(0xd3);
        m.extend_from_slice(&s.to_be_bytes());
    }
    for part in [chunkshape, blockshape] {
        m.push(0x90 | nd as u8);
        for &s in part {
            m.push(0xd2);
            m.extend_from_slice(&s.to_be_bytes());
        }
    }
    m.push(0);
    m.push(0xdb);
    m.extend_from_slice(&(dtype.len() as u32).to_be_bytes());
    m.extend_from_slice(dtype.as_bytes());
    m
}

fn dtype(ts: i32) -> &'static str {
    if ts == 4 {
        "<f4"
    } else {
        "<f8"
    }
}

// ------------------------------------------------------------------ geometry and data

/// A chunk shape and a block shape (C order).
#[derive(Debug, Clone)]
struct Geo {
    chunk: Vec<i32>,
    block: Vec<i32>,
}

impl Geo {
    fn new(chunk: &[i32], block: &[i32]) -> Geo {
        Geo {
            chunk: chunk.to_vec(),
            block: block.to_vec(),
        }
    }
    fn ndim(&self) -> usize {
        self.chunk.len()
    }
    /// The metalayer of an array of two chunks along the first dimension.
    fn meta(&self, ts: i32) -> Vec<u8> {
        let mut shape: Vec<i64> = self.chunk.iter().map(|&c| c as i64).collect();
        shape[0] *= 2;
        b2nd_meta(&shape, &self.chunk, &self.block, dtype(ts))
    }
    fn block_items(&self) -> usize {
        self.block.iter().map(|&b| b as usize).product()
    }
    /// Blocks per chunk along each dimension (the chunk padded to whole blocks).
    fn blocks_per_chunk(&self) -> Vec<usize> {
        (0..self.ndim())
            .map(|i| (self.chunk[i] as usize).div_ceil(self.block[i] as usize))
            .collect()
    }
}

/// C-order multi-index of `k` in `shape`.
fn unravel(mut k: usize, shape: &[usize]) -> Vec<usize> {
    let mut c = vec![0; shape.len()];
    for i in (0..shape.len()).rev() {
        c[i] = k % shape[i];
        k /= shape[i];
    }
    c
}

fn hash(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// A smooth field with a little noise at a point of the chunk.
fn value(c: &[usize], seed: u64) -> f64 {
    let mut v = 0.0;
    let mut h = seed;
    for (i, &x) in c.iter().enumerate() {
        let x = x as f64;
        v += (x * (0.05 + 0.03 * i as f64)).sin() * (10.0 + i as f64) + x * 0.1;
        h = hash(h ^ (c[i] as u64).wrapping_mul(0x9e37_79b9));
    }
    v + (h % 1000) as f64 * 1e-5
}

/// One b2nd chunk: the chunk padded to whole blocks, block after block, each
/// block in C order; the padding (outside the chunk shape) is zero.
fn chunk_data(g: &Geo, ts: i32, seed: u64) -> Vec<u8> {
    let bpc = g.blocks_per_chunk();
    let nblocks: usize = bpc.iter().product();
    let bshape: Vec<usize> = g.block.iter().map(|&b| b as usize).collect();
    let mut out = Vec::with_capacity(nblocks * g.block_items() * ts as usize);
    for b in 0..nblocks {
        let bc = unravel(b, &bpc);
        for k in 0..g.block_items() {
            let ic = unravel(k, &bshape);
            let c: Vec<usize> = (0..g.ndim()).map(|i| bc[i] * bshape[i] + ic[i]).collect();
            let inside = (0..g.ndim()).all(|i| c[i] < g.chunk[i] as usize);
            let v = if inside { value(&c, seed) } else { 0.0 };
            if ts == 4 {
                out.extend_from_slice(&(v as f32).to_le_bytes());
            } else {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    out
}

fn geometries() -> Vec<Geo> {
    vec![
        Geo::new(&[1000], &[128]),
        Geo::new(&[512], &[64]),
        Geo::new(&[100], &[100]),
        Geo::new(&[90], &[7]),
        Geo::new(&[50, 40], &[16, 16]),
        Geo::new(&[64, 64], &[32, 32]),
        Geo::new(&[30, 30], &[10, 7]),
        Geo::new(&[20, 20, 20], &[8, 8, 8]),
        Geo::new(&[10, 12, 9], &[5, 6, 4]),
        Geo::new(&[8, 8, 8, 8], &[4, 4, 4, 4]),
        Geo::new(&[10, 6, 7, 9], &[5, 4, 7, 6]),
    ]
}

/// The compcode_meta values tried for each codec.  None is so close to
/// lossless that a stream is only a little smaller than its block: the
/// reference then copies it past the end of a nearly full output buffer (it
/// does not check the room left), which the canary of the tests catches.
fn metas(compcode: u8) -> Vec<u8> {
    match compcode {
        ZFP_ACC => vec![-6i8 as u8, -2i8 as u8, 0, 1],
        ZFP_PREC => vec![0, 8, 20, 30],
        _ => vec![5, 20, 37, 60],
    }
}

fn params(compcode: u8, meta: u8, ts: i32, blocksize: i32) -> RefCParams {
    RefCParams {
        compcode,
        compcode_meta: meta,
        clevel: 5,
        use_dict: false,
        typesize: ts,
        nthreads: 1,
        blocksize,
        splitmode: 4,
        filters: [NOFILTER; 6],
        filters_meta: [0; 6],
    }
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
        schunk: test_schunk(),
        ..CParams::default()
    }
}

fn our_dparams(nthreads: i16) -> DParams {
    DParams {
        nthreads,
        schunk: test_schunk(),
        ..DParams::default()
    }
}

fn first_diff(a: &[u8], b: &[u8]) -> Option<usize> {
    a.iter().zip(b).position(|(x, y)| x != y)
}

/// Blocks of a chunk that went through the codec (not stored raw).
fn coded_blocks(c: &[u8]) -> usize {
    if c[2] & 0x02 != 0 {
        return 0;
    }
    let (_, _, blocksize) = chunk::sizes(c).unwrap();
    let nbytes = i32::from_le_bytes(c[4..8].try_into().unwrap()) as usize;
    let nblocks = nbytes.div_ceil(blocksize);
    let overhead = 32;
    (0..nblocks)
        .filter(|&j| {
            let at = overhead + 4 * j;
            let start = i32::from_le_bytes(c[at..at + 4].try_into().unwrap()) as usize;
            let csize = i32::from_le_bytes(c[start..start + 4].try_into().unwrap());
            let bsize = blocksize.min(nbytes - j * blocksize);
            csize > 0 && (csize as usize) < bsize
        })
        .count()
}

/// Compress `src` with both libraries (same parameters, same metalayer),
/// check that the chunks are identical, and that each library decodes each
/// chunk to the same bytes.  Returns (our chunk, the decoding, coded blocks).
fn cross_check(p: &RefCParams, meta: &[u8], src: &[u8], what: &str) -> (Vec<u8>, Vec<u8>, usize) {
    set_schunk(p.typesize, meta);
    let sc = reflib().schunk_with_meta(p.typesize, "b2nd", meta);
    let mine = chunk::compress(&ours(p), src)
        .unwrap_or_else(|e| panic!("{what}: our compression failed: {e:?}"));
    let (theirs, overrun) = sc.compress_chunk(p, src);
    assert_eq!(overrun, 0, "{what}: reference overran");
    let theirs = theirs.unwrap_or_else(|rc| panic!("{what}: reference compression rc {rc}"));
    assert!(
        mine == theirs,
        "{what}: chunks differ (sizes {} vs {}, first difference at {:?})",
        mine.len(),
        theirs.len(),
        first_diff(&mine, &theirs)
    );
    let mut decoded: Option<Vec<u8>> = None;
    for (name, c) in [("ours", &mine), ("reference", &theirs)] {
        let a = chunk::decompress(&our_dparams(1), c)
            .unwrap_or_else(|e| panic!("{what}: we cannot decode the {name} chunk: {e:?}"));
        let a2 = chunk::decompress(&our_dparams(3), c).unwrap_or_else(|e| {
            panic!("{what}: we cannot decode the {name} chunk (3 threads): {e:?}")
        });
        assert!(a == a2, "{what}: our threaded decoding differs");
        let b = sc.decompress(1, c, src.len());
        assert_eq!(b.overrun, 0, "{what}: reference overran");
        assert_eq!(
            b.rc,
            src.len() as i32,
            "{what}: reference cannot decode the {name} chunk"
        );
        assert!(
            a == b.out,
            "{what}: the decodings of the {name} chunk differ (first at {:?})",
            first_diff(&a, &b.out)
        );
        if let Some(d) = &decoded {
            assert!(*d == a, "{what}: the two chunks decode differently");
        }
        decoded = Some(a);
    }
    let n = coded_blocks(&mine);
    (mine, decoded.unwrap_or_default(), n)
}

fn floats(b: &[u8], ts: i32) -> Vec<f64> {
    if ts == 4 {
        b.chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64)
            .collect()
    } else {
        b.chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }
}

// ------------------------------------------------------------------ tests

#[test]
fn zfp_chunks_both_ways() {
    let _g = serial();
    let mut coded = [0usize; 3];
    for (k, compcode) in [ZFP_ACC, ZFP_PREC, ZFP_RATE].into_iter().enumerate() {
        for ts in [4i32, 8] {
            for (gi, g) in geometries().iter().enumerate() {
                for meta in metas(compcode) {
                    let src = chunk_data(g, ts, gi as u64 * 31 + meta as u64);
                    let blocksize = (g.block_items() * ts as usize) as i32;
                    let p = params(compcode, meta, ts, blocksize);
                    let what = format!(
                        "codec {compcode} meta {meta} ts {ts} chunk {:?} block {:?}",
                        g.chunk, g.block
                    );
                    let (_, back, n) = cross_check(&p, &g.meta(ts), &src, &what);
                    coded[k] += n;
                    if compcode == ZFP_ACC && n > 0 {
                        let tol = 10f64.powi(meta as i8 as i32);
                        // Below the precision of the type zfp cannot do better.
                        let ulp = if ts == 4 {
                            2f64.powi(-22)
                        } else {
                            2f64.powi(-51)
                        };
                        for (x, y) in floats(&src, ts).iter().zip(floats(&back, ts)) {
                            let bound = tol.max(x.abs() * ulp);
                            assert!((x - y).abs() <= bound, "{what}: {x} vs {y}");
                        }
                    }
                }
            }
        }
    }
    for (k, n) in coded.iter().enumerate() {
        assert!(
            *n > 100,
            "too few blocks went through codec {}: {n}",
            33 + k
        );
    }
}

/// Chunks that are not whole blocks (a leftover block) and split streams: the
/// codec stores such blocks as they are, in both libraries.
#[test]
fn leftover_blocks_and_split_streams() {
    let _g = serial();
    let g = Geo::new(&[64, 40], &[16, 16]);
    for compcode in [ZFP_ACC, ZFP_PREC, ZFP_RATE] {
        for ts in [4i32, 8] {
            let meta = metas(compcode)[1];
            let full = chunk_data(&g, ts, 5);
            let blocksize = (g.block_items() * ts as usize) as i32;
            for cut in [blocksize as usize * 3 + 1000, full.len() - ts as usize] {
                let src = &full[..cut];
                let p = params(compcode, meta, ts, blocksize);
                let what = format!("codec {compcode} ts {ts} {cut} bytes");
                let (_, _, n) = cross_check(&p, &g.meta(ts), src, &what);
                assert!(n > 0, "{what}: no block went through zfp");
            }
            let mut p = params(compcode, meta, ts, blocksize);
            p.splitmode = 1; // BLOSC_ALWAYS_SPLIT
            let what = format!("codec {compcode} ts {ts} always split");
            let (_, _, n) = cross_check(&p, &g.meta(ts), &full, &what);
            assert_eq!(n, 0, "{what}: split streams went through zfp");
        }
    }
}

/// Single items of fixed-rate chunks: the reference decodes only the zfp cell
/// holding the item (zfp_getcell); we decode the block.  Both agree, except
/// that the reference refuses (BLOSC2_ERROR_DATA) when a cell is coded with
/// fewer bits than one item has.
#[test]
fn rate_getitem_matches() {
    let _g = serial();
    for ts in [4i32, 8] {
        for g in [
            Geo::new(&[300], &[64]),
            Geo::new(&[30, 30], &[10, 7]),
            Geo::new(&[10, 12, 9], &[5, 6, 4]),
            Geo::new(&[8, 8, 8, 8], &[4, 4, 4, 4]),
        ] {
            for meta in [5u8, 20, 37, 60] {
                let src = chunk_data(&g, ts, 9);
                let blocksize = (g.block_items() * ts as usize) as i32;
                let p = params(ZFP_RATE, meta, ts, blocksize);
                let m = g.meta(ts);
                let what = format!("rate {meta} ts {ts} block {:?}", g.block);
                let (c, back, _) = cross_check(&p, &m, &src, &what);
                let sc = reflib().schunk_with_meta(ts, "b2nd", &m);
                let cell = 1u32 << (2 * g.ndim());
                let rate = meta as f64 / 100.0 * ts as f64 * 8.0;
                let min = if ts == 4 { 9 } else { 12 };
                let maxbits = ((cell as f64 * rate + 0.5).floor() as u32).max(min);
                let nitems = src.len() / ts as usize;
                for i in 0..40usize {
                    let at = (hash(i as u64 + meta as u64) as usize) % nitems;
                    let mut one = vec![0u8; ts as usize];
                    let n = chunk::getitem(&our_dparams(1), &c, at as i64, 1, &mut one)
                        .unwrap_or_else(|e| panic!("{what}: our getitem {at}: {e:?}"));
                    assert_eq!(n, ts as usize);
                    let us = &back[at * ts as usize..(at + 1) * ts as usize];
                    assert_eq!(one, us, "{what}: our getitem {at}");
                    let r = sc.getitem(1, &c, at as i32, 1, ts as usize);
                    assert_eq!(r.overrun, 0);
                    if maxbits < (ts * 8) as u32 {
                        assert!(r.rc < 0, "{what}: reference getitem {at}: {}", r.rc);
                    } else {
                        assert_eq!(r.rc, ts, "{what}: reference getitem {at}");
                        assert_eq!(r.out, us, "{what}: reference getitem {at}");
                    }
                }
            }
        }
    }
}

/// What both libraries refuse when compressing.
#[test]
fn unusable_parameters_fail_like_the_reference() {
    let _g = serial();
    let g = Geo::new(&[32, 32], &[16, 16]);
    for compcode in [ZFP_ACC, ZFP_PREC, ZFP_RATE] {
        for (ts, meta, what) in [
            (
                4,
                b2nd_meta(&[32, 32], &[32, 32], &[16, 3], "<f4"),
                "block dim < 4",
            ),
            (
                2,
                b2nd_meta(&[32, 32], &[32, 32], &[16, 16], "<f2"),
                "typesize 2",
            ),
            (4, b2nd_meta(&[4; 5], &[4; 5], &[4; 5], "<f4"), "5 dims"),
            (4, Vec::new(), "no b2nd"),
            (4, vec![0x97, 0, 1], "bad b2nd"),
        ] {
            let blocksize = if what == "block dim < 4" {
                16 * 3 * 4
            } else {
                16 * 16 * ts
            };
            let src = chunk_data(&g, ts.max(4), 1)[..(32 * 32 * ts) as usize].to_vec();
            let p = params(compcode, 10, ts, blocksize);
            set_schunk(ts, &meta);
            let mine = chunk::compress(&ours(&p), &src);
            assert!(mine.is_err(), "codec {compcode} {what}: we compressed");
            let sc = if meta.is_empty() {
                reflib().schunk_with_meta(ts, "other", b"x")
            } else {
                reflib().schunk_with_meta(ts, "b2nd", &meta)
            };
            let (theirs, _) = sc.compress_chunk(&p, &src);
            assert!(
                theirs.is_err(),
                "codec {compcode} {what}: the reference compressed"
            );
        }
        // Without any super-chunk both store the chunk as it is.
        let src = chunk_data(&g, 8, 1);
        let mut p = params(compcode, 10, 8, 16 * 16 * 8);
        let mut cp = ours(&p);
        cp.schunk = None;
        let mine = chunk::compress(&cp, &src).unwrap();
        p.compcode_meta = 10;
        let (theirs, _) = reflib().compress_chunk(&p, &src);
        let theirs = theirs.unwrap();
        assert_eq!(mine, theirs, "codec {compcode}: no super-chunk");
        assert_eq!(coded_blocks(&mine), 0);
    }
}

/// Chunks whose zfp streams are cut short, garbled, or read with a metalayer
/// that does not fit: negative codes, never a crash.
#[test]
fn bad_chunks_fail_cleanly() {
    let _g = serial();
    let g = Geo::new(&[40, 24], &[8, 12]);
    for compcode in [ZFP_ACC, ZFP_PREC, ZFP_RATE] {
        for ts in [4i32, 8] {
            let meta = g.meta(ts);
            let src = chunk_data(&g, ts, 3);
            let blocksize = (g.block_items() * ts as usize) as i32;
            let p = params(compcode, metas(compcode)[1], ts, blocksize);
            let what = format!("codec {compcode} ts {ts}");
            let (c, _, n) = cross_check(&p, &meta, &src, &what);
            assert!(n > 0, "{what}: nothing went through zfp");
            set_schunk(ts, &meta);
            let dp = our_dparams(1);
            // Truncated chunks.
            for cut in [0, 16, 31, 32, 40, c.len() / 2, c.len() - 1] {
                assert!(
                    chunk::decompress(&dp, &c[..cut]).is_err(),
                    "{what}: cut {cut}"
                );
            }
            // The first coded stream made shorter: the blocks need more.
            let start = i32::from_le_bytes(c[32..36].try_into().unwrap()) as usize;
            let csize = i32::from_le_bytes(c[start..start + 4].try_into().unwrap());
            if csize > 16 && (csize as usize) < blocksize as usize {
                for shorter in [csize - 8, csize / 2, 8, 1] {
                    let mut bad = c.clone();
                    bad[start..start + 4].copy_from_slice(&shorter.to_le_bytes());
                    let r = chunk::decompress(&dp, &bad);
                    assert!(r.is_err(), "{what}: stream cut to {shorter} decoded");
                }
            }
            // Garbled streams (lengths kept): any result but a crash.
            let mut x = 0x1234_5678_9abc_def0u64 ^ compcode as u64;
            for _ in 0..20 {
                let mut bad = c.clone();
                for b in bad[start + 4..].iter_mut() {
                    x = hash(x);
                    *b = x as u8;
                }
                let _ = chunk::decompress(&dp, &bad);
                let mut one = vec![0u8; ts as usize];
                let _ = chunk::getitem(&dp, &bad, 5, 1, &mut one);
            }
            // A metalayer whose blocks do not fit the chunk's blocks.
            let big = b2nd_meta(&[80, 24], &[40, 24], &[9, 12], dtype(ts));
            set_schunk(ts, &big);
            assert!(chunk::decompress(&dp, &c).is_err(), "{what}: bigger blocks");
            let r = reflib()
                .schunk_with_meta(ts, "b2nd", &big)
                .decompress(1, &c, src.len());
            assert!(r.rc < 0, "{what}: the reference decoded with bigger blocks");
            // No metalayer, or no super-chunk, when decoding.
            set_schunk(ts, &[]);
            assert!(chunk::decompress(&dp, &c).is_err(), "{what}: no b2nd");
            set_schunk(ts, &meta);
            assert!(
                chunk::decompress(&DParams::default(), &c).is_err(),
                "{what}: no schunk"
            );
            let r = reflib()
                .schunk_with_meta(ts, "other", b"x")
                .decompress(1, &c, src.len());
            assert!(r.rc < 0, "{what}: the reference decoded without b2nd");
        }
    }
}
