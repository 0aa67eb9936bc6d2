//! Adler-32 (the zlib stream checksum), with an AVX-512 VNNI kernel chosen
//! at run time and zlib-rs's own implementation (AVX2 or scalar) otherwise.
//!
//! zlib-rs computes the checksum of what it inflates with its AVX2 kernel
//! (its AVX-512 one is only built when the whole program is compiled for
//! AVX-512), and on highly compressible shuffled data the checksum is a
//! sizeable part of the decompression time.  The zlib codec therefore
//! inflates the raw deflate data and checks the trailer with this function.

/// Adler-32's modulus.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const BASE: u64 = 65521;

/// Adler-32 of `data`, continuing from `adler` (1 for a fresh checksum).
pub fn adler32(adler: u32, data: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if let Some(vnni) = Vnni::detect() {
        return vnni.adler32(adler, data);
    }
    zlib_rs::adler32::adler32(adler, data)
}

/// Proof that the kernels may use AVX-512 F, BW and VNNI: only
/// [`Vnni::detect`] makes one.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Vnni(());

#[cfg(target_arch = "x86_64")]
impl Vnni {
    /// `Some` when [`crate::cpu::features`] has AVX-512 F, BW and VNNI.
    fn detect() -> Option<Vnni> {
        let f = crate::cpu::features();
        (f.avx512f && f.avx512bw && f.avx512vnni).then_some(Vnni(()))
    }

    /// Adler-32 with the AVX-512 VNNI kernel.
    fn adler32(self, adler: u32, data: &[u8]) -> u32 {
        // SAFETY: a `Vnni` exists only when the CPU has the features the
        // kernel is compiled for.
        unsafe { avx512::adler32(adler, data) }
    }
}

/// Adler-32 one byte at a time (the definition), for short tails and tests.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn scalar(adler: u32, data: &[u8]) -> u32 {
    let (mut a, mut b) = (u64::from(adler & 0xFFFF), u64::from(adler >> 16));
    for chunk in data.chunks(4096) {
        for &x in chunk {
            a += u64::from(x);
            b += a;
        }
        a %= BASE;
        b %= BASE;
    }
    ((b << 16) | a) as u32
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::BASE;
    use std::arch::x86_64::*;

    /// 64-byte blocks per run between reductions: every lane stays below
    /// 2^32 (the prefix-sum lanes grow with the square of the run length).
    const RUN: usize = 1024;

    /// Sum of the 64-bit lanes of `v`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn sum_u64(v: __m512i) -> u64 {
        let mut lanes = [0u64; 8];
        // SAFETY: `lanes` is 64 writable bytes; the store is unaligned.
        unsafe { _mm512_storeu_si512(lanes.as_mut_ptr() as *mut __m512i, v) };
        lanes.iter().sum()
    }

    /// Sum of the 32-bit lanes of `v`, as unsigned values.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn sum_u32(v: __m512i) -> u64 {
        let mut lanes = [0u32; 16];
        // SAFETY: `lanes` is 64 writable bytes; the store is unaligned.
        unsafe { _mm512_storeu_si512(lanes.as_mut_ptr() as *mut __m512i, v) };
        lanes.iter().map(|&x| u64::from(x)).sum()
    }

    /// For a run of k blocks of 64 bytes starting from sums (a, b):
    /// a' = a + S, b' = b + 64 k a + 64 P + W, where S sums all bytes, P sums
    /// over the blocks the byte sums of the blocks before each, and W sums
    /// `(64 - i) * x[i]` over every block.
    ///
    /// Compiled for AVX-512 F, BW and VNNI: reached through a
    /// [`super::Vnni`] only.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) fn adler32(adler: u32, data: &[u8]) -> u32 {
        let mut a = u64::from(adler & 0xFFFF);
        let mut b = u64::from(adler >> 16);
        let mut weights = [0u8; 64];
        for (i, w) in weights.iter_mut().enumerate() {
            *w = (64 - i) as u8;
        }
        // SAFETY: `weights` is 64 readable bytes; the load is unaligned.
        let weights = unsafe { _mm512_loadu_si512(weights.as_ptr() as *const __m512i) };
        let zero = _mm512_setzero_si512();
        let blocks = data.len() / 64;
        let (body, tail) = data.split_at(blocks * 64);
        for run in body.chunks(RUN * 64) {
            let mut s = zero; // byte sums, 64-bit lanes
            let mut p = zero; // prefix sums of `s`, 64-bit lanes
            let mut w = zero; // weighted sums, 32-bit lanes
            for block in run.chunks_exact(64) {
                // SAFETY: `block` is 64 readable bytes; the load is unaligned.
                let x = unsafe { _mm512_loadu_si512(block.as_ptr() as *const __m512i) };
                p = _mm512_add_epi64(p, s);
                s = _mm512_add_epi64(s, _mm512_sad_epu8(x, zero));
                w = _mm512_dpbusd_epi32(w, x, weights);
            }
            let k = (run.len() / 64) as u64;
            b = (b + 64 * k * a + 64 * sum_u64(p) + sum_u32(w)) % BASE;
            a = (a + sum_u64(s)) % BASE;
        }
        super::scalar(((b << 16) | a) as u32, tail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn known_values() {
        assert_eq!(adler32(1, b""), 1);
        assert_eq!(adler32(1, b"a"), 0x0062_0062);
        assert_eq!(adler32(1, b"Wikipedia"), 0x11E6_0398);
        assert_eq!(scalar(1, b"Wikipedia"), 0x11E6_0398);
    }

    /// Every length around the block and run boundaries, worst-case bytes
    /// (0xFF, which stresses the lane bounds) and random ones, any start.
    #[test]
    fn matches_the_definition_and_zlib_rs() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(32);
        let lens = [
            0,
            1,
            63,
            64,
            65,
            127,
            128,
            5552,
            65535,
            65536,
            65537,
            3 * 65536 + 100,
            1 << 20,
        ];
        for &len in &lens {
            for fill in [None, Some(0xFFu8), Some(0)] {
                let data: Vec<u8> = (0..len)
                    .map(|_| fill.unwrap_or_else(|| rng.gen()))
                    .collect();
                let start = (rng.gen::<u32>() % 65521) | ((rng.gen::<u32>() % 65521) << 16);
                for s in [1, start] {
                    let want = scalar(s, &data);
                    assert_eq!(adler32(s, &data), want, "len {len} fill {fill:?}");
                    assert_eq!(zlib_rs::adler32::adler32(s, &data), want);
                }
            }
        }
    }
}
