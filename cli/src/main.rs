//! `blosc2`: the command-line tool of libblosc2-rs. Parses the arguments and
//! calls the subcommand's function in the `blosc2_cli` library. Exit codes: 0
//! success, 1 runtime error (one line on stderr), 2 usage error.

use blosc2_cli::bench::{bench, BenchOpts};
use blosc2_cli::options::{CompOpts, PackExtra, Workers};
use blosc2_cli::{compress, convert, decompress, demo, info, pack, unpack, Res, Transfer};
use clap::{Args, Parser, Subcommand};
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

/// IN and OUT of a subcommand that writes a file.
#[derive(Args)]
struct InOut {
    /// Input file, or - for stdin.
    input: String,
    /// Output file, or - for stdout.
    output: String,
}

/// What `pack` and `convert` take.
#[derive(Args)]
struct PackArgs {
    #[command(flatten)]
    io: InOut,
    #[command(flatten)]
    opts: CompOpts,
    #[command(flatten)]
    extra: PackExtra,
}

#[derive(Subcommand)]
enum Cmd {
    /// Compress IN into a contiguous Blosc2 frame OUT.
    Compress {
        #[command(flatten)]
        io: InOut,
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
        #[command(flatten)]
        io: InOut,
        #[command(flatten)]
        workers: Workers,
        /// No summary line (sizes, ratio, speed) on stderr.
        #[arg(short, long)]
        quiet: bool,
    },
    /// Compress IN into a Bloscpack file OUT (.blp), readable by bloscpack 0.16.
    #[command(
        after_help = "Defaults follow bloscpack 0.16's blpk except the codec options shared with `compress`."
    )]
    Pack(PackArgs),
    /// Decompress the Bloscpack file IN into OUT.
    Unpack {
        #[command(flatten)]
        io: InOut,
        #[command(flatten)]
        workers: Workers,
    },
    /// Convert a Bloscpack file into a contiguous frame, or a frame into a Bloscpack file.
    #[command(
        after_help = "The direction follows the input: a file starting with \"blpk\" becomes a frame, anything else is read as a frame and becomes a Bloscpack file."
    )]
    Convert(PackArgs),
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
        #[command(flatten)]
        opts: BenchOpts,
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
        Cmd::Compress { io, opts, quiet } => {
            compress::compress(&io.input, &io.output, &opts).map(|t| report(t, "compressed", quiet))
        }
        Cmd::Decompress { io, workers, quiet } => {
            decompress::decompress(&io.input, &io.output, workers.threads)
                .map(|t| report(t, "decompressed", quiet))
        }
        Cmd::Pack(a) => pack::pack(&a.io.input, &a.io.output, &a.opts, &a.extra),
        Cmd::Unpack { io, workers } => unpack::unpack(&io.input, &io.output, workers.threads),
        Cmd::Convert(a) => convert::convert(&a.io.input, &a.io.output, &a.opts, &a.extra),
        Cmd::Info { file, json } => info::info(&file, json, &mut std::io::stdout().lock()),
        Cmd::Bench { opts } => bench(&opts),
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
