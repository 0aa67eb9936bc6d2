//! zlib's level 1 for Blosc blocks: greedy matching through one table that
//! holds, per hash of four bytes, the last position where they were seen,
//! and deflate's fixed Huffman codes (no code lengths to count, build or
//! send). This is the method of zlib-ng's level 1 (`deflate_quick`), the
//! reference's, with its limits, so that the stream is its very bytes
//! (`tests::level_1_writes_zlib_ngs_bytes` in `codec::zlib`), done for a
//! block that is all in memory:
//!
//! - the table holds positions in the block itself, so the block is not
//!   copied into a sliding window first, and matches are compared in place;
//! - the table is not cleared for every block (zlib-ng clears its 128 KiB
//!   for every stream, a third of its time on 32 KiB blocks): its entries
//!   are positions counted from a base that grows from block to block, so
//!   an entry left by an earlier block lies below the base and is never
//!   taken; the output depends on the block alone;
//! - the Adler-32 trailer comes from `codec::adler32`.
//!
//! The stretches `codec::incompressible` finds are written as stored
//! blocks (zlib-ng would search them, then write fixed-code literals or
//! stored blocks); matches after them may reach back into their bytes,
//! which the decoder has in its window like any others.

use super::super::adler32::adler32;
use super::super::incompressible::Stretch;
use std::cell::RefCell;

/// log2 of the table's entries.
const HASH_BITS: u32 = 16;

/// The shortest match taken (zlib-ng's level 1 takes none shorter: a
/// 3-byte match saves at most a bit or two over literals in fixed codes).
const MIN_MATCH: usize = 4;

/// deflate's longest match.
const MAX_MATCH: usize = 258;

/// The farthest distance taken: deflate's 32 KiB less zlib's
/// `MIN_LOOKAHEAD` (258 + 3 + 1), as zlib-ng's level 1 limits its matches,
/// so that the streams are its very bytes.
const MAX_DIST: usize = 32 * 1024 - 262;

/// Input sizes from which [`compress`] gives up (returns 0: the caller
/// stores the block): positions must fit the table's `u32` entries with
/// room for the base. Blosc's blocks are far smaller.
const MAX_INPUT: usize = 1 << 30;

/// The last position seen per hash, as `base + position`.
struct Table {
    heads: Vec<u32>,
    /// Added to this block's positions; every entry of earlier blocks is
    /// below it. Never 0, so a cleared entry is never taken either.
    base: u32,
}

impl Table {
    fn new() -> Table {
        Table {
            heads: vec![0; 1 << HASH_BITS],
            base: 1,
        }
    }

    /// Moves the base past the previous block's entries, for a block of
    /// `len` bytes (clearing the table when the base would overflow).
    fn start(&mut self, prev_len: usize, len: usize) {
        let next = u64::from(self.base) + prev_len as u64;
        if next + len as u64 >= u64::from(u32::MAX) {
            self.heads.fill(0);
            self.base = 1;
        } else {
            self.base = next as u32;
        }
    }
}

thread_local! {
    /// This thread's table, and the length of the block that last used it.
    static TABLE: RefCell<Option<(Table, usize)>> = const { RefCell::new(None) };
}

/// A zlib stream of `src` into `dest` at level 1: the stretches `parts`
/// marks incompressible stored, the rest (all of `src` when `parts` is
/// empty) in fixed-code blocks. Returns its size; 0 when it does not fit.
pub(super) fn compress(src: &[u8], dest: &mut [u8], parts: &[Stretch]) -> usize {
    if src.len() >= MAX_INPUT {
        return 0;
    }
    let kept = TABLE.try_with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        let (table, prev_len) = slot.get_or_insert_with(|| (Table::new(), 0));
        table.start(*prev_len, src.len());
        *prev_len = src.len();
        Some(encode(src, dest, parts, table).unwrap_or(0))
    });
    match kept {
        Ok(Some(n)) => n,
        // A re-entrant call (from a callback further up this thread's
        // stack) or one from a thread-local destructor gets a table of its
        // own.
        _ => encode(src, dest, parts, &mut Table::new()).unwrap_or(0),
    }
}

/// The stream of [`compress`]; `None` when `dest` is too small.
fn encode(src: &[u8], dest: &mut [u8], parts: &[Stretch], table: &mut Table) -> Option<usize> {
    // CMF: deflate with a 32 KiB window; FLG: FLEVEL 0 (fastest) and the
    // check bits, as zlib-ng's level 1 writes it.
    dest.get_mut(..2)?.copy_from_slice(&[0x78, 0x01]);
    let mut bits = BitWriter {
        out: dest,
        pos: 2,
        acc: 0,
        count: 0,
    };
    if parts.is_empty() {
        fixed_block(src, 0, src.len(), true, table, &mut bits)?;
    } else {
        let mut start = 0;
        for (i, part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            if part.incompressible {
                stored_blocks(&src[start..part.end], last, &mut bits)?;
            } else {
                fixed_block(src, start, part.end, last, table, &mut bits)?;
            }
            start = part.end;
        }
    }
    bits.align()?;
    let end = bits.pos;
    dest.get_mut(end..end + 4)?
        .copy_from_slice(&adler32(1, src).to_be_bytes());
    Some(end + 4)
}

/// Writes bits into a byte buffer, least significant first (deflate's
/// order), 32 at a time.
struct BitWriter<'a> {
    out: &'a mut [u8],
    /// Bytes of `out` written.
    pos: usize,
    /// Bits not yet written, `count` of them, from the lowest.
    acc: u64,
    count: u32,
}

impl BitWriter<'_> {
    /// Appends the low `n` bits of `bits` (`n <= 32`, nothing above them
    /// set); `None` when `out` is full.
    #[inline(always)]
    fn put(&mut self, bits: u32, n: u32) -> Option<()> {
        self.acc |= u64::from(bits) << self.count;
        self.count += n;
        if self.count >= 32 {
            let word = (self.acc as u32).to_le_bytes();
            self.out
                .get_mut(self.pos..self.pos + 4)?
                .copy_from_slice(&word);
            self.pos += 4;
            self.acc >>= 32;
            self.count -= 32;
        }
        Some(())
    }

    /// Writes out every pending bit, padding the last byte with zeros.
    fn align(&mut self) -> Option<()> {
        while self.count > 0 {
            *self.out.get_mut(self.pos)? = self.acc as u8;
            self.pos += 1;
            self.acc >>= 8;
            self.count = self.count.saturating_sub(8);
        }
        self.acc = 0;
        Some(())
    }
}

/// `data` as stored blocks of at most 65,535 bytes, the last one final
/// when `last`.
fn stored_blocks(data: &[u8], last: bool, bits: &mut BitWriter) -> Option<()> {
    let n = data.len().div_ceil(0xFFFF).max(1);
    let mut pieces = data.chunks(0xFFFF);
    for i in 0..n {
        let piece = pieces.next().unwrap_or_default();
        // BFINAL, then BTYPE 00; the length starts on the next byte.
        bits.put(u32::from(last && i + 1 == n), 3)?;
        bits.align()?;
        let at = bits.pos;
        let len = piece.len() as u16;
        let out = bits.out.get_mut(at..at + 4 + piece.len())?;
        out[..2].copy_from_slice(&len.to_le_bytes());
        out[2..4].copy_from_slice(&(!len).to_le_bytes());
        out[4..].copy_from_slice(piece);
        bits.pos = at + 4 + piece.len();
    }
    Some(())
}

/// `src[start..end]` as one block with the fixed codes, final when `last`.
/// Matches may start anywhere in `src` before their position (within the
/// window) but end at `end`.
fn fixed_block(
    src: &[u8],
    start: usize,
    end: usize,
    last: bool,
    table: &mut Table,
    bits: &mut BitWriter,
) -> Option<()> {
    // BFINAL, then BTYPE 01 (fixed codes).
    bits.put(u32::from(last) | 1 << 1, 3)?;
    let base = table.base;
    let heads = &mut table.heads[..];
    let mut i = start;
    while i + MIN_MATCH <= end {
        let word = read_u32(src, i);
        let slot = &mut heads[hash(word)];
        let seen = *slot;
        *slot = base + i as u32;
        if seen >= base {
            let from = (seen - base) as usize;
            // Every entry at or above the base is an earlier position of
            // this block.
            let dist = i - from;
            if dist <= MAX_DIST && read_u32(src, from) == word {
                let len = match_len(src, from, i, end.min(i + MAX_MATCH));
                let (lc, ln) = LENGTH_CODES[len];
                let (dc, dn) = distance_code(dist);
                bits.put(u32::from(lc) | dc << ln, u32::from(ln) + dn)?;
                i += len;
                continue;
            }
        }
        put_literal(bits, src[i])?;
        i += 1;
    }
    for &b in &src[i..end] {
        put_literal(bits, b)?;
    }
    // End of block: symbol 256, seven zero bits.
    bits.put(0, 7)
}

#[inline(always)]
fn put_literal(bits: &mut BitWriter, b: u8) -> Option<()> {
    let (code, n) = LITERAL_CODES[usize::from(b)];
    bits.put(u32::from(code), u32::from(n))
}

#[inline(always)]
fn read_u32(src: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&src[at..at + 4]);
    u32::from_le_bytes(w)
}

#[inline(always)]
fn read_u64(src: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&src[at..at + 8]);
    u64::from_le_bytes(w)
}

/// 32 bytes as four little-endian words.
#[inline(always)]
fn words(bytes: &[u8]) -> [u64; 4] {
    let mut w = [0u64; 4];
    for (w, b) in w.iter_mut().zip(bytes.chunks_exact(8)) {
        let mut x = [0u8; 8];
        x.copy_from_slice(b);
        *w = u64::from_le_bytes(x);
    }
    w
}

/// The table slot of four bytes (zlib-ng's multiplicative hash).
#[inline(always)]
fn hash(word: u32) -> usize {
    (word.wrapping_mul(2_654_435_761) >> (32 - HASH_BITS)) as usize
}

/// Length of the match of `src[at..limit]` with the bytes at `from`
/// (`from < at`), whose first [`MIN_MATCH`] bytes are known equal.
#[inline(always)]
fn match_len(src: &[u8], from: usize, at: usize, limit: usize) -> usize {
    let max = limit - at;
    let mut n = MIN_MATCH;
    // 32 bytes a step (long matches of runs are common in Blosc's data),
    // then 8.
    while n + 32 <= max {
        let a = words(&src[from + n..from + n + 32]);
        let b = words(&src[at + n..at + n + 32]);
        let diff = [a[0] ^ b[0], a[1] ^ b[1], a[2] ^ b[2], a[3] ^ b[3]];
        if diff.iter().any(|&d| d != 0) {
            let (k, d) = diff
                .iter()
                .enumerate()
                .find(|(_, d)| **d != 0)
                .unwrap_or((0, &0));
            return n + 8 * k + (d.trailing_zeros() / 8) as usize;
        }
        n += 32;
    }
    while n + 8 <= max {
        let diff = read_u64(src, from + n) ^ read_u64(src, at + n);
        if diff != 0 {
            return n + (diff.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    while n < max && src[from + n] == src[at + n] {
        n += 1;
    }
    n
}

/// A fixed Huffman code (sent most significant bit first) as the bits to
/// put least significant first.
const fn reversed(code: u32, n: u32) -> u32 {
    code.reverse_bits() >> (32 - n)
}

/// The fixed code of literal/length symbol `sym` (0..=287): bits and length.
const fn literal_length_code(sym: u32) -> (u32, u32) {
    if sym < 144 {
        (reversed(0x30 + sym, 8), 8)
    } else if sym < 256 {
        (reversed(0x190 + sym - 144, 9), 9)
    } else if sym < 280 {
        (reversed(sym - 256, 7), 7)
    } else {
        (reversed(0xC0 + sym - 280, 8), 8)
    }
}

/// Code and length of each byte as a literal.
const LITERAL_CODES: [(u16, u8); 256] = {
    let mut t = [(0u16, 0u8); 256];
    let mut b = 0;
    while b < 256 {
        let (code, n) = literal_length_code(b as u32);
        t[b] = (code as u16, n as u8);
        b += 1;
    }
    t
};

/// Each match length (3..=258; lower indices unused) as its length
/// symbol's code followed by the extra bits: bits and their number.
const LENGTH_CODES: [(u16, u8); MAX_MATCH + 1] = {
    // The first length of each symbol from 257, and its extra bits.
    const BASE: [u32; 29] = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115,
        131, 163, 195, 227, 258,
    ];
    const EXTRA: [u32; 29] = [
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
    ];
    let mut t = [(0u16, 0u8); MAX_MATCH + 1];
    let mut len = 3;
    while len <= MAX_MATCH {
        // The last symbol whose first length is at most `len`.
        let mut s = 28;
        while BASE[s] > len as u32 {
            s -= 1;
        }
        let (code, n) = literal_length_code(257 + s as u32);
        let extra = len as u32 - BASE[s];
        t[len] = ((code | extra << n) as u16, (n + EXTRA[s]) as u8);
        len += 1;
    }
    t
};

/// Distance `dist` (1..=32768) as its 5-bit code followed by the extra
/// bits: bits and their number.
#[inline(always)]
fn distance_code(dist: usize) -> (u32, u32) {
    let d = (dist - 1) as u32;
    if d < 4 {
        return (reversed(d, 5), 5);
    }
    // Symbols come in pairs per power of two: 2 log2(d), plus the bit
    // below the top one; the bits under that are the extra bits.
    let log = 31 - d.leading_zeros();
    let sym = 2 * log + ((d >> (log - 1)) & 1);
    let extra_bits = log - 1;
    let extra = d & ((1 << extra_bits) - 1);
    (reversed(sym, 5) | extra << 5, 5 + extra_bits)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{other_deflate, other_inflate as inflate};
    use super::*;

    /// The fixed codes' first and last symbols, and the length and
    /// distance codes at their edges, as RFC 1951's tables give them.
    #[test]
    fn codes_follow_the_fixed_tables() {
        assert_eq!(literal_length_code(0), (reversed(0b0011_0000, 8), 8));
        assert_eq!(literal_length_code(143), (reversed(0b1011_1111, 8), 8));
        assert_eq!(literal_length_code(144), (reversed(0b1_1001_0000, 9), 9));
        assert_eq!(literal_length_code(255), (reversed(0b1_1111_1111, 9), 9));
        assert_eq!(literal_length_code(256), (0, 7));
        assert_eq!(literal_length_code(279), (reversed(0b001_0111, 7), 7));
        assert_eq!(literal_length_code(280), (reversed(0b1100_0000, 8), 8));
        // Length 3: symbol 257; 10: 264; 11: 265 with extra bit 0; 12:
        // extra bit 1; 227: 284 with extra 0; 257: 284 with extra 30;
        // 258: 285 with no extra bits.
        let code = |s| literal_length_code(s);
        assert_eq!(LENGTH_CODES[3], (code(257).0 as u16, 7));
        assert_eq!(LENGTH_CODES[10], (code(264).0 as u16, 7));
        assert_eq!(LENGTH_CODES[11], (code(265).0 as u16, 8));
        assert_eq!(LENGTH_CODES[12], ((code(265).0 | 1 << 7) as u16, 8));
        assert_eq!(LENGTH_CODES[227], (code(284).0 as u16, 13));
        assert_eq!(LENGTH_CODES[257], ((code(284).0 | 30 << 8) as u16, 13));
        assert_eq!(LENGTH_CODES[258], (code(285).0 as u16, 8));
        assert_eq!(distance_code(1), (reversed(0, 5), 5));
        assert_eq!(distance_code(4), (reversed(3, 5), 5));
        assert_eq!(distance_code(5), (reversed(4, 5), 6));
        assert_eq!(distance_code(6), (reversed(4, 5) | 1 << 5, 6));
        assert_eq!(distance_code(7), (reversed(5, 5), 6));
        assert_eq!(distance_code(24577), (reversed(29, 5), 18));
        assert_eq!(distance_code(32768), (reversed(29, 5) | 8191 << 5, 18));
    }

    /// Every length and distances up to deflate's window (those past
    /// [`MAX_DIST`] as literals), each decoded by zlib-rs.
    #[test]
    fn every_length_and_distance_decodes() {
        const WINDOW: usize = 32 * 1024;
        for dist in (1..=WINDOW).filter(|d| *d < 300 || d % 97 == 0 || WINDOW - d < 300) {
            let mut src: Vec<u8> = (0..dist as u32)
                .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
                .collect();
            // A copy of the start `dist` back, then a cut-short one.
            let len = 3 + dist % 300;
            for k in 0..len {
                src.push(src[k % dist]);
            }
            let mut out = vec![0u8; src.len() * 2 + 64];
            let n = compress(&src, &mut out, &[]);
            assert!(n > 0, "dist {dist}");
            assert_eq!(
                inflate(&out[..n], src.len()).as_deref(),
                Some(&src[..]),
                "dist {dist}"
            );
        }
    }

    /// Streams with and without stored stretches, of many sizes, decode
    /// to their input; too little room gives 0, never a cut stream.
    #[test]
    fn streams_decode_and_never_overflow() {
        let mut seed = 0x1234_5678_9ABC_DEF0u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..200 {
            let len = (next() % 70_000) as usize;
            let mut src = Vec::with_capacity(len);
            while src.len() < len {
                match next() % 4 {
                    0 => src.extend((0..next() % 3000).map(|_| next() as u8)),
                    1 => src.extend(std::iter::repeat_n(next() as u8, (next() % 2000) as usize)),
                    2 if src.len() > 10 => {
                        let from = (next() as usize) % src.len();
                        let n = ((next() % 600) as usize).min(src.len() - from);
                        src.extend_from_within(from..from + n);
                    }
                    _ => src.extend((0..next() % 500).map(|i| (i % 7) as u8)),
                }
            }
            src.truncate(len);
            let mut parts = Vec::new();
            if round % 2 == 1 && len > 0 {
                // Alternating stretches at random cuts.
                let mut at = 0;
                let mut incompressible = next() % 2 == 0;
                while at < len {
                    at = (at + 1 + (next() % 20_000) as usize).min(len);
                    parts.push(Stretch {
                        end: at,
                        incompressible,
                    });
                    incompressible = !incompressible;
                }
            }
            let mut out = vec![0u8; len * 2 + 64];
            let n = compress(&src, &mut out, &parts);
            assert!(n > 0);
            assert_eq!(
                inflate(&out[..n], len).as_deref(),
                Some(&src[..]),
                "round {round}"
            );
            // The same bytes again (the kept table must not matter), and
            // 0 in one byte less.
            let mut again = vec![0u8; n];
            assert_eq!(compress(&src, &mut again, &parts), n);
            assert_eq!(again, out[..n]);
            assert_eq!(compress(&src, &mut again[..n - 1], &parts), 0);
        }
    }

    /// On compressible data the ratio is zlib-ng's level 1's (zlib-rs
    /// writes its bytes) within 2%, or better.
    #[test]
    fn ratio_matches_zlib_level_1() {
        let ints: Vec<u8> = (0..8192u32)
            .flat_map(|i| (i / 8 * 3).to_le_bytes())
            .collect();
        let sparse: Vec<u8> = (0..4096u64)
            .flat_map(|i| (if i % 100 == 7 { i * 977 } else { 0 }).to_le_bytes())
            .collect();
        let text: Vec<u8> = b"the quick brown fox jumps over the lazy dog; "
            .iter()
            .cycle()
            .take(30_000)
            .enumerate()
            .map(|(i, &b)| if i % 53 == 0 { b'#' } else { b })
            .collect();
        for src in [&ints, &sparse, &text] {
            let mut ours = vec![0u8; src.len() + 64];
            let n = compress(src, &mut ours, &[]);
            let m = other_deflate(src, 1).len();
            assert!(n > 0 && n * 100 <= m * 102, "ours {n} zlib-rs {m}");
        }
    }
}
