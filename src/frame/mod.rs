//! Where a super-chunk's bytes live when it is a contiguous frame: a buffer in
//! memory or a region of a file (read with positioned reads, chunk by chunk).
//!
//! A frame is `header | chunks section | offsets chunk | trailer`. This module
//! keeps the decoded offsets index in memory and rewrites the offsets chunk,
//! the header and the trailer after every change, laying out the bytes as the
//! reference does (new chunks go at the end of the chunks section, an updated
//! chunk replaces the old one in place, a deleted chunk's bytes stay).

#![forbid(unsafe_code)]

use crate::alloc;
use crate::chunk::{self, CParams, DParams, SplitMode};
use crate::error::{Error, Result};
use crate::format::frame::*;
use crate::format::header::{ChunkHeader, Special, EXTENDED_HEADER_LENGTH, MIN_HEADER_LENGTH};
use crate::io::{Io, IoFile, OpenMode};
use std::borrow::Cow;
use std::path::{Path, PathBuf};

mod bytes;
mod follow;
mod lazy;
pub mod lock;
mod sparse;
pub use bytes::{FrameBytes, LentBytes};
pub use lazy::LAZY_FLAG;
pub use sparse::{sparse_chunk_path, sparse_index_path, SPARSE_INDEX_NAME};

/// Where the frame bytes are.
#[derive(Debug)]
enum Backing {
    Memory(FrameBytes),
    File {
        io: Io,
        /// The open file, for backends that keep files open; `None` for
        /// those whose files are opened and closed around each operation.
        file: Option<Box<dyn IoFile>>,
        path: PathBuf,
        offset: u64,
    },
}

impl Backing {
    /// A file frame at `offset` in the file at `path`, kept open as `file`.
    fn open_file(io: Io, file: Box<dyn IoFile>, path: PathBuf, offset: u64) -> Backing {
        Backing::File {
            io,
            file: Some(file),
            path,
            offset,
        }
    }
}

/// A chunk as the frame stores it.
#[derive(Debug)]
pub enum StoredChunk<'a> {
    /// A regular chunk's bytes.
    Bytes(Cow<'a, [u8]>),
    /// A chunk of special values, stored only as a special offset.
    Special(Special),
}

/// How the chunks section changes in a commit.
#[derive(Debug)]
pub enum DataEdit<'a> {
    /// Left alone.
    None,
    /// A chunk written at the end of the section.
    Append(&'a [u8]),
    /// `old_len` bytes at `at` replaced by `new` (the tail moves).
    Replace {
        /// Position inside the section.
        at: u64,
        /// Bytes removed.
        old_len: u64,
        /// Bytes written instead.
        new: &'a [u8],
    },
    /// The section is emptied.
    Reset,
    /// A sparse frame: its chunk files (already written) now hold `cbytes` bytes.
    Sparse {
        /// Bytes in the chunk files.
        cbytes: u64,
    },
}

/// Everything read from an existing frame.
#[derive(Debug)]
pub struct OpenedFrame {
    /// The frame.
    pub frame: Frame,
    /// Its header fields.
    pub header: FrameHeader,
    /// The header metalayers.
    pub metalayers: Vec<Metalayer>,
    /// The trailer vlmetalayers (contents still compressed).
    pub vlmetalayers: Vec<Metalayer>,
}

/// A contiguous frame.
#[derive(Debug)]
pub struct Frame {
    backing: Backing,
    header_len: u64,
    len: u64,
    trailer_len: u32,
    cbytes: u64,
    offsets: Vec<i64>,
    /// The regular chunks' offsets in increasing order (for contiguous
    /// frames on disk: where the chunk after each one starts).
    sorted: Vec<i64>,
    /// The offsets chunk as stored (kept as is while the offsets do not change).
    off_chunk: Vec<u8>,
    /// The directory of a sparse frame (its index lives in the backing file;
    /// its offsets are chunk file numbers and `cbytes` counts the chunk files).
    sparse_dir: Option<PathBuf>,
    /// The fixed part of the header as last read or written here: another
    /// handle's change shows as different bytes on disk.
    head: Vec<u8>,
}

/// The parameters the reference uses to compress the offsets index.
pub fn offsets_cparams() -> CParams {
    CParams {
        typesize: 8,
        splitmode: SplitMode::Never,
        blocksize: 16 * 1024,
        nthreads: 1,
        ..CParams::default()
    }
}

/// Compress an offsets index as the reference does after a change.
pub fn compress_offsets(offsets: &[i64]) -> Result<Vec<u8>> {
    compress_offsets_into(offsets, offsets.len() * 8 + EXTENDED_HEADER_LENGTH)
}

/// Like [`compress_offsets`] with a destination of `capacity` bytes: the
/// reference keeps a compressed stream bigger than a plain copy whenever it
/// fits its destination (a delete compresses into the old index's room).
pub fn compress_offsets_into(offsets: &[i64], capacity: usize) -> Result<Vec<u8>> {
    let raw: Vec<u8> = offsets.iter().flat_map(|o| o.to_le_bytes()).collect();
    let mut dest = vec![0u8; capacity.max(raw.len() + EXTENDED_HEADER_LENGTH)];
    let n = chunk::compress_into(&offsets_cparams(), &raw, &mut dest)?;
    if n == 0 {
        return Err(Error::WriteBuffer);
    }
    dest.truncate(n);
    Ok(dest)
}

/// `frame_len`, the bytes of the whole frame, bounds the index it may claim
/// (special chunks take no room in the frame, so a small frame may hold
/// many; see docs/limits.md).
fn decode_offsets(chunk_bytes: &[u8], nchunks: Option<i64>, frame_len: u64) -> Result<Vec<i64>> {
    let h = ChunkHeader::parse(chunk_bytes).map_err(|_| Error::InvalidHeader)?;
    if h.cbytes as usize > chunk_bytes.len() {
        return Err(Error::ReadBuffer);
    }
    let n = h.nbytes as usize;
    if !n.is_multiple_of(8) {
        return Err(Error::InvalidHeader);
    }
    if let Some(nc) = nchunks {
        if nc.checked_mul(8) != Some(n as i64) {
            return Err(Error::InvalidHeader);
        }
    }
    // The index is held three times while it is decoded and sorted.
    alloc::check(
        n.saturating_mul(3),
        usize::try_from(frame_len).unwrap_or(usize::MAX),
    )?;
    let raw = chunk::decompress(&DParams::default(), &chunk_bytes[..h.cbytes as usize])?;
    if raw.len() != n {
        return Err(Error::Data);
    }
    Ok(raw
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect())
}

impl Frame {
    /// A frame with nothing in it yet, on `backing` (and a sparse frame's
    /// directory).
    fn empty(backing: Backing, sparse_dir: Option<PathBuf>) -> Frame {
        Frame {
            backing,
            header_len: 0,
            len: 0,
            trailer_len: 0,
            cbytes: 0,
            offsets: Vec::new(),
            sorted: Vec::new(),
            off_chunk: Vec::new(),
            sparse_dir,
            head: Vec::new(),
        }
    }

    /// A new, empty frame in memory.
    pub fn new_memory(header: Vec<u8>, trailer: Vec<u8>) -> Result<Frame> {
        let mut f = Frame::empty(Backing::Memory(FrameBytes::Owned(Vec::new())), None);
        f.commit(DataEdit::Reset, Vec::new(), None, |_| Ok(header), trailer)?;
        Ok(f)
    }

    /// A new, empty frame in a new file (refusing to overwrite one).
    pub fn create_file(path: &Path, io: Io, header: Vec<u8>, trailer: Vec<u8>) -> Result<Frame> {
        if path.exists() {
            return Err(Error::FileOpen);
        }
        let file = io.open(path, OpenMode::Create)?;
        let mut f = Frame::empty(Backing::open_file(io, file, path.to_path_buf(), 0), None);
        f.commit(DataEdit::Reset, Vec::new(), None, |_| Ok(header), trailer)?;
        f.close_if_per_operation();
        Ok(f)
    }

    /// Read a frame held in memory.
    pub fn from_buffer(bytes: Vec<u8>) -> Result<OpenedFrame> {
        Frame::from_bytes(FrameBytes::Owned(bytes))
    }

    /// Open a contiguous frame held in memory, owned or lent.
    pub fn from_bytes(bytes: FrameBytes) -> Result<OpenedFrame> {
        if bytes.len() < HEADER_MINLEN + TRAILER_MINLEN {
            return Err(Error::ReadBuffer);
        }
        let len = bytes.len() as u64;
        let header = FrameHeader::parse(&bytes[..HEADER_MINLEN], TYPE_CONTIGUOUS)?;
        if header.frame_len as u64 != len {
            return Err(Error::InvalidHeader);
        }
        let trailer_len =
            trailer_len_from_tail(&bytes[bytes.len() - TRAILER_MINLEN..], len as i64)?;
        let frame = Frame {
            backing: Backing::Memory(bytes),
            header_len: header.header_len as u64,
            len,
            trailer_len,
            cbytes: header.cbytes as u64,
            offsets: Vec::new(),
            sorted: Vec::new(),
            off_chunk: Vec::new(),
            sparse_dir: None,
            head: Vec::new(),
        };
        frame.finish_open(header)
    }

    /// Open a frame stored in a file at `offset` (or, for a directory, the
    /// sparse frame it holds).
    pub fn open_file(path: &Path, offset: u64, io: Io) -> Result<OpenedFrame> {
        if path.is_dir() {
            return Self::open_sparse(path, io);
        }
        Self::open_file_typed(path, offset, io, TYPE_CONTIGUOUS, None)
    }

    fn open_file_typed(
        path: &Path,
        offset: u64,
        io: Io,
        frame_type: u8,
        sparse_dir: Option<PathBuf>,
    ) -> Result<OpenedFrame> {
        let file = match io.open(path, OpenMode::ReadWrite) {
            Ok(f) => f,
            Err(_) => io.open(path, OpenMode::Read)?,
        };
        let size = file.size()?;
        let mut head = [0u8; HEADER_MINLEN];
        file.read_at(offset, &mut head)?;
        let header = FrameHeader::parse(&head, frame_type)?;
        let len = header.frame_len;
        if len < (HEADER_MINLEN + TRAILER_MINLEN) as i64
            || offset > size
            || len as u64 > size - offset
        {
            return Err(Error::InvalidHeader);
        }
        let mut tail = [0u8; TRAILER_MINLEN];
        file.read_at(offset + len as u64 - TRAILER_MINLEN as u64, &mut tail)?;
        let trailer_len = trailer_len_from_tail(&tail, len)?;
        let frame = Frame {
            backing: Backing::open_file(io, file, path.to_path_buf(), offset),
            header_len: header.header_len as u64,
            len: len as u64,
            trailer_len,
            cbytes: header.cbytes as u64,
            offsets: Vec::new(),
            sorted: Vec::new(),
            off_chunk: Vec::new(),
            sparse_dir,
            head: head.to_vec(),
        };
        let mut o = frame.finish_open(header)?;
        o.frame.close_if_per_operation();
        Ok(o)
    }

    fn finish_open(mut self, header: FrameHeader) -> Result<OpenedFrame> {
        let hbytes = self.read_at(0, self.header_len)?.into_owned();
        let metalayers = parse_metalayers(&hbytes)?;
        let toff = self.trailer_offset(header.nbytes > 0)?;
        let tbytes = self.read_at(toff, self.trailer_len as u64)?.into_owned();
        let vlmetalayers = parse_trailer(&tbytes)?;
        if header.nbytes > 0 {
            let data_end = self
                .header_len
                .checked_add(self.section_len())
                .ok_or(Error::InvalidHeader)?;
            if data_end > toff {
                return Err(Error::InvalidHeader);
            }
            let off_len = toff - data_end;
            if off_len < MIN_HEADER_LENGTH as u64 || off_len > i32::MAX as u64 {
                return Err(Error::InvalidHeader);
            }
            let nchunks = header.nchunks_fixed()?;
            if let Some(n) = nchunks {
                if n > (i32::MAX / 8) as i64 {
                    return Err(Error::InvalidHeader);
                }
            }
            let obytes = self.read_at(data_end, off_len)?.into_owned();
            let offsets = decode_offsets(&obytes, nchunks, self.len)?;
            let sparse = self.sparse_dir.is_some();
            for &o in &offsets {
                if sparse && o > u32::MAX as i64 {
                    return Err(Error::InvalidHeader);
                }
                if !sparse && o >= 0 && o as u64 + MIN_HEADER_LENGTH as u64 > self.cbytes {
                    return Err(Error::InvalidHeader);
                }
                if o < 0 {
                    offset_special(o)?;
                }
            }
            self.offsets = offsets;
            self.sort_offsets();
            self.off_chunk = obytes;
        }
        Ok(OpenedFrame {
            frame: self,
            header,
            metalayers,
            vlmetalayers,
        })
    }

    fn trailer_offset(&self, has_chunks: bool) -> Result<u64> {
        let t = if has_chunks {
            self.len
                .checked_sub(self.trailer_len as u64)
                .ok_or(Error::InvalidHeader)?
        } else {
            self.header_len
        };
        if t < self.header_len || t + self.trailer_len as u64 > self.len {
            return Err(Error::InvalidHeader);
        }
        Ok(t)
    }

    fn read_at(&self, pos: u64, n: u64) -> Result<Cow<'_, [u8]>> {
        let end = pos.checked_add(n).ok_or(Error::ReadBuffer)?;
        if end > self.len {
            return Err(Error::ReadBuffer);
        }
        match &self.backing {
            Backing::Memory(v) => Ok(Cow::Borrowed(&v[pos as usize..end as usize])),
            Backing::File { offset, .. } => {
                // `pos + n` is inside the frame, which the file holds.
                let mut buf = alloc::zeroed(usize::try_from(n).map_err(|_| Error::MemoryAlloc)?)?;
                let at = offset + pos;
                self.with_file(|f| f.read_at(at, &mut buf))?;
                Ok(Cow::Owned(buf))
            }
        }
    }

    /// The decoded offsets index.
    pub fn offsets(&self) -> &[i64] {
        &self.offsets
    }

    /// Length of the whole frame.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the frame has no bytes (never true once built).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size of the chunks (the chunks section, or the chunk files of a sparse frame).
    pub fn data_len(&self) -> u64 {
        self.cbytes
    }

    /// Length of the chunks section stored in the frame (0 for sparse frames).
    fn section_len(&self) -> u64 {
        if self.sparse_dir.is_some() {
            0
        } else {
            self.cbytes
        }
    }

    /// The directory of a sparse frame.
    pub fn sparse_dir(&self) -> Option<&Path> {
        self.sparse_dir.as_deref()
    }

    /// The I/O backend of an on-disk frame.
    pub fn io(&self) -> Option<&Io> {
        match &self.backing {
            Backing::File { io, .. } => Some(io),
            Backing::Memory(_) => None,
        }
    }

    /// The frame bytes, when it lives in memory.
    pub fn memory_bytes(&self) -> Option<&[u8]> {
        match &self.backing {
            Backing::Memory(v) => Some(v),
            Backing::File { .. } => None,
        }
    }

    /// The frame's own buffer, for a frame held in memory (not for one
    /// reading a caller's lent bytes).
    pub fn into_memory_bytes(self) -> Option<Vec<u8>> {
        match self.backing {
            Backing::Memory(v) => v.into_owned(),
            Backing::File { .. } => None,
        }
    }

    /// The file holding the frame and the frame's offset in it.
    pub fn file_path(&self) -> Option<(&Path, u64)> {
        match &self.backing {
            Backing::File { path, offset, .. } => Some((path, *offset)),
            Backing::Memory(_) => None,
        }
    }

    /// All the frame bytes (read from the file when needed).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        Ok(self.read_at(0, self.len)?.into_owned())
    }

    /// Position and length of regular chunk `n` inside the chunks section.
    pub fn chunk_span(&self, n: usize) -> Result<Option<(u64, u64)>> {
        let off = *self.offsets.get(n).ok_or(Error::InvalidIndex)?;
        if off < 0 {
            return Ok(None);
        }
        if self.sparse_dir.is_some() {
            return Err(Error::FrameType);
        }
        let off = off as u64;
        let avail = self.cbytes.checked_sub(off).ok_or(Error::InvalidHeader)?;
        let headn = avail.min(EXTENDED_HEADER_LENGTH as u64);
        if headn < MIN_HEADER_LENGTH as u64 {
            return Err(Error::InvalidHeader);
        }
        let head = self.read_at(self.header_len + off, headn)?;
        let h = ChunkHeader::parse_min(&head)?;
        let cb = h.cbytes as u64;
        if cb > avail {
            return Err(Error::InvalidHeader);
        }
        Ok(Some((off, cb)))
    }

    /// Chunk `n` as stored.
    pub fn chunk(&self, n: usize) -> Result<StoredChunk<'_>> {
        let off = *self.offsets.get(n).ok_or(Error::InvalidIndex)?;
        if self.sparse_dir.is_some() {
            if off < 0 {
                return Ok(StoredChunk::Special(offset_special(off)?));
            }
            return Ok(StoredChunk::Bytes(Cow::Owned(self.read_sparse_chunk(off)?)));
        }
        if let Some(bytes) = self.chunk_in_one_read(off)? {
            return Ok(StoredChunk::Bytes(Cow::Owned(bytes)));
        }
        match self.chunk_span(n)? {
            None => Ok(StoredChunk::Special(offset_special(off)?)),
            Some((at, cb)) => Ok(StoredChunk::Bytes(self.read_at(self.header_len + at, cb)?)),
        }
    }

    fn sort_offsets(&mut self) {
        self.sorted.clear();
        if self.sparse_dir.is_none() && self.memory_bytes().is_none() {
            self.sorted
                .extend(self.offsets.iter().copied().filter(|&o| o >= 0));
            self.sorted.sort_unstable();
        }
    }

    /// A regular chunk of a contiguous frame on disk read with one read:
    /// the bytes up to the next chunk's start (chunks are usually packed),
    /// kept when the chunk's header says it fits there. `None` when it
    /// does not apply (then the header is read first).
    fn chunk_in_one_read(&self, off: i64) -> Result<Option<Vec<u8>>> {
        const MAX_GUESS: i64 = 1 << 22;
        if off < 0 || self.sorted.is_empty() {
            return Ok(None);
        }
        let i = self.sorted.partition_point(|&o| o <= off);
        let end = self
            .sorted
            .get(i)
            .copied()
            .unwrap_or(self.cbytes as i64)
            .min(self.cbytes as i64);
        let gap = end - off;
        if !(MIN_HEADER_LENGTH as i64..=MAX_GUESS).contains(&gap) {
            return Ok(None);
        }
        let bytes = self
            .read_at(self.header_len + off as u64, gap as u64)?
            .into_owned();
        let Ok(h) = ChunkHeader::parse_min(&bytes) else {
            return Ok(None);
        };
        if h.cbytes < MIN_HEADER_LENGTH as i32 || h.cbytes as i64 > gap {
            return Ok(None);
        }
        let mut bytes = bytes;
        bytes.truncate(h.cbytes as usize);
        Ok(Some(bytes))
    }

    /// Apply a change: edit the chunks section, store `offsets` (compressed
    /// here unless `off_chunk` is given), then the header returned by
    /// `make_header` for the new chunks-section length, then `trailer`.
    /// The frame length is patched into the header here.
    pub fn commit(
        &mut self,
        edit: DataEdit<'_>,
        offsets: Vec<i64>,
        off_chunk: Option<Vec<u8>>,
        make_header: impl FnOnce(u64) -> Result<Vec<u8>>,
        trailer: Vec<u8>,
    ) -> Result<()> {
        let old_cbytes = self.cbytes;
        let new_cbytes = match &edit {
            DataEdit::None => old_cbytes,
            DataEdit::Append(c) => old_cbytes + c.len() as u64,
            DataEdit::Replace { at, old_len, new } => {
                if at + old_len > old_cbytes {
                    return Err(Error::InvalidHeader);
                }
                old_cbytes - old_len + new.len() as u64
            }
            DataEdit::Reset => 0,
            DataEdit::Sparse { cbytes } => {
                if self.sparse_dir.is_none() {
                    return Err(Error::FrameType);
                }
                *cbytes
            }
        };
        let mut header = make_header(new_cbytes)?;
        let has_chunks = i64::from_be_bytes(
            header[POS_NBYTES..POS_NBYTES + 8]
                .try_into()
                .unwrap_or([0; 8]),
        ) > 0;
        let off_chunk = match (off_chunk, has_chunks) {
            (_, false) => Vec::new(),
            (Some(c), true) => c,
            (None, true) => compress_offsets(&offsets)?,
        };
        let kept_off_chunk = off_chunk.clone();
        let hl = header.len() as u64;
        let section = if has_chunks && self.sparse_dir.is_none() {
            new_cbytes
        } else {
            0
        };
        let new_len = hl + section + off_chunk.len() as u64 + trailer.len() as u64;
        header[POS_FRAME_LEN..POS_FRAME_LEN + 8].copy_from_slice(&(new_len as i64).to_be_bytes());
        let header_head = header[..HEADER_MINLEN.min(header.len())].to_vec();
        let old_hl = self.header_len;
        if hl != old_hl && self.section_len() > 0 && has_chunks {
            // The header may only grow while the chunks section is empty.
            return Err(Error::InvalidParam);
        }
        match &mut self.backing {
            Backing::Memory(v) => {
                let mut buf = v.take_owned();
                buf.truncate((old_hl + old_cbytes) as usize);
                match edit {
                    DataEdit::None => {}
                    DataEdit::Append(c) => buf.extend_from_slice(c),
                    DataEdit::Replace { at, old_len, new } => {
                        let s = (old_hl + at) as usize;
                        buf.splice(s..s + old_len as usize, new.iter().copied());
                    }
                    DataEdit::Reset | DataEdit::Sparse { .. } => buf.truncate(old_hl as usize),
                }
                if !has_chunks {
                    buf.truncate(old_hl as usize);
                }
                if buf.len() < old_hl as usize {
                    buf.resize(old_hl as usize, 0);
                }
                buf.splice(0..old_hl as usize, header);
                buf.extend_from_slice(&off_chunk);
                buf.extend_from_slice(&trailer);
                debug_assert_eq!(buf.len() as u64, new_len);
                *v = FrameBytes::Owned(buf);
            }
            Backing::File {
                io,
                file: cached,
                path,
                offset,
            } => {
                let mut opened;
                let file: &mut dyn IoFile = match cached {
                    Some(f) => &mut **f,
                    None => {
                        opened = io.open(path, OpenMode::ReadWrite)?;
                        &mut *opened
                    }
                };
                let base = *offset;
                let prev_len = self.len;
                // What this commit may overwrite of the old frame, kept to be
                // put back if a write fails (see docs/crash-safety.md).
                let keep_from = if hl != old_hl {
                    0
                } else {
                    match (&edit, has_chunks) {
                        (DataEdit::Append(_), true) => old_hl + old_cbytes,
                        (DataEdit::Replace { at, .. }, true) => old_hl + at,
                        _ => hl + section,
                    }
                }
                .min(prev_len);
                let mut saved_tail = vec![0u8; (prev_len - keep_from) as usize];
                file.read_at(base + keep_from, &mut saved_tail)?;
                let mut saved_head = vec![0u8; old_hl.min(keep_from) as usize];
                file.read_at(base, &mut saved_head)?;
                let written = (|| -> Result<()> {
                    if has_chunks {
                        match edit {
                            DataEdit::None | DataEdit::Reset | DataEdit::Sparse { .. } => {}
                            DataEdit::Append(c) => file.write_at(base + old_hl + old_cbytes, c)?,
                            DataEdit::Replace { at, old_len, new } => {
                                let tail_at = at + old_len;
                                let mut tail = vec![0u8; (old_cbytes - tail_at) as usize];
                                file.read_at(base + old_hl + tail_at, &mut tail)?;
                                file.write_at(base + old_hl + at, new)?;
                                file.write_at(base + old_hl + at + new.len() as u64, &tail)?;
                            }
                        }
                    }
                    let mut rest = off_chunk.clone();
                    rest.extend_from_slice(&trailer);
                    file.write_at(base + hl + section, &rest)?;
                    // The header goes last: it publishes the new frame.
                    file.write_at(base, &header)?;
                    // Cut what a longer old frame left after the trailer;
                    // always called, as c-blosc2 does, so that an I/O
                    // backend sees every change of the frame's end.
                    file.truncate(base + new_len)?;
                    Ok(())
                })();
                if let Err(e) = written {
                    // Put the old bytes back (they need no new space) and drop
                    // whatever the failed commit appended.
                    let _ = file.write_at(base + keep_from, &saved_tail);
                    let _ = file.write_at(base, &saved_head);
                    if file.size().is_ok_and(|n| n > base + prev_len) && prev_len > 0 {
                        let _ = file.truncate(base + prev_len);
                    }
                    return Err(e);
                }
            }
        }
        self.header_len = hl;
        self.len = new_len;
        self.trailer_len = trailer.len() as u32;
        self.cbytes = if self.sparse_dir.is_some() {
            new_cbytes
        } else {
            section
        };
        self.offsets = offsets;
        self.sort_offsets();
        self.off_chunk = kept_off_chunk;
        self.head = header_head;
        Ok(())
    }

    /// The offsets chunk as stored.
    pub fn offsets_chunk(&self) -> &[u8] {
        &self.off_chunk
    }

    /// Flush file contents to disk.
    pub fn sync(&mut self) -> Result<()> {
        if let Backing::File { file: Some(f), .. } = &mut self.backing {
            f.sync()?;
        }
        Ok(())
    }

    /// Run `f` on the frame's file: the one kept open, or one opened (read
    /// only) for this call and closed after it.
    fn with_file<R>(&self, f: impl FnOnce(&dyn IoFile) -> Result<R>) -> Result<R> {
        match &self.backing {
            Backing::File { file: Some(h), .. } => f(&**h),
            Backing::File { io, path, .. } => {
                let h = io.open(path, OpenMode::Read)?;
                f(&*h)
            }
            Backing::Memory(_) => Err(Error::FrameType),
        }
    }

    /// Close the file of a backend whose files are opened per operation.
    fn close_if_per_operation(&mut self) {
        if let Backing::File { io, file, .. } = &mut self.backing {
            if !io.keeps_files_open() {
                *file = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty_header() -> Vec<u8> {
        FrameHeader {
            flags: FrameHeader::general_flags(-1, false),
            splitmode: 4,
            typesize: 4,
            chunksize: -1,
            nthreads_c: 1,
            nthreads_d: 1,
            clevel: 5,
            filters: [0, 0, 0, 0, 0, 1],
            ..Default::default()
        }
        .encode(&[])
        .unwrap()
    }

    #[test]
    fn empty_frame_round_trips() {
        let f = Frame::new_memory(empty_header(), encode_trailer(&[]).unwrap()).unwrap();
        let bytes = f.memory_bytes().unwrap().to_vec();
        assert_eq!(bytes.len(), 97 + 35);
        let o = Frame::from_buffer(bytes).unwrap();
        assert_eq!(o.frame.offsets().len(), 0);
        assert_eq!(o.header.chunksize, -1);
    }

    #[test]
    fn garbage_is_rejected_without_panics() {
        let f = Frame::new_memory(empty_header(), encode_trailer(&[]).unwrap()).unwrap();
        let bytes = f.memory_bytes().unwrap().to_vec();
        for i in 0..bytes.len() {
            for bit in [0x01u8, 0x80] {
                let mut b = bytes.clone();
                b[i] ^= bit;
                let _ = Frame::from_buffer(b);
            }
            let _ = Frame::from_buffer(bytes[..i].to_vec());
        }
    }
}
