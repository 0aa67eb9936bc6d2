//! The ZFP codecs c-blosc2 registers at start, on the zfp C library that the
//! `zfp-sys-cc` crate builds (zfp 1.0.0; the reference bundles 1.0.1, whose
//! streams are the same); lossy compression of float/double N-dimensional
//! blocks.  Only built with the `zfp` feature (without it the three ids are
//! placeholders, see [`super::ZFP_CODECS`]):
//!
//! | id | name       | `compcode_meta` (`m`)                                       |
//! |----|------------|-------------------------------------------------------------|
//! | 33 | `zfp_acc`  | signed exponent: absolute error tolerance `10^(m as i8)`    |
//! | 34 | `zfp_prec` | bit planes kept: `m + 3 + 2 * ndim`, at most 64             |
//! | 35 | `zfp_rate` | size in percent: `m / 100 * 8 * typesize` bits a value      |
//!
//! Each block is one zfp stream (no zfp header) of the whole block, whose
//! shape (1 to 4 dimensions, C order) comes from the "b2nd" metalayer of the
//! super-chunk, as in the reference.  The encoder stores a block as is
//! (returns 0) when there is no super-chunk, when the input is not exactly one
//! block (split streams, the leftover block) or when zfp does not make it
//! smaller; it fails (`BLOSC2_ERROR_FAILURE`) without a usable metalayer, with
//! block dimensions under 4 or a typesize other than 4 or 8.  The decoder
//! fails without a usable metalayer, when the block shape does not fit the
//! output or when the stream ends before its last block.

mod ffi;

use super::{CallInfo, CodecPlugin};
use crate::error::Error;
use crate::plugin::MetaReading;
pub use ffi::{DecodeError, Mode, Scalar};

pub use super::{ZFP_FIXED_ACCURACY, ZFP_FIXED_PRECISION, ZFP_FIXED_RATE};

/// zfp works on up to 4 dimensions.
pub const MAX_DIM: usize = 4;
/// `ZFP_MAX_PREC`.
const MAX_PREC: u32 = 64;

/// Which of the three codecs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Fixed accuracy (id 33).
    Accuracy,
    /// Fixed precision (id 34).
    Precision,
    /// Fixed rate (id 35).
    Rate,
}

impl Kind {
    /// The codec id.
    pub fn compcode(self) -> u8 {
        match self {
            Kind::Accuracy => ZFP_FIXED_ACCURACY,
            Kind::Precision => ZFP_FIXED_PRECISION,
            Kind::Rate => ZFP_FIXED_RATE,
        }
    }
    /// The registered name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Accuracy => "zfp_acc",
            Kind::Precision => "zfp_prec",
            Kind::Rate => "zfp_rate",
        }
    }
    /// The zfp parameters that `meta` stands for, for blocks of `ndim`
    /// dimensions of `typesize`-byte values.
    pub fn mode(self, meta: u8, ndim: usize, typesize: usize) -> Mode {
        match self {
            // The meta byte is a signed power of ten.
            Kind::Accuracy => Mode::Accuracy(10f64.powf(meta as i8 as f64)),
            Kind::Precision => Mode::Precision((meta as u32 + 3 + 2 * ndim as u32).min(MAX_PREC)),
            Kind::Rate => Mode::Rate(meta as f64 / 100.0 * typesize as f64 * 8.0),
        }
    }
}

/// The block shape of the "b2nd" metalayer of the super-chunk of `info`.
fn meta_blockshape(info: &CallInfo) -> Result<Vec<i32>, i32> {
    let shapes = info
        .array_shapes(MetaReading::Strict)
        .ok_or(Error::Failure.code())?;
    Ok(shapes.blockshape)
}

/// Compress one block of shape `blockshape` (C order) of `typesize`-byte
/// values into `dest`.  Returns the stream size; 0 to store the block as is
/// (`src` is not exactly one block, zfp does not shrink it or the stream
/// does not fit `dest`); `BLOSC2_ERROR_FAILURE` for a shape or typesize zfp
/// cannot take.
pub fn compress_block(
    kind: Kind,
    meta: u8,
    blockshape: &[i32],
    typesize: i32,
    src: &[u8],
    dest: &mut [u8],
) -> i32 {
    let failure = Error::Failure.code();
    let ndim = blockshape.len();
    if ndim == 0 || ndim > MAX_DIM || blockshape.iter().any(|&d| d < 4) {
        return failure;
    }
    let mut block_nbytes = typesize as i64;
    for &d in blockshape {
        block_nbytes = block_nbytes.saturating_mul(d as i64);
    }
    if src.len() as i64 != block_nbytes {
        return 0;
    }
    let Some(scalar) = Scalar::of_typesize(typesize) else {
        return failure;
    };
    let dims: Vec<usize> = blockshape.iter().map(|&d| d as usize).collect();
    let mode = kind.mode(meta, ndim, scalar.size());
    let Some(stream) = ffi::compress(mode, scalar, &dims, src) else {
        return 0;
    };
    if stream.len() >= src.len() || stream.len() > dest.len() {
        return 0;
    }
    dest[..stream.len()].copy_from_slice(&stream);
    stream.len() as i32
}

/// Decompress one zfp stream into `dest`, the block being of shape
/// `blockshape` (C order) of `typesize`-byte values.  Returns `dest.len()`
/// (bytes past the block, if any, are zeroed); `BLOSC2_ERROR_FAILURE` when
/// the shape or typesize is unusable or does not fit `dest`, or when the
/// stream is cut short; `BLOSC2_ERROR_MEMORY_ALLOC` when the working
/// buffers (about the block's size) cannot be had; 0 when zfp decodes
/// nothing.
pub fn decompress_block(
    kind: Kind,
    meta: u8,
    blockshape: &[i32],
    typesize: i32,
    src: &[u8],
    dest: &mut [u8],
) -> i32 {
    let failure = Error::Failure.code();
    let ndim = blockshape.len();
    if ndim == 0 || ndim > MAX_DIM || typesize <= 0 {
        return failure;
    }
    let mut nbytes = typesize as u64;
    for &d in blockshape {
        if d <= 0 {
            return failure;
        }
        nbytes = nbytes.saturating_mul(d as u64);
    }
    if nbytes > dest.len() as u64 || dest.len() > i32::MAX as usize {
        return failure;
    }
    let Some(scalar) = Scalar::of_typesize(typesize) else {
        return failure;
    };
    let dims: Vec<usize> = blockshape.iter().map(|&d| d as usize).collect();
    let mode = kind.mode(meta, ndim, scalar.size());
    let (block, tail) = dest.split_at_mut(nbytes as usize);
    match ffi::decompress(mode, scalar, &dims, src, block) {
        Ok(_) => {
            tail.fill(0);
            dest.len() as i32
        }
        Err(DecodeError::Zfp) => 0,
        Err(DecodeError::Truncated) => failure,
        Err(DecodeError::Memory) => Error::MemoryAlloc.code(),
    }
}

/// One of the three ZFP codecs as registered at start.
pub struct Zfp(pub Kind);

impl CodecPlugin for Zfp {
    fn encode(&self, src: &[u8], dest: &mut [u8], info: &CallInfo, _chunk: &[u8]) -> i32 {
        if !info.has_array_context() {
            // As the reference: nothing to take the shape from, store as is.
            return 0;
        }
        match meta_blockshape(info) {
            Ok(bs) => compress_block(self.0, info.meta, &bs, info.typesize, src, dest),
            Err(code) => code,
        }
    }
    fn decode(&self, src: &[u8], dest: &mut [u8], info: &CallInfo, _chunk: &[u8]) -> i32 {
        if !info.has_array_context() {
            return 0;
        }
        // The reference decodes with the typesize of the super-chunk.
        let typesize = info.schunk_typesize().unwrap_or(info.typesize);
        match meta_blockshape(info) {
            Ok(bs) => decompress_block(self.0, info.meta, &bs, typesize, src, dest),
            Err(code) => code,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KINDS: [Kind; 3] = [Kind::Accuracy, Kind::Precision, Kind::Rate];

    /// A smooth field with some noise, as f64 values.
    fn field(n: usize, seed: u64) -> Vec<f64> {
        let mut x = seed | 1;
        (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let t = i as f64 * 0.01;
                (t.sin() * 100.0) + t.cos() * 3.0 + (x % 1000) as f64 * 1e-4
            })
            .collect()
    }

    fn to_bytes(v: &[f64], ts: i32) -> Vec<u8> {
        if ts == 4 {
            v.iter().flat_map(|&x| (x as f32).to_ne_bytes()).collect()
        } else {
            v.iter().flat_map(|&x| x.to_ne_bytes()).collect()
        }
    }

    fn from_bytes(b: &[u8], ts: i32) -> Vec<f64> {
        if ts == 4 {
            b.chunks_exact(4)
                .map(|c| f32::from_ne_bytes(c.try_into().unwrap()) as f64)
                .collect()
        } else {
            b.chunks_exact(8)
                .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
                .collect()
        }
    }

    fn round_trip(
        kind: Kind,
        meta: u8,
        shape: &[i32],
        ts: i32,
    ) -> Option<(Vec<f64>, Vec<f64>, usize)> {
        let n: usize = shape.iter().map(|&d| d as usize).product();
        let orig = field(n, 7 + n as u64);
        let src = to_bytes(&orig, ts);
        let mut dest = vec![0u8; src.len()];
        let c = compress_block(kind, meta, shape, ts, &src, &mut dest);
        assert!(c >= 0, "{kind:?} {meta} {shape:?} {ts}: {c}");
        if c == 0 {
            return None;
        }
        let mut out = vec![0u8; src.len()];
        let d = decompress_block(kind, meta, shape, ts, &dest[..c as usize], &mut out);
        assert_eq!(d as usize, src.len(), "{kind:?} {meta} {shape:?} {ts}");
        let back = from_bytes(&out, ts);
        let orig = from_bytes(&src, ts);
        Some((orig, back, c as usize))
    }

    const SHAPES: [&[i32]; 6] = [&[100], &[4], &[12, 9], &[7, 5, 6], &[4, 5, 4, 6], &[16, 16]];

    #[test]
    fn accuracy_bounds_the_error() {
        for ts in [4, 8] {
            for shape in SHAPES {
                for e in [-3i8, -1, 0, 1] {
                    let Some((a, b, _)) = round_trip(Kind::Accuracy, e as u8, shape, ts) else {
                        continue;
                    };
                    let tol = 10f64.powi(e as i32);
                    for (x, y) in a.iter().zip(&b) {
                        assert!((x - y).abs() <= tol, "{shape:?} ts {ts} e {e}: {x} vs {y}");
                    }
                }
            }
        }
    }

    #[test]
    fn precision_keeps_leading_bits() {
        for ts in [4, 8] {
            for shape in SHAPES {
                for meta in [4u8, 12, 20] {
                    let Some((a, b, _)) = round_trip(Kind::Precision, meta, shape, ts) else {
                        continue;
                    };
                    let prec = meta as i32 + 3 + 2 * shape.len() as i32;
                    let amax = a.iter().fold(0f64, |m, x| m.max(x.abs()));
                    // zfp's error bound in fixed-precision mode is relative to the
                    // largest magnitude of a block; the whole field's is an upper bound.
                    let bound = amax * 2f64.powi(2 - prec + 2 * shape.len() as i32);
                    for (x, y) in a.iter().zip(&b) {
                        assert!(
                            (x - y).abs() <= bound,
                            "{shape:?} ts {ts} meta {meta}: {x} vs {y}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn rate_gives_the_expected_size() {
        for ts in [4usize, 8] {
            for shape in SHAPES {
                for meta in [10u8, 25, 50] {
                    let Some((_, _, csize)) = round_trip(Kind::Rate, meta, shape, ts as i32) else {
                        continue;
                    };
                    let ndim = shape.len() as u32;
                    let cell = 1u64 << (2 * ndim);
                    let rate = meta as f64 / 100.0 * ts as f64 * 8.0;
                    let min = if ts == 4 { 9 } else { 12 };
                    let bits = ((cell as f64 * rate + 0.5).floor() as u64).max(min);
                    let blocks: u64 = shape.iter().map(|&d| (d as u64).div_ceil(4)).product();
                    let expected = (blocks * bits).div_ceil(64) * 8;
                    assert_eq!(csize as u64, expected, "{shape:?} ts {ts} meta {meta}");
                }
            }
        }
    }

    #[test]
    fn stores_as_is_when_it_is_not_one_block() {
        let src = to_bytes(&field(64, 1), 8);
        let mut dest = vec![0u8; 1024];
        for kind in KINDS {
            assert_eq!(
                compress_block(kind, 10, &[16, 4], 8, &src[..8 * 60], &mut dest),
                0
            );
            assert_eq!(
                compress_block(kind, 10, &[16, 3], 8, &src, &mut dest),
                Error::Failure.code()
            );
            assert_eq!(
                compress_block(kind, 10, &[4; 5], 8, &src, &mut dest),
                Error::Failure.code()
            );
            assert_eq!(
                compress_block(kind, 10, &[], 8, &src, &mut dest),
                Error::Failure.code()
            );
            assert_eq!(
                compress_block(kind, 10, &[16, 4], 2, &src[..128], &mut dest),
                Error::Failure.code()
            );
            // Too small an output: stored as is.
            assert_eq!(compress_block(kind, 10, &[64], 8, &src, &mut dest[..4]), 0);
        }
        // A ratio of 100% or more never pays off.
        assert_eq!(
            compress_block(Kind::Rate, 100, &[64], 8, &src, &mut dest),
            0
        );
        assert_eq!(
            compress_block(Kind::Rate, 255, &[64], 8, &src, &mut dest),
            0
        );
    }

    #[test]
    fn unaligned_buffers() {
        let orig = to_bytes(&field(256, 3), 8);
        for kind in KINDS {
            let mut src = vec![0u8; orig.len() + 1];
            src[1..].copy_from_slice(&orig);
            let mut dest = vec![0u8; orig.len() + 1];
            let c = compress_block(kind, 20, &[16, 16], 8, &src[1..], &mut dest[1..]);
            let mut dest2 = vec![0u8; orig.len()];
            let c2 = compress_block(kind, 20, &[16, 16], 8, &orig, &mut dest2);
            assert!(c > 0);
            assert_eq!(c, c2);
            assert_eq!(dest[1..1 + c as usize], dest2[..c as usize]);
            let mut out = vec![0u8; orig.len() + 1];
            let d = decompress_block(kind, 20, &[16, 16], 8, &dest2[..c as usize], &mut out[1..]);
            let mut out2 = vec![0u8; orig.len()];
            let d2 = decompress_block(kind, 20, &[16, 16], 8, &dest2[..c as usize], &mut out2);
            assert_eq!((d, d2), (orig.len() as i32, orig.len() as i32));
            assert_eq!(out[1..], out2[..]);
        }
    }

    #[test]
    fn a_few_bytes_for_a_large_field_fail_before_decoding() {
        // 256 x 256 x 256 floats are 262,144 zfp blocks: 8 bytes of stream
        // (64 bits, at least one per block) cannot hold them, whatever the
        // mode; the output is left as it was.
        let shape = [256, 256, 256];
        let mut out = vec![0xAAu8; 256 * 256 * 256 * 4];
        for (kind, meta) in [
            (Kind::Accuracy, 0xfe),
            (Kind::Precision, 2),
            (Kind::Rate, 30),
        ] {
            let r = decompress_block(kind, meta, &shape, 4, &[0u8; 8], &mut out);
            assert_eq!(r, Error::Failure.code(), "{kind:?}");
        }
        assert!(out.iter().all(|&b| b == 0xAA));
    }

    #[test]
    fn bad_streams_and_shapes_fail_cleanly() {
        let src = to_bytes(&field(4 * 8 * 8 * 5, 5), 4);
        let shape = [4, 8, 8, 5];
        for (kind, meta) in [
            (Kind::Accuracy, 0xfe),
            (Kind::Precision, 2),
            (Kind::Rate, 30),
        ] {
            let mut c = vec![0u8; src.len()];
            let n = compress_block(kind, meta, &shape, 4, &src, &mut c) as usize;
            assert!(n > 0, "{kind:?}");
            let c = &c[..n];
            let mut out = vec![0u8; src.len()];
            // Truncated streams (at word granularity zfp reads whole words).
            for cut in (0..n).step_by(8) {
                let r = decompress_block(kind, meta, &shape, 4, &c[..cut], &mut out);
                assert!(r < 0 || cut >= n - 8, "{kind:?} cut {cut}: {r}");
            }
            // Garbage of every length never crashes.
            let mut x = 0x9e3779b97f4a7c15u64;
            for len in [0usize, 1, 7, 8, 9, 100, n, 3 * n] {
                let g: Vec<u8> = (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        x as u8
                    })
                    .collect();
                let r = decompress_block(kind, meta, &shape, 4, &g, &mut out);
                assert!(r < 0 || r == out.len() as i32, "{kind:?} len {len}: {r}");
                let r = decompress_block(kind, 200, &shape, 8, &g, &mut out);
                assert!(r < 0 || r == out.len() as i32, "{kind:?} len {len}: {r}");
            }
            // Shapes that do not fit the output, or are not shapes.
            let f = Error::Failure.code();
            assert_eq!(
                decompress_block(kind, meta, &[4, 8, 8, 6], 4, c, &mut out),
                f
            );
            assert_eq!(
                decompress_block(kind, meta, &[i32::MAX; 4], 4, c, &mut out),
                f
            );
            assert_eq!(
                decompress_block(kind, meta, &[4, 0, 6, 7], 4, c, &mut out),
                f
            );
            assert_eq!(
                decompress_block(kind, meta, &[4, -5, 6, 7], 4, c, &mut out),
                f
            );
            assert_eq!(decompress_block(kind, meta, &[1; 5], 4, c, &mut out), f);
            assert_eq!(decompress_block(kind, meta, &shape, 2, c, &mut out), f);
            assert_eq!(decompress_block(kind, meta, &shape, 0, c, &mut out), f);
            // A smaller block than the output: the rest is zeroed.
            let mut big = vec![0xffu8; src.len() + 16];
            let r = decompress_block(kind, meta, &shape, 4, c, &mut big);
            assert_eq!(r, big.len() as i32);
            assert!(big[src.len()..].iter().all(|&b| b == 0));
        }
    }

    #[test]
    fn streams_that_read_the_most_stay_in_bounds() {
        // All-ones streams make every block non-zero with every group test
        // positive: the decoder reads as much as it ever can.
        for kind in KINDS {
            for ts in [4, 8] {
                for shape in SHAPES {
                    let n: usize = shape.iter().map(|&d| d as usize).product();
                    let mut out = vec![0u8; n * ts as usize];
                    for meta in [0u8, 0x80, 0x7f, 255] {
                        for len in [0usize, 8, 64, n * ts as usize] {
                            for fill in [0xffu8, 0xaa] {
                                let s = vec![fill; len];
                                let r = decompress_block(kind, meta, shape, ts, &s, &mut out);
                                assert!(r < 0 || r == out.len() as i32, "{kind:?} {shape:?}: {r}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn modes_follow_the_meta_byte() {
        assert_eq!(Kind::Accuracy.mode(0xfd, 2, 4), Mode::Accuracy(1e-3));
        assert_eq!(Kind::Accuracy.mode(2, 2, 4), Mode::Accuracy(100.0));
        assert_eq!(Kind::Precision.mode(10, 1, 4), Mode::Precision(15));
        assert_eq!(Kind::Precision.mode(10, 4, 4), Mode::Precision(21));
        assert_eq!(Kind::Precision.mode(250, 3, 8), Mode::Precision(64));
        assert_eq!(Kind::Rate.mode(50, 3, 8), Mode::Rate(32.0));
        assert_eq!(Kind::Rate.mode(25, 1, 4), Mode::Rate(8.0));
    }
}
