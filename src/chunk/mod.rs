//! One chunk: compress, decompress and getitem with typed parameters.
//!
//! ```
//! use blosc2::chunk::{compress, decompress, CParams, DParams};
//! let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
//! let params = CParams { typesize: 4, ..CParams::default() };
//! let chunk = compress(&params, &data).unwrap();
//! assert!(chunk.len() < data.len());
//! let back = decompress(&DParams::default(), &chunk).unwrap();
//! assert_eq!(back, data);
//! ```

#![forbid(unsafe_code)]

pub mod blocksize;
pub(crate) mod compress;
pub(crate) mod decompress;
pub mod delta_placement;
pub mod env;
mod getitem;
pub mod global;
mod parallel;
pub mod params;
mod parsed;
pub mod pipeline;
mod share_estimate;
pub mod special;
mod split_decode;
mod split_encode;
pub mod tuner;
pub mod user_filter;
pub mod vlblocks;

pub use params::{
    CParams, DParams, Postfilter, PostfilterArgs, Prefilter, PrefilterArgs, SplitMode,
};

use crate::error::{Error, Result};
use crate::format::header::{ChunkHeader, EXTENDED_HEADER_LENGTH, MIN_HEADER_LENGTH};

/// Compress into a caller-provided buffer; returns the chunk size or 0 when the
/// result does not fit in `dest`.
pub fn compress_into(params: &CParams, src: &[u8], dest: &mut [u8]) -> Result<usize> {
    compress::compress(params, src, dest, false)
}

/// Like [`compress_into`], writing the 16-byte header of Blosc1-era chunks.
pub fn compress_into_blosc1(params: &CParams, src: &[u8], dest: &mut [u8]) -> Result<usize> {
    compress::compress(params, src, dest, true)
}

/// Compress `src` into a new chunk (never fails for lack of room).  The
/// chunk is as long as its bytes: it is written into a buffer of the worst
/// case's size kept by the thread (chunks up to [`SCRATCH_MAX`] bytes), then
/// copied out, so neither a fresh worst-case buffer is faulted in for each
/// chunk nor its room kept by the chunk.
pub fn compress(params: &CParams, src: &[u8]) -> Result<Vec<u8>> {
    let need = src.len() + EXTENDED_HEADER_LENGTH;
    let into = |dest: &mut [u8]| match compress_into(params, src, dest)? {
        0 => Err(Error::WriteBuffer),
        n => Ok(n),
    };
    if need <= SCRATCH_MAX {
        // A compression run from inside a user codec or filter finds the
        // scratch taken and uses a buffer of its own.
        let done = COMPRESS_SCRATCH.with(|s| {
            let mut s = s.try_borrow_mut().ok()?;
            if s.len() < need {
                s.resize(need, 0);
            }
            Some(into(&mut s[..need]).map(|n| s[..n].to_vec()))
        });
        if let Some(chunk) = done {
            return chunk;
        }
    }
    let mut dest = vec![0u8; need];
    let n = into(&mut dest)?;
    dest.truncate(n);
    dest.shrink_to_fit();
    Ok(dest)
}

/// The largest chunk [`compress`] writes into its per-thread buffer.
pub const SCRATCH_MAX: usize = 8 << 20;

thread_local! {
    static COMPRESS_SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Decompress into a caller-provided buffer; returns the number of bytes written.
pub fn decompress_into(dparams: &DParams, src: &[u8], dest: &mut [u8]) -> Result<usize> {
    decompress::decompress(dparams, src, dest, None)
}

/// Decompress, skipping the blocks whose `maskout` entry is true when a
/// mask is given.
pub fn decompress_with_mask(
    dparams: &DParams,
    src: &[u8],
    dest: &mut [u8],
    maskout: Option<&[bool]>,
) -> Result<usize> {
    decompress::decompress(dparams, src, dest, maskout)
}

/// Decompress, skipping the blocks whose `maskout` entry is true.
pub fn decompress_masked(
    dparams: &DParams,
    src: &[u8],
    dest: &mut [u8],
    maskout: &[bool],
) -> Result<usize> {
    decompress::decompress(dparams, src, dest, Some(maskout))
}

/// Decompress into a new buffer.
pub fn decompress(dparams: &DParams, src: &[u8]) -> Result<Vec<u8>> {
    let (nbytes, _, _) = sizes(src)?;
    // The size the header claims (at most 2 GiB), asked for fallibly and
    // only once the chunk's structure holds together (docs/limits.md).
    if header(src)?.vlblocks() {
        vlblocks::VlChunk::parse(src)?;
    } else {
        parsed::parse(src)?;
    }
    let mut dest = crate::alloc::zeroed(nbytes)?;
    let n = decompress_into(dparams, src, &mut dest)?;
    dest.truncate(n);
    Ok(dest)
}

/// Decode `nitems` items starting at item `start` into `dest`.
pub fn getitem(
    dparams: &DParams,
    src: &[u8],
    start: i64,
    nitems: i64,
    dest: &mut [u8],
) -> Result<usize> {
    let p = getitem::parse_for_range(src)?;
    getitem::getitem_bytes_parsed(dparams, &p, start, nitems, p.typesize as i64, dest)
}

/// Decode `nbytes` bytes starting at byte `start`.
pub fn getitem_bytes(
    dparams: &DParams,
    src: &[u8],
    start: i64,
    nbytes: i64,
    dest: &mut [u8],
) -> Result<usize> {
    let p = getitem::parse_for_range(src)?;
    getitem::getitem_bytes_parsed(dparams, &p, start, nbytes, 1, dest)
}

/// As [`getitem_bytes`], for a caller that must ask for whole items: a
/// `start` or `nbytes` that is not a multiple of the chunk's typesize is
/// `InvalidParam` (a header that cannot be read counts as typesize 1, and
/// fails in [`getitem_bytes`]).
pub fn getitem_whole_items(
    dparams: &DParams,
    src: &[u8],
    start: i64,
    nbytes: i64,
    dest: &mut [u8],
) -> Result<usize> {
    let typesize = ChunkHeader::parse_min(src).map_or(1, |h| h.typesize.max(1) as i64);
    if start % typesize != 0 || nbytes % typesize != 0 {
        return Err(Error::InvalidParam);
    }
    getitem_bytes(dparams, src, start, nbytes, dest)
}

/// `(nbytes, cbytes, blocksize)` from the first 16 bytes of a chunk.
pub fn sizes(src: &[u8]) -> Result<(usize, usize, usize)> {
    let h = ChunkHeader::parse_min(src)?;
    Ok((h.nbytes as usize, h.cbytes as usize, h.blocksize as usize))
}

/// `(nbytes, cbytes, blocksize)` as `blosc2_cbuffer_sizes` reports them
/// from the first 16 bytes of a chunk: a block size larger than a non-zero
/// `nbytes` is reported as `nbytes` (the one block holds all the data).
pub fn reported_sizes(head: &[u8]) -> Result<(i32, i32, i32)> {
    let h = ChunkHeader::parse_min(head)?;
    let blocksize = if h.nbytes > 0 && h.blocksize > h.nbytes {
        h.nbytes
    } else {
        h.blocksize
    };
    Ok((h.nbytes, h.cbytes, blocksize))
}

/// The uncompressed size of a chunk said to be `cbytes` bytes long whose
/// header starts with `head` (at least 16 bytes unless `cbytes` is
/// shorter), checked as `blosc1_cbuffer_validate` does: fewer than 16
/// bytes is `WriteBuffer`, a header whose cbytes differs is
/// `InvalidHeader`, an nbytes past `BLOSC2_MAX_BUFFERSIZE` is
/// `MemoryAlloc`.
pub fn validated_nbytes(head: &[u8], cbytes: usize) -> Result<usize> {
    if cbytes < MIN_HEADER_LENGTH {
        return Err(Error::WriteBuffer);
    }
    let h = ChunkHeader::parse_min(head)?;
    if h.cbytes as usize != cbytes {
        return Err(Error::InvalidHeader);
    }
    if h.nbytes > crate::format::header::MAX_BUFFERSIZE {
        return Err(Error::MemoryAlloc);
    }
    Ok(h.nbytes as usize)
}

/// Parse a chunk header (16 or 32 bytes).
pub fn header(src: &[u8]) -> Result<ChunkHeader> {
    if src.len() < MIN_HEADER_LENGTH {
        return Err(Error::ReadBuffer);
    }
    ChunkHeader::parse(src)
}

/// Whole-chunk decompressions that write at least [`stream_min_bytes`]
/// unshuffle (and copy stored data) into the destination with non-temporal
/// stores, whatever the number of threads sharing the work.  Ordinary
/// stores first read every destination line from memory (the "read for
/// ownership"); streaming stores skip that, which pays when the output does
/// not fit in the cache anyway and costs when it would have stayed there.
///
/// The threshold is 3/8 of the last-level cache as Linux reports it in
/// sysfs (this constant, right for an 8 MiB cache, where that cannot be
/// read).  Below it the output can stay in the cache, where ordinary stores
/// win (a plain copy into a cache-resident destination); above it streaming
/// wins clearly, with one thread or several (see docs/performance.md).
/// glibc's memcpy starts streaming only from 3/4 of the cache size CPUID
/// reports, which virtual machines may report far larger than the real
/// cache, so it is not relied on here.
const STREAM_MIN_FALLBACK: usize = 3 << 20;

/// The output size from which decompression streams its stores (see
/// [`STREAM_MIN_FALLBACK`]); read once.
pub(crate) fn stream_min_bytes() -> usize {
    #[cfg(test)]
    if let Some(v) = tests::STREAM_MIN_OVERRIDE.with(|c| c.get()) {
        return v;
    }
    static MIN: once_cell::sync::Lazy<usize> = once_cell::sync::Lazy::new(|| {
        last_level_cache_bytes().map_or(STREAM_MIN_FALLBACK, |c| c / 8 * 3)
    });
    *MIN
}

/// Size of the last (highest-level) data or unified cache of CPU 0, from
/// Linux's sysfs; `None` elsewhere or when it cannot be read.
fn last_level_cache_bytes() -> Option<usize> {
    let mut best: Option<(u32, usize)> = None;
    for i in 0..8 {
        let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{i}");
        let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).ok();
        let (Some(level), Some(kind), Some(size)) = (read("level"), read("type"), read("size"))
        else {
            continue;
        };
        let (Ok(level), Some(size)) = (level.trim().parse::<u32>(), parse_cache_size(&size)) else {
            continue;
        };
        if kind.trim() != "Instruction" && best.is_none_or(|(l, _)| level > l) {
            best = Some((level, size));
        }
    }
    best.map(|(_, size)| size).filter(|&s| s >= 64 << 10)
}

/// "32768K", "8M", "1024" (bytes) as sysfs writes cache sizes.
fn parse_cache_size(text: &str) -> Option<usize> {
    let t = text.trim();
    let (digits, unit) = match t.as_bytes().last()? {
        b'K' | b'k' => (&t[..t.len() - 1], 1usize << 10),
        b'M' | b'm' => (&t[..t.len() - 1], 1 << 20),
        b'G' | b'g' => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    digits.parse::<usize>().ok()?.checked_mul(unit)
}

/// Largest single `memcpy` of [`copy_bytes`]: glibc copies up to its
/// `rep_movsb_stop_threshold` (often 1 MiB) with `rep movsb`, and larger
/// sizes with a vector loop that can be slower for cache-resident data.
const COPY_PIECE: usize = 256 << 10;

/// The pieces [`copy_bytes`] copies in on AMD CPUs when the destination
/// lies 1 to 31 bytes past the source modulo 64: below glibc's `rep movsb`
/// threshold (4 KiB with AVX2), so its vector loop copies them. On the Zen 3
/// VM `rep movsb` copies at 2-3 GB/s with that skew (18-30 GB/s with any
/// other), where pieces of 2 KiB copy at 26-37 GB/s whatever the skew
/// (docs/performance.md, session 26). A chunk stored as a plain copy hits
/// it whenever the caller's buffers are so placed: its data starts 32
/// bytes into the chunk.
const COPY_PIECE_SKEWED: usize = 2 << 10;

/// `to.copy_from_slice(from)` in pieces of [`COPY_PIECE`], or of
/// [`COPY_PIECE_SKEWED`] where that skew makes glibc's `rep movsb` slow.
/// For the bytes a chunk holds as they are (plain-copy chunks, streams
/// stored raw), whose place relative to the caller's buffer is anywhere.
#[inline]
pub(crate) fn copy_bytes(from: &[u8], to: &mut [u8]) {
    if from.len() <= COPY_PIECE_SKEWED {
        to.copy_from_slice(from);
        return;
    }
    let skew = (to.as_ptr() as usize).wrapping_sub(from.as_ptr() as usize) % 64;
    let piece = if (1..32).contains(&skew) && crate::cpu::vendor() == crate::cpu::Vendor::Amd {
        COPY_PIECE_SKEWED
    } else {
        COPY_PIECE
    };
    for (t, f) in to.chunks_mut(piece).zip(from.chunks(piece)) {
        t.copy_from_slice(f);
    }
}

/// Below this many bytes a plain copy is done by the calling thread alone.
const PARALLEL_COPY_MIN: usize = 512 << 10;

/// `dest.copy_from_slice(src)`, split over `nthreads` threads when it is
/// large enough (plain-copy chunks, both ways, as the reference does: one
/// core alone does not reach the memory bandwidth); `streaming` copies with
/// non-temporal stores (see [`crate::filter::copy_streaming`]).
pub(crate) fn copy_in_parallel(nthreads: usize, src: &[u8], dest: &mut [u8], streaming: bool) {
    let copy = |from: &[u8], to: &mut [u8]| {
        if streaming {
            crate::filter::copy_streaming(from, to);
        } else {
            copy_bytes(from, to);
        }
    };
    if nthreads <= 1 || src.len() < PARALLEL_COPY_MIN {
        copy(src, dest);
        return;
    }
    let piece = src.len().div_ceil(nthreads);
    let pieces: Vec<_> = dest
        .chunks_mut(piece)
        .zip(src.chunks(piece))
        .map(std::sync::Mutex::new)
        .collect();
    crate::pool::run(nthreads, pieces.len(), &|i, _| {
        let mut p = pieces[i].lock().unwrap_or_else(|e| e.into_inner());
        let (to, from) = &mut *p;
        copy(from, to);
    });
}

#[cfg(test)]
mod tests;
