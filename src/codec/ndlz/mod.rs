//! NDLZ (codec id 32): a Lempel-Ziv codec for 2-D blocks of bytes, matching
//! whole 4x4 or 8x8 cells (the codec meta, 4 or 8) and rows of cells against
//! earlier ones.
//!
//! Each stream starts with `ndim` (1 byte, always 2) and the block shape (two
//! little-endian int32), then one token per cell in row-major cell order
//! (partial cells on the right and bottom edges are stored verbatim).
//!
//! The encoder takes the block shape from the "b2nd" metalayer of the
//! super-chunk in the parameters, as the reference does; without one it fails
//! (`BLOSC2_ERROR_FAILURE`, or `BLOSC2_ERROR_NULL_POINTER` without a
//! super-chunk at all).  The decoder only needs the stream.

mod cell4;
mod cell8;
pub mod xxh32;

use super::{CallInfo, CodecPlugin};
use crate::error::Error;
use crate::plugin::MetaReading;

/// `BLOSC_CODEC_NDLZ`.
pub const NDLZ: u8 = 32;

/// Longest back-reference distance.
pub(crate) const MAX_DISTANCE: u32 = 65535;

/// `BLOSC2_ERROR_NULL_POINTER`.
const ERROR_NULL_POINTER: i32 = -32;

/// Hash of a cell or row group: the top 12 bits of XXH32 with seed 1.
pub(crate) fn hash12(b: &[u8]) -> usize {
    (xxh32::xxh32(b, 1) >> 20) as usize
}

/// The 2-D block shape of the super-chunk of `info`, or the error code the
/// reference returns.
fn block_shape(info: &CallInfo) -> Result<[i32; 2], i32> {
    if !info.has_array_context() {
        return Err(ERROR_NULL_POINTER);
    }
    let s = info
        .array_shapes(MetaReading::Strict)
        .ok_or(Error::Failure.code())?;
    if s.ndim() != 2 {
        return Err(Error::Failure.code());
    }
    Ok([s.blockshape[0], s.blockshape[1]])
}

/// Compress one block of `blockshape[0] * blockshape[1]` bytes with cells of
/// `cell` (4 or 8).  Returns the stream size, 0 when it does not pay off or
/// does not fit, negative on bad parameters.
pub fn compress(cell: u8, blockshape: [i32; 2], src: &[u8], dest: &mut [u8]) -> i32 {
    let n = blockshape[0] as i64 * blockshape[1] as i64;
    if blockshape[0] < 0 || blockshape[1] < 0 || src.len() as i64 != n {
        return Error::Failure.code();
    }
    if dest.len() < 9 {
        return Error::Failure.code();
    }
    match cell {
        4 => cell4::compress(blockshape, src, dest),
        8 => cell8::compress(blockshape, src, dest),
        _ => Error::Failure.code(),
    }
}

/// Decompress one stream into `dest`; returns the bytes written (the block
/// shape's product), 0 when `dest` is too small, negative on a bad stream.
pub fn decompress(cell: u8, src: &[u8], dest: &mut [u8]) -> i32 {
    match cell {
        4 => cell4::decompress(src, dest),
        8 => cell8::decompress(src, dest),
        _ => Error::Failure.code(),
    }
}

/// Read the stream preamble: the block shape, checked against `dest` and
/// against the stream, whose tokens take at least 2 bytes per cell (`cell`
/// by `cell` bytes). `Err(code)` to return right away.
///
/// The second check keeps a stream of a few bytes that claims a block of
/// gigabytes from reaching the decoder, which would fail only after writing
/// much of the block (the fuzzers found such a VL block touching 2 GiB).
pub(crate) fn preamble(src: &[u8], dest_len: usize, cell: usize) -> Result<[i32; 2], i32> {
    if src.len() < 9 {
        return Err(0);
    }
    if src[0] != 2 {
        return Err(Error::Failure.code());
    }
    let b0 = i32::from_le_bytes([src[1], src[2], src[3], src[4]]);
    let b1 = i32::from_le_bytes([src[5], src[6], src[7], src[8]]);
    if b0 < 0 || b1 < 0 {
        return Err(Error::Failure.code());
    }
    if (dest_len as i64) < b0 as i64 * b1 as i64 {
        return Err(0);
    }
    let cells = (b0 as u64).div_ceil(cell as u64) * (b1 as u64).div_ceil(cell as u64);
    if cells.saturating_mul(2) > (src.len() - 9) as u64 {
        return Err(Error::Failure.code());
    }
    Ok([b0, b1])
}

/// The codec as registered at start.
pub struct Ndlz;

impl CodecPlugin for Ndlz {
    fn encode(&self, src: &[u8], dest: &mut [u8], info: &CallInfo, _chunk: &[u8]) -> i32 {
        if !matches!(info.meta, 4 | 8) {
            return Error::Failure.code();
        }
        match block_shape(info) {
            Ok(bs) => compress(info.meta, bs, src, dest),
            Err(code) => code,
        }
    }
    fn decode(&self, src: &[u8], dest: &mut [u8], info: &CallInfo, _chunk: &[u8]) -> i32 {
        decompress(info.meta, src, dest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(h: usize, w: usize, seed: u32) -> Vec<u8> {
        let mut x = seed | 1;
        (0..h * w)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                let (r, c) = (i / w, i % w);
                match (r / 8 + c / 8) % 4 {
                    0 => 7,
                    1 => ((r % 4) * 3 + c % 4) as u8,
                    2 => (c % 8) as u8 * 11,
                    _ => (x % 3) as u8,
                }
            })
            .collect()
    }

    #[test]
    fn round_trips() {
        for cell in [4u8, 8] {
            for (h, w) in [
                (16, 16),
                (32, 48),
                (13, 27),
                (64, 64),
                (100, 7),
                (8, 8),
                (5, 40),
            ] {
                for seed in [1u32, 99] {
                    let src = image(h, w, seed);
                    let mut dest = vec![0u8; src.len() + 64];
                    let n = compress(cell, [h as i32, w as i32], &src, &mut dest);
                    assert!(n >= 0, "{cell} {h}x{w}: {n}");
                    if n == 0 {
                        continue;
                    }
                    let mut out = vec![0u8; src.len()];
                    let m = decompress(cell, &dest[..n as usize], &mut out);
                    assert_eq!(m as usize, src.len(), "{cell} {h}x{w}");
                    assert_eq!(out, src, "{cell} {h}x{w}");
                }
            }
        }
    }

    #[test]
    fn compresses_repetitive_blocks() {
        let src: Vec<u8> = (0..64 * 64)
            .map(|i| ((i % 64) / 8 + (i / 64) / 8) as u8)
            .collect();
        for cell in [4u8, 8] {
            let mut dest = vec![0u8; src.len()];
            let n = compress(cell, [64, 64], &src, &mut dest);
            assert!(n > 0 && (n as usize) < src.len() / 4, "cell {cell}: {n}");
        }
    }

    #[test]
    fn garbage_never_panics() {
        let mut x = 12345u32;
        for len in 0..300usize {
            let mut src: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    x as u8
                })
                .collect();
            if len >= 9 {
                src[0] = 2;
                src[1..5].copy_from_slice(&((x % 20) as i32).to_le_bytes());
                src[5..9].copy_from_slice(&((x % 17) as i32).to_le_bytes());
            }
            for cell in [4u8, 8] {
                let mut out = vec![0u8; 400];
                let _ = decompress(cell, &src, &mut out);
            }
        }
    }

    #[test]
    fn short_streams_for_large_blocks_fail_before_writing() {
        // A 1024 x 1024 block needs 65,536 cells of 4 x 4 (16,384 of 8 x 8),
        // each at least 2 bytes of stream; 100 bytes of `same` tokens cannot
        // hold it, and the decoder must say so without touching `dest`.
        let mut src = vec![2u8];
        src.extend_from_slice(&1024i32.to_le_bytes());
        src.extend_from_slice(&1024i32.to_le_bytes());
        for _ in 0..50 {
            src.extend_from_slice(&[64, 7]);
        }
        for cell in [4u8, 8] {
            let mut out = vec![0xAAu8; 1024 * 1024];
            assert!(decompress(cell, &src, &mut out) < 0, "cell {cell}");
            assert!(out.iter().all(|&b| b == 0xAA), "cell {cell}");
        }
        // The same tokens for a block they do cover decode to it.
        for (cell, side) in [(4u8, 20i32), (8, 40)] {
            src[1..5].copy_from_slice(&side.to_le_bytes());
            src[5..9].copy_from_slice(&side.to_le_bytes());
            let mut out = vec![0u8; (side * side) as usize];
            assert_eq!(decompress(cell, &src[..9 + 50], &mut out), side * side);
            assert!(out.iter().all(|&b| b == 7), "cell {cell}");
        }
    }
}
