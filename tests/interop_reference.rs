//! Random differential test against the reference c-blosc2 3.3.5 library.
//!
//! For thousands of random parameter combinations:
//!  (a) our chunk decodes exactly with our engine AND with the reference;
//!  (b) the reference's chunk decodes with our engine to what the reference's
//!      own decoder gives (reference failures on its own chunks are recorded as
//!      reference bugs; then we may fail or give the right bytes, never wrong
//!      bytes with a success code);
//!  (c) getitem on random ranges agrees (ours on both chunks, reference on ours);
//!  (d) with automatic blocksize, outside the known reference-bug classes, the
//!      32 header bytes except cbytes are equal and the sizes are within 1%.
//!
//! Knobs (environment):
//!   BLOSC2_TEST_SEED      base seed (printed at start; decimal or 0x-hex)
//!   BLOSC2_INTEROP_CASES  cases per codec group (default 800 debug / 3000 release)
//!   BLOSC2_INTEROP_SECS   wall-clock cap per codec group (default 45)
//!   BLOSC2_INTEROP_CASE   run only this case index (reproduce one failure)
//!   BLOSC2_INTEROP_TRACE  print every case before running it (find a crash)
//!   BLOSC2_INTEROP_REF_THREADS=case  give the reference the case's nthreads too
//!                         (default: the reference always runs with 1 thread,
//!                         because its thread pool was seen to deadlock once in
//!                         blosc2_decompress_ctx with nthreads=2)
//!   BLOSC2_INTEROP_HANG_SECS  abort the process when one case takes longer (default 120)
//!
//! Reproduce a failure: `BLOSC2_TEST_SEED=<seed> BLOSC2_INTEROP_CASE=<idx> cargo test
//! --test interop_reference <group test name> -- --nocapture`.

#[path = "interop_reference/cases.rs"]
mod cases;
mod common;
#[path = "interop_reference/report.rs"]
mod report;
#[path = "interop_reference/run_case.rs"]
mod run_case;

use blosc2::chunk::{self, CParams, DParams, SplitMode};
use blosc2::codec;
use blosc2::format::header::{BITSHUFFLE, DELTA, NOFILTER, SHUFFLE};
use cases::gen_case;
use common::reflib::{reflib, RefCParams};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use report::{first_diff, Report};
use run_case::run_case;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn run_group(group: &'static str, codecs: &[u8], weight: f64) {
    let lib = reflib();
    let seed = common::test_seed();
    let default_cases = if cfg!(debug_assertions) {
        800.0
    } else {
        3000.0
    };
    let ncases = common::env_num("BLOSC2_INTEROP_CASES", (default_cases * weight) as u64);
    let cap = Duration::from_secs(common::env_num("BLOSC2_INTEROP_SECS", 45u64));
    let only: Option<u64> = std::env::var("BLOSC2_INTEROP_CASE")
        .ok()
        .and_then(|v| v.parse().ok());
    let trace = std::env::var_os("BLOSC2_INTEROP_TRACE").is_some();
    let large_cap = if cfg!(debug_assertions) {
        2 << 20
    } else {
        4 << 20
    };
    println!(
        "interop group {group}: BLOSC2_TEST_SEED={seed} cases={ncases} reference={}",
        lib.path().display()
    );
    let t0 = Instant::now();
    let mut rep = Report::default();
    let hang_secs = common::env_num("BLOSC2_INTEROP_HANG_SECS", 120u64);
    let current: Arc<Mutex<(Instant, String)>> =
        Arc::new(Mutex::new((Instant::now(), String::new())));
    let done = Arc::new(AtomicBool::new(false));
    {
        let (current, done) = (current.clone(), done.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(500));
                let (since, what) = current.lock().unwrap().clone();
                if since.elapsed() > Duration::from_secs(hang_secs) && !done.load(Ordering::Relaxed)
                {
                    eprintln!("interop watchdog: one case has run for over {hang_secs}s (hang?), aborting:\n  {what}");
                    std::process::abort();
                }
            }
        });
    }
    for idx in 0..ncases {
        if only.is_some_and(|o| o != idx) {
            continue;
        }
        if t0.elapsed() > cap {
            println!("interop group {group}: time cap reached after {idx} cases");
            break;
        }
        let case = gen_case(group, codecs, seed, idx, large_cap);
        if trace {
            eprintln!("{}", case.describe());
        }
        *current.lock().unwrap() = (Instant::now(), case.describe());
        run_case(&case, &mut rep);
    }
    done.store(true, Ordering::Relaxed);
    rep.finish(group, seed, t0.elapsed());
}

#[test]
fn differential_lz4_lz4hc() {
    run_group("lz4", &[codec::LZ4, codec::LZ4HC], 1.0);
}

#[test]
fn differential_zstd() {
    run_group("zstd", &[codec::ZSTD], 0.6);
}

#[test]
fn differential_zlib() {
    run_group("zlib", &[codec::ZLIB], 0.6);
}

#[test]
fn differential_blosclz() {
    run_group("blosclz", &[codec::BLOSCLZ], 1.0);
}

// ------------------------------------------------------------------ regressions

/// Deterministic data: `n` bytes, mostly zeros (every 97th byte set) or an
/// arange of u64 cut to `n`.
fn regression_data(n: usize, mostly_zero: bool) -> Vec<u8> {
    if mostly_zero {
        (0..n)
            .map(|i| if i % 97 == 13 { (i / 97) as u8 | 1 } else { 0 })
            .collect()
    } else {
        (0..n.div_ceil(8) as u64)
            .flat_map(|i| (i * 3 + 7).to_le_bytes())
            .take(n)
            .collect()
    }
}

/// Ours must round-trip `data` exactly and the reference must decode our chunk
/// exactly.  Returns a description of what the reference does with its OWN
/// chunk for the same parameters (printed; the bug under documentation).
fn regression(p: RefCParams, data: &[u8]) -> String {
    let lib = reflib();
    let ours = CParams {
        compcode: p.compcode,
        clevel: p.clevel,
        typesize: p.typesize,
        nthreads: p.nthreads,
        blocksize: p.blocksize,
        splitmode: SplitMode::from_i32(p.splitmode),
        filters: p.filters,
        filters_meta: p.filters_meta,
        ..CParams::default()
    };
    let chunk = chunk::compress(&ours, data)
        .unwrap_or_else(|e| panic!("ours compress failed: {e:?} for {p:?}"));
    let mut out = vec![0u8; data.len()];
    let n = chunk::decompress_into(&DParams::default(), &chunk, &mut out)
        .unwrap_or_else(|e| panic!("ours cannot decode its own chunk: {e:?} for {p:?}"));
    assert_eq!(n, data.len(), "ours: decoded size for {p:?}");
    assert!(
        out == data,
        "ours: wrong bytes ({}) for {p:?}",
        first_diff(&out, data)
    );
    let r = lib.decompress(1, &chunk, data.len());
    assert_eq!(
        r.overrun, 0,
        "reference wrote past its buffer decoding our chunk, {p:?}"
    );
    assert_eq!(
        r.rc,
        data.len() as i32,
        "reference cannot decode our chunk (rc {}), {p:?}",
        r.rc
    );
    assert!(
        r.out == data,
        "reference decodes our chunk wrongly ({}), {p:?}",
        first_diff(&r.out, data)
    );

    let (own, _) = lib.compress_chunk(&p, data);
    let desc = match own {
        Err(rc) => format!("reference refuses to compress (rc {rc})"),
        Ok(rc_chunk) => {
            let r = lib.decompress(1, &rc_chunk, data.len());
            let ours_on_ref = chunk::decompress(&DParams::default(), &rc_chunk);
            let verdict = if r.rc != data.len() as i32 {
                format!("reference fails to decode its own chunk (rc {})", r.rc)
            } else if r.out != data {
                format!(
                    "reference decodes its own chunk to wrong bytes ({})",
                    first_diff(&r.out, data)
                )
            } else {
                "reference decodes its own chunk correctly".to_string()
            };
            // Ours on the reference chunk: an error or the right bytes, never wrong bytes.
            if let Ok(o) = &ours_on_ref {
                if r.rc != data.len() as i32 || r.out != data {
                    assert!(
                        *o == data || *o == r.out,
                        "ours decodes the (buggy) reference chunk to bytes that are neither the input nor the reference's: {}",
                        first_diff(o, data)
                    );
                } else {
                    assert!(
                        *o == data,
                        "ours decodes the reference chunk wrongly: {}",
                        first_diff(o, data)
                    );
                }
            }
            let hdr = chunk::header(&rc_chunk).ok();
            format!(
                "{verdict}; its header blocksize {:?} flags {:#x?}; ours on it: {}",
                hdr.map(|h| h.blocksize),
                hdr.map(|h| h.flags),
                match ours_on_ref {
                    Ok(o) if o == data => "right bytes".to_string(),
                    Ok(_) => "the reference's (wrong) bytes".to_string(),
                    Err(e) => format!("error {e:?}"),
                }
            )
        }
    };
    println!("{p:?}: {desc}");
    desc
}

fn reg_params(
    compcode: u8,
    typesize: i32,
    blocksize: i32,
    splitmode: i32,
    filters: [u8; 6],
) -> RefCParams {
    RefCParams {
        compcode,
        compcode_meta: 0,
        clevel: 5,
        use_dict: false,
        typesize,
        nthreads: 1,
        blocksize,
        splitmode,
        filters,
        filters_meta: [0; 6],
    }
}

/// typesize 8, 65549 bytes (not a multiple of 8), blocksize 131072 > nbytes,
/// LZ4 or BloscLZ, splitmode NEVER.
///
/// Reference 3.3.5 on its own chunk (observed): it clamps the blocksize to
/// nbytes (header blocksize 65549, not a multiple of the typesize) and then
/// fails to decode the chunk it wrote: blosc2_decompress_ctx returns -3.
#[test]
fn regression_blocksize_above_nbytes_not_multiple_of_typesize() {
    for compcode in [codec::LZ4, codec::BLOSCLZ] {
        for shuffle in [NOFILTER, SHUFFLE] {
            for mostly_zero in [false, true] {
                let p = reg_params(compcode, 8, 131072, 2, [0, 0, 0, 0, 0, shuffle]);
                regression(p, &regression_data(65549, mostly_zero));
            }
        }
    }
}

/// typesize 255 or 3, splitmode ALWAYS, blocksize 4096 (not a multiple of the
/// typesize), mostly-zero data.
///
/// Reference 3.3.5 on its own chunk (observed): it keeps blocksize 4096 in the
/// header, and decoding its chunk either fails with -3 or (when nbytes is a
/// multiple of 4096) returns a short count (12240 of 12288 bytes for
/// typesize 255, 12285 for typesize 3).
#[test]
fn regression_split_always_blocksize_not_multiple_of_typesize() {
    for typesize in [255, 3] {
        for compcode in [codec::LZ4, codec::BLOSCLZ, codec::ZSTD] {
            for size in [100_000usize, 4096 * 3, 4096 * 5 + 17] {
                let p = reg_params(compcode, typesize, 4096, 1, [0, 0, 0, 0, 0, SHUFFLE]);
                regression(p, &regression_data(size, true));
            }
        }
    }
}

/// DELTA + SHUFFLE with nbytes not a multiple of the typesize.
///
/// Reference 3.3.5 on its own chunk (observed): it reports success but the
/// trailing partial item (the last nbytes % typesize bytes) comes back wrong,
/// e.g. typesize 4, 10001 bytes: byte 10000 differs.
#[test]
fn regression_delta_shuffle_partial_item() {
    for typesize in [2, 4, 8, 16] {
        for size in [10_001usize, 65_536 + 3, 300_007] {
            for compcode in [codec::LZ4, codec::ZSTD] {
                let p = reg_params(compcode, typesize, 0, 4, [0, 0, 0, 0, DELTA, SHUFFLE]);
                regression(p, &regression_data(size, false));
            }
        }
    }
}

/// BloscLZ is our own code (the other codecs are the same C libraries in
/// both), and its encoder and entropy probe are meant to make the
/// reference's decisions exactly: with automatic block sizes, every chunk
/// must be byte-for-byte the reference's.  Inputs of several kinds (random,
/// runs, a few repeated tokens, partly compressible halves, small alphabets)
/// at every level and filter, and at chunk sizes whose streams are shorter
/// and longer than a quarter of the hash table (the two ways the table is
/// cleared), one after another so that each call starts from the table the
/// previous one left.
#[test]
fn blosclz_chunks_are_the_references_bytes() {
    let lib = reflib();
    let mut rng = ChaCha8Rng::seed_from_u64(0xB1_05C1);
    let tokens: Vec<[u8; 7]> = (0..4).map(|_| rng.gen()).collect();
    let n = 1 << 18;
    let mut checked = 0;
    for kind in 0..6 {
        let data: Vec<u8> = match kind {
            0 => (0..n).map(|_| rng.gen()).collect(),
            1 => (0..n).map(|i| (i / 8) as u8).collect(),
            2 => (0..n / 7 + 1)
                .flat_map(|_| tokens[rng.gen_range(0..tokens.len())])
                .take(n)
                .collect(),
            3 => (0..n)
                .map(|i| {
                    if i % 4096 < 2048 {
                        rng.gen()
                    } else {
                        (i / 16) as u8
                    }
                })
                .collect(),
            4 => (0..n).map(|_| rng.gen::<u8>() & 7).collect(),
            _ => (0..n as u64 / 8)
                .flat_map(|i| (i * i / 3).to_le_bytes())
                .collect(),
        };
        for clevel in 1..=9u8 {
            for filter in [NOFILTER, SHUFFLE, BITSHUFFLE] {
                for size in [4096usize, 65536, 1 << 18] {
                    let typesize = if filter == NOFILTER { 1 } else { 8 };
                    let mut filters = [NOFILTER; 6];
                    filters[5] = filter;
                    let p = RefCParams {
                        compcode: codec::BLOSCLZ,
                        compcode_meta: 0,
                        clevel,
                        use_dict: false,
                        typesize,
                        nthreads: 1,
                        blocksize: 0,
                        splitmode: SplitMode::ForwardCompat as i32,
                        filters,
                        filters_meta: [0; 6],
                    };
                    let ours = CParams {
                        compcode: codec::BLOSCLZ,
                        clevel,
                        typesize,
                        nthreads: 1,
                        filters,
                        ..CParams::default()
                    };
                    let input = &data[..size];
                    let (theirs, _) = lib.compress_chunk(&p, input);
                    let theirs = theirs.unwrap_or_else(|rc| panic!("reference rc {rc} for {p:?}"));
                    let mine = chunk::compress(&ours, input)
                        .unwrap_or_else(|e| panic!("ours failed: {e:?} for {p:?}"));
                    assert!(
                        mine == theirs,
                        "data kind {kind}, size {size}, {p:?}: {} bytes against the reference's {} ({})",
                        mine.len(),
                        theirs.len(),
                        first_diff(&mine, &theirs)
                    );
                    checked += 1;
                }
            }
        }
    }
    println!("{checked} blosclz chunks identical to the reference's");
}
