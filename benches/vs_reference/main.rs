//! Speed and ratio of our libblosc2.so against the reference c-blosc2 3.3.5.
//!
//! Both shared libraries are opened by path (each its own RTLD_LOCAL handle) and
//! driven through the very same code below, via the public C ABI only:
//! `blosc2_init`, `blosc2_create_cctx`/`blosc2_create_dctx`,
//! `blosc2_compress_ctx`, `blosc2_decompress_ctx`, `blosc2_free_ctx`.
//! Runs are interleaved (ref, ours, ours, ref, ...) and the minimum time per
//! call is kept. See benches/README.md for the options and the columns.

mod api;
mod datasets;
mod opts;
mod report;

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Instant, SystemTime};

use api::{Api, Cparams, Ctx, Dparams, FORWARD_COMPAT_SPLIT, MAX_FILTERS, MAX_OVERHEAD};
use datasets::{datasets, Dataset};
use opts::{die, parse_opts, Opts, CODECS, DATA_BYTES, FILTERS};
use report::{
    chunk_label, geomean, groups, json_num, json_str, print_per_thread_groups,
    print_thread_scaling, row_text, run_header, Row, ROW_HEADER,
};

/// Both libraries get their buffers placed alike, each at a page boundary,
/// so that neither is timed with a luckier layout than the other (where
/// plain heap allocations landed relative to each other, and to the shared
/// input, moved identical code by up to 1.4x between the two columns).
#[path = "../common/page_buf.rs"]
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
