//! Speed of the shuffle kernels on their own, against memcpy and against the
//! reference's exported `blosc2_shuffle` family, on the same 4 MiB buffers.
//!
//! Ours is called through the crate (every kernel this CPU can run, the
//! dispatched one marked); the reference through `dlopen` of
//! `.ref/blosc2/lib/libblosc2.so.9` (or `BLOSC2_REF_LIB`; skipped when
//! absent).  Each figure is the best of several timed passes.
//!
//! ```sh
//! cargo bench --bench kernels                 # typesizes 2, 4, 8, 16
//! cargo bench --bench kernels -- 4 8 12       # chosen typesizes
//! ```

use std::ffi::c_void;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use blosc2::filter::kernels::{bitshuffle_with, bitunshuffle_with, shuffle_with, unshuffle_with};
use blosc2::filter::{active_kernel, Kernel};
use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};

const PASSES: usize = 9;

/// Buffer size: 4 MiB, or `KERNELS_LEN` bytes (say 65536, for a block that
/// stays in the cache as it does inside a chunk).
fn len() -> usize {
    static LEN: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *LEN.get_or_init(|| {
        std::env::var("KERNELS_LEN")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|&n: &usize| n >= 1024)
            .unwrap_or(4 << 20)
    })
}

/// Where every buffer starts: `KERNELS_OFFSET` bytes (default 0) past a
/// page boundary.  glibc's malloc puts a large block 16 bytes past one,
/// which splits every other 32-byte store across two cache lines and every
/// 64-byte one; whether a kernel copes with that is a question of its own.
fn offset() -> usize {
    std::env::var("KERNELS_OFFSET")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0usize)
        % 4096
}

#[path = "common/page_buf.rs"]
mod page_buf;
use page_buf::PageBuf;

/// A copy of `data` in a buffer starting [`offset`] bytes past a page
/// boundary.
fn placed(data: &[u8]) -> PageBuf {
    let mut b = PageBuf::new(data.len(), offset(), 0);
    b.copy_from_slice(data);
    b
}

/// Calls per timed pass: at least 4, and at least 16 MiB of work.
fn calls_per_pass() -> usize {
    ((16 << 20) / len()).max(4)
}

type RefFn = unsafe extern "C" fn(i32, i32, *const c_void, *mut c_void) -> i32;

/// Throughput in GB/s of one pass over the buffer.
fn gbs(secs: f64) -> f64 {
    len() as f64 / secs / 1e9
}

/// Best seconds per call of each function, timed in alternating passes so
/// that all see the same machine state (clock, caches, other load).
fn best_alternating(fs: &mut [&mut dyn FnMut()]) -> Vec<f64> {
    let mut best = vec![f64::INFINITY; fs.len()];
    for f in fs.iter_mut() {
        f();
    }
    for _ in 0..PASSES {
        for (f, b) in fs.iter_mut().zip(best.iter_mut()) {
            let calls = calls_per_pass();
            let t = Instant::now();
            for _ in 0..calls {
                f();
            }
            *b = b.min(t.elapsed().as_secs_f64() / calls as f64);
        }
    }
    best
}

/// Data with some structure (an int arange of the typesize, little endian).
fn dataset(ts: usize) -> Vec<u8> {
    let mut v = vec![0u8; len()];
    for (i, item) in v.chunks_mut(ts).enumerate() {
        for (k, b) in item.iter_mut().enumerate() {
            *b = (i.wrapping_mul(2654435761) >> (8 * (k % 4))) as u8;
        }
    }
    v
}

struct Reference {
    ops: [RefFn; 4],
    _lib: Library,
}

fn load_reference() -> Option<Reference> {
    let path = std::env::var_os("BLOSC2_REF_LIB")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".ref/blosc2/lib/libblosc2.so.9")
        });
    // SAFETY: loading the reference runs only its (trivial) initialisers.
    let lib = unsafe { Library::open(Some(&path), RTLD_NOW | RTLD_LOCAL) }.ok()?;
    let mut ops: Vec<RefFn> = Vec::new();
    for name in [
        &b"blosc2_shuffle\0"[..],
        b"blosc2_unshuffle\0",
        b"blosc2_bitshuffle\0",
        b"blosc2_bitunshuffle\0",
    ] {
        // SAFETY: the type mirrors the prototypes in include/blosc2.h.
        ops.push(*unsafe { lib.get::<RefFn>(name) }.ok()?);
    }
    Some(Reference {
        ops: [ops[0], ops[1], ops[2], ops[3]],
        _lib: lib,
    })
}

type OursFn = fn(Kernel, usize, &[u8], &mut [u8]);

fn main() {
    let mut typesizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .filter(|&t| (1..=256).contains(&t))
        .collect();
    if typesizes.is_empty() {
        typesizes = vec![2, 4, 8, 16];
    }
    let reference = load_reference();
    if reference.is_none() {
        eprintln!("reference library not found: run ./scripts/fetch-reference.sh");
    }
    let kernels = Kernel::supported();
    let active = active_kernel();
    let ops: [(&str, OursFn); 4] = [
        ("shuffle", shuffle_with),
        ("unshuffle", unshuffle_with),
        ("bitshuffle", |k, t, s, d| {
            bitshuffle_with(k, t, s, d).expect("typesize")
        }),
        ("bitunshuffle", |k, t, s, d| {
            bitunshuffle_with(k, t, s, d).expect("typesize")
        }),
    ];

    println!(
        "{} KiB buffers starting {} bytes past a page boundary, best of {PASSES} passes; \
         dispatched kernel: {}",
        len() >> 10,
        offset(),
        active.name()
    );
    println!(
        "memcpy and ref: the same input copied to another buffer, and the reference's \
         kernel, in passes alternating with the dispatched kernel's\n"
    );
    let mut header = format!("{:<13} {:>3} ", "op", "ts");
    for k in &kernels {
        header += &format!("{:>9}", k.name());
    }
    header += &format!(
        "{:>9} {:>9} {:>9} {:>9}",
        "ref", "memcpy", "ours/cpy", "ours/ref"
    );
    println!("{header}   (GB/s)");
    for &ts in &typesizes {
        let src = placed(&dataset(ts));
        let mut mid = PageBuf::new(len(), offset(), 0);
        let mut out = PageBuf::new(len(), offset(), 0);
        for (oi, (name, op)) in ops.iter().enumerate() {
            // Inverse ops read what the forward op wrote.
            let input = if oi % 2 == 1 {
                ops[oi - 1].1(active, ts, &src, &mut mid);
                placed(&mid)
            } else {
                placed(&src)
            };
            let mut line = format!("{name:<13} {ts:>3} ");
            let mut ours_active = f64::NAN;
            let mut memcpy = f64::NAN;
            let mut ref_g = f64::NAN;
            let mut copy_to = PageBuf::new(len(), offset(), 0);
            let mut ref_out = PageBuf::new(len(), offset(), 0);
            for &k in &kernels {
                let mut run_op = || {
                    op(k, ts, black_box(&input), &mut out);
                    black_box(&mut out);
                };
                let mut run_copy = || {
                    copy_to.copy_from_slice(black_box(&input));
                    black_box(&mut copy_to);
                };
                // The reference's kernel takes part in the alternation of the
                // dispatched one, on its own output buffer.
                let mut run_ref = || {
                    if let Some(r) = &reference {
                        // SAFETY: both buffers hold len() bytes.
                        let rc = unsafe {
                            r.ops[oi](
                                ts as i32,
                                len() as i32,
                                input.as_ptr() as *const c_void,
                                ref_out.as_mut_ptr() as *mut c_void,
                            )
                        };
                        assert_eq!(rc, len() as i32);
                        black_box(&mut ref_out);
                    }
                };
                let times = if k == active && reference.is_some() {
                    best_alternating(&mut [&mut run_op, &mut run_copy, &mut run_ref])
                } else {
                    best_alternating(&mut [&mut run_op, &mut run_copy])
                };
                let g = gbs(times[0]);
                if k == active {
                    ours_active = g;
                    memcpy = gbs(times[1]);
                    if let Some(&t) = times.get(2) {
                        ref_g = gbs(t);
                    }
                }
                line += &format!("{g:>9.2}");
            }
            line += &format!(
                "{ref_g:>9.2} {memcpy:>9.2} {:>9.3} {:>9.3}",
                ours_active / memcpy,
                ours_active / ref_g
            );
            println!("{line}");
        }
    }
}
