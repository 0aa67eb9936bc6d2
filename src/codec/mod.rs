//! Codecs: blosclz (ours), lz4/lz4hc, zlib, zstd, and user codecs registered at run time.

pub mod blosclz;
pub mod lz4;
pub mod ndlz;
pub mod zlib;
pub mod zstd;

use crate::error::{Error, Result};
use once_cell::sync::Lazy;
use std::sync::{Arc, RwLock};

/// Codec ids (`BLOSC_BLOSCLZ` ...).
pub const BLOSCLZ: u8 = 0;
/// LZ4.
pub const LZ4: u8 = 1;
/// LZ4HC.
pub const LZ4HC: u8 = 2;
/// zlib.
pub const ZLIB: u8 = 4;
/// Zstandard.
pub const ZSTD: u8 = 5;
/// Last id reserved for built-in codecs.
pub const DEFINED_CODECS_STOP: u8 = 31;
/// First id of user codecs.
pub const USER_CODECS_START: u8 = 160;

/// Codec formats (3 bits of the flags byte).
pub const FORMAT_BLOSCLZ: u8 = 0;
/// LZ4 and LZ4HC share a format.
pub const FORMAT_LZ4: u8 = 1;
/// zlib.
pub const FORMAT_ZLIB: u8 = 3;
/// zstd.
pub const FORMAT_ZSTD: u8 = 4;
/// User codec: the id is in the extended header.
pub const FORMAT_UDCODEC: u8 = 6;

/// Format of a codec id.
pub fn compformat(compcode: u8) -> u8 {
    match compcode {
        BLOSCLZ => FORMAT_BLOSCLZ,
        LZ4 | LZ4HC => FORMAT_LZ4,
        ZLIB => FORMAT_ZLIB,
        ZSTD => FORMAT_ZSTD,
        _ => FORMAT_UDCODEC,
    }
}

/// Codec format version written in header byte 1.
pub fn compversion(compcode: u8) -> Option<u8> {
    match compcode {
        BLOSCLZ | LZ4 | LZ4HC | ZLIB | ZSTD => Some(1),
        _ => find_user(compcode).map(|c| c.version),
    }
}

/// Name of a codec id (built in or registered).
pub fn name(compcode: u8) -> Option<String> {
    Some(match compcode {
        BLOSCLZ => "blosclz".into(),
        LZ4 => "lz4".into(),
        LZ4HC => "lz4hc".into(),
        ZLIB => "zlib".into(),
        ZSTD => "zstd".into(),
        _ => return find_user(compcode).map(|c| c.name.clone()),
    })
}

/// Codec id for a name.
pub fn code_of(name: &str) -> Option<u8> {
    match name {
        "blosclz" => Some(BLOSCLZ),
        "lz4" => Some(LZ4),
        "lz4hc" => Some(LZ4HC),
        "zlib" => Some(ZLIB),
        "zstd" => Some(ZSTD),
        _ => REGISTRY
            .read()
            .ok()?
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.compcode),
    }
}

/// Library name for a format code (`BloscLZ`, `LZ4`, ...).
pub fn libname(complib: u8) -> Option<String> {
    Some(match complib {
        FORMAT_BLOSCLZ => "BloscLZ".into(),
        FORMAT_LZ4 => "LZ4".into(),
        FORMAT_ZLIB => "Zlib".into(),
        FORMAT_ZSTD => "Zstd".into(),
        _ => {
            return REGISTRY
                .read()
                .ok()?
                .iter()
                .find(|c| c.complib == complib)
                .map(|c| c.name.clone())
        }
    })
}

/// Library code for a codec name.
pub fn complib_of(name: &str) -> Option<u8> {
    match name {
        "blosclz" => Some(FORMAT_BLOSCLZ),
        "lz4" | "lz4hc" => Some(FORMAT_LZ4),
        "zlib" => Some(FORMAT_ZLIB),
        "zstd" => Some(FORMAT_ZSTD),
        _ => REGISTRY
            .read()
            .ok()?
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.complib),
    }
}

/// Version string of the library behind a format code.
pub fn lib_version(complib: u8) -> String {
    match complib {
        FORMAT_BLOSCLZ => blosclz_version().into(),
        FORMAT_LZ4 => lz4::version(),
        FORMAT_ZLIB => zlib::version().into(),
        FORMAT_ZSTD => zstd::version(),
        _ => "unknown".into(),
    }
}

/// Version of our BloscLZ (the stream format it writes is that of BloscLZ 2.5).
pub fn blosclz_version() -> &'static str {
    "2.5.4"
}

/// What a user codec or filter sees of the parameters when it is called
/// (the C layer rebuilds `blosc2_cparams` / `blosc2_dparams` from it).
#[derive(Debug, Clone, Copy, Default)]
pub struct CallInfo {
    /// Codec meta byte (or the filter's meta byte for filters).
    pub meta: u8,
    /// Codec id.
    pub compcode: u8,
    /// Typesize of the chunk.
    pub typesize: i32,
    /// Compression level.
    pub clevel: u8,
    /// Block size.
    pub blocksize: i32,
    /// Split mode.
    pub splitmode: i32,
    /// Threads.
    pub nthreads: i16,
    /// Whether dictionaries are on.
    pub use_dict: bool,
    /// Filter pipeline.
    pub filters: [u8; 6],
    /// Filter meta.
    pub filters_meta: [u8; 6],
    /// Opaque user pointer for codec parameters (C `codec_params`).
    pub codec_params: usize,
    /// Opaque user pointers for filter parameters (C `filter_params`).
    pub filter_params: [usize; 6],
    /// Opaque schunk pointer, passed through for the C layer.
    pub schunk: usize,
}

/// A codec supplied by the user (the C layer wraps `blosc2_codec` in this).
pub trait CodecPlugin: Send + Sync {
    /// Compress `src` into `dest`; the number of bytes written, 0 if it does not fit,
    /// negative on error.
    fn encode(&self, src: &[u8], dest: &mut [u8], info: &CallInfo, chunk: &[u8]) -> i32;
    /// Decompress `src` into `dest`; the number of bytes written or negative.
    fn decode(&self, src: &[u8], dest: &mut [u8], info: &CallInfo, chunk: &[u8]) -> i32;
}

/// One registered codec.
#[derive(Clone)]
pub struct RegisteredCodec {
    /// Id (32..=255).
    pub compcode: u8,
    /// Name.
    pub name: String,
    /// Library code.
    pub complib: u8,
    /// Format version.
    pub version: u8,
    /// Implementation.
    pub plugin: Arc<dyn CodecPlugin>,
}

// Starts with the codecs the reference registers at start (ndlz).
static REGISTRY: Lazy<RwLock<Vec<RegisteredCodec>>> = Lazy::new(|| {
    RwLock::new(vec![RegisteredCodec {
        compcode: ndlz::NDLZ,
        name: "ndlz".into(),
        complib: ndlz::NDLZ,
        version: 1,
        plugin: Arc::new(ndlz::Ndlz),
    }])
});

/// Find a registered codec.
pub fn find_user(compcode: u8) -> Option<RegisteredCodec> {
    REGISTRY
        .read()
        .ok()?
        .iter()
        .find(|c| c.compcode == compcode)
        .cloned()
}

/// Register a codec; the id must not be a built-in one and not already taken.
pub fn register(codec: RegisteredCodec) -> Result<()> {
    if codec.compcode <= DEFINED_CODECS_STOP {
        return Err(Error::Failure);
    }
    let mut reg = REGISTRY.write().map_err(|_| Error::Failure)?;
    if reg.len() >= 256 {
        return Err(Error::Failure);
    }
    if reg.iter().any(|c| c.compcode == codec.compcode) {
        // The reference accepts re-registering the same id silently.
        return Ok(());
    }
    reg.push(codec);
    Ok(())
}

/// Whether a codec id can be used for compression.
pub fn is_supported(compcode: u8) -> bool {
    matches!(compcode, BLOSCLZ | LZ4 | LZ4HC | ZLIB | ZSTD) || find_user(compcode).is_some()
}

/// A dictionary prepared for compressing.
pub struct CompressDict {
    /// Raw dictionary bytes as stored in the chunk.
    pub bytes: Vec<u8>,
    /// Digested form for zstd.
    pub zstd: Option<::zstd_safe::CDict<'static>>,
}

/// A dictionary prepared for decompressing.
pub struct DecompressDict<'a> {
    /// Raw dictionary bytes (inside the chunk).
    pub bytes: &'a [u8],
    /// Digested form for zstd.
    pub zstd: Option<::zstd_safe::DDict<'static>>,
}

/// Compress one stream with a built-in or user codec. Returns the compressed size,
/// 0 when the output does not fit (the caller then stores the bytes raw).
pub fn compress_stream(
    compcode: u8,
    clevel: i32,
    src: &[u8],
    dest: &mut [u8],
    dict: Option<&CompressDict>,
    info: &CallInfo,
    chunk: &[u8],
) -> Result<usize> {
    let n = match compcode {
        BLOSCLZ => blosclz::compress(clevel, src, dest),
        LZ4 => lz4::compress(src, dest, 10 - clevel, dict.map(|d| d.bytes.as_slice())),
        LZ4HC => lz4::compress_hc(src, dest, clevel, dict.map(|d| d.bytes.as_slice())),
        ZLIB => zlib::compress(src, dest, clevel),
        ZSTD => zstd::compress(src, dest, clevel, dict.and_then(|d| d.zstd.as_ref())),
        _ => {
            let Some(c) = find_user(compcode) else {
                return Err(Error::CodecSupport);
            };
            let r = c.plugin.encode(src, dest, info, chunk);
            if r < 0 {
                return Err(Error::Data);
            }
            r as usize
        }
    };
    if n > dest.len() {
        return Err(Error::WriteBuffer);
    }
    Ok(n)
}

/// Decompress one stream. `compformat` comes from the flags, `compcode` from the
/// extended header (only used for user codecs). Errors when the stream is bad or
/// does not decode to exactly `dest.len()` bytes.
pub fn decompress_stream(
    compformat: u8,
    compcode: u8,
    src: &[u8],
    dest: &mut [u8],
    dict: Option<&DecompressDict>,
    info: &CallInfo,
    chunk: &[u8],
) -> Result<()> {
    let n = match compformat {
        FORMAT_BLOSCLZ => blosclz::decompress(src, dest),
        FORMAT_LZ4 => lz4::decompress(src, dest, dict.map(|d| d.bytes)),
        FORMAT_ZLIB => zlib::decompress(src, dest),
        FORMAT_ZSTD => zstd::decompress(src, dest, dict.and_then(|d| d.zstd.as_ref())),
        FORMAT_UDCODEC => {
            let Some(c) = find_user(compcode) else {
                return Err(Error::CodecSupport);
            };
            let r = c.plugin.decode(src, dest, info, chunk);
            if r < 0 {
                return Err(Error::Data);
            }
            Some(r as usize)
        }
        _ => return Err(Error::CodecSupport),
    };
    match n {
        Some(n) if n == dest.len() => Ok(()),
        _ => Err(Error::Data),
    }
}
