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

pub mod blocksize;
pub(crate) mod compress;
mod decompress;
pub mod params;
pub mod pipeline;
pub mod special;
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

/// Compress `src` into a new chunk (never fails for lack of room).
pub fn compress(params: &CParams, src: &[u8]) -> Result<Vec<u8>> {
    let mut dest = vec![0u8; src.len() + EXTENDED_HEADER_LENGTH];
    let n = compress_into(params, src, &mut dest)?;
    if n == 0 {
        return Err(Error::WriteBuffer);
    }
    dest.truncate(n);
    Ok(dest)
}

/// Decompress into a caller-provided buffer; returns the number of bytes written.
pub fn decompress_into(dparams: &DParams, src: &[u8], dest: &mut [u8]) -> Result<usize> {
    decompress::decompress(dparams, src, dest, None)
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
    let mut dest = vec![0u8; nbytes];
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
    decompress::getitem(dparams, src, start, nitems, dest)
}

/// Decode `nbytes` bytes starting at byte `start`.
pub fn getitem_bytes(
    dparams: &DParams,
    src: &[u8],
    start: i64,
    nbytes: i64,
    dest: &mut [u8],
) -> Result<usize> {
    let h = ChunkHeader::parse(src)?;
    if h.vlblocks() {
        return Err(Error::InvalidParam);
    }
    let p = decompress::parse(src)?;
    decompress::getitem_bytes_parsed(dparams, &p, start, nbytes, 1, dest)
}

/// `(nbytes, cbytes, blocksize)` from the first 16 bytes of a chunk.
pub fn sizes(src: &[u8]) -> Result<(usize, usize, usize)> {
    let h = ChunkHeader::parse_min(src)?;
    Ok((h.nbytes as usize, h.cbytes as usize, h.blocksize as usize))
}

/// Parse a chunk header (16 or 32 bytes).
pub fn header(src: &[u8]) -> Result<ChunkHeader> {
    if src.len() < MIN_HEADER_LENGTH {
        return Err(Error::ReadBuffer);
    }
    ChunkHeader::parse(src)
}

/// Whole-chunk decompressions that write at least this many bytes
/// unshuffle (and copy stored data) into the destination with non-temporal
/// stores, whatever the number of threads sharing the work.  Ordinary
/// stores first read every destination line from memory (the "read for
/// ownership"); streaming stores skip that, which pays when the output does
/// not fit in the cache anyway and costs when it would have stayed there.
/// The constant is 3/8 of the last-level cache of the 2-core, 8 MiB L3
/// machine it was tuned on (glibc derives its own memcpy threshold from the
/// cache size CPUID reports: that VM reports 64 MiB, so its memcpy streams
/// only from 48 MiB on; `ld.so --list-diagnostics`).  Measured on
/// 2026-11-25 (4 MiB chunks, `benches/results/`): one thread, shuffled
/// data, decompression per codec group went from 0.97-1.07 of the
/// reference's speed to 1.16-1.42.  An earlier rule asked for this much per
/// thread, because two threads streaming 2 MiB each had measured slower
/// than cached copies; that measurement was spoilt by 4K aliasing in the
/// streaming copy (see `filter::stream`).  Once that was fixed, streaming
/// also with two threads took their decompression of 4 MiB lz4 chunks
/// (clevel 5, all filters and datasets) from 9.45 to 11.95 GB/s (geomean).
pub(crate) const STREAM_MIN_BYTES: usize = 3 << 20;

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
            to.copy_from_slice(from);
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
