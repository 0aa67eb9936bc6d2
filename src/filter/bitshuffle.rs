//! Bit shuffle, with the block handling of c-blosc2.
//!
//! For `n` elements (`n` a multiple of 8) of `ts` bytes the output is made of
//! `8 * ts` bit rows of `n / 8` bytes each.  Row `8 * j + b` holds bit `b` of
//! byte `j` of every element: bit `r` of byte `q` of that row is bit `b` of
//! byte `j` of element `8 * q + r`.
//!
//! It is computed in two steps: a byte shuffle (see `shuffle.rs`) groups byte
//! `j` of all elements in row `j`, then every run of 8 bytes of such a row is
//! bit-transposed into the 8 bit rows.  Unshuffling runs the steps backwards.
//!
//! A block only bit-shuffles the largest multiple of 8 of its whole
//! elements; the remaining bytes are copied unchanged.

use std::cell::RefCell;

use super::dispatch::Kernel;
use super::shuffle::{shuffle_any, unshuffle_any, MAX_TYPESIZE};

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "aarch64")]
mod neon;
#[cfg(target_arch = "x86_64")]
mod sse2;

/// Transpose the 8x8 bit matrix held in `x`, byte `r` being row `r` and bit
/// `c` of it column `c`: afterwards bit `c` of byte `r` is the former bit `r`
/// of byte `c`.  Works by swapping progressively larger off-diagonal blocks
/// (1x1 inside 2x2, then 2x2 inside 4x4, then 4x4).
#[inline]
pub(super) fn transpose_8x8(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^= t ^ (t << 28);
    x
}

/// Bit-transpose groups `q0..nb` of byte row `j` (`row`, `8 * nb` bytes)
/// into the bit rows `8 * j ..` of `dest`.
pub(super) fn fwd_groups(row: &[u8], j: usize, nb: usize, q0: usize, dest: &mut [u8]) {
    for q in q0..nb {
        let mut word = [0u8; 8];
        word.copy_from_slice(&row[8 * q..8 * q + 8]);
        let t = transpose_8x8(u64::from_le_bytes(word));
        for (b, byte) in t.to_le_bytes().iter().enumerate() {
            dest[(8 * j + b) * nb + q] = *byte;
        }
    }
}

/// Inverse of [`fwd_groups`]: gather groups `q0..nb` of the bit rows
/// `8 * j ..` of `src` back into byte row `j` (`row`).
pub(super) fn rev_groups(src: &[u8], j: usize, nb: usize, q0: usize, row: &mut [u8]) {
    for q in q0..nb {
        let mut word = [0u8; 8];
        for (b, byte) in word.iter_mut().enumerate() {
            *byte = src[(8 * j + b) * nb + q];
        }
        let t = transpose_8x8(u64::from_le_bytes(word));
        row[8 * q..8 * q + 8].copy_from_slice(&t.to_le_bytes());
    }
}

/// Bit rows from byte rows: `bytes` holds `ts` rows of `n` bytes.
fn bits_fwd(kernel: Kernel, ts: usize, n: usize, bytes: &[u8], dest: &mut [u8]) {
    match kernel.usable() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `usable()` only yields Sse2 when the CPU supports SSE2.
        Kernel::Sse2 => unsafe { sse2::bits_fwd(ts, n, bytes, dest) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `usable()` only yields Avx2 when the CPU supports AVX2.
        Kernel::Avx2 => unsafe { avx2::bits_fwd(ts, n, bytes, dest) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `usable()` only yields Avx512 when the CPU has every
        // feature that kernel needs.
        Kernel::Avx512 => unsafe { avx512::bits_fwd(ts, n, bytes, dest) },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: `usable()` only yields Neon when the CPU supports NEON.
        Kernel::Neon => unsafe { neon::bits_fwd(ts, n, bytes, dest) },
        _ => {
            let nb = n / 8;
            for (j, row) in bytes.chunks_exact(n).enumerate() {
                fwd_groups(row, j, nb, 0, dest);
            }
        }
    }
}

/// Byte rows from bit rows: the inverse of [`bits_fwd`].
fn bits_rev(kernel: Kernel, ts: usize, n: usize, src: &[u8], bytes: &mut [u8]) {
    match kernel.usable() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `usable()` only yields Sse2 when the CPU supports SSE2.
        Kernel::Sse2 => unsafe { sse2::bits_rev(ts, n, src, bytes) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `usable()` only yields Avx2 when the CPU supports AVX2.
        Kernel::Avx2 => unsafe { avx2::bits_rev(ts, n, src, bytes) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `usable()` only yields Avx512 when the CPU has every
        // feature that kernel needs.
        Kernel::Avx512 => unsafe { avx512::bits_rev(ts, n, src, bytes) },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: `usable()` only yields Neon when the CPU supports NEON.
        Kernel::Neon => unsafe { neon::bits_rev(ts, n, src, bytes) },
        _ => {
            let nb = n / 8;
            for (j, row) in bytes.chunks_exact_mut(n).enumerate() {
                rev_groups(src, j, nb, 0, row);
            }
        }
    }
}

thread_local! {
    /// Per-thread intermediate buffer, reused across calls so that large
    /// blocks do not pay for fresh (page-faulting) allocations every time.
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Run `f` on a scratch buffer of exactly `len` bytes (contents unspecified).
fn with_scratch<R>(len: usize, f: impl FnOnce(&mut [u8]) -> R) -> R {
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buf) => {
            if buf.len() < len {
                buf.resize(len, 0);
            }
            f(&mut buf[..len])
        }
        // Only reachable if `f` re-entered; fall back to a fresh buffer.
        Err(_) => f(&mut vec![0u8; len]),
    })
}

/// Bit-transpose exactly `n` elements (`n % 8 == 0`, buffers `n * ts` long).
fn trans_bit_elem(kernel: Kernel, ts: usize, n: usize, src: &[u8], dest: &mut [u8]) {
    if ts == 1 {
        bits_fwd(kernel, 1, n, src, dest);
    } else {
        with_scratch(n * ts, |bytes| {
            shuffle_any(kernel, ts, src, bytes);
            bits_fwd(kernel, ts, n, bytes, dest);
        });
    }
}

/// Inverse of [`trans_bit_elem`]; `streaming` asks the final byte unshuffle
/// for non-temporal stores (see `shuffle::unshuffle_stores`).
fn untrans_bit_elem(
    kernel: Kernel,
    ts: usize,
    n: usize,
    src: &[u8],
    dest: &mut [u8],
    streaming: bool,
) {
    if ts == 1 {
        bits_rev(kernel, 1, n, src, dest);
    } else {
        with_scratch(n * ts, |bytes| {
            bits_rev(kernel, ts, n, src, bytes);
            unshuffle_any(kernel, ts, bytes, dest, streaming);
        });
    }
}

/// Bit-shuffle `src` into `dest[..src.len()]` like `blosc2_bitshuffle`.
///
/// Fails (leaving `dest` untouched) when `typesize` is 0 or above 256, the
/// cases the reference rejects.
pub fn bitshuffle_with(
    kernel: Kernel,
    typesize: usize,
    src: &[u8],
    dest: &mut [u8],
) -> Result<(), ()> {
    let len = src.len();
    assert!(dest.len() >= len, "bitshuffle: dest shorter than src");
    if typesize == 0 || typesize > MAX_TYPESIZE {
        return Err(());
    }
    let n = (len / typesize) & !7;
    let whole = n * typesize;
    if n > 0 {
        trans_bit_elem(kernel, typesize, n, &src[..whole], &mut dest[..whole]);
    }
    dest[whole..len].copy_from_slice(&src[whole..]);
    Ok(())
}

/// Undo [`bitshuffle_with`] for chunks of format version 3 and later (what
/// `blosc2_bitunshuffle` does).  Fails only for `typesize == 0`: like the
/// reference, no upper bound is applied when unshuffling.
pub fn bitunshuffle_with(
    kernel: Kernel,
    typesize: usize,
    src: &[u8],
    dest: &mut [u8],
) -> Result<(), ()> {
    bitunshuffle_stores(kernel, typesize, src, dest, false)
}

/// [`bitunshuffle_with`], where `streaming` writes `dest` with non-temporal
/// stores where the kernel has them (the same bytes).
pub fn bitunshuffle_stores(
    kernel: Kernel,
    typesize: usize,
    src: &[u8],
    dest: &mut [u8],
    streaming: bool,
) -> Result<(), ()> {
    let len = src.len();
    assert!(dest.len() >= len, "bitunshuffle: dest shorter than src");
    if typesize == 0 {
        return Err(());
    }
    let n = (len / typesize) & !7;
    let whole = n * typesize;
    if n > 0 {
        untrans_bit_elem(
            kernel,
            typesize,
            n,
            &src[..whole],
            &mut dest[..whole],
            streaming,
        );
    }
    dest[whole..len].copy_from_slice(&src[whole..]);
    Ok(())
}

/// Bit-unshuffle as the reference does for a chunk of the given format
/// version.  Version 2 chunks were written by an older bitshuffle that only
/// transposed blocks whose element count is a multiple of 8 and stored the
/// others verbatim; later versions use [`bitunshuffle_with`].
///
/// For version 2 with a block that is not a whole number of elements, the
/// reference does not write the trailing partial element at all; here it is
/// copied from `src`.
pub fn bitunshuffle_format_with(
    kernel: Kernel,
    typesize: usize,
    src: &[u8],
    dest: &mut [u8],
    format_version: u8,
) -> Result<(), ()> {
    if format_version != 2 {
        return bitunshuffle_with(kernel, typesize, src, dest);
    }
    let len = src.len();
    assert!(dest.len() >= len, "bitunshuffle: dest shorter than src");
    if typesize == 0 {
        return Err(());
    }
    let n = len / typesize;
    if n.is_multiple_of(8) {
        let whole = n * typesize;
        if n > 0 {
            untrans_bit_elem(
                kernel,
                typesize,
                n,
                &src[..whole],
                &mut dest[..whole],
                false,
            );
        }
        dest[whole..len].copy_from_slice(&src[whole..]);
    } else {
        dest[..len].copy_from_slice(src);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    const LENS: &[usize] = &[
        0,
        1,
        7,
        8,
        15,
        16,
        31,
        33,
        64,
        100,
        255,
        256,
        257,
        1000,
        4099,
        8192,
        65536 + 5,
    ];

    fn typesizes() -> Vec<usize> {
        let mut v: Vec<usize> = (1..=32).collect();
        v.extend_from_slice(&[48, 63, 64, 100, 255, 256]);
        v
    }

    fn data(len: usize, seed: u64) -> Vec<u8> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        (0..len).map(|_| rng.gen()).collect()
    }

    fn bit(buf: &[u8], idx: usize) -> u8 {
        (buf[idx / 8] >> (idx % 8)) & 1
    }

    /// The layout definition, bit by bit.
    fn naive(ts: usize, src: &[u8]) -> Vec<u8> {
        let n = (src.len() / ts) & !7;
        let mut out = src.to_vec();
        out[..n * ts].fill(0);
        for e in 0..n {
            for j in 0..ts {
                for b in 0..8 {
                    let v = bit(src, (e * ts + j) * 8 + b);
                    let o = (j * 8 + b) * n + e;
                    out[o / 8] |= v << (o % 8);
                }
            }
        }
        out
    }

    #[test]
    fn transpose_is_bit_transpose() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for _ in 0..200 {
            let x: u64 = rng.gen();
            let t = transpose_8x8(x);
            for r in 0..8 {
                for c in 0..8 {
                    assert_eq!((t >> (8 * r + c)) & 1, (x >> (8 * c + r)) & 1);
                }
            }
            assert_eq!(transpose_8x8(t), x);
        }
    }

    #[test]
    fn scalar_matches_definition() {
        for ts in typesizes() {
            for &len in &LENS[..14] {
                let src = data(len, (ts * 13 + len) as u64);
                let mut out = vec![0u8; len];
                bitshuffle_with(Kernel::Scalar, ts, &src, &mut out).unwrap();
                assert_eq!(out, naive(ts, &src), "ts={ts} len={len}");
            }
        }
    }

    #[test]
    fn kernels_agree_and_round_trip() {
        for k in Kernel::supported() {
            for ts in typesizes() {
                for &len in LENS {
                    let src = data(len, (ts * 101 + len) as u64);
                    let mut expect = vec![0u8; len];
                    bitshuffle_with(Kernel::Scalar, ts, &src, &mut expect).unwrap();
                    let mut got = vec![0x55u8; len + 2];
                    bitshuffle_with(k, ts, &src, &mut got).unwrap();
                    assert_eq!(&got[..len], &expect[..], "{k:?} ts={ts} len={len}");
                    assert_eq!(&got[len..], &[0x55; 2]);
                    let mut back = vec![0u8; len];
                    bitunshuffle_with(k, ts, &got[..len], &mut back).unwrap();
                    assert_eq!(back, src, "{k:?} round trip ts={ts} len={len}");
                }
            }
        }
    }

    #[test]
    fn errors_and_format_2() {
        let src = data(800, 3);
        let mut out = vec![0u8; 800];
        assert!(bitshuffle_with(Kernel::Scalar, 0, &src, &mut out).is_err());
        assert!(bitshuffle_with(Kernel::Scalar, 257, &src, &mut out).is_err());
        assert!(bitunshuffle_with(Kernel::Scalar, 0, &src, &mut out).is_err());
        assert!(bitunshuffle_with(Kernel::Scalar, 300, &src, &mut out).is_ok());
        // 800 / 4 = 200 elements, a multiple of 8: same as version 3.
        let mut a = vec![0u8; 800];
        let mut b = vec![0u8; 800];
        bitunshuffle_format_with(Kernel::best(), 4, &src, &mut a, 2).unwrap();
        bitunshuffle_with(Kernel::Scalar, 4, &src, &mut b).unwrap();
        assert_eq!(a, b);
        // 796 / 4 = 199 elements: version 2 stored the block verbatim.
        bitunshuffle_format_with(Kernel::best(), 4, &src[..796], &mut a, 2).unwrap();
        assert_eq!(&a[..796], &src[..796]);
    }
}
