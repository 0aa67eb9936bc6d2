//! BloscLZ compression with AVX-512 match scanning: the same encoder,
//! compiled for AVX-512, measuring match lengths 32 bytes at first, then 64
//! bytes per comparison.  It does not compare 64 bytes from the start
//! because most matches end within their first 32 bytes, and a 64-byte load
//! at an arbitrary offset always spans two cache lines (that was slower than
//! the AVX2 scan; see docs/performance.md).

use std::arch::x86_64::*;

use super::{Scan, Table};

/// Proof that the CPU supports AVX-512 F, BW and VL: only [`Wide::detect`]
/// makes one.
#[derive(Clone, Copy)]
pub(super) struct Wide(());

impl Wide {
    /// `Some` when the kernels may use AVX-512 F, BW and VL (see
    /// [`crate::cpu`]).
    #[inline]
    pub(super) fn detect() -> Option<Wide> {
        let f = crate::cpu::features();
        if f.avx512f && f.avx512bw && f.avx512vl {
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
        // SAFETY: a `Wide` exists only when AVX-512 F, BW and VL are available;
        // both 32-byte ranges `pos..pos + 32` and `pos - dist..pos - dist +
        // 32` were just checked to lie inside `buf`; the loads are unaligned.
        let differ = unsafe {
            let p = buf.as_ptr();
            let a = _mm256_loadu_si256(p.add(pos) as *const __m256i);
            let b = _mm256_loadu_si256(p.add(pos - dist) as *const __m256i);
            _mm256_cmpneq_epi8_mask(a, b)
        };
        first_set(u64::from(differ))
    }

    const LONG: usize = 64;

    #[inline(always)]
    fn mismatch_long(self, buf: &[u8], pos: usize, dist: usize) -> Option<usize> {
        assert!(pos + 64 <= buf.len() && dist <= pos);
        // SAFETY: as in `mismatch`, for the 64-byte ranges just checked.
        let differ = unsafe {
            let p = buf.as_ptr();
            let a = _mm512_loadu_si512(p.add(pos) as *const __m512i);
            let b = _mm512_loadu_si512(p.add(pos - dist) as *const __m512i);
            _mm512_cmpneq_epi8_mask(a, b)
        };
        first_set(differ)
    }
}

/// The index of the lowest set bit of `mask` (the first differing byte).
#[inline(always)]
fn first_set(mask: u64) -> Option<usize> {
    (mask != 0).then(|| mask.trailing_zeros() as usize)
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn compress_levels_avx512(
    wide: Wide,
    clevel: usize,
    input: &[u8],
    output: &mut [u8],
    table: &mut Table,
) -> usize {
    super::compress_levels(wide, clevel, input, output, table)
}

/// [`super::compress_levels`] compiled for AVX-512.
pub(super) fn compress_levels(
    wide: Wide,
    clevel: usize,
    input: &[u8],
    output: &mut [u8],
    table: &mut Table,
) -> usize {
    // SAFETY: holding a `Wide` proves the CPU supports AVX-512 F, BW and VL.
    unsafe { compress_levels_avx512(wide, clevel, input, output, table) }
}
