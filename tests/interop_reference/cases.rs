//! The random-case model: parameters, data and expected output of one case.

use crate::common::reflib::RefCParams;
use blosc2::chunk::{CParams, DParams, SplitMode};
use blosc2::codec;
use blosc2::format::header::{BITSHUFFLE, DELTA, NOFILTER, SHUFFLE, TRUNC_PREC};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

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
pub(crate) enum Pipeline {
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
    pub(crate) fn has_delta(self) -> bool {
        matches!(self, Pipeline::DeltaShuffle | Pipeline::DeltaBitShuffle)
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Case {
    group: &'static str,
    seed: u64,
    idx: u64,
    kind: DataKind,
    pub(crate) pipeline: Pipeline,
    pub(crate) size: usize,
    pub(crate) p: RefCParams,
    /// getitem ranges (start item, nitems).
    pub(crate) ranges: Vec<(i32, i32)>,
}

impl Case {
    pub(crate) fn describe(&self) -> String {
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

    pub(crate) fn ours(&self) -> CParams {
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
    pub(crate) fn ref_threads(&self) -> i16 {
        if std::env::var("BLOSC2_INTEROP_REF_THREADS").is_ok_and(|v| v == "case") {
            self.p.nthreads
        } else {
            1
        }
    }

    pub(crate) fn ref_params(&self) -> RefCParams {
        RefCParams {
            nthreads: self.ref_threads(),
            ..self.p
        }
    }

    pub(crate) fn dparams(&self) -> DParams {
        DParams {
            nthreads: self.p.nthreads,
            ..DParams::default()
        }
    }

    /// A class of parameters where the reference is known to misbehave on its
    /// own chunks (documented in capi-tests/KNOWN_REFERENCE_FAILURES.txt).
    pub(crate) fn known_ref_bug_class(&self) -> Option<&'static str> {
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

pub(crate) fn codec_name(c: u8) -> &'static str {
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

pub(crate) fn gen_case(
    group: &'static str,
    codecs: &[u8],
    seed: u64,
    idx: u64,
    large_cap: usize,
) -> Case {
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

pub(crate) fn gen_data(case: &Case) -> Vec<u8> {
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
pub(crate) fn expected_output(case: &Case, data: &[u8]) -> Vec<u8> {
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
