//! `blosc2 bench [FILE]`: compress and decompress one buffer with every codec
//! and filter, and report ratio and speed.

use crate::common::{read_all, Res};
use crate::options::{CodecArg, FilterArg, Workers};
use blosc2::chunk::{self, CParams, DParams};
use blosc2::codec;
use blosc2::format::header::{BITSHUFFLE, NOFILTER, SHUFFLE};
use clap::Args;
use serde_json::json;
use std::time::Instant;

/// What `bench` measures (its command-line arguments).
#[derive(Args, Clone, Debug)]
pub struct BenchOpts {
    /// Input file, or - for stdin; without it a 4 MiB float64 dataset is generated.
    pub file: Option<String>,
    /// Compression level (0-9).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u8).range(0..=9))]
    pub clevel: u8,
    /// Item size in bytes.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(i32).range(1..=255))]
    pub typesize: i32,
    #[command(flatten)]
    pub workers: Workers,
    /// Only this codec.
    #[arg(long, value_enum)]
    pub codec: Option<CodecArg>,
    /// Only this filter.
    #[arg(long, value_enum)]
    pub filter: Option<FilterArg>,
    /// Repetitions per measurement (the best one is kept).
    #[arg(long, default_value_t = 3)]
    pub repeat: u32,
    /// Print JSON lines instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// 4 MiB of float64: a ramp with a little deterministic noise.
pub fn default_dataset() -> Vec<u8> {
    let n = (4 << 20) / 8;
    let mut state = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .flat_map(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let noise = (state % 1000) as f64 * 1e-9;
            (i as f64 / n as f64 * 100.0 + noise).to_le_bytes()
        })
        .collect()
}

/// Run the benchmark and print its table (or JSON lines) on stdout.
pub fn bench(o: &BenchOpts) -> Res<()> {
    let (clevel, typesize, threads) = (o.clevel, o.typesize, o.workers.threads);
    let (data, label) = match &o.file {
        Some(f) => (
            read_all(f)?,
            if f == "-" { "stdin".into() } else { f.clone() },
        ),
        None => (
            default_dataset(),
            "built-in float64 linspace (4 MiB)".into(),
        ),
    };
    if data.len() > blosc2::format::header::MAX_BUFFERSIZE as usize {
        return Err("input larger than one chunk (2 GiB) is not supported by bench".into());
    }
    let codecs: Vec<u8> = match o.codec {
        Some(c) => vec![c.id()],
        None => vec![
            codec::BLOSCLZ,
            codec::LZ4,
            codec::LZ4HC,
            codec::ZLIB,
            codec::ZSTD,
        ],
    };
    let filters: Vec<u8> = match o.filter {
        Some(f) => vec![f.id()],
        None => vec![NOFILTER, SHUFFLE, BITSHUFFLE],
    };
    if !o.json {
        println!(
            "input: {label}, {} bytes, clevel {clevel}, typesize {typesize}, threads {threads}",
            data.len()
        );
        println!(
            "{:<8} {:<10} {:>9} {:>12} {:>12}",
            "codec", "filter", "ratio", "comp MB/s", "decomp MB/s"
        );
    }
    let mut dest = vec![0u8; data.len() + 32];
    let mut back = vec![0u8; data.len()];
    for &c in &codecs {
        for &f in &filters {
            let params = CParams {
                compcode: c,
                clevel,
                typesize,
                nthreads: threads,
                filters: [0, 0, 0, 0, 0, f],
                ..CParams::default()
            };
            let dparams = DParams {
                nthreads: threads,
                ..DParams::default()
            };
            let mut best_c = f64::MAX;
            let mut best_d = f64::MAX;
            let mut csize = 0;
            for _ in 0..o.repeat.max(1) {
                let t = Instant::now();
                csize = chunk::compress_into(&params, &data, &mut dest)
                    .map_err(|e| format!("compression failed: {e}"))?;
                best_c = best_c.min(t.elapsed().as_secs_f64());
                if csize == 0 {
                    return Err("compression did not fit (should not happen)".into());
                }
                let t = Instant::now();
                let n = chunk::decompress_into(&dparams, &dest[..csize], &mut back)
                    .map_err(|e| format!("decompression failed: {e}"))?;
                best_d = best_d.min(t.elapsed().as_secs_f64());
                if n != data.len() || back != data {
                    return Err(format!(
                        "round trip mismatch with codec {} filter {f}",
                        codec::name(c).unwrap_or_default()
                    ));
                }
            }
            let mb = data.len() as f64 / 1e6;
            let ratio = data.len() as f64 / csize as f64;
            let cname = codec::name(c).unwrap_or_default();
            let fname = match f {
                SHUFFLE => "shuffle",
                BITSHUFFLE => "bitshuffle",
                _ => "noshuffle",
            };
            if o.json {
                println!(
                    "{}",
                    json!({"codec":cname,"filter":fname,"clevel":clevel,"typesize":typesize,
                        "threads":threads,"nbytes":data.len(),"cbytes":csize,
                        "ratio":(ratio * 1e4).round() / 1e4,
                        "compress_mbps":(mb / best_c * 10.0).round() / 10.0,
                        "decompress_mbps":(mb / best_d * 10.0).round() / 10.0})
                );
            } else {
                println!(
                    "{:<8} {:<10} {:>9.2} {:>12.1} {:>12.1}",
                    cname,
                    fname,
                    ratio,
                    mb / best_c,
                    mb / best_d
                );
            }
        }
    }
    Ok(())
}
