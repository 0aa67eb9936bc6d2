//! Tests of `codec::zlib`: both backends, kept streams, the layouts
//! and the stored stretches.
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
    match rng.gen_range(0..5) {
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
        3 => v.extend((0..len).map(|_| rng.gen::<u8>())),
        _ => {
            // Stretches of random bytes (stored) between compressible
            // ones, some repeating earlier random bytes.
            while v.len() < len {
                let n = rng.gen_range(1000..20_000);
                match rng.gen_range(0..3) {
                    0 => v.extend((0..n).map(|_| rng.gen::<u8>())),
                    1 => v.extend((0..n).map(|i| (i / 5) as u8)),
                    _ if v.len() > n => {
                        let from = rng.gen_range(0..v.len() - n);
                        v.extend_from_within(from..from + n);
                    }
                    _ => {}
                }
            }
            v.truncate(len);
        }
    }
    v
}

/// zlib-rs (through flate2), an independent implementation of the format.
pub(super) fn other_inflate(src: &[u8], len: usize) -> Option<Vec<u8>> {
    let mut out = vec![0u8; len];
    let mut d = Decompress::new(true);
    match d.decompress(src, &mut out, FlushDecompress::Finish) {
        Ok(Status::StreamEnd) if d.total_out() as usize == len => Some(out),
        _ => None,
    }
}

/// zlib-rs's stream of `src` at `level` (zlib-ng's bytes).
pub(super) fn other_deflate(src: &[u8], level: u32) -> Vec<u8> {
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
            let mut full = vec![0u8; zlib_rs::compress_bound(len) + 4096];
            imp::fresh_with_stretches(level, &src, &mut full)
        };
        let room = match rng.gen_range(0..20) {
            0 | 1 => len / 3,
            2 => exact(),
            3 => exact() - 1,
            _ => len + len / 8 + 64,
        };
        let mut a = vec![0u8; room];
        let mut b = vec![0u8; room];
        let na = imp::zlib_rs_compress(&src, &mut a, level, true);
        let nb = imp::fresh_with_stretches(level, &src, &mut b);
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
/// are runs; shuffled and bit-shuffled blocks and runs get zlib-rs's bytes
/// (zlib-ng's). At level 1 every block gets `quick`'s.
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
            if level == 1 {
                let (mut a, mut b) = (vec![0u8; 50_000], vec![0u8; 50_000]);
                let n = compress(src, &mut a, 1, layout);
                let mut parts = Vec::new();
                super::super::incompressible::stretches(src, &mut parts);
                assert_eq!(super::quick::compress(src, &mut b, &parts), n);
                assert_eq!(a[..n], b[..n]);
                assert_eq!(other_inflate(&a[..n], src.len()).as_ref(), Some(src));
                continue;
            }
            let zlib_rs = layout != Layout::Plain || src == &sparse;
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

/// `quick` (level 1) writes zlib-ng's level 1's very bytes (zlib-rs's,
/// which are zlib-ng's) for blocks up to 64 KiB (Blosc's blocks at clevel 1
/// are 32 KiB unless the caller sets them), block after block on one
/// thread's kept table. (Past 64 KiB zlib-ng slides its window and ends a
/// block when its output buffer fills, and the bytes can differ.)
#[cfg(not(feature = "zlib-ng"))]
#[test]
fn level_1_writes_zlib_ngs_bytes() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for round in 0..300 {
        let len = rng.gen_range(100..=65_536);
        let src = data(&mut rng, len);
        let mut a = vec![0u8; len * 2 + 100];
        let n = super::quick::compress(&src, &mut a, &[]);
        assert!(n > 0);
        assert!(
            a[..n] == other_deflate(&src, 1)[..],
            "round {round}, {len} bytes"
        );
    }
}
