//! AVX-512 byte-shuffle kernels (typesizes 2, 4, 8 and 16).
//!
//! A step handles 64 elements, `T` registers of 64 bytes.  Shuffling is done
//! in two moves: a byte permute inside each register (VBMI `vpermb`) groups
//! the bytes of its `64 / T` elements by byte index, giving `T` units of
//! `64 / T` bytes; then a `T x T` transpose of those units across the
//! registers (two-source dword permutes, `log2(T)` rounds) leaves register
//! `j` holding byte `j` of all 64 elements.  Unshuffling runs the same two
//! moves backwards: the unit transpose is its own inverse, and the byte
//! permute is replaced by its inverse.
//!
//! Other typesizes, and non-temporal stores, are left to the AVX2 kernel,
//! and so is unshuffling typesizes 4 and 8, where the AVX2 kernel is the
//! faster one (`cargo bench --bench kernels`).  Shuffling typesize 8 is
//! slower than AVX2 in that benchmark but faster inside the compressor
//! (`cargo bench --bench vs_reference`), whose speed is what counts; see
//! docs/performance.md.  The kernels themselves work for every power of two
//! 2..=16, and the tests run them all.
//!
//! The in-register byte permutes are not folded into the first or last
//! round of the transpose (two-source byte permutes, `vpermt2b`, one
//! instruction less per register): that runs at half the speed.

use std::arch::x86_64::*;

/// Elements per step.
const STEP: usize = 64;

/// The index vectors of a `T x T` unit transpose (units of `16 / T` dwords):
/// for each of the `log2(T)` rounds, one vector for the lower register of a
/// pair and one for the upper.  `log2(16) = 4` rounds at most.
pub(crate) struct Transpose<const T: usize> {
    lo: [__m512i; 4],
    hi: [__m512i; 4],
}

impl<const T: usize> Transpose<T> {
    /// Index vectors for `T` registers (`T` a power of two, 2..=16).
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn new() -> Self {
        debug_assert!(T.is_power_of_two() && (2..=16).contains(&T));
        let unit = 16 / T;
        let mut lo = [_mm512_setzero_si512(); 4];
        let mut hi = [_mm512_setzero_si512(); 4];
        let mut b = T / 2;
        for round in 0..T.trailing_zeros() as usize {
            // Round `b` swaps, between registers r and r + b (r without bit
            // b), the units whose index has bit b set in r with those whose
            // index has it clear in r + b.  Indices 0..16 pick a dword of
            // the first operand (register r), 16..32 of the second (r + b).
            let mut l = [0i32; 16];
            let mut h = [0i32; 16];
            for d in 0..16 {
                let j = d / unit;
                if j & b == 0 {
                    l[d] = d as i32;
                    h[d] = (d + b * unit) as i32;
                } else {
                    l[d] = 16 + (d - b * unit) as i32;
                    h[d] = 16 + d as i32;
                }
            }
            lo[round] = load_i32x16(&l);
            hi[round] = load_i32x16(&h);
            b /= 2;
        }
        Transpose { lo, hi }
    }

    /// Transpose the `T x T` matrix of units held in `v` (unit `j` of
    /// register `r` becomes unit `r` of register `j`).
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn apply(&self, v: &mut [__m512i; T]) {
        let mut b = T / 2;
        for round in 0..T.trailing_zeros() as usize {
            let (lo, hi) = (self.lo[round], self.hi[round]);
            for r in 0..T {
                if r & b == 0 {
                    let (x, y) = (v[r], v[r + b]);
                    v[r] = _mm512_permutex2var_epi32(x, lo, y);
                    v[r + b] = _mm512_permutex2var_epi32(x, hi, y);
                }
            }
            b /= 2;
        }
    }
}

#[inline]
#[target_feature(enable = "avx512f")]
fn load_i32x16(a: &[i32; 16]) -> __m512i {
    // SAFETY: `a` is 64 readable bytes; the load is unaligned.
    unsafe { _mm512_loadu_si512(a.as_ptr() as *const __m512i) }
}

/// Byte permute for one register of `64 / T` whole elements: with
/// `forward`, byte `e * T + j` (byte `j` of element `e`) goes to
/// `j * (64 / T) + e`; otherwise the inverse.
#[inline]
#[target_feature(enable = "avx512f")]
fn group_bytes(t: usize, forward: bool) -> __m512i {
    let per = 64 / t;
    let mut idx = [0u8; 64];
    for e in 0..per {
        for j in 0..t {
            let (shuffled, interleaved) = (j * per + e, e * t + j);
            if forward {
                idx[shuffled] = interleaved as u8;
            } else {
                idx[interleaved] = shuffled as u8;
            }
        }
    }
    // SAFETY: `idx` is 64 readable bytes; the load is unaligned.
    unsafe { _mm512_loadu_si512(idx.as_ptr() as *const __m512i) }
}

#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn load(buf: &[u8], at: usize) -> __m512i {
    debug_assert!(at + 64 <= buf.len());
    // SAFETY: callers guarantee `at + 64 <= buf.len()`; unaligned load.
    unsafe { _mm512_loadu_si512(buf.as_ptr().add(at) as *const __m512i) }
}

#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn store(buf: &mut [u8], at: usize, v: __m512i) {
    debug_assert!(at + 64 <= buf.len());
    // SAFETY: callers guarantee `at + 64 <= buf.len()`; unaligned store into
    // an exclusively borrowed buffer.
    unsafe { _mm512_storeu_si512(buf.as_mut_ptr().add(at) as *mut __m512i, v) }
}

/// # Safety
/// `src` and `dest` hold `n` elements of `T` bytes each.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn shuffle_pow2<const T: usize>(
    n: usize,
    start: usize,
    src: &[u8],
    dest: &mut [u8],
) -> usize {
    let net = Transpose::<T>::new();
    let idx = group_bytes(T, true);
    let mut i = start;
    while i + STEP <= n {
        let mut v = [_mm512_setzero_si512(); T];
        // SAFETY: `i + 64 <= n`: the loads read elements `i..i + 64`
        // (register `r < T` ends at `(i + 64) * T`), the stores write row
        // `j < T` at columns `i..i + 64`, ending by `T * n`.
        unsafe {
            for (r, x) in v.iter_mut().enumerate() {
                *x = _mm512_permutexvar_epi8(idx, load(src, i * T + 64 * r));
            }
            net.apply(&mut v);
            for (j, x) in v.iter().enumerate() {
                store(dest, j * n + i, *x);
            }
        }
        i += STEP;
    }
    i
}

/// # Safety
/// `src` and `dest` hold `n` elements of `T` bytes each.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn unshuffle_pow2<const T: usize>(
    n: usize,
    start: usize,
    src: &[u8],
    dest: &mut [u8],
) -> usize {
    let net = Transpose::<T>::new();
    let idx = group_bytes(T, false);
    let mut i = start;
    while i + STEP <= n {
        let mut v = [_mm512_setzero_si512(); T];
        // SAFETY: the mirror of `shuffle_pow2`, with the same bounds.
        unsafe {
            for (j, x) in v.iter_mut().enumerate() {
                *x = load(src, j * n + i);
            }
            net.apply(&mut v);
            for (r, x) in v.iter().enumerate() {
                store(dest, i * T + 64 * r, _mm512_permutexvar_epi8(idx, *x));
            }
        }
        i += STEP;
    }
    i
}

/// Shuffle elements of `src` (exactly `n * ts` bytes, `n` elements) into
/// `dest` (same length), from element `start` (typesizes 2, 4, 8 and 16;
/// 0 for the others) up to the returned element.
///
/// # Safety
/// The CPU must support the features of `Kernel::Avx512` (AVX-512 F, BW,
/// VBMI, and AVX2).
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vbmi")]
pub(super) unsafe fn shuffle(
    ts: usize,
    n: usize,
    start: usize,
    src: &[u8],
    dest: &mut [u8],
) -> usize {
    assert!(src.len() == n * ts && dest.len() == n * ts);
    assert!(start == 0 || (ts.is_power_of_two() && ts <= 16 && start <= n));
    // SAFETY: both buffers hold `n` elements of `ts` bytes (asserted
    // above), which every kernel below needs; the caller guarantees AVX2.
    unsafe {
        match ts {
            2 => shuffle_pow2::<2>(n, start, src, dest),
            4 => shuffle_pow2::<4>(n, start, src, dest),
            8 => shuffle_pow2::<8>(n, start, src, dest),
            16 => shuffle_pow2::<16>(n, start, src, dest),
            _ => super::avx2::shuffle(ts, n, start, src, dest),
        }
    }
}

/// Unshuffle counterpart of [`shuffle`] (from element `start` likewise);
/// `streaming` (non-temporal stores) goes to the AVX2 kernel, which has
/// them.
///
/// # Safety
/// As for [`shuffle`].
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vbmi")]
pub(super) unsafe fn unshuffle(
    ts: usize,
    n: usize,
    start: usize,
    src: &[u8],
    dest: &mut [u8],
    streaming: bool,
) -> usize {
    assert!(src.len() == n * ts && dest.len() == n * ts);
    assert!(start == 0 || (ts.is_power_of_two() && ts <= 16 && start <= n));
    // SAFETY: both buffers hold `n` elements of `ts` bytes (asserted
    // above), which every kernel below needs; the caller guarantees AVX2.
    unsafe {
        match (ts, streaming) {
            (2, false) => unshuffle_pow2::<2>(n, start, src, dest),
            (16, false) => unshuffle_pow2::<16>(n, start, src, dest),
            _ => super::avx2::unshuffle(ts, n, start, src, dest, streaming),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::dispatch::Kernel;
    use rand::{Rng, SeedableRng};

    /// Every power-of-two kernel, also those the dispatcher leaves to AVX2,
    /// equals the scalar transpose on the elements it reports done.
    fn check<const T: usize>() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(T as u64);
        for n in [0, 63, 64, 65, 200, 1000, 4096 + 3] {
            let src: Vec<u8> = (0..n * T).map(|_| rng.gen()).collect();
            let mut expect = vec![0u8; n * T];
            super::super::shuffle_with(Kernel::Scalar, T, &src, &mut expect);
            let mut got = vec![0u8; n * T];
            // SAFETY: the caller checked that the CPU has the features.
            let done = unsafe { shuffle_pow2::<T>(n, 0, &src, &mut got) };
            assert_eq!(done, n / STEP * STEP, "T={T} n={n}");
            for j in 0..T {
                let row = j * n..j * n + done;
                assert_eq!(got[row.clone()], expect[row], "shuffle T={T} n={n}");
            }
            let mut back = vec![0u8; n * T];
            // SAFETY: as above.
            let done = unsafe { unshuffle_pow2::<T>(n, 0, &expect, &mut back) };
            assert_eq!(back[..done * T], src[..done * T], "unshuffle T={T} n={n}");
        }
    }

    #[test]
    fn all_power_of_two_kernels_match_scalar() {
        if !Kernel::Avx512.is_supported() {
            eprintln!("no AVX-512 (with VBMI and GFNI) here: nothing to check");
            return;
        }
        check::<2>();
        check::<4>();
        check::<8>();
        check::<16>();
    }
}
