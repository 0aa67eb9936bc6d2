//! SSE2 byte-shuffle kernels.
//!
//! The work horse is [`stage`]: for a set of N registers it interleaves the
//! bytes of register `p` with those of register `p + N/2`.  Viewing the byte
//! address inside the group of registers as a bit string, one stage moves the
//! top bit of the register index into the lowest bit of the byte index, and
//! the top bit of the byte index into the lowest bit of the register index.
//! Four stages therefore turn 16 elements of T bytes (T registers) into T rows
//! of 16 bytes, and log2(T) stages undo that.  For T >= 16 the same 16x16
//! transpose is applied to 16-byte column slices of the elements.

use std::arch::x86_64::*;

/// Elements per SIMD step.
const STEP: usize = 16;

#[inline]
#[target_feature(enable = "sse2")]
fn stage<const N: usize>(v: [__m128i; N]) -> [__m128i; N] {
    let h = N / 2;
    let mut out = [_mm_setzero_si128(); N];
    for p in 0..h {
        out[2 * p] = _mm_unpacklo_epi8(v[p], v[p + h]);
        out[2 * p + 1] = _mm_unpackhi_epi8(v[p], v[p + h]);
    }
    out
}

/// Apply `count` stages.
#[inline]
#[target_feature(enable = "sse2")]
fn stages<const N: usize>(mut v: [__m128i; N], count: u32) -> [__m128i; N] {
    for _ in 0..count {
        v = stage(v);
    }
    v
}

#[inline]
#[target_feature(enable = "sse2")]
unsafe fn load(buf: &[u8], at: usize) -> __m128i {
    debug_assert!(at + 16 <= buf.len());
    // SAFETY: callers only pass offsets with `at + 16 <= buf.len()`; the load
    // is unaligned.
    unsafe { _mm_loadu_si128(buf.as_ptr().add(at) as *const __m128i) }
}

#[inline]
#[target_feature(enable = "sse2")]
unsafe fn store(buf: &mut [u8], at: usize, v: __m128i) {
    debug_assert!(at + 16 <= buf.len());
    // SAFETY: callers only pass offsets with `at + 16 <= buf.len()`; the
    // store is unaligned and `buf` is exclusively borrowed.
    unsafe { _mm_storeu_si128(buf.as_mut_ptr().add(at) as *mut __m128i, v) }
}

/// Shuffle for a power-of-two typesize T in 2..=16.
///
/// # Safety
/// `src` and `dest` hold `n` elements of `T` bytes each.
#[target_feature(enable = "sse2")]
unsafe fn shuffle_pow2<const T: usize>(n: usize, src: &[u8], dest: &mut [u8]) -> usize {
    let mut i = 0;
    while i + STEP <= n {
        let mut v = [_mm_setzero_si128(); T];
        // SAFETY: elements `i..i + 16` lie inside `src` (`i + 16 <= n`), so
        // each 16-byte load ending at `(i + 16) * T` does; each store writes
        // row `j < T` at column `i`, ending at `j * n + i + 16 <= T * n`.
        unsafe {
            for (k, r) in v.iter_mut().enumerate() {
                *r = load(src, i * T + 16 * k);
            }
            let v = stages(v, 4);
            for (j, r) in v.iter().enumerate() {
                store(dest, j * n + i, *r);
            }
        }
        i += STEP;
    }
    i
}

/// Unshuffle for a power-of-two typesize T in 2..=16.
///
/// # Safety
/// `src` and `dest` hold `n` elements of `T` bytes each.
#[target_feature(enable = "sse2")]
unsafe fn unshuffle_pow2<const T: usize>(n: usize, src: &[u8], dest: &mut [u8]) -> usize {
    let mut i = 0;
    while i + STEP <= n {
        let mut v = [_mm_setzero_si128(); T];
        // SAFETY: the mirror of `shuffle_pow2`: loads read row `j < T` at
        // column `i` (ending at `j * n + i + 16 <= T * n`), stores write
        // elements `i..i + 16`, all inside the `n * T` bytes of each buffer.
        unsafe {
            for (j, r) in v.iter_mut().enumerate() {
                *r = load(src, j * n + i);
            }
            let v = stages(v, T.trailing_zeros());
            for (k, r) in v.iter().enumerate() {
                store(dest, i * T + 16 * k, *r);
            }
        }
        i += STEP;
    }
    i
}

/// Start of each 16-byte column slice of an element of `ts >= 16` bytes.
/// The last slice may overlap the previous one; it then rewrites identical
/// bytes, which is harmless.
fn columns(ts: usize) -> impl Iterator<Item = usize> {
    let full = ts / 16;
    let extra = if !ts.is_multiple_of(16) {
        Some(ts - 16)
    } else {
        None
    };
    (0..full).map(|c| c * 16).chain(extra)
}

/// Shuffle for any typesize >= 16 (16-byte column slices).
///
/// # Safety
/// `src` and `dest` hold `n` elements of `ts` bytes each.
#[target_feature(enable = "sse2")]
unsafe fn shuffle_wide(ts: usize, n: usize, src: &[u8], dest: &mut [u8]) -> usize {
    let mut i = 0;
    while i + STEP <= n {
        for c in columns(ts) {
            let mut v = [_mm_setzero_si128(); 16];
            // SAFETY: `c + 16 <= ts` (see `columns`) and `i + 16 <= n`: each
            // load reads bytes `c..c + 16` of an element below `n`, each
            // store writes row `c + jj < ts` at column `i`, ending by `ts * n`.
            unsafe {
                for (e, r) in v.iter_mut().enumerate() {
                    *r = load(src, (i + e) * ts + c);
                }
                let v = stages(v, 4);
                for (jj, r) in v.iter().enumerate() {
                    store(dest, (c + jj) * n + i, *r);
                }
            }
        }
        i += STEP;
    }
    i
}

/// Unshuffle for any typesize >= 16 (16-byte column slices).
///
/// # Safety
/// `src` and `dest` hold `n` elements of `ts` bytes each.
#[target_feature(enable = "sse2")]
unsafe fn unshuffle_wide(ts: usize, n: usize, src: &[u8], dest: &mut [u8]) -> usize {
    let mut i = 0;
    while i + STEP <= n {
        for c in columns(ts) {
            let mut v = [_mm_setzero_si128(); 16];
            // SAFETY: the mirror of `shuffle_wide`, with the same bounds.
            unsafe {
                for (jj, r) in v.iter_mut().enumerate() {
                    *r = load(src, (c + jj) * n + i);
                }
                let v = stages(v, 4);
                for (e, r) in v.iter().enumerate() {
                    store(dest, (i + e) * ts + c, *r);
                }
            }
        }
        i += STEP;
    }
    i
}

/// Read the `W` bytes at `buf[at..]` as a little-endian integer.
#[inline(always)]
fn read_piece<const W: usize>(buf: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b[..W].copy_from_slice(&buf[at..at + W]);
    u64::from_le_bytes(b)
}

/// Write the low `W` bytes of `v` to `buf[at..]`.
#[inline(always)]
fn write_piece<const W: usize>(buf: &mut [u8], at: usize, v: u64) {
    buf[at..at + W].copy_from_slice(&v.to_le_bytes()[..W]);
}

/// Start of each `W`-byte column slice of an element of `ts > W` bytes (the
/// last one may overlap its predecessor).
fn slices<const W: usize>(ts: usize) -> impl Iterator<Item = usize> {
    let extra = if !ts.is_multiple_of(W) {
        Some(ts - W)
    } else {
        None
    };
    (0..ts / W).map(|c| c * W).chain(extra)
}

/// Shuffle for typesizes that are not powers of two, below 16: the elements
/// are cut into `W`-byte column slices (W = 2, 4 or 8); 16 elements' worth of
/// one slice is packed into W registers exactly like the input of
/// `shuffle_pow2::<W>`, and the same network produces W output rows.
///
/// # Safety
/// `dest` holds `n` elements of `ts` bytes (`src` is read with bounds checks).
#[target_feature(enable = "sse2")]
unsafe fn shuffle_sliced<const W: usize>(
    ts: usize,
    n: usize,
    src: &[u8],
    dest: &mut [u8],
) -> usize {
    let per = 16 / W;
    let mut i = 0;
    while i + STEP <= n {
        for c in slices::<W>(ts) {
            let mut v = [_mm_setzero_si128(); W];
            for (k, r) in v.iter_mut().enumerate() {
                let mut half = [0u64; 2];
                for p in 0..per {
                    let e = i + k * per + p;
                    let bit = (p * W % 8) * 8;
                    half[p * W / 8] |= read_piece::<W>(src, e * ts + c) << bit;
                }
                *r = _mm_set_epi64x(half[1] as i64, half[0] as i64);
            }
            let v = stages(v, 4);
            for (jj, r) in v.iter().enumerate() {
                // SAFETY: `c + W <= ts` (see `slices`) so row `c + jj` is
                // below `ts`, and `i + 16 <= n`: the store ends by `ts * n`.
                unsafe { store(dest, (c + jj) * n + i, *r) };
            }
        }
        i += STEP;
    }
    i
}

/// Inverse of [`shuffle_sliced`].
///
/// # Safety
/// `src` holds `n` elements of `ts` bytes (`dest` is written with bounds
/// checks).
#[target_feature(enable = "sse2")]
unsafe fn unshuffle_sliced<const W: usize>(
    ts: usize,
    n: usize,
    src: &[u8],
    dest: &mut [u8],
) -> usize {
    let per = 16 / W;
    let mut i = 0;
    while i + STEP <= n {
        for c in slices::<W>(ts) {
            let mut v = [_mm_setzero_si128(); W];
            for (jj, r) in v.iter_mut().enumerate() {
                // SAFETY: as the stores of `shuffle_sliced`: row `c + jj`
                // is below `ts` and `i + 16 <= n`.
                *r = unsafe { load(src, (c + jj) * n + i) };
            }
            let v = stages(v, W.trailing_zeros());
            for (k, r) in v.iter().enumerate() {
                let half = [
                    _mm_cvtsi128_si64(*r) as u64,
                    _mm_cvtsi128_si64(_mm_unpackhi_epi64(*r, *r)) as u64,
                ];
                for p in 0..per {
                    let e = i + k * per + p;
                    let bit = (p * W % 8) * 8;
                    write_piece::<W>(dest, e * ts + c, half[p * W / 8] >> bit);
                }
            }
        }
        i += STEP;
    }
    i
}

/// Shuffle a prefix of the `n` elements of `src` (exactly `n * ts` bytes)
/// into `dest` (same length); returns how many elements were done.
///
/// # Safety
/// The CPU must support SSE2.
#[target_feature(enable = "sse2")]
pub(super) unsafe fn shuffle(ts: usize, n: usize, src: &[u8], dest: &mut [u8]) -> usize {
    assert!(src.len() == n * ts && dest.len() == n * ts);
    // SAFETY: both buffers hold `n` elements of `ts` bytes (asserted above),
    // which is what every kernel below needs.
    unsafe {
        match ts {
            2 => shuffle_pow2::<2>(n, src, dest),
            4 => shuffle_pow2::<4>(n, src, dest),
            8 => shuffle_pow2::<8>(n, src, dest),
            16 => shuffle_pow2::<16>(n, src, dest),
            t if t > 16 => shuffle_wide(ts, n, src, dest),
            t if t > 8 => shuffle_sliced::<8>(ts, n, src, dest),
            t if t > 4 => shuffle_sliced::<4>(ts, n, src, dest),
            3 => shuffle_sliced::<2>(ts, n, src, dest),
            _ => 0,
        }
    }
}

/// Unshuffle counterpart of [`shuffle`].
///
/// # Safety
/// The CPU must support SSE2.
#[target_feature(enable = "sse2")]
pub(super) unsafe fn unshuffle(ts: usize, n: usize, src: &[u8], dest: &mut [u8]) -> usize {
    assert!(src.len() == n * ts && dest.len() == n * ts);
    // SAFETY: both buffers hold `n` elements of `ts` bytes (asserted above),
    // which is what every kernel below needs.
    unsafe {
        match ts {
            2 => unshuffle_pow2::<2>(n, src, dest),
            4 => unshuffle_pow2::<4>(n, src, dest),
            8 => unshuffle_pow2::<8>(n, src, dest),
            16 => unshuffle_pow2::<16>(n, src, dest),
            t if t > 16 => unshuffle_wide(ts, n, src, dest),
            t if t > 8 => unshuffle_sliced::<8>(ts, n, src, dest),
            t if t > 4 => unshuffle_sliced::<4>(ts, n, src, dest),
            3 => unshuffle_sliced::<2>(ts, n, src, dest),
            _ => 0,
        }
    }
}
