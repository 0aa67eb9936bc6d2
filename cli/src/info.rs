//! `blosc2 info FILE`: what a chunk, a contiguous frame, a sparse frame
//! (directory) or a Bloscpack file holds, as aligned lines or one JSON object.
//!
//! [`info`] reads files from anyone: every malformed input is an `Err`, never
//! a panic (fuzz/cli_info.c runs it on arbitrary bytes).

use crate::common::{read_all, Res};
use blosc2::bloscpack;
use blosc2::chunk;
use blosc2::codec;
use blosc2::format::header::{BITSHUFFLE, SHUFFLE};
use blosc2::schunk::SuperChunk;
use serde_json::json;
use std::io::Write;
use std::path::Path;

/// The report in both forms; `print` writes the one asked for.
struct Report<'a> {
    json: serde_json::Value,
    lines: Vec<(&'a str, String)>,
}

impl Report<'_> {
    fn print(&self, as_json: bool, out: &mut dyn Write) -> Res<()> {
        let r = if as_json {
            writeln!(out, "{}", self.json)
        } else {
            self.lines
                .iter()
                .try_for_each(|(k, v)| writeln!(out, "{:<16}{v}", format!("{k}:")))
        };
        r.map_err(|e| format!("cannot write the report: {e}"))
    }
}

/// Describe `file` ("-" is stdin; a directory is read as a sparse frame) on
/// `out`, as JSON when `as_json`.
pub fn info(file: &str, as_json: bool, out: &mut dyn Write) -> Res<()> {
    let report = if file != "-" && Path::new(file).is_dir() {
        let sc = SuperChunk::open(Path::new(file), 0)
            .map_err(|e| format!("{file}: not a readable sparse frame: {e}"))?;
        frame_report(&sc, "sparse frame")
    } else {
        let data = read_all(file)?;
        if data.starts_with(bloscpack::header::MAGIC) {
            bloscpack_report(file, &data)?
        } else if data.len() > 16 && data[2..9] == *b"b2frame" {
            // a frame's header starts with a msgpack array holding "b2frame"
            let sc = SuperChunk::from_frame_bytes(data, true)
                .map_err(|e| format!("{file}: corrupt Blosc2 frame: {e}"))?;
            frame_report(&sc, "contiguous frame")
        } else {
            chunk_report(file, &data)?
        }
    };
    report.print(as_json, out)
}

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

/// A super-chunk's parameters, and the shapes and dtype when it holds an
/// n-dimensional (b2nd) array.
fn frame_report(sc: &SuperChunk, kind: &str) -> Report<'static> {
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
    Report { json: v, lines }
}

/// A Bloscpack file's header and metadata; walks the chunks (without
/// decompressing them) for the codec and the uncompressed size.
fn bloscpack_report(file: &str, data: &[u8]) -> Res<Report<'static>> {
    let len = data.len() as u64;
    let mut r = bloscpack::Reader::new(data, Some(len)).map_err(|e| format!("{file}: {e}"))?;
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
        // The reader hands out only chunks with a whole 16-byte header.
        if let Some(n) = c.get(4..8) {
            nbytes += u32::from_le_bytes([n[0], n[1], n[2], n[3]]) as u64;
        }
    }
    let ratio = nbytes as f64 / len.max(1) as f64;
    let json = json!({"type":"bloscpack","format_version":h.format_version,"checksum":h.checksum.name(),
        "offsets":h.offsets,"metadata":meta,"typesize":h.typesize,"chunk_size":h.chunk_size,
        "last_chunk":h.last_chunk,"nchunks":h.nchunks,"max_app_chunks":h.max_app_chunks,
        "codec":codec_name,"nbytes":nbytes,"file_size":len,"ratio":ratio});
    let lines = vec![
        ("type", "Bloscpack".into()),
        ("format version", h.format_version.to_string()),
        ("codec", codec_name),
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
    ];
    Ok(Report { json, lines })
}

/// One chunk's header.
fn chunk_report(file: &str, data: &[u8]) -> Res<Report<'static>> {
    let h = chunk::header(data)
        .map_err(|e| format!("{file}: not a Blosc chunk, frame or Bloscpack file: {e}"))?;
    let codec_name = if h.compformat() == codec::FORMAT_UDCODEC {
        codec::name(h.udcompcode).unwrap_or_else(|| format!("user codec {}", h.udcompcode))
    } else {
        codec::libname(h.compformat()).unwrap_or_default()
    };
    let (filters, _) = h.pipeline();
    let json = json!({"type":"chunk","version":h.version,"codec":codec_name,"typesize":h.typesize,
        "nbytes":h.nbytes,"cbytes":h.cbytes,"blocksize":h.blocksize,"memcpyed":h.memcpyed(),
        "split":!h.dont_split(),"filters":filters,"special":h.special_bits()});
    let lines = vec![
        ("type", "chunk".into()),
        ("format version", h.version.to_string()),
        ("codec", codec_name),
        ("typesize", h.typesize.to_string()),
        ("nbytes", h.nbytes.to_string()),
        ("cbytes", h.cbytes.to_string()),
        ("blocksize", h.blocksize.to_string()),
        ("memcpyed", h.memcpyed().to_string()),
        ("split streams", (!h.dont_split()).to_string()),
        ("filters", format!("{filters:?}")),
        ("special value", h.special_bits().to_string()),
    ];
    Ok(Report { json, lines })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `info` on `bytes` written to a file: the report, or the error.
    fn info_of(name: &str, bytes: &[u8]) -> Res<String> {
        let p = std::env::temp_dir().join(format!("blosc2-cli-info-{name}-{}", std::process::id()));
        std::fs::write(&p, bytes).unwrap();
        let mut out = Vec::new();
        let r = info(p.to_str().unwrap(), false, &mut out);
        std::fs::remove_file(&p).unwrap();
        r.map(|()| String::from_utf8(out).unwrap())
    }

    #[test]
    fn garbage_and_truncated_headers_are_errors() {
        assert!(info_of("empty", b"").is_err());
        assert!(info_of("short", b"\x02\x01").is_err());
        assert!(info_of("blpk", b"blpk").is_err());
        assert!(info_of("blpk-zeros", &[b"blpk".as_slice(), &[0u8; 60]].concat()).is_err());
        let mut frame_magic = vec![0u8; 40];
        frame_magic[2..9].copy_from_slice(b"b2frame");
        assert!(info_of("frame-magic", &frame_magic).is_err());
    }

    #[test]
    fn a_chunk_is_described() {
        let params = blosc2::chunk::CParams {
            typesize: 4,
            ..Default::default()
        };
        let data: Vec<u8> = (0..4096u32).flat_map(|i| i.to_le_bytes()).collect();
        let c = blosc2::chunk::compress(&params, &data).unwrap();
        let text = info_of("chunk", &c).unwrap();
        assert!(text.contains("nbytes:         16384"), "{text}");
    }
}
