//! Chunks the reference (c-blosc2 3.3.5, loaded with dlopen as in
//! `interop_reference.rs`) writes with DELTA and a size that is not a
//! multiple of the typesize.  Its encoder leaves the bytes after the last
//! whole unit of such a block as they were in its scratch buffer, so these
//! chunks may not hold the source's last bytes at all.  Our decoder must give
//! back the source bytes or fail: never a success with bytes the writer did
//! not store.
//!
//! Knobs: `BLOSC2_TEST_SEED` (base seed), `BLOSC2_DELTA_CASES` (cases, default
//! 600).

mod common;

use blosc2::chunk::{self, DParams};
use blosc2::codec;
use blosc2::format::header::{BITSHUFFLE, DELTA, NOFILTER, SHUFFLE};
use common::reflib::{reflib, RefCParams};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Source bytes of one of a few kinds (runs, ramps, noise).
fn data(rng: &mut ChaCha8Rng, n: usize) -> Vec<u8> {
    match rng.gen_range(0..4) {
        0 => (0..n).map(|i| (i / 7) as u8).collect(),
        1 => (0..n).map(|_| rng.gen()).collect(),
        2 => (0..n)
            .map(|i| if i % 97 < 50 { 0 } else { rng.gen() })
            .collect(),
        _ => (0..n as u32 / 4 + 1)
            .flat_map(|i| (i.wrapping_mul(2654435761) >> 7).to_le_bytes())
            .take(n)
            .collect(),
    }
}

#[derive(Debug, Clone, Copy)]
struct Case {
    size: usize,
    typesize: i32,
    compcode: u8,
    clevel: u8,
    blocksize: i32,
    shuffle: u8,
    kind_seed: u64,
}

fn pick(rng: &mut ChaCha8Rng) -> Case {
    let typesize = [2, 4, 8, 16, 24, 4, 8, 3][rng.gen_range(0..8)];
    let ts = typesize as usize;
    // Mostly sizes with a partial item, some with whole items.
    let base = match rng.gen_range(0..3) {
        0 => rng.gen_range(1..400),
        1 => rng.gen_range(400..20_000),
        _ => rng.gen_range(20_000..300_000),
    };
    let size = if rng.gen_range(0..8) == 0 {
        (base / ts).max(1) * ts
    } else {
        base / ts * ts + rng.gen_range(1..ts)
    };
    Case {
        size,
        typesize,
        compcode: [
            codec::BLOSCLZ,
            codec::LZ4,
            codec::LZ4HC,
            codec::ZLIB,
            codec::ZSTD,
        ][rng.gen_range(0..5)],
        clevel: rng.gen_range(0..10),
        blocksize: [0, 0, 0, 256, 1024, 4096, 16384][rng.gen_range(0..7)],
        shuffle: [NOFILTER, SHUFFLE, BITSHUFFLE][rng.gen_range(0..3)],
        kind_seed: rng.gen(),
    }
}

#[test]
fn reference_delta_chunks_decode_to_the_source_or_fail() {
    let lib = reflib();
    // A fixed seed unless one is asked for: the same cases on every run.
    let seed = if std::env::var_os("BLOSC2_TEST_SEED").is_some() {
        common::test_seed()
    } else {
        0xDE17_A1EF
    };
    let cases: usize = common::env_num("BLOSC2_DELTA_CASES", 600);
    eprintln!("seed {seed:#x}, {cases} cases");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut exact, mut refused, mut wrong) = (0, 0, Vec::new());
    let mut ref_wrong = 0;
    let mut getitem_ok = 0;
    for k in 0..cases {
        let c = pick(&mut rng);
        let src = data(&mut ChaCha8Rng::seed_from_u64(c.kind_seed), c.size);
        let p = RefCParams {
            compcode: c.compcode,
            compcode_meta: 0,
            clevel: c.clevel,
            use_dict: false,
            typesize: c.typesize,
            nthreads: 1,
            blocksize: c.blocksize,
            splitmode: 4,
            filters: [NOFILTER, NOFILTER, NOFILTER, NOFILTER, DELTA, c.shuffle],
            filters_meta: [0; 6],
        };
        let (chunk, overrun) = lib.compress_chunk(&p, &src);
        assert_eq!(overrun, 0, "reference overran its buffer, case {k} {c:?}");
        let Ok(chunk) = chunk else {
            continue;
        };
        let r = lib.decompress(1, &chunk, src.len());
        if r.rc != src.len() as i32 || r.out != src {
            ref_wrong += 1;
        }
        let mut out = vec![0u8; src.len()];
        match chunk::decompress_into(&DParams::default(), &chunk, &mut out) {
            Ok(n) if n == src.len() && out == src => exact += 1,
            Ok(n) => wrong.push(format!(
                "case {k} {c:?}: header {:?} ours {n} bytes, first difference at {:?}, ref rc {} same as ours {}",
                &chunk[..32.min(chunk.len())],
                out.iter().zip(&src).position(|(a, b)| a != b),
                r.rc,
                r.out == out
            )),
            Err(e) => {
                // Whole items do not reach the bytes the chunk lacks:
                // getitem gives the source's items or fails, never other
                // bytes.
                let ts = c.typesize as usize;
                let nitems = src.len() / ts;
                if nitems > 0 {
                    let mut items = vec![0u8; nitems * ts];
                    let dp = DParams::default();
                    if let Ok(n) = chunk::getitem(&dp, &chunk, 0, nitems as i64, &mut items) {
                        assert_eq!(n, items.len(), "case {k} {c:?}: getitem size");
                        assert!(items == src[..n], "case {k} {c:?}: getitem bytes");
                        getitem_ok += 1;
                    }
                }
                refused += 1;
                if std::env::var_os("BLOSC2_DELTA_VERBOSE").is_some() {
                    eprintln!(
                        "refused case {k} {c:?}: {e:?}, ref rc {} right {}",
                        r.rc,
                        r.out == src
                    );
                }
            }
        }
    }
    eprintln!(
        "{exact} decoded to the source, {refused} refused ({getitem_ok} of them read by whole \
         items), {ref_wrong} wrong with the reference's own decoder"
    );
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(exact > cases / 2, "too few chunks decoded");
}

/// Our own chunks of such sizes: written without delta (the other filters
/// kept), they read back whole with our decoder and the reference's.
#[test]
fn our_chunks_with_partial_units_are_written_without_delta() {
    let lib = reflib();
    let mut rng = ChaCha8Rng::seed_from_u64(0xDE17_A005);
    for k in 0..200 {
        let c = pick(&mut rng);
        let src = data(&mut ChaCha8Rng::seed_from_u64(c.kind_seed), c.size);
        let p = chunk::CParams {
            compcode: c.compcode,
            clevel: c.clevel,
            typesize: c.typesize,
            blocksize: c.blocksize,
            filters: [NOFILTER, NOFILTER, NOFILTER, NOFILTER, DELTA, c.shuffle],
            ..chunk::CParams::default()
        };
        let ours = chunk::compress(&p, &src).unwrap_or_else(|e| panic!("case {k} {c:?}: {e:?}"));
        let unit = match c.typesize {
            2 | 4 | 8 => c.typesize as usize,
            t if t % 8 == 0 => 8,
            _ => 1,
        };
        let partial = !src.len().is_multiple_of(unit);
        if partial {
            assert!(!ours[16..22].contains(&DELTA), "case {k} {c:?}: delta kept");
            assert_eq!(
                ours[21], c.shuffle,
                "case {k} {c:?}: the other filters are kept"
            );
        }
        let mut out = vec![0u8; src.len()];
        assert_eq!(
            chunk::decompress_into(&DParams::default(), &ours, &mut out).ok(),
            Some(src.len()),
            "case {k} {c:?}"
        );
        assert!(out == src, "case {k} {c:?}: ours decodes its chunk wrongly");
        let r = lib.decompress(1, &ours, src.len());
        assert_eq!(r.rc, src.len() as i32, "case {k} {c:?}: reference rc");
        assert!(
            r.out == src,
            "case {k} {c:?}: reference decodes our chunk wrongly"
        );
    }
}

/// Pipelines whose deltas the reference's decoder would undo from the wrong
/// buffer (a reordering filter between two deltas, see
/// `chunk::delta_placement`) are written without delta; the reference reads
/// them back whole.  Pipelines it undoes right keep their deltas: the usual
/// delta-then-shuffle one, and one with two deltas in other places.
#[test]
fn our_chunks_with_misplaced_deltas_are_written_without_delta() {
    let lib = reflib();
    let src: Vec<u8> = (0..16384u32)
        .flat_map(|i| ((i as f32) * 0.25 + (i % 7) as f32 * 0.001).to_le_bytes())
        .collect();
    let pipelines: [([u8; 6], bool); 5] = [
        ([DELTA, SHUFFLE, DELTA, 0, 0, 0], false),
        ([DELTA, BITSHUFFLE, DELTA, 0, 0, 0], false),
        ([DELTA, 0, SHUFFLE, 0, DELTA, 0], false),
        ([SHUFFLE, DELTA, BITSHUFFLE, 0, SHUFFLE, DELTA], true),
        ([0, 0, 0, 0, DELTA, SHUFFLE], true),
    ];
    for (filters, keeps_delta) in pipelines {
        let p = chunk::CParams {
            compcode: codec::LZ4,
            clevel: 5,
            typesize: 4,
            blocksize: 16384,
            filters,
            ..chunk::CParams::default()
        };
        let ours = chunk::compress(&p, &src).unwrap();
        assert_eq!(ours[2] & 0x2, 0, "{filters:?}: stored as a plain copy");
        assert_eq!(ours[16..22].contains(&DELTA), keeps_delta, "{filters:?}");
        assert!(
            chunk::decompress(&DParams::default(), &ours).unwrap() == src,
            "{filters:?}: ours"
        );
        let r = lib.decompress(1, &ours, src.len());
        assert_eq!(r.rc, src.len() as i32, "{filters:?}: reference rc");
        assert!(
            r.out == src,
            "{filters:?}: reference decodes our chunk wrongly"
        );
    }
}
