//! BloscLZ with AVX2: the same encoder, compiled for AVX2, measuring match
//! lengths 32 bytes per comparison, and the same decoder compiled for AVX2
//! (its 32-byte copies in one move).

use std::arch::x86_64::*;

use super::{Scan, Table};

/// Proof that the CPU supports AVX2: only [`Wide::detect`] makes one.
#[derive(Clone, Copy)]
pub(super) struct Wide(());

impl Wide {
    /// `Some` when the kernels may use AVX2 (see [`crate::cpu`]).
    #[inline]
    pub(super) fn detect() -> Option<Wide> {
        if crate::cpu::features().avx2 {
            Some(Wide(()))
        } else {
            None
        }
    }
}

impl Scan for Wide {
    const WIDTH: usize = 32;

    #[inline(always)]
    fn mismatch(self, buf: &[u8], pos: usize, dist: usize) -> Option<usize> {
        assert!(pos + 32 <= buf.len() && dist <= pos);
        // SAFETY: a `Wide` exists only when AVX2 is available; both 32-byte
        // ranges `pos..pos + 32` and `pos - dist..pos - dist + 32` were just
        // checked to lie inside `buf`; the loads are unaligned.
        let equal = unsafe {
            let p = buf.as_ptr();
            let a = _mm256_loadu_si256(p.add(pos) as *const __m256i);
            let b = _mm256_loadu_si256(p.add(pos - dist) as *const __m256i);
            _mm256_movemask_epi8(_mm256_cmpeq_epi8(a, b)) as u32
        };
        if equal == u32::MAX {
            None
        } else {
            Some((!equal).trailing_zeros() as usize)
        }
    }
}

#[target_feature(enable = "avx2")]
fn compress_levels_avx2(
    wide: Wide,
    clevel: usize,
    input: &[u8],
    output: &mut [u8],
    table: &mut Table,
) -> usize {
    super::compress_levels(wide, clevel, input, output, table)
}

/// [`super::compress_levels`] compiled for AVX2.
pub(super) fn compress_levels(
    wide: Wide,
    clevel: usize,
    input: &[u8],
    output: &mut [u8],
    table: &mut Table,
) -> usize {
    // SAFETY: holding a `Wide` proves the CPU supports AVX2.
    unsafe { compress_levels_avx2(wide, clevel, input, output, table) }
}

#[target_feature(enable = "avx2")]
fn decompress_avx2(_wide: Wide, input: &[u8], output: &mut [u8]) -> Option<usize> {
    super::decompress_impl(input, output)
}

/// [`super::decompress`] compiled for AVX2.
pub(super) fn decompress(wide: Wide, input: &[u8], output: &mut [u8]) -> Option<usize> {
    // SAFETY: holding a `Wide` proves the CPU supports AVX2.
    unsafe { decompress_avx2(wide, input, output) }
}
