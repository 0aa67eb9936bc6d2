//! Filters: shuffle, bitshuffle, delta, truncprec.
//!
//! All functions work on one block, with the byte-exact semantics of the
//! c-blosc2 3.x filters (`len` below is `src.len()`; outputs are written to
//! `dest[..len]`, and `dest` must be at least that long).
//!
//! The (bit)shuffle kernels exist in five flavours (portable scalar code,
//! SSE2, AVX2 and AVX-512 on x86_64, NEON on aarch64) that give identical
//! results; the fastest one the features of [`crate::cpu::features`] allow
//! is used (`BLOSC2_RS_SIMD` caps them; see [`simd_kernel_name`]).
//! [`kernels`] runs a specific flavour.

// The API reports failure as `Err(())`, mirroring the C filters' error codes.
#![allow(clippy::result_unit_err)]

mod bitshuffle;
mod delta;
mod dispatch;
pub mod plugins;
mod shuffle;
mod stream;
mod truncprec;

pub use delta::{delta_decode, delta_encode, delta_unit};
pub use dispatch::{active_kernel, simd_kernel_name, Kernel};
pub use shuffle::MAX_TYPESIZE;
pub use stream::copy_streaming;
pub use truncprec::truncate_precision;

/// The (bit)shuffle entry points for an explicitly chosen [`Kernel`].
///
/// A kernel the CPU cannot run is silently replaced by the best one it can.
pub mod kernels {
    pub use super::bitshuffle::{bitshuffle_with, bitunshuffle_format_with, bitunshuffle_with};
    pub use super::dispatch::Kernel;
    pub use super::shuffle::{shuffle_with, unshuffle_stores, unshuffle_with};
}

/// Byte-shuffle: byte `j` of element `i` goes to `dest[j * n + i]`, where
/// `n = len / typesize`; the last `len % typesize` bytes are copied as is.
/// A typesize of 0 or above 256 is ignored (dest untouched), like the
/// reference which returns an error code for it.
pub fn shuffle(typesize: usize, src: &[u8], dest: &mut [u8]) {
    shuffle::shuffle_with(active_kernel(), typesize, src, dest)
}

/// Inverse of [`shuffle`].
pub fn unshuffle(typesize: usize, src: &[u8], dest: &mut [u8]) {
    shuffle::unshuffle_with(active_kernel(), typesize, src, dest)
}

/// [`unshuffle`] with non-temporal stores where the kernel has them: for a
/// `dest` that is large and not read again soon (the same bytes either way).
pub fn unshuffle_streaming(typesize: usize, src: &[u8], dest: &mut [u8]) {
    shuffle::unshuffle_stores(active_kernel(), typesize, src, dest, true)
}

/// Whether [`unshuffle_rows`] can unshuffle rows of `typesize` bytes here.
pub fn unshuffle_rows_available(typesize: usize) -> bool {
    shuffle::rows_kernel(active_kernel(), typesize)
}

/// [`unshuffle`] (with non-temporal stores when `streaming`) of a block
/// whose rows (byte `j` of every element in `rows[j]`) need not lie end to
/// end; `false`, with nothing written, where [`unshuffle_rows_available`]
/// does not hold.
pub fn unshuffle_rows(rows: &[&[u8]], dest: &mut [u8], streaming: bool) -> bool {
    shuffle::unshuffle_rows(active_kernel(), rows, dest, streaming)
}

/// Bit-shuffle a block as `blosc2_bitshuffle` does: the largest multiple of
/// 8 of the whole elements is bit-transposed, the rest is copied.  Fails for
/// a typesize of 0 or above 256 (dest untouched).
pub fn bitshuffle(typesize: usize, src: &[u8], dest: &mut [u8]) -> Result<(), ()> {
    bitshuffle::bitshuffle_with(active_kernel(), typesize, src, dest)
}

/// Inverse of [`bitshuffle`] (format version 3 and later, as
/// `blosc2_bitunshuffle`).  Fails only for a typesize of 0.
pub fn bitunshuffle(typesize: usize, src: &[u8], dest: &mut [u8]) -> Result<(), ()> {
    bitshuffle::bitunshuffle_with(active_kernel(), typesize, src, dest)
}

/// [`bitunshuffle`] with non-temporal stores where the kernel has them, for a
/// `dest` that is large and not read again soon (the same bytes either way).
pub fn bitunshuffle_streaming(typesize: usize, src: &[u8], dest: &mut [u8]) -> Result<(), ()> {
    bitshuffle::bitunshuffle_stores(active_kernel(), typesize, src, dest, true)
}

/// Bit-unshuffle a block of a chunk written with the given format version
/// (the chunk header's version byte).  Version 2 chunks only bit-shuffled
/// blocks whose element count is a multiple of 8 and stored others verbatim.
pub fn bitunshuffle_format(
    typesize: usize,
    src: &[u8],
    dest: &mut [u8],
    format_version: u8,
) -> Result<(), ()> {
    bitshuffle::bitunshuffle_format_with(active_kernel(), typesize, src, dest, format_version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_level_round_trips() {
        let src: Vec<u8> = (0..10_007u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for ts in [1usize, 2, 3, 4, 8, 12, 16, 17, 255] {
            let mut a = vec![0u8; src.len()];
            let mut b = vec![0u8; src.len()];
            shuffle(ts, &src, &mut a);
            unshuffle(ts, &a, &mut b);
            assert_eq!(a.len(), b.len());
            assert_eq!(b, src);
            bitshuffle(ts, &src, &mut a).unwrap();
            bitunshuffle(ts, &a, &mut b).unwrap();
            assert_eq!(b, src);
            bitunshuffle_format(ts, &a, &mut b, 3).unwrap();
            assert_eq!(b, src);
        }
        assert!(Kernel::from_name(simd_kernel_name()).is_some());
    }
}
