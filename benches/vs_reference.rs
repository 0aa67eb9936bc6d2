//! Speed and ratio of our libblosc2.so against the reference c-blosc2 3.3.5.
//!
//! Both shared libraries are opened by path (each its own RTLD_LOCAL handle) and
//! driven through the very same code below, via the public C ABI only:
//! `blosc2_init`, `blosc2_create_cctx`/`blosc2_create_dctx`,
//! `blosc2_compress_ctx`, `blosc2_decompress_ctx`, `blosc2_free_ctx`.
//! Runs are interleaved (ref, ours, ours, ref, ...) and the minimum time per
//! call is kept. See benches/README.md for the options and the columns.

use std::ffi::{c_int, c_void};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::exit;
use std::time::{Instant, SystemTime};

use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};

// ---------------------------------------------------------------------------
// C ABI mirrors (include/blosc2.h)

const MAX_FILTERS: usize = 6;
const MAX_OVERHEAD: usize = 32;
const FORWARD_COMPAT_SPLIT: i32 = 4;

#[repr(C)]
#[derive(Clone, Copy)]
struct Cparams {
    compcode: u8,
    compcode_meta: u8,
    clevel: u8,
    use_dict: c_int,
    typesize: i32,
    nthreads: i16,
    blocksize: i32,
    splitmode: i32,
    schunk: *mut c_void,
    filters: [u8; MAX_FILTERS],
    filters_meta: [u8; MAX_FILTERS],
    prefilter: *mut c_void,
    preparams: *mut c_void,
    tuner_params: *mut c_void,
    tuner_id: c_int,
    instr_codec: bool,
    codec_params: *mut c_void,
    filter_params: [*mut c_void; MAX_FILTERS],
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Dparams {
    nthreads: i16,
    schunk: *mut c_void,
    postfilter: *mut c_void,
    postparams: *mut c_void,
    typesize: i32,
}

type Ctx = *mut c_void;
type InitFn = unsafe extern "C" fn();
type CreateCctxFn = unsafe extern "C" fn(Cparams) -> Ctx;
type CreateDctxFn = unsafe extern "C" fn(Dparams) -> Ctx;
type FreeCtxFn = unsafe extern "C" fn(Ctx);
type CodecCtxFn = unsafe extern "C" fn(Ctx, *const c_void, i32, *mut c_void, i32) -> c_int;

/// One loaded library and the entry points the benchmark uses.
struct Api {
    name: &'static str,
    path: PathBuf,
    create_cctx: CreateCctxFn,
    create_dctx: CreateDctxFn,
    free_ctx: FreeCtxFn,
    compress_ctx: CodecCtxFn,
    decompress_ctx: CodecCtxFn,
    destroy: InitFn,
    _lib: Library,
}

impl Api {
    fn load(name: &'static str, path: &Path) -> Api {
        // SAFETY: loading a blosc2 build runs only its (trivial) initialisers.
        let lib = unsafe { Library::open(Some(path), RTLD_NOW | RTLD_LOCAL) }.unwrap_or_else(|e| {
            die(&format!(
                "cannot load {name} library {}: {e}",
                path.display()
            ))
        });
        fn sym<T: Copy>(lib: &Library, name: &str, sym: &[u8]) -> T {
            // SAFETY: the types above mirror the prototypes in include/blosc2.h.
            unsafe { lib.get::<T>(sym) }
                .map(|s| *s)
                .unwrap_or_else(|e| die(&format!("{name}: missing symbol: {e}")))
        }
        let init: InitFn = sym(&lib, name, b"blosc2_init\0");
        let api = Api {
            name,
            path: path.to_path_buf(),
            create_cctx: sym(&lib, name, b"blosc2_create_cctx\0"),
            create_dctx: sym(&lib, name, b"blosc2_create_dctx\0"),
            free_ctx: sym(&lib, name, b"blosc2_free_ctx\0"),
            compress_ctx: sym(&lib, name, b"blosc2_compress_ctx\0"),
            decompress_ctx: sym(&lib, name, b"blosc2_decompress_ctx\0"),
            destroy: sym(&lib, name, b"blosc2_destroy\0"),
            _lib: lib,
        };
        // SAFETY: plain library initialisation.
        unsafe { init() };
        api
    }
}

impl Drop for Api {
    fn drop(&mut self) {
        // SAFETY: every context has been freed by then.
        unsafe { (self.destroy)() };
    }
}

// ---------------------------------------------------------------------------
// Configuration

const CODECS: [(&str, u8); 5] = [
    ("blosclz", 0),
    ("lz4", 1),
    ("lz4hc", 2),
    ("zlib", 4),
    ("zstd", 5),
];
const FILTERS: [(&str, u8); 3] = [("noshuffle", 0), ("shuffle", 1), ("bitshuffle", 2)];
const MIB: usize = 1 << 20;
const DATA_BYTES: usize = 4 * MIB;

struct Opts {
    quick: bool,
    json: bool,
    filters: Vec<String>,
    reps: usize,
    min_rep_secs: f64,
    /// A compression pass slower than this is timed by the warm-up and one repetition.
    once_secs: f64,
    /// Start no configuration after this many seconds.
    budget_secs: f64,
    clevels: Vec<u8>,
    threads: Vec<i16>,
    chunks: Vec<usize>,
    ref_path: PathBuf,
    ours_path: PathBuf,
}

fn usage() -> ! {
    eprintln!(
        "usage: cargo bench --bench vs_reference -- [--quick] [--filter SUB[|SUB]...]... [--json]\n\
         \x20      [--reps N] [--min-ms MS] [--clevels 1,5,9] [--threads 1,2|all] [--chunks 4096,64] (KiB)\n\
         \x20      [--once-ms MS] [--budget SECS] [--ref PATH] [--ours PATH]\n\
         env: VS_REF_QUICK=1, VS_REF_FILTER=SUB, VS_REF_JSON=1, VS_REF_REPS=N,\n\
         \x20    BLOSC2_REF_LIB=PATH, BLOSC2_OURS_LIB=PATH"
    );
    exit(2)
}

fn die(msg: &str) -> ! {
    eprintln!("vs_reference: {msg}");
    exit(1)
}

fn parse_list<T: std::str::FromStr>(s: &str) -> Vec<T> {
    s.split(',')
        .map(|x| {
            x.trim()
                .parse()
                .unwrap_or_else(|_| die(&format!("bad list item {x:?}")))
        })
        .collect()
}

fn env_flag(name: &str) -> bool {
    std::env::var(name)
        .map(|v| !v.is_empty() && v != "0")
        .unwrap_or(false)
}

fn parse_opts() -> Opts {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut o = Opts {
        quick: env_flag("VS_REF_QUICK"),
        json: env_flag("VS_REF_JSON"),
        filters: std::env::var("VS_REF_FILTER")
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect(),
        reps: 0,
        min_rep_secs: 0.0,
        once_secs: f64::INFINITY,
        budget_secs: f64::INFINITY,
        clevels: vec![],
        threads: vec![],
        chunks: vec![],
        ref_path: std::env::var_os("BLOSC2_REF_LIB")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join(".ref/blosc2/lib/libblosc2.so.9")),
        ours_path: std::env::var_os("BLOSC2_OURS_LIB")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("target/release/libblosc2.so")),
    };
    if let Ok(r) = std::env::var("VS_REF_REPS") {
        o.reps = r.parse().unwrap_or_else(|_| die("bad VS_REF_REPS"));
    }
    let mut min_ms: Option<f64> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--quick" => o.quick = true,
            "--json" => o.json = true,
            "--filter" => o.filters.push(val()),
            "--reps" => o.reps = val().parse().unwrap_or_else(|_| usage()),
            "--clevels" => o.clevels = parse_list(&val()),
            "--threads" => {
                let v = val();
                o.threads = if v == "all" {
                    all_thread_counts(cores())
                } else {
                    parse_list(&v)
                }
            }
            "--once-ms" => o.once_secs = val().parse::<f64>().unwrap_or_else(|_| usage()) / 1e3,
            "--budget" => o.budget_secs = val().parse().unwrap_or_else(|_| usage()),
            "--min-ms" => {
                min_ms = Some(val().parse::<f64>().unwrap_or_else(|_| usage()));
            }
            "--chunks" => {
                o.chunks = parse_list::<usize>(&val())
                    .into_iter()
                    .map(|k| k * 1024)
                    .collect()
            }
            "--ref" => o.ref_path = PathBuf::from(val()),
            "--ours" => o.ours_path = PathBuf::from(val()),
            "--bench" => {} // passed by `cargo bench`
            "-h" | "--help" => usage(),
            _ => {
                eprintln!("vs_reference: unknown argument {a:?}");
                usage()
            }
        }
    }
    if o.quick {
        set_default(&mut o.clevels, vec![5]);
        set_default(&mut o.threads, vec![1]);
        set_default(&mut o.chunks, vec![4 * MIB]);
        if o.reps == 0 {
            o.reps = 2;
        }
        o.min_rep_secs = 0.004;
    } else {
        set_default(&mut o.clevels, vec![1, 5, 9]);
        set_default(&mut o.threads, vec![1, 2]);
        set_default(&mut o.chunks, vec![4 * MIB, 64 * 1024]);
        if o.reps == 0 {
            o.reps = 5;
        }
        o.min_rep_secs = 0.010;
    }
    if let Some(ms) = min_ms {
        o.min_rep_secs = ms / 1e3;
    }
    let ncores = cores();
    for &t in &o.threads {
        if t < 1 {
            die(&format!("thread count {t} must be at least 1"));
        }
        if t as usize > ncores {
            eprintln!(
                "vs_reference: WARNING: {t} threads on {ncores} cores: the threads share cores"
            );
        }
    }
    for &c in &o.chunks {
        if c == 0 || !DATA_BYTES.is_multiple_of(c) {
            die(&format!("chunk size {c} must divide {DATA_BYTES}"));
        }
    }
    o
}

/// The cores this process may run on.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `--threads all`: 1 and the powers of two below `cores`, then `cores`.
fn all_thread_counts(cores: usize) -> Vec<i16> {
    let top = cores.clamp(1, i16::MAX as usize);
    let mut v = Vec::new();
    let mut t = 1;
    while t < top {
        v.push(t as i16);
        t *= 2;
    }
    v.push(top as i16);
    v
}

fn set_default<T>(v: &mut Vec<T>, d: Vec<T>) {
    if v.is_empty() {
        *v = d;
    }
}

// ---------------------------------------------------------------------------
// Datasets (deterministic)

/// SplitMix64: tiny, deterministic, good enough for test data.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

struct Dataset {
    name: &'static str,
    typesize: i32,
    data: Vec<u8>,
}

fn datasets() -> Vec<Dataset> {
    let mut rng = Rng(0x005E_EDB1_05C2);
    let mut out = Vec::new();

    let n = DATA_BYTES / 8;
    let lin: Vec<u8> = (0..n)
        .flat_map(|i| {
            let x = i as f64 * (100.0 / (n - 1) as f64) + (rng.unit() - 0.5) * 1e-6;
            x.to_le_bytes()
        })
        .collect();
    out.push(Dataset {
        name: "f64-linspace-noise",
        typesize: 8,
        data: lin,
    });

    let n = DATA_BYTES / 4;
    let ar: Vec<u8> = (0..n as i32).flat_map(|i| i.to_le_bytes()).collect();
    out.push(Dataset {
        name: "i32-arange",
        typesize: 4,
        data: ar,
    });

    let side = 1024usize; // 1024 x 1024 float32 = 4 MiB
    let mut field = Vec::with_capacity(DATA_BYTES);
    for y in 0..side {
        for x in 0..side {
            let (fx, fy) = (x as f32 / side as f32, y as f32 / side as f32);
            let v = (6.0 * fx).sin() * (4.0 * fy).cos() + 0.25 * ((fx * fx + fy * fy) * 9.0).sin();
            field.extend_from_slice(&v.to_le_bytes());
        }
    }
    out.push(Dataset {
        name: "f32-field2d",
        typesize: 4,
        data: field,
    });

    let rnd: Vec<u8> = (0..DATA_BYTES / 8)
        .flat_map(|_| rng.next().to_le_bytes())
        .collect();
    out.push(Dataset {
        name: "random-bytes",
        typesize: 8,
        data: rnd,
    });

    let sparse: Vec<u8> = (0..DATA_BYTES / 8)
        .flat_map(|_| {
            let v: i64 = if rng.next().is_multiple_of(100) {
                (rng.next() % 1_000_000) as i64
            } else {
                0
            };
            v.to_le_bytes()
        })
        .collect();
    out.push(Dataset {
        name: "i64-mostly-zero",
        typesize: 8,
        data: sparse,
    });

    for d in &out {
        assert_eq!(d.data.len(), DATA_BYTES);
    }
    out
}

// ---------------------------------------------------------------------------
// Measurement

/// Both libraries get their buffers placed alike, each at a page boundary,
/// so that neither is timed with a luckier layout than the other (where
/// plain heap allocations landed relative to each other, and to the shared
/// input, moved identical code by up to 1.4x between the two columns).
#[path = "common/page_buf.rs"]
mod page_buf;
use page_buf::PageBuf;

/// Per-library state of one configuration: contexts and buffers.
struct Run<'a> {
    api: &'a Api,
    cctx: Ctx,
    dctx: Ctx,
    comp: PageBuf,    // nchunks slots of (chunk + MAX_OVERHEAD) bytes
    csizes: Vec<i32>, // compressed size of each chunk
    decomp: PageBuf,  // DATA_BYTES
    best_c: f64,      // seconds per pass over DATA_BYTES
    best_d: f64,
}

impl<'a> Run<'a> {
    fn new(api: &'a Api, cp: Cparams, dp: Dparams, nchunks: usize, chunk: usize) -> Run<'a> {
        // SAFETY: parameters are fully initialised mirrors of the C structs.
        let (cctx, dctx) = unsafe { ((api.create_cctx)(cp), (api.create_dctx)(dp)) };
        if cctx.is_null() || dctx.is_null() {
            die(&format!("{}: context creation failed", api.name));
        }
        Run {
            api,
            cctx,
            dctx,
            comp: PageBuf::new(nchunks * (chunk + MAX_OVERHEAD), 0, 0xA5),
            csizes: vec![0; nchunks],
            decomp: PageBuf::new(DATA_BYTES, 0, 0x5A),
            best_c: f64::INFINITY,
            best_d: f64::INFINITY,
        }
    }

    fn compress_all(&mut self, src: &[u8], chunk: usize, label: &str) {
        let slot = chunk + MAX_OVERHEAD;
        for (i, s) in src.chunks_exact(chunk).enumerate() {
            let dst = &mut self.comp[i * slot..(i + 1) * slot];
            // SAFETY: buffers are valid for the sizes passed.
            let n = unsafe {
                (self.api.compress_ctx)(
                    self.cctx,
                    s.as_ptr().cast(),
                    chunk as i32,
                    dst.as_mut_ptr().cast(),
                    slot as i32,
                )
            };
            if n <= 0 {
                die(&format!("{label}: {} compress returned {n}", self.api.name));
            }
            self.csizes[i] = n;
        }
    }

    fn decompress_all_with(&self, api: &Api, dctx: Ctx, out: &mut [u8], chunk: usize, label: &str) {
        let slot = chunk + MAX_OVERHEAD;
        for (i, d) in out.chunks_exact_mut(chunk).enumerate() {
            let c = &self.comp[i * slot..];
            // SAFETY: buffers are valid for the sizes passed.
            let n = unsafe {
                (api.decompress_ctx)(
                    dctx,
                    c.as_ptr().cast(),
                    self.csizes[i],
                    d.as_mut_ptr().cast(),
                    chunk as i32,
                )
            };
            if n != chunk as i32 {
                die(&format!(
                    "{label}: {} decompress of {}'s chunk returned {n}, expected {chunk}",
                    api.name, self.api.name
                ));
            }
        }
    }

    fn decompress_all(&mut self, chunk: usize, label: &str) {
        let mut out = std::mem::take(&mut self.decomp);
        self.decompress_all_with(self.api, self.dctx, &mut out, chunk, label);
        self.decomp = out;
    }

    fn compressed_bytes(&self) -> usize {
        self.csizes.iter().map(|&n| n as usize).sum()
    }

    fn check(&self, src: &[u8], label: &str, when: &str) {
        if *self.decomp != *src {
            let pos = self
                .decomp
                .iter()
                .zip(src)
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            die(&format!(
                "ROUND TRIP MISMATCH ({when}) {label}: {} decoded its own chunks wrongly, first bad byte at {pos}",
                self.api.name
            ));
        }
    }
}

impl Drop for Run<'_> {
    fn drop(&mut self) {
        // SAFETY: contexts were created by this library and are freed once.
        unsafe {
            (self.api.free_ctx)(self.cctx);
            (self.api.free_ctx)(self.dctx);
        }
    }
}

fn time_it(iters: usize, mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..iters {
        f();
    }
    t.elapsed().as_secs_f64() / iters as f64
}

fn iters_for(one_call: f64, min_secs: f64) -> usize {
    ((min_secs / one_call.max(1e-7)).ceil() as usize).clamp(1, 10_000)
}

struct Row {
    dataset: &'static str,
    codec: &'static str,
    filter: &'static str,
    clevel: u8,
    nthreads: i16,
    chunk: usize,
    ratio_ours: f64,
    ratio_ref: f64,
    c_ours: f64, // GB/s
    c_ref: f64,
    d_ours: f64,
    d_ref: f64,
    interop_ok: bool,
}

impl Row {
    fn c_rel(&self) -> f64 {
        self.c_ours / self.c_ref
    }
    fn d_rel(&self) -> f64 {
        self.d_ours / self.d_ref
    }
}

#[allow(clippy::too_many_arguments)]
fn bench_config(
    o: &Opts,
    apis: [&Api; 2],
    ds: &Dataset,
    codec: (&'static str, u8),
    filter: (&'static str, u8),
    clevel: u8,
    nthreads: i16,
    chunk: usize,
    label: &str,
) -> Row {
    let nchunks = DATA_BYTES / chunk;
    let mut filters = [0u8; MAX_FILTERS];
    filters[MAX_FILTERS - 1] = filter.1;
    let cp = Cparams {
        compcode: codec.1,
        compcode_meta: 0,
        clevel,
        use_dict: 0,
        typesize: ds.typesize,
        nthreads,
        blocksize: 0,
        splitmode: FORWARD_COMPAT_SPLIT,
        schunk: std::ptr::null_mut(),
        filters,
        filters_meta: [0; MAX_FILTERS],
        prefilter: std::ptr::null_mut(),
        preparams: std::ptr::null_mut(),
        tuner_params: std::ptr::null_mut(),
        tuner_id: 0,
        instr_codec: false,
        codec_params: std::ptr::null_mut(),
        filter_params: [std::ptr::null_mut(); MAX_FILTERS],
    };
    let dp = Dparams {
        nthreads,
        schunk: std::ptr::null_mut(),
        postfilter: std::ptr::null_mut(),
        postparams: std::ptr::null_mut(),
        typesize: ds.typesize,
    };
    // runs[0] = reference, runs[1] = ours
    let mut runs = [
        Run::new(apis[0], cp, dp, nchunks, chunk),
        Run::new(apis[1], cp, dp, nchunks, chunk),
    ];
    let src = &ds.data[..];

    // Warm-up pass: also sizes the inner loops and checks the round trips.
    let mut first_c = [0.0f64; 2];
    let mut first_d = [0.0f64; 2];
    for (k, r) in runs.iter_mut().enumerate() {
        first_c[k] = time_it(1, || r.compress_all(src, chunk, label));
        first_d[k] = time_it(1, || r.decompress_all(chunk, label));
        r.check(src, label, "warm-up");
    }
    // Interop (not timed): each library decodes the other's chunks.
    let mut interop_ok = true;
    for k in 0..2 {
        let mut out = vec![0u8; DATA_BYTES];
        runs[k].decompress_all_with(runs[1 - k].api, runs[1 - k].dctx, &mut out, chunk, label);
        if out != src {
            interop_ok = false;
            eprintln!(
                "WARNING: {label}: {} cannot decode {}'s chunks correctly",
                runs[1 - k].api.name,
                runs[k].api.name
            );
        }
    }
    let c_iters = iters_for(first_c[0].min(first_c[1]), o.min_rep_secs);
    let d_iters = iters_for(first_d[0].min(first_d[1]), o.min_rep_secs);
    // Slow configurations (lz4hc/zlib/zstd at high clevels) get fewer
    // compression repetitions; decompression, much faster, always gets all
    // of them (with two, its minimum moved by 10-20% on a busy VM).
    let slowest = first_c[0].max(first_c[1]);
    let reps = if slowest > 0.150 {
        o.reps.min(2)
    } else if slowest > 0.060 {
        o.reps.min(3)
    } else {
        o.reps
    };
    // With --once-ms, a compression pass that slow is timed in one
    // repetition, and the warm-up pass (whose first-call costs are small
    // against it, the buffers being touched already) counts as a second.
    let c_reps = if slowest > o.once_secs {
        for (k, r) in runs.iter_mut().enumerate() {
            r.best_c = first_c[k];
        }
        reps.min(1)
    } else {
        reps
    };

    for rep in 0..o.reps {
        if rep > 0 {
            exchange_buffers(&mut runs);
        }
        // Alternate which library goes first: ref, ours, ours, ref, ...
        let order: [usize; 2] = if rep % 2 == 0 { [0, 1] } else { [1, 0] };
        for &k in &order {
            if rep >= c_reps {
                break;
            }
            let r = &mut runs[k];
            let t = time_it(c_iters, || r.compress_all(src, chunk, label));
            r.best_c = r.best_c.min(t);
        }
        for &k in &order {
            let r = &mut runs[k];
            let t = time_it(d_iters, || r.decompress_all(chunk, label));
            r.best_d = r.best_d.min(t);
        }
    }
    for r in &runs {
        r.check(src, label, "after timing");
    }
    let gbs = |secs: f64| DATA_BYTES as f64 / secs / 1e9;
    Row {
        dataset: ds.name,
        codec: codec.0,
        filter: filter.0,
        clevel,
        nthreads,
        chunk,
        ratio_ref: DATA_BYTES as f64 / runs[0].compressed_bytes() as f64,
        ratio_ours: DATA_BYTES as f64 / runs[1].compressed_bytes() as f64,
        c_ref: gbs(runs[0].best_c),
        c_ours: gbs(runs[1].best_c),
        d_ref: gbs(runs[0].best_d),
        d_ours: gbs(runs[1].best_d),
        interop_ok,
    }
}

/// Give each library the other's buffers for the next repetition, each
/// keeping its own chunks (copied across): where the buffers lie in memory
/// (their cache sets and physical pages) moved every memory-bound row of a
/// run by the same few percent for one library, and by another amount in the
/// next run (2-core VM: one-thread decompression of 64 KiB chunks at 0.96
/// then 1.01 of the reference across all rows, same binaries). With the
/// buffers exchanged between repetitions, each library's best time comes
/// from the same placements.
fn exchange_buffers(runs: &mut [Run; 2]) {
    let [a, b] = runs;
    std::mem::swap(&mut a.comp, &mut b.comp);
    std::mem::swap(&mut a.decomp, &mut b.decomp);
    // The chunks go back to the library that wrote them (and whose
    // `csizes` describe them).
    for (x, y) in a.comp.iter_mut().zip(b.comp.iter_mut()) {
        std::mem::swap(x, y);
    }
}

/// What identifies a run: the command line, the UTC time, the commit, the
/// CPU and the load average when it started.
fn run_header() -> String {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let secs = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (proleptic Gregorian calendar).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    let dirty = std::process::Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .is_some_and(|o| !o.stdout.is_empty());
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    format!(
        "# libblosc2-rs vs reference c-blosc2 3.3.5 -- cargo bench --bench vs_reference -- {}\n\
         # date: {year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC, commit {commit}{}, {cores} cores ({cpu}), load at start: {load}",
        args.join(" "),
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        if dirty { " (with uncommitted changes)" } else { "" },
    )
}

/// memcpy over the same buffer, in the same chunking: the ceiling.
fn memcpy_gbs(src: &[u8], chunk: usize, reps: usize) -> f64 {
    let mut dst = vec![0x11u8; src.len()];
    let mut best = f64::INFINITY;
    let iters = 20;
    for _ in 0..reps.max(3) {
        let t = time_it(iters, || {
            for (d, s) in dst.chunks_exact_mut(chunk).zip(src.chunks_exact(chunk)) {
                d.copy_from_slice(s);
            }
            std::hint::black_box(&mut dst);
        });
        best = best.min(t);
    }
    src.len() as f64 / best / 1e9
}

// ---------------------------------------------------------------------------
// Reporting

/// Speed with N threads over speed with one thread, for each library, over
/// the rows measured both ways (same dataset, codec, filter, clevel, chunk);
/// then again over the rows whose one-thread decompression, in both
/// libraries, runs below half the memcpy ceiling of their buffers: a row
/// already near the ceiling with one thread has nowhere to scale to, and
/// the faster one library's single thread gets there, the lower its
/// all-rows figure drops.  Then the compression of issue 21's compute-bound
/// rows (zstd, zlib and lz4hc at clevel 5 or more), with this count's
/// speed against the reference's, and split by how the two one-thread
/// compressions compare: within 10% of each other (both do about the same
/// work per block, so the scaling compares the threading), or ours faster
/// (it skips work: stored stretches, another deflate; its blocks then take
/// too little time for the threads to pay as much, whatever the threading).
fn print_thread_scaling(rows: &[Row], memcpys: &[(&str, usize, f64)]) {
    let mut counts: Vec<i16> = rows.iter().map(|r| r.nthreads).filter(|&t| t > 1).collect();
    counts.sort_unstable();
    counts.dedup();
    let mut chunks: Vec<usize> = rows.iter().map(|r| r.chunk).collect();
    chunks.sort_unstable();
    chunks.dedup();
    for &t in &counts {
        for &c in &chunks {
            let pairs: Vec<(&Row, &Row)> = rows
                .iter()
                .filter(|r| r.nthreads == t && r.chunk == c)
                .filter_map(|r| {
                    rows.iter()
                        .find(|o| {
                            o.nthreads == 1
                                && o.chunk == c
                                && o.dataset == r.dataset
                                && o.codec == r.codec
                                && o.filter == r.filter
                                && o.clevel == r.clevel
                        })
                        .map(|o| (o, r))
                })
                .collect();
            if pairs.is_empty() {
                continue;
            }
            let ceiling = |r: &Row| {
                memcpys
                    .iter()
                    .find(|m| m.0 == r.dataset && m.1 == r.chunk)
                    .map_or(f64::INFINITY, |m| m.2)
            };
            let bound: Vec<(&Row, &Row)> = pairs
                .iter()
                .copied()
                .filter(|(one, _)| one.d_ours.max(one.d_ref) < 0.5 * ceiling(one))
                .collect();
            for (what, set) in [("", &pairs), (", compute-bound", &bound)] {
                if set.is_empty() {
                    continue;
                }
                let g = |f: fn(&Row) -> f64| geomean(set.iter().map(|(one, n)| f(n) / f(one)));
                println!(
                    "Thread scaling {}/t{t} over t1 ({} rows{what}, geomean): ours compression {:.2}x decompression {:.2}x; \
                     reference compression {:.2}x decompression {:.2}x",
                    chunk_label(c),
                    set.len(),
                    g(|r| r.c_ours),
                    g(|r| r.d_ours),
                    g(|r| r.c_ref),
                    g(|r| r.d_ref),
                );
            }
            print_heavy_scaling(&pairs, &chunk_label(c), t);
        }
    }
}

/// The compression part of [`print_thread_scaling`] for issue 21's
/// compute-bound rows (`pairs`: one-thread row, `t`-thread row).
fn print_heavy_scaling(pairs: &[(&Row, &Row)], chunk: &str, t: i16) {
    let heavy = |r: &Row| matches!(r.codec, "zstd" | "zlib" | "lz4hc") && r.clevel >= 5;
    type Pairs<'a> = Vec<(&'a Row, &'a Row)>;
    let all: Pairs = pairs
        .iter()
        .copied()
        .filter(|(one, _)| heavy(one))
        .collect();
    let (alike, faster): (Pairs, Pairs) = all.iter().partition(|(one, _)| one.c_rel() <= 1.1);
    for (what, set) in [
        ("", &all),
        (", one-thread ours/ref <= 1.10", &alike),
        (", one-thread ours/ref > 1.10", &faster),
    ] {
        if set.is_empty() {
            continue;
        }
        let g = |f: &dyn Fn(&Row, &Row) -> f64| geomean(set.iter().map(|(one, n)| f(one, n)));
        println!(
            "Compression scaling {chunk}/t{t} over t1, zstd/zlib/lz4hc at clevel >= 5 ({} rows{what}, geomean): \
             ours {:.2}x, reference {:.2}x; ours/ref at t1 {:.3}, at t{t} {:.3}",
            set.len(),
            g(&|one, n| n.c_ours / one.c_ours),
            g(&|one, n| n.c_ref / one.c_ref),
            g(&|one, _| one.c_rel()),
            g(&|_, n| n.c_rel()),
        );
    }
}

/// For each thread count, one table of the codec+filter groups: ours/ref for
/// compression and decompression per chunk size, and (above one thread) each
/// library's speed at that count over its own one-thread speed, geomean over
/// the rows measured at both.
fn print_per_thread_groups(rows: &[Row], threads: &[i16], chunks: &[usize]) {
    let one = |r: &Row| {
        rows.iter().find(|o| {
            o.nthreads == 1
                && o.chunk == r.chunk
                && o.dataset == r.dataset
                && o.codec == r.codec
                && o.filter == r.filter
                && o.clevel == r.clevel
        })
    };
    let mut keys: Vec<(String, Option<(&str, &str)>)> = Vec::new();
    for codec in CODECS {
        for filter in FILTERS {
            keys.push((
                format!("{}+{}", codec.0, filter.0),
                Some((codec.0, filter.0)),
            ));
        }
    }
    keys.push(("all".into(), None));
    for &t in threads {
        println!();
        println!(
            "Per group at {t} thread{}: ours/ref comp/decomp{}",
            if t == 1 { "" } else { "s" },
            if t > 1 {
                format!("; scaling t{t}/t1 comp and decomp for ours | ref")
            } else {
                String::new()
            }
        );
        let mut hdr = format!("{:<22}", "group");
        for &c in chunks {
            let _ = write!(hdr, "  {:>15}", format!("{} c/d", chunk_label(c)));
            if t > 1 {
                let _ = write!(
                    hdr,
                    "  {:>27}",
                    format!("{} scale ours | ref", chunk_label(c))
                );
            }
        }
        println!("{hdr}");
        for (key, sel) in &keys {
            let mut line = format!("{key:<22}");
            let mut any = false;
            let mut slower = false;
            for &c in chunks {
                let set: Vec<&Row> = rows
                    .iter()
                    .filter(|r| r.nthreads == t && r.chunk == c)
                    .filter(|r| sel.is_none_or(|(co, fi)| r.codec == co && r.filter == fi))
                    .collect();
                if set.is_empty() {
                    let _ = write!(line, "  {:>15}", "-");
                    if t > 1 {
                        let _ = write!(line, "  {:>27}", "-");
                    }
                    continue;
                }
                any = true;
                let (gc, gd) = (
                    geomean(set.iter().map(|r| r.c_rel())),
                    geomean(set.iter().map(|r| r.d_rel())),
                );
                slower |= gc < 1.0 || gd < 1.0;
                let _ = write!(line, "  {:>7.3}/{:<7.3}", gc, gd);
                if t > 1 {
                    let pairs: Vec<(&Row, &Row)> =
                        set.iter().filter_map(|r| one(r).map(|o| (o, *r))).collect();
                    if pairs.is_empty() {
                        let _ = write!(line, "  {:>27}", "-");
                    } else {
                        let g =
                            |f: fn(&Row) -> f64| geomean(pairs.iter().map(|(o, r)| f(r) / f(o)));
                        let _ = write!(
                            line,
                            "  {:>6.2} {:>6.2} | {:>5.2} {:>5.2}",
                            g(|r| r.c_ours),
                            g(|r| r.d_ours),
                            g(|r| r.c_ref),
                            g(|r| r.d_ref)
                        );
                    }
                }
            }
            if !any {
                continue;
            }
            if slower {
                line.push_str("  <-- slower");
            }
            println!("{line}");
        }
    }
}

fn geomean(v: impl IntoIterator<Item = f64>) -> f64 {
    let (mut s, mut n) = (0.0, 0usize);
    for x in v {
        s += x.ln();
        n += 1;
    }
    if n == 0 {
        f64::NAN
    } else {
        (s / n as f64).exp()
    }
}

fn chunk_label(c: usize) -> String {
    if c.is_multiple_of(MIB) {
        format!("{}M", c / MIB)
    } else {
        format!("{}K", c / 1024)
    }
}

const ROW_HEADER: &str = "dataset            codec   filter     cl th chunk  ratio:ours    ref  comp:ours/ref  ours GB/s  ref GB/s  decomp:ours/ref  ours GB/s  ref GB/s";

fn row_text(r: &Row) -> String {
    format!(
        "{:<18} {:<7} {:<10} {:>2} {:>2} {:>5}  {:>10.2} {:>6.2}  {:>13.3}  {:>9.3} {:>9.3}  {:>15.3}  {:>9.3} {:>9.3}{}{}",
        r.dataset,
        r.codec,
        r.filter,
        r.clevel,
        r.nthreads,
        chunk_label(r.chunk),
        r.ratio_ours,
        r.ratio_ref,
        r.c_rel(),
        r.c_ours,
        r.c_ref,
        r.d_rel(),
        r.d_ours,
        r.d_ref,
        if (r.ratio_ours / r.ratio_ref - 1.0).abs() > 0.01 { "  ratio>1%" } else { "" },
        if r.interop_ok { "" } else { "  INTEROP-FAIL" },
    )
}

fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn json_num(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.6}")
    } else {
        "null".into()
    }
}

struct Group {
    key: String,
    c: f64,
    d: f64,
    n: usize,
    per_setting: Vec<(String, f64, f64)>,
}

fn groups(rows: &[Row], settings: &[(i16, usize)]) -> Vec<Group> {
    let mut out = Vec::new();
    for codec in CODECS {
        for filter in FILTERS {
            let g: Vec<&Row> = rows
                .iter()
                .filter(|r| r.codec == codec.0 && r.filter == filter.0)
                .collect();
            if g.is_empty() {
                continue;
            }
            let per_setting = settings
                .iter()
                .map(|&(t, c)| {
                    let s: Vec<&&Row> = g
                        .iter()
                        .filter(|r| r.nthreads == t && r.chunk == c)
                        .collect();
                    (
                        format!("{}/t{}", chunk_label(c), t),
                        geomean(s.iter().map(|r| r.c_rel())),
                        geomean(s.iter().map(|r| r.d_rel())),
                    )
                })
                .collect();
            out.push(Group {
                key: format!("{}+{}", codec.0, filter.0),
                c: geomean(g.iter().map(|r| r.c_rel())),
                d: geomean(g.iter().map(|r| r.d_rel())),
                n: g.len(),
                per_setting,
            });
        }
    }
    out
}

fn newest_mtime(dir: &Path) -> Option<SystemTime> {
    let mut best: Option<SystemTime> = None;
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let p = e.path();
        let t = if p.is_dir() {
            newest_mtime(&p)
        } else {
            e.metadata().ok().and_then(|m| m.modified().ok())
        };
        if let Some(t) = t {
            best = Some(best.map_or(t, |b| b.max(t)));
        }
    }
    best
}

fn main() {
    let o = parse_opts();
    for (what, p) in [("reference", &o.ref_path), ("ours", &o.ours_path)] {
        if !p.exists() {
            die(&format!(
                "{what} library not found at {} (run scripts/fetch-reference.sh and cargo build --release)",
                p.display()
            ));
        }
    }
    // `cargo bench` does not rebuild the cdylib for us: warn on a stale one.
    let src_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    if let (Some(src_t), Ok(lib_t)) = (
        newest_mtime(&src_dir),
        std::fs::metadata(&o.ours_path).and_then(|m| m.modified()),
    ) {
        if src_t > lib_t {
            eprintln!(
                "WARNING: {} is older than src/ -- run `cargo build --release` first",
                o.ours_path.display()
            );
        }
    }
    let reference = Api::load("ref", &o.ref_path);
    let ours = Api::load("ours", &o.ours_path);
    let apis = [&reference, &ours];
    let sets = datasets();
    let t0 = Instant::now();

    if !o.json {
        println!("{}", run_header());
        println!("# reference: {}", reference.path.display());
        println!("# ours:      {}", ours.path.display());
        println!(
            "# reps {} (min kept, >= {:.0} ms per timed rep; compression <= 3 reps when a compression call takes > 60 ms, <= 2 when > 150 ms{}), clevels {:?}, threads {:?}, chunks {:?}",
            o.reps,
            o.min_rep_secs * 1e3,
            if o.once_secs.is_finite() {
                format!("; compression timed in the warm-up and one rep when a pass takes > {:.0} ms", o.once_secs * 1e3)
            } else {
                String::new()
            },
            o.clevels,
            o.threads,
            o.chunks.iter().map(|&c| chunk_label(c)).collect::<Vec<_>>()
        );
        println!(
            "# speed = uncompressed bytes / time (GB = 1e9 B); ratio = uncompressed / compressed"
        );
        println!();
        println!("memcpy ceiling (same buffers, same chunking):");
    }
    let mut memcpys = Vec::new();
    for ds in &sets {
        for &c in &o.chunks {
            let g = memcpy_gbs(&ds.data, c, o.reps);
            memcpys.push((ds.name, c, g));
            if !o.json {
                println!(
                    "  {:<18} chunk {:>4}: {:>7.2} GB/s",
                    ds.name,
                    chunk_label(c),
                    g
                );
            }
        }
    }
    if !o.json {
        println!();
        println!("{ROW_HEADER}");
    }

    let mut rows = Vec::new();
    let mut skipped = 0usize;
    for &chunk in &o.chunks {
        for &nthreads in &o.threads {
            for codec in CODECS {
                for filter in FILTERS {
                    for ds in &sets {
                        for &clevel in &o.clevels {
                            let label = format!(
                                "{}/{}/{}/cl{}/t{}/{}",
                                ds.name,
                                codec.0,
                                filter.0,
                                clevel,
                                nthreads,
                                chunk_label(chunk)
                            );
                            // Every --filter must match; `a|b` matches either.
                            let matches = |f: &String| f.split('|').any(|alt| label.contains(alt));
                            if !o.filters.iter().all(matches) {
                                continue;
                            }
                            if t0.elapsed().as_secs_f64() > o.budget_secs {
                                skipped += 1;
                                continue;
                            }
                            let r = bench_config(
                                &o, apis, ds, codec, filter, clevel, nthreads, chunk, &label,
                            );
                            if o.json {
                                eprintln!("{label}: comp {:.3} decomp {:.3}", r.c_rel(), r.d_rel());
                            } else {
                                println!("{}", row_text(&r));
                            }
                            rows.push(r);
                        }
                    }
                }
            }
        }
    }
    if rows.is_empty() {
        die("no configuration matched the filter");
    }
    let elapsed = t0.elapsed().as_secs_f64();
    if skipped > 0 {
        eprintln!(
            "vs_reference: budget of {} s spent: {skipped} configurations not run",
            o.budget_secs
        );
    }

    let mut settings = Vec::new();
    for &c in &o.chunks {
        for &t in &o.threads {
            settings.push((t, c));
        }
    }
    let gs = groups(&rows, &settings);
    let all_c = geomean(rows.iter().map(|r| r.c_rel()));
    let all_d = geomean(rows.iter().map(|r| r.d_rel()));
    let all_cd = geomean(rows.iter().flat_map(|r| [r.c_rel(), r.d_rel()]));
    let ratio_off: Vec<&Row> = rows
        .iter()
        .filter(|r| r.codec != "zlib" && (r.ratio_ours / r.ratio_ref - 1.0).abs() > 0.01)
        .collect();
    let interop_bad = rows.iter().filter(|r| !r.interop_ok).count();

    if o.json {
        let mut j = String::from("{\n  \"memcpy\": [");
        for (i, (n, c, g)) in memcpys.iter().enumerate() {
            let _ = write!(
                j,
                "{}\n    {{\"dataset\": {}, \"chunk\": {}, \"gbps\": {}}}",
                if i > 0 { "," } else { "" },
                json_str(n),
                c,
                json_num(*g)
            );
        }
        j.push_str("\n  ],\n  \"rows\": [");
        for (i, r) in rows.iter().enumerate() {
            let _ = write!(
                j,
                "{}\n    {{\"dataset\": {}, \"codec\": {}, \"filter\": {}, \"clevel\": {}, \"nthreads\": {}, \"chunk\": {}, \
                 \"ratio_ours\": {}, \"ratio_ref\": {}, \"comp_gbps_ours\": {}, \"comp_gbps_ref\": {}, \
                 \"decomp_gbps_ours\": {}, \"decomp_gbps_ref\": {}, \"comp_rel\": {}, \"decomp_rel\": {}, \"interop_ok\": {}}}",
                if i > 0 { "," } else { "" },
                json_str(r.dataset),
                json_str(r.codec),
                json_str(r.filter),
                r.clevel,
                r.nthreads,
                r.chunk,
                json_num(r.ratio_ours),
                json_num(r.ratio_ref),
                json_num(r.c_ours),
                json_num(r.c_ref),
                json_num(r.d_ours),
                json_num(r.d_ref),
                json_num(r.c_rel()),
                json_num(r.d_rel()),
                r.interop_ok
            );
        }
        j.push_str("\n  ],\n  \"groups\": [");
        for (i, g) in gs.iter().enumerate() {
            let _ = write!(
                j,
                "{}\n    {{\"group\": {}, \"rows\": {}, \"comp_rel\": {}, \"decomp_rel\": {}, \"by_setting\": {{",
                if i > 0 { "," } else { "" },
                json_str(&g.key),
                g.n,
                json_num(g.c),
                json_num(g.d)
            );
            for (k, (s, c, d)) in g.per_setting.iter().enumerate() {
                let _ = write!(
                    j,
                    "{}{}: {{\"comp_rel\": {}, \"decomp_rel\": {}}}",
                    if k > 0 { ", " } else { "" },
                    json_str(s),
                    json_num(*c),
                    json_num(*d)
                );
            }
            j.push_str("}}");
        }
        let _ = write!(
            j,
            "\n  ],\n  \"overall\": {{\"comp_rel\": {}, \"decomp_rel\": {}, \"both_rel\": {}, \"rows\": {}, \
             \"ratio_off_rows\": {}, \"interop_fail_rows\": {}, \"seconds\": {}}}\n}}",
            json_num(all_c),
            json_num(all_d),
            json_num(all_cd),
            rows.len(),
            ratio_off.len(),
            interop_bad,
            json_num(elapsed)
        );
        println!("{j}");
        return;
    }

    println!();
    println!("Geometric means of ours/ref speed per codec+filter group (over datasets and clevels; > 1 = ours faster)");
    let mut hdr = format!(
        "{:<20} {:>4}  {:>6} {:>6}",
        "group", "rows", "comp", "decomp"
    );
    for (s, _, _) in &gs[0].per_setting {
        let _ = write!(hdr, "  {:>15}", format!("{s} c/d"));
    }
    println!("{hdr}");
    for g in &gs {
        let mut line = format!("{:<20} {:>4}  {:>6.3} {:>6.3}", g.key, g.n, g.c, g.d);
        for (_, c, d) in &g.per_setting {
            let _ = write!(line, "  {:>7.3}/{:<7.3}", c, d);
        }
        if g.c < 1.0 || g.d < 1.0 {
            line.push_str("  <-- slower");
        }
        println!("{line}");
    }
    println!();
    println!(
        "Overall geometric mean ours/ref: compression {all_c:.3}, decompression {all_d:.3}, both {all_cd:.3} ({} rows)",
        rows.len()
    );
    for &(t, c) in &settings {
        let s: Vec<&Row> = rows
            .iter()
            .filter(|r| r.nthreads == t && r.chunk == c)
            .collect();
        println!(
            "  {}/t{}: compression {:.3} decompression {:.3}; absolute geomean GB/s comp ours {:.3} ref {:.3}, decomp ours {:.3} ref {:.3}",
            chunk_label(c),
            t,
            geomean(s.iter().map(|r| r.c_rel())),
            geomean(s.iter().map(|r| r.d_rel())),
            geomean(s.iter().map(|r| r.c_ours)),
            geomean(s.iter().map(|r| r.c_ref)),
            geomean(s.iter().map(|r| r.d_ours)),
            geomean(s.iter().map(|r| r.d_ref)),
        );
    }
    println!(
        "memcpy ceiling: geomean {:.2} GB/s over the same buffers",
        geomean(memcpys.iter().map(|m| m.2))
    );
    print_thread_scaling(&rows, &memcpys);
    print_per_thread_groups(&rows, &o.threads, &o.chunks);
    println!(
        "Compression ratio differing by > 1% from the reference (blosclz/lz4/lz4hc/zstd rows): {}",
        ratio_off.len()
    );
    for r in ratio_off.iter().take(20) {
        println!("  {}", row_text(r));
    }
    println!("Interop failures (one library cannot decode the other's chunks): {interop_bad}");
    let mut worst: Vec<&Row> = rows.iter().collect();
    worst.sort_by(|a, b| (a.c_rel().min(a.d_rel())).total_cmp(&b.c_rel().min(b.d_rel())));
    println!("Slowest rows (min of comp/decomp ours/ref):");
    for r in worst.iter().take(10) {
        println!("  {}", row_text(r));
    }
    if skipped > 0 {
        println!(
            "BUDGET: {skipped} configurations not run (--budget {} s spent); the tables above cover the rows printed only",
            o.budget_secs
        );
    }
    println!("All round trips verified. Elapsed {elapsed:.1} s.");
}
