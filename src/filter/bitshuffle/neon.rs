//! NEON bit-transpose kernels (aarch64).
//!
//! NEON has no movemask, so the forward direction works on 16 groups of 8
//! elements (128 bytes of a byte row) at once:
//!
//! 1. two `ld4` loads and one round of `uzp1`/`uzp2` split the 128 bytes by
//!    index modulo 8: register r then holds element r of each of the 16
//!    groups;
//! 2. the 8 registers are bit-transposed as 8x8 bit matrices, one per byte
//!    lane (rows are registers, columns are bits): three rounds of
//!    shift-and-select (`shl`/`ushr` + `bsl`) swap the off-diagonal 1x1,
//!    2x2 and 4x4 blocks.  Register b then holds bit b of every element, 8
//!    elements per byte, i.e. 16 contiguous bytes of bit row b, stored at
//!    once.
//!
//! The backward direction runs the same steps in reverse: the bit transpose
//! is its own inverse, and `zip1`/`zip2` plus two `st4` stores undo the
//! split.  A step of 8 groups (64 bytes) uses the low halves of the same
//! registers; fewer groups are left to the scalar code.

use std::arch::aarch64::*;

#[inline]
#[target_feature(enable = "neon")]
fn load(buf: &[u8], at: usize) -> uint8x16_t {
    assert!(at + 16 <= buf.len());
    // SAFETY: the range `at..at + 16` was just checked to lie inside `buf`;
    // `ld1` has no alignment requirement.
    unsafe { vld1q_u8(buf.as_ptr().add(at)) }
}

/// The 8 bytes at `buf[at..]` in the low half, zeros in the high half.
#[inline]
#[target_feature(enable = "neon")]
fn load_half(buf: &[u8], at: usize) -> uint8x16_t {
    assert!(at + 8 <= buf.len());
    // SAFETY: the range `at..at + 8` was just checked to lie inside `buf`;
    // `ld1` has no alignment requirement.
    let v = unsafe { vld1_u8(buf.as_ptr().add(at)) };
    vcombine_u8(v, vdup_n_u8(0))
}

#[inline]
#[target_feature(enable = "neon")]
fn store(buf: &mut [u8], at: usize, v: uint8x16_t) {
    assert!(at + 16 <= buf.len());
    // SAFETY: the range `at..at + 16` was just checked to lie inside `buf`,
    // which is exclusively borrowed; no alignment requirement.
    unsafe { vst1q_u8(buf.as_mut_ptr().add(at), v) }
}

/// Store the low 8 bytes of `v` at `buf[at..]`.
#[inline]
#[target_feature(enable = "neon")]
fn store_half(buf: &mut [u8], at: usize, v: uint8x16_t) {
    assert!(at + 8 <= buf.len());
    // SAFETY: the range `at..at + 8` was just checked to lie inside `buf`,
    // which is exclusively borrowed; no alignment requirement.
    unsafe { vst1_u8(buf.as_mut_ptr().add(at), vget_low_u8(v)) }
}

/// The 64 bytes at `buf[at..]`, split by index modulo 4.
#[inline]
#[target_feature(enable = "neon")]
fn ld4(buf: &[u8], at: usize) -> uint8x16x4_t {
    assert!(at + 64 <= buf.len());
    // SAFETY: the range `at..at + 64`, which `ld4` reads, was just checked to
    // lie inside `buf`; no alignment requirement.
    unsafe { vld4q_u8(buf.as_ptr().add(at)) }
}

/// Inverse of [`ld4`].
#[inline]
#[target_feature(enable = "neon")]
fn st4(buf: &mut [u8], at: usize, v: uint8x16x4_t) {
    assert!(at + 64 <= buf.len());
    // SAFETY: the range `at..at + 64`, which `st4` writes, was just checked
    // to lie inside `buf`, which is exclusively borrowed.
    unsafe { vst4q_u8(buf.as_mut_ptr().add(at), v) }
}

/// Exchange the bits selected by `high` in `lo` with the bits S places
/// lower in `hi`: the bits of `lo` under `high` come from `hi << S`, the
/// bits of `hi` outside `high` from `lo >> S`.
#[inline]
#[target_feature(enable = "neon")]
fn swap_bits<const S: i32>(lo: uint8x16_t, hi: uint8x16_t, high: u8) -> (uint8x16_t, uint8x16_t) {
    let m = vdupq_n_u8(high);
    (
        vbslq_u8(m, vshlq_n_u8::<S>(hi), lo),
        vbslq_u8(m, hi, vshrq_n_u8::<S>(lo)),
    )
}

/// Byte lane by byte lane, transpose the 8x8 bit matrix whose row r is the
/// lane in `v[r]`: afterwards bit c of lane x of `v[r]` is the former bit r
/// of lane x of `v[c]`.  Round S swaps bit log2(S) of the register index
/// with the same bit of the bit index.
#[inline]
#[target_feature(enable = "neon")]
fn bit_transpose(mut v: [uint8x16_t; 8]) -> [uint8x16_t; 8] {
    for p in [0, 2, 4, 6] {
        (v[p], v[p + 1]) = swap_bits::<1>(v[p], v[p + 1], 0xAA);
    }
    for p in [0, 1, 4, 5] {
        (v[p], v[p + 2]) = swap_bits::<2>(v[p], v[p + 2], 0xCC);
    }
    for p in [0, 1, 2, 3] {
        (v[p], v[p + 4]) = swap_bits::<4>(v[p], v[p + 4], 0xF0);
    }
    v
}

/// Split 8 groups of 8 bytes (`a` as loaded by [`ld4`]) and the next 8
/// groups (`b`) by byte index modulo 8: register r of the result holds byte
/// r of every group, the groups of `a` first.
#[inline]
#[target_feature(enable = "neon")]
fn split8(a: uint8x16x4_t, b: uint8x16x4_t) -> [uint8x16_t; 8] {
    // Byte 4m + k of a run is byte 4 * (m % 2) + k of its group m / 2.
    [
        vuzp1q_u8(a.0, b.0),
        vuzp1q_u8(a.1, b.1),
        vuzp1q_u8(a.2, b.2),
        vuzp1q_u8(a.3, b.3),
        vuzp2q_u8(a.0, b.0),
        vuzp2q_u8(a.1, b.1),
        vuzp2q_u8(a.2, b.2),
        vuzp2q_u8(a.3, b.3),
    ]
}

/// Inverse of [`split8`].
#[inline]
#[target_feature(enable = "neon")]
fn merge8(y: [uint8x16_t; 8]) -> (uint8x16x4_t, uint8x16x4_t) {
    (
        uint8x16x4_t(
            vzip1q_u8(y[0], y[4]),
            vzip1q_u8(y[1], y[5]),
            vzip1q_u8(y[2], y[6]),
            vzip1q_u8(y[3], y[7]),
        ),
        uint8x16x4_t(
            vzip2q_u8(y[0], y[4]),
            vzip2q_u8(y[1], y[5]),
            vzip2q_u8(y[2], y[6]),
            vzip2q_u8(y[3], y[7]),
        ),
    )
}

/// `bytes` holds `ts` byte rows of `n` bytes (`n.is_multiple_of(8)`); writes the
/// `8 * ts` bit rows of `n / 8` bytes into `dest`.
///
/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(super) unsafe fn bits_fwd(ts: usize, n: usize, bytes: &[u8], dest: &mut [u8]) {
    assert!(n.is_multiple_of(8) && bytes.len() == n * ts && dest.len() == n * ts);
    let nb = n / 8;
    for (j, row) in bytes.chunks_exact(n).enumerate() {
        let mut i = 0;
        // 16 groups per round: each of the 8 bit rows receives 16 bytes.
        while i + 128 <= n {
            let bits = bit_transpose(split8(ld4(row, i), ld4(row, i + 64)));
            for (b, v) in bits.iter().enumerate() {
                store(dest, (8 * j + b) * nb + i / 8, *v);
            }
            i += 128;
        }
        if i + 64 <= n {
            // 8 groups: the low halves of the registers.
            let a = ld4(row, i);
            let bits = bit_transpose(split8(a, a));
            for (b, v) in bits.iter().enumerate() {
                store_half(dest, (8 * j + b) * nb + i / 8, *v);
            }
            i += 64;
        }
        super::fwd_groups(row, j, nb, i / 8, dest);
    }
}

/// Inverse of [`bits_fwd`]: bit rows in `src`, byte rows out in `bytes`.
///
/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(super) unsafe fn bits_rev(ts: usize, n: usize, src: &[u8], bytes: &mut [u8]) {
    assert!(n.is_multiple_of(8) && src.len() == n * ts && bytes.len() == n * ts);
    let nb = n / 8;
    for (j, row) in bytes.chunks_exact_mut(n).enumerate() {
        let mut q = 0;
        while q + 16 <= nb {
            let mut bits = [vdupq_n_u8(0); 8];
            for (b, v) in bits.iter_mut().enumerate() {
                *v = load(src, (8 * j + b) * nb + q);
            }
            let (a, c) = merge8(bit_transpose(bits));
            st4(row, 8 * q, a);
            st4(row, 8 * q + 64, c);
            q += 16;
        }
        if q + 8 <= nb {
            let mut bits = [vdupq_n_u8(0); 8];
            for (b, v) in bits.iter_mut().enumerate() {
                *v = load_half(src, (8 * j + b) * nb + q);
            }
            // The `zip1` half of the merge covers the 8 groups in the low
            // halves.
            let (a, _) = merge8(bit_transpose(bits));
            st4(row, 8 * q, a);
            q += 8;
        }
        super::rev_groups(src, j, nb, q, row);
    }
}
