//! Configuration: the codecs, filters and data size measured, and the
//! command-line and environment options (`Opts`, `parse_opts`).

use std::path::{Path, PathBuf};
use std::process::exit;

pub(crate) const CODECS: [(&str, u8); 5] = [
    ("blosclz", 0),
    ("lz4", 1),
    ("lz4hc", 2),
    ("zlib", 4),
    ("zstd", 5),
];
pub(crate) const FILTERS: [(&str, u8); 3] = [("noshuffle", 0), ("shuffle", 1), ("bitshuffle", 2)];
pub(crate) const MIB: usize = 1 << 20;
pub(crate) const DATA_BYTES: usize = 4 * MIB;

pub(crate) struct Opts {
    quick: bool,
    pub(crate) json: bool,
    pub(crate) filters: Vec<String>,
    pub(crate) reps: usize,
    pub(crate) min_rep_secs: f64,
    /// A compression pass slower than this is timed by the warm-up and one repetition.
    pub(crate) once_secs: f64,
    /// Start no configuration after this many seconds.
    pub(crate) budget_secs: f64,
    pub(crate) clevels: Vec<u8>,
    pub(crate) threads: Vec<i16>,
    pub(crate) chunks: Vec<usize>,
    pub(crate) ref_path: PathBuf,
    pub(crate) ours_path: PathBuf,
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

pub(crate) fn die(msg: &str) -> ! {
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

pub(crate) fn parse_opts() -> Opts {
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
