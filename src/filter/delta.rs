//! Delta filter (XOR against a reference), as c-blosc2 applies it per block.
//!
//! The XOR works on units of `u` bytes, where `u` is the typesize when that is
//! 1, 2, 4 or 8, 8 for other multiples of 8, and 1 otherwise.  Only the first
//! `m = len / u * u` bytes of a block are coded.
//!
//! * The chunk's first block (offset 0) is coded against itself, one unit
//!   back: unit 0 is kept and unit `k` becomes `src[k] ^ src[k - 1]`.
//! * Any other block is XORed unit by unit with the same positions of the
//!   reference block (`dref`, the chunk's first block: the raw source when
//!   encoding, the already decoded output when decoding).
//!
//! Bytes past `m` are never written by the reference encoder (they keep
//! whatever was in its scratch buffer: in a one-thread run, the previous
//! block's delta output at the same place) and are left alone by its
//! decoder, so a chunk the reference wrote does not hold them.  Here the
//! encoder copies them from `src`; the chunk compressor does not even use
//! delta on a chunk with such bytes (see `chunk::compress`), and the
//! decompressor refuses chunks that have them (see [`delta_unit`]).

/// Unit size the reference XORs with for a given typesize: a block whose
/// size is not a multiple of it has bytes the reference's delta encoder
/// does not write.
pub fn delta_unit(typesize: usize) -> usize {
    unit(typesize)
}

fn unit(typesize: usize) -> usize {
    match typesize {
        1 | 2 | 4 | 8 => typesize,
        t if t % 8 == 0 => 8,
        _ => 1,
    }
}

/// Delta-encode one block.
///
/// `dref` is the chunk's first block (only read when `offset != 0`, and then
/// it must be at least as long as the coded part of `src`).  For `offset == 0`
/// the reference block is `src` itself, as in the reference pipeline.
pub fn delta_encode(dref: &[u8], offset: usize, typesize: usize, src: &[u8], dest: &mut [u8]) {
    let len = src.len();
    assert!(dest.len() >= len, "delta_encode: dest shorter than src");
    let u = unit(typesize);
    let m = len / u * u;
    if offset == 0 {
        let head = u.min(len);
        dest[..head].copy_from_slice(&src[..head]);
        if m > u {
            let out = &mut dest[u..m];
            for ((d, s), p) in out.iter_mut().zip(&src[u..m]).zip(&src[..m - u]) {
                *d = s ^ p;
            }
        }
    } else {
        assert!(dref.len() >= m, "delta_encode: reference block too short");
        for ((d, s), r) in dest[..m].iter_mut().zip(&src[..m]).zip(&dref[..m]) {
            *d = s ^ r;
        }
    }
    if m < len {
        dest[m..len].copy_from_slice(&src[m..]);
    }
}

/// Spread the last `u` bytes of `x` over the whole word.
fn broadcast_last(x: u64, u: usize) -> u64 {
    match u {
        1 => (x >> 56).wrapping_mul(0x0101_0101_0101_0101),
        2 => (x >> 48).wrapping_mul(0x0001_0001_0001_0001),
        4 => (x >> 32).wrapping_mul(0x0000_0001_0000_0001),
        _ => x,
    }
}

/// Running XOR with stride `u` over `buf` (`buf.len() % u == 0`):
/// `buf[i] ^= buf[i - u]` for increasing `i`, eight bytes at a time.
fn prefix_xor(buf: &mut [u8], u: usize) {
    let total = buf.len();
    let mut carry = 0u64;
    let mut words = buf.chunks_exact_mut(8);
    for chunk in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        let mut x = u64::from_le_bytes(w);
        let mut shift = 8 * u;
        while shift < 64 {
            x ^= x << shift;
            shift *= 2;
        }
        x ^= carry;
        chunk.copy_from_slice(&x.to_le_bytes());
        carry = broadcast_last(x, u);
    }
    let done = total - words.into_remainder().len();
    for i in done.max(u)..buf.len() {
        buf[i] ^= buf[i - u];
    }
}

/// Undo [`delta_encode`] in place.
///
/// For `offset == 0` the block is its own reference and `dref` is ignored
/// (it may be empty).  Otherwise `dref` is the already decoded first block
/// of the chunk.
pub fn delta_decode(dref: &[u8], offset: usize, typesize: usize, dest: &mut [u8]) {
    let len = dest.len();
    let u = unit(typesize);
    let m = len / u * u;
    if offset == 0 {
        prefix_xor(&mut dest[..m], u);
    } else {
        assert!(dref.len() >= m, "delta_decode: reference block too short");
        for (d, r) in dest[..m].iter_mut().zip(&dref[..m]) {
            *d ^= r;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn data(len: usize, seed: u64) -> Vec<u8> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        (0..len).map(|_| rng.gen()).collect()
    }

    /// Literal transcription of the rules in the module docs.
    fn naive_encode(dref: &[u8], offset: usize, ts: usize, src: &[u8]) -> Vec<u8> {
        let u = unit(ts);
        let m = src.len() / u * u;
        let mut out = src.to_vec();
        for i in 0..m {
            out[i] = if offset == 0 {
                if i < u {
                    src[i]
                } else {
                    src[i] ^ src[i - u]
                }
            } else {
                src[i] ^ dref[i]
            };
        }
        out
    }

    #[test]
    fn units() {
        let expect = [
            (1, 1),
            (2, 2),
            (3, 1),
            (4, 4),
            (6, 1),
            (8, 8),
            (12, 1),
            (16, 8),
        ];
        for (ts, u) in expect {
            assert_eq!(unit(ts), u);
        }
        assert_eq!(unit(24), 8);
        assert_eq!(unit(255), 1);
    }

    #[test]
    fn round_trip_and_definition() {
        let lens = [0usize, 1, 3, 7, 8, 9, 31, 33, 1000, 4099];
        for ts in (1..=33).chain([64, 255]) {
            for &len in &lens {
                let block0 = data(len + 40, (ts * 3 + len) as u64);
                let src = data(len, (ts * 7 + len) as u64);
                for (offset, input) in [(0usize, &block0[..len]), (len + 40, &src[..])] {
                    let mut enc = vec![0u8; len];
                    delta_encode(&block0, offset, ts, input, &mut enc);
                    assert_eq!(
                        enc,
                        naive_encode(&block0, offset, ts, input),
                        "ts={ts} len={len}"
                    );
                    let mut dec = enc.clone();
                    delta_decode(&block0, offset, ts, &mut dec);
                    assert_eq!(&dec[..], input, "ts={ts} len={len} offset={offset}");
                }
            }
        }
    }

    #[test]
    fn known_values() {
        let src = [1u8, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
        let mut out = [0u8; 11];
        delta_encode(&[], 0, 2, &src, &mut out);
        assert_eq!(
            out,
            [
                1,
                2,
                3 ^ 1,
                4 ^ 2,
                5 ^ 3,
                6 ^ 4,
                7 ^ 5,
                8 ^ 6,
                9 ^ 7,
                10 ^ 8,
                11
            ]
        );
        let dref = [0xFFu8; 16];
        delta_encode(&dref, 16, 4, &src, &mut out);
        let mut expect = [0u8; 11];
        for i in 0..8 {
            expect[i] = src[i] ^ 0xFF;
        }
        expect[8..].copy_from_slice(&src[8..]);
        assert_eq!(out, expect);
    }
}
