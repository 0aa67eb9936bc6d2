//! The option types several subcommands share: codec, filter and checksum
//! names, sizes with suffixes, the compression options and the Bloscpack-only
//! ones.

use blosc2::bloscpack::checksum::{self, Checksum};
use blosc2::chunk::CParams;
use blosc2::codec;
use blosc2::format::header::{BITSHUFFLE, NOFILTER, SHUFFLE};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// The default of every `--threads`: one worker per core, as `zstd -T0` and
/// `pigz` do (the most `--threads` accepts is 256).
pub fn default_threads() -> i16 {
    std::thread::available_parallelism()
        .map(|n| n.get().min(256) as i16)
        .unwrap_or(1)
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
pub enum CodecArg {
    Blosclz,
    Lz4,
    Lz4hc,
    Zlib,
    Zstd,
}

impl CodecArg {
    /// The codec's Blosc2 id.
    pub fn id(self) -> u8 {
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
pub enum FilterArg {
    Noshuffle,
    Shuffle,
    Bitshuffle,
}

impl FilterArg {
    /// The filter's Blosc2 id.
    pub fn id(self) -> u8 {
        match self {
            FilterArg::Noshuffle => NOFILTER,
            FilterArg::Shuffle => SHUFFLE,
            FilterArg::Bitshuffle => BITSHUFFLE,
        }
    }
}

/// A Bloscpack checksum by name, in any case (`none`, `adler32`, ..., `sha512`).
pub fn parse_checksum(s: &str) -> Result<Checksum, String> {
    Checksum::from_name(s).ok_or_else(|| {
        let names: Vec<String> = checksum::ALL
            .iter()
            .map(|c| c.name().to_ascii_lowercase())
            .collect();
        format!("'{s}' is not a checksum (one of {})", names.join(", "))
    })
}

/// A byte count with an optional K, M or G suffix, between 1 byte and 2 GiB.
pub fn parse_size(s: &str) -> Result<usize, String> {
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

/// `--threads`, shared by every subcommand that compresses or decompresses.
#[derive(Args, Clone, Copy, Debug)]
pub struct Workers {
    /// Worker threads (default: one per core).
    #[arg(long, default_value_t = default_threads(), value_parser = clap::value_parser!(i16).range(1..=256))]
    pub threads: i16,
}

/// Compression options shared by `compress`, `pack`, `convert` and `demo`.
#[derive(Args, Clone, Debug)]
pub struct CompOpts {
    /// Codec.
    #[arg(long, value_enum, default_value_t = CodecArg::Zstd)]
    pub codec: CodecArg,
    /// Compression level (0-9).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u8).range(0..=9))]
    pub clevel: u8,
    /// Filter applied before the codec.
    #[arg(long, value_enum, default_value_t = FilterArg::Shuffle)]
    pub filter: FilterArg,
    /// Item size in bytes (what the shuffle filters work on).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=255))]
    pub typesize: u16,
    /// Uncompressed bytes per chunk (suffixes K, M, G).
    #[arg(long, default_value = "4M", value_parser = parse_size)]
    pub chunk_size: usize,
    #[command(flatten)]
    pub workers: Workers,
}

impl CompOpts {
    /// The chunk compression parameters these options name.
    pub fn cparams(&self) -> CParams {
        let mut filters = [0u8; 6];
        filters[5] = self.filter.id();
        CParams {
            compcode: self.codec.id(),
            clevel: self.clevel,
            typesize: self.typesize as i32,
            nthreads: self.workers.threads,
            filters,
            ..CParams::default()
        }
    }
}

/// Bloscpack-only options.
#[derive(Args, Clone, Debug)]
pub struct PackExtra {
    /// Checksum stored after each chunk: none, adler32, crc32, md5, sha1,
    /// sha224, sha256, sha384 or sha512.
    #[arg(long, default_value = "adler32", value_parser = parse_checksum)]
    pub checksum: Checksum,
    /// Leave out the offsets section.
    #[arg(long)]
    pub no_offsets: bool,
    /// Spare offset entries for chunks appended later (default 10 × nchunks).
    #[arg(long)]
    pub max_app_chunks: Option<u32>,
    /// JSON file stored in the metadata section.
    #[arg(long, value_name = "JSON_FILE")]
    pub metadata: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_suffixes_and_stay_in_range() {
        assert_eq!(parse_size("65536"), Ok(65536));
        assert_eq!(parse_size("512k"), Ok(512 << 10));
        assert_eq!(parse_size("4M"), Ok(4 << 20));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert!(parse_size("0").is_err());
        assert!(parse_size("2G").is_err());
        assert!(parse_size("x").is_err());
        assert!(parse_size("99999999999999999999G").is_err());
    }

    #[test]
    fn checksums_are_named_as_bloscpack_names_them() {
        assert_eq!(parse_checksum("sha256"), Ok(Checksum::Sha256));
        assert_eq!(parse_checksum("None"), Ok(Checksum::None));
        assert_eq!(parse_checksum("none"), Ok(Checksum::None));
        let e = parse_checksum("crc64").unwrap_err();
        assert!(
            e.ends_with("(one of none, adler32, crc32, md5, sha1, sha224, sha256, sha384, sha512)"),
            "{e}"
        );
    }

    #[test]
    fn default_threads_is_one_per_core() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(default_threads() as usize, cores.min(256));
    }
}
