//! Byte shuffle: a transpose of the `n x typesize` byte matrix of a block.
//!
//! With `n = len / typesize` whole elements, byte `j` of element `i` goes to
//! `dest[j * n + i]`.  The trailing `len % typesize` bytes, which do not form
//! a whole element, are copied unchanged to the same position.  Every kernel
//! computes the same transpose; the SIMD ones handle a prefix of the elements
//! and the scalar loop finishes the rest.

use super::dispatch::Kernel;

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
pub(super) mod avx512;
#[cfg(target_arch = "aarch64")]
mod neon;
#[cfg(target_arch = "x86_64")]
mod sse2;

/// Largest element size the reference accepts for (un)shuffling.
pub const MAX_TYPESIZE: usize = 256;

/// Elements handled per tile in the scalar loops (keeps reads in L1).
const TILE: usize = 64;

/// Scalar shuffle of the elements `lo..hi` of `n` (no leftover handling).
fn shuffle_tail(ts: usize, n: usize, mut lo: usize, hi: usize, src: &[u8], dest: &mut [u8]) {
    while lo < hi {
        let end = (lo + TILE).min(hi);
        let tile = &src[lo * ts..end * ts];
        for j in 0..ts {
            let row = &mut dest[j * n + lo..j * n + end];
            for (d, elem) in row.iter_mut().zip(tile.chunks_exact(ts)) {
                *d = elem[j];
            }
        }
        lo = end;
    }
}

/// Whether `kernel` has a kernel for `ts` that starts at a given element
/// (the AVX2 and AVX-512 ones for typesizes 2, 4, 8 and 16; never on other
/// architectures, where `usable()` yields neither).
fn takes_start(kernel: Kernel, ts: usize) -> bool {
    matches!(kernel, Kernel::Avx2 | Kernel::Avx512) && ts.is_power_of_two() && ts <= 16
}

/// The element from which the AVX2 and AVX-512 shuffles of typesizes 2, 4,
/// 8 and 16 start, so that their row stores (32 or 64 bytes, at
/// `dest[j * n + i..]`) do not straddle cache lines: the number of bytes
/// from `dest` to the next 64-byte boundary, the elements before it being
/// done by the scalar loop.  A destination 16 bytes past a boundary (what
/// glibc's malloc gives a large block) made the AVX-512 shuffle of typesize
/// 4 run at 0.64 of memcpy's speed on 4 MiB, against 0.98 from a boundary
/// (`KERNELS_OFFSET=16 cargo bench --bench kernels`).  When `n` is not a
/// multiple of 64 only row 0 is aligned, which costs nothing either.  Only
/// for blocks of [`ALIGN_FROM`] bytes and more.
fn aligning_start(kernel: Kernel, ts: usize, n: usize, dest: &[u8]) -> usize {
    if !takes_start(kernel, ts) || n * ts < ALIGN_FROM {
        return 0;
    }
    let past = dest.as_ptr() as usize % 64;
    ((64 - past) % 64).min(n)
}

/// Blocks from which [`aligning_start`] and [`unshuffle_start`] align the
/// stores. A smaller one stays in the L1 cache with its source, where
/// stores split across two lines cost less than the elements left to the
/// scalar loop (shuffle) or to the edge passes ([`unshuffle_edges`]) by
/// aligning. Typesize 8 at 16 bytes past a boundary, GB/s unaligned
/// against aligned: unshuffle 4 KiB 51/38, 16 KiB 59/53, 32 KiB 37/50;
/// shuffle 4 KiB 52/25, 16 KiB 54/39, 32 KiB 27/32, 64 KiB 27/36
/// (`KERNELS_LEN=N KERNELS_OFFSET=16 cargo bench --bench kernels -- 8`,
/// 2-core Xeon VM, about +-10% run to run).
const ALIGN_FROM: usize = 32 << 10;

/// The same for the unshuffles, whose stores are consecutive: the first
/// element whose bytes start on a boundary of the kernel's store width, when
/// one of the next that many bytes does (a destination a multiple of `ts` bytes
/// past one; else 0), for blocks of [`ALIGN_FROM`] bytes and more and for
/// every block written with streaming stores (which must not split lines).
/// From 16 bytes past a boundary, unshuffling 64 KiB (in the cache) ran at
/// 0.72-0.89 of memcpy's speed against 0.95-0.98 from one.  The boundary
/// is the kernel's store width ([`unshuffle_align`]): a 32-byte store on a
/// 32-byte boundary stays in one line, so aligning AVX2's stores to 64
/// would only add an edge pass.
fn unshuffle_start(kernel: Kernel, ts: usize, n: usize, dest: &[u8], streaming: bool) -> usize {
    if !takes_start(kernel, ts) || (n * ts < ALIGN_FROM && !streaming) {
        return 0;
    }
    let align = unshuffle_align(kernel, ts, streaming);
    let bytes = (align - dest.as_ptr() as usize % align) % align;
    if bytes.is_multiple_of(ts) {
        (bytes / ts).min(n)
    } else {
        0
    }
}

/// Where streaming stores start: on a line.
const STREAMING_ALIGN: usize = 64;

/// The boundary [`unshuffle_start`] aligns the stores of the unshuffle
/// kernel for `kernel` and `ts` to: a line for streaming stores and for
/// the AVX-512 kernels' 64-byte stores (typesizes 2 and 16), 32 bytes for
/// the AVX2 kernels' stores.  On the 2-core Xeon VM, unshuffling 32 KiB of
/// typesize 4 whose destination lies 32 bytes past a line ran at 51.5 GB/s
/// aligned to 64 (an edge pass) against the reference's 55.9
/// (`KERNELS_LEN=32768 KERNELS_OFFSET=32 cargo bench --bench kernels -- 4`).
fn unshuffle_align(kernel: Kernel, ts: usize, streaming: bool) -> usize {
    if streaming || (kernel == Kernel::Avx512 && matches!(ts, 2 | 16)) {
        STREAMING_ALIGN
    } else {
        32
    }
}

/// Unshuffle the elements `0..start` and `done..n` that an aligned kernel
/// pass over `start..done` left. With a rows kernel for `ts` and at least
/// one kernel step of elements, each edge is one more kernel pass with
/// unaligned stores over the first or last step (rewriting some of the
/// aligned pass's bytes with the same values); else the scalar loop,
/// which took about 90 ns for the 32 edge elements of a 4 KiB block of
/// typesize 8 (when such blocks were aligned, before [`ALIGN_FROM`]): a
/// fifth of the whole decompression call.
fn unshuffle_edges<'a>(
    kernel: Kernel,
    ts: usize,
    (n, start, done): (usize, usize, usize),
    row: impl Fn(usize) -> &'a [u8],
    dest: &mut [u8],
) {
    #[cfg(target_arch = "x86_64")]
    if takes_start(kernel, ts) && n >= avx2::STEP {
        let step = avx2::STEP;
        let mut pass = |lo: usize| {
            let mut window: [&[u8]; 16] = [&[]; 16];
            for (j, w) in window[..ts].iter_mut().enumerate() {
                *w = &row(j)[lo..lo + step];
            }
            let out = &mut dest[lo * ts..(lo + step) * ts];
            // SAFETY: `takes_start` holds only for the AVX2 and AVX-512
            // kernels (typesizes up to 16), which `usable()` yields only when
            // the CPU has AVX2; every window row holds `step` bytes and `out`
            // `step` elements.
            unsafe { avx2::unshuffle_rows(step, 0, &window[..ts], out, false) };
        };
        // `start` is under 64 bytes' worth of elements: one step.
        if start > 0 {
            pass(0);
        }
        // The AVX-512 kernel's steps are wider: maybe more than one here.
        let mut lo = done;
        while lo < n {
            let at = lo.min(n - step);
            pass(at);
            lo = at + step;
        }
        return;
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = kernel;
    unshuffle_tail(ts, 0, start, &row, dest);
    unshuffle_tail(ts, done, n, &row, dest);
}

/// Scalar unshuffle of the elements `lo..hi` (no leftover handling);
/// `row(j)` is row `j`, byte `j` of every element.
fn unshuffle_tail<'a>(
    ts: usize,
    mut lo: usize,
    hi: usize,
    row: impl Fn(usize) -> &'a [u8],
    dest: &mut [u8],
) {
    while lo < hi {
        let end = (lo + TILE).min(hi);
        let tile = &mut dest[lo * ts..end * ts];
        for j in 0..ts {
            for (elem, s) in tile.chunks_exact_mut(ts).zip(&row(j)[lo..end]) {
                elem[j] = *s;
            }
        }
        lo = end;
    }
}

/// Shuffle `src` into `dest[..src.len()]` with the given kernel.
///
/// A `typesize` of 0 or above [`MAX_TYPESIZE`] is rejected by the reference
/// without touching `dest`; the same happens here.
pub fn shuffle_with(kernel: Kernel, typesize: usize, src: &[u8], dest: &mut [u8]) {
    let len = src.len();
    assert!(dest.len() >= len, "shuffle: dest shorter than src");
    if typesize == 0 || typesize > MAX_TYPESIZE {
        return;
    }
    shuffle_any(kernel, typesize, src, dest);
}

/// [`shuffle_with`] without the typesize limit (`typesize >= 1`); the
/// bitshuffle filter needs larger ones when unshuffling.
pub(super) fn shuffle_any(kernel: Kernel, typesize: usize, src: &[u8], dest: &mut [u8]) {
    let len = src.len();
    let dest = &mut dest[..len];
    let ts = typesize;
    let n = len / ts;
    let whole = n * ts;
    if ts == 1 {
        dest.copy_from_slice(src);
        return;
    }
    let kernel = kernel.usable();
    let start = aligning_start(kernel, ts, n, dest);
    shuffle_tail(ts, n, 0, start, src, dest);
    let done = match kernel {
        Kernel::Scalar => start,
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `usable()` only yields Sse2 when the CPU supports SSE2.
        Kernel::Sse2 => unsafe { sse2::shuffle(ts, n, &src[..whole], &mut dest[..whole]) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `usable()` only yields Avx2 when the CPU supports AVX2.
        Kernel::Avx2 => unsafe { avx2::shuffle(ts, n, start, &src[..whole], &mut dest[..whole]) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `usable()` only yields Avx512 when the CPU has every
        // feature that kernel needs.
        Kernel::Avx512 => unsafe {
            avx512::shuffle(ts, n, start, &src[..whole], &mut dest[..whole])
        },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: `usable()` only yields Neon when the CPU supports NEON.
        Kernel::Neon => unsafe { neon::shuffle(ts, n, &src[..whole], &mut dest[..whole]) },
        // Kernels of another architecture (never returned by `usable()`).
        _ => 0,
    };
    shuffle_tail(ts, n, done, n, src, dest);
    dest[whole..].copy_from_slice(&src[whole..]);
}

/// Inverse of [`shuffle_with`].
pub fn unshuffle_with(kernel: Kernel, typesize: usize, src: &[u8], dest: &mut [u8]) {
    unshuffle_stores(kernel, typesize, src, dest, false);
}

/// [`unshuffle_with`], where `streaming` asks for non-temporal stores into
/// `dest` (the AVX2 kernel has them for typesizes 2, 4, 8 and 16): the same
/// bytes, written to memory without being read into the cache first, which
/// saves memory bandwidth when `dest` is large and not read again soon.
pub fn unshuffle_stores(
    kernel: Kernel,
    typesize: usize,
    src: &[u8],
    dest: &mut [u8],
    streaming: bool,
) {
    let len = src.len();
    assert!(dest.len() >= len, "unshuffle: dest shorter than src");
    if typesize == 0 || typesize > MAX_TYPESIZE {
        return;
    }
    unshuffle_any(kernel, typesize, src, dest, streaming);
}

/// [`unshuffle_stores`] without the typesize limit (`typesize >= 1`); the
/// bitshuffle filter needs larger ones when unshuffling.
pub(super) fn unshuffle_any(
    kernel: Kernel,
    typesize: usize,
    src: &[u8],
    dest: &mut [u8],
    streaming: bool,
) {
    // Only the x86_64 kernels have streaming stores.
    #[cfg(not(target_arch = "x86_64"))]
    let _ = streaming;
    let len = src.len();
    let dest = &mut dest[..len];
    let ts = typesize;
    let n = len / ts;
    let whole = n * ts;
    if ts == 1 {
        dest.copy_from_slice(src);
        return;
    }
    let kernel = kernel.usable();
    let start = unshuffle_start(kernel, ts, n, dest, streaming);
    let row = |j: usize| &src[j * n..(j + 1) * n];
    let done = match kernel {
        Kernel::Scalar => start,
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `usable()` only yields Sse2 when the CPU supports SSE2.
        Kernel::Sse2 => unsafe { sse2::unshuffle(ts, n, &src[..whole], &mut dest[..whole]) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `usable()` only yields Avx2 when the CPU supports AVX2.
        Kernel::Avx2 => unsafe {
            avx2::unshuffle(ts, n, start, &src[..whole], &mut dest[..whole], streaming)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `usable()` only yields Avx512 when the CPU has every
        // feature that kernel needs.
        Kernel::Avx512 => unsafe {
            avx512::unshuffle(ts, n, start, &src[..whole], &mut dest[..whole], streaming)
        },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: `usable()` only yields Neon when the CPU supports NEON.
        Kernel::Neon => unsafe { neon::unshuffle(ts, n, &src[..whole], &mut dest[..whole]) },
        // Kernels of another architecture (never returned by `usable()`).
        _ => 0,
    };
    // The kernels without a start (SSE2, NEON, the AVX2 ones of other
    // typesizes) begin at element 0: `start` is 0 for them.
    unshuffle_edges(kernel, ts, (n, start, done.max(start)), row, dest);
    dest[whole..].copy_from_slice(&src[whole..]);
}

/// Whether [`unshuffle_rows`] has a kernel for `typesize` with `kernel`:
/// typesizes 2, 4, 8 and 16 with the AVX2 and AVX-512 kernels.
pub fn rows_kernel(kernel: Kernel, typesize: usize) -> bool {
    takes_start(kernel.usable(), typesize)
}

/// Unshuffle a block whose rows need not lie end to end: `rows[j]` holds
/// byte `j` of each of the `n` elements (`typesize = rows.len()`, every row
/// `n` bytes, `dest` exactly `n * typesize`).  The same bytes as
/// [`unshuffle_stores`] on the rows laid end to end; a decoder can then
/// read a stream that was stored raw where it lies in the chunk instead of
/// copying it next to the others first.  Only where [`rows_kernel`] holds:
/// `false`, with nothing written, elsewhere.
pub fn unshuffle_rows(kernel: Kernel, rows: &[&[u8]], dest: &mut [u8], streaming: bool) -> bool {
    let ts = rows.len();
    let kernel = kernel.usable();
    if !takes_start(kernel, ts) {
        return false;
    }
    // `takes_start` holds for typesizes 2, 4, 8 and 16 only: a shift, not a
    // division (which would cost as much as the rest of this call's
    // bookkeeping for a 4 KiB block).
    let n = dest.len() >> ts.trailing_zeros();
    assert!(dest.len() == n * ts && rows.iter().all(|r| r.len() == n));
    // The rows kernel is AVX2's whatever `kernel` is.
    let start = unshuffle_start(Kernel::Avx2, ts, n, dest, streaming);
    let row = |j: usize| rows[j];
    // SAFETY: `takes_start` holds only for the AVX2 and AVX-512 kernels,
    // which `usable()` yields only when the CPU has AVX2.
    #[cfg(target_arch = "x86_64")]
    let done = unsafe { avx2::unshuffle_rows(n, start, rows, dest, streaming) };
    // Not reached: no other architecture has those kernels.
    #[cfg(not(target_arch = "x86_64"))]
    let done = {
        let _ = streaming;
        start
    };
    unshuffle_edges(kernel, ts, (n, start, done), row, dest);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    pub(crate) const LENS: &[usize] = &[
        0,
        1,
        7,
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

    /// Straightforward definition of the transpose, used as an oracle.
    fn naive_shuffle(ts: usize, src: &[u8]) -> Vec<u8> {
        let n = src.len() / ts;
        let mut out = src.to_vec();
        for i in 0..n {
            for j in 0..ts {
                out[j * n + i] = src[i * ts + j];
            }
        }
        out
    }

    #[test]
    fn scalar_matches_definition() {
        for ts in typesizes() {
            for &len in LENS {
                let src = data(len, (ts * 7919 + len) as u64);
                let mut out = vec![0u8; len];
                shuffle_with(Kernel::Scalar, ts, &src, &mut out);
                assert_eq!(out, naive_shuffle(ts, &src), "ts={ts} len={len}");
            }
        }
    }

    #[test]
    fn kernels_agree_and_round_trip() {
        for k in Kernel::supported() {
            for ts in typesizes() {
                for &len in LENS {
                    let src = data(len, (ts * 31 + len) as u64);
                    let mut expect = vec![0u8; len];
                    shuffle_with(Kernel::Scalar, ts, &src, &mut expect);
                    let mut got = vec![0xAAu8; len + 3];
                    shuffle_with(k, ts, &src, &mut got);
                    assert_eq!(&got[..len], &expect[..], "{k:?} ts={ts} len={len}");
                    assert_eq!(&got[len..], &[0xAA; 3], "wrote past len");
                    let mut back = vec![0u8; len];
                    unshuffle_with(k, ts, &got[..len], &mut back);
                    assert_eq!(back, src, "{k:?} round trip ts={ts} len={len}");
                    // Streaming stores, into an aligned and a misaligned start.
                    for shift in [0, 1] {
                        let mut buf = crate::aligned::AlignedBuf::default();
                        buf.grow_to(len + shift + 3);
                        buf.fill(0x55);
                        unshuffle_stores(k, ts, &got[..len], &mut buf[shift..], true);
                        assert_eq!(
                            &buf[shift..shift + len],
                            &src[..],
                            "{k:?} nt ts={ts} len={len}"
                        );
                        assert!(buf[..shift].iter().all(|&b| b == 0x55), "wrote before dest");
                        assert!(
                            buf[shift + len..].iter().all(|&b| b == 0x55),
                            "wrote past len"
                        );
                    }
                }
            }
        }
    }

    /// Destinations at many distances from a 64-byte boundary: the wide
    /// kernels then start past a scalar head (`aligning_start`,
    /// `unshuffle_start`), which must give the same bytes and write nothing
    /// outside `dest`.
    #[test]
    fn misaligned_destinations_shuffle_exactly() {
        for k in Kernel::supported() {
            for ts in [2usize, 4, 8, 16, 3, 24] {
                for len in [
                    0usize,
                    40,
                    32 * ts,
                    33 * ts + 1,
                    64 * ts + 5,
                    95 * ts,
                    4096,
                    65536 + 48,
                ] {
                    let src = data(len, (ts * 17 + len) as u64);
                    let mut expect = vec![0u8; len];
                    shuffle_with(Kernel::Scalar, ts, &src, &mut expect);
                    let mut buf = crate::aligned::AlignedBuf::default();
                    buf.grow_to(len + 64 + 3);
                    for shift in [1, 7, 8, 16, 31, 32, 48, 63] {
                        buf.fill(0x5a);
                        shuffle_with(k, ts, &src, &mut buf[shift..shift + len]);
                        let what = format!("{k:?} ts={ts} len={len} shift={shift}");
                        assert_eq!(&buf[shift..shift + len], &expect[..], "{what}");
                        assert!(buf[..shift].iter().all(|&b| b == 0x5a), "{what}");
                        assert!(buf[shift + len..].iter().all(|&b| b == 0x5a), "{what}");
                        // And back, with and without streaming stores.
                        for streaming in [false, true] {
                            buf.fill(0xa5);
                            let dest = &mut buf[shift..shift + len];
                            unshuffle_stores(k, ts, &expect, dest, streaming);
                            let what = format!("{what} unshuffle streaming={streaming}");
                            assert_eq!(&buf[shift..shift + len], &src[..], "{what}");
                            assert!(buf[..shift].iter().all(|&b| b == 0xa5), "{what}");
                            assert!(buf[shift + len..].iter().all(|&b| b == 0xa5), "{what}");
                        }
                    }
                }
            }
        }
    }

    /// Rows that lie apart (each in its own buffer, some at odd addresses)
    /// unshuffle to the same bytes as the rows end to end; kernels without
    /// a rows version say so and write nothing.
    #[test]
    fn separate_rows_unshuffle_like_adjacent_ones() {
        for k in Kernel::supported() {
            for ts in [2usize, 3, 4, 8, 16, 24] {
                for n in [0usize, 1, 31, 32, 33, 63, 64, 65, 100, 512, 4096 + 7] {
                    let shuffled = data(n * ts, (ts * 131 + n) as u64);
                    let mut expect = vec![0u8; n * ts];
                    unshuffle_with(Kernel::Scalar, ts, &shuffled, &mut expect);
                    // Row j in a buffer of its own, j bytes from its start.
                    let owned: Vec<Vec<u8>> = (0..ts)
                        .map(|j| {
                            let mut v = vec![0xEE; j];
                            v.extend_from_slice(&shuffled[j * n..(j + 1) * n]);
                            v
                        })
                        .collect();
                    let rows: Vec<&[u8]> = owned.iter().enumerate().map(|(j, v)| &v[j..]).collect();
                    for streaming in [false, true] {
                        let mut buf = crate::aligned::AlignedBuf::default();
                        buf.grow_to(n * ts + 48 + 3);
                        for shift in [0, 8, 16, 48] {
                            buf.fill(0x3c);
                            let dest = &mut buf[shift..shift + n * ts];
                            let done = unshuffle_rows(k, &rows, dest, streaming);
                            let what = format!("{k:?} ts={ts} n={n} shift={shift} nt={streaming}");
                            assert_eq!(done, rows_kernel(k, ts), "{what}");
                            if done {
                                assert_eq!(&buf[shift..shift + n * ts], &expect[..], "{what}");
                            } else {
                                assert!(buf.iter().all(|&b| b == 0x3c), "{what}");
                            }
                            assert!(buf[..shift].iter().all(|&b| b == 0x3c), "{what}");
                            assert!(buf[shift + n * ts..].iter().all(|&b| b == 0x3c), "{what}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn invalid_typesize_leaves_dest() {
        let src = data(100, 1);
        for ts in [0, 257, 1000] {
            let mut out = vec![7u8; 100];
            shuffle_with(Kernel::best(), ts, &src, &mut out);
            assert_eq!(out, vec![7u8; 100]);
            unshuffle_with(Kernel::best(), ts, &src, &mut out);
            assert_eq!(out, vec![7u8; 100]);
        }
    }
}
