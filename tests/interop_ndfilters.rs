//! Interop of the ndcell (32) and ndmean (33) filters with the reference
//! c-blosc2 3.3.5 library.  Both read the "b2nd" metalayer of the super-chunk
//! (and, when decoding, its typesize): every case compresses b2nd-shaped
//! chunks (padded chunk shape, blocks in C order) with both libraries, checks
//! that they write the same bytes, and that each library decodes both chunks
//! to the same result (the source for ndcell, the cell means for ndmean).
//! Malformed inputs must fail with a negative code in both.
//!
//! Needs the reference library (`scripts/fetch-reference.sh`); a missing one
//! fails the tests.

#[allow(dead_code)]
mod common;

use blosc2::chunk::{self, CParams, DParams, SplitMode};
use blosc2::codec;
use blosc2::filter::plugins::{NDCELL, NDMEAN};
use blosc2::format::header::{NOFILTER, SHUFFLE};
use blosc2::plugin::SchunkRef;
use common::reflib::{reflib, RefCParams};
use std::sync::{Mutex, MutexGuard, RwLock};

/// The "b2nd" metalayer of the given shapes (dtype `|u1`).
mod b2nd_meta {
    pub fn serialize(shape: &[i64], chunkshape: &[i32], blockshape: &[i32]) -> Vec<u8> {
        blosc2::format::b2nd_meta::write(shape, chunkshape, blockshape, "|u1", 0).unwrap()
    }
}

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

// ------------------------------------------------------------------ geometry and data

/// A b2nd geometry.
#[derive(Debug, Clone)]
struct Geo {
    shape: Vec<i64>,
    chunk: Vec<i32>,
    block: Vec<i32>,
}

impl Geo {
    fn new(shape: &[i64], chunk: &[i32], block: &[i32]) -> Geo {
        Geo {
            shape: shape.to_vec(),
            chunk: chunk.to_vec(),
            block: block.to_vec(),
        }
    }
    fn ndim(&self) -> usize {
        self.shape.len()
    }
    fn meta(&self) -> Vec<u8> {
        b2nd_meta::serialize(&self.shape, &self.chunk, &self.block)
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
    fn chunks(&self) -> Vec<usize> {
        (0..self.ndim())
            .map(|i| (self.shape[i] as usize).div_ceil(self.chunk[i] as usize))
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

/// Value kinds.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// Unsigned integers of the typesize (any typesize).
    Int,
    F32,
    F64,
}

/// The item at global coordinates `g` (as bytes of `ts`).
fn item(kind: Kind, ts: usize, g: &[usize], seed: u64) -> Vec<u8> {
    let lin: u64 = g
        .iter()
        .enumerate()
        .map(|(i, &x)| (x as u64) * (i as u64 * 3 + 1))
        .sum();
    let noise = hash(
        seed ^ g.iter().fold(17u64, |a, &x| {
            a.wrapping_mul(1_000_003).wrapping_add(x as u64)
        }),
    );
    match kind {
        Kind::Int => {
            let v = lin.wrapping_add(noise % 3);
            (0..ts).map(|k| (v >> (8 * (k % 8))) as u8).collect()
        }
        Kind::F32 => {
            let v = lin as f32 * 0.37 + (noise % 1000) as f32 * 1e-3 - 20.0;
            v.to_ne_bytes().to_vec()
        }
        Kind::F64 => {
            let v = lin as f64 * 0.37 + (noise % 100_000) as f64 * 1e-5 - 20.0;
            v.to_ne_bytes().to_vec()
        }
    }
}

/// The buffer b2nd hands to the super-chunk for chunk `nchunk` (C-order
/// index in the chunk grid): the chunk padded to whole blocks, block after
/// block, each block in C order; items outside the chunk or the array are 0.
fn chunk_data(geo: &Geo, nchunk: usize, kind: Kind, ts: usize, seed: u64) -> Vec<u8> {
    let nd = geo.ndim();
    let corner = unravel(nchunk, &geo.chunks());
    let bpc = geo.blocks_per_chunk();
    let nblocks: usize = bpc.iter().product();
    let bshape: Vec<usize> = geo.block.iter().map(|&b| b as usize).collect();
    let mut out = Vec::with_capacity(nblocks * geo.block_items() * ts);
    for nb in 0..nblocks {
        let bpos = unravel(nb, &bpc);
        for k in 0..geo.block_items() {
            let local = unravel(k, &bshape);
            let in_chunk: Vec<usize> = (0..nd).map(|i| bpos[i] * bshape[i] + local[i]).collect();
            let g: Vec<usize> = (0..nd)
                .map(|i| corner[i] * geo.chunk[i] as usize + in_chunk[i])
                .collect();
            let inside = (0..nd)
                .all(|i| in_chunk[i] < geo.chunk[i] as usize && (g[i] as i64) < geo.shape[i]);
            if inside {
                out.extend(item(kind, ts, &g, seed));
            } else {
                out.extend(vec![0u8; ts]);
            }
        }
    }
    out
}

/// A few chunk indexes: the first, one in the middle, the last.
fn some_chunks(geo: &Geo) -> Vec<usize> {
    let n: usize = geo.chunks().iter().product();
    let mut v = vec![0, n / 2, n - 1];
    v.dedup();
    v
}

/// What ndmean leaves after a round trip: in every block, every item replaced
/// by the mean of its cell (the cell side clipped to the block shape), summed
/// in the item's precision in C order.
fn cell_means(geo: &Geo, side: usize, data: &[u8], ts: usize) -> Vec<u8> {
    let bshape: Vec<usize> = geo.block.iter().map(|&b| b as usize).collect();
    let cell: Vec<usize> = bshape.iter().map(|&b| b.min(side)).collect();
    let grid: Vec<usize> = (0..bshape.len())
        .map(|i| bshape[i].div_ceil(cell[i]))
        .collect();
    let ncells: usize = grid.iter().product();
    let bbytes = geo.block_items() * ts;
    let mut out = Vec::with_capacity(data.len());
    for block in data.chunks(bbytes) {
        let cell_of: Vec<usize> = (0..geo.block_items())
            .map(|k| {
                let c = unravel(k, &bshape);
                (0..c.len()).fold(0, |a, i| a * grid[i] + c[i] / cell[i])
            })
            .collect();
        let mut mean = vec![Vec::new(); ncells];
        if ts == 4 {
            let mut sum = vec![0f32; ncells];
            let mut n = vec![0usize; ncells];
            for (k, it) in block.chunks_exact(4).enumerate() {
                sum[cell_of[k]] += f32::from_ne_bytes(it.try_into().unwrap());
                n[cell_of[k]] += 1;
            }
            for c in 0..ncells {
                mean[c] = (sum[c] / n[c] as f32).to_ne_bytes().to_vec();
            }
        } else {
            let mut sum = vec![0f64; ncells];
            let mut n = vec![0usize; ncells];
            for (k, it) in block.chunks_exact(8).enumerate() {
                sum[cell_of[k]] += f64::from_ne_bytes(it.try_into().unwrap());
                n[cell_of[k]] += 1;
            }
            for c in 0..ncells {
                mean[c] = (sum[c] / n[c] as f64).to_ne_bytes().to_vec();
            }
        }
        for &c in &cell_of {
            out.extend_from_slice(&mean[c]);
        }
    }
    out
}

// ------------------------------------------------------------------ parameters

fn params(compcode: u8, ts: i32, blocksize: i32, f: [u8; 6], m: [u8; 6]) -> RefCParams {
    RefCParams {
        compcode,
        compcode_meta: 0,
        clevel: 5,
        use_dict: false,
        typesize: ts,
        nthreads: 1,
        blocksize,
        splitmode: 4,
        filters: f,
        filters_meta: m,
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

/// The pipelines tried: (codec, filters, filters_meta).  A shuffle before
/// the nd filter only for ndcell (ndmean averages what it is given).
fn pipelines(id: u8, side: u8) -> Vec<(u8, [u8; 6], [u8; 6])> {
    let mut out = Vec::new();
    let third = if id == NDCELL {
        (codec::BLOSCLZ, 5, Some(2))
    } else {
        (codec::BLOSCLZ, 0, Some(3))
    };
    for (codec, slot, shuffle_slot) in [
        (codec::LZ4, 4usize, Some(5usize)),
        (codec::ZSTD, 5, None),
        third,
    ] {
        let mut f = [NOFILTER; 6];
        let mut m = [0u8; 6];
        f[slot] = id;
        m[slot] = side;
        if let Some(s) = shuffle_slot {
            f[s] = SHUFFLE;
        }
        out.push((codec, f, m));
    }
    out
}

/// The outcome of one case.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// Both compressed to the same bytes (memcpyed or not) and both decoded.
    Same { memcpyed: bool },
    /// Both refused to compress.
    BothRefused,
    /// Both compressed to the same bytes and both refused to decode.
    UndecodableByBoth,
}

/// Compress `src` with both libraries (super-chunk of `ts`-byte items with
/// `meta` as "b2nd"), require the same bytes, decode both chunks with both
/// (one and two threads) and require `expect` (or `src` for chunks stored
/// raw), or a failure of all four decodings.
fn cross(p: &RefCParams, meta: &[u8], src: &[u8], expect: &[u8], what: &str) -> Outcome {
    set_schunk(p.typesize, meta);
    let refsc = reflib().schunk_with_meta(p.typesize, "b2nd", meta);
    let mine = chunk::compress(&ours(p), src);
    let (theirs, overrun) = refsc.compress_chunk(p, src);
    assert_eq!(overrun, 0, "{what}: reference overran");
    let (mine, theirs) = match (mine, theirs) {
        (Err(e), Err(rc)) => {
            assert!(e.code() < 0 && rc < 0, "{what}");
            return Outcome::BothRefused;
        }
        (Ok(_), Err(rc)) => panic!("{what}: the reference refused ({rc}), we compressed"),
        (Err(e), Ok(_)) => panic!("{what}: we refused ({e:?}), the reference compressed"),
        (Ok(a), Ok(b)) => (a, b),
    };
    if mine != theirs {
        let at = mine.iter().zip(&theirs).position(|(x, y)| x != y);
        panic!(
            "{what}: chunks differ (sizes {} vs {}, first difference at {at:?})",
            mine.len(),
            theirs.len()
        );
    }
    let memcpyed = mine[2] & 0x02 != 0;
    let expect = if memcpyed { src } else { expect };
    let mut failures = 0;
    for nthreads in [1i16, 2] {
        match chunk::decompress(&our_dparams(nthreads), &mine) {
            Ok(back) => assert!(
                back == expect,
                "{what}: our decoding differs (first at {:?})",
                back.iter().zip(expect).position(|(x, y)| x != y)
            ),
            Err(e) => {
                assert!(e.code() < 0);
                failures += 1;
            }
        }
        let r = refsc.decompress(nthreads, &mine, src.len());
        assert_eq!(r.overrun, 0, "{what}: reference overran decoding");
        if r.rc < 0 {
            failures += 1;
        } else {
            assert_eq!(r.rc, src.len() as i32, "{what}: reference decoded size");
            assert!(
                r.out == expect,
                "{what}: the reference's decoding differs (first at {:?})",
                r.out.iter().zip(expect).position(|(x, y)| x != y)
            );
        }
    }
    match failures {
        0 => Outcome::Same { memcpyed },
        4 => Outcome::UndecodableByBoth,
        _ => panic!("{what}: only {failures} of 4 decodings failed"),
    }
}

// ------------------------------------------------------------------ ndcell

fn ndcell_geometries() -> Vec<(Geo, Vec<u8>)> {
    vec![
        (
            Geo::new(&[1000], &[300], &[70]),
            vec![1, 3, 7, 16, 70, 71, 255],
        ),
        (
            Geo::new(&[50, 37], &[20, 15], &[7, 6]),
            vec![1, 2, 3, 5, 6, 7],
        ),
        (Geo::new(&[8, 300], &[8, 256], &[3, 100]), vec![4, 10, 17]),
        (
            Geo::new(&[13, 11, 9], &[8, 6, 5], &[4, 3, 5]),
            vec![1, 2, 3, 4],
        ),
        (
            Geo::new(&[7, 6, 5, 9], &[5, 4, 3, 6], &[3, 2, 3, 4]),
            vec![1, 2, 3],
        ),
        (
            Geo::new(
                &[3, 2, 3, 2, 3, 2, 2, 3],
                &[2, 2, 2, 2, 3, 2, 2, 3],
                &[2, 2, 2, 2, 2, 2, 2, 3],
            ),
            vec![1, 2, 3, 255],
        ),
    ]
}

#[test]
fn ndcell_both_ways() {
    let _g = serial();
    let mut same = 0;
    let mut refused = 0;
    for (geo, sides) in ndcell_geometries() {
        let meta = geo.meta();
        for ts in [1usize, 2, 3, 4, 8, 16] {
            let blocksize = (geo.block_items() * ts) as i32;
            for nchunk in some_chunks(&geo) {
                let src = chunk_data(&geo, nchunk, Kind::Int, ts, nchunk as u64 + ts as u64);
                for &side in &sides {
                    for (codec, f, m) in pipelines(NDCELL, side) {
                        let p = params(codec, ts as i32, blocksize, f, m);
                        let what = format!(
                            "ndcell {geo:?} chunk {nchunk} ts {ts} side {side} codec {codec} {f:?}"
                        );
                        // A cell larger than the block is refused.
                        let cell_items = (side as u128).pow(geo.ndim() as u32);
                        let fits = cell_items <= geo.block_items() as u128;
                        match cross(&p, &meta, &src, &src, &what) {
                            Outcome::Same { memcpyed } => {
                                assert!(
                                    fits || memcpyed,
                                    "{what}: accepted a cell larger than the block"
                                );
                                same += !memcpyed as usize;
                            }
                            Outcome::BothRefused => {
                                assert!(!fits, "{what}: both refused");
                                refused += 1;
                            }
                            Outcome::UndecodableByBoth => panic!("{what}: undecodable"),
                        }
                    }
                }
            }
        }
    }
    assert!(same > 600, "too few cases went through ndcell: {same}");
    assert!(refused > 200, "too few refused cases: {refused}");
}

// ------------------------------------------------------------------ ndmean

fn ndmean_geometries() -> Vec<(Geo, Vec<u8>)> {
    vec![
        (
            Geo::new(&[1000], &[300], &[70]),
            vec![1, 4, 7, 70, 100, 127],
        ),
        (
            Geo::new(&[50, 37], &[20, 15], &[7, 6]),
            vec![1, 2, 3, 5, 6, 7, 10],
        ),
        (
            Geo::new(&[13, 11, 9], &[8, 6, 5], &[4, 3, 5]),
            vec![1, 2, 3, 4, 5, 9],
        ),
        (
            Geo::new(&[7, 6, 5, 9], &[5, 4, 3, 6], &[3, 2, 3, 4]),
            vec![1, 2, 3, 4],
        ),
        (
            Geo::new(&[5, 4, 3, 3, 2], &[4, 3, 3, 2, 2], &[2, 3, 2, 2, 2]),
            vec![2, 3],
        ),
        // The first block dimension is smaller than the side while a later one
        // is larger: the reference's cells overlap (see below).
        (Geo::new(&[9, 40], &[4, 20], &[2, 10]), vec![4, 9]),
        (Geo::new(&[4, 9, 30], &[4, 9, 30], &[3, 9, 10]), vec![5]),
        (
            Geo::new(
                &[3, 2, 3, 2, 3, 2, 2, 3],
                &[2, 2, 2, 2, 3, 2, 2, 3],
                &[2, 2, 2, 2, 2, 2, 2, 3],
            ),
            vec![2, 3],
        ),
    ]
}

/// Whether the reference's ndmean places overlapping cells for this block
/// shape and side: the side is clipped in dimension 0 but a later dimension
/// has more than one cell.
fn ndmean_overlaps(geo: &Geo, side: u8) -> bool {
    let s = side as i32;
    geo.block[0] < s && geo.block[1..].iter().any(|&b| b > s)
}

#[test]
fn ndmean_both_ways() {
    let _g = serial();
    let mut same = 0;
    let mut overlapping = 0;
    for (geo, sides) in ndmean_geometries() {
        let meta = geo.meta();
        for (kind, ts) in [(Kind::F32, 4usize), (Kind::F64, 8)] {
            let blocksize = (geo.block_items() * ts) as i32;
            for nchunk in some_chunks(&geo) {
                let src = chunk_data(&geo, nchunk, kind, ts, 7 + nchunk as u64);
                for &side in &sides {
                    let expect = cell_means(&geo, side as usize, &src, ts);
                    for (codec, f, m) in pipelines(NDMEAN, side) {
                        let p = params(codec, ts as i32, blocksize, f, m);
                        let what = format!(
                            "ndmean {geo:?} chunk {nchunk} ts {ts} side {side} codec {codec} {f:?}"
                        );
                        match cross(&p, &meta, &src, &expect, &what) {
                            Outcome::Same { memcpyed } => {
                                assert!(!ndmean_overlaps(&geo, side) || memcpyed, "{what}");
                                same += !memcpyed as usize;
                            }
                            Outcome::UndecodableByBoth => {
                                assert!(ndmean_overlaps(&geo, side), "{what}: undecodable");
                                overlapping += 1;
                            }
                            Outcome::BothRefused => panic!("{what}: both refused"),
                        }
                    }
                }
            }
        }
    }
    assert!(same > 300, "too few cases went through ndmean: {same}");
    assert!(
        overlapping > 20,
        "the overlapping-cell cases were not reached"
    );
}

#[test]
fn ndmean_is_lossy_within_the_cell_range() {
    let _g = serial();
    let geo = Geo::new(&[40, 40], &[40, 40], &[20, 20]);
    let src = chunk_data(&geo, 0, Kind::F64, 8, 3);
    let mut f = [NOFILTER; 6];
    let mut m = [0u8; 6];
    f[4] = NDMEAN;
    m[4] = 4;
    f[5] = SHUFFLE;
    let p = params(codec::LZ4, 8, 20 * 20 * 8, f, m);
    let expect = cell_means(&geo, 4, &src, 8);
    assert_eq!(
        cross(&p, &geo.meta(), &src, &expect, "lossy"),
        Outcome::Same { memcpyed: false }
    );
    assert_ne!(expect, src, "ndmean changed nothing");
    // Every value stays within the range of its cell (4 x 4 cells here).
    let vals = |b: &[u8]| -> Vec<f64> {
        b.chunks_exact(8)
            .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
            .collect()
    };
    let (a, b) = (vals(&src), vals(&expect));
    for blk in 0..4 {
        for cy in 0..5 {
            for cx in 0..5 {
                let idx: Vec<usize> = (0..16)
                    .map(|k| blk * 400 + (cy * 4 + k / 4) * 20 + cx * 4 + k % 4)
                    .collect();
                let lo = idx.iter().map(|&i| a[i]).fold(f64::INFINITY, f64::min);
                let hi = idx.iter().map(|&i| a[i]).fold(f64::NEG_INFINITY, f64::max);
                for &i in &idx {
                    assert!(
                        b[i] >= lo && b[i] <= hi,
                        "item {i}: {} not in [{lo}, {hi}]",
                        b[i]
                    );
                    assert_eq!(b[i], b[idx[0]]);
                }
            }
        }
    }
}

// ------------------------------------------------------------------ bad inputs

fn nd_params(id: u8, side: u8, ts: i32, blocksize: i32) -> RefCParams {
    let mut f = [NOFILTER; 6];
    let mut m = [0u8; 6];
    f[4] = id;
    m[4] = side;
    f[5] = SHUFFLE;
    params(codec::LZ4, ts, blocksize, f, m)
}

/// Both libraries refuse to compress `src` with `meta` as "b2nd" (`None`: no
/// "b2nd" metalayer at all).
fn both_refuse(p: &RefCParams, schunk_ts: i32, meta: Option<&[u8]>, src: &[u8], what: &str) {
    set_schunk(schunk_ts, meta.unwrap_or(&[]));
    let mine = chunk::compress(&ours(p), src);
    assert!(
        mine.as_ref().is_err_and(|e| e.code() < 0),
        "{what}: we compressed"
    );
    let (theirs, overrun) = match meta {
        Some(m) => reflib()
            .schunk_with_meta(schunk_ts, "b2nd", m)
            .compress_chunk(p, src),
        None => reflib()
            .schunk_with_meta(schunk_ts, "other", b"x")
            .compress_chunk(p, src),
    };
    assert_eq!(overrun, 0, "{what}: reference overran");
    assert!(
        theirs.as_ref().is_err_and(|&rc| rc < 0),
        "{what}: the reference compressed"
    );
}

/// Both libraries refuse to decode `chunk` with a super-chunk of `ts`-byte
/// items and `meta` as "b2nd" (`None`: no such metalayer).
fn both_refuse_decoding(chunk: &[u8], len: usize, ts: i32, meta: Option<&[u8]>, what: &str) {
    set_schunk(ts, meta.unwrap_or(&[]));
    let e = chunk::decompress(&our_dparams(1), chunk).err();
    assert!(e.is_some_and(|e| e.code() < 0), "{what}: we decoded");
    let sc = match meta {
        Some(m) => reflib().schunk_with_meta(ts, "b2nd", m),
        None => reflib().schunk_with_meta(ts, "other", b"x"),
    };
    let r = sc.decompress(1, chunk, len);
    assert_eq!(r.overrun, 0, "{what}: reference overran");
    assert!(r.rc < 0, "{what}: the reference decoded ({})", r.rc);
}

#[test]
fn bad_inputs_fail_in_both() {
    let _g = serial();
    let geo = Geo::new(&[40, 30], &[20, 30], &[10, 6]);
    let good = geo.meta();
    for (id, ts) in [(NDCELL, 2i32), (NDCELL, 4), (NDMEAN, 4), (NDMEAN, 8)] {
        let kind = match (id, ts) {
            (NDMEAN, 4) => Kind::F32,
            (NDMEAN, _) => Kind::F64,
            _ => Kind::Int,
        };
        let src = chunk_data(&geo, 0, kind, ts as usize, 1);
        let bsize = 60 * ts;
        let p = nd_params(id, 2, ts, bsize);
        let w = |s: &str| format!("filter {id} ts {ts}: {s}");

        // No super-chunk at all.
        let mut cp = ours(&p);
        cp.schunk = None;
        assert!(chunk::compress(&cp, &src).is_err(), "{}", w("no schunk"));
        let (r, _) = reflib().compress_chunk(&p, &src);
        assert!(r.is_err(), "{}", w("reference without schunk"));
        // A super-chunk without "b2nd".
        both_refuse(&p, ts, None, &src, &w("no b2nd"));
        // Malformed "b2nd" metalayers.
        both_refuse(&p, ts, Some(&[]), &src, &w("empty b2nd"));
        both_refuse(&p, ts, Some(&good[..20]), &src, &w("truncated b2nd"));
        let mut nd0 = vec![0x97, 0, 0, 0x90, 0x90, 0x90];
        nd0.extend_from_slice(&good[good.len() - 9..]);
        both_refuse(&p, ts, Some(&nd0), &src, &w("ndim 0"));
        let nine = Geo::new(&[2; 9], &[2; 9], &[1, 1, 1, 1, 1, 2, 2, 3, 5]);
        both_refuse(&p, ts, Some(&nine.meta()), &src, &w("ndim 9"));
        let mut nd17 = good.clone();
        nd17[2] = 17;
        both_refuse(&p, ts, Some(&nd17), &src, &w("ndim 17"));
        // Block shapes that do not describe the blocks.
        for block in [[10, 5], [0, 6], [-10, -6], [65536, 65536], [i32::MAX, 2]] {
            let m = b2nd_meta::serialize(&[40, 30], &[20, 30], &block);
            both_refuse(&p, ts, Some(&m), &src, &w(&format!("blockshape {block:?}")));
        }
        // A leftover block (the chunk is not a whole number of blocks).
        both_refuse(
            &p,
            ts,
            Some(&good),
            &src[..src.len() - bsize as usize / 2],
            &w("leftover block"),
        );
        // Bad cell sides.
        let sides: &[u8] = if id == NDCELL {
            &[0, 8, 255]
        } else {
            &[0, 128, 255]
        };
        for &side in sides {
            let q = nd_params(id, side, ts, bsize);
            both_refuse(&q, ts, Some(&good), &src, &w(&format!("side {side}")));
        }
        // A chunk that compressed fine, decoded against the wrong super-chunk.
        set_schunk(ts, &good);
        let chunk = chunk::compress(&ours(&p), &src).unwrap();
        assert_eq!(chunk[2] & 0x02, 0, "{}", w("test chunk stored raw"));
        let len = src.len();
        both_refuse_decoding(&chunk, len, ts, None, &w("decode without b2nd"));
        let other = b2nd_meta::serialize(&[40, 30], &[20, 30], &[10, 5]);
        both_refuse_decoding(&chunk, len, ts, Some(&other), &w("decode other blockshape"));
        both_refuse_decoding(
            &chunk,
            len,
            ts / 2,
            Some(&good),
            &w("decode other typesize"),
        );
        both_refuse_decoding(&chunk, len, 200, Some(&good), &w("decode typesize 200"));
        let e = chunk::decompress(&DParams::default(), &chunk).err();
        assert!(
            e.is_some_and(|e| e.code() < 0),
            "{}",
            w("decode without schunk")
        );
        let r = reflib().decompress(1, &chunk, len);
        assert!(r.rc < 0, "{}", w("reference decode without schunk"));
        // The cell side in the chunk header (filters_meta of slot 4) patched.
        for bad in [0u8, 200] {
            let mut c = chunk.clone();
            assert_eq!(c[24 + 4], 2);
            c[24 + 4] = bad;
            both_refuse_decoding(&c, len, ts, Some(&good), &w(&format!("decode side {bad}")));
        }
        // The same block item count in another shape decodes (to other bytes)
        // the same way in both.
        let swapped = b2nd_meta::serialize(&[40, 30], &[20, 30], &[6, 10]);
        set_schunk(ts, &swapped);
        let mine = chunk::decompress(&our_dparams(1), &chunk).unwrap();
        let r = reflib()
            .schunk_with_meta(ts, "b2nd", &swapped)
            .decompress(1, &chunk, len);
        assert_eq!(r.rc, len as i32, "{}", w("reference, swapped block shape"));
        assert!(
            r.out == mine,
            "{}",
            w("swapped block shape decodes differently")
        );
    }
    // ndmean only compresses 4- and 8-byte items.
    for ts in [1i32, 2, 3, 16] {
        let src = chunk_data(&geo, 0, Kind::Int, ts as usize, 1);
        let p = nd_params(NDMEAN, 2, ts, 60 * ts);
        both_refuse(&p, ts, Some(&good), &src, &format!("ndmean ts {ts}"));
    }
}
