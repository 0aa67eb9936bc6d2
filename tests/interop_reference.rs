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

mod common;

use blosc2::chunk::{self, CParams, DParams, SplitMode};
use blosc2::codec;
use blosc2::format::header::{BITSHUFFLE, DELTA, NOFILTER, SHUFFLE, TRUNC_PREC};
use common::reflib::{reflib, RefCParams};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

// ------------------------------------------------------------------ cases

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DataKind {
    Zeros,
    MostlyZeros,
    Arange,
    Linspace,
    Random,
    RepeatedByte,
    /// Linspace plus noise in the low bits: after a shuffle, stretches
    /// that zlib stores between deflated ones.
    NoisyLinspace,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pipeline {
    NoShuffle,
    Shuffle,
    BitShuffle,
    DeltaShuffle,
    DeltaBitShuffle,
    TruncPrecShuffle,
    ShuffleMeta(u8),
}

impl Pipeline {
    fn filters(self, typesize: i32) -> ([u8; 6], [u8; 6]) {
        let mut f = [NOFILTER; 6];
        let mut m = [0u8; 6];
        match self {
            Pipeline::NoShuffle => {}
            Pipeline::Shuffle => f[5] = SHUFFLE,
            Pipeline::BitShuffle => f[5] = BITSHUFFLE,
            Pipeline::DeltaShuffle => {
                f[4] = DELTA;
                f[5] = SHUFFLE;
            }
            Pipeline::DeltaBitShuffle => {
                f[4] = DELTA;
                f[5] = BITSHUFFLE;
            }
            Pipeline::TruncPrecShuffle => {
                f[4] = TRUNC_PREC;
                m[4] = if typesize == 4 { 10 } else { 23 };
                f[5] = SHUFFLE;
            }
            Pipeline::ShuffleMeta(k) => {
                f[5] = SHUFFLE;
                m[5] = k;
            }
        }
        (f, m)
    }
    fn has_delta(self) -> bool {
        matches!(self, Pipeline::DeltaShuffle | Pipeline::DeltaBitShuffle)
    }
}

#[derive(Debug, Clone)]
struct Case {
    group: &'static str,
    seed: u64,
    idx: u64,
    kind: DataKind,
    pipeline: Pipeline,
    size: usize,
    p: RefCParams,
    /// getitem ranges (start item, nitems).
    ranges: Vec<(i32, i32)>,
}

impl Case {
    fn describe(&self) -> String {
        let p = &self.p;
        format!(
            "[seed={} group={} case={}] codec={} clevel={} typesize={} size={} blocksize={} \
             splitmode={} nthreads={} pipeline={:?} filters={:?} meta={:?} use_dict={} data={:?}",
            self.seed,
            self.group,
            self.idx,
            codec_name(p.compcode),
            p.clevel,
            p.typesize,
            self.size,
            p.blocksize,
            p.splitmode,
            p.nthreads,
            self.pipeline,
            p.filters,
            p.filters_meta,
            p.use_dict,
            self.kind
        )
    }

    fn ours(&self) -> CParams {
        CParams {
            compcode: self.p.compcode,
            compcode_meta: self.p.compcode_meta,
            clevel: self.p.clevel,
            use_dict: self.p.use_dict,
            typesize: self.p.typesize,
            nthreads: self.p.nthreads,
            blocksize: self.p.blocksize,
            splitmode: SplitMode::from_i32(self.p.splitmode),
            filters: self.p.filters,
            filters_meta: self.p.filters_meta,
            ..CParams::default()
        }
    }

    /// Threads given to the reference.
    fn ref_threads(&self) -> i16 {
        if std::env::var("BLOSC2_INTEROP_REF_THREADS").is_ok_and(|v| v == "case") {
            self.p.nthreads
        } else {
            1
        }
    }

    fn ref_params(&self) -> RefCParams {
        RefCParams {
            nthreads: self.ref_threads(),
            ..self.p
        }
    }

    fn dparams(&self) -> DParams {
        DParams {
            nthreads: self.p.nthreads,
            ..DParams::default()
        }
    }

    /// A class of parameters where the reference is known to misbehave on its
    /// own chunks (documented in capi-tests/KNOWN_REFERENCE_FAILURES.txt).
    fn known_ref_bug_class(&self) -> Option<&'static str> {
        let ts = self.p.typesize as usize;
        let bs = self.p.blocksize;
        if bs > 0 && !(bs as usize).is_multiple_of(ts) && (bs as usize) < self.size {
            return Some("user blocksize not a multiple of typesize");
        }
        if bs as usize > self.size && !self.size.is_multiple_of(ts) {
            return Some("user blocksize > nbytes, nbytes % typesize != 0");
        }
        if self.pipeline.has_delta() && !self.size.is_multiple_of(ts) {
            return Some("delta with nbytes % typesize != 0");
        }
        if self.p.use_dict && self.size < 32 {
            // The reference first stores such a buffer as a plain copy, then re-runs
            // it without the copy flag and writes a header that does not match.
            return Some("use_dict on a buffer below 32 bytes");
        }
        None
    }
}

fn codec_name(c: u8) -> &'static str {
    match c {
        codec::BLOSCLZ => "blosclz",
        codec::LZ4 => "lz4",
        codec::LZ4HC => "lz4hc",
        codec::ZLIB => "zlib",
        codec::ZSTD => "zstd",
        _ => "?",
    }
}

const TYPESIZES: [i32; 7] = [1, 2, 3, 4, 8, 16, 255];

fn gen_case(group: &'static str, codecs: &[u8], seed: u64, idx: u64, large_cap: usize) -> Case {
    let mut rng = ChaCha8Rng::seed_from_u64(
        seed ^ idx.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ group_tag(group),
    );
    let compcode = codecs[rng.gen_range(0..codecs.len())];
    let typesize = TYPESIZES[rng.gen_range(0..TYPESIZES.len())];
    let ts = typesize as usize;
    let pipeline = match rng.gen_range(0..8) {
        0 => Pipeline::NoShuffle,
        1 | 2 => Pipeline::Shuffle,
        3 => Pipeline::BitShuffle,
        4 => Pipeline::DeltaShuffle,
        5 => Pipeline::DeltaBitShuffle,
        6 if ts == 4 || ts == 8 => Pipeline::TruncPrecShuffle,
        6 => Pipeline::Shuffle,
        _ => Pipeline::ShuffleMeta(rng.gen_range(1..=3)),
    };
    let kind = match rng.gen_range(0..7) {
        0 => DataKind::Zeros,
        1 => DataKind::MostlyZeros,
        2 => DataKind::Arange,
        3 => DataKind::Linspace,
        4 => DataKind::Random,
        5 => DataKind::NoisyLinspace,
        _ => DataKind::RepeatedByte,
    };
    let mut size = match rng.gen_range(0..100) {
        0..=2 => 0,
        3..=5 => 1,
        6..=17 => rng.gen_range(2..=256),
        18..=64 => rng.gen_range(257..=64 * 1024),
        65..=89 => {
            // A multiple of a typical block size plus a tail.
            let b = 1usize << rng.gen_range(12..=17);
            b * rng.gen_range(1..=4) + rng.gen_range(0..b.min(1000))
        }
        90..=97 => rng.gen_range(64 * 1024..=320 * 1024),
        _ => rng.gen_range(320 * 1024..=large_cap.max(320 * 1024 + 1)),
    };
    if pipeline == Pipeline::TruncPrecShuffle {
        size -= size % ts;
    }
    let blocksize: i32 = match rng.gen_range(0..20) {
        0..=9 => 0,
        10..=12 => {
            let max_items = (256 * 1024 / ts).max(1);
            (ts * rng.gen_range(1..=max_items)) as i32
        }
        13..=14 => rng.gen_range(1..=256 * 1024),
        15..=16 => (size + rng.gen_range(1..=100_000)) as i32,
        _ => 1 << rng.gen_range(12..=18),
    };
    let use_dict =
        matches!(compcode, codec::ZSTD | codec::LZ4 | codec::LZ4HC) && rng.gen_range(0..20) == 0;
    let clevel = rng.gen_range(0..=9);
    let (filters, filters_meta) = pipeline.filters(typesize);
    let p = RefCParams {
        compcode,
        compcode_meta: 0,
        clevel,
        use_dict,
        typesize,
        nthreads: rng.gen_range(1..=2),
        blocksize,
        splitmode: rng.gen_range(1..=4),
        filters,
        filters_meta,
    };
    let nitems = (size / ts) as i32;
    let mut ranges = Vec::new();
    if nitems > 0 {
        for _ in 0..3 {
            let start = rng.gen_range(0..nitems);
            let n = rng.gen_range(1..=(nitems - start).min(20_000));
            ranges.push((start, n));
        }
    }
    Case {
        group,
        seed,
        idx,
        kind,
        pipeline,
        size,
        p,
        ranges,
    }
}

fn group_tag(group: &str) -> u64 {
    group.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

fn gen_data(case: &Case) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(case.seed ^ case.idx ^ 0xda7a);
    let n = case.size;
    let ts = case.p.typesize as usize;
    match case.kind {
        DataKind::Zeros => vec![0; n],
        DataKind::MostlyZeros => {
            let mut v = vec![0u8; n];
            for _ in 0..(n / 100 + 1) {
                if n > 0 {
                    let at = rng.gen_range(0..n);
                    v[at] = rng.gen();
                }
            }
            v
        }
        DataKind::Arange => {
            let mut v = Vec::with_capacity(n + ts);
            let mut i: u64 = rng.gen_range(0..1000);
            while v.len() < n {
                let b = i.to_le_bytes();
                v.extend((0..ts).map(|k| b.get(k).copied().unwrap_or(0)));
                i += 1;
            }
            v.truncate(n);
            v
        }
        DataKind::Linspace => floats(n, ts, |i, count| -50.0 + 1000.0 * i / count),
        DataKind::Random => {
            let mut v = vec![0u8; n];
            rng.fill(&mut v[..]);
            v
        }
        DataKind::RepeatedByte => vec![rng.gen_range(1..=255u8); n],
        DataKind::NoisyLinspace => floats(n, ts, |i, count| {
            1.0 + 1000.0 * i / count + rng.gen::<f64>() * 1e-3
        }),
    }
}

/// `n` bytes of float32 values (typesize 4) or else float64 values, value
/// `i` being `x(i, count)` for `count` values in all.
fn floats(n: usize, ts: usize, mut x: impl FnMut(f64, f64) -> f64) -> Vec<u8> {
    let mut v = Vec::with_capacity(n + 8);
    let count = (n / ts.max(1)).max(1) as f64;
    let mut i = 0u64;
    while v.len() < n {
        let value = x(i as f64, count);
        if ts == 4 {
            v.extend_from_slice(&(value as f32).to_le_bytes());
        } else {
            v.extend_from_slice(&value.to_le_bytes());
        }
        i += 1;
    }
    v.truncate(n);
    v
}

/// What a lossless decode of our or the reference's chunk must give.
fn expected_output(case: &Case, data: &[u8]) -> Vec<u8> {
    if case.pipeline != Pipeline::TruncPrecShuffle {
        return data.to_vec();
    }
    let mut out = data.to_vec();
    match case.p.typesize {
        4 => {
            let zero_bits = 23 - case.p.filters_meta[4] as u32;
            let mask = !((1u32 << zero_bits) - 1);
            for c in out.chunks_exact_mut(4) {
                let v = u32::from_le_bytes(c.try_into().unwrap()) & mask;
                c.copy_from_slice(&v.to_le_bytes());
            }
        }
        8 => {
            let zero_bits = 52 - case.p.filters_meta[4] as u32;
            let mask = !((1u64 << zero_bits) - 1);
            for c in out.chunks_exact_mut(8) {
                let v = u64::from_le_bytes(c.try_into().unwrap()) & mask;
                c.copy_from_slice(&v.to_le_bytes());
            }
        }
        _ => unreachable!(),
    }
    out
}

// ------------------------------------------------------------------ report

#[derive(Default)]
struct Report {
    cases: usize,
    hard: BTreeMap<String, (usize, Vec<String>)>,
    nhard: usize,
    /// category -> (count, first examples)
    soft: BTreeMap<String, (usize, Vec<String>)>,
    refbugs: BTreeMap<String, (usize, Vec<String>)>,
    header_compared: usize,
    size_deltas: Vec<f64>,
}

fn note(map: &mut BTreeMap<String, (usize, Vec<String>)>, cat: &str, ex: String) {
    let e = map.entry(cat.to_string()).or_default();
    e.0 += 1;
    if e.1.len() < 3 {
        e.1.push(ex);
    }
}

impl Report {
    fn hard(&mut self, cat: &str, case: &Case, msg: impl std::fmt::Display) {
        self.nhard += 1;
        note(
            &mut self.hard,
            cat,
            format!("{msg}\n        {}", case.describe()),
        );
    }
    fn soft(&mut self, cat: &str, case: &Case, msg: impl std::fmt::Display) {
        note(
            &mut self.soft,
            cat,
            format!("{msg}\n        {}", case.describe()),
        );
    }
    fn refbug(&mut self, cat: &str, case: &Case, msg: impl std::fmt::Display) {
        note(
            &mut self.refbugs,
            cat,
            format!("{msg}\n        {}", case.describe()),
        );
    }

    fn finish(self, group: &str, seed: u64, elapsed: Duration) {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "== interop group {group}: seed={seed} cases={} in {:.1}s, headers compared={}, hard failures={}",
            self.cases,
            elapsed.as_secs_f64(),
            self.header_compared,
            self.nhard
        );
        if !self.size_deltas.is_empty() {
            let mut d = self.size_deltas.clone();
            d.sort_by(|a, b| a.partial_cmp(b).unwrap());
            let _ = writeln!(
                s,
                "   cbytes ours/ref - 1 over {} chunks: min {:+.4} median {:+.4} max {:+.4}",
                d.len(),
                d[0],
                d[d.len() / 2],
                d[d.len() - 1]
            );
        }
        for (cat, (n, ex)) in &self.refbugs {
            let _ = writeln!(s, "   REFERENCE BUG [{cat}] x{n}");
            for e in ex {
                let _ = writeln!(s, "      e.g. {e}");
            }
        }
        for (cat, (n, ex)) in &self.soft {
            let _ = writeln!(s, "   difference (not a failure) [{cat}] x{n}");
            for e in ex {
                let _ = writeln!(s, "      e.g. {e}");
            }
        }
        println!("{s}");
        if self.nhard > 0 {
            let mut m = format!(
                "{} hard failure(s) in interop group {group} (seed={seed}; rerun one with BLOSC2_TEST_SEED={seed} \
                 BLOSC2_INTEROP_CASE=<case>):\n",
                self.nhard
            );
            for (cat, (n, ex)) in &self.hard {
                let _ = writeln!(m, "  FAIL [{cat}] x{n}");
                for e in ex {
                    let _ = writeln!(m, "      e.g. {e}");
                }
            }
            panic!("{m}");
        }
    }
}

fn first_diff(a: &[u8], b: &[u8]) -> String {
    if a.len() != b.len() {
        return format!("lengths {} vs {}", a.len(), b.len());
    }
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => {
            let n = a.iter().zip(b).filter(|(x, y)| x != y).count();
            format!(
                "first difference at byte {i} ({} vs {}), {n} bytes differ",
                a[i], b[i]
            )
        }
        None => "equal".into(),
    }
}

// ------------------------------------------------------------------ one case

fn ours_decompress(case: &Case, chunk: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = vec![0u8; case.size];
    match chunk::decompress_into(&case.dparams(), chunk, &mut out) {
        Ok(n) if n == case.size => Ok(out),
        Ok(n) => Err(format!("Ok({n}) instead of Ok({})", case.size)),
        Err(e) => Err(format!("{e:?}")),
    }
}

fn ours_getitem(case: &Case, chunk: &[u8], start: i32, n: i32) -> Result<Vec<u8>, String> {
    let want = n as usize * case.p.typesize as usize;
    let mut out = vec![0u8; want];
    match chunk::getitem(&case.dparams(), chunk, start as i64, n as i64, &mut out) {
        Ok(k) if k == want => Ok(out),
        Ok(k) => Err(format!("Ok({k}) instead of Ok({want})")),
        Err(e) => Err(format!("{e:?}")),
    }
}

/// The exact bytes a correct decoder must produce for `chunk`: the input, or for
/// TRUNC_PREC the truncated input unless the chunk is a plain copy (clevel 0 or
/// incompressible data: then the filters were not applied).
fn expected_for(case: &Case, data: &[u8], truncated: &[u8], chunk: &[u8]) -> Vec<u8> {
    let memcpyed = chunk.len() > 2 && chunk[2] & 0x2 != 0;
    if memcpyed {
        data.to_vec()
    } else {
        let _ = case;
        truncated.to_vec()
    }
}

/// The reference's getitem decodes a block straight into `dest` when the block
/// starts inside the request and is exactly as long as the whole request, even
/// when it is not the first block touched, overwriting the bytes already there.
/// True when the range `lo..hi` of a `size`-byte chunk with blocks of `bs` bytes
/// hits that case.
fn reference_getitem_aliases(bs: usize, size: usize, lo: usize, hi: usize) -> bool {
    let first = lo / bs;
    let last = (hi - 1) / bs;
    (first + 1..=last).any(|j| (bs.min(size - j * bs)) == hi - lo)
}

fn run_case(case: &Case, rep: &mut Report) {
    let lib = reflib();
    let data = gen_data(case);
    let truncated = expected_output(case, &data);
    let ts = case.p.typesize as usize;
    let ours_p = case.ours();
    let known = case.known_ref_bug_class();

    // ---- (a) our chunk
    let mut dest = vec![0u8; case.size + 32];
    let ours_chunk = match chunk::compress_into(&ours_p, &data, &mut dest) {
        Ok(0) => {
            rep.hard(
                "ours compress did not fit",
                case,
                "ours: compress_into returned 0 (did not fit) with a size+32 buffer",
            );
            None
        }
        Ok(n) => Some(dest[..n].to_vec()),
        Err(e) => {
            rep.hard(
                "ours compress failed",
                case,
                format!("ours: compress_into failed: {e:?}"),
            );
            None
        }
    };
    if let Some(oc) = &ours_chunk {
        let expected = expected_for(case, &data, &truncated, oc);
        match ours_decompress(case, oc) {
            Ok(out) if out == expected => {}
            Ok(out) => rep.hard(
                "ours->ours wrong bytes",
                case,
                format!("ours->ours: wrong bytes: {}", first_diff(&out, &expected)),
            ),
            Err(e) => rep.hard(
                "ours->ours decode fails",
                case,
                format!("ours->ours: decompress failed: {e}"),
            ),
        }
        let r = lib.decompress(case.ref_threads(), oc, case.size);
        if r.overrun > 0 {
            rep.refbug(
                "decompress writes past destsize (on our chunk)",
                case,
                format!("{} bytes past", r.overrun),
            );
        }
        if r.rc != case.size as i32 {
            rep.hard(
                "ours->reference decode fails",
                case,
                format!(
                    "ours->reference: reference decompress returned {} (want {})",
                    r.rc, case.size
                ),
            );
        } else if r.out != expected {
            rep.hard(
                "ours->reference wrong bytes",
                case,
                format!(
                    "ours->reference: wrong bytes: {}",
                    first_diff(&r.out, &expected)
                ),
            );
        }
    }

    // ---- (b) the reference's chunk
    let (ref_res, overrun) = lib.compress_chunk(&case.ref_params(), &data);
    if overrun > 0 {
        rep.refbug(
            "compress writes past dest (nbytes + BLOSC2_MAX_OVERHEAD)",
            case,
            format!(
                "{overrun} bytes past the {}-byte buffer, rc={:?}",
                case.size + 32,
                ref_res.as_ref().map(|c| c.len())
            ),
        );
    }
    let ref_chunk = match ref_res {
        Ok(c) => Some(c),
        Err(rc) => {
            if ours_chunk.is_some() {
                rep.soft(
                    "reference refuses to compress, ours accepts",
                    case,
                    format!("reference rc={rc}"),
                );
            }
            None
        }
    };
    // The reference chunk's decode, when the reference gets it right.
    let mut ref_decoded: Option<Vec<u8>> = None;
    // Whether the reference decodes its own chunk correctly (else (d) is moot).
    let mut ref_self_ok = false;
    if let Some(rc_chunk) = &ref_chunk {
        let expected = expected_for(case, &data, &truncated, rc_chunk);
        let r = lib.decompress(case.ref_threads(), rc_chunk, case.size);
        if r.overrun > 0 {
            rep.refbug(
                "decompress writes past destsize (own chunk)",
                case,
                format!("{} bytes past", r.overrun),
            );
        }
        let own = r.out;
        let ours = ours_decompress(case, rc_chunk);
        let class = known.unwrap_or(if case.p.use_dict {
            "use_dict (new class)"
        } else {
            "new class"
        });
        if r.rc == case.size as i32 {
            if own != expected {
                rep.refbug(
                    &format!("decodes its own chunk to wrong bytes ({class})"),
                    case,
                    first_diff(&own, &expected),
                );
                match &ours {
                    Ok(o) if *o == own || *o == expected => {}
                    Ok(o) => rep.hard(
                        "reference->ours wrong bytes",
                        case,
                        format!("reference->ours: bytes match neither the reference's decode nor the input: {}", first_diff(o, &expected)),
                    ),
                    Err(e) => rep.refbug(
                        &format!("own chunk decoded wrongly by the reference, refused by ours ({class})"),
                        case,
                        format!("ours: {e}"),
                    ),
                }
            } else {
                ref_self_ok = true;
                match &ours {
                    Ok(o) if *o == own => ref_decoded = Some(own),
                    Ok(o) => rep.hard("reference->ours wrong bytes", case, format!("reference->ours: wrong bytes: {}", first_diff(o, &own))),
                    Err(e) if known.is_some() => rep.refbug(
                        &format!("chunk of a buggy class decoded right by the reference (by luck?), refused by ours ({class})"),
                        case,
                        format!("ours: {e}"),
                    ),
                    Err(e) => rep.hard("reference->ours decode fails", case, format!("reference->ours: decompress failed: {e}")),
                }
            }
        } else {
            rep.refbug(
                &if rc_chunk.len() >= 32 && rc_chunk[2] & 0x2 != 0 && rc_chunk[31] & 0x1 != 0 {
                    "memcpyed chunk keeps the use-dict flag, then cannot decode it".to_string()
                } else if rc_chunk.len() >= 32 && rc_chunk[31] & 0x70 != 0 {
                    format!("cannot decode its own special-value chunk ({class})")
                } else {
                    format!("cannot decode its own chunk ({class})")
                },
                case,
                format!("reference decompress rc={}", r.rc),
            );
            if let Ok(o) = &ours {
                if *o != expected {
                    rep.hard(
                        "reference->ours wrong bytes",
                        case,
                        format!(
                            "reference->ours: success with wrong bytes on a chunk the reference cannot decode: {}",
                            first_diff(o, &expected)
                        ),
                    );
                }
            }
        }
    }

    // ---- (c) getitem
    for &(start, n) in &case.ranges {
        let lo = start as usize * ts;
        let hi = lo + n as usize * ts;
        if let Some(oc) = &ours_chunk {
            let expected = expected_for(case, &data, &truncated, oc);
            let want = &expected[lo..hi];
            match ours_getitem(case, oc, start, n) {
                Ok(g) if g == want => {}
                Ok(g) => rep.hard(
                    "ours getitem on our chunk wrong bytes",
                    case,
                    format!(
                        "ours getitem({start},{n}) on our chunk: wrong bytes: {}",
                        first_diff(&g, want)
                    ),
                ),
                Err(e) => rep.hard(
                    "ours getitem on our chunk failed",
                    case,
                    format!("ours getitem({start},{n}) on our chunk failed: {e}"),
                ),
            }
            let r = lib.getitem(case.ref_threads(), oc, start, n, hi - lo);
            if r.overrun > 0 {
                rep.refbug(
                    "getitem writes past destsize (on our chunk)",
                    case,
                    format!("{} bytes past", r.overrun),
                );
            }
            if r.rc != (hi - lo) as i32 || r.out != want {
                let h = chunk::header(oc).ok();
                let bs = h.map(|h| h.blocksize as usize).unwrap_or(0);
                let dict = h.is_some_and(|h| h.use_dict());
                let spans = bs > 0 && lo / bs != (hi - 1) / bs;
                let class = if case.pipeline.has_delta() {
                    Some("getitem on delta chunks")
                } else if spans && reference_getitem_aliases(bs, case.size, lo, hi) {
                    Some("getitem spanning blocks where a later block is as long as the request")
                } else if dict {
                    Some("getitem on dictionary chunks")
                } else {
                    None
                };
                let what = if r.rc != (hi - lo) as i32 {
                    format!("rc={}", r.rc)
                } else {
                    first_diff(&r.out, want)
                };
                // The same range through the reference on its own chunk, for the record.
                let own = match (&ref_chunk, &ref_decoded) {
                    (Some(rc_chunk), Some(dec)) => {
                        let r2 = lib.getitem(case.ref_threads(), rc_chunk, start, n, hi - lo);
                        if r2.rc == (hi - lo) as i32 && r2.out == dec[lo..hi] {
                            "; on its own chunk it is right".to_string()
                        } else {
                            format!("; on its own chunk too (rc={})", r2.rc)
                        }
                    }
                    _ => String::new(),
                };
                let msg = format!(
                    "reference getitem({start},{n}) on our chunk: {what} (chunk blocksize {bs}){own}"
                );
                match class {
                    Some(c) => rep.refbug(c, case, msg),
                    None => rep.hard("reference getitem on our chunk", case, msg),
                }
            }
        }
        if let (Some(rc_chunk), Some(dec)) = (&ref_chunk, &ref_decoded) {
            match ours_getitem(case, rc_chunk, start, n) {
                Ok(g) if g == dec[lo..hi] => {}
                Ok(g) => rep.hard(
                    "ours getitem on the reference chunk wrong bytes",
                    case,
                    format!(
                        "ours getitem({start},{n}) on the reference chunk: wrong bytes: {}",
                        first_diff(&g, &dec[lo..hi])
                    ),
                ),
                Err(e) => rep.hard(
                    "ours getitem on the reference chunk failed",
                    case,
                    format!("ours getitem({start},{n}) on the reference chunk failed: {e}"),
                ),
            }
        }
    }

    // ---- (d) header and size agreement with automatic blocksize
    if case.p.blocksize == 0 && known.is_none() && ref_self_ok {
        if let (Some(oc), Some(rc_chunk)) = (&ours_chunk, &ref_chunk) {
            if case.p.use_dict && rc_chunk.get(2).is_some_and(|f| f & 0x02 != 0) {
                // The reference keeps the dictionary flag when it falls back to a
                // plain copy (and then usually cannot decode it); we clear it.
                rep.refbug(
                    "use_dict chunk stored as a plain copy keeps the dictionary flag",
                    case,
                    "header not compared",
                );
                return;
            }
            rep.header_compared += 1;
            // Dictionary chunks: sizes are reported, not enforced (see docs/features.md).
            let strict = !case.p.use_dict
                && matches!(
                    case.p.compcode,
                    codec::BLOSCLZ | codec::LZ4 | codec::LZ4HC | codec::ZSTD
                );
            let name = codec_name(case.p.compcode);
            let mut diffs = Vec::new();
            let mut at = Vec::new();
            for i in (0..32).filter(|i| !(12..16).contains(i)) {
                if oc.get(i) != rc_chunk.get(i) {
                    at.push(i);
                    diffs.push(format!(
                        "byte {i}: ours {:?} ref {:?}",
                        oc.get(i),
                        rc_chunk.get(i)
                    ));
                }
            }
            if !diffs.is_empty() {
                let cat = format!("{name} header differs at bytes {at:?}");
                let msg = format!(
                    "header differs (cbytes ours {} ref {}): {}",
                    oc.len(),
                    rc_chunk.len(),
                    diffs.join(", ")
                );
                if strict {
                    rep.hard(&cat, case, msg);
                } else {
                    rep.soft(&cat, case, msg);
                }
            }
            let (a, b) = (oc.len() as f64, rc_chunk.len() as f64);
            rep.size_deltas.push(a / b - 1.0);
            if (a - b).abs() * 100.0 > a.max(b) {
                let cat = format!("{name} compressed size differs by >1%");
                let msg = format!(
                    "ours {} ref {} ({:+.2}%)",
                    oc.len(),
                    rc_chunk.len(),
                    (a / b - 1.0) * 100.0
                );
                if strict {
                    rep.hard(&cat, case, msg);
                } else {
                    rep.soft(&cat, case, msg);
                }
            } else if oc.len() != rc_chunk.len() {
                rep.soft(
                    &format!("{name} sizes differ (within 1%)"),
                    case,
                    format!("ours {} ref {}", oc.len(), rc_chunk.len()),
                );
            }
        }
    }
    rep.cases += 1;
}

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
