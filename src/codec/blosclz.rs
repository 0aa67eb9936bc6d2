//! BloscLZ: the native LZ77-style codec of Blosc (a FastLZ descendant).
//!
//! The stream produced here is byte-for-byte the one written by the
//! reference implementation of c-blosc2 3.3, and the decoder accepts exactly
//! the streams the reference decoder accepts.
//!
//! # Stream format
//!
//! A stream is a sequence of tokens, each starting with a control byte `c`.
//! The very first control byte always denotes a literal run and has bit 5
//! set as a format marker (only its low 5 bits are meaningful).
//!
//! * `c < 32`: literal run of `c + 1` bytes (1..=32), which follow verbatim.
//! * `c >= 32`: back-reference.  `l = c >> 5` (1..=7) and `hi = c & 31`.
//!   When `l == 7`, extension bytes follow and are added to the length while
//!   they are 255 (the first byte below 255 ends the list).  Then comes the
//!   low byte `lo` of the distance.  The match copies `l + 2` (plus any
//!   extension) bytes from `hi * 256 + lo + 1` bytes back.  The special pair
//!   `hi == 31, lo == 255` announces a far match: two more bytes hold a
//!   big-endian `far`, and the distance is `far + 8192`.
//!
//! # Encoder
//!
//! Greedy single-probe hash matching on 4-byte sequences (multiplicative
//! hash, table of `2^hashlog` positions, `hashlog` depending on `clevel`).
//! Matches are shortened by 4 bytes (the reference's `ipshift`), which keeps
//! the decoder's work per token large.  Before compressing, a cheap
//! simulation on a window of the input (how far from the end it starts
//! depends on `clevel`) estimates the compression ratio; poorly compressible blocks are given up
//! early, returning 0.

/// Longest literal run a single control byte can describe.
const MAX_COPY: usize = 32;
/// Biased distances from this value on need the 4-byte "far" encoding.
const MAX_DISTANCE: usize = 8191;
/// Unbiased distances from this value on are never used.
const MAX_FARDISTANCE: usize = 65535 + MAX_DISTANCE - 1;
/// Largest hash table (log2 of the number of slots).
const HASH_LOG: u32 = 14;
#[cfg(target_arch = "x86_64")]
mod avx2;

/// How many bytes every match is pulled back by.
const IPSHIFT: usize = 4;
/// Shortest (already shortened) match that gets encoded.
const MINLEN: usize = 4;
/// Smallest input the encoder accepts.
const MIN_INPUT: usize = 16;
/// Smallest output buffer the encoder accepts.
const MIN_OUTPUT: usize = 66;

/// Hash table size (log2) for each compression level.
const HASHLOG_BY_CLEVEL: [u32; 10] = [0, 12, 13, 14, 14, 14, 14, 14, 14, 14];
/// Minimum estimated ratio required to attempt compression, per level.
const MIN_RATIO_BY_CLEVEL: [f64; 10] = [0.0, 2.0, 1.5, 1.2, 1.2, 1.2, 1.2, 1.15, 1.1, 1.0];

#[inline(always)]
fn read_u32(buf: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(buf[at..at + 4].try_into().unwrap())
}

#[inline(always)]
fn read_u64(buf: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(buf[at..at + 8].try_into().unwrap())
}

/// Multiplicative (Knuth/LZ4 style) hash of a 4-byte sequence into a table
/// of `SLOTS` (a power of two) entries.
#[inline(always)]
fn hash_seq<const SLOTS: usize>(seq: u32) -> usize {
    (seq.wrapping_mul(2_654_435_761) >> (32 - SLOTS.trailing_zeros())) as usize
}

/// How [`scan_match`] compares bytes: 16 at a time with 64-bit words
/// ([`Narrow`]), or first 32 at a time with AVX2 (`avx2::Wide`, which can
/// only exist once the CPU was found to support AVX2).  Both give the same
/// match lengths, hence the same output.
pub(crate) trait Scan: Copy {
    /// Whether [`Scan::mismatch32`] is used at all.
    const WIDE: bool;
    /// For `pos + 32 <= buf.len()` and `dist <= pos`: the index of the first
    /// of the 32 bytes at `pos` that differs from the byte `dist` earlier, or
    /// `None` when all 32 are equal.
    fn mismatch32(self, buf: &[u8], pos: usize, dist: usize) -> Option<usize>;
}

/// The portable [`Scan`].
#[derive(Clone, Copy)]
struct Narrow;

impl Scan for Narrow {
    const WIDE: bool = false;
    #[inline(always)]
    fn mismatch32(self, buf: &[u8], pos: usize, dist: usize) -> Option<usize> {
        (0..32).find(|&k| buf[pos + k] != buf[pos + k - dist])
    }
}

/// Scans forward from `pos` comparing `buf[p]` with `buf[p - dist]` for
/// `p < bound`.  Returns one past the first mismatching position, or `bound`
/// when everything up to `bound` matches.  This is the "end" the reference
/// encoder works with (it always overshoots a mismatch by one byte).
#[inline(always)]
fn scan_match<S: Scan>(scan: S, buf: &[u8], mut pos: usize, dist: usize, bound: usize) -> usize {
    if S::WIDE {
        while pos + 32 <= bound {
            if let Some(k) = scan.mismatch32(buf, pos, dist) {
                return pos + k + 1;
            }
            pos += 32;
        }
    }
    while pos + 16 <= bound {
        let a = read_u64(buf, pos) ^ read_u64(buf, pos - dist);
        if a != 0 {
            return pos + (a.trailing_zeros() / 8) as usize + 1;
        }
        let b = read_u64(buf, pos + 8) ^ read_u64(buf, pos + 8 - dist);
        if b != 0 {
            return pos + 8 + (b.trailing_zeros() / 8) as usize + 1;
        }
        pos += 16;
    }
    if pos + 8 <= bound {
        let a = read_u64(buf, pos) ^ read_u64(buf, pos - dist);
        if a != 0 {
            return pos + (a.trailing_zeros() / 8) as usize + 1;
        }
        pos += 8;
    }
    while pos < bound {
        if buf[pos] != buf[pos - dist] {
            return pos + 1;
        }
        pos += 1;
    }
    bound
}

/// Simulates the encoder on `data` (without producing output) to estimate the
/// compression ratio it would achieve.  `data` is the probe window, already
/// clipped to the hash table size; `htab` must be zeroed.
#[inline(always)]
fn estimate_ratio<const SLOTS: usize, S: Scan>(
    scan: S,
    data: &[u8],
    htab: &mut [u32; SLOTS],
) -> f64 {
    let limit = data.len();
    if limit <= 12 {
        return 0.0;
    }
    let ip_bound = limit - 1;
    let ip_limit = limit - 12;

    // Output size so far; starts with the opening literal marker + 4 bytes.
    let mut oc: i64 = 5;
    let mut copy = 4usize;
    let mut ip = 0usize;
    while ip < ip_limit {
        let anchor = ip;
        let seq = read_u32(data, ip);
        let slot = hash_seq::<SLOTS>(seq);
        let candidate = htab[slot] as usize;
        htab[slot] = anchor as u32;
        let distance = anchor - candidate;

        let mut len = 0;
        if distance != 0 && distance < MAX_FARDISTANCE && read_u32(data, candidate) == seq {
            ip = scan_match(scan, data, anchor + 4, distance, ip_bound) - IPSHIFT;
            len = ip - anchor;
        }
        if len < MINLEN {
            // Literal byte (possibly opening a new literal run).
            oc += 1;
            ip = anchor + 1;
            copy += 1;
            if copy == MAX_COPY {
                copy = 0;
                oc += 1;
            }
            continue;
        }

        if copy == 0 {
            // The pending literal marker is dropped.
            oc -= 1;
        }
        copy = 0;
        if len >= 7 {
            oc += ((len - 7) / 255 + 1) as i64;
        }
        oc += if distance - 1 < MAX_DISTANCE { 2 } else { 4 };

        let seq = read_u32(data, ip);
        htab[hash_seq::<SLOTS>(seq)] = ip as u32;
        ip += 2;
        // A literal marker is assumed after every match.
        oc += 1;
    }
    ip as f64 / oc as f64
}

/// Compress `input` into `output` at `clevel` (1..=9). Returns the number of bytes written,
/// or 0 when the data is not compressible enough or does not fit in `output`
/// (same contract as the reference blosclz_compress, whose `maxout` is output.len()).
pub fn compress(clevel: i32, input: &[u8], output: &mut [u8]) -> usize {
    if clevel <= 0 || input.len() > i32::MAX as usize {
        return 0;
    }
    if input.len() < MIN_INPUT || output.len() < MIN_OUTPUT {
        return 0;
    }
    let clevel = clevel.min(9) as usize;
    #[cfg(target_arch = "x86_64")]
    if let Some(wide) = avx2::Wide::detect() {
        return avx2::compress_levels(wide, clevel, input, output);
    }
    compress_levels(Narrow, clevel, input, output)
}

/// [`compress`] after the argument checks, with the given [`Scan`].
#[inline(always)]
pub(crate) fn compress_levels<S: Scan>(
    scan: S,
    clevel: usize,
    input: &[u8],
    output: &mut [u8],
) -> usize {
    // A table sized for the level keeps the zeroing cost proportional.
    match HASHLOG_BY_CLEVEL[clevel] {
        12 => compress_with::<{ 1 << 12 }, S>(scan, clevel, input, output),
        13 => compress_with::<{ 1 << 13 }, S>(scan, clevel, input, output),
        _ => compress_with::<{ 1 << HASH_LOG }, S>(scan, clevel, input, output),
    }
}

#[inline(always)]
fn compress_with<const SLOTS: usize, S: Scan>(
    scan: S,
    clevel: usize,
    input: &[u8],
    output: &mut [u8],
) -> usize {
    let length = input.len();
    let mut htab = [0u32; SLOTS];

    // Entropy probing on a window starting `maxlen` bytes before the end
    // (low levels start later) and at most one table's worth long.
    let maxlen = match clevel {
        1 => length / 8,
        2 | 3 => length / 4,
        4..=6 => length / 2,
        _ => length,
    };
    let start = length - maxlen;
    let window = &input[start..start + maxlen.min(SLOTS)];
    if estimate_ratio(scan, window, &mut htab) < MIN_RATIO_BY_CLEVEL[clevel] {
        return 0;
    }
    htab.fill(0);
    encode(scan, clevel, input, output, &mut htab).unwrap_or(0)
}

/// Appends the bytes of a back-reference with biased distance `dist` and
/// (shortened) length `len` at `op`.  `None` when it does not fit.
#[inline(always)]
fn emit_match(out: &mut [u8], mut op: usize, len: usize, dist: usize) -> Option<usize> {
    let limit = out.len();
    let near = dist < MAX_DISTANCE;
    let (hi, far) = if near {
        ((dist >> 8) as u8, 0)
    } else {
        (31u8, dist - MAX_DISTANCE)
    };
    let tail = if near { 1 } else { 3 };
    if len < 7 {
        if op + 1 + tail > limit {
            return None;
        }
        out[op] = ((len as u8) << 5) + hi;
        op += 1;
    } else {
        if op + 1 > limit {
            return None;
        }
        out[op] = (7 << 5) + hi;
        op += 1;
        let mut rest = len - 7;
        while rest >= 255 {
            if op + 1 > limit {
                return None;
            }
            out[op] = 255;
            op += 1;
            rest -= 255;
        }
        if op + 1 + tail > limit {
            return None;
        }
        out[op] = rest as u8;
        op += 1;
    }
    if near {
        out[op] = dist as u8;
        op += 1;
    } else {
        out[op] = 255;
        out[op + 1] = (far >> 8) as u8;
        out[op + 2] = far as u8;
        op += 3;
    }
    Some(op)
}

/// The main compression pass (after probing).  `None` when out of room.
/// `htab` must be zeroed.
#[inline(always)]
fn encode<const SLOTS: usize, S: Scan>(
    scan: S,
    clevel: usize,
    input: &[u8],
    out: &mut [u8],
    htab: &mut [u32; SLOTS],
) -> Option<usize> {
    let length = input.len();
    let op_limit = out.len();
    let ip_bound = length - 1;
    let ip_limit = length - 12;

    // Open with a literal run holding the first four bytes.  The run length
    // byte is a placeholder, patched once the run ends.
    out[0] = (MAX_COPY - 1) as u8;
    out[1..5].copy_from_slice(&input[..4]);
    let mut op = 5usize;
    let mut ip = 4usize;
    let mut copy = 4usize;

    while ip < ip_limit {
        let anchor = ip;
        let seq = read_u32(input, ip);
        let slot = hash_seq::<SLOTS>(seq);
        let candidate = htab[slot] as usize;
        htab[slot] = anchor as u32;
        let distance = anchor - candidate;

        let mut len = 0;
        if distance != 0 && distance < MAX_FARDISTANCE && read_u32(input, candidate) == seq {
            ip = scan_match(scan, input, anchor + 4, distance, ip_bound) - IPSHIFT;
            len = ip - anchor;
            // Short far matches (biased distance >= MAX_DISTANCE) are not
            // worth their 4 bytes.
            if len <= 5 && distance > MAX_DISTANCE {
                len = 0;
            }
        }
        if len < MINLEN {
            if op + 2 > op_limit {
                return None;
            }
            out[op] = input[anchor];
            op += 1;
            ip = anchor + 1;
            copy += 1;
            if copy == MAX_COPY {
                copy = 0;
                out[op] = (MAX_COPY - 1) as u8;
                op += 1;
            }
            continue;
        }

        // Close the pending literal run, or drop its unused placeholder.
        if copy != 0 {
            out[op - copy - 1] = (copy - 1) as u8;
        } else {
            op -= 1;
        }
        copy = 0;
        op = emit_match(out, op, len, distance - 1)?;

        // Index the position(s) right at the end of the match.
        let seq = read_u32(input, ip);
        htab[hash_seq::<SLOTS>(seq)] = ip as u32;
        if clevel == 9 {
            htab[hash_seq::<SLOTS>(seq >> 8)] = (ip + 1) as u32;
        }
        ip += 2;

        if op + 1 > op_limit {
            return None;
        }
        out[op] = (MAX_COPY - 1) as u8;
        op += 1;
    }

    // Whatever is left goes out as literals.
    while ip <= ip_bound {
        if op + 2 > op_limit {
            return None;
        }
        out[op] = input[ip];
        op += 1;
        ip += 1;
        copy += 1;
        if copy == MAX_COPY {
            copy = 0;
            out[op] = (MAX_COPY - 1) as u8;
            op += 1;
        }
    }
    if copy != 0 {
        out[op - copy - 1] = (copy - 1) as u8;
    } else {
        op -= 1;
    }
    // Format marker in the first control byte.
    out[0] |= 1 << 5;
    Some(op)
}

/// For a period `d` below 16, the largest multiple of `d` that is at most
/// 16 (how far a 16-byte store of the pattern may advance).
const STRIDE16: [usize; 16] = [
    16, 16, 16, 15, 16, 15, 12, 14, 16, 9, 10, 11, 12, 13, 14, 15,
];

/// Copies `len` bytes inside `out` from `dist` bytes behind `op` to `op`,
/// with LZ77 semantics (an overlapping source repeats the pattern).
/// Requires `1 <= dist <= op` and `op + len <= out.len()`; up to 31 bytes
/// past `op + len` may be clobbered when the buffer has room for them.
#[inline(always)]
fn copy_match(out: &mut [u8], op: usize, dist: usize, len: usize) {
    let src = op - dist;
    if out.len() - op >= len + 16 {
        if dist >= len && len >= 64 {
            // Long and not overlapping its source: one memmove.
            out.copy_within(src..src + len, op);
        } else if dist >= 32 && out.len() - op >= len + 32 {
            // Chunks never overlap their own source.
            let mut i = 0;
            while i < len {
                out.copy_within(src + i..src + i + 32, op + i);
                i += 32;
            }
        } else if dist >= 16 {
            // Chunks never overlap their own source.
            let mut i = 0;
            while i < len {
                out.copy_within(src + i..src + i + 16, op + i);
                i += 16;
            }
        } else if dist == 1 && len >= 32 {
            let byte = out[src];
            out[op..op + len].fill(byte);
        } else {
            // A period below 16 (zeros found two bytes back are common):
            // build 16 bytes of the pattern in a register by doubling, then
            // store them every `stride` bytes, a whole number of periods.
            // No load waits for an earlier store.  The 16-byte read may take
            // bytes past `op` (inside `out`, as there is room); they are
            // masked off.
            let word: [u8; 16] = out[src..src + 16].try_into().unwrap_or([0; 16]);
            let mut pat = u128::from_le_bytes(word) & ((1u128 << (8 * dist)) - 1);
            let mut span = dist;
            while span < 16 {
                pat |= pat << (8 * span);
                span *= 2;
            }
            // Through memory, so that the loop below stores it with one
            // 16-byte move rather than two 8-byte ones.
            let pat = std::hint::black_box(pat.to_le_bytes());
            let stride = STRIDE16[dist];
            let mut i = op;
            while i < op + len {
                out[i..i + 16].copy_from_slice(&pat);
                i += stride;
            }
        }
    } else if dist >= len {
        out.copy_within(src..src + len, op);
    } else if len <= 32 {
        for i in op..op + len {
            out[i] = out[i - dist];
        }
    } else {
        // Grow the periodic pattern by doubling what has been written.
        let end = op + len;
        let mut pos = op;
        while pos < end {
            let n = (pos - src).min(end - pos);
            out.copy_within(src..src + n, pos);
            pos += n;
        }
    }
}

/// Decompress a blosclz stream `input` into `output` (output.len() is the maximum).
/// Returns Some(bytes written) or None for a malformed/truncated stream or one that would
/// write past output.  Must NEVER panic or read/write out of bounds on arbitrary input.
///
/// Mirrors the reference's acceptance rules exactly, including its quirk of
/// ending (without copying) at a back-reference that is the last token.
/// Like the reference, bytes of `output` past the returned length may be
/// overwritten (fast copies overshoot by up to 31 bytes when there is room).
pub fn decompress(input: &[u8], output: &mut [u8]) -> Option<usize> {
    let ilen = input.len();
    let olen = output.len();
    if ilen == 0 {
        return Some(0);
    }
    let mut ip = 1usize;
    let mut op = 0usize;
    let mut ctrl = (input[0] & 31) as usize;

    loop {
        if ctrl >= 32 {
            // Back-reference.
            let mut len = (ctrl >> 5) - 1;
            let hi = (ctrl & 31) << 8;
            if len == 6 {
                loop {
                    if ip + 1 >= ilen {
                        return None;
                    }
                    let code = input[ip];
                    ip += 1;
                    len = len.saturating_add(code as usize);
                    if code != 255 {
                        break;
                    }
                }
            } else if ip + 1 >= ilen {
                return None;
            }
            let lo = input[ip] as usize;
            ip += 1;
            len = len.saturating_add(3);
            let mut dist = hi + lo + 1;
            if lo == 255 && hi == 31 << 8 {
                if ip + 1 >= ilen {
                    return None;
                }
                let far = ((input[ip] as usize) << 8) | input[ip + 1] as usize;
                ip += 2;
                dist = far + MAX_DISTANCE + 1;
            }
            if len > olen - op || dist > op {
                return None;
            }
            if ip >= ilen {
                break;
            }
            ctrl = input[ip] as usize;
            ip += 1;
            copy_match(output, op, dist, len);
            op += len;
        } else {
            // Literal run.
            let run = ctrl + 1;
            if ilen - ip > MAX_COPY && olen - op >= MAX_COPY {
                // Common case: plenty of room on both sides, so a fixed-size
                // copy (cheaper than a variable one) is fine; the surplus is
                // overwritten later or left past the end.  The run cannot
                // reach the end of the input either.
                output[op..op + MAX_COPY].copy_from_slice(&input[ip..ip + MAX_COPY]);
                op += run;
                ip += run;
                ctrl = input[ip] as usize;
                ip += 1;
                continue;
            }
            if run > olen - op || run > ilen - ip {
                return None;
            }
            output[op..op + run].copy_from_slice(&input[ip..ip + run]);
            op += run;
            ip += run;
            if ip >= ilen {
                break;
            }
            ctrl = input[ip] as usize;
            ip += 1;
        }
    }
    Some(op)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// Plain byte-at-a-time decoder with the same acceptance rules.
    fn slow_decode(input: &[u8], out: &mut [u8]) -> Option<usize> {
        if input.is_empty() {
            return Some(0);
        }
        let (mut ip, mut op) = (1usize, 0usize);
        let mut ctrl = (input[0] & 31) as usize;
        loop {
            if ctrl < 32 {
                let run = ctrl + 1;
                if op + run > out.len() || ip + run > input.len() {
                    return None;
                }
                for _ in 0..run {
                    out[op] = input[ip];
                    op += 1;
                    ip += 1;
                }
            } else {
                let mut len = (ctrl >> 5) + 2;
                if len == 9 {
                    loop {
                        input.get(ip + 1)?;
                        let code = input[ip];
                        ip += 1;
                        len += code as usize;
                        if code != 255 {
                            break;
                        }
                    }
                } else {
                    input.get(ip + 1)?;
                }
                let lo = input[ip] as usize;
                ip += 1;
                let mut dist = ((ctrl & 31) << 8) + lo + 1;
                if dist == 8192 {
                    input.get(ip + 1)?;
                    dist = 8192 + ((input[ip] as usize) << 8) + input[ip + 1] as usize;
                    ip += 2;
                }
                if op + len > out.len() || dist > op {
                    return None;
                }
                if ip >= input.len() {
                    break;
                }
                for _ in 0..len {
                    out[op] = out[op - dist];
                    op += 1;
                }
            }
            if ip >= input.len() {
                break;
            }
            ctrl = input[ip] as usize;
            ip += 1;
        }
        Some(op)
    }

    fn roundtrip(data: &[u8]) -> Vec<usize> {
        let mut sizes = Vec::new();
        for clevel in 1..=9 {
            let mut comp = vec![0u8; data.len() + 100];
            let n = compress(clevel, data, &mut comp);
            sizes.push(n);
            if n == 0 {
                continue;
            }
            assert!(n <= comp.len());
            assert_eq!(comp[0] & 0xe0, 0x20, "format marker");
            let mut dec = vec![0u8; data.len()];
            assert_eq!(decompress(&comp[..n], &mut dec), Some(data.len()));
            assert_eq!(dec, data, "clevel {clevel}");
            // A larger output buffer changes nothing.
            let mut big = vec![0xa5u8; data.len() + 40];
            assert_eq!(decompress(&comp[..n], &mut big), Some(data.len()));
            assert_eq!(&big[..data.len()], data);
            // A smaller one is refused.
            if !data.is_empty() {
                let mut small = vec![0u8; data.len() - 1];
                assert_eq!(decompress(&comp[..n], &mut small), None);
            }
        }
        sizes
    }

    fn text_like(rng: &mut StdRng, n: usize) -> Vec<u8> {
        const WORDS: &str =
            "blosc |compress|the |of |data |chunk |frame, |block\n|superchunk |shuffle |1234 ";
        let words: Vec<&str> = WORDS.split('|').collect();
        let mut v = Vec::with_capacity(n + 16);
        while v.len() < n {
            v.extend_from_slice(words[rng.gen_range(0..words.len())].as_bytes());
        }
        v.truncate(n);
        v
    }

    fn small_alphabet(rng: &mut StdRng, n: usize, k: u8) -> Vec<u8> {
        (0..n).map(|_| b'a' + rng.gen_range(0..k)).collect()
    }

    #[test]
    fn zeros_and_runs() {
        for &n in &[
            16usize, 17, 31, 64, 100, 1000, 4096, 65535, 65536, 65537, 200_000,
        ] {
            let sizes = roundtrip(&vec![0u8; n]);
            if n >= 1000 {
                assert!(
                    sizes.iter().all(|&s| s > 0 && s < n / 8 + 64),
                    "{n}: {sizes:?}"
                );
            }
            let runs: Vec<u8> = (0..n).map(|i| (i / 37) as u8).collect();
            roundtrip(&runs);
            let periodic: Vec<u8> = (0..n).map(|i| (i % 7) as u8 * 11).collect();
            roundtrip(&periodic);
            let ramp: Vec<u8> = (0..n).map(|i| (i as u32).to_le_bytes()[i % 4]).collect();
            roundtrip(&ramp);
        }
    }

    #[test]
    fn random_and_mixed() {
        let mut rng = StdRng::seed_from_u64(0xb105c);
        for &n in &[16usize, 50, 999, 8192, 30_000, 65_536, 70_000, 140_000] {
            let random: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
            let sizes = roundtrip(&random);
            if n >= 1000 {
                assert!(
                    sizes.iter().all(|&s| s == 0),
                    "random compressed: {sizes:?}"
                );
            }
            roundtrip(&text_like(&mut rng, n));
            roundtrip(&small_alphabet(&mut rng, n, 3));
            // Sparse data: mostly zeros with random bytes sprinkled in.
            let sparse: Vec<u8> = (0..n)
                .map(|_| if rng.gen_ratio(1, 20) { rng.gen() } else { 0 })
                .collect();
            roundtrip(&sparse);
        }
    }

    #[test]
    fn far_matches() {
        // A compressible body with a random segment repeated at various
        // distances, some beyond the near (8 KiB) and far (72 KiB) windows.
        let mut rng = StdRng::seed_from_u64(7);
        for &gap in &[
            8000usize, 8190, 8192, 8200, 20_000, 65_000, 73_700, 73_730, 80_000,
        ] {
            let mut data = small_alphabet(&mut rng, gap + 3000, 2);
            let seg: Vec<u8> = (0..600).map(|_| rng.gen()).collect();
            data[100..700].copy_from_slice(&seg);
            data[100 + gap..700 + gap].copy_from_slice(&seg);
            let sizes = roundtrip(&data);
            assert!(sizes[8] > 0);
        }
    }

    #[test]
    fn short_inputs() {
        let mut rng = StdRng::seed_from_u64(42);
        for n in 0..100 {
            let zeros = vec![0u8; n];
            let sizes = roundtrip(&zeros);
            if n < MIN_INPUT {
                assert!(sizes.iter().all(|&s| s == 0));
            }
            roundtrip(&text_like(&mut rng, n));
            roundtrip(&(0..n).map(|_| rng.gen_range(0..4u8)).collect::<Vec<_>>());
        }
    }

    #[test]
    fn output_too_small() {
        let mut rng = StdRng::seed_from_u64(3);
        let data = text_like(&mut rng, 20_000);
        let mut comp = vec![0u8; 30_000];
        let full = compress(5, &data, &mut comp);
        assert!(full > 0 && full < data.len());
        // Any buffer smaller than needed gives 0, never a partial stream.
        for cap in [0, 10, 65, 66, 100, full / 2, full - 1] {
            let mut small = vec![0u8; cap];
            assert_eq!(compress(5, &data, &mut small), 0, "cap {cap}");
        }
        // Like the reference, one spare byte is needed past the stream end.
        let mut exact = vec![0u8; full];
        assert_eq!(compress(5, &data, &mut exact), 0);
        let mut spare = vec![0u8; full + 1];
        assert_eq!(compress(5, &data, &mut spare), full);
        assert_eq!(spare[..full], comp[..full]);
        // Short data, big enough output but below the 66-byte minimum.
        let mut out = vec![0u8; 65];
        assert_eq!(compress(9, &[0u8; 64], &mut out), 0);
        // Levels outside 1..=9.
        assert_eq!(compress(0, &data, &mut comp), 0);
        assert_eq!(
            compress(12, &data, &mut comp),
            compress(9, &data, &mut vec![0u8; 30_000])
        );
    }

    #[test]
    fn handcrafted_streams() {
        // Literal "abc", near match dist 3 len 3, then a far match, then a
        // final literal (the reference ignores a trailing back-reference).
        let mut s = vec![0x20 | 2, b'a', b'b', b'c', 1 << 5, 2];
        assert_eq!(slow_decode(&s, &mut [0u8; 16]), None); // ends with a match
        s.extend_from_slice(&[0, b'z']);
        let mut out = [0u8; 16];
        assert_eq!(decompress(&s, &mut out), Some(7));
        assert_eq!(&out[..7], b"abcabcz");
        // Far reference (distance 8192 + 1) to before the start: refused.
        let far = [0x20, b'x', (1 << 5) | 31, 255, 0, 1, 0, b'y'];
        assert_eq!(decompress(&far, &mut [0u8; 64]), None);
        // Same, with enough history.
        let mut hist = Vec::new();
        for _ in 0..300 {
            hist.extend_from_slice(&[31]);
            hist.extend((0..32).map(|i| i as u8));
        }
        hist[0] |= 0x20;
        hist.extend_from_slice(&[(2 << 5) | 31, 255, 0, 1, 0, b'y']);
        let mut big = vec![0u8; 300 * 32 + 10];
        assert_eq!(decompress(&hist, &mut big), Some(300 * 32 + 5));
        let at = 300 * 32;
        let from = at - 8193;
        assert_eq!(big[at..at + 4], big[from..from + 4].to_vec()[..]);
        assert_eq!(decompress(&[], &mut []), Some(0));
    }

    #[test]
    fn mutated_streams_never_panic() {
        let mut rng = StdRng::seed_from_u64(0x5eed);
        let mut corpus = Vec::new();
        for n in [40usize, 300, 5000, 40_000] {
            for data in [
                text_like(&mut rng, n),
                small_alphabet(&mut rng, n, 4),
                (0..n).map(|i| (i / 100) as u8).collect(),
            ] {
                let mut comp = vec![0u8; n + 100];
                let c = compress(9, &data, &mut comp);
                if c > 0 {
                    comp.truncate(c);
                    corpus.push((comp, n));
                }
            }
        }
        assert!(corpus.len() >= 8);
        let mut fast = Vec::new();
        let mut slow = Vec::new();
        for case in 0..6000 {
            let (base, n) = &corpus[case % corpus.len()];
            let mut s = base.clone();
            match rng.gen_range(0..4) {
                0 => s.truncate(rng.gen_range(0..s.len())),
                1 => {
                    for _ in 0..rng.gen_range(1..5) {
                        let i = rng.gen_range(0..s.len());
                        s[i] = rng.gen();
                    }
                }
                2 => {
                    let i = rng.gen_range(0..s.len());
                    s[i] ^= 1 << rng.gen_range(0..8);
                    s.truncate(rng.gen_range(i..s.len()) + 1);
                }
                _ => s = (0..rng.gen_range(0..200)).map(|_| rng.gen()).collect(),
            }
            let cap = match rng.gen_range(0..3) {
                0 => *n,
                1 => rng.gen_range(0..n + 50),
                _ => n + 1000,
            };
            fast.clear();
            fast.resize(cap, 0);
            slow.clear();
            slow.resize(cap, 0);
            let a = decompress(&s, &mut fast);
            let b = slow_decode(&s, &mut slow);
            assert_eq!(a, b, "case {case}");
            if let Some(k) = a {
                assert!(k <= cap);
                assert_eq!(fast[..k], slow[..k], "case {case}");
            }
        }
    }

    #[test]
    fn wide_scan_gives_the_same_output() {
        #[cfg(target_arch = "x86_64")]
        let Some(wide) = avx2::Wide::detect() else {
            return;
        };
        #[cfg(not(target_arch = "x86_64"))]
        let wide = Narrow;
        let mut rng = StdRng::seed_from_u64(99);
        for case in 0..60 {
            let n = [16, 100, 1000, 4096, 70_000, 300_000][case % 6];
            let data = match case % 4 {
                0 => text_like(&mut rng, n),
                1 => small_alphabet(&mut rng, n, 2),
                2 => {
                    let mut v = vec![0u8; n];
                    for _ in 0..n / 50 {
                        let at = rng.gen_range(0..n);
                        v[at] = rng.gen();
                    }
                    v
                }
                _ => (0..n).map(|i| (i / 37 % 5) as u8).collect(),
            };
            for clevel in 1..=9 {
                for room in [n + 64, n / 2 + 66] {
                    let mut a = vec![0u8; room];
                    let mut b = vec![0u8; room];
                    let na = compress_levels(Narrow, clevel, &data, &mut a);
                    let nb = compress_levels(wide, clevel, &data, &mut b);
                    assert_eq!(na, nb, "case {case} clevel {clevel} room {room}");
                    assert_eq!(a[..na], b[..nb], "case {case} clevel {clevel}");
                }
            }
        }
    }

    #[test]
    fn copy_match_all_shapes() {
        const OP: usize = 200;
        let mut rng = StdRng::seed_from_u64(11);
        let dists = (1..40).chain([47, 63, 64, 65, 100, 128, 199, 200]);
        for dist in dists {
            for len in (1..80).chain([96, 127, 128, 129, 150, 260]) {
                for extra in [0usize, 3, 8, 20, 31, 32, 40] {
                    let n = OP + len + extra;
                    let mut a: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
                    a[OP..].fill(0);
                    let mut b = a.clone();
                    copy_match(&mut a, OP, dist, len);
                    for i in OP..OP + len {
                        b[i] = b[i - dist];
                    }
                    assert_eq!(a[..OP + len], b[..OP + len], "dist {dist} len {len}");
                }
            }
        }
    }
}
