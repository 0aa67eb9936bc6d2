//! SSE2 bit-transpose kernels (movemask based).
//!
//! Forward: `_mm_movemask_epi8` collects the top bit of 16 bytes at once, i.e.
//! 16 bits of one bit row; doubling every byte moves the next bit to the top.
//!
//! Backward: a byte transpose (three rounds of unpacks) gathers the bytes of
//! the 8 bit rows that belong to each group of 8 elements into one 64-bit
//! lane, and a lane-wise 8x8 bit transpose turns that into the group's bytes.

use std::arch::x86_64::*;

#[inline]
#[target_feature(enable = "sse2")]
fn load(buf: &[u8], at: usize) -> __m128i {
    assert!(at + 16 <= buf.len());
    // SAFETY: the range `at..at + 16` was just checked to lie inside `buf`;
    // the load is unaligned.
    unsafe { _mm_loadu_si128(buf.as_ptr().add(at) as *const __m128i) }
}

#[inline]
#[target_feature(enable = "sse2")]
fn store(buf: &mut [u8], at: usize, v: __m128i) {
    assert!(at + 16 <= buf.len());
    // SAFETY: the range `at..at + 16` was just checked to lie inside `buf`,
    // which is exclusively borrowed; the store is unaligned.
    unsafe { _mm_storeu_si128(buf.as_mut_ptr().add(at) as *mut __m128i, v) }
}

/// `super::transpose_8x8` applied to both 64-bit lanes.
#[inline]
#[target_feature(enable = "sse2")]
fn transpose_lanes(mut x: __m128i) -> __m128i {
    let m1 = _mm_set1_epi64x(0x00AA_00AA_00AA_00AA);
    let m2 = _mm_set1_epi64x(0x0000_CCCC_0000_CCCC);
    let m3 = _mm_set1_epi64x(0x0000_0000_F0F0_F0F0);
    let t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64::<7>(x)), m1);
    x = _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi64::<7>(t)));
    let t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64::<14>(x)), m2);
    x = _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi64::<14>(t)));
    let t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64::<28>(x)), m3);
    _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi64::<28>(t)))
}

/// `bytes` holds `ts` byte rows of `n` bytes (`n % 8 == 0`); writes the
/// `8 * ts` bit rows of `n / 8` bytes into `dest`.
///
/// # Safety
/// The CPU must support SSE2.
#[target_feature(enable = "sse2")]
pub(super) unsafe fn bits_fwd(ts: usize, n: usize, bytes: &[u8], dest: &mut [u8]) {
    assert!(n.is_multiple_of(8) && bytes.len() == n * ts && dest.len() == n * ts);
    let nb = n / 8;
    for (j, row) in bytes.chunks_exact(n).enumerate() {
        let mut i = 0;
        // 128 bytes per round: each of the 8 bit rows (often a multiple of
        // 4 KiB apart, hence competing for the same L1 set) receives 16
        // contiguous bytes at once rather than 2.
        while i + 128 <= n {
            let mut x = [_mm_setzero_si128(); 8];
            for (k, v) in x.iter_mut().enumerate() {
                *v = load(row, i + 16 * k);
            }
            for s in 0..8 {
                let mut bits = 0u128;
                for (k, v) in x.iter_mut().enumerate() {
                    bits |= u128::from(_mm_movemask_epi8(*v) as u16) << (16 * k);
                    *v = _mm_add_epi8(*v, *v);
                }
                let at = (8 * j + 7 - s) * nb + i / 8;
                dest[at..at + 16].copy_from_slice(&bits.to_le_bytes());
            }
            i += 128;
        }
        while i + 16 <= n {
            let mut x = load(row, i);
            for s in 0..8 {
                // Bit 7 - s of each byte, one bit per element i..i + 16.
                let bits = _mm_movemask_epi8(x) as u16;
                let at = (8 * j + 7 - s) * nb + i / 8;
                dest[at..at + 2].copy_from_slice(&bits.to_le_bytes());
                x = _mm_add_epi8(x, x);
            }
            i += 16;
        }
        super::fwd_groups(row, j, nb, i / 8, dest);
    }
}

/// Inverse of [`bits_fwd`]: bit rows in `src`, byte rows out in `bytes`.
///
/// # Safety
/// The CPU must support SSE2.
#[target_feature(enable = "sse2")]
pub(super) unsafe fn bits_rev(ts: usize, n: usize, src: &[u8], bytes: &mut [u8]) {
    assert!(n.is_multiple_of(8) && src.len() == n * ts && bytes.len() == n * ts);
    let nb = n / 8;
    for (j, row) in bytes.chunks_exact_mut(n).enumerate() {
        let mut q = 0;
        while q + 16 <= nb {
            // r[b]: byte q.. of bit row 8j + b (16 groups of 8 elements).
            let mut r = [_mm_setzero_si128(); 8];
            for (b, v) in r.iter_mut().enumerate() {
                *v = load(src, (8 * j + b) * nb + q);
            }
            // Byte transpose: afterwards c[m] holds, for the groups
            // q + 2m and q + 2m + 1, the bytes of rows 0..8 in order.
            let a = [
                _mm_unpacklo_epi8(r[0], r[1]),
                _mm_unpackhi_epi8(r[0], r[1]),
                _mm_unpacklo_epi8(r[2], r[3]),
                _mm_unpackhi_epi8(r[2], r[3]),
                _mm_unpacklo_epi8(r[4], r[5]),
                _mm_unpackhi_epi8(r[4], r[5]),
                _mm_unpacklo_epi8(r[6], r[7]),
                _mm_unpackhi_epi8(r[6], r[7]),
            ];
            let b = [
                _mm_unpacklo_epi16(a[0], a[2]),
                _mm_unpackhi_epi16(a[0], a[2]),
                _mm_unpacklo_epi16(a[1], a[3]),
                _mm_unpackhi_epi16(a[1], a[3]),
                _mm_unpacklo_epi16(a[4], a[6]),
                _mm_unpackhi_epi16(a[4], a[6]),
                _mm_unpacklo_epi16(a[5], a[7]),
                _mm_unpackhi_epi16(a[5], a[7]),
            ];
            let c = [
                _mm_unpacklo_epi32(b[0], b[4]),
                _mm_unpackhi_epi32(b[0], b[4]),
                _mm_unpacklo_epi32(b[1], b[5]),
                _mm_unpackhi_epi32(b[1], b[5]),
                _mm_unpacklo_epi32(b[2], b[6]),
                _mm_unpackhi_epi32(b[2], b[6]),
                _mm_unpacklo_epi32(b[3], b[7]),
                _mm_unpackhi_epi32(b[3], b[7]),
            ];
            for (m, v) in c.iter().enumerate() {
                // Each 64-bit lane is now the 8x8 bit matrix of one group
                // (byte b = row b); its transpose is the group's 8 bytes.
                let g = q + 2 * m;
                store(row, 8 * g, transpose_lanes(*v));
            }
            q += 16;
        }
        super::rev_groups(src, j, nb, q, row);
    }
}
