//! The zlib implementations side by side on whole Blosc-sized blocks: the
//! reference's zlib-ng (`zng_compress2` / `zng_uncompress`, exported by the
//! reference libblosc2.so.9), zlib-rs (fresh and kept streams) and libdeflate.
//! This is what `src/codec/zlib.rs` chooses its backends from.
//!
//! `cargo bench --bench zlib_backends [-- BLOCKSIZE]` (default 131072 bytes;
//! the reference library from `scripts/fetch-reference.sh` or BLOSC2_REF_LIB).
//! Times are the minimum of 9 passes over 4 MiB; ratios > 1 mean faster than zlib-ng.

use std::time::Instant;

type Compress2 = unsafe extern "C" fn(*mut u8, *mut usize, *const u8, usize, i32) -> i32;
type Uncompress = unsafe extern "C" fn(*mut u8, *mut usize, *const u8, usize) -> i32;

/// SplitMix64, so that the datasets are the same on every run.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn datasets() -> Vec<(String, Vec<u8>)> {
    let n = 1usize << 19;
    let mut s = 1u64;
    let noise: Vec<u8> = (0..n)
        .flat_map(|i| {
            let r = (next(&mut s) >> 11) as f64 / (1u64 << 53) as f64;
            (i as f64 * 100.0 / n as f64 + r * 1e-6).to_le_bytes()
        })
        .collect();
    let sparse: Vec<u8> = (0..n)
        .flat_map(|_| {
            let r = next(&mut s);
            (if r.is_multiple_of(100) {
                (r >> 40) as i64 % 1_000_000
            } else {
                0
            })
            .to_le_bytes()
        })
        .collect();
    let arange: Vec<u8> = (0..2 * n as i32).flat_map(|i| i.to_le_bytes()).collect();
    vec![
        ("f64-linspace-noise".to_string(), noise),
        ("i64-mostly-zero".to_string(), sparse),
        ("i32-arange".to_string(), arange),
    ]
}

/// Each dataset also byte-shuffled with typesize 8 in blocks of `bs`, as a
/// chunk with the shuffle filter hands them to the codec.
fn with_shuffled(sets: Vec<(String, Vec<u8>)>, bs: usize) -> Vec<(String, Vec<u8>)> {
    use blosc2::filter::kernels::{shuffle_with, Kernel};
    let mut out = Vec::new();
    for (name, data) in sets {
        let mut sh = vec![0u8; data.len()];
        for (b, o) in data.chunks(bs).zip(sh.chunks_mut(bs)) {
            shuffle_with(Kernel::best(), 8, b, o);
        }
        out.push((name.clone(), data));
        out.push((format!("{name}+sh"), sh));
    }
    out
}

fn min_time(mut f: impl FnMut()) -> f64 {
    (0..9)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let bs: usize = std::env::args()
        .skip(1)
        .find(|a| a != "--bench")
        .and_then(|a| a.parse().ok())
        .unwrap_or(131_072);
    let path = std::env::var("BLOSC2_REF_LIB").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/.ref/blosc2/lib/libblosc2.so.9"
        )
        .to_string()
    });
    // SAFETY: the reference library is a plain C library; the two symbols have
    // zlib's compress2/uncompress signatures (size_t lengths in zlib-ng's API).
    let lib = unsafe { libloading::Library::new(&path) }
        .expect("reference library (scripts/fetch-reference.sh)");
    let (zc, zu) = unsafe {
        (
            *lib.get::<Compress2>(b"zng_compress2")
                .expect("zng_compress2"),
            *lib.get::<Uncompress>(b"zng_uncompress")
                .expect("zng_uncompress"),
        )
    };
    println!("# zlib backends on {bs}-byte blocks of 4 MiB datasets (min of 9 passes); x = zlib-ng time / this time");
    println!("# reference: {path}");
    println!(
        "{:<22} {:>2}  {:>9} {:>9} | {:>13} {:>13} {:>13} | {:>13} {:>13} {:>13} {:>13}",
        "dataset",
        "lv",
        "zng MB",
        "ldf MB",
        "comp zlib-rs",
        "zlib-rs kept",
        "libdeflate",
        "dec zlib-rs",
        "libdeflate",
        "ldf by ldf",
        "ldf by rs"
    );
    for (name, data) in with_shuffled(datasets(), bs) {
        for level in 1..=9 {
            let mut out = vec![0u8; bs * 2 + 1024];
            let mut streams = Vec::new();
            let t_ref = min_time(|| {
                streams.clear();
                for b in data.chunks(bs) {
                    let mut len = out.len();
                    // SAFETY: out has `len` writable bytes, b is readable.
                    let rc = unsafe { zc(out.as_mut_ptr(), &mut len, b.as_ptr(), b.len(), level) };
                    assert_eq!(rc, 0);
                    streams.push(out[..len].to_vec());
                }
            });
            let t_fresh = min_time(|| {
                for b in data.chunks(bs) {
                    let mut d = zlib_rs::Deflate::new(level, true, 15);
                    d.compress(b, &mut out, zlib_rs::DeflateFlush::Finish)
                        .unwrap();
                }
            });
            let mut kept = zlib_rs::Deflate::new(level, true, 15);
            let t_kept = min_time(|| {
                for b in data.chunks(bs) {
                    kept.reset();
                    kept.compress(b, &mut out, zlib_rs::DeflateFlush::Finish)
                        .unwrap();
                }
            });
            let mut ld =
                libdeflater::Compressor::new(libdeflater::CompressionLvl::new(level).unwrap());
            let mut ld_bytes = 0;
            let mut ld_streams = Vec::new();
            let t_ld = min_time(|| {
                ld_streams.clear();
                ld_bytes = 0;
                for b in data.chunks(bs) {
                    let n = ld.zlib_compress(b, &mut out).unwrap();
                    ld_bytes += n;
                    ld_streams.push(out[..n].to_vec());
                }
            });
            let mut back = vec![0u8; bs];
            let t_ref_d = min_time(|| {
                for s in &streams {
                    let mut len = back.len();
                    // SAFETY: back has `len` writable bytes, s is readable.
                    unsafe { zu(back.as_mut_ptr(), &mut len, s.as_ptr(), s.len()) };
                }
            });
            let mut inf = zlib_rs::Inflate::new(true, 15);
            let t_rs_d = min_time(|| {
                for s in &streams {
                    inf.reset(true);
                    inf.decompress(s, &mut back, zlib_rs::InflateFlush::Finish)
                        .unwrap();
                }
            });
            let mut ldd = libdeflater::Decompressor::new();
            let t_ld_d = min_time(|| {
                for s in &streams {
                    ldd.zlib_decompress(s, &mut back).unwrap();
                }
            });
            // libdeflate decoding its own streams (what our levels 7-9
            // chunks are), against zlib-ng decoding zlib-ng's.
            let t_ld_own = min_time(|| {
                for s in &ld_streams {
                    ldd.zlib_decompress(s, &mut back).unwrap();
                }
            });
            let t_rs_ld = min_time(|| {
                for s in &ld_streams {
                    inf.reset(true);
                    inf.decompress(s, &mut back, zlib_rs::InflateFlush::Finish)
                        .unwrap();
                }
            });
            let zng_bytes: usize = streams.iter().map(Vec::len).sum();
            println!(
                "{:<22} {:>2}  {:>9.3} {:>9.3} | {:>12.2}x {:>12.2}x {:>12.2}x | {:>12.2}x {:>12.2}x {:>12.2}x {:>12.2}x",
                name,
                level,
                zng_bytes as f64 / 1e6,
                ld_bytes as f64 / 1e6,
                t_ref / t_fresh,
                t_ref / t_kept,
                t_ref / t_ld,
                t_ref_d / t_rs_d,
                t_ref_d / t_ld_d,
                t_ref_d / t_ld_own,
                t_ref_d / t_rs_ld
            );
        }
    }
}
