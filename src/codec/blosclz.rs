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
#[cfg(target_arch = "x86_64")]
mod avx512;

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

/// Largest hash table any level uses.
const MAX_SLOTS: usize = 1 << HASH_LOG;

/// A thread's hash table, kept between calls and all zero between them.
///
/// The reference zeroes a 64 KiB table on the stack before the probe and
/// again before the encoder, for every stream; with shuffle a block is split
/// into `typesize` streams, often of a few hundred bytes, and clearing the
/// table then costs far more than the pass over the data.  Keeping it
/// between calls, a pass over fewer than a quarter as many bytes as the
/// table has slots clears after itself by hashing its positions again (a
/// superset of the slots it wrote); longer ones zero the whole table, as
/// before.  The table is all zero whenever a pass starts, as the
/// reference's is, so the output stays byte-for-byte the same.
pub(crate) struct Table {
    slots: Box<[u32; MAX_SLOTS]>,
    /// Set while a call may have left entries behind (a panic in between).
    dirty: bool,
}

impl Table {
    pub(crate) fn new() -> Table {
        Table {
            slots: Box::new([0; MAX_SLOTS]),
            dirty: false,
        }
    }
}

std::thread_local! {
    static TABLE: std::cell::RefCell<Option<Table>> = const { std::cell::RefCell::new(None) };
}

/// Zero every slot a pass over `data` can have written to: the hash of the
/// 4 bytes at each position, and with `shifted` (the level-9 encoder) also
/// the hash of those 4 bytes shifted down by one byte.
#[inline(always)]
fn clear_after<const SLOTS: usize>(htab: &mut [u32; SLOTS], data: &[u8], shifted: bool) {
    if data.len() >= SLOTS / 4 {
        htab.fill(0);
        return;
    }
    // Positions written are at most `len - 4` (each was read as a u32).
    for w in data.windows(4) {
        let seq = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        htab[hash_seq::<SLOTS>(seq)] = 0;
        if shifted {
            htab[hash_seq::<SLOTS>(seq >> 8)] = 0;
        }
    }
}

/// How [`scan_match`] compares bytes: 16 at a time with 64-bit words
/// ([`Narrow`]), or first 32 at a time with AVX2 (`avx2::Wide`) or 64 at a
/// time with AVX-512 (`avx512::Wide`), which can only exist once the CPU was
/// found to support them.  All give the same match lengths, hence the same
/// output.
pub(crate) trait Scan: Copy {
    /// Bytes compared by one [`Scan::mismatch`]; 0 when it is not used.
    const WIDTH: usize;
    /// For `pos + WIDTH <= buf.len()` and `dist <= pos`: the index of the
    /// first of the `WIDTH` bytes at `pos` that differs from the byte `dist`
    /// earlier, or `None` when all are equal.
    fn mismatch(self, buf: &[u8], pos: usize, dist: usize) -> Option<usize>;
    /// Bytes compared by one [`Scan::mismatch_long`], used once a match has
    /// outlasted its first `WIDTH` bytes; 0 when there is none.
    const LONG: usize = 0;
    /// [`Scan::mismatch`] over `LONG` bytes.
    fn mismatch_long(self, _buf: &[u8], _pos: usize, _dist: usize) -> Option<usize> {
        None
    }
}

/// The portable [`Scan`].
#[derive(Clone, Copy)]
struct Narrow;

impl Scan for Narrow {
    const WIDTH: usize = 0;
    #[inline(always)]
    fn mismatch(self, _: &[u8], _: usize, _: usize) -> Option<usize> {
        None
    }
}

/// Scans forward from `pos` comparing `buf[p]` with `buf[p - dist]` for
/// `p < bound`.  Returns one past the first mismatching position, or `bound`
/// when everything up to `bound` matches.  This is the "end" the reference
/// encoder works with (it always overshoots a mismatch by one byte).
#[inline(always)]
fn scan_match<S: Scan>(scan: S, buf: &[u8], mut pos: usize, dist: usize, bound: usize) -> usize {
    if S::WIDTH > 0 && pos + 8 <= bound {
        // Many matches end within 8 more bytes (values whose low or high
        // bytes repeat): one 64-bit compare settles those before any vector
        // is loaded.
        let a = read_u64(buf, pos) ^ read_u64(buf, pos - dist);
        if a != 0 {
            return pos + (a.trailing_zeros() / 8) as usize + 1;
        }
        pos += 8;
    }
    if S::WIDTH > 0 && S::LONG > 0 && pos + S::WIDTH <= bound {
        // Most matches end within the first bytes: one narrower step first.
        if let Some(k) = scan.mismatch(buf, pos, dist) {
            return pos + k + 1;
        }
        pos += S::WIDTH;
        while pos + S::LONG <= bound {
            if let Some(k) = scan.mismatch_long(buf, pos, dist) {
                return pos + k + 1;
            }
            pos += S::LONG;
        }
    }
    if S::WIDTH > 0 {
        while pos + S::WIDTH <= bound {
            if let Some(k) = scan.mismatch(buf, pos, dist) {
                return pos + k + 1;
            }
            pos += S::WIDTH;
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

/// From `ip` on, records each position in `htab` and returns the first one
/// below `end` whose previous occurrence (the candidate, also returned) is
/// close enough and starts with the same 4 bytes; `(end, 0)` when there is
/// none.  Every position skipped is a literal.
#[inline(always)]
fn next_candidate<const SLOTS: usize>(
    data: &[u8],
    mut ip: usize,
    end: usize,
    htab: &mut [u32; SLOTS],
) -> (usize, usize) {
    while ip < end {
        let seq = read_u32(data, ip);
        let slot = hash_seq::<SLOTS>(seq);
        let candidate = htab[slot] as usize;
        htab[slot] = ip as u32;
        // 1 <= distance < MAX_FARDISTANCE (entries never lie ahead of `ip`).
        let distance = ip.wrapping_sub(candidate);
        if distance.wrapping_sub(1) < MAX_FARDISTANCE - 1 && read_u32(data, candidate) == seq {
            return (ip, candidate);
        }
        ip += 1;
    }
    (end, 0)
}

/// Simulates the encoder on `data` (without producing output) to estimate the
/// compression ratio it would achieve.  `data` is the probe window, already
/// clipped to the hash table size; `htab` must be all zero.
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
    // Literals in the current run, modulo MAX_COPY (a marker byte opens
    // every MAX_COPY of them).
    let mut copy = 4usize;
    let mut ip = 0usize;
    while ip < ip_limit {
        // Literals are skipped in a tight loop of their own and counted in
        // bulk: on poorly compressible data (which this probe exists to turn
        // away) nearly every byte is one, and the general loop, with all of
        // its state live, spends half as many instructions again per byte.
        let (anchor, candidate) = next_candidate(data, ip, ip_limit, htab);
        let run = copy + (anchor - ip);
        oc += (anchor - ip + run / MAX_COPY) as i64;
        copy = run % MAX_COPY;
        if anchor >= ip_limit {
            ip = anchor;
            break;
        }
        let distance = anchor - candidate;
        ip = scan_match(scan, data, anchor + 4, distance, ip_bound) - IPSHIFT;
        let len = ip - anchor;
        if len < MINLEN {
            // Too short: a literal after all.
            oc += 1;
            copy += 1;
            if copy == MAX_COPY {
                copy = 0;
                oc += 1;
            }
            ip = anchor + 1;
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
    TABLE.with(|cell| {
        let mut own;
        let mut shared = cell.try_borrow_mut();
        let table = match shared {
            Ok(ref mut t) => t.get_or_insert_with(Table::new),
            // Not reachable (nothing re-enters the codec on this thread),
            // but a private table is as good.
            Err(_) => {
                own = Table::new();
                &mut own
            }
        };
        #[cfg(target_arch = "x86_64")]
        if let Some(wide) = avx512::Wide::detect() {
            return avx512::compress_levels(wide, clevel, input, output, table);
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(wide) = avx2::Wide::detect() {
            return avx2::compress_levels(wide, clevel, input, output, table);
        }
        compress_levels(Narrow, clevel, input, output, table)
    })
}

/// [`compress`] after the argument checks, with the given [`Scan`].
#[inline(always)]
pub(crate) fn compress_levels<S: Scan>(
    scan: S,
    clevel: usize,
    input: &[u8],
    output: &mut [u8],
    table: &mut Table,
) -> usize {
    if table.dirty {
        table.slots.fill(0);
    }
    table.dirty = true;
    let n = match HASHLOG_BY_CLEVEL[clevel] {
        12 => compress_with::<{ 1 << 12 }, S>(scan, clevel, input, output, &mut table.slots),
        13 => compress_with::<{ 1 << 13 }, S>(scan, clevel, input, output, &mut table.slots),
        _ => compress_with::<{ 1 << HASH_LOG }, S>(scan, clevel, input, output, &mut table.slots),
    };
    table.dirty = false;
    n
}

#[inline(always)]
fn compress_with<const SLOTS: usize, S: Scan>(
    scan: S,
    clevel: usize,
    input: &[u8],
    output: &mut [u8],
    slots: &mut [u32; MAX_SLOTS],
) -> usize {
    let length = input.len();
    let htab: &mut [u32; SLOTS] = (&mut slots[..SLOTS])
        .try_into()
        .expect("no level uses more than MAX_SLOTS");

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
    let ratio = estimate_ratio(scan, window, htab);
    clear_after(htab, window, false);
    if ratio < MIN_RATIO_BY_CLEVEL[clevel] {
        return 0;
    }
    // Level 9 also indexes the position after a match; as a constant, the
    // encoder's loop keeps one value fewer in registers.
    let n = if clevel == 9 {
        encode::<SLOTS, S, true>(scan, input, output, htab)
    } else {
        encode::<SLOTS, S, false>(scan, input, output, htab)
    }
    .unwrap_or(0);
    clear_after(htab, input, clevel == 9);
    n
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
/// `htab` must be all zero.  `SECOND_HASH` (level 9) also records, after
/// each match, the position one past its end.
#[inline(always)]
fn encode<const SLOTS: usize, S: Scan, const SECOND_HASH: bool>(
    scan: S,
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
        if SECOND_HASH {
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

/// Copies `len` bytes from `src` to `op` inside `out` in fixed `STEP`-byte
/// moves (up to `STEP - 1` bytes past `op + len` are written).  With
/// `op - src >= STEP` no move overlaps its own source, and each reads only
/// bytes already in place, so overlapping matches repeat as they should.
#[inline(always)]
fn copy_in_steps<const STEP: usize>(out: &mut [u8], src: usize, op: usize, len: usize) {
    let mut i = 0;
    while i < len {
        out.copy_within(src + i..src + i + STEP, op + i);
        i += STEP;
    }
}

/// Multipliers that repeat a value of `dist` bytes (the index, below 8)
/// over 16 bytes: ones at every multiple of `dist` bytes.
const SPREAD: [u128; 8] = {
    let mut table = [0u128; 8];
    let mut dist = 1;
    while dist < 8 {
        let mut at = 0;
        while at < 16 {
            table[dist] |= 1u128 << (8 * at);
            at += dist;
        }
        dist += 1;
    }
    table
};

/// The 16 bytes from `src` on of the pattern of period `dist` (below 8)
/// that starts there; `out` holds 8 bytes from `src`.  The period's bytes
/// are spread by one multiplication (the copies do not overlap, so nothing
/// carries); periods 1, 2 and 4 (runs of a byte, of a 16-bit or a 32-bit
/// item: most of the short periods of shuffled numbers) repeat every 8
/// bytes and take a 64-bit one.
#[inline(always)]
fn short_period(out: &[u8], src: usize, dist: usize) -> [u8; 16] {
    let word: [u8; 8] = out[src..src + 8].try_into().unwrap_or([0; 8]);
    let item = u64::from_le_bytes(word) & (u64::MAX >> (64 - 8 * dist));
    if dist.is_power_of_two() {
        let half = item.wrapping_mul(SPREAD[dist] as u64);
        (((half as u128) << 64) | half as u128).to_le_bytes()
    } else {
        (item as u128).wrapping_mul(SPREAD[dist]).to_le_bytes()
    }
}

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
            copy_in_steps::<32>(out, src, op, len);
        } else if dist >= 16 {
            copy_in_steps::<16>(out, src, op, len);
        } else if dist >= 8 {
            // Short matches one or two 8-byte items back are common in
            // integer data without shuffle.
            copy_in_steps::<8>(out, src, op, len);
        } else if dist == 1 && len >= 32 {
            let byte = out[src];
            out[op..op + len].fill(byte);
        } else {
            // A period below 8 (zeros found two bytes back are common):
            // build 16 bytes of the pattern in registers, then store them
            // every `stride` bytes, a whole number of periods.  No load
            // waits for an earlier store.  The 8-byte read may take bytes
            // past `op` (inside `out`, as there is room); they are masked
            // off.  (Passing the pattern through memory to get one 16-byte
            // store per step instead of two 8-byte ones cost a stalled
            // reload per match, and most of these matches take one or two
            // steps: see docs/performance.md, session 17.)
            let pat = short_period(out, src, dist);
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
    #[cfg(target_arch = "x86_64")]
    if let Some(wide) = avx2::Wide::detect() {
        return avx2::decompress(wide, input, output);
    }
    decompress_impl(input, output)
}

/// [`decompress`] for whichever instruction set it is compiled into: with
/// AVX2, each fixed 32-byte copy of `copy_match` and of the literal runs is
/// one 32-byte move instead of two 16-byte ones.
#[inline(always)]
pub(crate) fn decompress_impl(input: &[u8], output: &mut [u8]) -> Option<usize> {
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
mod tests;
