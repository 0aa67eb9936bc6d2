//! zlib-format deflate, from two implementations chosen per call by what each
//! does fastest against the reference's zlib-ng (`cargo bench --bench
//! zlib_backends`; the speed ratios below come from it, see
//! docs/performance.md):
//!
//! - Compression, level 1, and levels 2-6 for shuffled and bit-shuffled
//!   blocks and blocks of runs: zlib-rs, which writes zlib-ng's very bytes
//!   (so the chunks equal the reference's), with one deflate state kept per
//!   thread. libdeflate's level 1 is no faster than zlib-ng's on most data
//!   and 0.1x on mostly-zero integers, and its streams of data that
//!   zlib-ng's level 1 leaves stored decode far slower than a copy.
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
//! - Decompression: libdeflate for streams whose first block uses the fixed
//!   Huffman codes (zlib-ng's level 1: 1.1-1.4x zlib-ng's speed, where
//!   zlib-rs runs at 0.7-1.0x), and for other streams of unshuffled data
//!   that expand less than 8x (about 1.1-1.2x); zlib-rs for the rest (long
//!   matches and shuffled data, where libdeflate falls to 0.2-0.9x and
//!   zlib-rs runs at 0.85-1.05x). zlib-rs inflates the raw deflate data and
//!   the Adler-32 trailer is checked by `codec::adler32` (an AVX-512 VNNI
//!   kernel where the CPU has one).
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
mod imp {
    use super::Layout;
    use libdeflater::{CompressionLvl, Compressor, Decompressor};
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
        static INFLATE: RefCell<Option<Inflate>> = const { RefCell::new(None) };
        static LIBDEFLATE: RefCell<Option<(i32, Compressor)>> = const { RefCell::new(None) };
        static DECOMPRESSOR: RefCell<Option<Decompressor>> = const { RefCell::new(None) };
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

    fn run(d: &mut Deflate, src: &[u8], dest: &mut [u8]) -> usize {
        match d.compress(src, dest, DeflateFlush::Finish) {
            Ok(Status::StreamEnd) => d.total_out() as usize,
            _ => 0,
        }
    }

    pub(super) fn fresh(level: i32, src: &[u8], dest: &mut [u8]) -> usize {
        run(&mut Deflate::new(level, true, 15), src, dest)
    }

    pub(super) fn zlib_rs_compress(src: &[u8], dest: &mut [u8], level: i32) -> usize {
        let written = src.len().min(WHOLE_WINDOW);
        with_kept(&DEFLATE, |slot| {
            let k = match slot.as_mut() {
                Some(k) if k.ended && k.level == level && reusable(k.high_water, src.len()) => {
                    k.stream.reset();
                    k.high_water = k.high_water.max(written);
                    k
                }
                _ => slot.insert(KeptDeflate {
                    stream: Deflate::new(level, true, 15),
                    level,
                    high_water: written,
                    ended: false,
                }),
            };
            let (n, ended) = run_to_end(&mut k.stream, src, dest);
            k.ended = ended;
            n
        })
        .unwrap_or_else(|| fresh(level, src, dest))
    }

    /// The largest buffer [`run_to_end`] keeps per thread: blocks whose
    /// bound is larger (rare: Blosc's blocks are far smaller unless the
    /// caller sets a huge one) run straight into their destination.
    const SPILL_MAX: usize = 8 << 20;

    /// Runs a kept stream to its end even when `dest` may be too small for
    /// it, so that the stream can be kept: the output goes to a buffer of
    /// zlib's bound for `src` and is copied to `dest` when it fits.
    /// (Blocks that do not fit, incompressible ones, are common; a
    /// stream stopped half-way could not be reused, and a new one costs the
    /// allocation and clearing of its tables.)  Returns the stream's size
    /// (0 when it does not fit) and whether the stream ended.
    fn run_to_end(d: &mut Deflate, src: &[u8], dest: &mut [u8]) -> (usize, bool) {
        let bound = zlib_rs::compress_bound(src.len());
        if dest.len() >= bound || bound > SPILL_MAX {
            let n = run(d, src, dest);
            return (n, n > 0);
        }
        with_kept(&SPILL, |slot| {
            let out = slot.get_or_insert_with(Vec::new);
            if out.len() < bound {
                out.resize(bound, 0);
            }
            let n = run(d, src, &mut out[..bound]);
            let fits = n > 0 && n <= dest.len();
            if fits {
                dest[..n].copy_from_slice(&out[..n]);
            }
            (if fits { n } else { 0 }, n > 0)
        })
        .unwrap_or_else(|| {
            let n = run(d, src, dest);
            (n, n > 0)
        })
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
            zlib_rs_compress(src, dest, level)
        }
    }

    /// Expansion ratio from which zlib-rs decompresses unshuffled data
    /// (below, libdeflate).
    pub(super) const LIBDEFLATE_BELOW: usize = 8;

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
    /// it does not end within `dest`. libdeflate decodes streams whose first
    /// block has fixed Huffman codes, and streams of unshuffled data
    /// (`shuffled` false) that expand less than `LIBDEFLATE_BELOW` times;
    /// zlib-rs, with one state per thread reset and reused, the others (see
    /// the module comment).
    pub fn decompress(src: &[u8], dest: &mut [u8], shuffled: bool) -> Option<usize> {
        let libdeflate = super::fixed_huffman_first(src)
            || (!shuffled && dest.len() < LIBDEFLATE_BELOW.saturating_mul(src.len()));
        if libdeflate {
            return with_kept(&DECOMPRESSOR, |slot| {
                slot.get_or_insert_with(Decompressor::new)
                    .zlib_decompress(src, dest)
                    .ok()
            })
            .unwrap_or_else(|| Decompressor::new().zlib_decompress(src, dest).ok());
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
mod tests {
    use super::*;
    use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn layout(shuffled: bool) -> Layout {
        if shuffled {
            Layout::ByteShuffled
        } else {
            Layout::Plain
        }
    }

    /// Data with literals and matches of many lengths and distances.
    fn data(rng: &mut ChaCha8Rng, len: usize) -> Vec<u8> {
        let mut v = Vec::with_capacity(len);
        match rng.gen_range(0..4) {
            0 => v.extend((0..len).map(|_| rng.gen_range(0..4u8))),
            1 => {
                let k = rng.gen_range(1..9usize);
                v.extend((0..len).map(|i| (i / k) as u8))
            }
            2 => {
                while v.len() < len {
                    if v.len() > 300 && rng.gen_bool(0.7) {
                        let back = rng.gen_range(1..v.len().min(40_000));
                        for _ in 0..rng.gen_range(3..300) {
                            v.push(v[v.len() - back]);
                        }
                    } else {
                        v.push(rng.gen());
                    }
                }
                v.truncate(len);
            }
            _ => v.extend((0..len).map(|_| rng.gen::<u8>())),
        }
        v
    }

    /// zlib-rs (through flate2), an independent implementation of the format.
    fn other_inflate(src: &[u8], len: usize) -> Option<Vec<u8>> {
        let mut out = vec![0u8; len];
        let mut d = Decompress::new(true);
        match d.decompress(src, &mut out, FlushDecompress::Finish) {
            Ok(Status::StreamEnd) if d.total_out() as usize == len => Some(out),
            _ => None,
        }
    }

    fn other_deflate(src: &[u8], level: u32) -> Vec<u8> {
        let mut out = vec![0u8; src.len() + src.len() / 8 + 128];
        let mut c = Compress::new(Compression::new(level), true);
        assert_eq!(
            c.compress(src, &mut out, FlushCompress::Finish).ok(),
            Some(Status::StreamEnd)
        );
        out.truncate(c.total_out() as usize);
        out
    }

    #[cfg(not(feature = "zlib-ng"))]
    #[test]
    fn kept_streams_write_fresh_stream_bytes() {
        let seed: u64 = std::env::var("BLOSC2_ZLIB_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| rand::thread_rng().gen());
        let cases: usize = std::env::var("BLOSC2_ZLIB_CASES")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(400);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let sizes = [
            1usize,
            7,
            100,
            257,
            258,
            1000,
            4096,
            32 << 10,
            40_000,
            65_535,
            65_536,
            65_537,
            100_000,
            262_144,
        ];
        for case in 0..cases {
            let len = if rng.gen_bool(0.6) {
                sizes[rng.gen_range(0..sizes.len())]
            } else {
                rng.gen_range(1..300_000)
            };
            // Mostly one level for a while (kept streams), sometimes another.
            let level = if rng.gen_bool(0.9) {
                1 + (case / 50) as i32 % (imp::LIBDEFLATE_FROM - 1)
            } else {
                rng.gen_range(1..imp::LIBDEFLATE_FROM)
            };
            let src = data(&mut rng, len);
            // Sometimes too little room, sometimes exactly the stream's
            // size or one byte less.
            let exact = || {
                let mut full = vec![0u8; zlib_rs::compress_bound(len)];
                imp::fresh(level, &src, &mut full)
            };
            let room = match rng.gen_range(0..20) {
                0 | 1 => len / 3,
                2 => exact(),
                3 => exact() - 1,
                _ => len + len / 8 + 64,
            };
            let mut a = vec![0u8; room];
            let mut b = vec![0u8; room];
            let na = imp::zlib_rs_compress(&src, &mut a, level);
            let nb = imp::fresh(level, &src, &mut b);
            let what = format!("seed {seed} case {case}: len {len} level {level} room {room}");
            assert_eq!(na, nb, "{what}: sizes differ");
            assert_eq!(a[..na], b[..nb], "{what}: bytes differ");
        }
    }

    #[cfg(not(feature = "zlib-ng"))]
    #[test]
    fn reuse_rule() {
        assert!(imp::reusable(0, 10));
        assert!(imp::reusable(10, 10));
        assert!(!imp::reusable(11, 10));
        assert!(imp::reusable(imp::WHOLE_WINDOW, imp::WHOLE_WINDOW));
        assert!(!imp::reusable(imp::WHOLE_WINDOW, imp::WHOLE_WINDOW - 1));
    }

    #[test]
    fn streams_decode_both_ways_with_another_zlib() {
        let seed: u64 = rand::thread_rng().gen();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for case in 0..300 {
            let len = if rng.gen_bool(0.3) {
                rng.gen_range(1..300)
            } else {
                rng.gen_range(1..300_000)
            };
            let level = rng.gen_range(1..=9);
            let src = data(&mut rng, len);
            let mut c = vec![0u8; len + len / 8 + 128];
            let shuffled = rng.gen_bool(0.5);
            let n = compress(&src, &mut c, level, layout(shuffled));
            assert!(
                n > 0,
                "seed {seed} case {case}: len {len} level {level} did not fit"
            );
            assert_eq!(
                other_inflate(&c[..n], len).as_deref(),
                Some(&src[..]),
                "seed {seed} case {case}: zlib-rs does not read ours (len {len}, level {level})"
            );
            let theirs = other_deflate(&src, level as u32);
            let mut back = vec![0u8; len];
            assert_eq!(
                decompress(&theirs, &mut back, shuffled),
                Some(len),
                "seed {seed} case {case}"
            );
            assert_eq!(back, src, "seed {seed} case {case}");
        }
    }

    #[test]
    fn no_room_gives_zero_and_levels_switch() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let src: Vec<u8> = (0..100_000).map(|_| rng.gen()).collect();
        let mut small = vec![0u8; 50_000];
        assert_eq!(compress(&src, &mut small, 5, Layout::Plain), 0);
        let compressible: Vec<u8> = (0..100_000u32).map(|i| (i / 7 % 13) as u8).collect();
        let mut sizes = Vec::new();
        for level in [1, 9, 5, 1, 0, 10] {
            let mut c = vec![0u8; 120_000];
            let n = compress(&compressible, &mut c, level, Layout::Plain);
            assert!(n > 0 && n < 10_000, "level {level}: {n}");
            assert_eq!(
                other_inflate(&c[..n], compressible.len()).as_deref(),
                Some(&compressible[..])
            );
            sizes.push(n);
        }
        // Same level, same bytes, whatever came before on this thread.
        assert_eq!(sizes[0], sizes[3]);
    }

    #[test]
    fn bad_streams_fail() {
        // Streams for each decoder: high expansion and shuffled (zlib-rs),
        // low expansion or fixed Huffman codes (level 1; libdeflate).
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let periodic: Vec<u8> = (0..50_000u32).map(|i| (i % 251) as u8).collect();
        let noisy: Vec<u8> = (0..50_000).map(|_| rng.gen_range(0..16u8)).collect();
        for (src, level, shuffled) in [
            (periodic.clone(), 5, false),
            (periodic.clone(), 1, false),
            (periodic, 5, true),
            (noisy.clone(), 5, false),
            (noisy.clone(), 5, true),
            (noisy, 9, false),
        ] {
            let mut c = vec![0u8; 60_000];
            let n = compress(&src, &mut c, level, layout(shuffled));
            assert!(n > 0);
            let mut out = vec![0u8; src.len()];
            let mut bad = c[..n].to_vec();
            bad[n - 1] ^= 1; // Adler-32
            assert_eq!(decompress(&bad, &mut out, shuffled), None);
            for cut in [0, 1, 2, n / 2, n - 1] {
                assert_eq!(
                    decompress(&c[..cut], &mut out, shuffled),
                    None,
                    "cut at {cut}"
                );
            }
            let mut short = vec![0u8; src.len() - 1];
            assert_eq!(decompress(&c[..n], &mut short, shuffled), None);
            for _ in 0..2000 {
                let mut m = c[..n].to_vec();
                let i = rng.gen_range(0..n);
                m[i] ^= 1 << rng.gen_range(0..8);
                if let Some(k) = decompress(&m, &mut out, shuffled) {
                    assert!(k <= out.len());
                }
            }
            assert_eq!(decompress(&c[..n], &mut out, shuffled), Some(src.len()));
            assert_eq!(out, src);
            // A header asking for a preset dictionary (FDICT, with the
            // check bits fixed) is refused, as by zlib's `uncompress`.
            let mut dict = c[..n].to_vec();
            dict[1] |= 0x20;
            let base = (u16::from(dict[0]) << 8) | u16::from(dict[1] & !0x1F);
            dict[1] = (dict[1] & !0x1F) | ((31 - base % 31) % 31) as u8;
            assert_eq!((u16::from(dict[0]) << 8 | u16::from(dict[1])) % 31, 0);
            assert_eq!(decompress(&dict, &mut out, shuffled), None);
        }
    }

    /// Compresses `src` (at most 40,000 bytes) at `level` for `layout`, checks that
    /// the stream is zlib-rs's (a fresh stream's bytes) exactly when
    /// `zlib_rs`, and that it decodes back to `src`.
    #[cfg(not(feature = "zlib-ng"))]
    fn assert_backend(src: &[u8], level: i32, layout: Layout, zlib_rs: bool) {
        let mut c = vec![0u8; 50_000];
        let n = compress(src, &mut c, level, layout);
        let mut fresh = vec![0u8; 50_000];
        let m = imp::fresh(level, src, &mut fresh);
        assert_eq!(
            c[..n] == fresh[..m],
            zlib_rs,
            "level {level} {layout:?} zlib-rs expected {zlib_rs}"
        );
        let shuffled = layout == Layout::ByteShuffled;
        let mut back = vec![0u8; src.len()];
        assert_eq!(decompress(&c[..n], &mut back, shuffled), Some(src.len()));
        assert_eq!(back, src);
    }

    /// At levels 2-6, unfiltered blocks get libdeflate's bytes unless they
    /// are runs; shuffled and bit-shuffled blocks and runs, and every block
    /// at level 1, get zlib-rs's bytes (zlib-ng's).
    #[cfg(not(feature = "zlib-ng"))]
    #[test]
    fn levels_1_to_6_leave_runs_and_shuffled_blocks_to_zlib_rs() {
        let mut rng = ChaCha8Rng::seed_from_u64(26);
        let noisy: Vec<u8> = (0..40_000).map(|_| rng.gen_range(0..16u8)).collect();
        // Mostly-zero 64-bit integers: one word in 50 set.
        let sparse: Vec<u8> = (0..5_000u64)
            .flat_map(|i| (if i % 50 == 7 { i * 977 } else { 0 }).to_le_bytes())
            .collect();
        assert!(!imp::repeats_heavy(&noisy));
        assert!(imp::repeats_heavy(&sparse));
        assert!(!imp::repeats_heavy(&[]) && !imp::repeats_heavy(&[0; 15]));
        assert!(imp::repeats_heavy(&[0; 16]));
        let layouts = [Layout::Plain, Layout::ByteShuffled, Layout::BitShuffled];
        for level in 1..=6 {
            for (src, layout) in [&noisy, &sparse]
                .into_iter()
                .flat_map(|s| layouts.map(|l| (s, l)))
            {
                let zlib_rs = level == 1 || layout != Layout::Plain || src == &sparse;
                assert_backend(src, level, layout, zlib_rs);
            }
        }
    }

    #[test]
    fn layout_follows_the_filters() {
        use crate::format::header::{BITSHUFFLE, DELTA, SHUFFLE};
        assert_eq!(Layout::of(&[0, 0, 0, 0, 0, SHUFFLE]), Layout::ByteShuffled);
        assert_eq!(Layout::of(&[BITSHUFFLE, SHUFFLE]), Layout::ByteShuffled);
        assert_eq!(Layout::of(&[DELTA, 0, BITSHUFFLE]), Layout::BitShuffled);
        assert_eq!(Layout::of(&[DELTA, 0, 0]), Layout::Plain);
    }

    /// At levels 7-9, shuffled blocks that the probe finds poorly
    /// compressible get zlib-rs's bytes (zlib-ng's), highly compressible
    /// ones and unshuffled ones libdeflate's; the probe is what decides.
    #[cfg(not(feature = "zlib-ng"))]
    #[test]
    fn levels_7_to_9_follow_the_probe() {
        let mut rng = ChaCha8Rng::seed_from_u64(21);
        let noisy: Vec<u8> = (0..40_000).map(|_| rng.gen_range(0..16u8)).collect();
        let runs: Vec<u8> = (0..40_000u32).map(|i| (i / 300) as u8).collect();
        assert!(!imp::highly_compressible(&noisy));
        assert!(imp::highly_compressible(&runs));
        for level in 7..=9 {
            for (src, shuffled, zlib_rs) in [
                (&noisy, true, true),
                (&noisy, false, false),
                (&runs, true, false),
                (&runs, false, false),
            ] {
                assert_backend(src, level, layout(shuffled), zlib_rs);
            }
        }
    }
}
