//! AVX2 byte-shuffle kernels.
//!
//! Same interleaving network as the SSE2 kernels (see `sse2.rs`), but AVX2
//! unpacks work inside each 128-bit lane, so every 256-bit register carries
//! two independent 16-element problems: the low lane elements `i..i+16`, the
//! high lane elements `i+16..i+32`.  Loads and stores place the lanes so that
//! shuffled rows come out as 32 contiguous bytes.

use std::arch::x86_64::*;

/// Elements per SIMD step.
pub(super) const STEP: usize = 32;

#[inline]
#[target_feature(enable = "avx2")]
fn stage<const N: usize>(v: [__m256i; N]) -> [__m256i; N] {
    let h = N / 2;
    let mut out = [_mm256_setzero_si256(); N];
    for p in 0..h {
        out[2 * p] = _mm256_unpacklo_epi8(v[p], v[p + h]);
        out[2 * p + 1] = _mm256_unpackhi_epi8(v[p], v[p + h]);
    }
    out
}

#[inline]
#[target_feature(enable = "avx2")]
fn stages<const N: usize>(mut v: [__m256i; N], count: u32) -> [__m256i; N] {
    for _ in 0..count {
        v = stage(v);
    }
    v
}

/// 16 bytes from `buf[lo..]` in the low lane and from `buf[hi..]` in the high
/// lane.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load_pair(buf: &[u8], lo: usize, hi: usize) -> __m256i {
    debug_assert!(lo + 16 <= buf.len() && hi + 16 <= buf.len());
    // SAFETY: callers guarantee both 16-byte ranges lie inside `buf`; the
    // loads are unaligned.
    let (a, b) = unsafe {
        let p = buf.as_ptr();
        (
            _mm_loadu_si128(p.add(lo) as *const __m128i),
            _mm_loadu_si128(p.add(hi) as *const __m128i),
        )
    };
    _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(a), b)
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load(buf: &[u8], at: usize) -> __m256i {
    debug_assert!(at + 32 <= buf.len());
    // SAFETY: callers guarantee `at + 32 <= buf.len()`; unaligned load.
    unsafe { _mm256_loadu_si256(buf.as_ptr().add(at) as *const __m256i) }
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn store(buf: &mut [u8], at: usize, v: __m256i) {
    debug_assert!(at + 32 <= buf.len());
    // SAFETY: callers guarantee `at + 32 <= buf.len()`; unaligned store into
    // an exclusively borrowed buffer.
    unsafe { _mm256_storeu_si256(buf.as_mut_ptr().add(at) as *mut __m256i, v) }
}

/// Store the low lane at `buf[lo..]` and the high lane at `buf[hi..]`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn store_pair(buf: &mut [u8], lo: usize, hi: usize, v: __m256i) {
    debug_assert!(lo + 16 <= buf.len() && hi + 16 <= buf.len());
    let a = _mm256_castsi256_si128(v);
    let b = _mm256_extracti128_si256::<1>(v);
    // SAFETY: callers guarantee both 16-byte ranges lie inside `buf`;
    // unaligned stores into an exclusively borrowed buffer.
    unsafe {
        let p = buf.as_mut_ptr();
        _mm_storeu_si128(p.add(lo) as *mut __m128i, a);
        _mm_storeu_si128(p.add(hi) as *mut __m128i, b);
    }
}

/// The shuffled rows of elements `i..i + STEP`, one register per row.
///
/// # Safety
/// `src` holds elements `i..i + STEP` of `T` bytes each.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn shuffle_step<const T: usize>(src: &[u8], i: usize) -> [__m256i; T] {
    let mut v = [_mm256_setzero_si256(); T];
    for (k, r) in v.iter_mut().enumerate() {
        // SAFETY: both 16-byte pieces lie inside elements `i..i + 32`
        // (`16 * k + 16 <= 16 * T`), which the caller guarantees `src` holds.
        *r = unsafe { load_pair(src, i * T + 16 * k, (i + 16) * T + 16 * k) };
    }
    stages(v, 4)
}

/// # Safety
/// `src` and `dest` hold `n` elements of `T` bytes each.
#[target_feature(enable = "avx2")]
unsafe fn shuffle_pow2<const T: usize>(
    n: usize,
    start: usize,
    src: &[u8],
    dest: &mut [u8],
) -> usize {
    let mut i = start;
    // Two steps per round, so that each row receives 64 contiguous bytes (a
    // whole cache line) at once.  The rows are `n` bytes apart, often a
    // multiple of 4 KiB: with 8 or more of them the lines they write compete
    // for the same L1 set, and a half-written line gets evicted and read
    // back before its second half arrives.
    while i + 2 * STEP <= n {
        // SAFETY: elements `i..i + 2 * STEP` exist (`i + 2 * STEP <= n`);
        // row `j < T` is written at columns `i..i + 2 * STEP`, ending by
        // `T * n`.
        unsafe {
            let a = shuffle_step::<T>(src, i);
            let b = shuffle_step::<T>(src, i + STEP);
            for j in 0..T {
                store(dest, j * n + i, a[j]);
                store(dest, j * n + i + STEP, b[j]);
            }
        }
        i += 2 * STEP;
    }
    while i + STEP <= n {
        // SAFETY: as above, for one step (`i + STEP <= n`).
        unsafe {
            let v = shuffle_step::<T>(src, i);
            for (j, r) in v.iter().enumerate() {
                store(dest, j * n + i, *r);
            }
        }
        i += STEP;
    }
    i
}

/// # Safety
/// Each of the `T` rows holds `n` bytes and `dest` holds `n` elements of `T`
/// bytes; with `NT`, `dest` at element `start` is 16-byte aligned.
#[target_feature(enable = "avx2")]
unsafe fn unshuffle_pow2<const T: usize, const NT: bool>(
    n: usize,
    start: usize,
    rows: &[&[u8]; T],
    dest: &mut [u8],
) -> usize {
    let mut i = start;
    while i + STEP <= n {
        let mut v = [_mm256_setzero_si256(); T];
        for (j, r) in v.iter_mut().enumerate() {
            // SAFETY: row `j < T` holds `n` bytes, and `i + STEP <= n`.
            *r = unsafe { load(rows[j], i) };
        }
        let v = stages(v, T.trailing_zeros());
        // Register k holds bytes 16k.. of the low block in its low lane and
        // of the high block in its high lane; pair registers up for 32-byte
        // stores, written in address order: the low block's `T / 2` stores,
        // then the high block's.  (Alternating between the two blocks puts
        // consecutive stores in different cache lines, which Intel cores
        // commit more slowly when the output misses the cache.)
        for half in 0..2 {
            for m in 0..T / 2 {
                let r = if half == 0 {
                    _mm256_permute2x128_si256::<0x20>(v[2 * m], v[2 * m + 1])
                } else {
                    _mm256_permute2x128_si256::<0x31>(v[2 * m], v[2 * m + 1])
                };
                let at = (i + 16 * half) * T + 32 * m;
                // SAFETY: `at + 32` is at most `(i + 32) * T`, inside the
                // `n` elements; every `at` is `start * T` plus a multiple of
                // 32, so aligned whenever the first one is (required by
                // the caller for `NT`).
                unsafe {
                    if NT {
                        store_nt(dest, at, r);
                    } else {
                        store(dest, at, r);
                    }
                }
            }
        }
        i += STEP;
    }
    if NT {
        // Order the streaming stores before whatever tells another thread
        // that the block is done.
        _mm_sfence();
    }
    i
}

/// Like [`store`] but with non-temporal (streaming) stores, which write the
/// line to memory without first reading it into the cache.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn store_nt(buf: &mut [u8], at: usize, v: __m256i) {
    debug_assert!(at + 32 <= buf.len() && (buf.as_ptr() as usize + at).is_multiple_of(16));
    let a = _mm256_castsi256_si128(v);
    let b = _mm256_extracti128_si256::<1>(v);
    // SAFETY: callers guarantee `at + 32 <= buf.len()` and a 16-byte aligned
    // `buf[at..]` (what `_mm_stream_si128` needs); the buffer is exclusively
    // borrowed.
    unsafe {
        let p = buf.as_mut_ptr().add(at);
        _mm_stream_si128(p as *mut __m128i, a);
        _mm_stream_si128(p.add(16) as *mut __m128i, b);
    }
}

/// See `sse2::columns`.
fn columns(ts: usize) -> impl Iterator<Item = usize> {
    let full = ts / 16;
    let extra = if !ts.is_multiple_of(16) {
        Some(ts - 16)
    } else {
        None
    };
    (0..full).map(|c| c * 16).chain(extra)
}

/// # Safety
/// `src` and `dest` hold `n` elements of `ts` bytes each.
#[target_feature(enable = "avx2")]
unsafe fn shuffle_wide(ts: usize, n: usize, src: &[u8], dest: &mut [u8]) -> usize {
    let mut i = 0;
    while i + STEP <= n {
        for c in columns(ts) {
            let mut v = [_mm256_setzero_si256(); 16];
            // SAFETY: `c + 16 <= ts` (see `columns`) and `i + STEP <= n`:
            // the loads read bytes `c..c + 16` of elements below `n`, the
            // stores write row `c + jj < ts` at columns `i..i + STEP`.
            unsafe {
                for (e, r) in v.iter_mut().enumerate() {
                    *r = load_pair(src, (i + e) * ts + c, (i + 16 + e) * ts + c);
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

/// # Safety
/// `src` and `dest` hold `n` elements of `ts` bytes each.
#[target_feature(enable = "avx2")]
unsafe fn unshuffle_wide(ts: usize, n: usize, src: &[u8], dest: &mut [u8]) -> usize {
    let mut i = 0;
    while i + STEP <= n {
        for c in columns(ts) {
            let mut v = [_mm256_setzero_si256(); 16];
            // SAFETY: the mirror of `shuffle_wide`, with the same bounds.
            unsafe {
                for (jj, r) in v.iter_mut().enumerate() {
                    *r = load(src, (c + jj) * n + i);
                }
                let v = stages(v, 4);
                for (e, r) in v.iter().enumerate() {
                    store_pair(dest, (i + e) * ts + c, (i + 16 + e) * ts + c, *r);
                }
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
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn shuffle(
    ts: usize,
    n: usize,
    start: usize,
    src: &[u8],
    dest: &mut [u8],
) -> usize {
    assert!(src.len() == n * ts && dest.len() == n * ts);
    assert!(start == 0 || (ts.is_power_of_two() && ts <= 16 && start <= n));
    // SAFETY: both buffers hold `n` elements of `ts` bytes (asserted above),
    // which is what every kernel below needs; AVX2 implies SSE2.
    unsafe {
        match ts {
            2 => shuffle_pow2::<2>(n, start, src, dest),
            4 => shuffle_pow2::<4>(n, start, src, dest),
            8 => shuffle_pow2::<8>(n, start, src, dest),
            16 => shuffle_pow2::<16>(n, start, src, dest),
            t if t > 16 => shuffle_wide(ts, n, src, dest),
            _ => super::sse2::shuffle(ts, n, src, dest),
        }
    }
}

/// Unshuffle counterpart of [`shuffle`], from element `start` (typesizes 2,
/// 4, 8 and 16; 0 for the others). With `streaming`, typesizes 2, 4, 8 and
/// 16 whose first store lands on a 16-byte boundary use non-temporal stores
/// (the same bytes; for output that will not be read again soon).
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
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
    // above); AVX2 implies SSE2.
    unsafe {
        match ts {
            2 | 4 | 8 | 16 => {
                let mut rows: [&[u8]; 16] = [&[]; 16];
                for (j, row) in rows[..ts].iter_mut().enumerate() {
                    *row = &src[j * n..(j + 1) * n];
                }
                unshuffle_rows(n, start, &rows[..ts], dest, streaming)
            }
            t if t > 16 => unshuffle_wide(ts, n, src, dest),
            _ => super::sse2::unshuffle(ts, n, src, dest),
        }
    }
}

/// Unshuffle elements `start..` of rows that need not be adjacent: `rows[j]`
/// is byte `j` of each of the `n` elements (typesizes 2, 4, 8 and 16, the
/// number of rows; 0 elements done for the others), up to the returned
/// element.  With `streaming`, non-temporal stores when the first store
/// lands on a 16-byte boundary.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn unshuffle_rows(
    n: usize,
    start: usize,
    rows: &[&[u8]],
    dest: &mut [u8],
    streaming: bool,
) -> usize {
    let ts = rows.len();
    assert!(dest.len() == n * ts && rows.iter().all(|r| r.len() == n) && start <= n);
    // Every store of the pow2 kernels lands at a multiple of 32 bytes from
    // the first one, so an aligned first store keeps them all aligned.
    let nt = streaming && (dest.as_ptr() as usize + start * ts).is_multiple_of(16);
    // SAFETY: every row holds `n` bytes and `dest` `n` elements of `ts`
    // bytes (asserted above); `nt` only when the first store is aligned.
    unsafe {
        match (ts, nt) {
            (2, false) => unshuffle_pow2::<2, false>(n, start, as_array(rows), dest),
            (4, false) => unshuffle_pow2::<4, false>(n, start, as_array(rows), dest),
            (8, false) => unshuffle_pow2::<8, false>(n, start, as_array(rows), dest),
            (16, false) => unshuffle_pow2::<16, false>(n, start, as_array(rows), dest),
            (2, true) => unshuffle_pow2::<2, true>(n, start, as_array(rows), dest),
            (4, true) => unshuffle_pow2::<4, true>(n, start, as_array(rows), dest),
            (8, true) => unshuffle_pow2::<8, true>(n, start, as_array(rows), dest),
            (16, true) => unshuffle_pow2::<16, true>(n, start, as_array(rows), dest),
            _ => 0,
        }
    }
}

/// `rows` as an array of `T` rows (`rows.len() == T`: the caller matched
/// on it).
fn as_array<'r, 'a, const T: usize>(rows: &'r [&'a [u8]]) -> &'r [&'a [u8]; T] {
    rows.try_into()
        .expect("as many rows as the kernel's typesize")
}
