//! `blosc2`: the command-line tool of libblosc2-rs.
//!
//! `blosc2 bench [FILE]` compresses and decompresses FILE (or a built-in dataset)
//! with every codec and filter, checks the round trip and prints ratio and speed.

use blosc2::chunk::{self, CParams, DParams};
use blosc2::codec;
use blosc2::format::header::{BITSHUFFLE, NOFILTER, SHUFFLE};
use clap::{Parser, Subcommand};
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "blosc2",
    version,
    about = "Blosc2 meta-compressor (libblosc2-rs)"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Compress and decompress FILE (or a built-in dataset) with every codec and filter.
    Bench {
        /// Input file; without it a 4 MiB float64 dataset is generated.
        file: Option<String>,
        /// Compression level (0-9).
        #[arg(long, default_value_t = 5)]
        clevel: u8,
        /// Item size in bytes.
        #[arg(long, default_value_t = 8)]
        typesize: i32,
        /// Worker threads.
        #[arg(long, default_value_t = 1)]
        threads: i16,
        /// Only this codec (blosclz, lz4, lz4hc, zlib, zstd).
        #[arg(long)]
        codec: Option<String>,
        /// Only this filter (noshuffle, shuffle, bitshuffle).
        #[arg(long)]
        filter: Option<String>,
        /// Repetitions per measurement (the best one is kept).
        #[arg(long, default_value_t = 3)]
        repeat: u32,
        /// Print JSON lines instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Show the header of a compressed chunk stored in FILE.
    Info {
        /// A file holding one chunk.
        file: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

fn default_dataset() -> Vec<u8> {
    // float64 linspace with a little deterministic noise, 4 MiB
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

fn filter_id(name: &str) -> Option<u8> {
    match name {
        "noshuffle" | "none" => Some(NOFILTER),
        "shuffle" => Some(SHUFFLE),
        "bitshuffle" => Some(BITSHUFFLE),
        _ => None,
    }
}

#[allow(clippy::too_many_arguments)]
fn bench(
    file: Option<String>,
    clevel: u8,
    typesize: i32,
    threads: i16,
    only_codec: Option<String>,
    only_filter: Option<String>,
    repeat: u32,
    json: bool,
) -> Result<(), String> {
    let (data, label) = match &file {
        Some(f) if f != "-" => (
            std::fs::read(f).map_err(|e| format!("cannot read {f}: {e}"))?,
            f.clone(),
        ),
        Some(_) => {
            let mut v = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin(), &mut v)
                .map_err(|e| format!("cannot read stdin: {e}"))?;
            (v, "stdin".into())
        }
        None => (
            default_dataset(),
            "built-in float64 linspace (4 MiB)".into(),
        ),
    };
    if data.len() > blosc2::format::header::MAX_BUFFERSIZE as usize {
        return Err("input larger than one chunk (2 GiB) is not supported yet".into());
    }
    if clevel > 9 {
        return Err(format!("clevel must be 0..9, got {clevel}"));
    }
    let codecs: Vec<u8> = match &only_codec {
        Some(c) => vec![codec::code_of(c).ok_or_else(|| format!("unknown codec '{c}'"))?],
        None => vec![
            codec::BLOSCLZ,
            codec::LZ4,
            codec::LZ4HC,
            codec::ZLIB,
            codec::ZSTD,
        ],
    };
    let filters: Vec<u8> = match &only_filter {
        Some(f) => vec![filter_id(f).ok_or_else(|| format!("unknown filter '{f}'"))?],
        None => vec![NOFILTER, SHUFFLE, BITSHUFFLE],
    };
    if !json {
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
            for _ in 0..repeat.max(1) {
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
            if json {
                println!(
                    "{{\"codec\":\"{cname}\",\"filter\":\"{fname}\",\"clevel\":{clevel},\"typesize\":{typesize},\"threads\":{threads},\"nbytes\":{},\"cbytes\":{csize},\"ratio\":{ratio:.4},\"compress_mbps\":{:.1},\"decompress_mbps\":{:.1}}}",
                    data.len(),
                    mb / best_c,
                    mb / best_d
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

fn info(file: &str, json: bool) -> Result<(), String> {
    let data = std::fs::read(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    let h = chunk::header(&data).map_err(|e| format!("{file}: not a Blosc chunk: {e}"))?;
    let codec_name = if h.compformat() == codec::FORMAT_UDCODEC {
        codec::name(h.udcompcode).unwrap_or_else(|| format!("user codec {}", h.udcompcode))
    } else {
        codec::libname(h.compformat()).unwrap_or_default()
    };
    let (filters, _) = h.pipeline();
    if json {
        println!(
            "{{\"version\":{},\"codec\":\"{codec_name}\",\"typesize\":{},\"nbytes\":{},\"cbytes\":{},\"blocksize\":{},\"memcpyed\":{},\"split\":{},\"filters\":{:?},\"special\":{}}}",
            h.version,
            h.typesize,
            h.nbytes,
            h.cbytes,
            h.blocksize,
            h.memcpyed(),
            !h.dont_split(),
            filters,
            h.special_bits()
        );
    } else {
        println!("format version: {}", h.version);
        println!("codec:          {codec_name}");
        println!("typesize:       {}", h.typesize);
        println!("nbytes:         {}", h.nbytes);
        println!("cbytes:         {}", h.cbytes);
        println!("blocksize:      {}", h.blocksize);
        println!("memcpyed:       {}", h.memcpyed());
        println!("split streams:  {}", !h.dont_split());
        println!("filters:        {filters:?}");
        println!("special value:  {}", h.special_bits());
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Bench {
            file,
            clevel,
            typesize,
            threads,
            codec,
            filter,
            repeat,
            json,
        } => bench(file, clevel, typesize, threads, codec, filter, repeat, json),
        Cmd::Info { file, json } => info(&file, json),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("blosc2: error: {e}");
            ExitCode::from(1)
        }
    }
}
