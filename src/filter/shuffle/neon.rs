//! NEON byte-shuffle kernels (aarch64).
//!
//! Four schemes, by typesize:
//!
//! * 2, 3 and 4 bytes: the structure loads `ld2`/`ld3`/`ld4` de-interleave
//!   16 elements straight into one register per byte row, and the structure
//!   stores `st2`/`st3`/`st4` interleave them back.
//! * 8 and 16 bytes (`4 * g` with g = 2 or 4): `ld4` splits the 16 elements
//!   by byte index modulo 4, which leaves g registers per residue whose
//!   bytes still alternate between g rows; log2(g) rounds of `uzp1`/`uzp2`
//!   separate them.  Unshuffling runs `zip1`/`zip2` rounds, then `st4`.
//! * Other sizes below 16: the 16 elements (16 * T contiguous bytes) are
//!   loaded as a table of T registers and every row is gathered from it with
//!   the `tbl`/`tbx` lookups (64 table bytes per lookup); unshuffling looks up
//!   the T output registers in the table formed by the T rows.
//! * Above 16: 16-byte column slices of 16 elements are transposed with four
//!   rounds of `zip1`/`zip2` (a 16x16 byte transpose), as in the x86 kernels.
//!
//! Every routine handles a prefix of whole 16-element steps and returns its
//! length; the caller's scalar loop does the rest.

use std::arch::aarch64::*;

/// Elements per SIMD step.
const STEP: usize = 16;

#[inline]
#[target_feature(enable = "neon")]
fn load(buf: &[u8], at: usize) -> uint8x16_t {
    assert!(at + 16 <= buf.len());
    // SAFETY: `at + 16 <= buf.len()` was just checked; `ld1`
    // has no alignment requirement.
    unsafe { vld1q_u8(buf.as_ptr().add(at)) }
}

#[inline]
#[target_feature(enable = "neon")]
fn store(buf: &mut [u8], at: usize, v: uint8x16_t) {
    assert!(at + 16 <= buf.len());
    // SAFETY: `at + 16 <= buf.len()` was just checked; `buf` is
    // exclusively borrowed and `st1` has no alignment requirement.
    unsafe { vst1q_u8(buf.as_mut_ptr().add(at), v) }
}

/// A register holding the 16 given bytes.
#[inline]
#[target_feature(enable = "neon")]
fn from_bytes(bytes: [u8; 16]) -> uint8x16_t {
    // SAFETY: `bytes` is a local array of exactly 16 bytes.
    unsafe { vld1q_u8(bytes.as_ptr()) }
}

/// The 32 bytes at `buf[at..]`, split by index modulo 2.
#[inline]
#[target_feature(enable = "neon")]
fn ld2(buf: &[u8], at: usize) -> uint8x16x2_t {
    assert!(at + 32 <= buf.len());
    // SAFETY: `at + 32 <= buf.len()` was just checked: those are the
    // bytes `ld2` reads; no alignment requirement.
    unsafe { vld2q_u8(buf.as_ptr().add(at)) }
}

/// The 48 bytes at `buf[at..]`, split by index modulo 3.
#[inline]
#[target_feature(enable = "neon")]
fn ld3(buf: &[u8], at: usize) -> uint8x16x3_t {
    assert!(at + 48 <= buf.len());
    // SAFETY: `at + 48 <= buf.len()` was just checked: those are the
    // bytes `ld3` reads; no alignment requirement.
    unsafe { vld3q_u8(buf.as_ptr().add(at)) }
}

/// The 64 bytes at `buf[at..]`, split by index modulo 4.
#[inline]
#[target_feature(enable = "neon")]
fn ld4(buf: &[u8], at: usize) -> uint8x16x4_t {
    assert!(at + 64 <= buf.len());
    // SAFETY: `at + 64 <= buf.len()` was just checked: those are the
    // bytes `ld4` reads; no alignment requirement.
    unsafe { vld4q_u8(buf.as_ptr().add(at)) }
}

/// Inverse of [`ld2`].
#[inline]
#[target_feature(enable = "neon")]
fn st2(buf: &mut [u8], at: usize, v: uint8x16x2_t) {
    assert!(at + 32 <= buf.len());
    // SAFETY: `at + 32 <= buf.len()` was just checked: those are the
    // bytes `st2` writes; `buf` is exclusively borrowed.
    unsafe { vst2q_u8(buf.as_mut_ptr().add(at), v) }
}

/// Inverse of [`ld3`].
#[inline]
#[target_feature(enable = "neon")]
fn st3(buf: &mut [u8], at: usize, v: uint8x16x3_t) {
    assert!(at + 48 <= buf.len());
    // SAFETY: `at + 48 <= buf.len()` was just checked: those are the
    // bytes `st3` writes; `buf` is exclusively borrowed.
    unsafe { vst3q_u8(buf.as_mut_ptr().add(at), v) }
}

/// Inverse of [`ld4`].
#[inline]
#[target_feature(enable = "neon")]
fn st4(buf: &mut [u8], at: usize, v: uint8x16x4_t) {
    assert!(at + 64 <= buf.len());
    // SAFETY: `at + 64 <= buf.len()` was just checked: those are the
    // bytes `st4` writes; `buf` is exclusively borrowed.
    unsafe { vst4q_u8(buf.as_mut_ptr().add(at), v) }
}

/// One de-interleaving round on the first `g` registers of `v` (g = 2 or
/// 4), seen as one 16g-byte vector: register p of the result gathers its
/// even bytes for p < g/2 and its odd bytes for p >= g/2 (in order).
#[inline]
#[target_feature(enable = "neon")]
fn unzip_round(v: [uint8x16_t; 4], g: usize) -> [uint8x16_t; 4] {
    let h = g / 2;
    let mut out = v;
    for p in 0..h {
        out[p] = vuzp1q_u8(v[2 * p], v[2 * p + 1]);
        out[p + h] = vuzp2q_u8(v[2 * p], v[2 * p + 1]);
    }
    out
}

/// Inverse of [`unzip_round`].
#[inline]
#[target_feature(enable = "neon")]
fn zip_round(v: [uint8x16_t; 4], g: usize) -> [uint8x16_t; 4] {
    let h = g / 2;
    let mut out = v;
    for p in 0..h {
        out[2 * p] = vzip1q_u8(v[p], v[p + h]);
        out[2 * p + 1] = vzip2q_u8(v[p], v[p + h]);
    }
    out
}

/// The T byte rows (16 bytes each) of the 16 elements of T bytes that start
/// at `src[at..]`, for T in {2, 3, 4, 8, 16}.
#[inline]
#[target_feature(enable = "neon")]
fn split16<const T: usize>(src: &[u8], at: usize) -> [uint8x16_t; T] {
    let zero = vdupq_n_u8(0);
    let mut rows = [zero; T];
    match T {
        2 => {
            let v = ld2(src, at);
            rows.copy_from_slice(&[v.0, v.1]);
        }
        3 => {
            let v = ld3(src, at);
            rows.copy_from_slice(&[v.0, v.1, v.2]);
        }
        _ => {
            // T = 4g.  Byte 4m + k of the l-th 64-byte run is byte
            // 4 * (m % g) + k of element 16l/g + m/g, so register k of that
            // run holds rows k, k + 4, ... in turn; g-way de-interleaving of
            // the g registers k (in run order) yields those rows.
            let g = T / 4;
            let mut runs = [[zero; 4]; 4];
            for (l, run) in runs.iter_mut().enumerate().take(g) {
                let v = ld4(src, at + 64 * l);
                *run = [v.0, v.1, v.2, v.3];
            }
            for k in 0..4 {
                let mut col = [runs[0][k], runs[1][k], runs[2][k], runs[3][k]];
                for _ in 0..g.trailing_zeros() {
                    col = unzip_round(col, g);
                }
                for (r, v) in col.iter().enumerate().take(g) {
                    rows[4 * r + k] = *v;
                }
            }
        }
    }
    rows
}

/// Inverse of [`split16`]: write the 16 elements whose T byte rows are
/// `rows` to `dest[at..at + 16 * T]`.
#[inline]
#[target_feature(enable = "neon")]
fn merge16<const T: usize>(rows: [uint8x16_t; T], dest: &mut [u8], at: usize) {
    match T {
        2 => st2(dest, at, uint8x16x2_t(rows[0], rows[1])),
        3 => st3(dest, at, uint8x16x3_t(rows[0], rows[1], rows[2])),
        _ => {
            let g = T / 4;
            let zero = vdupq_n_u8(0);
            let mut runs = [[zero; 4]; 4];
            for k in 0..4 {
                let mut col = [zero; 4];
                for (r, v) in col.iter_mut().enumerate().take(g) {
                    *v = rows[4 * r + k];
                }
                for _ in 0..g.trailing_zeros() {
                    col = zip_round(col, g);
                }
                for (run, v) in runs.iter_mut().zip(col).take(g) {
                    run[k] = v;
                }
            }
            for (l, run) in runs.iter().enumerate().take(g) {
                st4(
                    dest,
                    at + 64 * l,
                    uint8x16x4_t(run[0], run[1], run[2], run[3]),
                );
            }
        }
    }
}

/// Shuffle for T in {2, 3, 4, 8, 16}.  R steps per round, so that each row
/// receives 16R contiguous bytes at once (rows are `n` bytes apart, often a
/// multiple of 4 KiB, and compete for the same cache sets).
#[target_feature(enable = "neon")]
fn shuffle_split<const T: usize, const R: usize>(n: usize, src: &[u8], dest: &mut [u8]) -> usize {
    let zero = vdupq_n_u8(0);
    let mut i = 0;
    while i + R * STEP <= n {
        let mut steps = [[zero; T]; R];
        for (s, rows) in steps.iter_mut().enumerate() {
            *rows = split16::<T>(src, (i + s * STEP) * T);
        }
        for j in 0..T {
            for (s, rows) in steps.iter().enumerate() {
                store(dest, j * n + i + s * STEP, rows[j]);
            }
        }
        i += R * STEP;
    }
    while i + STEP <= n {
        let rows = split16::<T>(src, i * T);
        for (j, r) in rows.iter().enumerate() {
            store(dest, j * n + i, *r);
        }
        i += STEP;
    }
    i
}

/// Unshuffle for T in {2, 3, 4, 8, 16}.
#[target_feature(enable = "neon")]
fn unshuffle_split<const T: usize>(n: usize, src: &[u8], dest: &mut [u8]) -> usize {
    let mut i = 0;
    while i + STEP <= n {
        let mut rows = [vdupq_n_u8(0); T];
        for (j, r) in rows.iter_mut().enumerate() {
            *r = load(src, j * n + i);
        }
        merge16::<T>(rows, dest, i * T);
        i += STEP;
    }
    i
}

/// Bytes `idx` of the T registers `table` taken as one 16T-byte array
/// (every index must be below 16T).
#[inline]
#[target_feature(enable = "neon")]
fn lookup<const T: usize>(table: &[uint8x16_t; T], idx: uint8x16_t) -> uint8x16_t {
    let mut acc = vdupq_n_u8(0);
    let mut g = 0;
    while g < T {
        // Indices of this group of (up to) 4 registers become 0..64; the
        // others wrap to 64 or above (16T <= 240), which `tbx` ignores.
        let off = vsubq_u8(idx, vdupq_n_u8((16 * g) as u8));
        let t = &table[g..];
        acc = match T - g {
            1 => vqtbx1q_u8(acc, t[0], off),
            2 => vqtbx2q_u8(acc, uint8x16x2_t(t[0], t[1]), off),
            3 => vqtbx3q_u8(acc, uint8x16x3_t(t[0], t[1], t[2]), off),
            _ => vqtbx4q_u8(acc, uint8x16x4_t(t[0], t[1], t[2], t[3]), off),
        };
        g += 4;
    }
    acc
}

/// Shuffle for the typesizes below 16 that [`shuffle_split`] does not take.
#[target_feature(enable = "neon")]
fn shuffle_table<const T: usize>(n: usize, src: &[u8], dest: &mut [u8]) -> usize {
    // Row j of a step is made of the bytes j, T + j, 2T + j, ... of the
    // step's 16T bytes.
    let mut idx = [vdupq_n_u8(0); T];
    for (j, v) in idx.iter_mut().enumerate() {
        *v = from_bytes(std::array::from_fn(|e| (e * T + j) as u8));
    }
    let mut i = 0;
    while i + STEP <= n {
        let mut table = [vdupq_n_u8(0); T];
        for (k, v) in table.iter_mut().enumerate() {
            *v = load(src, i * T + 16 * k);
        }
        for (j, x) in idx.iter().enumerate() {
            store(dest, j * n + i, lookup(&table, *x));
        }
        i += STEP;
    }
    i
}

/// Inverse of [`shuffle_table`].
#[target_feature(enable = "neon")]
fn unshuffle_table<const T: usize>(n: usize, src: &[u8], dest: &mut [u8]) -> usize {
    // Output byte p = 16r + x of a step is byte p % T of element p / T, found
    // at position p / T of row p % T, i.e. at 16 * (p % T) + p / T in the
    // table of the T rows.
    let mut idx = [vdupq_n_u8(0); T];
    for (r, v) in idx.iter_mut().enumerate() {
        *v = from_bytes(std::array::from_fn(|x| {
            let p = 16 * r + x;
            (16 * (p % T) + p / T) as u8
        }));
    }
    let mut i = 0;
    while i + STEP <= n {
        let mut table = [vdupq_n_u8(0); T];
        for (j, v) in table.iter_mut().enumerate() {
            *v = load(src, j * n + i);
        }
        for (r, x) in idx.iter().enumerate() {
            store(dest, i * T + 16 * r, lookup(&table, *x));
        }
        i += STEP;
    }
    i
}

/// One round of the 16x16 byte transpose: register p is interleaved with
/// register p + 8.  Four rounds turn 16 registers of 16 bytes into their
/// transpose (and back).
#[inline]
#[target_feature(enable = "neon")]
fn transpose_round(v: [uint8x16_t; 16]) -> [uint8x16_t; 16] {
    let mut out = v;
    for p in 0..8 {
        out[2 * p] = vzip1q_u8(v[p], v[p + 8]);
        out[2 * p + 1] = vzip2q_u8(v[p], v[p + 8]);
    }
    out
}

#[inline]
#[target_feature(enable = "neon")]
fn transpose16(mut v: [uint8x16_t; 16]) -> [uint8x16_t; 16] {
    for _ in 0..4 {
        v = transpose_round(v);
    }
    v
}

/// Start of each 16-byte column slice of an element of `ts >= 16` bytes; the
/// last slice may overlap the previous one (it then rewrites equal bytes).
fn columns(ts: usize) -> impl Iterator<Item = usize> {
    let tail = if !ts.is_multiple_of(16) {
        Some(ts - 16)
    } else {
        None
    };
    (0..ts / 16).map(|c| 16 * c).chain(tail)
}

/// Shuffle for typesizes above 16.
#[target_feature(enable = "neon")]
fn shuffle_wide(ts: usize, n: usize, src: &[u8], dest: &mut [u8]) -> usize {
    let mut i = 0;
    while i + STEP <= n {
        for c in columns(ts) {
            let mut v = [vdupq_n_u8(0); 16];
            for (e, r) in v.iter_mut().enumerate() {
                *r = load(src, (i + e) * ts + c);
            }
            for (jj, r) in transpose16(v).iter().enumerate() {
                store(dest, (c + jj) * n + i, *r);
            }
        }
        i += STEP;
    }
    i
}

/// Unshuffle for typesizes above 16.
#[target_feature(enable = "neon")]
fn unshuffle_wide(ts: usize, n: usize, src: &[u8], dest: &mut [u8]) -> usize {
    let mut i = 0;
    while i + STEP <= n {
        for c in columns(ts) {
            let mut v = [vdupq_n_u8(0); 16];
            for (jj, r) in v.iter_mut().enumerate() {
                *r = load(src, (c + jj) * n + i);
            }
            for (e, r) in transpose16(v).iter().enumerate() {
                store(dest, (i + e) * ts + c, *r);
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
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(super) unsafe fn shuffle(ts: usize, n: usize, src: &[u8], dest: &mut [u8]) -> usize {
    assert!(src.len() == n * ts && dest.len() == n * ts);
    match ts {
        2 => shuffle_split::<2, 4>(n, src, dest),
        3 => shuffle_split::<3, 4>(n, src, dest),
        4 => shuffle_split::<4, 4>(n, src, dest),
        8 => shuffle_split::<8, 2>(n, src, dest),
        16 => shuffle_split::<16, 1>(n, src, dest),
        5 => shuffle_table::<5>(n, src, dest),
        6 => shuffle_table::<6>(n, src, dest),
        7 => shuffle_table::<7>(n, src, dest),
        9 => shuffle_table::<9>(n, src, dest),
        10 => shuffle_table::<10>(n, src, dest),
        11 => shuffle_table::<11>(n, src, dest),
        12 => shuffle_table::<12>(n, src, dest),
        13 => shuffle_table::<13>(n, src, dest),
        14 => shuffle_table::<14>(n, src, dest),
        15 => shuffle_table::<15>(n, src, dest),
        t if t > 16 => shuffle_wide(ts, n, src, dest),
        _ => 0,
    }
}

/// Unshuffle counterpart of [`shuffle`].
///
/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(super) unsafe fn unshuffle(ts: usize, n: usize, src: &[u8], dest: &mut [u8]) -> usize {
    assert!(src.len() == n * ts && dest.len() == n * ts);
    match ts {
        2 => unshuffle_split::<2>(n, src, dest),
        3 => unshuffle_split::<3>(n, src, dest),
        4 => unshuffle_split::<4>(n, src, dest),
        8 => unshuffle_split::<8>(n, src, dest),
        16 => unshuffle_split::<16>(n, src, dest),
        5 => unshuffle_table::<5>(n, src, dest),
        6 => unshuffle_table::<6>(n, src, dest),
        7 => unshuffle_table::<7>(n, src, dest),
        9 => unshuffle_table::<9>(n, src, dest),
        10 => unshuffle_table::<10>(n, src, dest),
        11 => unshuffle_table::<11>(n, src, dest),
        12 => unshuffle_table::<12>(n, src, dest),
        13 => unshuffle_table::<13>(n, src, dest),
        14 => unshuffle_table::<14>(n, src, dest),
        15 => unshuffle_table::<15>(n, src, dest),
        t if t > 16 => unshuffle_wide(ts, n, src, dest),
        _ => 0,
    }
}
