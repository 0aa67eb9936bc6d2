//! `blosc2`: the command-line tool of libblosc2-rs. Parses the arguments and
//! calls the subcommand's function in the `blosc2_cli` library. Exit codes: 0
//! success, 1 runtime error (one line on stderr), 2 usage error.

use blosc2_cli::bench::{bench, BenchOpts};
use blosc2_cli::options::{default_threads, CodecArg, CompOpts, FilterArg, PackExtra};
use blosc2_cli::{compress, convert, decompress, demo, info, pack, unpack, Res, Transfer};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "blosc2",
    version,
    about = "Blosc2 meta-compressor (libblosc2-rs): frames, Bloscpack files, benchmarks",
    after_help = "Use `-` for stdin/stdout. Exit codes: 0 ok, 1 runtime error, 2 usage error."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Compress IN into a contiguous Blosc2 frame OUT.
    Compress {
        /// Input file, or - for stdin.
        input: String,
        /// Output frame, or - for stdout.
        output: String,
        #[command(flatten)]
        opts: CompOpts,
        /// No summary line (sizes, ratio, speed) on stderr.
        #[arg(short, long)]
        quiet: bool,
    },
    /// The main job on a built-in dataset: compress 16 MiB of float64 data into a
    /// frame, show the frame's info, decompress it back and check every byte.
    Demo {
        /// Directory where demo.raw, demo.b2frame and demo.out are written.
        #[arg(long, default_value = ".")]
        dir: PathBuf,
        #[command(flatten)]
        opts: CompOpts,
    },
    /// Decompress the contiguous frame IN into OUT.
    Decompress {
        /// Frame file, or - for stdin.
        input: String,
        /// Output file, or - for stdout.
        output: String,
        /// Worker threads (default: one per core).
        #[arg(long, default_value_t = default_threads(), value_parser = clap::value_parser!(i16).range(1..=256))]
        threads: i16,
        /// No summary line (sizes, ratio, speed) on stderr.
        #[arg(short, long)]
        quiet: bool,
    },
    /// Compress IN into a Bloscpack file OUT (.blp), readable by bloscpack 0.16.
    #[command(
        after_help = "Defaults follow bloscpack 0.16's blpk except the codec options shared with `compress`."
    )]
    Pack {
        /// Input file, or - for stdin.
        input: String,
        /// Output Bloscpack file, or - for stdout.
        output: String,
        #[command(flatten)]
        opts: CompOpts,
        #[command(flatten)]
        extra: PackExtra,
    },
    /// Decompress the Bloscpack file IN into OUT.
    Unpack {
        /// Bloscpack file, or - for stdin.
        input: String,
        /// Output file, or - for stdout.
        output: String,
        /// Worker threads (default: one per core).
        #[arg(long, default_value_t = default_threads(), value_parser = clap::value_parser!(i16).range(1..=256))]
        threads: i16,
    },
    /// Convert a Bloscpack file into a contiguous frame, or a frame into a Bloscpack file.
    #[command(
        after_help = "The direction follows the input: a file starting with \"blpk\" becomes a frame, anything else is read as a frame and becomes a Bloscpack file."
    )]
    Convert {
        /// Bloscpack file or frame, or - for stdin.
        input: String,
        /// Output, or - for stdout.
        output: String,
        #[command(flatten)]
        opts: CompOpts,
        #[command(flatten)]
        extra: PackExtra,
    },
    /// Describe a chunk, a contiguous frame or a Bloscpack file.
    Info {
        /// The file, or - for stdin.
        file: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Compress and decompress FILE (or a built-in dataset) with every codec and filter.
    Bench {
        /// Input file, or - for stdin; without it a 4 MiB float64 dataset is generated.
        file: Option<String>,
        /// Compression level (0-9).
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u8).range(0..=9))]
        clevel: u8,
        /// Item size in bytes.
        #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(i32).range(1..=255))]
        typesize: i32,
        /// Worker threads (default: one per core).
        #[arg(long, default_value_t = default_threads(), value_parser = clap::value_parser!(i16).range(1..=256))]
        threads: i16,
        /// Only this codec.
        #[arg(long, value_enum)]
        codec: Option<CodecArg>,
        /// Only this filter.
        #[arg(long, value_enum)]
        filter: Option<FilterArg>,
        /// Repetitions per measurement (the best one is kept).
        #[arg(long, default_value_t = 3)]
        repeat: u32,
        /// Print JSON lines instead of a table.
        #[arg(long)]
        json: bool,
    },
}

/// The summary line of a compression or decompression, on stderr.
fn report(t: Transfer, verb: &str, quiet: bool) {
    if !quiet {
        eprintln!("{}", t.summary(verb));
    }
}

fn run(cli: Cli) -> Res<()> {
    match cli.cmd {
        Cmd::Demo { dir, opts } => demo::demo(&dir, &opts),
        Cmd::Compress {
            input,
            output,
            opts,
            quiet,
        } => compress::compress(&input, &output, &opts).map(|t| report(t, "compressed", quiet)),
        Cmd::Decompress {
            input,
            output,
            threads,
            quiet,
        } => decompress::decompress(&input, &output, threads)
            .map(|t| report(t, "decompressed", quiet)),
        Cmd::Pack {
            input,
            output,
            opts,
            extra,
        } => pack::pack(&input, &output, &opts, &extra),
        Cmd::Unpack {
            input,
            output,
            threads,
        } => unpack::unpack(&input, &output, threads),
        Cmd::Convert {
            input,
            output,
            opts,
            extra,
        } => convert::convert(&input, &output, &opts, &extra),
        Cmd::Info { file, json } => info::info(&file, json, &mut std::io::stdout().lock()),
        Cmd::Bench {
            file,
            clevel,
            typesize,
            threads,
            codec,
            filter,
            repeat,
            json,
        } => bench(&BenchOpts {
            file,
            clevel,
            typesize,
            threads,
            codec,
            filter,
            repeat,
            json,
        }),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse(); // usage errors: clap prints them and exits with 2
                            // A bug must still end in one line, not a backtrace.
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        eprintln!("blosc2: internal error: {msg}");
    }));
    match std::panic::catch_unwind(|| run(cli)) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("blosc2: error: {e}");
            ExitCode::from(1)
        }
        Err(_) => ExitCode::from(1),
    }
}
