//! `blosc2`: the command-line tool of libblosc2-rs.
//!
//! Subcommands: `compress`/`decompress` (contiguous frames), `pack`/`unpack`
//! (Bloscpack files), `convert` (between the two), `info` (chunk, frame or
//! Bloscpack file) and `bench`. `-` names stdin or stdout. Exit codes: 0 success,
//! 1 runtime error (one line on stderr), 2 usage error.

use blosc2::bloscpack::{self, Checksum, PackOptions};
use blosc2::chunk::{self, CParams, DParams};
use blosc2::codec;
use blosc2::format::header::{BITSHUFFLE, NOFILTER, SHUFFLE};
use blosc2::schunk::{Storage, SuperChunk};
use clap::{Args, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;
use std::fs::File;
use std::io::{BufReader, BufWriter, Cursor, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Inputs at least this large get a progress bar (when stderr is a terminal).
const PROGRESS_MIN: u64 = 8 << 20;

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

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
enum CodecArg {
    Blosclz,
    Lz4,
    Lz4hc,
    Zlib,
    Zstd,
}

impl CodecArg {
    fn id(self) -> u8 {
        match self {
            CodecArg::Blosclz => codec::BLOSCLZ,
            CodecArg::Lz4 => codec::LZ4,
            CodecArg::Lz4hc => codec::LZ4HC,
            CodecArg::Zlib => codec::ZLIB,
            CodecArg::Zstd => codec::ZSTD,
        }
    }
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
enum FilterArg {
    Noshuffle,
    Shuffle,
    Bitshuffle,
}

impl FilterArg {
    fn id(self) -> u8 {
        match self {
            FilterArg::Noshuffle => NOFILTER,
            FilterArg::Shuffle => SHUFFLE,
            FilterArg::Bitshuffle => BITSHUFFLE,
        }
    }
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
enum ChecksumArg {
    None,
    Adler32,
    Crc32,
    Md5,
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
}

impl ChecksumArg {
    fn get(self) -> Checksum {
        Checksum::from_name(self.to_possible_value().unwrap().get_name()).unwrap()
    }
}

fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let (num, mult) = match t.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&t[..t.len() - 1], 1usize << 10),
        Some('M') => (&t[..t.len() - 1], 1 << 20),
        Some('G') => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    let n: usize = num
        .parse()
        .map_err(|_| format!("'{s}' is not a size (e.g. 65536, 512K, 1M)"))?;
    let v = n
        .checked_mul(mult)
        .ok_or_else(|| format!("size '{s}' too large"))?;
    if v == 0 || v > (i32::MAX as usize - 64) {
        return Err(format!("size '{s}' must be between 1 and 2 GiB"));
    }
    Ok(v)
}

/// Compression options shared by `compress`, `pack` and `convert`.
#[derive(Args, Clone, Debug)]
struct CompOpts {
    /// Codec.
    #[arg(long, value_enum, default_value_t = CodecArg::Zstd)]
    codec: CodecArg,
    /// Compression level (0-9).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u8).range(0..=9))]
    clevel: u8,
    /// Filter applied before the codec.
    #[arg(long, value_enum, default_value_t = FilterArg::Shuffle)]
    filter: FilterArg,
    /// Item size in bytes (what the shuffle filters work on).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=255))]
    typesize: u16,
    /// Uncompressed bytes per chunk (suffixes K, M, G).
    #[arg(long, default_value = "4M", value_parser = parse_size)]
    chunk_size: usize,
    /// Worker threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(i16).range(1..=256))]
    threads: i16,
}

/// Bloscpack-only options.
#[derive(Args, Clone, Debug)]
struct PackExtra {
    /// Checksum stored after each chunk.
    #[arg(long, value_enum, default_value_t = ChecksumArg::Adler32)]
    checksum: ChecksumArg,
    /// Leave out the offsets section.
    #[arg(long)]
    no_offsets: bool,
    /// Spare offset entries for chunks appended later (default 10 × nchunks).
    #[arg(long)]
    max_app_chunks: Option<u32>,
    /// JSON file stored in the metadata section.
    #[arg(long, value_name = "JSON_FILE")]
    metadata: Option<PathBuf>,
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
        /// Worker threads.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(i16).range(1..=256))]
        threads: i16,
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
        /// Worker threads.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(i16).range(1..=256))]
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
        /// Worker threads.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(i16).range(1..=256))]
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

type Res<T> = Result<T, String>;

// ---------------------------------------------------------------- I/O helpers

/// An output file written to a temporary in the same directory and renamed
/// into place on success; dropped without `commit`, the temporary is removed.
struct AtomicOut {
    tmp: PathBuf,
    dest: PathBuf,
    file: Option<BufWriter<File>>,
}

impl AtomicOut {
    fn create(dest: &str) -> Res<AtomicOut> {
        let dest = PathBuf::from(dest);
        let dir = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = dest
            .file_name()
            .ok_or_else(|| format!("{}: not a file name", dest.display()))?
            .to_string_lossy()
            .into_owned();
        let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
        let f = File::create(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
        Ok(AtomicOut {
            tmp,
            dest,
            file: Some(BufWriter::new(f)),
        })
    }

    /// Only a temporary path (not created), for writers that create it themselves.
    fn path_only(dest: &str) -> Res<AtomicOut> {
        let mut a = AtomicOut::create(dest)?;
        a.file = None;
        let _ = std::fs::remove_file(&a.tmp);
        Ok(a)
    }

    fn writer(&mut self) -> &mut BufWriter<File> {
        self.file.as_mut().expect("AtomicOut opened without a file")
    }

    fn commit(mut self) -> Res<()> {
        if let Some(f) = self.file.take() {
            let f = f
                .into_inner()
                .map_err(|e| format!("cannot write {}: {}", self.dest.display(), e.error()))?;
            f.sync_all()
                .map_err(|e| format!("cannot write {}: {e}", self.dest.display()))?;
        }
        std::fs::rename(&self.tmp, &self.dest)
            .map_err(|e| format!("cannot rename to {}: {e}", self.dest.display()))
    }
}

impl Drop for AtomicOut {
    fn drop(&mut self) {
        // After a successful rename the temporary no longer exists.
        self.file = None;
        let _ = std::fs::remove_file(&self.tmp);
    }
}

/// Write `bytes` to `output` ("-" is stdout) atomically.
fn write_all_to(output: &str, bytes: &[u8]) -> Res<()> {
    if output == "-" {
        let mut o = std::io::stdout().lock();
        o.write_all(bytes)
            .and_then(|_| o.flush())
            .map_err(|e| format!("cannot write stdout: {e}"))
    } else {
        let mut a = AtomicOut::create(output)?;
        a.writer()
            .write_all(bytes)
            .map_err(|e| format!("cannot write {output}: {e}"))?;
        a.commit()
    }
}

fn read_all(input: &str) -> Res<Vec<u8>> {
    if input == "-" {
        let mut v = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut v)
            .map_err(|e| format!("cannot read stdin: {e}"))?;
        Ok(v)
    } else {
        std::fs::read(input).map_err(|e| format!("cannot read {input}: {e}"))
    }
}

fn input_len(input: &str) -> Option<u64> {
    if input == "-" {
        None
    } else {
        std::fs::metadata(input).ok().map(|m| m.len())
    }
}

fn open_input(input: &str) -> Res<Box<dyn Read>> {
    if input == "-" {
        Ok(Box::new(std::io::stdin().lock()))
    } else {
        let f = File::open(input).map_err(|e| format!("cannot open {input}: {e}"))?;
        if f.metadata().map(|m| m.is_dir()).unwrap_or(false) {
            return Err(format!("{input} is a directory"));
        }
        Ok(Box::new(BufReader::with_capacity(1 << 20, f)))
    }
}

fn progress(total: Option<u64>, what: &str) -> ProgressBar {
    let show = std::io::stderr().is_terminal() && total.is_some_and(|t| t >= PROGRESS_MIN);
    if !show {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr());
    pb.set_style(
        ProgressStyle::with_template(
            "{msg} [{bar:40}] {bytes}/{total_bytes} ({binary_bytes_per_sec}, {eta})",
        )
        .unwrap()
        .progress_chars("=> "),
    );
    pb.set_message(what.to_string());
    pb
}

fn cparams_of(o: &CompOpts) -> CParams {
    let mut filters = [0u8; 6];
    filters[5] = o.filter.id();
    CParams {
        compcode: o.codec.id(),
        clevel: o.clevel,
        typesize: o.typesize as i32,
        nthreads: o.threads,
        filters,
        ..CParams::default()
    }
}

fn read_up_to(r: &mut dyn Read, buf: &mut [u8]) -> Res<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("cannot read input: {e}")),
        }
    }
    Ok(got)
}

// ---------------------------------------------------------------- frames

fn err_s(e: blosc2::Error) -> String {
    e.to_string()
}

/// Read `input` chunk by chunk into a super-chunk stored as `storage`.
fn fill_schunk(
    input: &mut dyn Read,
    total: Option<u64>,
    opts: &CompOpts,
    storage: Storage,
) -> Res<SuperChunk> {
    let dparams = DParams {
        nthreads: opts.threads,
        ..DParams::default()
    };
    let mut sc = SuperChunk::new(cparams_of(opts), dparams, storage)
        .map_err(|e| format!("cannot create frame: {e}"))?;
    let pb = progress(total, "compress");
    let mut buf = vec![0u8; opts.chunk_size];
    loop {
        let n = read_up_to(input, &mut buf)?;
        if n == 0 {
            break;
        }
        sc.append_buffer(&buf[..n])
            .map_err(|e| format!("compression failed: {e}"))?;
        pb.inc(n as u64);
        if n < buf.len() {
            break;
        }
    }
    pb.finish_and_clear();
    Ok(sc)
}

fn compress_cmd(input: &str, output: &str, opts: &CompOpts) -> Res<()> {
    let total = input_len(input);
    let mut r = open_input(input)?;
    if output == "-" {
        let sc = fill_schunk(&mut r, total, opts, Storage::FrameInMemory)?;
        let bytes = sc.to_frame_bytes().map_err(err_s)?;
        return write_all_to("-", &bytes);
    }
    // The frame is built in a temporary file next to OUT, then renamed.
    let out = AtomicOut::path_only(output)?;
    let sc = fill_schunk(&mut r, total, opts, Storage::FrameFile(out.tmp.clone()))?;
    if sc.nchunks() == 0 {
        drop(sc);
        // an empty input still gives a valid (empty) frame
        let sc = SuperChunk::new(cparams_of(opts), DParams::default(), Storage::FrameInMemory)
            .map_err(err_s)?;
        let bytes = sc.to_frame_bytes().map_err(err_s)?;
        drop(out);
        return write_all_to(output, &bytes);
    }
    drop(sc);
    out.commit()
}

fn open_frame(input: &str, threads: i16) -> Res<SuperChunk> {
    let mut sc = if input == "-" {
        SuperChunk::from_frame_bytes(read_all(input)?, true)
    } else {
        if !Path::new(input).exists() {
            return Err(format!("cannot open {input}: No such file or directory"));
        }
        SuperChunk::open(Path::new(input), 0)
    }
    .map_err(|e| format!("{input}: not a readable Blosc2 frame: {e}"))?;
    sc.dparams.nthreads = threads;
    Ok(sc)
}

/// Decompress every chunk of `sc`, in order, into `out`.
fn frame_chunks_to(sc: &SuperChunk, out: &mut dyn Write, what: &str) -> Res<u64> {
    let pb = progress(Some(sc.nbytes.max(0) as u64), what);
    let mut done = 0u64;
    for i in 0..sc.nchunks() {
        let d = sc
            .decompress_chunk_vec(i)
            .map_err(|e| format!("chunk {i}: {e}"))?;
        out.write_all(&d)
            .map_err(|e| format!("cannot write output: {e}"))?;
        done += d.len() as u64;
        pb.inc(d.len() as u64);
    }
    pb.finish_and_clear();
    Ok(done)
}

fn decompress_cmd(input: &str, output: &str, threads: i16) -> Res<()> {
    let sc = open_frame(input, threads)?;
    if output == "-" {
        let mut o = std::io::stdout().lock();
        frame_chunks_to(&sc, &mut o, "decompress")?;
        return o.flush().map_err(|e| format!("cannot write stdout: {e}"));
    }
    let mut out = AtomicOut::create(output)?;
    frame_chunks_to(&sc, out.writer(), "decompress")?;
    out.commit()
}

// ---------------------------------------------------------------- Bloscpack

fn pack_options(opts: &CompOpts, extra: &PackExtra) -> Res<PackOptions> {
    let metadata = match &extra.metadata {
        None => None,
        Some(p) => {
            let text = std::fs::read(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            let v: serde_json::Value = serde_json::from_slice(&text)
                .map_err(|e| format!("{}: not JSON: {e}", p.display()))?;
            Some(serde_json::to_vec(&v).map_err(|e| e.to_string())?)
        }
    };
    Ok(PackOptions {
        compcode: opts.codec.id(),
        clevel: opts.clevel,
        typesize: opts.typesize as usize,
        filter: opts.filter.id(),
        chunk_size: opts.chunk_size,
        checksum: extra.checksum.get(),
        offsets: !extra.no_offsets,
        max_app_chunks: extra.max_app_chunks.map(i64::from),
        metadata,
    })
}

fn pack_reader(
    input: &mut dyn Read,
    len: u64,
    output: &str,
    popts: &PackOptions,
) -> Res<bloscpack::PackStats> {
    let pb = progress(Some(len), "pack");
    let mut tick = |n: u64| pb.set_position(n);
    let r = if output == "-" {
        let mut c = Cursor::new(Vec::new());
        let st =
            bloscpack::pack(input, len, &mut c, popts, &mut tick).map_err(|e| e.to_string())?;
        write_all_to("-", &c.into_inner())?;
        st
    } else {
        let mut out = AtomicOut::create(output)?;
        let st = bloscpack::pack(input, len, out.writer(), popts, &mut tick)
            .map_err(|e| e.to_string())?;
        out.commit()?;
        st
    };
    pb.finish_and_clear();
    Ok(r)
}

fn pack_cmd(input: &str, output: &str, opts: &CompOpts, extra: &PackExtra) -> Res<()> {
    let popts = pack_options(opts, extra)?;
    match input_len(input) {
        Some(len) => {
            let mut r = open_input(input)?;
            pack_reader(&mut r, len, output, &popts)?;
        }
        None => {
            // stdin: the header needs the length first
            let data = read_all(input)?;
            pack_reader(&mut &data[..], data.len() as u64, output, &popts)?;
        }
    }
    Ok(())
}

fn unpack_cmd(input: &str, output: &str, threads: i16) -> Res<()> {
    let len = input_len(input);
    let r = open_input(input)?;
    let mut reader = bloscpack::Reader::new(r, len).map_err(|e| format!("{input}: {e}"))?;
    reader.set_threads(threads);
    let pb = progress(reader.header.total_size(), "unpack");
    let mut run = |w: &mut dyn Write| -> Res<()> {
        while let Some(d) = reader.next_chunk().map_err(|e| format!("{input}: {e}"))? {
            w.write_all(&d)
                .map_err(|e| format!("cannot write output: {e}"))?;
            pb.inc(d.len() as u64);
        }
        Ok(())
    };
    if output == "-" {
        let mut o = std::io::stdout().lock();
        run(&mut o)?;
        o.flush().map_err(|e| format!("cannot write stdout: {e}"))?;
    } else {
        let mut out = AtomicOut::create(output)?;
        run(out.writer())?;
        out.commit()?;
    }
    pb.finish_and_clear();
    Ok(())
}

fn is_bloscpack(input: &str) -> Res<bool> {
    if input == "-" {
        return Ok(false);
    }
    let mut f = File::open(input).map_err(|e| format!("cannot open {input}: {e}"))?;
    let mut m = [0u8; 4];
    let n = read_up_to(&mut f, &mut m)?;
    Ok(n == 4 && &m == bloscpack::header::MAGIC)
}

fn convert_cmd(input: &str, output: &str, opts: &CompOpts, extra: &PackExtra) -> Res<()> {
    let data_stdin = if input == "-" {
        Some(read_all(input)?)
    } else {
        None
    };
    let blp = match &data_stdin {
        Some(d) => d.starts_with(bloscpack::header::MAGIC),
        None => is_bloscpack(input)?,
    };
    if blp {
        // Bloscpack -> frame: every Bloscpack chunk becomes one frame chunk.
        let (r, len): (Box<dyn Read>, Option<u64>) = match data_stdin {
            Some(d) => {
                let l = d.len() as u64;
                (Box::new(Cursor::new(d)), Some(l))
            }
            None => (open_input(input)?, input_len(input)),
        };
        let mut reader = bloscpack::Reader::new(r, len).map_err(|e| format!("{input}: {e}"))?;
        let mut cp = cparams_of(opts);
        cp.typesize = reader.header.typesize.max(1) as i32;
        let out = if output == "-" {
            None
        } else {
            Some(AtomicOut::path_only(output)?)
        };
        let storage = match &out {
            Some(o) => Storage::FrameFile(o.tmp.clone()),
            None => Storage::FrameInMemory,
        };
        let mut sc = SuperChunk::new(cp, DParams::default(), storage).map_err(err_s)?;
        let pb = progress(reader.header.total_size(), "convert");
        while let Some(d) = reader.next_chunk().map_err(|e| format!("{input}: {e}"))? {
            sc.append_buffer(&d)
                .map_err(|e| format!("compression failed: {e}"))?;
            pb.inc(d.len() as u64);
        }
        if let Some(m) = &reader.metadata {
            if m.header.magic_format == b"JSON" {
                sc.vlmeta_add("bloscpack_metadata", &m.data, None)
                    .map_err(|e| format!("cannot store the metadata: {e}"))?;
            }
        }
        pb.finish_and_clear();
        match out {
            Some(o) => {
                drop(sc);
                o.commit()
            }
            None => write_all_to("-", &sc.to_frame_bytes().map_err(err_s)?),
        }
    } else {
        // frame -> Bloscpack
        let sc = match data_stdin {
            Some(d) => SuperChunk::from_frame_bytes(d, true).map_err(|e| {
                format!("{input}: neither a Bloscpack file nor a Blosc2 frame: {e}")
            })?,
            None => {
                if !Path::new(input).exists() {
                    return Err(format!("cannot open {input}: No such file or directory"));
                }
                SuperChunk::open(Path::new(input), 0).map_err(|e| {
                    format!("{input}: neither a Bloscpack file nor a Blosc2 frame: {e}")
                })?
            }
        };
        let mut popts = pack_options(opts, extra)?;
        popts.typesize = sc.typesize().clamp(1, 255) as usize;
        if sc.chunksize > 0 {
            popts.chunk_size = sc.chunksize as usize;
        }
        if let Ok((_, m)) = sc.vlmeta_get("bloscpack_metadata") {
            if popts.metadata.is_none() {
                popts.metadata = Some(m);
            }
        }
        let total = sc.nbytes.max(0) as u64;
        let mut r = FrameReader {
            sc: &sc,
            next: 0,
            buf: Vec::new(),
            pos: 0,
        };
        pack_reader(&mut r, total, output, &popts)?;
        Ok(())
    }
}

/// The decompressed bytes of a super-chunk as a `Read`.
struct FrameReader<'a> {
    sc: &'a SuperChunk,
    next: i64,
    buf: Vec<u8>,
    pos: usize,
}

impl Read for FrameReader<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.pos == self.buf.len() {
            if self.next >= self.sc.nchunks() {
                return Ok(0);
            }
            self.buf = self
                .sc
                .decompress_chunk_vec(self.next)
                .map_err(|e| std::io::Error::other(format!("chunk {}: {e}", self.next)))?;
            self.pos = 0;
            self.next += 1;
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

// ---------------------------------------------------------------- info

fn filter_names(filters: &[u8]) -> Vec<&'static str> {
    filters
        .iter()
        .filter(|&&f| f != 0)
        .map(|&f| match f {
            SHUFFLE => "shuffle",
            BITSHUFFLE => "bitshuffle",
            3 => "delta",
            4 => "truncprec",
            _ => "other",
        })
        .collect()
}

/// Print what `info` says about a super-chunk: its parameters, and the
/// shapes and dtype when it holds an n-dimensional (b2nd) array.
fn frame_info(sc: &SuperChunk, kind: &str, print: impl Fn(serde_json::Value, Vec<(&str, String)>)) {
    let cp = &sc.cparams;
    let codec_name = codec::name(cp.compcode).unwrap_or_else(|| format!("codec {}", cp.compcode));
    let filters = filter_names(&cp.filters);
    let metas: Vec<String> = sc.metalayers().iter().map(|m| m.name.clone()).collect();
    let vlmetas: Vec<String> = sc.vlmetalayers().iter().map(|m| m.name.clone()).collect();
    let ratio = sc.nbytes as f64 / sc.cbytes.max(1) as f64;
    let nd = blosc2::b2nd::array::read_meta(sc).ok();
    let mut v = json!({"type":kind,"nchunks":sc.nchunks(),"chunksize":sc.chunksize,"blocksize":sc.blocksize,
        "typesize":cp.typesize,"codec":codec_name,"clevel":cp.clevel,"filters":filters,
        "nbytes":sc.nbytes,"cbytes":sc.cbytes,"frame_len":sc.frame_len(),"ratio":ratio,
        "metalayers":metas,"vlmetalayers":vlmetas});
    let mut lines = vec![("type", kind.to_string())];
    if let Some(m) = &nd {
        let g = &m.geom;
        v["array"] = json!({"ndim":g.ndim(),"shape":g.shape,"chunkshape":g.chunkshape,
            "blockshape":g.blockshape,"dtype":m.dtype,"dtype_format":m.dtype_format});
        lines[0].1 = format!("b2nd array ({kind})");
        lines.push(("shape", format!("{:?}", g.shape)));
        lines.push(("chunks", format!("{:?}", g.chunkshape)));
        lines.push(("blocks", format!("{:?}", g.blockshape)));
        lines.push(("dtype", m.dtype.clone()));
    }
    lines.extend([
        ("codec", format!("{codec_name} (clevel {})", cp.clevel)),
        ("filters", format!("{filters:?}")),
        ("typesize", cp.typesize.to_string()),
        ("chunksize", sc.chunksize.to_string()),
        ("blocksize", sc.blocksize.to_string()),
        ("nchunks", sc.nchunks().to_string()),
        ("nbytes", sc.nbytes.to_string()),
        ("cbytes", sc.cbytes.to_string()),
        ("ratio", format!("{ratio:.2}")),
        ("metalayers", format!("{metas:?}")),
        ("vlmetalayers", format!("{vlmetas:?}")),
    ]);
    print(v, lines);
}

fn info_cmd(file: &str, json_out: bool) -> Res<()> {
    let print = |v: serde_json::Value, lines: Vec<(&str, String)>| {
        if json_out {
            println!("{v}");
        } else {
            for (k, val) in lines {
                println!("{:<16}{val}", format!("{k}:"));
            }
        }
    };
    if file != "-" && Path::new(file).is_dir() {
        let sc = SuperChunk::open(Path::new(file), 0)
            .map_err(|e| format!("{file}: not a readable sparse frame: {e}"))?;
        frame_info(&sc, "sparse frame", print);
        return Ok(());
    }
    let data = read_all(file)?;
    if data.starts_with(bloscpack::header::MAGIC) {
        let len = data.len() as u64;
        let mut r =
            bloscpack::Reader::new(&data[..], Some(len)).map_err(|e| format!("{file}: {e}"))?;
        let h = r.header.clone();
        let meta = r
            .metadata
            .as_ref()
            .map(|m| String::from_utf8_lossy(&m.data).into_owned());
        let mut codec_name = String::new();
        let mut nbytes = 0u64;
        while let Some(c) = r.next_compressed().map_err(|e| format!("{file}: {e}"))? {
            if codec_name.is_empty() {
                if let Ok(ch) = chunk::header(&c) {
                    codec_name = codec::libname(ch.compformat()).unwrap_or_default();
                }
            }
            nbytes += u32::from_le_bytes(c[4..8].try_into().unwrap()) as u64;
        }
        let ratio = nbytes as f64 / len.max(1) as f64;
        print(
            json!({"type":"bloscpack","format_version":h.format_version,"checksum":h.checksum.name(),
                "offsets":h.offsets,"metadata":meta,"typesize":h.typesize,"chunk_size":h.chunk_size,
                "last_chunk":h.last_chunk,"nchunks":h.nchunks,"max_app_chunks":h.max_app_chunks,
                "codec":codec_name,"nbytes":nbytes,"file_size":len,"ratio":ratio}),
            vec![
                ("type", "Bloscpack".into()),
                ("format version", h.format_version.to_string()),
                ("codec", codec_name.clone()),
                ("typesize", h.typesize.to_string()),
                ("chunk size", h.chunk_size.to_string()),
                ("last chunk", h.last_chunk.to_string()),
                ("nchunks", h.nchunks.to_string()),
                ("checksum", h.checksum.name().into()),
                (
                    "offsets",
                    format!("{} (+{} spare)", h.offsets, h.max_app_chunks),
                ),
                ("metadata", meta.unwrap_or_else(|| "none".into())),
                ("nbytes", nbytes.to_string()),
                ("file size", len.to_string()),
                ("ratio", format!("{ratio:.2}")),
            ],
        );
        return Ok(());
    }
    // A frame? (its header starts with a msgpack array holding "b2frame")
    if data.len() > 16 && data[2..9] == *b"b2frame" {
        let sc = SuperChunk::from_frame_bytes(data, true)
            .map_err(|e| format!("{file}: corrupt Blosc2 frame: {e}"))?;
        frame_info(&sc, "contiguous frame", print);
        return Ok(());
    }
    let h = chunk::header(&data)
        .map_err(|e| format!("{file}: not a Blosc chunk, frame or Bloscpack file: {e}"))?;
    let codec_name = if h.compformat() == codec::FORMAT_UDCODEC {
        codec::name(h.udcompcode).unwrap_or_else(|| format!("user codec {}", h.udcompcode))
    } else {
        codec::libname(h.compformat()).unwrap_or_default()
    };
    let (filters, _) = h.pipeline();
    print(
        json!({"type":"chunk","version":h.version,"codec":codec_name,"typesize":h.typesize,
            "nbytes":h.nbytes,"cbytes":h.cbytes,"blocksize":h.blocksize,"memcpyed":h.memcpyed(),
            "split":!h.dont_split(),"filters":filters,"special":h.special_bits()}),
        vec![
            ("type", "chunk".into()),
            ("format version", h.version.to_string()),
            ("codec", codec_name.clone()),
            ("typesize", h.typesize.to_string()),
            ("nbytes", h.nbytes.to_string()),
            ("cbytes", h.cbytes.to_string()),
            ("blocksize", h.blocksize.to_string()),
            ("memcpyed", h.memcpyed().to_string()),
            ("split streams", (!h.dont_split()).to_string()),
            ("filters", format!("{filters:?}")),
            ("special value", h.special_bits().to_string()),
        ],
    );
    Ok(())
}

// ---------------------------------------------------------------- bench

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

#[allow(clippy::too_many_arguments)]
fn bench(
    file: Option<String>,
    clevel: u8,
    typesize: i32,
    threads: i16,
    only_codec: Option<CodecArg>,
    only_filter: Option<FilterArg>,
    repeat: u32,
    json_out: bool,
) -> Res<()> {
    let (data, label) = match &file {
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
    let codecs: Vec<u8> = match only_codec {
        Some(c) => vec![c.id()],
        None => vec![
            codec::BLOSCLZ,
            codec::LZ4,
            codec::LZ4HC,
            codec::ZLIB,
            codec::ZSTD,
        ],
    };
    let filters: Vec<u8> = match only_filter {
        Some(f) => vec![f.id()],
        None => vec![NOFILTER, SHUFFLE, BITSHUFFLE],
    };
    if !json_out {
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
            if json_out {
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

// ---------------------------------------------------------------- main

fn demo_cmd(dir: &Path, opts: &CompOpts) -> Res<()> {
    let data: Vec<u8> = (0..4).flat_map(|_| default_dataset()).collect();
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let (raw, frame, out) = (path("demo.raw"), path("demo.b2frame"), path("demo.out"));
    write_all_to(&raw, &data)?;
    println!(
        "built-in dataset: {} bytes of float64 (a noisy ramp) in {raw}",
        data.len()
    );
    let t = Instant::now();
    compress_cmd(&raw, &frame, opts)?;
    let ct = t.elapsed().as_secs_f64();
    println!("compressed into {frame} in {:.3} s", ct);
    info_cmd(&frame, false)?;
    let t = Instant::now();
    decompress_cmd(&frame, &out, opts.threads)?;
    let dt = t.elapsed().as_secs_f64();
    let back = read_all(&out)?;
    if back != data {
        return Err(format!("{out} differs from {raw}: the round trip failed"));
    }
    println!("decompressed into {out} in {dt:.3} s; every byte matches");
    Ok(())
}

fn run(cli: Cli) -> Res<()> {
    match cli.cmd {
        Cmd::Demo { dir, opts } => demo_cmd(&dir, &opts),
        Cmd::Compress {
            input,
            output,
            opts,
        } => compress_cmd(&input, &output, &opts),
        Cmd::Decompress {
            input,
            output,
            threads,
        } => decompress_cmd(&input, &output, threads),
        Cmd::Pack {
            input,
            output,
            opts,
            extra,
        } => pack_cmd(&input, &output, &opts, &extra),
        Cmd::Unpack {
            input,
            output,
            threads,
        } => unpack_cmd(&input, &output, threads),
        Cmd::Convert {
            input,
            output,
            opts,
            extra,
        } => convert_cmd(&input, &output, &opts, &extra),
        Cmd::Info { file, json } => info_cmd(&file, json),
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
