//! zlib-format deflate, from two implementations chosen per call by what each
//! does fastest (measured against the reference's zlib-ng in
//! `benches/results/2026-11-24-zlib-backends.txt`):
//!
//! - Compression, levels 1-6: zlib-rs, which writes zlib-ng's very bytes (so
//!   the chunks equal the reference's), with one deflate state kept per thread.
//! - Compression, levels 7-9: libdeflate (the `libdeflater` crate, built with
//!   `cc`), a whole-buffer compressor, which is what a Blosc block is: 1.1-12x
//!   the speed of zlib-ng's levels 7-9, its output between 0.05% larger and
//!   43% smaller in the benchmarks. Its streams are valid zlib that the
//!   reference decodes, but not zlib-ng's bytes. Below level 7 it is 1.2-3x
//!   faster on most data but 0.1-0.55x on very compressible data (mostly-zero
//!   int64 in 128 KiB blocks), so zlib-rs (0.85-1.2x) is kept there.
//! - Decompression: libdeflate for streams that expand less than 8x (about
//!   1.2x zlib-ng's speed there), zlib-rs for the others (long matches, where
//!   libdeflate falls to 0.8x).
//!
//! With the `zlib-ng` feature: zlib-ng through `flate2` for everything, a fresh
//! stream per call like the reference's `compress2` (the reference's bytes at
//! every level; needs cmake to build).
//!
//! Keeping one zlib-rs deflate state per thread: creating a stream clears its
//! 64 KiB window, 64 KiB `prev` table and 128 KiB hash heads, and resetting
//! clears the heads again; for the 32 KiB blocks of clevel 1 that was most of
//! the time spent (`benches/results/2026-11-23-profile-zlib.txt`). A reset
//! stream must write the bytes a fresh one writes:
//! - zlib-rs 0.6.8's `reset` leaves `block_open` set when the previous stream
//!   stopped half-way (output full), and the next level-1 stream then lacks a
//!   block header (a corrupt stream, seen by tests/interop_reference.rs in
//!   November); such a stream is dropped instead of reused (`ended`).
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
    use libdeflater::{CompressionLvl, Compressor, Decompressor};
    use std::cell::RefCell;
    use std::thread::LocalKey;
    use zlib_rs::{Deflate, DeflateFlush, Inflate, InflateFlush, Status};

    /// zlib levels from which libdeflate compresses (below, zlib-rs).
    pub(super) const LIBDEFLATE_FROM: i32 = 7;

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
            let n = run(&mut k.stream, src, dest);
            k.ended = n > 0;
            n
        })
        .unwrap_or_else(|| fresh(level, src, dest))
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

    /// Compress into a zlib stream (zlib's levels 1..=9); 0 when it does not fit.
    pub fn compress(src: &[u8], dest: &mut [u8], clevel: i32) -> usize {
        let level = clevel.clamp(1, 9);
        if level >= LIBDEFLATE_FROM {
            libdeflate_compress(src, dest, level)
        } else {
            zlib_rs_compress(src, dest, level)
        }
    }

    /// Expansion ratio from which zlib-rs decompresses (below, libdeflate).
    pub(super) const LIBDEFLATE_BELOW: usize = 8;

    fn inflate(d: &mut Inflate, src: &[u8], dest: &mut [u8]) -> Option<usize> {
        match d.decompress(src, dest, InflateFlush::Finish) {
            Ok(Status::StreamEnd) => Some(d.total_out() as usize),
            _ => None,
        }
    }

    /// Decompress a zlib stream (Adler-32 checked); `None` on error or when
    /// it does not end within `dest`. Streams that expand less than
    /// `LIBDEFLATE_BELOW` times go through libdeflate's decompressor, the
    /// others (long matches, where zlib-rs's chunked copies win) through
    /// zlib-rs, with one state per thread reset and reused.
    pub fn decompress(src: &[u8], dest: &mut [u8]) -> Option<usize> {
        if dest.len() < LIBDEFLATE_BELOW.saturating_mul(src.len()) {
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
                    d.reset(true);
                    d
                }
                None => slot.insert(Inflate::new(true, 15)),
            };
            inflate(d, src, dest)
        })
        .unwrap_or_else(|| inflate(&mut Inflate::new(true, 15), src, dest))
    }

    /// Version reported for the zlib library.
    pub fn version() -> &'static str {
        "1.3.1.zlib-rs"
    }
}

#[cfg(feature = "zlib-ng")]
mod imp {
    use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

    /// Compress as zlib's `compress2` does; 0 when it does not fit.
    pub fn compress(src: &[u8], dest: &mut [u8], clevel: i32) -> usize {
        let mut c = Compress::new(Compression::new(clevel.clamp(1, 9) as u32), true);
        match c.compress(src, dest, FlushCompress::Finish) {
            Ok(Status::StreamEnd) => c.total_out() as usize,
            _ => 0,
        }
    }

    /// Decompress a zlib stream; `None` on error or when it does not end.
    pub fn decompress(src: &[u8], dest: &mut [u8]) -> Option<usize> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

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
            // Sometimes too little room, leaving the kept stream half-way.
            let room = if rng.gen_bool(0.1) {
                len / 3
            } else {
                len + len / 8 + 64
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
            let n = compress(&src, &mut c, level);
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
                decompress(&theirs, &mut back),
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
        assert_eq!(compress(&src, &mut small, 5), 0);
        let compressible: Vec<u8> = (0..100_000u32).map(|i| (i / 7 % 13) as u8).collect();
        let mut sizes = Vec::new();
        for level in [1, 9, 5, 1, 0, 10] {
            let mut c = vec![0u8; 120_000];
            let n = compress(&compressible, &mut c, level);
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
        // One stream for each decoder: high expansion (zlib-rs), low (libdeflate).
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let periodic: Vec<u8> = (0..50_000u32).map(|i| (i % 251) as u8).collect();
        let noisy: Vec<u8> = (0..50_000).map(|_| rng.gen_range(0..16u8)).collect();
        for (src, level) in [(periodic, 5), (noisy.clone(), 5), (noisy, 9)] {
            let mut c = vec![0u8; 60_000];
            let n = compress(&src, &mut c, level);
            assert!(n > 0);
            let mut out = vec![0u8; src.len()];
            let mut bad = c[..n].to_vec();
            bad[n - 1] ^= 1; // Adler-32
            assert_eq!(decompress(&bad, &mut out), None);
            for cut in [0, 1, 2, n / 2, n - 1] {
                assert_eq!(decompress(&c[..cut], &mut out), None, "cut at {cut}");
            }
            let mut short = vec![0u8; src.len() - 1];
            assert_eq!(decompress(&c[..n], &mut short), None);
            for _ in 0..2000 {
                let mut m = c[..n].to_vec();
                let i = rng.gen_range(0..n);
                m[i] ^= 1 << rng.gen_range(0..8);
                if let Some(k) = decompress(&m, &mut out) {
                    assert!(k <= out.len());
                }
            }
            assert_eq!(decompress(&c[..n], &mut out), Some(src.len()));
            assert_eq!(out, src);
        }
    }
}
