//! Bloscpack files (`.blp`): a header, an optional metadata section, optional
//! chunk offsets, then Blosc chunks each followed by a checksum. This module
//! reads and writes them as the Bloscpack header RFC describes and as
//! bloscpack 0.16.0 (PyPI) writes them: format version 3, with
//! `max_app_chunks` spare offset entries and a JSON metadata section.
//!
//! ```
//! use blosc2::bloscpack::{pack, unpack, PackOptions};
//! let data: Vec<u8> = (0..100_000u32).flat_map(|i| i.to_le_bytes()).collect();
//! let mut file = std::io::Cursor::new(Vec::new());
//! pack(&data[..], data.len() as u64, &mut file, &PackOptions::default(), &mut |_| {}).unwrap();
//! let bytes = file.into_inner();
//! let mut back = Vec::new();
//! unpack(&bytes[..], Some(bytes.len() as u64), &mut back, &mut |_| {}).unwrap();
//! assert_eq!(back, data);
//! ```

#![forbid(unsafe_code)]

pub mod blosc1;
pub mod checksum;
pub mod header;

pub use checksum::Checksum;
pub use header::{Header, MetaCodec, MetadataHeader};

use crate::chunk::{self, DParams};
use crate::codec;
use crate::format::header::SHUFFLE;
use std::io::{Read, Seek, SeekFrom, Write};

/// What went wrong, in one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BpError(String);

impl BpError {
    /// An error with this message.
    pub fn new(msg: impl Into<String>) -> BpError {
        BpError(msg.into())
    }
}

impl std::fmt::Display for BpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BpError {}

fn io_err(what: &str, e: std::io::Error) -> BpError {
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        BpError::new(format!(
            "truncated Bloscpack file: unexpected end of file in {what}"
        ))
    } else {
        BpError::new(format!("I/O error in {what}: {e}"))
    }
}

/// Options of [`pack`]. The defaults are bloscpack 0.16.0's: blosclz at
/// level 7, typesize 8, byte shuffle, 1 MiB chunks, adler32, offsets on with
/// room for 10 times as many chunks, no metadata.
#[derive(Debug, Clone)]
pub struct PackOptions {
    /// Codec id (blosclz, lz4, lz4hc, zlib, zstd).
    pub compcode: u8,
    /// 0..=9.
    pub clevel: u8,
    /// 1..=255.
    pub typesize: usize,
    /// NOFILTER, SHUFFLE or BITSHUFFLE.
    pub filter: u8,
    /// Uncompressed bytes per chunk.
    pub chunk_size: usize,
    /// Checksum after each chunk.
    pub checksum: Checksum,
    /// Write the offsets section.
    pub offsets: bool,
    /// Spare offset entries; `None`: 10 × nchunks (ignored without offsets).
    pub max_app_chunks: Option<i64>,
    /// Serialized JSON metadata to store, if any.
    pub metadata: Option<Vec<u8>>,
}

impl Default for PackOptions {
    fn default() -> Self {
        PackOptions {
            compcode: codec::BLOSCLZ,
            clevel: 7,
            typesize: 8,
            filter: SHUFFLE,
            chunk_size: 1 << 20,
            checksum: Checksum::Adler32,
            offsets: true,
            max_app_chunks: None,
            metadata: None,
        }
    }
}

/// What [`pack`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackStats {
    /// The file header written.
    pub header: Header,
    /// Total bytes written.
    pub file_size: u64,
}

/// `(nchunks, chunk_size, last_chunk)` as bloscpack 0.16.0 chunks `len` bytes.
pub fn chunking(len: u64, chunk_size: usize) -> Result<(i64, i32, i32), BpError> {
    if len == 0 {
        return Ok((1, 0, 0));
    }
    let max = crate::format::header::MAX_BUFFERSIZE as u64 - 16;
    if chunk_size == 0 || chunk_size as u64 > max {
        return Err(BpError::new(format!(
            "chunk size must be 1..={max} bytes, got {chunk_size}"
        )));
    }
    let cs = (chunk_size as u64).min(len);
    let n = len.div_ceil(cs);
    let last = len - (n - 1) * cs;
    Ok((n as i64, cs as i32, last as i32))
}

fn write_metadata<W: Write>(out: &mut W, json: &[u8]) -> Result<u64, BpError> {
    let meta_size =
        u32::try_from(json.len()).map_err(|_| BpError::new("metadata larger than 4 GiB"))?;
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
    z.write_all(json).map_err(|e| io_err("metadata", e))?;
    let compressed = z.finish().map_err(|e| io_err("metadata", e))?;
    let (stored, codec, level) = if compressed.len() <= json.len() {
        (compressed, MetaCodec::Zlib, 6)
    } else {
        (json.to_vec(), MetaCodec::None, 0)
    };
    let max_meta_size = meta_size.saturating_mul(10).max(stored.len() as u32);
    let mh = MetadataHeader {
        magic_format: b"JSON".to_vec(),
        checksum: Checksum::Adler32,
        codec,
        level,
        meta_size,
        max_meta_size,
        meta_comp_size: stored.len() as u32,
        user_codec: Vec::new(),
    };
    let w = |out: &mut W, b: &[u8]| out.write_all(b).map_err(|e| io_err("metadata", e));
    w(out, &mh.encode())?;
    w(out, &stored)?;
    w(
        out,
        &vec![0u8; (max_meta_size - stored.len() as u32) as usize],
    )?;
    let digest = mh.checksum.digest(&stored);
    w(out, &digest)?;
    Ok(header::METADATA_HEADER_LENGTH as u64 + max_meta_size as u64 + digest.len() as u64)
}

/// Compress `len` bytes read from `input` into a Bloscpack file written to
/// `out` (which must be seekable: the offsets are filled in at the end).
/// `progress` is called with the number of input bytes done.
pub fn pack<R: Read, W: Write + Seek>(
    mut input: R,
    len: u64,
    mut out: W,
    opts: &PackOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<PackStats, BpError> {
    if opts.typesize == 0 || opts.typesize > 255 {
        return Err(BpError::new(format!(
            "typesize must be 1..=255 for Bloscpack, got {}",
            opts.typesize
        )));
    }
    if opts.clevel > 9 {
        return Err(BpError::new(format!(
            "clevel must be 0..=9, got {}",
            opts.clevel
        )));
    }
    let (nchunks, chunk_size, last_chunk) = chunking(len, opts.chunk_size)?;
    let max_app_chunks = if opts.offsets {
        opts.max_app_chunks
            .unwrap_or(10 * nchunks)
            .clamp(0, i64::MAX - nchunks)
    } else {
        0
    };
    let header = Header {
        format_version: header::FORMAT_VERSION,
        offsets: opts.offsets,
        metadata: opts.metadata.is_some(),
        checksum: opts.checksum,
        typesize: opts.typesize as u8,
        chunk_size,
        last_chunk,
        nchunks,
        max_app_chunks,
    };
    let werr = |e| io_err("output", e);
    let start = out.stream_position().map_err(werr)?;
    out.write_all(&header.encode()).map_err(werr)?;
    let mut pos = header::HEADER_LENGTH as u64;
    if let Some(m) = &opts.metadata {
        pos += write_metadata(&mut out, m)?;
    }
    let offsets_at = pos;
    let mut offsets = Vec::new();
    if opts.offsets {
        let entries = (nchunks + max_app_chunks) as u64;
        let minus_one = (-1i64).to_le_bytes();
        let block = minus_one.repeat(4096);
        let mut left = entries;
        while left > 0 {
            let n = left.min(4096);
            out.write_all(&block[..n as usize * 8]).map_err(werr)?;
            left -= n;
        }
        pos += entries * 8;
    }
    let params = blosc1::Blosc1Params {
        compcode: opts.compcode,
        clevel: opts.clevel,
        typesize: opts.typesize,
        filter: opts.filter,
    };
    let mut buf = vec![0u8; chunk_size as usize];
    let mut done = 0u64;
    for i in 0..nchunks {
        let n = if i == nchunks - 1 {
            last_chunk
        } else {
            chunk_size
        } as usize;
        input
            .read_exact(&mut buf[..n])
            .map_err(|e| io_err("input", e))?;
        let c = blosc1::compress(&params, &buf[..n])
            .map_err(|e| BpError::new(format!("compressing chunk {i}: {e}")))?;
        offsets.push(pos as i64);
        out.write_all(&c).map_err(werr)?;
        let digest = opts.checksum.digest(&c);
        out.write_all(&digest).map_err(werr)?;
        pos += (c.len() + digest.len()) as u64;
        done += n as u64;
        progress(done);
    }
    if opts.offsets {
        out.seek(SeekFrom::Start(start + offsets_at))
            .map_err(werr)?;
        let raw: Vec<u8> = offsets.iter().flat_map(|o| o.to_le_bytes()).collect();
        out.write_all(&raw).map_err(werr)?;
        out.seek(SeekFrom::Start(start + pos)).map_err(werr)?;
    }
    out.flush().map_err(werr)?;
    Ok(PackStats {
        header,
        file_size: pos,
    })
}

/// The metadata section of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metadata {
    /// Its header.
    pub header: MetadataHeader,
    /// The serialized metadata, decompressed (JSON text for "JSON").
    pub data: Vec<u8>,
}

/// Reads a Bloscpack file chunk by chunk, checking everything it can.
pub struct Reader<R: Read> {
    input: R,
    /// The file header.
    pub header: Header,
    /// The metadata section, if any.
    pub metadata: Option<Metadata>,
    /// The offsets of the chunks (empty without an offsets section).
    pub offsets: Vec<i64>,
    pos: u64,
    file_len: Option<u64>,
    next: i64,
    done: bool,
    dparams: DParams,
}

impl<R: Read> Reader<R> {
    fn read_exact(&mut self, buf: &mut [u8], what: &str) -> Result<(), BpError> {
        if let Some(l) = self.file_len {
            if self.pos + buf.len() as u64 > l {
                return Err(BpError::new(format!(
                    "truncated Bloscpack file: {what} needs {} bytes at offset {}, file has {l}",
                    buf.len(),
                    self.pos
                )));
            }
        }
        self.input.read_exact(buf).map_err(|e| io_err(what, e))?;
        self.pos += buf.len() as u64;
        Ok(())
    }

    /// Read `n` bytes, `n` read from the file.  With the file's length known
    /// it is checked first; on a stream of unknown length the buffer grows
    /// only as the bytes arrive, so a size no input backs allocates nothing
    /// much (docs/limits.md).
    fn read_vec(&mut self, n: u64, what: &str) -> Result<Vec<u8>, BpError> {
        let too_big = || BpError::new(format!("out of memory for {what} ({n} bytes)"));
        let n_usize = usize::try_from(n).map_err(|_| too_big())?;
        if let Some(l) = self.file_len {
            if self.pos + n > l {
                return Err(BpError::new(format!(
                    "truncated Bloscpack file: {what} needs {n} bytes at offset {}, file has {l}",
                    self.pos
                )));
            }
            let mut v = crate::alloc::zeroed(n_usize).map_err(|_| too_big())?;
            self.read_exact(&mut v, what)?;
            return Ok(v);
        }
        const PIECE: usize = 1 << 20;
        let mut v = Vec::new();
        while v.len() < n_usize {
            let k = PIECE.min(n_usize - v.len());
            v.try_reserve(k).map_err(|_| too_big())?;
            let at = v.len();
            v.resize(at + k, 0);
            self.read_exact(&mut v[at..], what)?;
        }
        Ok(v)
    }

    fn skip(&mut self, n: u64, what: &str) -> Result<(), BpError> {
        if let Some(l) = self.file_len {
            if self.pos + n > l {
                return Err(BpError::new(format!(
                    "truncated Bloscpack file: {what} needs {n} bytes at offset {}, file has {l}",
                    self.pos
                )));
            }
        }
        let got = std::io::copy(&mut (&mut self.input).take(n), &mut std::io::sink())
            .map_err(|e| io_err(what, e))?;
        if got != n {
            return Err(BpError::new(format!(
                "truncated Bloscpack file: unexpected end of file in {what}"
            )));
        }
        self.pos += n;
        Ok(())
    }

    /// Read the headers, metadata and offsets. `file_len` (when known) lets
    /// sizes in the file be checked before anything is allocated for them.
    pub fn new(input: R, file_len: Option<u64>) -> Result<Reader<R>, BpError> {
        let mut r = Reader {
            input,
            header: Header {
                format_version: 0,
                offsets: false,
                metadata: false,
                checksum: Checksum::None,
                typesize: 0,
                chunk_size: 0,
                last_chunk: 0,
                nchunks: 0,
                max_app_chunks: 0,
            },
            metadata: None,
            offsets: Vec::new(),
            pos: 0,
            file_len,
            next: 0,
            done: false,
            dparams: DParams::default(),
        };
        let mut hb = [0u8; header::HEADER_LENGTH];
        let mut got = 0;
        while got < hb.len() {
            match r.input.read(&mut hb[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(io_err("header", e)),
            }
        }
        r.header = Header::decode(&hb[..got])?;
        r.pos = got as u64;
        if r.header.metadata {
            let mut mb = [0u8; header::METADATA_HEADER_LENGTH];
            r.read_exact(&mut mb, "metadata header")?;
            let mh = MetadataHeader::decode(&mb)?;
            if let Some(l) = file_len {
                if r.pos + mh.max_meta_size as u64 > l {
                    return Err(BpError::new(format!(
                        "corrupt Bloscpack metadata: {} bytes reserved at offset {}, file has {l}",
                        mh.max_meta_size, r.pos
                    )));
                }
            }
            // Metadata decompresses to at most what its stored bytes back.
            if mh.meta_size as usize > crate::alloc::limit(mh.meta_comp_size as usize) {
                return Err(BpError::new(format!(
                    "corrupt Bloscpack metadata: {} bytes claimed from {} stored",
                    mh.meta_size, mh.meta_comp_size
                )));
            }
            let stored = r.read_vec(mh.meta_comp_size as u64, "metadata")?;
            r.skip((mh.max_meta_size - mh.meta_comp_size) as u64, "metadata")?;
            let mut digest = vec![0u8; mh.checksum.size()];
            r.read_exact(&mut digest, "metadata checksum")?;
            if digest != mh.checksum.digest(&stored) {
                return Err(BpError::new(format!(
                    "metadata checksum mismatch ({})",
                    mh.checksum.name()
                )));
            }
            let data = match mh.codec {
                MetaCodec::None => stored,
                MetaCodec::Zlib => {
                    let mut d = Vec::new();
                    flate2::read::ZlibDecoder::new(&stored[..])
                        .take(mh.meta_size as u64 + 1)
                        .read_to_end(&mut d)
                        .map_err(|_| BpError::new("corrupt Bloscpack metadata: bad zlib stream"))?;
                    if d.len() != mh.meta_size as usize {
                        return Err(BpError::new(format!(
                            "corrupt Bloscpack metadata: {} bytes after decompression, header says {}",
                            d.len(),
                            mh.meta_size
                        )));
                    }
                    d
                }
            };
            r.metadata = Some(Metadata { header: mh, data });
        }
        if r.header.offsets && r.header.nchunks > 0 {
            let entries = r.header.nchunks as u64 + r.header.max_app_chunks as u64;
            let bytes = entries.checked_mul(8).ok_or_else(|| {
                BpError::new("corrupt Bloscpack header: offsets section too large")
            })?;
            if let Some(l) = file_len {
                // (the table may claim nearly 2^64 bytes: compare without adding)
                if bytes > l.saturating_sub(r.pos) {
                    return Err(BpError::new(format!(
                        "corrupt Bloscpack file: {entries} offsets need {bytes} bytes at offset {}, file has {l}",
                        r.pos
                    )));
                }
            }
            let raw = r.read_vec(8 * r.header.nchunks as u64, "offsets")?;
            r.offsets = raw
                .chunks_exact(8)
                .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            r.skip(8 * r.header.max_app_chunks as u64, "offsets")?;
        }
        if r.header.nchunks == 0 {
            r.done = true;
        }
        Ok(r)
    }

    /// The size the chunk `i` must decompress to, when the header knows it.
    fn expected_size(&self, i: i64) -> Option<usize> {
        let h = &self.header;
        if h.nchunks >= 0 && i == h.nchunks - 1 {
            (h.last_chunk >= 0).then_some(h.last_chunk as usize)
        } else {
            (h.chunk_size >= 0).then_some(h.chunk_size as usize)
        }
    }

    /// The next compressed chunk (checksum verified), or `None` at the end.
    pub fn next_compressed(&mut self) -> Result<Option<Vec<u8>>, BpError> {
        if self.done {
            return Ok(None);
        }
        let i = self.next;
        if self.header.nchunks < 0 {
            // Unknown count: chunks follow until the end of the file.
            let at_end = match self.file_len {
                Some(l) => self.pos >= l,
                None => false,
            };
            if at_end {
                self.done = true;
                return Ok(None);
            }
        }
        if let Some(&o) = self.offsets.get(i as usize) {
            if o != -1 && o as u64 != self.pos {
                return Err(BpError::new(format!(
                    "corrupt Bloscpack file: offset of chunk {i} is {o}, but the chunk starts at {}",
                    self.pos
                )));
            }
        }
        let what = format!("chunk {i}");
        let mut head = [0u8; 16];
        self.read_exact(&mut head, &what)?;
        let nbytes = u32::from_le_bytes(head[4..8].try_into().unwrap()) as u64;
        let cbytes = u32::from_le_bytes(head[12..16].try_into().unwrap()) as u64;
        let version = head[0];
        if version == 0 || version > crate::format::header::VERSION_FORMAT || cbytes < 16 {
            return Err(BpError::new(format!(
                "corrupt Bloscpack file: chunk {i} at offset {} has no valid Blosc header",
                self.pos - 16
            )));
        }
        if let Some(e) = self.expected_size(i) {
            if nbytes != e as u64 {
                return Err(BpError::new(format!(
                    "corrupt Bloscpack file: chunk {i} holds {nbytes} bytes, the header says {e}"
                )));
            }
        }
        if cbytes > nbytes + 16 + 4 * (nbytes + 1) + 64 {
            return Err(BpError::new(format!(
                "corrupt Bloscpack file: chunk {i} claims {cbytes} compressed bytes for {nbytes} bytes"
            )));
        }
        let mut c = head.to_vec();
        c.append(&mut self.read_vec(cbytes - 16, &what)?);
        let mut digest = vec![0u8; self.header.checksum.size()];
        self.read_exact(&mut digest, &format!("checksum of chunk {i}"))?;
        if digest != self.header.checksum.digest(&c) {
            return Err(BpError::new(format!(
                "checksum mismatch in chunk {i} ({})",
                self.header.checksum.name()
            )));
        }
        self.next += 1;
        if self.header.nchunks >= 0 && self.next >= self.header.nchunks {
            self.done = true;
        }
        Ok(Some(c))
    }

    /// The next chunk, decompressed, or `None` at the end.
    pub fn next_chunk(&mut self) -> Result<Option<Vec<u8>>, BpError> {
        let i = self.next;
        let Some(c) = self.next_compressed()? else {
            return Ok(None);
        };
        self.decompress(i, &c).map(Some)
    }

    /// Decompress chunk `i` (`c`, as [`Reader::next_compressed`] gave it).
    pub fn decompress(&self, i: i64, c: &[u8]) -> Result<Vec<u8>, BpError> {
        chunk::decompress(&self.dparams, c)
            .map_err(|e| BpError::new(format!("corrupt Bloscpack file: chunk {i}: {e}")))
    }

    /// Decompress with this many threads.
    pub fn set_threads(&mut self, n: i16) {
        self.dparams.nthreads = n.max(1);
    }
}

/// Decompress a whole Bloscpack file from `input` into `out`; returns the file
/// header and metadata. `progress` gets the number of bytes written so far.
pub fn unpack<R: Read, W: Write>(
    input: R,
    file_len: Option<u64>,
    mut out: W,
    progress: &mut dyn FnMut(u64),
) -> Result<(Header, Option<Metadata>), BpError> {
    let mut r = Reader::new(input, file_len)?;
    let mut done = 0u64;
    while let Some(d) = r.next_chunk()? {
        out.write_all(&d).map_err(|e| io_err("output", e))?;
        done += d.len() as u64;
        progress(done);
    }
    out.flush().map_err(|e| io_err("output", e))?;
    Ok((r.header, r.metadata))
}

#[cfg(test)]
mod tests;
