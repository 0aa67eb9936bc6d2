//! zlib-format deflate, from two implementations chosen per call by what each
//! does fastest against the reference's zlib-ng (`cargo bench --bench
//! zlib_backends`; the speed ratios below come from it, see
//! docs/performance.md):
//!
//! - Compression, level 1: `quick.rs`, zlib-ng's level-1 method (greedy
//!   matching through one hash table, fixed Huffman codes) written for a
//!   block in memory, without the window copy and the table clearing that
//!   cost zlib-ng and zlib-rs most of their time on Blosc's blocks, and
//!   zlib-ng's very bytes for blocks up to 64 KiB (larger ones, which Blosc
//!   makes at clevel 1 only when asked, differ where zlib-ng slides its
//!   window; their sizes measured within 0.3% of the reference's either
//!   way). libdeflate's level 1 is no faster than zlib-ng's on most data
//!   and 0.1x on mostly-zero integers, and its streams of data that
//!   zlib-ng's level 1 leaves stored decode far slower than a copy. The
//!   stretches that `codec::incompressible` finds (below) are stored blocks
//!   here too.
//! - Compression, levels 2-6 for shuffled and bit-shuffled blocks and
//!   blocks of runs: zlib-rs, which writes zlib-ng's very bytes (so the
//!   chunks equal the reference's), with one deflate state kept per
//!   thread. Except where `codec::incompressible` finds stretches of
//!   4 KiB and more that deflate cannot shrink (the low bytes or bit planes of noisy
//!   floats, random bytes): those are written here as stored blocks, which
//!   zlib-ng would also write after searching them for matches (the most
//!   of its time on such blocks), and zlib-rs, in raw-deflate mode with the
//!   framing written here, compresses the stretches between them, each
//!   ending with a full flush (its history must not reach across bytes it
//!   never saw). Blocks without such stretches get zlib-rs's zlib stream
//!   unchanged (the reference's bytes).
//! - Compression, levels 2-6, unfiltered blocks: libdeflate (see below),
//!   1.4-3x zlib-ng's speed, its output up to 45% smaller and decoded 0.9-2x
//!   as fast (`benches/results/xeon-2c/zlib-backends.txt`). Not for
//!   bit-shuffled blocks: those of noisy floats compress 1.3-1.5x faster but
//!   decode at 0.6-0.9x (libdeflate codes the near-random bit planes with
//!   Huffman codes where zlib-ng stores them). Runs (at least half of the
//!   first 8 KiB's 8-byte words equal to the word before, as in mostly-zero
//!   integers) stay with zlib-rs: libdeflate's levels 2-6 run at 0.4-0.7x
//!   of zlib-ng there, and a cheaper test than the probe below is needed
//!   where the probe would be a noticeable share of the work.
//! - Compression, levels 7-9: libdeflate (the `libdeflater` crate, built with
//!   `cc`), a whole-buffer compressor, which is what a Blosc block is: 1.1-12x
//!   the speed of zlib-ng's levels 7-9, its output between 0.05% larger and
//!   43% smaller in the benchmarks. Its streams are valid zlib that the
//!   reference decodes, but not zlib-ng's bytes. Except for byte-shuffled
//!   blocks that are not highly compressible: there libdeflate's streams
//!   take 2.3x as long to decode as zlib-ng's, whoever decodes them (float64
//!   with noise, shuffled: 0.37x of zlib-ng's decoding speed with
//!   libdeflate, 0.43x with zlib-rs), and the chunk's decompression is what
//!   Blosc is used for; such blocks get zlib-rs (the reference's bytes). A
//!   probe tells them apart: the first 8 KiB compressed by libdeflate at
//!   level 1 (a few percent of a level-7-9 compression) shrinking at least
//!   8x.
//! - Decompression: libdeflate, given readable room after each stream
//!   (`padded.rs`: without it, libdeflate decodes the last stretch of a
//!   highly compressible stream a byte at a time), for every stream on
//!   Intel CPUs, where it measured 1.04-1.7x zlib-ng's speed on every kind
//!   of block. Elsewhere, as measured on Zen 3 and Zen 5 before the room:
//!   libdeflate for streams whose first block uses the fixed Huffman codes
//!   (zlib-ng's level 1: 1.1-1.4x zlib-ng's speed, where zlib-rs runs at
//!   0.7-1.0x) and for other streams of unshuffled data that expand less
//!   than 8x (about 1.1-1.2x); zlib-rs for the rest (long matches and
//!   shuffled data, where libdeflate fell to 0.2-0.9x and zlib-rs runs at
//!   0.85-1.05x). zlib-rs inflates the raw deflate data and the Adler-32
//!   trailer is checked by `codec::adler32` (an AVX-512 VNNI kernel where
//!   the CPU has one).
//!
//! With the `zlib-ng` feature: zlib-ng through `flate2` for everything, a fresh
//! stream per call like the reference's `compress2` (the reference's bytes at
//! every level; needs cmake to build).
//!
//! Keeping one zlib-rs deflate state per thread: creating a stream clears its
//! 64 KiB window, 64 KiB `prev` table and 128 KiB hash heads, and resetting
//! clears the heads again; for the 32 KiB blocks of clevel 1 that is most of
//! the work. A reset stream must write the bytes a fresh one writes:
//! - zlib-rs 0.6.8's `reset` leaves `block_open` set when the previous stream
//!   stopped half-way (output full), and the next level-1 stream then lacks a
//!   block header (a corrupt stream, which tests/interop_reference.rs
//!   catches). So a kept stream always runs to its end, into a buffer of
//!   zlib's bound for the input when the destination may be too small
//!   (`run_to_end`: incompressible blocks are common and would otherwise
//!   cost a new stream each), and one that still stopped half-way is
//!   dropped instead of reused (`ended`).
//! - `prev` is only read along hash chains, which only visit positions the
//!   stream inserted, whose `prev` entries it wrote.
//! - The window keeps the previous input past the end of this one. zlib-rs
//!   clamps matches at the end of the input and stops searching once one
//!   reaches it, so those bytes should not matter, and a run without the next
//!   rule found no difference; the rule is kept as it costs at most one fresh
//!   stream per chunk: the first fill copies `min(len, 64 KiB)` input bytes to
//!   the start of the window and later fills only write behind bytes already
//!   written, so a kept stream has a fresh stream's zeros past the end when
//!   every earlier call on it had at most as many input bytes, and holds only
//!   this call's data when it has 64 KiB or more. Otherwise a new stream
//!   replaces the kept one.
//!
//! `tests::kept_streams_write_fresh_stream_bytes` checks this against fresh
//! streams on random sequences of sizes, levels, contents and output room.

#[cfg(not(feature = "zlib-ng"))]
mod padded;

#[cfg(not(feature = "zlib-ng"))]
mod quick;

#[cfg(not(feature = "zlib-ng"))]
mod imp {
    use super::super::incompressible::{self, Stretch};
    use super::padded::PaddedInflater;
    use super::Layout;
    use libdeflater::{CompressionLvl, Compressor};
    use std::cell::RefCell;
    use std::thread::LocalKey;
    use zlib_rs::{Deflate, DeflateFlush, Inflate, InflateFlush, Status};

    /// zlib levels from which libdeflate compresses every block but the
    /// byte-shuffled ones that are not highly compressible.
    pub(super) const LIBDEFLATE_FROM: i32 = 7;

    /// zlib levels from which libdeflate compresses unfiltered blocks that
    /// are not runs ([`repeats_heavy`]); below, and for the other blocks up
    /// to [`LIBDEFLATE_FROM`], zlib-rs.
    pub(super) const PLAIN_LIBDEFLATE_FROM: i32 = 2;

    /// Bytes of a zlib stream around its deflate data: header and Adler-32.
    const ZLIB_FRAMING: usize = 6;

    /// Input length from which a call writes the whole 2 x 32 KiB window.
    pub(super) const WHOLE_WINDOW: usize = 2 << 15;

    struct KeptDeflate {
        stream: Deflate,
        level: i32,
        /// The largest input length (capped at WHOLE_WINDOW) of any call on
        /// this stream: the window beyond it is still zero.
        high_water: usize,
        /// Whether the last call ended its stream (see the module comment).
        ended: bool,
    }

    thread_local! {
        static DEFLATE: RefCell<Option<KeptDeflate>> = const { RefCell::new(None) };
        static DEFLATE_RAW: RefCell<Option<KeptDeflate>> = const { RefCell::new(None) };
        static INFLATE: RefCell<Option<Inflate>> = const { RefCell::new(None) };
        static LIBDEFLATE: RefCell<Option<(i32, Compressor)>> = const { RefCell::new(None) };
        static DECOMPRESSOR: RefCell<Option<PaddedInflater>> = const { RefCell::new(None) };
        static PROBE: RefCell<Option<(Compressor, Vec<u8>)>> = const { RefCell::new(None) };
        static SPILL: RefCell<Option<Vec<u8>>> = const { RefCell::new(None) };
    }

    /// Runs `f` on this thread's kept state in `key`; `None` when that state is
    /// in use further up this thread's stack (a codec or filter callback
    /// re-entering) or already torn down (a call from a destructor), where
    /// the caller uses a state of its own.
    fn with_kept<T: 'static, R>(
        key: &'static LocalKey<RefCell<Option<T>>>,
        f: impl FnOnce(&mut Option<T>) -> R,
    ) -> Option<R> {
        key.try_with(|cell| cell.try_borrow_mut().ok().map(|mut slot| f(&mut slot)))
            .ok()
            .flatten()
    }

    /// Whether a kept stream at `high_water` gives fresh-stream bytes for `len` input bytes.
    pub(super) fn reusable(high_water: usize, len: usize) -> bool {
        len >= WHOLE_WINDOW || high_water <= len
    }

    /// zlib's 2-byte header for a 32 KiB window at `level`, as zlib-ng and
    /// zlib-rs write it (FLEVEL from the level, then the check bits).
    pub(super) fn zlib_header(level: i32) -> [u8; 2] {
        let flevel: u16 = match level {
            ..=1 => 0,
            2..=5 => 1,
            6 => 2,
            _ => 3,
        };
        let h = (0x78u16 << 8) | (flevel << 6);
        (h + 31 - h % 31).to_be_bytes()
    }

    /// Writes `data` as stored deflate blocks at the front of `out` (which
    /// is byte-aligned there), the last one final when `last`; the bytes
    /// written, None when out of room.
    fn put_stored(data: &[u8], out: &mut [u8], last: bool) -> Option<usize> {
        let mut pos = 0;
        let n = data.len().div_ceil(0xFFFF);
        for (i, piece) in data.chunks(0xFFFF).enumerate() {
            let len = piece.len() as u16;
            let head = out.get_mut(pos..pos + 5)?;
            head[0] = u8::from(last && i + 1 == n);
            head[1..3].copy_from_slice(&len.to_le_bytes());
            head[3..5].copy_from_slice(&(!len).to_le_bytes());
            out.get_mut(pos + 5..pos + 5 + piece.len())?
                .copy_from_slice(piece);
            pos += 5 + piece.len();
        }
        Some(pos)
    }

    /// Runs raw-deflate stream `d` (new or just reset) over `src` into
    /// `out`: the stretches that `parts` marks incompressible as stored
    /// blocks written here, the others through `d` at its level. A
    /// compressible stretch followed by a stored one ends with a full flush
    /// (byte-aligned, and the history forgotten: `d` never sees the stored
    /// bytes, so it must not match across them). `parts` covers all of
    /// `src` ([`run`] takes blocks without stretches another way). Returns
    /// the deflate data's size (None when it did not fit) and whether `d`
    /// ended its stream (a stream that did not cannot be reset and reused).
    fn deflate_parts(
        d: &mut Deflate,
        src: &[u8],
        out: &mut [u8],
        parts: &[Stretch],
    ) -> (Option<usize>, bool) {
        let (mut pos, mut start) = (0, 0);
        let mut ended = false;
        for (i, part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            let bytes = &src[start..part.end];
            start = part.end;
            if part.incompressible {
                match put_stored(bytes, &mut out[pos..], last) {
                    Some(n) => pos += n,
                    None => return (None, false),
                }
                continue;
            }
            let flush = if last {
                DeflateFlush::Finish
            } else {
                DeflateFlush::FullFlush
            };
            let (out_before, in_before) = (d.total_out(), d.total_in());
            let room = out.len() - pos;
            let r = d.compress(bytes, &mut out[pos..], flush);
            let n = (d.total_out() - out_before) as usize;
            let consumed = (d.total_in() - in_before) as usize;
            match r {
                Ok(Status::StreamEnd) if last => ended = true,
                // The flush is complete only when output room was left.
                Ok(Status::Ok) if !last && n < room && consumed == bytes.len() => {}
                _ => return (None, false),
            }
            pos += n;
        }
        if !ended {
            // The last stretch was stored: end `d`'s stream (into scratch) so
            // that it can be reused.
            let mut scratch = [0u8; 64];
            ended = matches!(
                d.compress(&[], &mut scratch, DeflateFlush::Finish),
                Ok(Status::StreamEnd)
            );
        }
        (Some(pos), ended)
    }

    /// A zlib stream of `src` at `level` into `dest`, from `d` (new or just
    /// reset; [`new_stream`] makes the kind `parts` needs): without
    /// stretches, zlib-rs's own zlib stream; with them, header,
    /// [`deflate_parts`] and Adler-32 written here. Returns its size (0 when
    /// it does not fit) and whether `d` ended.
    fn run(
        d: &mut Deflate,
        src: &[u8],
        dest: &mut [u8],
        level: i32,
        parts: &[Stretch],
    ) -> (usize, bool) {
        if parts.is_empty() {
            // A zlib-format stream: zlib-rs writes the framing itself.
            return match d.compress(src, dest, DeflateFlush::Finish) {
                Ok(Status::StreamEnd) => (d.total_out() as usize, true),
                _ => (0, false),
            };
        }
        if dest.len() < ZLIB_FRAMING {
            return (0, false);
        }
        dest[..2].copy_from_slice(&zlib_header(level));
        // The deflate data gets the trailer's room too: a raw stream that
        // exactly fills its output reports its end only on a further call.
        let (n, ended) = deflate_parts(d, src, &mut dest[2..], parts);
        let Some(n) = n.filter(|&n| 2 + n + 4 <= dest.len()) else {
            return (0, ended);
        };
        let sum = super::super::adler32::adler32(1, src);
        dest[2 + n..2 + n + 4].copy_from_slice(&sum.to_be_bytes());
        (2 + n + 4, ended)
    }

    /// A new stream for [`run`] with `parts`: zlib-format without stretches,
    /// else raw deflate (the zlib framing is written here).
    fn new_stream(level: i32, parts: &[Stretch]) -> Deflate {
        Deflate::new(level, parts.is_empty(), 15)
    }

    /// zlib-rs's own zlib stream of `src` from a new stream, without the
    /// stretches: the bytes zlib-ng writes, which blocks without
    /// incompressible stretches must get.
    #[cfg(test)]
    pub(super) fn fresh(level: i32, src: &[u8], dest: &mut [u8]) -> usize {
        let mut d = Deflate::new(level, true, 15);
        match d.compress(src, dest, DeflateFlush::Finish) {
            Ok(Status::StreamEnd) => d.total_out() as usize,
            _ => 0,
        }
    }

    /// [`zlib_rs_compress`] from a new stream (the bytes a kept stream must
    /// give).
    #[cfg(test)]
    pub(super) fn fresh_with_stretches(level: i32, src: &[u8], dest: &mut [u8]) -> usize {
        let mut parts = Vec::new();
        incompressible::stretches(src, &mut parts);
        run(&mut new_stream(level, &parts), src, dest, level, &parts).0
    }

    /// Compress with this thread's kept stream; `look`: whether to look for
    /// incompressible stretches (see [`incompressible`]).
    pub(super) fn zlib_rs_compress(src: &[u8], dest: &mut [u8], level: i32, look: bool) -> usize {
        let mut parts = Vec::new();
        if look {
            incompressible::stretches(src, &mut parts);
        }
        // The stored bytes alone overflowing: no stream fits (the caller
        // then stores the block, as it would after zlib's stored blocks).
        let mut stored = 0;
        let mut start = 0;
        // The first stretch zlib-rs gets, and the longest (see below).
        let (mut first, mut longest) = (None, 0);
        for p in &parts {
            let len = p.end - start;
            if p.incompressible {
                stored += len;
            } else {
                first = first.or(Some(len));
                longest = longest.max(len);
            }
            start = p.end;
        }
        if stored > 0 && stored + ZLIB_FRAMING > dest.len() {
            return 0;
        }
        let parts = &parts[..];
        // The reuse rule of the module comment, for what zlib-rs sees: each
        // stretch after a full flush fills the window from its start again,
        // so the first stretch must cover what earlier calls wrote (later
        // ones find this call's bytes or zeros past their ends).
        let (seen, written) = if parts.is_empty() {
            (src.len(), src.len().min(WHOLE_WINDOW))
        } else {
            (first.unwrap_or(usize::MAX), longest.min(WHOLE_WINDOW))
        };
        let key = if parts.is_empty() {
            &DEFLATE
        } else {
            &DEFLATE_RAW
        };
        with_kept(key, |slot| {
            let k = match slot.as_mut() {
                Some(k) if k.ended && k.level == level && reusable(k.high_water, seen) => {
                    k.stream.reset();
                    k.high_water = k.high_water.max(written);
                    k
                }
                _ => slot.insert(KeptDeflate {
                    stream: new_stream(level, parts),
                    level,
                    high_water: written,
                    ended: false,
                }),
            };
            let (n, ended) = run_to_end(&mut k.stream, src, dest, level, parts);
            k.ended = ended;
            n
        })
        .unwrap_or_else(|| run(&mut new_stream(level, parts), src, dest, level, parts).0)
    }

    /// The largest buffer [`run_to_end`] keeps per thread: blocks whose
    /// bound is larger (rare: Blosc's blocks are far smaller unless the
    /// caller sets a huge one) run straight into their destination.
    const SPILL_MAX: usize = 8 << 20;

    /// Runs a kept stream to its end even when `dest` may be too small for
    /// it, so that the stream can be kept: the output goes to a buffer of
    /// zlib's bound for `src` (plus the few bytes each stretch's flush may
    /// add) and is copied to `dest` when it fits.
    /// (Blocks that do not fit, incompressible ones, are common; a
    /// stream stopped half-way could not be reused, and a new one costs the
    /// allocation and clearing of its tables.)  Returns the stream's size
    /// (0 when it does not fit) and whether the stream ended.
    fn run_to_end(
        d: &mut Deflate,
        src: &[u8],
        dest: &mut [u8],
        level: i32,
        parts: &[Stretch],
    ) -> (usize, bool) {
        let bound = zlib_rs::compress_bound(src.len()) + 16 * parts.len();
        if dest.len() >= bound || bound > SPILL_MAX {
            return run(d, src, dest, level, parts);
        }
        with_kept(&SPILL, |slot| {
            let out = slot.get_or_insert_with(Vec::new);
            if out.len() < bound {
                out.resize(bound, 0);
            }
            let (n, ended) = run(d, src, &mut out[..bound], level, parts);
            let fits = n > 0 && n <= dest.len();
            if fits {
                dest[..n].copy_from_slice(&out[..n]);
            }
            (if fits { n } else { 0 }, ended)
        })
        .unwrap_or_else(|| run(d, src, dest, level, parts))
    }

    fn new_compressor(level: i32) -> Option<Compressor> {
        CompressionLvl::new(level).ok().map(Compressor::new)
    }

    fn libdeflate_run(c: &mut Compressor, src: &[u8], dest: &mut [u8]) -> usize {
        // The only error is "does not fit": the caller then stores the block.
        c.zlib_compress(src, dest).unwrap_or(0)
    }

    fn libdeflate_compress(src: &[u8], dest: &mut [u8], level: i32) -> usize {
        with_kept(&LIBDEFLATE, |slot| {
            if !matches!(slot, Some((l, _)) if *l == level) {
                *slot = new_compressor(level).map(|c| (level, c));
            }
            slot.as_mut()
                .map_or(0, |(_, c)| libdeflate_run(c, src, dest))
        })
        .unwrap_or_else(|| {
            new_compressor(level).map_or(0, |mut c| libdeflate_run(&mut c, src, dest))
        })
    }

    /// Bytes of a block that [`highly_compressible`] compresses.
    pub(super) const PROBE_BYTES: usize = 8 << 10;

    /// Expansion of the probe from which a block counts as highly
    /// compressible.
    pub(super) const PROBE_EXPANSION: usize = 8;

    /// libdeflate's level 1 (its `fastest()` is level 0, a stored copy).
    fn probe_level() -> CompressionLvl {
        CompressionLvl::new(1).unwrap_or_default()
    }

    /// Whether the first [`PROBE_BYTES`] of `src`, compressed by libdeflate
    /// at level 1, shrink at least [`PROBE_EXPANSION`] times.
    pub(super) fn highly_compressible(src: &[u8]) -> bool {
        let sample = &src[..src.len().min(PROBE_BYTES)];
        let room = sample.len() / PROBE_EXPANSION;
        let probe = |c: &mut Compressor, out: &mut Vec<u8>| {
            out.resize(room, 0);
            // "Does not fit" is the answer "no".
            c.zlib_compress(sample, out).is_ok()
        };
        with_kept(&PROBE, |slot| {
            let (c, out) = slot.get_or_insert_with(|| (Compressor::new(probe_level()), Vec::new()));
            probe(c, out)
        })
        .unwrap_or_else(|| probe(&mut Compressor::new(probe_level()), &mut Vec::new()))
    }

    /// Whether at least half of the 8-byte words in the first
    /// [`PROBE_BYTES`] of `src` equal the word before them: runs, such as
    /// mostly-zero integers, where libdeflate's lower levels are slower than
    /// zlib-rs. A few hundred nanoseconds, where [`highly_compressible`]
    /// takes a libdeflate compression (and the clearing of its tables).
    pub(super) fn repeats_heavy(src: &[u8]) -> bool {
        let sample = &src[..src.len().min(PROBE_BYTES)];
        let next = sample.get(8..).unwrap_or_default().chunks_exact(8);
        let (pairs, repeats) = sample
            .chunks_exact(8)
            .zip(next)
            .fold((0usize, 0usize), |(n, r), (a, b)| {
                (n + 1, r + usize::from(a == b))
            });
        pairs > 0 && 2 * repeats >= pairs
    }

    /// Compress into a zlib stream (zlib's levels 1..=9); 0 when it does not
    /// fit. `layout`: what the filters did to the block (see the module
    /// comment).
    pub fn compress(src: &[u8], dest: &mut [u8], clevel: i32, layout: Layout) -> usize {
        let level = clevel.clamp(1, 9);
        if level == 1 {
            // Stored stretches at level 1 for every layout (see the module
            // comment).
            let mut parts = Vec::new();
            incompressible::stretches(src, &mut parts);
            return super::quick::compress(src, dest, &parts);
        }
        let libdeflate = match layout {
            Layout::ByteShuffled => level >= LIBDEFLATE_FROM && highly_compressible(src),
            Layout::BitShuffled => level >= LIBDEFLATE_FROM,
            Layout::Plain => {
                level >= LIBDEFLATE_FROM || (level >= PLAIN_LIBDEFLATE_FROM && !repeats_heavy(src))
            }
        };
        if libdeflate {
            libdeflate_compress(src, dest, level)
        } else {
            // Unfiltered blocks past level 1 come here only as runs, with
            // nothing to store. Levels 7-9 ask for the last percent, which
            // zlib's search still finds in some stretches that look
            // incompressible (a float field's shuffled low bytes: 1% of the
            // chunk at level 9).
            let look = layout != Layout::Plain && level < LIBDEFLATE_FROM;
            zlib_rs_compress(src, dest, level, look)
        }
    }

    /// Expansion ratio from which zlib-rs decompresses unshuffled data
    /// (below, libdeflate), except on Intel CPUs ([`libdeflate_decodes`]).
    pub(super) const LIBDEFLATE_BELOW: usize = 8;

    /// Whether libdeflate ([`PaddedInflater`]) decodes zlib stream `src`
    /// of `dest_len` bytes: every stream on Intel CPUs; elsewhere streams
    /// whose first block has fixed Huffman codes, and unshuffled streams
    /// that expand less than [`LIBDEFLATE_BELOW`] times. With room past
    /// the stream libdeflate decoded every kind of block measured on the
    /// Xeon VM at 1.04-1.7x zlib-ng's speed, where zlib-rs runs at
    /// 0.85-1.05x (docs/performance.md, session 24). The rule for other
    /// CPUs was measured on Zen 3 and Zen 5 without the room, when
    /// libdeflate lost on long matches (0.78-0.87x): most likely the same
    /// byte loop, not measured there since.
    fn libdeflate_decodes(src: &[u8], dest_len: usize, shuffled: bool) -> bool {
        crate::cpu::vendor() == crate::cpu::Vendor::Intel
            || super::fixed_huffman_first(src)
            || (!shuffled && dest_len < LIBDEFLATE_BELOW.saturating_mul(src.len()))
    }

    /// Inflate zlib stream `src` with `d`, a raw-deflate state: the 2-byte
    /// header is checked here and the Adler-32 trailer against
    /// [`super::super::adler32`] (faster than zlib-rs's own where the CPU has
    /// AVX-512 VNNI). As with zlib's `uncompress`, a stream needing a preset
    /// dictionary is an error. The window size the header declares is not
    /// enforced (a 32 KiB window decodes every valid stream alike).
    fn inflate(d: &mut Inflate, src: &[u8], dest: &mut [u8]) -> Option<usize> {
        let (&cmf, &flg) = (src.first()?, src.get(1)?);
        let header_ok = cmf & 0x0F == 8
            && cmf >> 4 <= 7
            && (u16::from(cmf) << 8 | u16::from(flg)) % 31 == 0
            && flg & 0x20 == 0;
        if !header_ok {
            return None;
        }
        let body = &src[2..];
        match d.decompress(body, dest, InflateFlush::Finish) {
            Ok(Status::StreamEnd) => {}
            _ => return None,
        }
        let (used, out) = (d.total_in() as usize, d.total_out() as usize);
        let trailer: [u8; 4] = body.get(used..used + 4)?.try_into().ok()?;
        (u32::from_be_bytes(trailer) == super::super::adler32::adler32(1, &dest[..out]))
            .then_some(out)
    }

    /// Decompress a zlib stream (Adler-32 checked); `None` on error or when
    /// it does not end within `dest`. libdeflate decodes the streams
    /// `libdeflate_decodes` names, zlib-rs the others, each with one
    /// state per thread reused (see the module comment).
    pub fn decompress(src: &[u8], dest: &mut [u8], shuffled: bool) -> Option<usize> {
        if libdeflate_decodes(src, dest.len(), shuffled) {
            let kept = with_kept(&DECOMPRESSOR, |slot| {
                if slot.is_none() {
                    *slot = PaddedInflater::new();
                }
                slot.as_mut().map(|d| d.decompress(src, dest))
            })
            .flatten()
            .or_else(|| PaddedInflater::new().map(|mut d| d.decompress(src, dest)));
            // Without a libdeflate decompressor (no memory), zlib-rs.
            if let Some(r) = kept {
                return r;
            }
        }
        with_kept(&INFLATE, |slot| {
            let d = match slot.as_mut() {
                Some(d) => {
                    d.reset(false);
                    d
                }
                None => slot.insert(Inflate::new(false, 15)),
            };
            inflate(d, src, dest)
        })
        .unwrap_or_else(|| inflate(&mut Inflate::new(false, 15), src, dest))
    }

    /// Version reported for the zlib library: the zlib API version that
    /// zlib-rs implements, and the two libraries that write and read the
    /// streams here (zlib-rs, and libdeflate for clevel 7-9 and part of the
    /// decoding; see the module documentation).
    pub fn version() -> &'static str {
        "1.3.1.zlib-rs+libdeflate"
    }
}

#[cfg(feature = "zlib-ng")]
mod imp {
    use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

    /// Compress as zlib's `compress2` does; 0 when it does not fit.
    pub fn compress(src: &[u8], dest: &mut [u8], clevel: i32, _layout: super::Layout) -> usize {
        let mut c = Compress::new(Compression::new(clevel.clamp(1, 9) as u32), true);
        match c.compress(src, dest, FlushCompress::Finish) {
            Ok(Status::StreamEnd) => c.total_out() as usize,
            _ => 0,
        }
    }

    /// Decompress a zlib stream; `None` on error or when it does not end.
    pub fn decompress(src: &[u8], dest: &mut [u8], _shuffled: bool) -> Option<usize> {
        let mut d = Decompress::new(true);
        match d.decompress(src, dest, FlushDecompress::Finish) {
            Ok(Status::StreamEnd) => Some(d.total_out() as usize),
            _ => None,
        }
    }

    /// Version reported for the zlib library.
    pub fn version() -> &'static str {
        "2.3.3.zlib-ng"
    }
}

pub use imp::{compress, decompress, version};

/// What the filters did to a block before deflate, which decides the
/// backend that compresses it (see the module comment).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Neither shuffle nor bitshuffle.
    Plain,
    /// Byte-shuffled.
    ByteShuffled,
    /// Bit-shuffled (and not byte-shuffled).
    BitShuffled,
}

impl Layout {
    /// The layout of a block that went through `filters`.
    pub fn of(filters: &[u8]) -> Layout {
        use crate::format::header::{BITSHUFFLE, SHUFFLE};
        if filters.contains(&SHUFFLE) {
            Layout::ByteShuffled
        } else if filters.contains(&BITSHUFFLE) {
            Layout::BitShuffled
        } else {
            Layout::Plain
        }
    }
}

/// Whether the first deflate block of zlib stream `src` uses the fixed
/// Huffman codes (what zlib-ng's level 1 writes).
#[cfg_attr(feature = "zlib-ng", allow(dead_code))]
fn fixed_huffman_first(src: &[u8]) -> bool {
    let Some(&flg) = src.get(1) else {
        return false;
    };
    // A preset-dictionary id follows the 2-byte header when FDICT is set.
    let at = if flg & 0x20 != 0 { 6 } else { 2 };
    src.get(at).is_some_and(|b| (b >> 1) & 3 == 1)
}

#[cfg(test)]
mod tests;
