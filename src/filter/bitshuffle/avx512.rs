//! AVX-512 bit-transpose kernels (GFNI and VBMI).
//!
//! One GFNI affine instruction (`vgf2p8affineqb`) with the data as its
//! matrix operand transposes the 8x8 bit matrix of every 64-bit lane: for a
//! constant `x` whose byte `i` is `1 << i`, byte `i` of the result has as
//! bit `k` bit `i` of byte `7 - k` of the lane.  A window of 64 groups of 8
//! bytes (512 bytes of a byte row, 64 bytes of each of its 8 bit rows) is
//! then moved with a byte permute inside each register (VBMI `vpermb`) and
//! an 8x8 transpose of 64-bit units across 8 registers (the unit transpose
//! of the byte-shuffle kernel), so that every store writes 64 contiguous
//! bytes.  What is left of a row after the last whole window goes to the
//! AVX2 kernel.

use std::arch::x86_64::*;

use crate::filter::shuffle::avx512::{load, store, Transpose};

/// Bytes of a byte row per window (64 groups of 8 elements).
const WINDOW: usize = 512;

/// The `x` operand that makes `vgf2p8affineqb` a bit transpose (see the
/// module comment): byte `i` is `1 << i`.
const UNIT_BITS: u64 = 0x8040_2010_0804_0201;

/// `vpermb` index of an 8x8 byte transpose inside each 64-bit lane: byte
/// `b` of lane `a` goes to byte `a` of lane `b`, or, with `reverse_dst`,
/// to byte `7 - a` of lane `b`.
#[inline]
#[target_feature(enable = "avx512f")]
fn lane_transpose(reverse_dst: bool) -> __m512i {
    let mut idx = [0u8; 64];
    for a in 0..8 {
        for b in 0..8 {
            let dst = if reverse_dst {
                8 * b + 7 - a
            } else {
                8 * b + a
            };
            idx[dst] = (8 * a + b) as u8;
        }
    }
    // SAFETY: `idx` is 64 readable bytes; the load is unaligned.
    unsafe { _mm512_loadu_si512(idx.as_ptr() as *const __m512i) }
}

/// See `sse2::bits_fwd`.
///
/// # Safety
/// The CPU must support the features of `Kernel::Avx512` (AVX-512 F, BW,
/// VBMI, GFNI and AVX2).
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vbmi,gfni")]
pub(super) unsafe fn bits_fwd(ts: usize, n: usize, bytes: &[u8], dest: &mut [u8]) {
    assert!(n.is_multiple_of(8) && bytes.len() == n * ts && dest.len() == n * ts);
    let nb = n / 8;
    let net = Transpose::<8>::new();
    let unit = _mm512_set1_epi64(UNIT_BITS as i64);
    // Byte b of every lane to byte 7 - b: the affine step reads the lane's
    // bytes from the top down.
    // (`vpshufb` indexes within 16-byte lanes, hence two patterns.)
    let reverse = _mm512_set4_epi64(
        0x0809_0A0B_0C0D_0E0F,
        0x0001_0203_0405_0607,
        0x0809_0A0B_0C0D_0E0F,
        0x0001_0203_0405_0607,
    );
    let gather = lane_transpose(false);
    for (j, row) in bytes.chunks_exact(n).enumerate() {
        let mut i = 0;
        while i + WINDOW <= n {
            let mut v = [_mm512_setzero_si512(); 8];
            for (r, x) in v.iter_mut().enumerate() {
                // Lane g of register r: group i / 8 + 8r + g.
                // SAFETY: `i + WINDOW <= n` and `64 * r + 64 <= WINDOW`: the
                // 64 bytes lie inside `row`.
                let lanes = _mm512_shuffle_epi8(unsafe { load(row, i + 64 * r) }, reverse);
                // Byte b of lane g: bit row b's byte for that group.
                let bits = _mm512_gf2p8affine_epi64_epi8::<0>(unit, lanes);
                // Lane b: bit row b's bytes for the 8 groups of register r.
                *x = _mm512_permutexvar_epi8(gather, bits);
            }
            // Register b: bit row b's bytes for the window's 64 groups.
            net.apply(&mut v);
            for (b, x) in v.iter().enumerate() {
                // SAFETY: bit row `8 * j + b < 8 * ts`, bytes `i / 8..i / 8 +
                // 64` of its `nb` (`i + WINDOW <= n`), inside `dest`.
                unsafe { store(dest, (8 * j + b) * nb + i / 8, *x) };
            }
            i += WINDOW;
        }
        super::avx2::fwd_row(row, j, i, dest);
    }
}

/// See `sse2::bits_rev`.
///
/// # Safety
/// As for [`bits_fwd`].
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vbmi,gfni")]
pub(super) unsafe fn bits_rev(ts: usize, n: usize, src: &[u8], bytes: &mut [u8]) {
    assert!(n.is_multiple_of(8) && src.len() == n * ts && bytes.len() == n * ts);
    let nb = n / 8;
    let net = Transpose::<8>::new();
    let unit = _mm512_set1_epi64(UNIT_BITS as i64);
    let scatter = lane_transpose(true);
    for (j, row) in bytes.chunks_exact_mut(n).enumerate() {
        let mut q = 0;
        while q + WINDOW / 8 <= nb {
            let mut v = [_mm512_setzero_si512(); 8];
            for (b, x) in v.iter_mut().enumerate() {
                // Bit row b, groups q..q + 64.
                // SAFETY: bit row `8 * j + b < 8 * ts`, bytes `q..q + 64`
                // of its `nb` (`q + WINDOW / 8 <= nb`), inside `src`.
                *x = unsafe { load(src, (8 * j + b) * nb + q) };
            }
            // Register r, lane b: bit row b's bytes for groups q + 8r ..
            net.apply(&mut v);
            for (r, x) in v.iter().enumerate() {
                // Lane g, byte 7 - b: bit row b's byte for group q + 8r + g.
                let lanes = _mm512_permutexvar_epi8(scatter, *x);
                // Lane g: the 8 bytes of that group.
                let t = _mm512_gf2p8affine_epi64_epi8::<0>(unit, lanes);
                // SAFETY: groups `q + 8 * r..q + 8 * r + 8` are below
                // `nb`, so their 64 bytes lie inside `row` (`8 * nb` bytes).
                unsafe { store(row, 8 * (q + 8 * r), t) };
            }
            q += WINDOW / 8;
        }
        super::avx2::rev_row(src, j, q, row);
    }
}
