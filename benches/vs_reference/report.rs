//! Reporting: the result `Row`, the run header, the summary tables, the
//! row text and the JSON helpers.

use std::fmt::Write as _;
use std::time::SystemTime;

use crate::opts::{CODECS, FILTERS, MIB};

pub(crate) struct Row {
    pub(crate) dataset: &'static str,
    pub(crate) codec: &'static str,
    pub(crate) filter: &'static str,
    pub(crate) clevel: u8,
    pub(crate) nthreads: i16,
    pub(crate) chunk: usize,
    pub(crate) ratio_ours: f64,
    pub(crate) ratio_ref: f64,
    pub(crate) c_ours: f64, // GB/s
    pub(crate) c_ref: f64,
    pub(crate) d_ours: f64,
    pub(crate) d_ref: f64,
    pub(crate) interop_ok: bool,
}

impl Row {
    pub(crate) fn c_rel(&self) -> f64 {
        self.c_ours / self.c_ref
    }
    pub(crate) fn d_rel(&self) -> f64 {
        self.d_ours / self.d_ref
    }
}

/// What identifies a run: the command line, the UTC time, the commit, the
/// CPU and the load average when it started.
pub(crate) fn run_header() -> String {
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
pub(crate) fn print_thread_scaling(rows: &[Row], memcpys: &[(&str, usize, f64)]) {
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
pub(crate) fn print_per_thread_groups(rows: &[Row], threads: &[i16], chunks: &[usize]) {
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

pub(crate) fn geomean(v: impl IntoIterator<Item = f64>) -> f64 {
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

pub(crate) fn chunk_label(c: usize) -> String {
    if c.is_multiple_of(MIB) {
        format!("{}M", c / MIB)
    } else {
        format!("{}K", c / 1024)
    }
}

pub(crate) const ROW_HEADER: &str = "dataset            codec   filter     cl th chunk  ratio:ours    ref  comp:ours/ref  ours GB/s  ref GB/s  decomp:ours/ref  ours GB/s  ref GB/s";

pub(crate) fn row_text(r: &Row) -> String {
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

pub(crate) fn json_str(s: &str) -> String {
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

pub(crate) fn json_num(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.6}")
    } else {
        "null".into()
    }
}

pub(crate) struct Group {
    pub(crate) key: String,
    pub(crate) c: f64,
    pub(crate) d: f64,
    pub(crate) n: usize,
    pub(crate) per_setting: Vec<(String, f64, f64)>,
}

pub(crate) fn groups(rows: &[Row], settings: &[(i16, usize)]) -> Vec<Group> {
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
