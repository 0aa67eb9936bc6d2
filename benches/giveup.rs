//! How fast the codecs give up on bytes they cannot shrink, against the
//! incompressible-stream test that spares them the search
//! (`codec::compress_stream` stores a stream the test accepts, for the
//! levels `incompressible_test` names): zstd and LZ4HC on random bytes at each
//! Blosc clevel, per stream size, and the test itself (a call at a level
//! that runs it, returning 0 without running the codec; zstd's version adds
//! a test of the steps between bytes).
//!
//! ```sh
//! cargo bench --bench giveup
//! ```
//!
//! Each figure: GB/s over 1 MiB of xorshift bytes cut into streams of the
//! given size, best of 5 passes.

use blosc2::codec::{self, CallInfo};
use std::hint::black_box;
use std::time::Instant;

const TOTAL: usize = 1 << 20;
const SIZES: [usize; 8] = [
    4 << 10,
    8 << 10,
    16 << 10,
    32 << 10,
    64 << 10,
    128 << 10,
    256 << 10,
    512 << 10,
];

fn random_bytes(n: usize) -> Vec<u8> {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// Best GB/s of `f` run over every `size`-byte stream of `src`.
fn speed(src: &[u8], size: usize, f: &mut dyn FnMut(&[u8], &mut [u8]) -> usize) -> f64 {
    let mut dest = vec![0u8; size + size / 8 + 1024];
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        for s in src.chunks_exact(size) {
            black_box(f(black_box(s), &mut dest));
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    src.len() as f64 / best / 1e9
}

/// A codec at a Blosc clevel: compressed size, 0 when it gives up.
type Codec<'a> = &'a mut dyn FnMut(&[u8], &mut [u8], i32) -> usize;

fn table(name: &str, src: &[u8], f: Codec) {
    println!("\n{name}: GB/s on random bytes, rows = stream size, columns = Blosc clevel");
    print!("{:>8}", "size");
    for clevel in 1..=9 {
        print!("{clevel:>8}");
    }
    println!();
    for size in SIZES {
        print!("{:>7}K", size >> 10);
        for clevel in 1..=9 {
            print!("{:>8.3}", speed(src, size, &mut |s, d| f(s, d, clevel)));
        }
        println!();
    }
}

fn main() {
    let src = random_bytes(TOTAL);
    let info = CallInfo::default();
    table("zstd", &src, &mut |s, d, clevel| {
        codec::zstd::compress(s, d, clevel, None)
    });
    table("lz4hc", &src, &mut |s, d, clevel| {
        codec::lz4::compress_hc(s, d, clevel, None)
    });
    println!(
        "\nincompressible-stream test: compress_stream at a level that stores what it accepts\n\
         {:>8}{:>9}{:>9}",
        "size", "lz4hc", "zstd"
    );
    for size in SIZES {
        let by = |compcode| {
            speed(&src, size, &mut |s, d| {
                codec::compress_stream(compcode, 9, s, d, None, &info, &[]).unwrap_or(1)
            })
        };
        let (hc, zstd) = (by(codec::LZ4HC), by(codec::ZSTD));
        println!("{:>7}K {hc:>8.3} {zstd:>8.3}", size >> 10);
    }
}
