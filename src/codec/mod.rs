//! Codecs: blosclz (ours), lz4/lz4hc, zlib, zstd, the plugins registered at
//! start (ndlz, zfp with the `zfp` feature, the placeholders) and user codecs
//! registered at run time.

#[cfg_attr(feature = "zlib-ng", allow(dead_code))]
mod adler32;
pub mod blosclz;
mod incompressible;
#[cfg(test)]
mod incompressible_soundness;
pub mod lz4;
pub mod ndlz;
#[cfg(feature = "zfp")]
pub mod zfp;
pub mod zlib;
pub mod zstd;

use crate::error::{Error, Result};
pub use crate::plugin::{ArrayShape, CallInfo, CodecPlugin, ARRAY_MAX_DIM};
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
/// The built-in codecs, in id order.
pub const BUILTIN: [u8; 5] = [BLOSCLZ, LZ4, LZ4HC, ZLIB, ZSTD];
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

/// Name of a codec id given as a C `int` (None outside 0..=255).
pub fn name_of_code(compcode: i32) -> Option<String> {
    u8::try_from(compcode).ok().and_then(name)
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

/// What the C API's `blosc2_get_complib_info` reports for a codec name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComplibInfo {
    /// The library's format code; `None` for a name no library serves.
    pub complib: Option<u8>,
    /// The library's name (a user codec's own name).
    pub libname: Option<String>,
    /// Its version; "unknown" for user codecs and unknown names.
    pub version: String,
}

/// The library behind codec `name`, its name and version.
pub fn complib_info(name: &str) -> ComplibInfo {
    let complib = complib_of(name);
    ComplibInfo {
        complib,
        libname: complib.and_then(libname),
        version: complib.map_or_else(|| "unknown".into(), lib_version),
    }
}

/// Version reported for BloscLZ: our encoder writes the reference's bytes
/// (BloscLZ 2.5.3, as c-blosc2 3.3 reports it, and as programs such as the
/// blosc2-rs crate's tests check).
pub fn blosclz_version() -> &'static str {
    "2.5.3"
}

/// `BLOSC_CODEC_ZFP_FIXED_ACCURACY`.
pub const ZFP_FIXED_ACCURACY: u8 = 33;
/// `BLOSC_CODEC_ZFP_FIXED_PRECISION`.
pub const ZFP_FIXED_PRECISION: u8 = 34;
/// `BLOSC_CODEC_ZFP_FIXED_RATE`.
pub const ZFP_FIXED_RATE: u8 = 35;

/// The ZFP codecs (id, name): implemented with the `zfp` feature,
/// placeholders without it.
pub const ZFP_CODECS: [(u8, &str); 3] = [
    (ZFP_FIXED_ACCURACY, "zfp_acc"),
    (ZFP_FIXED_PRECISION, "zfp_prec"),
    (ZFP_FIXED_RATE, "zfp_rate"),
];

/// The codecs the reference registers at start by name only, their
/// implementation being loaded on demand from separate plugin packages
/// (`BLOSC_CODEC_OPENHTJ2K` ... `BLOSC_CODEC_HTJ2K`): placeholders here.
pub const PLACEHOLDER_CODECS: [(u8, &str); 5] = [
    (36, "openhtj2k"),
    (37, "grok"),
    (38, "openzl"),
    (39, "j2k"),
    (40, "htj2k"),
];

/// A codec known by id and name only: chunks naming it fail with
/// `BLOSC2_ERROR_CODEC_SUPPORT` (as the reference's when the plugin package
/// cannot be loaded) and a user may register an implementation in its place.
pub struct Unavailable;

impl CodecPlugin for Unavailable {
    fn encode(&self, _: &[u8], _: &mut [u8], _: &CallInfo, _: &[u8]) -> i32 {
        Error::CodecSupport.code()
    }
    fn decode(&self, _: &[u8], _: &mut [u8], _: &CallInfo, _: &[u8]) -> i32 {
        Error::CodecSupport.code()
    }
    fn available(&self) -> bool {
        false
    }
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

/// A codec registered at start, as the reference's `register_codecs` does
/// (complib = id, version 1).
fn builtin(compcode: u8, name: &str, plugin: Arc<dyn CodecPlugin>) -> RegisteredCodec {
    RegisteredCodec {
        compcode,
        name: name.into(),
        complib: compcode,
        version: 1,
        plugin,
    }
}

/// The ZFP codecs as registered at start: implemented.
#[cfg(feature = "zfp")]
fn zfp_codecs() -> impl Iterator<Item = RegisteredCodec> {
    [zfp::Kind::Accuracy, zfp::Kind::Precision, zfp::Kind::Rate]
        .into_iter()
        .map(|kind| builtin(kind.compcode(), kind.name(), Arc::new(zfp::Zfp(kind))))
}

/// The ZFP codecs as registered at start: built without zfp, placeholders.
#[cfg(not(feature = "zfp"))]
fn zfp_codecs() -> impl Iterator<Item = RegisteredCodec> {
    ZFP_CODECS
        .into_iter()
        .map(|(id, name)| builtin(id, name, Arc::new(Unavailable)))
}

// Starts with the codecs the reference registers at start: ndlz, the three
// zfp ones and the placeholders of the plugins it loads on demand.
static REGISTRY: Lazy<RwLock<Vec<RegisteredCodec>>> = Lazy::new(|| {
    let mut codecs = vec![builtin(ndlz::NDLZ, "ndlz", Arc::new(ndlz::Ndlz))];
    codecs.extend(zfp_codecs());
    codecs.extend(
        PLACEHOLDER_CODECS
            .into_iter()
            .map(|(id, name)| builtin(id, name, Arc::new(Unavailable))),
    );
    RwLock::new(codecs)
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

/// Whether `compcode` is that of a codec registered at start without an
/// implementation ([`PLACEHOLDER_CODECS`], and [`ZFP_CODECS`] when built
/// without the `zfp` feature): users may register one under that id (the
/// only ids below [`USER_CODECS_START`] they may use).
pub fn is_pluggable(compcode: u8) -> bool {
    PLACEHOLDER_CODECS.iter().any(|&(id, _)| id == compcode)
        || (cfg!(not(feature = "zfp")) && ZFP_CODECS.iter().any(|&(id, _)| id == compcode))
}

/// Whether `compcode` is still a placeholder: pluggable, and no one has
/// registered an implementation for it yet.
pub fn is_placeholder(compcode: u8) -> bool {
    find_user(compcode).is_some_and(|c| !c.plugin.available())
}

/// Register a codec under the reference's rules, with one extension.
///
/// Ids below [`USER_CODECS_START`] belong to Blosc and are refused
/// ([`Error::CodecParam`]), except a pluggable one ([`is_pluggable`]): its
/// placeholder is replaced, under any name (the reference refuses them all),
/// and from then on the id behaves as a user one.  Registering an id that
/// already has an implementation succeeds and keeps it when the name is the
/// same, and fails with [`Error::CodecParam`] otherwise.  A full registry
/// gives [`Error::CodecSupport`].
pub fn register(codec: RegisteredCodec) -> Result<()> {
    if codec.compcode < USER_CODECS_START && !is_pluggable(codec.compcode) {
        return Err(Error::CodecParam);
    }
    let mut reg = REGISTRY.write().map_err(|_| Error::CodecSupport)?;
    if let Some(c) = reg.iter_mut().find(|c| c.compcode == codec.compcode) {
        if !c.plugin.available() {
            *c = codec;
            return Ok(());
        }
        return if c.name == codec.name {
            Ok(())
        } else {
            Err(Error::CodecParam)
        };
    }
    if reg.len() >= 256 {
        return Err(Error::CodecSupport);
    }
    reg.push(codec);
    Ok(())
}

/// Whether a codec id can be used for compression.
pub fn is_supported(compcode: u8) -> bool {
    matches!(compcode, BLOSCLZ | LZ4 | LZ4HC | ZLIB | ZSTD)
        || find_user(compcode).is_some_and(|c| c.plugin.available())
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

/// The shortest stream zstd leaves to the incompressible-stream test.
const INCOMPRESSIBLE_MIN_ZSTD: usize = incompressible::SEGMENT;

/// Whether the incompressible-stream test runs before the codec, and what
/// it must assume the codec can take out of bytes (None: the codec runs
/// at once).
///
/// The test runs where the codec at this level spends longer on `len`
/// bytes it cannot shrink (to give them back unchanged, the block then
/// stored) than [`incompressible::all_incompressible`] takes to find them
/// so; a stream the test accepts throughout is then stored at once. The
/// test runs at 0.75-1.3 GB/s on random bytes (the slower figure with
/// zstd's steps test) and turns most other streams down after a 64-byte
/// sample. On random bytes (`cargo bench --bench giveup`, 2-core Xeon,
/// docs/performance.md): LZ4HC from clevel 3 runs at 0.06-0.3 GB/s; zstd's
/// speed follows the search its level picks for the input size (its
/// parameter tables for up to 16 KiB, 128 KiB, 256 KiB and more), 0.03-0.5
/// GB/s from clevel 5 on streams of 4-16 KiB (a shuffled block split in
/// streams), from clevel 6 up to 256 KiB and from clevel 7 above, 1.1-11
/// GB/s below those. zlib stores such stretches itself (`zlib::compress`);
/// BloscLZ and LZ4 give up faster than the test.
///
/// LZ4HC only finds repeats; zstd's entropy coder finds more than the
/// order-0 test sees, so its streams pass the steps test too.
fn incompressible_test(compcode: u8, clevel: i32, len: usize) -> Option<incompressible::Coder> {
    use incompressible::Coder::{Matches, MatchesAndEntropy};
    match compcode {
        LZ4HC if clevel >= 3 => Some(Matches),
        // Not below one whole segment: the test's entropy bound widens as
        // the bytes get fewer, and zstd's Huffman-coded literals shrink a
        // short stream just inside it by a few percent.
        ZSTD => {
            let from = match len {
                0..INCOMPRESSIBLE_MIN_ZSTD => return None,
                INCOMPRESSIBLE_MIN_ZSTD..=0x4000 => 5,
                0x4001..=0x40000 => 6,
                _ => 7,
            };
            (clevel >= from).then_some(MatchesAndEntropy)
        }
        _ => None,
    }
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
    if let Some(coder) = incompressible_test(compcode, clevel, src.len()).filter(|_| dict.is_none())
    {
        if incompressible::all_incompressible(src, coder) {
            return Ok(0);
        }
    }
    let n = match compcode {
        BLOSCLZ => blosclz::compress(clevel, src, dest),
        LZ4 => lz4::compress(src, dest, 10 - clevel, dict.map(|d| d.bytes.as_slice())),
        LZ4HC => lz4::compress_hc(src, dest, clevel, dict.map(|d| d.bytes.as_slice())),
        ZLIB => zlib::compress(src, dest, clevel, zlib::Layout::of(&info.filters)),
        ZSTD => zstd::compress(src, dest, clevel, dict.and_then(|d| d.zstd.as_ref())),
        _ => {
            let Some(c) = find_user(compcode).filter(|c| c.plugin.available()) else {
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
///
/// Inlined into the block decoder's loop over streams, with the user-codec
/// path kept out of line: a block of a small chunk has up to `typesize`
/// streams of a few hundred bytes each, where a call per stream is a
/// noticeable part of the work.
#[inline]
pub fn decompress_stream(
    compformat: u8,
    compcode: u8,
    src: &[u8],
    dest: &mut [u8],
    dict: Option<&DecompressDict>,
    info: &CallInfo,
    chunk: &[u8],
) -> Result<()> {
    let len = dest.len();
    decompress_stream_into(compformat, compcode, src, dest, len, dict, info, chunk)
}

/// [`decompress_stream`] of a stream of `len` bytes into `buf[..len]`,
/// where the decoder may also write anything into `buf[len..]` (the
/// caller's room past the stream: the next stream's place, or spare
/// bytes). LZ4's and BloscLZ's decoders take it. LZ4's fast loop stops
/// 64 bytes before the end of the room it is given and the rest goes
/// through a slower loop, which for a long match ending the stream (the
/// zero rows of a shuffled block) copied the whole match slowly (one
/// shuffled 32 KiB block of i32 arange: 1.33 us without room, 0.49 us
/// with 64 bytes); BloscLZ's copies the end of a block with its
/// fixed-size literal copy too. A stream that decodes to more than `len` bytes is an error as
/// before; one whose last match or literals break LZ4's end-of-block
/// margins (which the decoder checks against the end of the room) now
/// decodes to its bytes instead of failing.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn decompress_stream_into(
    compformat: u8,
    compcode: u8,
    src: &[u8],
    buf: &mut [u8],
    len: usize,
    dict: Option<&DecompressDict>,
    info: &CallInfo,
    chunk: &[u8],
) -> Result<()> {
    let dest = &mut buf[..len];
    let n = match compformat {
        FORMAT_BLOSCLZ => blosclz::decompress(src, buf),
        FORMAT_LZ4 => lz4::decompress(src, buf, dict.map(|d| d.bytes)),
        FORMAT_ZLIB => zlib::decompress(src, dest, info.byte_shuffled()),
        FORMAT_ZSTD => zstd::decompress(src, dest, dict.and_then(|d| d.zstd.as_ref())),
        FORMAT_UDCODEC => Some(decode_user(compcode, src, dest, info, chunk)?),
        _ => return Err(Error::CodecSupport),
    };
    match n {
        Some(n) if n == len => Ok(()),
        _ => Err(Error::Data),
    }
}

/// The user-codec branch of [`decompress_stream`], kept out of line.
#[cold]
#[inline(never)]
fn decode_user(
    compcode: u8,
    src: &[u8],
    dest: &mut [u8],
    info: &CallInfo,
    chunk: &[u8],
) -> Result<usize> {
    let Some(c) = find_user(compcode).filter(|c| c.plugin.available()) else {
        return Err(Error::CodecSupport);
    };
    let r = c.plugin.decode(src, dest, info, chunk);
    if r < 0 {
        return Err(Error::Data);
    }
    Ok(r as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::{self, CParams, DParams};

    /// A stream decoded with room past it gives exactly its bytes when it
    /// has `len` of them, and an error when it has more, for both codecs
    /// that take the room; the room's bytes are the caller's to lose.
    #[test]
    fn streams_decoded_with_room_must_end_at_len() {
        let data: Vec<u8> = (0..3000u32)
            .map(|i| if i % 50 == 0 { i as u8 } else { 0 })
            .collect();
        let info = CallInfo::default();
        let mut lz = vec![0u8; 4000];
        let n = lz4::compress(&data, &mut lz, 1, None);
        assert!(n > 0);
        let mut bz = vec![0u8; 4000];
        let m = blosclz::compress(5, &data, &mut bz);
        assert!(m > 0);
        for (format, stream) in [(FORMAT_LZ4, &lz[..n]), (FORMAT_BLOSCLZ, &bz[..m])] {
            let mut buf = vec![0xEEu8; data.len() + 64];
            let r =
                decompress_stream_into(format, 0, stream, &mut buf, data.len(), None, &info, &[]);
            assert_eq!(r, Ok(()), "format {format}");
            assert_eq!(&buf[..data.len()], &data[..]);
            let short = data.len() - 10;
            let r = decompress_stream_into(format, 0, stream, &mut buf, short, None, &info, &[]);
            assert_eq!(r, Err(Error::Data), "format {format}");
        }
    }

    #[test]
    fn codes_outside_a_byte_have_no_name() {
        assert_eq!(name_of_code(ZSTD as i32).as_deref(), Some("zstd"));
        assert_eq!(name_of_code(-1), None);
        assert_eq!(name_of_code(256 + ZSTD as i32), None);
    }

    #[test]
    fn complib_info_names_the_library_behind_a_codec() {
        let lz4hc = complib_info("lz4hc");
        assert_eq!(lz4hc.complib, Some(FORMAT_LZ4));
        assert_eq!(lz4hc.libname.as_deref(), Some("LZ4"));
        assert_eq!(lz4hc.version, lz4::version());
        assert_eq!(complib_info("blosclz").version, "2.5.3");
        let unknown = complib_info("no-such-codec");
        assert_eq!((unknown.complib, unknown.libname), (None, None));
        assert_eq!(unknown.version, "unknown");
    }

    /// A stream codec for the tests: runs as (count 1..=255, byte) pairs.
    struct Rle;

    impl CodecPlugin for Rle {
        fn encode(&self, src: &[u8], dest: &mut [u8], _: &CallInfo, _: &[u8]) -> i32 {
            let mut o = 0;
            let mut i = 0;
            while i < src.len() {
                let r = src[i..]
                    .iter()
                    .take(255)
                    .take_while(|&&b| b == src[i])
                    .count();
                if o + 2 > dest.len() {
                    return 0;
                }
                dest[o] = r as u8;
                dest[o + 1] = src[i];
                o += 2;
                i += r;
            }
            o as i32
        }
        fn decode(&self, src: &[u8], dest: &mut [u8], _: &CallInfo, _: &[u8]) -> i32 {
            let mut o = 0;
            for pair in src.chunks_exact(2) {
                let n = pair[0] as usize;
                let Some(d) = dest.get_mut(o..o + n) else {
                    return Error::WriteBuffer.code();
                };
                d.fill(pair[1]);
                o += n;
            }
            o as i32
        }
    }

    /// The codecs registered without an implementation in this build.
    fn placeholders() -> Vec<(u8, &'static str)> {
        let mut ids = PLACEHOLDER_CODECS.to_vec();
        if cfg!(not(feature = "zfp")) {
            ids.extend(ZFP_CODECS);
        }
        ids
    }

    fn data() -> Vec<u8> {
        (0..4096u32).map(|i| (i / 16) as u8).collect()
    }

    /// An LZ4 chunk of `src` relabelled as one of user codec `id` (its
    /// streams are not stored raw, so decoding calls the codec).
    fn chunk_naming(id: u8, src: &[u8]) -> Vec<u8> {
        let p = CParams {
            compcode: LZ4,
            typesize: 1,
            ..CParams::default()
        };
        let mut c = chunk::compress(&p, src).unwrap();
        assert_eq!(c[2] & 0x02, 0);
        c[2] = (c[2] & 0x1f) | (FORMAT_UDCODEC << 5);
        c[22] = id;
        c
    }

    /// zstd's slow searches depend on the stream's size (its parameter
    /// tables): a small stream is tested from clevel 5, one up to 256 KiB
    /// from clevel 6, a larger one from clevel 7, one under 4 KiB never;
    /// the other codecs as before.
    #[test]
    fn slow_searches_follow_the_stream_size() {
        let cases = [
            (4095, 9, false),
            (4096, 5, true),
            (16 << 10, 4, false),
            (16 << 10, 5, true),
            ((16 << 10) + 1, 5, false),
            ((16 << 10) + 1, 6, true),
            (256 << 10, 6, true),
            ((256 << 10) + 1, 6, false),
            ((256 << 10) + 1, 7, true),
        ];
        use incompressible::Coder::{Matches, MatchesAndEntropy};
        for (len, clevel, slow) in cases {
            let want = slow.then_some(MatchesAndEntropy);
            assert_eq!(
                incompressible_test(ZSTD, clevel, len),
                want,
                "{len} {clevel}"
            );
        }
        assert_eq!(incompressible_test(LZ4HC, 3, 1 << 20), Some(Matches));
        assert_eq!(incompressible_test(LZ4HC, 2, 100), None);
        assert_eq!(incompressible_test(LZ4, 9, 100), None);
        assert_eq!(incompressible_test(BLOSCLZ, 9, 100), None);
        assert_eq!(incompressible_test(ZLIB, 9, 1 << 20), None);
        // A random 8 KiB stream at zstd clevel 5 is given back to be stored;
        // a compressible one of the same size is compressed.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let random: Vec<u8> = (0..8192)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect();
        let mut out = vec![0u8; 9000];
        let info = CallInfo::default();
        assert_eq!(
            compress_stream(ZSTD, 5, &random, &mut out, None, &info, &[]),
            Ok(0)
        );
        let text: Vec<u8> = (0..8192u32).map(|i| (i / 16) as u8).collect();
        let n = compress_stream(ZSTD, 5, &text, &mut out, None, &info, &[]).unwrap();
        assert!(n > 0 && n < 1000, "{n}");
    }

    #[cfg(feature = "zfp")]
    #[test]
    fn zfp_codecs_are_implemented() {
        for (id, name) in ZFP_CODECS {
            assert_eq!(code_of(name), Some(id));
            assert!(is_supported(id) && !is_placeholder(id), "{name}");
        }
    }

    #[test]
    fn blosc_ids_are_refused() {
        for id in [BLOSCLZ, ZSTD, ndlz::NDLZ, 41, USER_CODECS_START - 1] {
            let c = RegisteredCodec {
                compcode: id,
                name: "tc_refused".into(),
                complib: id,
                version: 1,
                plugin: Arc::new(Rle),
            };
            assert_eq!(register(c).err(), Some(Error::CodecParam), "{id}");
        }
        assert_eq!(code_of("tc_refused"), None);
    }

    // One test, as it ends by replacing a placeholder in the global registry.
    #[test]
    fn placeholders_are_known_unusable_and_replaceable() {
        let src = data();
        let mut out = vec![0u8; 64];
        let info = CallInfo::default();
        for (id, name) in placeholders() {
            assert_eq!(self::name(id).as_deref(), Some(name));
            assert_eq!(code_of(name), Some(id));
            assert_eq!(complib_of(name), Some(id));
            assert_eq!(libname(id).as_deref(), Some(name));
            assert_eq!(compversion(id), Some(1));
            assert!(is_placeholder(id) && !is_supported(id), "{name}");
            assert_eq!(
                compress_stream(id, 5, &src, &mut out, None, &info, &[]).err(),
                Some(Error::CodecSupport)
            );
            assert_eq!(
                decompress_stream(FORMAT_UDCODEC, id, &src, &mut out, None, &info, &[]).err(),
                Some(Error::CodecSupport)
            );
            let p = CParams {
                compcode: id,
                typesize: 1,
                ..CParams::default()
            };
            assert_eq!(
                chunk::compress(&p, &src).err().map(|e| e.code()),
                Some(Error::CodecSupport.code())
            );
            let c = chunk_naming(id, &src);
            assert_eq!(
                chunk::decompress(&DParams::default(), &c)
                    .err()
                    .map(|e| e.code()),
                Some(Error::CodecSupport.code())
            );
        }
        // Not placeholders: built in, ndlz, unknown.
        for id in [LZ4, ndlz::NDLZ, 41, 159, 200] {
            assert!(!is_placeholder(id) && !is_pluggable(id), "{id}");
        }
        for (id, _) in placeholders() {
            assert!(is_pluggable(id), "{id}");
        }
        #[cfg(feature = "zfp")]
        for (id, _) in ZFP_CODECS {
            assert!(!is_pluggable(id), "{id}");
        }

        // Registering an implementation replaces the placeholder, name too.
        let rle = |name: &str| RegisteredCodec {
            compcode: 40,
            name: name.into(),
            complib: 40,
            version: 2,
            plugin: Arc::new(Rle),
        };
        register(rle("tc_rle")).unwrap();
        assert!(!is_placeholder(40) && is_pluggable(40) && is_supported(40));
        assert_eq!(self::name(40).as_deref(), Some("tc_rle"));
        assert_eq!(code_of("tc_rle"), Some(40));
        assert_eq!(code_of("htj2k"), None);
        assert_eq!(compversion(40), Some(2));
        let p = CParams {
            compcode: 40,
            typesize: 1,
            ..CParams::default()
        };
        let c = chunk::compress(&p, &src).unwrap();
        assert_eq!((c[2] >> 5, c[2] & 0x02, c[22]), (FORMAT_UDCODEC, 0, 40));
        assert!(c.len() < src.len() / 4);
        assert_eq!(chunk::decompress(&DParams::default(), &c).unwrap(), src);
        // An implementation is not replaced: the same name is accepted, a
        // new one refused.
        register(rle("tc_rle")).unwrap();
        assert_eq!(register(rle("tc_other")).err(), Some(Error::CodecParam));
        assert_eq!(self::name(40).as_deref(), Some("tc_rle"));
        // The other placeholders are still there.
        assert!(is_placeholder(39));
    }
}
