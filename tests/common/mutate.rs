//! Mutation robustness engine shared by `tests/mutation.rs` and
//! `examples/mutation_fuzz.rs` (included there with `#[path]`).
//!
//! Valid chunks made by our engine are mutated (bit flips, header bytes,
//! bstarts, stream sizes, truncation, garbage, lying header fields) and fed to
//! the safe API (`header`, `sizes`, `decompress_into`, `getitem`) and to the C
//! ABI (`blosc2_decompress`, `blosc2_getitem`, `blosc2_cbuffer_sizes`,
//! `blosc1_cbuffer_validate`) with exact-size buffers.  Every call must return
//! (Ok/Err or a C code), never panic; a success must produce exactly the size
//! the header promises.

#![allow(dead_code)]

use blosc2::chunk::special::{chunk_repeatval, chunk_special};
use blosc2::chunk::{self, CParams, DParams, SplitMode};
use blosc2::codec;
use blosc2::format::header::{Special, BITSHUFFLE, DELTA, NOFILTER, SHUFFLE, TRUNC_PREC};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, Once};

/// Largest output buffer handed to a decoder (a lying nbytes above it gets a
/// smaller buffer, which must make the call fail, not write past it).
pub const DEST_CAP: usize = 8 << 20;

// ------------------------------------------------------------------ panic hook

static PANICS: AtomicUsize = AtomicUsize::new(0);
static LAST_PANIC: Mutex<String> = Mutex::new(String::new());
static HOOK: Once = Once::new();

/// Count every panic, also the ones the C ABI's `catch_unwind` guard swallows.
pub fn install_panic_counter() {
    HOOK.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            PANICS.fetch_add(1, Ordering::SeqCst);
            let msg = format!("{info}");
            if let Ok(mut l) = LAST_PANIC.lock() {
                *l = msg;
            }
        }));
    });
}

/// Panics seen so far (process-wide) and the last message.
pub fn panics() -> (usize, String) {
    (
        PANICS.load(Ordering::SeqCst),
        LAST_PANIC.lock().map(|l| l.clone()).unwrap_or_default(),
    )
}

// ------------------------------------------------------------------ corpus

fn sample(kind: u8, n: usize, rng: &mut ChaCha8Rng) -> Vec<u8> {
    match kind % 4 {
        0 => (0..n).map(|i| (i / 7) as u8).collect(),
        1 => (0..n.div_ceil(4) as u32)
            .flat_map(|i| (i * 3).to_le_bytes())
            .take(n)
            .collect(),
        2 => (0..n)
            .map(|i| if i % 61 == 0 { rng.gen() } else { 0 })
            .collect(),
        _ => (0..n).map(|_| rng.gen_range(0..4u8)).collect(),
    }
}

/// Valid chunks from our engine: every codec, several filter pipelines and
/// split modes, memcpyed (clevel 0) chunks, dictionary chunks, Blosc1-header
/// chunks and the special-value chunks.
pub fn build_corpus(seed: u64) -> Vec<(String, Vec<u8>)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xc0_4905);
    let mut out = Vec::new();
    let codecs = [
        codec::BLOSCLZ,
        codec::LZ4,
        codec::LZ4HC,
        codec::ZLIB,
        codec::ZSTD,
    ];
    let pipelines: [[u8; 6]; 5] = [
        [NOFILTER; 6],
        [0, 0, 0, 0, 0, SHUFFLE],
        [0, 0, 0, 0, 0, BITSHUFFLE],
        [0, 0, 0, 0, DELTA, SHUFFLE],
        [0, 0, 0, 0, TRUNC_PREC, BITSHUFFLE],
    ];
    for (ci, &compcode) in codecs.iter().enumerate() {
        for (pi, filters) in pipelines.iter().enumerate() {
            for (si, &size) in [0usize, 1, 37, 3000, 40_000, 70_001].iter().enumerate() {
                let typesize = [1, 4, 8][(ci + pi + si) % 3];
                let mut meta = [0u8; 6];
                if filters[4] == TRUNC_PREC {
                    if typesize == 1 {
                        continue;
                    }
                    meta[4] = 12;
                }
                let p = CParams {
                    compcode,
                    clevel: [5, 0, 9, 1][(pi + si) % 4],
                    typesize,
                    blocksize: [0, 4096, 0, 1000][(ci + si) % 4],
                    splitmode: [
                        SplitMode::Always,
                        SplitMode::Never,
                        SplitMode::Auto,
                        SplitMode::ForwardCompat,
                    ][(ci + pi) % 4],
                    filters: *filters,
                    filters_meta: meta,
                    ..CParams::default()
                };
                let data = sample((ci + pi + si) as u8, size, &mut rng);
                if let Ok(c) = chunk::compress(&p, &data) {
                    out.push((format!("{p:?} size={size}"), c));
                }
                if size == 3000 {
                    let mut dest = vec![0u8; size + 32];
                    if let Ok(n) = chunk::compress_into_blosc1(&p, &data, &mut dest) {
                        if n > 0 {
                            dest.truncate(n);
                            out.push((format!("blosc1 header {p:?} size={size}"), dest));
                        }
                    }
                }
            }
        }
    }
    // Dictionary chunks (several blocks so that a dictionary is stored).
    for compcode in [codec::ZSTD, codec::LZ4, codec::LZ4HC] {
        for size in [64 * 1024, 200_000] {
            let p = CParams {
                compcode,
                clevel: 5,
                use_dict: true,
                typesize: 4,
                blocksize: 16 * 1024,
                ..CParams::default()
            };
            let data = sample(1, size, &mut rng);
            if let Ok(c) = chunk::compress(&p, &data) {
                out.push((format!("dict {p:?} size={size}"), c));
            }
        }
    }
    // Special-value chunks.
    for (kind, ts) in [
        (Special::Zero, 4),
        (Special::Nan, 4),
        (Special::Nan, 8),
        (Special::Uninit, 8),
    ] {
        let p = CParams {
            typesize: ts,
            ..CParams::default()
        };
        let mut dest = vec![0u8; 64];
        if let Ok(n) = chunk_special(&p, 4096 * ts, kind, &mut dest) {
            dest.truncate(n);
            out.push((format!("special {kind:?} ts={ts}"), dest));
        }
    }
    for ts in [1usize, 3, 8, 16] {
        let p = CParams {
            typesize: ts as i32,
            ..CParams::default()
        };
        let value: Vec<u8> = (0..ts as u8).map(|b| b.wrapping_mul(37) | 1).collect();
        let mut dest = vec![0u8; 64 + ts];
        if let Ok(n) = chunk_repeatval(&p, (1000 * ts) as i32, &value, &mut dest) {
            dest.truncate(n);
            out.push((format!("repeatval ts={ts}"), dest));
        }
    }
    assert!(out.len() > 100, "corpus unexpectedly small: {}", out.len());
    out
}

// ------------------------------------------------------------------ mutation

fn rd32(b: &[u8], at: usize) -> Option<i32> {
    b.get(at..at + 4)
        .map(|s| i32::from_le_bytes(s.try_into().unwrap()))
}

fn wr32(b: &mut [u8], at: usize, v: i32) {
    if let Some(s) = b.get_mut(at..at + 4) {
        s.copy_from_slice(&v.to_le_bytes());
    }
}

fn interesting(rng: &mut ChaCha8Rng, orig: i32, len: usize) -> i32 {
    match rng.gen_range(0..14) {
        0 => 0,
        1 => 1,
        2 => -1,
        3 => i32::MAX,
        4 => i32::MIN,
        5 => orig.wrapping_add(1),
        6 => orig.wrapping_sub(1),
        7 => orig.wrapping_mul(2),
        8 => orig / 2,
        9 => len as i32,
        10 => len as i32 - rng.gen_range(1..=16),
        11 => len as i32 + rng.gen_range(1..=16),
        12 => 1 << rng.gen_range(0..31),
        _ => rng.gen(),
    }
}

/// The mutation kinds (for statistics).
pub const KINDS: [&str; 12] = [
    "bitflip",
    "header byte",
    "bstarts entry",
    "stream size",
    "truncate",
    "garbage",
    "lying nbytes",
    "lying blocksize",
    "lying cbytes",
    "typesize byte",
    "flags",
    "filters/meta bytes",
];

/// Mutate `chunk` in place with one mutation of kind `k`.
pub fn mutate_once(c: &mut Vec<u8>, k: usize, rng: &mut ChaCha8Rng) {
    let len = c.len();
    let hdr = if len >= 3 && c[2] & 0x5 == 0x5 {
        32
    } else {
        16
    };
    match k {
        0 => {
            if len > 0 {
                let at = if rng.gen_bool(0.5) {
                    rng.gen_range(0..len.min(64))
                } else {
                    rng.gen_range(0..len)
                };
                c[at] ^= 1 << rng.gen_range(0..8);
            }
        }
        1 => {
            if len > 0 {
                let at = rng.gen_range(0..len.min(32));
                c[at] = if rng.gen_bool(0.5) {
                    rng.gen()
                } else {
                    [0, 1, 0x80, 0xff, 2, 3, 5, 6][rng.gen_range(0..8)]
                };
            }
        }
        2 => {
            let nbl = rd32(c, 4).zip(rd32(c, 8)).map(|(n, b)| {
                if b > 0 {
                    (n.max(0) / b) as usize + 1
                } else {
                    1
                }
            });
            let j = rng.gen_range(0..nbl.unwrap_or(1).clamp(1, 64));
            let at = hdr + 4 * j;
            let orig = rd32(c, at).unwrap_or(0);
            let v = interesting(rng, orig, len);
            wr32(c, at, v);
        }
        3 => {
            // The 4-byte size in front of a stream: at a bstart, or further into the block.
            let nbl = rd32(c, 4).zip(rd32(c, 8)).map(|(n, b)| {
                if b > 0 {
                    (n.max(0) / b) as usize + 1
                } else {
                    1
                }
            });
            let j = rng.gen_range(0..nbl.unwrap_or(1).clamp(1, 64));
            if let Some(bs) = rd32(c, hdr + 4 * j) {
                let mut at = bs.max(0) as usize;
                // Skip a few streams forward sometimes.
                for _ in 0..rng.gen_range(0..3) {
                    match rd32(c, at) {
                        Some(cs) if cs > 0 => at += 4 + cs as usize,
                        _ => break,
                    }
                }
                let orig = rd32(c, at).unwrap_or(0);
                let v = interesting(rng, orig, len);
                wr32(c, at, v);
            }
        }
        4 => {
            let n = if rng.gen_bool(0.3) {
                rng.gen_range(0..=len.min(40))
            } else {
                rng.gen_range(0..=len)
            };
            c.truncate(n);
        }
        5 => {
            if rng.gen_bool(0.5) {
                // Random bytes with a plausible header prefix kept.
                let keep = rng.gen_range(0..=len.min(32));
                for b in c[keep..].iter_mut() {
                    *b = rng.gen();
                }
            } else {
                let n = rng.gen_range(0..200);
                *c = (0..n).map(|_| rng.gen()).collect();
            }
        }
        6 => {
            let orig = rd32(c, 4).unwrap_or(0);
            let v = interesting(rng, orig, len);
            wr32(c, 4, v);
        }
        7 => {
            let orig = rd32(c, 8).unwrap_or(0);
            let v = interesting(rng, orig, len);
            wr32(c, 8, v);
        }
        8 => {
            let orig = rd32(c, 12).unwrap_or(0);
            let v = interesting(rng, orig, len);
            wr32(c, 12, v);
        }
        9 => {
            if len > 3 {
                c[3] = [0, 1, 2, 3, 4, 7, 8, 16, 255, rng.gen()][rng.gen_range(0..10)];
            }
        }
        10 => {
            let at = [2, 2, 31, 30, 0, 1][rng.gen_range(0..6)];
            if at < len {
                c[at] = if rng.gen_bool(0.5) {
                    c[at] ^ (1 << rng.gen_range(0..8))
                } else {
                    rng.gen()
                };
            }
        }
        _ => {
            if len >= 32 {
                let at = rng.gen_range(16..30);
                c[at] = [0, 1, 2, 3, 4, 5, 6, 7, 32, 35, 160, 255, rng.gen()][rng.gen_range(0..13)];
            }
        }
    }
}

/// One mutated input: a corpus chunk with 1 to 3 mutations.
pub fn make_input(
    corpus: &[(String, Vec<u8>)],
    seed: u64,
    index: u64,
) -> (usize, Vec<usize>, Vec<u8>) {
    let mut rng =
        ChaCha8Rng::seed_from_u64(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x3d);
    let src = rng.gen_range(0..corpus.len());
    let mut c = corpus[src].1.clone();
    let nmut = [1, 1, 1, 2, 3][rng.gen_range(0..5)];
    let mut kinds = Vec::new();
    for _ in 0..nmut {
        let k = rng.gen_range(0..KINDS.len());
        kinds.push(k);
        mutate_once(&mut c, k, &mut rng);
    }
    (src, kinds, c)
}

// ------------------------------------------------------------------ checks

/// Per entry point: (ok, err) counts.
#[derive(Default, Debug)]
pub struct Stats {
    pub calls: BTreeMap<&'static str, (u64, u64)>,
    /// Violations (success with a size other than promised), with context.
    pub violations: Vec<String>,
}

impl Stats {
    fn count(&mut self, what: &'static str, ok: bool) {
        let e = self.calls.entry(what).or_default();
        if ok {
            e.0 += 1
        } else {
            e.1 += 1
        }
    }
    pub fn print(&self) {
        println!("  {:<28} {:>10} {:>10}", "entry point", "Ok", "Err");
        for (k, (o, e)) in &self.calls {
            println!("  {k:<28} {o:>10} {e:>10}");
        }
    }
}

/// Run every entry point on `input`. Returns Err(description) on a violated
/// contract; a panic propagates (callers wrap this in `catch_unwind`), and
/// panics inside the C ABI (swallowed by its guard) show in [`panics`].
pub fn check_input(input: &[u8], rng_seed: u64, stats: &mut Stats) -> Result<(), String> {
    let mut rng = ChaCha8Rng::seed_from_u64(rng_seed);
    // What the first 16 bytes promise (independently of our parser).
    let promised_nbytes = rd32(input, 4);
    let typesize = input.get(3).copied().unwrap_or(0) as usize;

    let h = chunk::header(input);
    stats.count("chunk::header", h.is_ok());
    let s = chunk::sizes(input);
    stats.count("chunk::sizes", s.is_ok());
    if let (Ok(h), Some(n)) = (&h, promised_nbytes) {
        if h.nbytes != n {
            return Err(format!(
                "header() nbytes {} but the bytes say {n}",
                h.nbytes
            ));
        }
    }

    // Destination sized to the promise (capped), sometimes one byte short or long.
    let want = promised_nbytes.filter(|&n| n >= 0).map(|n| n as usize);
    let mut destlen = want.unwrap_or(1024).min(DEST_CAP);
    match rng.gen_range(0..10) {
        0 => destlen = destlen.saturating_sub(1),
        1 => destlen += 1,
        _ => {}
    }
    let nthreads = if rng.gen_range(0..8) == 0 { 2 } else { 1 };
    let dp = DParams {
        nthreads,
        ..DParams::default()
    };
    let mut dest = vec![0u8; destlen];
    let r = chunk::decompress_into(&dp, input, &mut dest);
    stats.count("chunk::decompress_into", r.is_ok());
    if let Ok(n) = r {
        if Some(n) != want {
            return Err(format!("decompress_into Ok({n}) but the header promises {promised_nbytes:?} (dest {destlen})"));
        }
    }

    // getitem on a random range.
    let nitems_total = match (want, typesize) {
        (Some(n), ts) if ts > 0 => n / ts,
        _ => 0,
    };
    let (start, nitems) = match rng.gen_range(0..6) {
        0 => (rng.gen_range(-2..3), rng.gen_range(-1..3)),
        1 => (0, nitems_total as i64),
        2 => (nitems_total as i64, 1),
        _ if nitems_total > 0 => {
            let st = rng.gen_range(0..nitems_total);
            (
                st as i64,
                rng.gen_range(1..=(nitems_total - st).min(50_000)) as i64,
            )
        }
        _ => (0, 1),
    };
    let glen = (nitems.max(0) as usize)
        .saturating_mul(typesize.max(1))
        .min(DEST_CAP);
    let mut gdest = vec![0u8; glen];
    let r = chunk::getitem(&dp, input, start, nitems, &mut gdest);
    stats.count("chunk::getitem", r.is_ok());
    if let Ok(n) = r {
        if n != nitems.max(0) as usize * typesize {
            return Err(format!(
                "getitem({start},{nitems}) Ok({n}) but typesize is {typesize}"
            ));
        }
    }

    // ---- the C ABI, exact-size buffers
    use blosc2::ffi::api;
    if input.len() >= 16 {
        let (mut n, mut cb, mut bs) = (0i32, 0i32, 0i32);
        // SAFETY: input holds at least the 16 header bytes the function reads;
        // the out-pointers are valid locals.
        let rc =
            unsafe { api::blosc2_cbuffer_sizes(input.as_ptr().cast(), &mut n, &mut cb, &mut bs) };
        stats.count("blosc2_cbuffer_sizes", rc >= 0);
    }
    let mut vn = 0usize;
    // SAFETY: the function reads at most `input.len()` bytes (it checks the
    // length against 16 before reading the header) and writes one size_t.
    let rc = unsafe { api::blosc1_cbuffer_validate(input.as_ptr().cast(), input.len(), &mut vn) };
    stats.count("blosc1_cbuffer_validate", rc >= 0);

    let mut cdest = vec![0u8; destlen];
    let srcsize = input.len().min(i32::MAX as usize) as i32;
    // SAFETY: src is readable for srcsize bytes and dest writable for destsize
    // bytes (both exact slices).
    let rc = unsafe {
        api::blosc2_decompress(
            input.as_ptr().cast(),
            srcsize,
            cdest.as_mut_ptr() as *mut c_void,
            cdest.len() as i32,
        )
    };
    stats.count("blosc2_decompress", rc >= 0);
    if rc >= 0 && Some(rc as usize) != want {
        return Err(format!(
            "blosc2_decompress returned {rc} but the header promises {promised_nbytes:?}"
        ));
    }
    let mut cg = vec![0u8; glen];
    let (cs, cn) = (
        start.clamp(i32::MIN as i64, i32::MAX as i64) as i32,
        nitems.clamp(i32::MIN as i64, i32::MAX as i64) as i32,
    );
    // SAFETY: as above; dest is exactly glen bytes, passed as destsize.
    let rc = unsafe {
        api::blosc2_getitem(
            input.as_ptr().cast(),
            srcsize,
            cs,
            cn,
            cg.as_mut_ptr() as *mut c_void,
            cg.len() as i32,
        )
    };
    stats.count("blosc2_getitem", rc >= 0);
    if rc >= 0 && rc as usize != (cn.max(0) as usize) * typesize {
        return Err(format!(
            "blosc2_getitem({cs},{cn}) returned {rc} with typesize {typesize}"
        ));
    }
    Ok(())
}

/// Run `check_input` under `catch_unwind`; Err(description) on a panic (also
/// one swallowed by the C ABI) or a violated contract.
pub fn check_guarded(input: &[u8], rng_seed: u64, stats: &mut Stats) -> Result<(), String> {
    let (before, _) = panics();
    let r = catch_unwind(AssertUnwindSafe(|| check_input(input, rng_seed, stats)));
    let (after, last) = panics();
    match r {
        Err(_) => Err(format!("PANIC: {last}")),
        Ok(_) if after != before => Err(format!(
            "PANIC inside the C ABI (swallowed by its guard): {last}"
        )),
        Ok(Err(v)) => Err(v),
        Ok(Ok(())) => Ok(()),
    }
}

pub fn hex_prefix(b: &[u8], n: usize) -> String {
    b.iter()
        .take(n)
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join("")
}
