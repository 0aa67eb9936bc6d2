//! Finding the stretches of a block that an LZ codec cannot shrink: bytes
//! whose order-0 entropy is within a few hundredths of 8 bits and that
//! repeat next to nothing seen in the 32 KiB before them. zlib,
//! LZ4HC and zstd's higher levels spend most of their time on such bytes
//! looking for matches that are not there, and then store them; random
//! bytes, and the low bytes or bit planes of noisy floats after a shuffle
//! (half a block and more), are the common cases. `codec::zlib` stores
//! these stretches directly (zlib's level 0) and deflates the rest;
//! `codec::compress_stream` stores a block made only of them at once.
//!
//! The test works on segments of [`SEGMENT`] bytes:
//! - a 64-byte sample must hold at least [`SAMPLE_DISTINCT`] different byte
//!   values and not step by the same amount [`SAMPLE_STRIDES`] times or
//!   more (ramps and counters), which rejects most compressible segments
//!   for a small fraction of the cost of a histogram;
//! - the whole segment's order-0 collision entropy (a lower bound of the
//!   Shannon entropy, from the sum of the squared byte counts) must be what
//!   uniform random bytes of that length show (below 8 bits on a finite
//!   sample), within [`SIGMAS`] standard deviations (0.04 bits at 4 KiB); a
//!   Huffman code could then save about 1% at most, before the cost of its
//!   own table;
//! - for a codec with an entropy coder and strong searches (zstd,
//!   [`Coder::MatchesAndEntropy`]), the steps between neighbouring bytes
//!   must pass the same test: bytes with an even histogram whose high bits
//!   climb by a nearly constant step (the low byte of noisy floats on a
//!   ramp) are not random, and zstd's strongest levels shrink them by ~2%;
//! - the strings at anchor positions (positions whose byte has the top
//!   three bits [`ANCHOR_TOP_BITS`], one in 8, so that a repeated string
//!   has the same anchors in both copies) are looked up in a table of
//!   2^[`TABLE_BITS`] entries keyed by their first 4 bytes, where a later
//!   anchor may take an earlier one's place: a segment fails where one
//!   anchor repeats 8 bytes from within the 32 KiB window, or where the
//!   shorter repeats (from 4 bytes, LZ4's shortest match) add up to an
//!   estimated saving of 0.6% ([`EXTRA_REPEAT_BYTES`]). A copy of 32 bytes
//!   from the far end of the window is found in 93% of random segments, of
//!   64 bytes in 99.7%, closer ones more often (a simulation of 300 each).

/// Bytes per segment tested.
pub const SEGMENT: usize = 4096;

/// Shortest segment tested (the last one of a block may be short); shorter
/// ones count as compressible.
const MIN_SEGMENT: usize = 1024;

/// Bytes sampled at the start of a segment for the first, cheap test.
const SAMPLE: usize = 64;

/// Distinct byte values the sample must hold (uniform random bytes: 56.3 on
/// average, with a standard deviation of 2.3).
const SAMPLE_DISTINCT: usize = 46;

/// Steps in the sample equal to the step before them from which a segment
/// counts as a ramp or counter (0, 1, 2, ...; every value once, which the
/// other tests would take for noise): uniform random bytes have 0.24 on
/// average, and 8 or more with a probability under 1e-9.
const SAMPLE_STRIDES: usize = 8;

/// Standard deviations of uniform random bytes' sum of squared counts
/// within which a segment's sum must lie.
const SIGMAS: f64 = 5.0;

/// deflate's window: repeats farther back cannot be matched.
const WINDOW: usize = 32 * 1024;

/// The top bits of the bytes at anchor positions (the byte shifted right by
/// [`ANCHOR_SHIFT`]): one position in 8 of the near-uniform bytes that the
/// repeat test is for.
const ANCHOR_TOP_BITS: u8 = 0b101;
const ANCHOR_SHIFT: u32 = 5;

/// The shortest repeat LZ4 and zstd's faster levels match.
const MIN_REPEAT: usize = 4;

/// A repeat this long at one anchor is enough to call a segment
/// compressible: uniform random bytes show one with a probability of
/// 2^-61 per pair of anchors (which already agree on three bits).
const LONG_REPEAT: usize = 8;

/// The bytes past the first [`MIN_REPEAT`] that the shorter repeats at a
/// segment's anchors add up to, from which the segment counts as
/// compressible. A repeat of L bytes saves LZ4 about L - 4 bytes (an offset
/// and a token in the middle of literals), and one position in 8 is an
/// anchor, so this sum times 8 estimates the bytes LZ4HC saves; 3 is 0.6%
/// of a segment. On noise of short period (4-7 byte copies from a few
/// distances back at one position in 40, which LZ4HC shrinks by 3.7%) 3 of
/// 500 segments with half as many copies (1.7%) pass the test, the worst
/// of them one that LZ4HC shrinks by 1.2%. Counting 4-byte repeats would
/// not do: uniform random bytes show one about once in 250 segments (a pair
/// of anchors already agrees on three bits: 2^-29, 512 anchors against the
/// 4,096 in the window), and the low byte of noisy floats on a ramp a few
/// per segment, which save LZ4 nothing (0.08% of 64 KiB).
const EXTRA_REPEAT_BYTES: usize = 3;

/// log2 of the anchor table's entries.
const TABLE_BITS: u32 = 14;

/// A stretch of a block, up to `end` (exclusive, from the end of the one
/// before), and whether it looked incompressible.
#[cfg_attr(feature = "zlib-ng", allow(dead_code))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stretch {
    pub end: usize,
    pub incompressible: bool,
}

/// Split `src` into stretches of alternating kind, into `out` (cleared
/// first). `out` stays empty when no segment looks incompressible.
#[cfg_attr(feature = "zlib-ng", allow(dead_code))]
pub fn stretches(src: &[u8], out: &mut Vec<Stretch>) {
    out.clear();
    let mut flags: Vec<bool> = src
        .chunks(SEGMENT)
        .map(|s| s.len() >= MIN_SEGMENT && varied_sample(s) && near_uniform(s))
        .collect();
    if !flags.contains(&true) {
        return;
    }
    mark_repeats(src, &mut flags);
    if !flags.contains(&true) {
        return;
    }
    for (i, &f) in flags.iter().enumerate() {
        let end = ((i + 1) * SEGMENT).min(src.len());
        match out.last_mut() {
            Some(last) if last.incompressible == f => last.end = end,
            _ => out.push(Stretch {
                end,
                incompressible: f,
            }),
        }
    }
}

/// What a codec can take out of bytes besides repeats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coder {
    /// Repeats only (LZ4HC): the order-0 and repeat tests.
    Matches,
    /// Repeats and entropy coding with its strongest searches (zstd): the
    /// steps between neighbouring bytes must look random too.
    MatchesAndEntropy,
}

/// Whether every segment of `src` looks incompressible to `coder` (every
/// segment, the last one included, at least [`MIN_SEGMENT`] bytes long): a
/// codec that has no quick way through such bytes can give up on the block
/// at once. The cheap sample of every segment comes first, so that
/// compressible blocks are turned down after a few bytes.
pub fn all_incompressible(src: &[u8], coder: Coder) -> bool {
    let varied = src
        .chunks(SEGMENT)
        .all(|s| s.len() >= MIN_SEGMENT && varied_sample(s));
    if src.is_empty()
        || !varied
        || !src
            .chunks(SEGMENT)
            .all(|s| near_uniform(s) && (coder == Coder::Matches || steps_near_uniform(s)))
    {
        return false;
    }
    let mut flags = vec![true; src.len().div_ceil(SEGMENT)];
    mark_repeats(src, &mut flags);
    !flags.contains(&false)
}

/// Whether the first [`SAMPLE`] bytes hold [`SAMPLE_DISTINCT`] values and
/// fewer than [`SAMPLE_STRIDES`] steps equal to the step before them.
fn varied_sample(s: &[u8]) -> bool {
    let sample = &s[..s.len().min(SAMPLE)];
    let mut seen = [0u64; 4];
    for &b in sample {
        seen[usize::from(b >> 6)] |= 1 << (b & 63);
    }
    let distinct: usize = seen.iter().map(|w| w.count_ones() as usize).sum();
    let strides = sample
        .windows(3)
        .filter(|w| w[1].wrapping_sub(w[0]) == w[2].wrapping_sub(w[1]))
        .count();
    distinct >= SAMPLE_DISTINCT && strides < SAMPLE_STRIDES
}

/// Whether the order-0 collision entropy of `s` (-log2 of the sum of the
/// squared byte frequencies, never above the Shannon entropy) is that of
/// uniform random bytes: the sum of the squared counts must be within
/// [`SIGMAS`] standard deviations of uniform bytes' n + n (n - 1) / 256 (the
/// deviation is about n sqrt(510) / 256). At 4 KiB that is 2.6% of the sum,
/// 0.04 bits of entropy.
fn near_uniform(s: &[u8]) -> bool {
    // Four tables, so that runs of one value do not serialize the counts.
    let mut counts = [[0u32; 256]; 4];
    let mut quads = s.chunks_exact(4);
    for q in &mut quads {
        counts[0][q[0] as usize] += 1;
        counts[1][q[1] as usize] += 1;
        counts[2][q[2] as usize] += 1;
        counts[3][q[3] as usize] += 1;
    }
    for &b in quads.remainder() {
        counts[0][b as usize] += 1;
    }
    counts_near_uniform(&counts, s.len())
}

/// [`near_uniform`] for the steps between neighbouring bytes (each byte
/// minus the one before it, wrapping). Uniform random bytes have uniform
/// steps; bytes whose histogram is even but whose high bits climb by a
/// nearly constant step (the low byte of floats with a few bits of noise on
/// a ramp, after a shuffle) do not, and zstd's strongest levels shrink
/// those by a few percent.
fn steps_near_uniform(s: &[u8]) -> bool {
    let mut counts = [[0u32; 256]; 4];
    let mut prev = s.first().copied().unwrap_or(0);
    let mut quads = s.get(1..).unwrap_or(&[]).chunks_exact(4);
    for q in &mut quads {
        counts[0][q[0].wrapping_sub(prev) as usize] += 1;
        counts[1][q[1].wrapping_sub(q[0]) as usize] += 1;
        counts[2][q[2].wrapping_sub(q[1]) as usize] += 1;
        counts[3][q[3].wrapping_sub(q[2]) as usize] += 1;
        prev = q[3];
    }
    for &b in quads.remainder() {
        counts[0][b.wrapping_sub(prev) as usize] += 1;
        prev = b;
    }
    counts_near_uniform(&counts, s.len().saturating_sub(1))
}

/// Whether `n` values counted in the four tables look like uniform random
/// bytes: the sum of their squared counts within [`SIGMAS`] standard
/// deviations of uniform bytes' (see [`near_uniform`]).
fn counts_near_uniform(counts: &[[u32; 256]; 4], n: usize) -> bool {
    let sum_sq: u64 = (0..256)
        .map(|v| u64::from(counts[0][v] + counts[1][v] + counts[2][v] + counts[3][v]))
        .map(|c| c * c)
        .sum();
    let n = n as f64;
    let expected = n + n * (n - 1.0) / 256.0;
    let deviation = n * 510f64.sqrt() / 256.0;
    // Counts much more even than random bytes' come from counters and
    // ramps (every value the same number of times), which repeat.
    (sum_sq as f64 - expected).abs() <= SIGMAS * deviation
}

/// Clear the flags of segments that repeat what came within the window
/// before them: one anchored string of [`LONG_REPEAT`] bytes, or anchored
/// repeats of [`MIN_REPEAT`] bytes and more whose extra bytes add up to
/// [`EXTRA_REPEAT_BYTES`]. Only segments that are flagged, or lie within
/// the window before a flagged one, are scanned.
fn mark_repeats(src: &[u8], flags: &mut [bool]) {
    const NONE: u32 = u32::MAX;
    const AHEAD: usize = WINDOW / SEGMENT;
    let mut table = vec![NONE; 1 << TABLE_BITS];
    let last = src.len().saturating_sub(MIN_REPEAT - 1);
    for seg in 0..flags.len() {
        if !flags[seg..flags.len().min(seg + AHEAD + 1)].contains(&true) {
            continue;
        }
        let (from, to) = (seg * SEGMENT, ((seg + 1) * SEGMENT).min(last));
        let mut extra = 0;
        let mut at = from;
        while at < to {
            // The anchors among up to 64 positions as a bit mask, so that the
            // loop over them mispredicts once per 64 bytes, not per word.
            let n = (to - at).min(64);
            let mut mask = 0u64;
            for (i, w) in src[at..].chunks(8).take(n.div_ceil(8)).enumerate() {
                mask |= u64::from(anchor_bits(w)) << (8 * i);
            }
            if n < 64 {
                mask &= (1 << n) - 1;
            }
            while mask != 0 {
                let p = at + mask.trailing_zeros() as usize;
                mask &= mask - 1;
                let w = &src[p..p + MIN_REPEAT];
                let word = u32::from_le_bytes(w.try_into().unwrap_or_default());
                let slot = (word.wrapping_mul(0x9E37_79B1) >> (32 - TABLE_BITS)) as usize;
                let q = table[slot];
                table[slot] = p as u32;
                if q == NONE {
                    continue;
                }
                let q = q as usize;
                if p - q > WINDOW || src[q..q + MIN_REPEAT] != *w {
                    continue;
                }
                let len = MIN_REPEAT
                    + src[p + MIN_REPEAT..src.len().min(p + LONG_REPEAT)]
                        .iter()
                        .zip(&src[q + MIN_REPEAT..])
                        .take_while(|(a, b)| a == b)
                        .count();
                extra += len - MIN_REPEAT;
                if len >= LONG_REPEAT || extra >= EXTRA_REPEAT_BYTES {
                    flags[seg] = false;
                }
            }
            at += n;
        }
    }
}

/// Bit k set where byte k of `w` (at most 8 bytes) has the top bits
/// [`ANCHOR_TOP_BITS`]: for a whole word, without a branch per byte (an exact
/// zero-byte test, no carries between bytes, then one bit per byte gathered
/// by a multiplication).
fn anchor_bits(w: &[u8]) -> u8 {
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    match <[u8; 8]>::try_from(w) {
        Ok(bytes) => {
            let v = u64::from_le_bytes(bytes);
            const ONES: u64 = 0x0101_0101_0101_0101;
            let x = ((v >> ANCHOR_SHIFT) & (ONES * u64::from(0xFFu8 >> ANCHOR_SHIFT)))
                ^ (ONES * u64::from(ANCHOR_TOP_BITS));
            let zero = !(((x & LOW7) + LOW7) | x) & !LOW7;
            ((zero >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
        }
        Err(_) => w
            .iter()
            .enumerate()
            .filter(|(_, &b)| b >> ANCHOR_SHIFT == ANCHOR_TOP_BITS)
            .fold(0, |m, (k, _)| m | 1 << k),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn random(rng: &mut ChaCha8Rng, n: usize) -> Vec<u8> {
        (0..n).map(|_| rng.gen()).collect()
    }

    #[test]
    fn random_bytes_are_one_incompressible_stretch() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut out = Vec::new();
        for n in [4096, 10_000, 65_536, 262_144] {
            let src = random(&mut rng, n);
            stretches(&src, &mut out);
            // A short last segment counts as compressible.
            let whole = n % SEGMENT == 0 || n % SEGMENT >= MIN_SEGMENT;
            let want = if whole {
                vec![Stretch {
                    end: n,
                    incompressible: true,
                }]
            } else {
                vec![
                    Stretch {
                        end: n - n % SEGMENT,
                        incompressible: true,
                    },
                    Stretch {
                        end: n,
                        incompressible: false,
                    },
                ]
            };
            assert_eq!(out, want, "{n} bytes");
        }
    }

    #[test]
    fn compressible_data_gives_no_stretches() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let mut out = Vec::new();
        let text: Vec<u8> = (0..100_000)
            .map(|i| b"the quick brown fox "[i % 20])
            .collect();
        let small: Vec<u8> = (0..100_000).map(|_| rng.gen_range(0..64u8)).collect();
        // 7 random bits per byte: entropy 7, a Huffman code saves 12%.
        let seven: Vec<u8> = (0..100_000).map(|_| rng.gen::<u8>() >> 1).collect();
        let ramp: Vec<u8> = (0..25_000u32).flat_map(|i| i.to_le_bytes()).collect();
        for src in [&text, &small, &seven, &ramp] {
            stretches(src, &mut out);
            assert!(out.is_empty(), "{out:?}");
        }
        stretches(&[], &mut out);
        assert!(out.is_empty());
        stretches(&random(&mut rng, MIN_SEGMENT - 1), &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn repeats_of_random_bytes_stay_compressible() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut out = Vec::new();
        // One random segment, then the same bytes again: the copy is a match.
        let a = random(&mut rng, SEGMENT);
        let mut src = a.clone();
        src.extend_from_slice(&a);
        stretches(&src, &mut out);
        assert_eq!(
            out,
            vec![
                Stretch {
                    end: SEGMENT,
                    incompressible: true
                },
                Stretch {
                    end: 2 * SEGMENT,
                    incompressible: false
                },
            ]
        );
        // A random 1 KiB repeated 40 times: every segment repeats.
        let unit = random(&mut rng, 1024);
        let src: Vec<u8> = unit.iter().copied().cycle().take(40 * 1024).collect();
        stretches(&src, &mut out);
        assert!(out.is_empty(), "{out:?}");
        // A copy farther back than the window cannot be matched.
        let mut src = a.clone();
        src.extend(random(&mut rng, WINDOW));
        src.extend_from_slice(&a);
        stretches(&src, &mut out);
        assert_eq!(
            out,
            vec![Stretch {
                end: src.len(),
                incompressible: true
            }]
        );
    }

    #[test]
    fn whole_blocks() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let a = random(&mut rng, 8 * SEGMENT);
        assert!(all_incompressible(&a, Coder::Matches));
        // The tests' rates of turning down random segments add up over a
        // block's segments: a 1 MiB block has 256.
        let passed = (0..20)
            .filter(|_| all_incompressible(&random(&mut rng, 1 << 20), Coder::Matches))
            .count();
        assert_eq!(passed, 20);
        let single = (0..2000)
            .filter(|_| {
                let s = random(&mut rng, SEGMENT);
                varied_sample(&s) && near_uniform(&s)
            })
            .count();
        assert!(single >= 1998, "{single} of 2000 random segments");
        assert!(all_incompressible(
            &a[..SEGMENT + MIN_SEGMENT],
            Coder::Matches
        ));
        // A short tail could be anything: not tested, so not skipped.
        assert!(!all_incompressible(
            &a[..SEGMENT + MIN_SEGMENT - 1],
            Coder::Matches
        ));
        assert!(!all_incompressible(&a[..MIN_SEGMENT - 1], Coder::Matches));
        assert!(!all_incompressible(&[], Coder::Matches));
        // One compressible segment, anywhere, and the block is compressed.
        for at in [0, 3, 7] {
            let mut b = a.clone();
            b[at * SEGMENT..(at + 1) * SEGMENT].fill(9);
            assert!(
                !all_incompressible(&b, Coder::Matches),
                "zeros at segment {at}"
            );
        }
        // A repeat of earlier random bytes.
        let mut c = a[..4 * SEGMENT].to_vec();
        c.extend_from_within(SEGMENT..2 * SEGMENT);
        assert!(!all_incompressible(&c, Coder::Matches));
    }

    /// The low byte of float32 values on a ramp with a few bits of noise,
    /// after a shuffle: an even histogram and no repeats, but a high nibble
    /// that climbs by a nearly constant step, which zstd's strongest levels
    /// shrink by about 2%. Random bytes pass the steps test as often as the
    /// order-0 one.
    #[test]
    fn steps_catch_ramped_noise() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let low: Vec<u8> = (0..(64 << 10))
            .map(|i| {
                let x = 500.0 + 500.0 * f64::from(i) / 65536.0 + rng.gen::<f64>() * 1e-3;
                (x as f32).to_le_bytes()[0]
            })
            .collect();
        assert!(all_incompressible(&low, Coder::Matches));
        assert!(!all_incompressible(&low, Coder::MatchesAndEntropy));
        let passed = (0..20)
            .filter(|_| all_incompressible(&random(&mut rng, 1 << 20), Coder::MatchesAndEntropy))
            .count();
        assert_eq!(passed, 20);
        let single = (0..2000)
            .filter(|_| steps_near_uniform(&random(&mut rng, SEGMENT)))
            .count();
        assert!(single >= 1998, "{single} of 2000 random segments");
    }

    /// Random bytes where one position in 40 starts a copy of 4-7 bytes
    /// from one of a few distances back (a noise generator of short
    /// period): no repeat of 8, an even histogram, but LZ4HC saves ~3.7%.
    #[test]
    fn short_repeats_are_compressible() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let mut dest = vec![0u8; 2 * SEGMENT];
        for _ in 0..300 {
            let mut v: Vec<u8> = Vec::with_capacity(SEGMENT + 8);
            while v.len() < SEGMENT {
                let back = [104, 215, 319, 534, 853][rng.gen_range(0..5)];
                if v.len() > back && rng.gen_ratio(1, 40) {
                    for _ in 0..rng.gen_range(4..8) {
                        v.push(v[v.len() - back]);
                    }
                } else {
                    v.push(rng.gen());
                }
            }
            v.truncate(SEGMENT);
            let n = crate::codec::lz4::compress_hc(&v, &mut dest, 5, None);
            assert!(n < SEGMENT * 99 / 100, "LZ4HC: {n} of {SEGMENT}");
            assert!(!all_incompressible(&v, Coder::Matches));
        }
    }

    #[test]
    fn anchor_bits_match_the_bytes() {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        for len in (0..=8).chain(std::iter::repeat_n(8, 2000)) {
            let w: Vec<u8> = (0..len)
                .map(|_| {
                    if rng.gen_bool(0.3) {
                        (ANCHOR_TOP_BITS << ANCHOR_SHIFT) | rng.gen_range(0..1u8 << ANCHOR_SHIFT)
                    } else {
                        rng.gen()
                    }
                })
                .collect();
            let want = w
                .iter()
                .enumerate()
                .filter(|(_, &b)| b >> ANCHOR_SHIFT == ANCHOR_TOP_BITS)
                .fold(0u8, |m, (k, _)| m | 1 << k);
            assert_eq!(anchor_bits(&w), want, "{w:02x?}");
        }
    }

    #[test]
    fn mixed_blocks_alternate() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let mut out = Vec::new();
        let mut src = random(&mut rng, 3 * SEGMENT);
        src.extend(std::iter::repeat_n(7u8, 2 * SEGMENT));
        src.extend(random(&mut rng, SEGMENT));
        stretches(&src, &mut out);
        assert_eq!(
            out,
            vec![
                Stretch {
                    end: 3 * SEGMENT,
                    incompressible: true
                },
                Stretch {
                    end: 5 * SEGMENT,
                    incompressible: false
                },
                Stretch {
                    end: 6 * SEGMENT,
                    incompressible: true
                },
            ]
        );
    }
}
