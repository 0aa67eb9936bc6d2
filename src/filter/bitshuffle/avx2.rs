//! AVX2 bit-transpose kernels (movemask based).
//!
//! Same scheme as the SSE2 kernels with 32-byte registers.  In the backward
//! direction the unpacks act on each 128-bit lane separately, so the low lane
//! covers groups `q..q + 16` and the high lane groups `q + 16..q + 32`; the
//! final bit transpose works on 64-bit lanes as in the SSE2 kernel.

use std::arch::x86_64::*;

#[inline]
#[target_feature(enable = "avx2")]
fn load(buf: &[u8], at: usize) -> __m256i {
    assert!(at + 32 <= buf.len());
    // SAFETY: the range `at..at + 32` was just checked to lie inside `buf`;
    // the load is unaligned.
    unsafe { _mm256_loadu_si256(buf.as_ptr().add(at) as *const __m256i) }
}

/// Store the low 128-bit lane at `buf[lo..]` and the high one at `buf[hi..]`.
#[inline]
#[target_feature(enable = "avx2")]
fn store_pair(buf: &mut [u8], lo: usize, hi: usize, v: __m256i) {
    assert!(lo + 16 <= buf.len() && hi + 16 <= buf.len());
    let a = _mm256_castsi256_si128(v);
    let b = _mm256_extracti128_si256::<1>(v);
    // SAFETY: both 16-byte ranges were just checked to lie inside `buf`,
    // which is exclusively borrowed; the stores are unaligned.
    unsafe {
        let p = buf.as_mut_ptr();
        _mm_storeu_si128(p.add(lo) as *mut __m128i, a);
        _mm_storeu_si128(p.add(hi) as *mut __m128i, b);
    }
}

/// `super::transpose_8x8` applied to each 64-bit lane.
#[inline]
#[target_feature(enable = "avx2")]
fn transpose_lanes(mut x: __m256i) -> __m256i {
    let m1 = _mm256_set1_epi64x(0x00AA_00AA_00AA_00AA);
    let m2 = _mm256_set1_epi64x(0x0000_CCCC_0000_CCCC);
    let m3 = _mm256_set1_epi64x(0x0000_0000_F0F0_F0F0);
    let t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi64::<7>(x)), m1);
    x = _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi64::<7>(t)));
    let t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi64::<14>(x)), m2);
    x = _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi64::<14>(t)));
    let t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi64::<28>(x)), m3);
    _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi64::<28>(t)))
}

/// See `sse2::bits_fwd`.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn bits_fwd(ts: usize, n: usize, bytes: &[u8], dest: &mut [u8]) {
    assert!(n.is_multiple_of(8) && bytes.len() == n * ts && dest.len() == n * ts);
    for (j, row) in bytes.chunks_exact(n).enumerate() {
        fwd_row(row, j, 0, dest);
    }
}

/// Bit-transpose byte row `j` (`row`, `n` bytes) from byte `i` on into the
/// bit rows `8 * j ..` of `dest`, rows `n / 8` bytes long.
/// Compiled for AVX2: code not itself compiled for AVX2 calls it only
/// after checking the CPU.
#[target_feature(enable = "avx2")]
pub(super) fn fwd_row(row: &[u8], j: usize, mut i: usize, dest: &mut [u8]) {
    let n = row.len();
    let nb = n / 8;
    assert!(n.is_multiple_of(8) && i.is_multiple_of(8) && dest.len() >= (8 * j + 8) * nb);
    // 128 bytes per round, so that each of the 8 bit rows (often a
    // multiple of 4 KiB apart, hence competing for the same L1 set)
    // receives 16 contiguous bytes at once rather than 4.
    while i + 128 <= n {
        let mut x = [
            load(row, i),
            load(row, i + 32),
            load(row, i + 64),
            load(row, i + 96),
        ];
        for s in 0..8 {
            let mut bits = 0u128;
            for (k, v) in x.iter_mut().enumerate() {
                bits |= u128::from(_mm256_movemask_epi8(*v) as u32) << (32 * k);
                *v = _mm256_add_epi8(*v, *v);
            }
            let at = (8 * j + 7 - s) * nb + i / 8;
            dest[at..at + 16].copy_from_slice(&bits.to_le_bytes());
        }
        i += 128;
    }
    while i + 32 <= n {
        let mut x = load(row, i);
        for s in 0..8 {
            let bits = _mm256_movemask_epi8(x) as u32;
            let at = (8 * j + 7 - s) * nb + i / 8;
            dest[at..at + 4].copy_from_slice(&bits.to_le_bytes());
            x = _mm256_add_epi8(x, x);
        }
        i += 32;
    }
    super::fwd_groups(row, j, nb, i / 8, dest);
}

/// See `sse2::bits_rev`.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn bits_rev(ts: usize, n: usize, src: &[u8], bytes: &mut [u8]) {
    assert!(n.is_multiple_of(8) && src.len() == n * ts && bytes.len() == n * ts);
    for (j, row) in bytes.chunks_exact_mut(n).enumerate() {
        rev_row(src, j, 0, row);
    }
}

/// Gather groups `q..` of the bit rows `8 * j ..` of `src` (rows
/// `row.len() / 8` bytes long) back into byte row `j` (`row`).
/// Compiled for AVX2: code not itself compiled for AVX2 calls it only
/// after checking the CPU.
#[target_feature(enable = "avx2")]
pub(super) fn rev_row(src: &[u8], j: usize, mut q: usize, row: &mut [u8]) {
    let nb = row.len() / 8;
    assert!(row.len().is_multiple_of(8) && src.len() >= (8 * j + 8) * nb);
    while q + 32 <= nb {
        let mut r = [_mm256_setzero_si256(); 8];
        for (b, v) in r.iter_mut().enumerate() {
            *v = load(src, (8 * j + b) * nb + q);
        }
        let a = [
            _mm256_unpacklo_epi8(r[0], r[1]),
            _mm256_unpackhi_epi8(r[0], r[1]),
            _mm256_unpacklo_epi8(r[2], r[3]),
            _mm256_unpackhi_epi8(r[2], r[3]),
            _mm256_unpacklo_epi8(r[4], r[5]),
            _mm256_unpackhi_epi8(r[4], r[5]),
            _mm256_unpacklo_epi8(r[6], r[7]),
            _mm256_unpackhi_epi8(r[6], r[7]),
        ];
        let b = [
            _mm256_unpacklo_epi16(a[0], a[2]),
            _mm256_unpackhi_epi16(a[0], a[2]),
            _mm256_unpacklo_epi16(a[1], a[3]),
            _mm256_unpackhi_epi16(a[1], a[3]),
            _mm256_unpacklo_epi16(a[4], a[6]),
            _mm256_unpackhi_epi16(a[4], a[6]),
            _mm256_unpacklo_epi16(a[5], a[7]),
            _mm256_unpackhi_epi16(a[5], a[7]),
        ];
        let c = [
            _mm256_unpacklo_epi32(b[0], b[4]),
            _mm256_unpackhi_epi32(b[0], b[4]),
            _mm256_unpacklo_epi32(b[1], b[5]),
            _mm256_unpackhi_epi32(b[1], b[5]),
            _mm256_unpacklo_epi32(b[2], b[6]),
            _mm256_unpackhi_epi32(b[2], b[6]),
            _mm256_unpacklo_epi32(b[3], b[7]),
            _mm256_unpackhi_epi32(b[3], b[7]),
        ];
        for (m, v) in c.iter().enumerate() {
            // Groups g, g + 1 in the low lane, g + 16, g + 17 in the high.
            let g = q + 2 * m;
            let t = transpose_lanes(*v);
            store_pair(row, 8 * g, 8 * (g + 16), t);
        }
        q += 32;
    }
    super::rev_groups(src, j, nb, q, row);
}
