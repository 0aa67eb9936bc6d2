//! Super-chunks: an ordered sequence of chunks sharing compression parameters,
//! with fixed metalayers and variable-length metalayers, kept either as
//! separate buffers in memory or in a contiguous frame (memory or file).
//!
//! ```
//! use blosc2::chunk::CParams;
//! use blosc2::schunk::{Storage, SuperChunk};
//! let cp = CParams { typesize: 4, ..CParams::default() };
//! let mut sc = SuperChunk::new(cp, Default::default(), Storage::FrameInMemory).unwrap();
//! let data: Vec<u8> = (0..1000u32).flat_map(|i| i.to_le_bytes()).collect();
//! sc.append_buffer(&data).unwrap();
//! let frame = sc.to_frame_bytes().unwrap();
//! let back = SuperChunk::from_frame_bytes(frame, true).unwrap();
//! assert_eq!(back.decompress_chunk_vec(0).unwrap(), data);
//! ```

use crate::chunk::{self, special, CParams, DParams, SplitMode};
use crate::error::{Error, Result};
use crate::format::frame::{
    encode_trailer, special_offset, FrameHeader, Metalayer, MAX_METALAYERS, MAX_VLMETALAYERS,
    METALAYER_NAME_MAXLEN, TYPE_CONTIGUOUS, TYPE_SPARSE,
};
use crate::format::header::{ChunkHeader, Special, B2_VL_BLOCKS, EXTENDED_HEADER_LENGTH};
use crate::frame::lock::FrameLock;
use crate::frame::{DataEdit, Frame, OpenedFrame, StoredChunk};
use crate::io::Io;
use std::borrow::Cow;
use std::path::{Path, PathBuf};

mod access;
mod follow;
#[cfg(test)]
mod tests;
pub mod urlpath;

/// Where a new super-chunk keeps its chunks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Storage {
    /// Separate chunk buffers in memory.
    Memory,
    /// A contiguous frame in memory.
    FrameInMemory,
    /// A contiguous frame in a new file.
    FrameFile(PathBuf),
    /// A sparse frame in a directory (one file per chunk plus the index).
    SparseDir(PathBuf),
}

#[derive(Debug)]
enum Store {
    Chunks(Vec<Vec<u8>>),
    Frame(Frame),
}

/// A super-chunk.
#[derive(Debug)]
pub struct SuperChunk {
    /// Parameters new chunks are compressed with.
    pub cparams: CParams,
    /// Parameters chunks are decompressed with.
    pub dparams: DParams,
    /// Block size recorded for the super-chunk (0: automatic / mixed).
    pub blocksize: i32,
    /// Common uncompressed chunk size (-1 before the first chunk, 0 when variable).
    pub chunksize: i32,
    /// The blosc2 flags2 byte of the chunks (VL blocks).
    pub flags2: u8,
    /// Uncompressed bytes.
    pub nbytes: i64,
    /// Compressed bytes (the chunks section for frames).
    pub cbytes: i64,
    /// Thread counts written in a frame header (compression, decompression).
    pub header_nthreads: (i16, i16),
    /// Block size of the last chunk compressed here (the reference's
    /// `cctx->blocksize`, which a copy records as its block size).
    pub last_blocksize: i32,
    metalayers: Vec<Metalayer>,
    vlmetalayers: Vec<Metalayer>,
    store: Store,
    frame_type: u8,
    /// The lock shared with other handles on the same frame (when locking).
    lock: Option<FrameLock>,
    /// Nesting depth of the changes in progress (see `exclusive`).
    busy: u32,
    /// Bumped each time changes made by another handle are taken in.
    generation: u64,
}

fn check_name(name: &str) -> Result<()> {
    if name.len() > METALAYER_NAME_MAXLEN || name.contains('\0') {
        return Err(Error::InvalidParam);
    }
    Ok(())
}

/// The flags2 byte of a chunk (0 for 16-byte headers).
fn chunk_flags2(h: &ChunkHeader) -> u8 {
    if h.is_extended() {
        h.blosc2_flags2
    } else {
        0
    }
}

/// `(nbytes, cbytes, header)` of a chunk, checked against its length.
fn chunk_info(chunk: &[u8]) -> Result<(i32, usize, ChunkHeader)> {
    let h = chunk::header(chunk)?;
    let cb = h.cbytes as usize;
    if cb > chunk.len() {
        return Err(Error::ReadBuffer);
    }
    Ok((h.nbytes, cb, h))
}

/// What replacing or deleting a chunk of `len` bytes held in memory takes
/// off `cbytes`. Clients compare `cbytes` with the reference's, which takes
/// nothing off for a chunk of exactly 32 bytes (a special-value chunk),
/// although it counted it when the chunk was added.
fn uncounted_cbytes(len: usize) -> i64 {
    if len == EXTENDED_HEADER_LENGTH {
        0
    } else {
        len as i64
    }
}

fn special_kind(h: &ChunkHeader) -> Option<Special> {
    match h.special() {
        Some(k @ (Special::Zero | Special::Nan | Special::Uninit)) if h.is_extended() => Some(k),
        _ => None,
    }
}

impl SuperChunk {
    /// A new, empty super-chunk (files through the plain file backend).
    pub fn new(cparams: CParams, dparams: DParams, storage: Storage) -> Result<SuperChunk> {
        Self::new_with_io(cparams, dparams, storage, crate::io::filesystem())
    }

    /// A new, empty super-chunk whose files go through `io`.
    pub fn new_with_io(
        cparams: CParams,
        dparams: DParams,
        storage: Storage,
        io: Io,
    ) -> Result<SuperChunk> {
        if cparams.typesize <= 0 {
            return Err(Error::InvalidParam);
        }
        let mut sc = SuperChunk {
            blocksize: cparams.blocksize,
            header_nthreads: (cparams.nthreads, dparams.nthreads),
            last_blocksize: cparams.blocksize,
            cparams,
            dparams,
            chunksize: -1,
            flags2: 0,
            nbytes: 0,
            cbytes: 0,
            metalayers: Vec::new(),
            vlmetalayers: Vec::new(),
            store: Store::Chunks(Vec::new()),
            frame_type: TYPE_CONTIGUOUS,
            lock: None,
            busy: 0,
            generation: 0,
        };
        match storage {
            Storage::Memory => {}
            Storage::FrameInMemory => {
                let f = Frame::new_memory(sc.header_bytes(0)?, sc.trailer_bytes()?)?;
                sc.store = Store::Frame(f);
            }
            Storage::FrameFile(p) => {
                let f = Frame::create_file(&p, io, sc.header_bytes(0)?, sc.trailer_bytes()?)?;
                sc.store = Store::Frame(f);
            }
            Storage::SparseDir(p) => {
                sc.frame_type = TYPE_SPARSE;
                let f = Frame::create_sparse(&p, io, sc.header_bytes(0)?, sc.trailer_bytes()?)?;
                sc.store = Store::Frame(f);
            }
        }
        Ok(sc)
    }

    fn from_opened(o: OpenedFrame, copy: bool) -> Result<SuperChunk> {
        let h = o.header;
        let cparams = CParams {
            compcode: h.compcode,
            compcode_meta: h.compcode_meta,
            clevel: h.clevel,
            use_dict: h.use_dict,
            typesize: h.typesize,
            blocksize: h.blocksize,
            splitmode: SplitMode::from_i32(h.splitmode as i32),
            filters: h.filters,
            filters_meta: h.filters_meta,
            ..CParams::default()
        };
        let mut sc = SuperChunk {
            cparams,
            dparams: DParams::default(),
            blocksize: h.blocksize,
            header_nthreads: (1, 1),
            last_blocksize: h.blocksize,
            chunksize: h.chunksize,
            flags2: 0,
            nbytes: h.nbytes,
            cbytes: h.cbytes,
            metalayers: o.metalayers,
            vlmetalayers: o.vlmetalayers,
            frame_type: if o.frame.sparse_dir().is_some() {
                TYPE_SPARSE
            } else {
                TYPE_CONTIGUOUS
            },
            store: Store::Frame(o.frame),
            lock: None,
            busy: 0,
            generation: 0,
        };
        if sc.nchunks() > 0 {
            let first = sc.chunk(0)?;
            sc.flags2 = chunk_flags2(&chunk::header(&first)?);
        }
        if copy {
            let n = sc.nchunks() as usize;
            let mut chunks = Vec::with_capacity(n);
            let mut acc_nbytes = 0i64;
            let mut blocksize = 0;
            for i in 0..n {
                let c = sc.chunk(i as i64)?.into_owned();
                let (nb, _, hd) = chunk_info(&c)?;
                acc_nbytes += nb as i64;
                if i == 0 {
                    blocksize = hd.blocksize;
                } else if blocksize != hd.blocksize {
                    blocksize = 0;
                }
                chunks.push(c);
            }
            if acc_nbytes != sc.nbytes {
                return Err(Error::InvalidHeader);
            }
            sc.cbytes = chunks.iter().map(|c| c.len() as i64).sum();
            sc.blocksize = blocksize;
            sc.store = Store::Chunks(chunks);
            sc.frame_type = TYPE_CONTIGUOUS;
        }
        Ok(sc)
    }

    /// Open a contiguous frame held in `bytes`; with `copy` the result keeps
    /// separate chunks in memory, otherwise it stays a frame.
    pub fn from_frame_bytes(bytes: Vec<u8>, copy: bool) -> Result<SuperChunk> {
        Self::from_opened(Frame::from_buffer(bytes)?, copy)
    }

    /// Open a contiguous frame stored in a file at byte `offset`, or the
    /// sparse frame in directory `path`.
    pub fn open(path: &Path, offset: u64) -> Result<SuperChunk> {
        Self::open_with_io(path, offset, crate::io::filesystem())
    }

    /// Like [`SuperChunk::open`], reading through `io`.
    pub fn open_with_io(path: &Path, offset: u64, io: Io) -> Result<SuperChunk> {
        Self::from_opened(Frame::open_file(path, offset, io)?, false)
    }

    /// Whether the super-chunk is a sparse frame.
    pub fn is_sparse(&self) -> bool {
        self.frame().is_some_and(|f| f.sparse_dir().is_some())
    }

    /// Number of chunks.
    pub fn nchunks(&self) -> i64 {
        match &self.store {
            Store::Chunks(v) => v.len() as i64,
            Store::Frame(f) => f.offsets().len() as i64,
        }
    }

    /// Item size.
    pub fn typesize(&self) -> i32 {
        self.cparams.typesize
    }

    /// The frame, for frame-backed super-chunks.
    pub fn frame(&self) -> Option<&Frame> {
        match &self.store {
            Store::Frame(f) => Some(f),
            Store::Chunks(_) => None,
        }
    }

    /// The chunk buffers of a super-chunk kept in memory without a frame.
    pub fn memory_chunks(&self) -> Option<&[Vec<u8>]> {
        match &self.store {
            Store::Chunks(v) => Some(v),
            Store::Frame(_) => None,
        }
    }

    /// Frame length, or the reference's estimate for super-chunks without a frame.
    pub fn frame_len(&self) -> i64 {
        match &self.store {
            Store::Frame(f) => f.len() as i64,
            Store::Chunks(v) => self.cbytes + 8 * v.len() as i64,
        }
    }

    /// Flush a file-backed frame to stable storage.
    pub fn sync(&mut self) -> Result<()> {
        match &mut self.store {
            Store::Frame(f) => f.sync(),
            Store::Chunks(_) => Ok(()),
        }
    }

    /// Fixed metalayers.
    pub fn metalayers(&self) -> &[Metalayer] {
        &self.metalayers
    }

    /// Variable-length metalayers (contents compressed).
    pub fn vlmetalayers(&self) -> &[Metalayer] {
        &self.vlmetalayers
    }

    fn header_bytes(&self, cbytes: u64) -> Result<Vec<u8>> {
        FrameHeader {
            header_len: 0,
            frame_len: 0,
            flags: FrameHeader::general_flags(self.chunksize, self.flags2 & B2_VL_BLOCKS != 0),
            frame_type: self.frame_type,
            compcode: self.cparams.compcode,
            clevel: self.cparams.clevel,
            splitmode: self.cparams.splitmode as u8,
            nbytes: self.nbytes,
            cbytes: cbytes as i64,
            typesize: self.cparams.typesize,
            blocksize: self.blocksize,
            chunksize: self.chunksize,
            nthreads_c: self.header_nthreads.0,
            nthreads_d: self.header_nthreads.1,
            has_vlmeta: !self.vlmetalayers.is_empty(),
            filters: self.cparams.filters,
            filters_meta: self.cparams.filters_meta,
            compcode_meta: self.cparams.compcode_meta,
            use_dict: self.cparams.use_dict,
        }
        .encode(&self.metalayers)
    }

    fn trailer_bytes(&self) -> Result<Vec<u8>> {
        encode_trailer(&self.vlmetalayers)
    }

    /// Rewrite the frame (if any) after a change of counters or metadata.
    fn commit(
        &mut self,
        edit: DataEdit<'_>,
        offsets: Option<Vec<i64>>,
        off_chunk: Option<Vec<u8>>,
    ) -> Result<()> {
        if !matches!(self.store, Store::Frame(_)) {
            return Ok(());
        }
        let trailer = self.trailer_bytes()?;
        let Store::Frame(mut f) = std::mem::replace(&mut self.store, Store::Chunks(Vec::new()))
        else {
            return Err(Error::Failure);
        };
        let (offsets, off_chunk) = match offsets {
            Some(o) => (o, off_chunk),
            None if f.offsets_chunk().is_empty() => (f.offsets().to_vec(), off_chunk),
            None => (f.offsets().to_vec(), Some(f.offsets_chunk().to_vec())),
        };
        let r = f.commit(
            edit,
            offsets,
            off_chunk,
            |cb| self.header_bytes(cb),
            trailer,
        );
        self.cbytes = f.data_len() as i64;
        self.store = Store::Frame(f);
        r
    }

    /// The buffer of a contiguous frame held in memory, taken out of the
    /// super-chunk (C clients may keep it after freeing the super-chunk).
    pub fn into_memory_frame(self) -> Option<Vec<u8>> {
        match self.store {
            Store::Frame(f) => f.into_memory_bytes(),
            Store::Chunks(_) => None,
        }
    }

    /// Chunk `n` as bytes (special chunks of frames are rebuilt as 32-byte chunks).
    pub fn chunk(&self, n: i64) -> Result<Cow<'_, [u8]>> {
        if n < 0 || n >= self.nchunks() {
            return Err(Error::InvalidParam);
        }
        match &self.store {
            Store::Chunks(v) => Ok(Cow::Borrowed(&v[n as usize])),
            Store::Frame(f) => match f.chunk(n as usize)? {
                StoredChunk::Bytes(b) => Ok(b),
                StoredChunk::Special(kind) => Ok(Cow::Owned(self.special_chunk(n, kind)?)),
            },
        }
    }

    fn special_chunk(&self, n: i64, kind: Special) -> Result<Vec<u8>> {
        if self.chunksize <= 0 {
            return Err(Error::FrameSpecial);
        }
        let cs = self.chunksize as i64;
        let mut size = cs;
        if n == self.nchunks() - 1 && self.nbytes % cs != 0 {
            size = self.nbytes % cs;
        }
        let params = CParams {
            typesize: self.cparams.typesize,
            blocksize: self.blocksize,
            ..CParams::default()
        };
        let mut out = vec![0u8; EXTENDED_HEADER_LENGTH];
        special::chunk_special(&params, size as i32, kind, &mut out)?;
        Ok(out)
    }

    fn chunk_nbytes(&self, n: i64) -> Result<i32> {
        Ok(chunk::header(&self.chunk(n)?)?.nbytes)
    }

    /// Decompress chunk `n` into `dest`; returns its size.
    pub fn decompress_chunk(&self, n: i64, dest: &mut [u8]) -> Result<usize> {
        let c = self.chunk(n)?;
        let (nb, cb, _) = chunk_info(&c)?;
        if (nb as usize) > dest.len() {
            return Err(if self.frame().is_some() {
                Error::WriteBuffer
            } else {
                Error::InvalidParam
            });
        }
        let mut dp = self.dparams.clone();
        dp.nchunk = n;
        let got = chunk::decompress_into(&dp, &c[..cb], dest)?;
        if got != nb as usize {
            return Err(Error::Failure);
        }
        Ok(got)
    }

    /// Whether `chunk` is a lazy chunk (an extended header flagged lazy:
    /// block starts and a trailer locating the rest in a frame on disk),
    /// which [`SuperChunk::resolve_lazy`] reads back whole. Too short to
    /// hold an extended header: not lazy; a bad header: its error.
    pub fn is_lazy_chunk(chunk: &[u8]) -> Result<bool> {
        if chunk.len() < EXTENDED_HEADER_LENGTH {
            return Ok(false);
        }
        let h = ChunkHeader::parse_min(chunk)?;
        Ok(h.is_extended() && ChunkHeader::parse(chunk).is_ok_and(|f| f.lazy()))
    }

    /// Decompress chunk `n` into a new buffer.
    pub fn decompress_chunk_vec(&self, n: i64) -> Result<Vec<u8>> {
        let c = self.chunk(n)?;
        let (nb, _, _) = chunk_info(&c)?;
        let mut out = vec![0u8; nb as usize];
        self.decompress_chunk(n, &mut out)?;
        Ok(out)
    }

    /// Compress `src` with the super-chunk parameters and append it.
    pub fn append_buffer(&mut self, src: &[u8]) -> Result<i64> {
        self.exclusive(|s| s.append_buffer_here(src))
    }

    fn append_buffer_here(&mut self, src: &[u8]) -> Result<i64> {
        let mut cp = self.cparams.clone();
        cp.nchunk = self.nchunks();
        let c = chunk::compress(&cp, src)?;
        self.last_blocksize = chunk::header(&c)?.blocksize;
        self.append_chunk(c)
    }

    /// The chunksize rules the reference applies before adding a chunk at
    /// `at` (`replace`: updating the chunk there).
    fn check_chunk(
        &mut self,
        chunk: &[u8],
        at: i64,
        kind: Op,
    ) -> Result<(i32, usize, ChunkHeader)> {
        let (nb, cb, h) = chunk_info(chunk)?;
        let err = match kind {
            Op::Append => Error::ChunkAppend,
            Op::Insert => Error::ChunkInsert,
            Op::Update => Error::ChunkUpdate,
        };
        let nchunks = self.nchunks();
        let vl = chunk_flags2(&h) & B2_VL_BLOCKS != 0;
        let reference = match kind {
            Op::Update if nchunks > 1 || (nchunks == 1 && at != 0) => {
                Some(if at == 0 { 1 } else { 0 })
            }
            Op::Update => None,
            _ if nchunks > 0 => Some(0),
            _ => None,
        };
        let mut new_flags2 = self.flags2;
        match reference {
            Some(r) => {
                let rh = chunk::header(&self.chunk(r)?)?;
                if (chunk_flags2(&rh) & B2_VL_BLOCKS != 0) != vl {
                    return Err(err);
                }
            }
            None => new_flags2 = chunk_flags2(&h),
        }
        let mut chunksize = self.chunksize;
        let mut variable = chunksize == 0;
        if chunksize == -1 {
            chunksize = nb;
        }
        if !variable {
            let becomes_variable = match kind {
                Op::Update => nb > chunksize || (at != nchunks - 1 && nb != chunksize),
                Op::Append | Op::Insert if nchunks > 0 => {
                    let last = self.chunk_nbytes(nchunks - 1)?;
                    last < chunksize
                        || nb > chunksize
                        || (kind == Op::Insert && at != nchunks && nb != chunksize)
                }
                _ => false,
            };
            if becomes_variable {
                variable = true;
                chunksize = 0;
            }
        }
        if !variable && chunksize > 0 && nb > chunksize {
            return Err(err);
        }
        self.flags2 = new_flags2;
        self.chunksize = chunksize;
        Ok((nb, cb, h))
    }

    /// Append a compressed chunk; returns the new number of chunks.
    pub fn append_chunk(&mut self, chunk: Vec<u8>) -> Result<i64> {
        self.exclusive(|s| s.append_chunk_here(chunk))
    }

    fn append_chunk_here(&mut self, chunk: Vec<u8>) -> Result<i64> {
        let n = self.nchunks();
        self.insert_or_append(n, chunk, Op::Append)
    }

    /// Insert a compressed chunk at position `n`.
    pub fn insert_chunk(&mut self, n: i64, chunk: Vec<u8>) -> Result<i64> {
        self.exclusive(|s| s.insert_chunk_here(n, chunk))
    }

    fn insert_chunk_here(&mut self, n: i64, chunk: Vec<u8>) -> Result<i64> {
        if n < 0 || n > self.nchunks() {
            return Err(Error::InvalidParam);
        }
        self.insert_or_append(n, chunk, Op::Insert)
    }

    fn insert_or_append(&mut self, n: i64, mut chunk: Vec<u8>, op: Op) -> Result<i64> {
        let saved = (self.chunksize, self.flags2, self.nbytes, self.cbytes);
        let (nb, cb, h) = self.check_chunk(&chunk, n, op)?;
        chunk.truncate(cb);
        self.nbytes += nb as i64;
        let r = if let Store::Chunks(v) = &mut self.store {
            self.cbytes += cb as i64;
            v.insert(n as usize, chunk);
            Ok(())
        } else {
            let f = self.frame().ok_or(Error::Failure)?;
            let mut offsets = f.offsets().to_vec();
            if f.sparse_dir().is_some() {
                let mut cbytes = f.data_len();
                let mut new_file = None;
                let off = match special_kind(&h) {
                    Some(k) => special_offset(k).unwrap_or(0),
                    None => {
                        let id = f.next_sparse_id();
                        new_file = Some(id);
                        if let Err(e) = f.write_sparse_chunk(id, &chunk) {
                            let _ = f.remove_sparse_chunk(id);
                            return Err(e);
                        }
                        cbytes += chunk.len() as u64;
                        id
                    }
                };
                offsets.insert(n as usize, off);
                let r = self.commit(DataEdit::Sparse { cbytes }, Some(offsets), None);
                if let (Err(_), Some(id), Some(f)) = (&r, new_file, self.frame()) {
                    // The index does not name the new file: drop it.
                    let _ = f.remove_sparse_chunk(id);
                }
                r
            } else {
                let (off, edit) = match special_kind(&h) {
                    Some(k) => (special_offset(k).unwrap_or(0), DataEdit::None),
                    None => (f.data_len() as i64, DataEdit::Append(&chunk)),
                };
                offsets.insert(n as usize, off);
                self.commit(edit, Some(offsets), None)
            }
        };
        if let Err(e) = r {
            (self.chunksize, self.flags2, self.nbytes, self.cbytes) = saved;
            return Err(e);
        }
        Ok(self.nchunks())
    }

    /// Replace chunk `n`.
    pub fn update_chunk(&mut self, n: i64, chunk: Vec<u8>) -> Result<i64> {
        self.exclusive(|s| s.update_chunk_here(n, chunk))
    }

    fn update_chunk_here(&mut self, n: i64, mut chunk: Vec<u8>) -> Result<i64> {
        if n < 0 || n >= self.nchunks() {
            return Err(Error::InvalidParam);
        }
        let saved = (self.chunksize, self.flags2, self.nbytes, self.cbytes);
        let (nb, cb, h) = self.check_chunk(&chunk, n, Op::Update)?;
        chunk.truncate(cb);
        let r = (|| {
            let old_nb = self.chunk_nbytes(n)? as i64;
            self.nbytes += nb as i64 - old_nb;
            if let Store::Chunks(v) = &mut self.store {
                let old_cb = uncounted_cbytes(v[n as usize].len());
                self.cbytes += cb as i64 - old_cb;
                v[n as usize] = chunk;
                return Ok(());
            }
            let f = self.frame().ok_or(Error::Failure)?;
            let mut offsets = f.offsets().to_vec();
            if f.sparse_dir().is_some() {
                let old = offsets[n as usize];
                let mut cbytes = f.data_len();
                if old >= 0 {
                    cbytes = cbytes.saturating_sub(f.sparse_chunk_size(old).unwrap_or(0));
                }
                // The old chunk file stays untouched until the new index is
                // written: a replacement is staged beside it, then renamed.
                let mut staged = None;
                let mut new_file = None;
                match special_kind(&h) {
                    Some(k) => offsets[n as usize] = special_offset(k).unwrap_or(0),
                    None if old >= 0 => {
                        f.stage_sparse_chunk(old, &chunk)?;
                        staged = Some(old);
                        cbytes += chunk.len() as u64;
                    }
                    None => {
                        let id = f.next_sparse_id();
                        new_file = Some(id);
                        if let Err(e) = f.write_sparse_chunk(id, &chunk) {
                            let _ = f.remove_sparse_chunk(id);
                            return Err(e);
                        }
                        cbytes += chunk.len() as u64;
                        offsets[n as usize] = id;
                    }
                }
                let became_special = special_kind(&h).is_some() && old >= 0;
                let r = self.commit(DataEdit::Sparse { cbytes }, Some(offsets), None);
                let f = self.frame().ok_or(Error::Failure)?;
                return match r {
                    Ok(()) => {
                        if let Some(id) = staged {
                            f.publish_staged_chunk(id)?;
                        }
                        if became_special {
                            f.remove_sparse_chunk(old)?;
                        }
                        Ok(())
                    }
                    Err(e) => {
                        if let Some(id) = staged {
                            f.discard_staged_chunk(id);
                        }
                        if let Some(id) = new_file {
                            let _ = f.remove_sparse_chunk(id);
                        }
                        Err(e)
                    }
                };
            }
            let span = f.chunk_span(n as usize)?;
            let data_len = f.data_len() as i64;
            let special = special_kind(&h);
            let new_bytes: &[u8] = if special.is_some() { &[] } else { &chunk };
            let edit = match span {
                Some((at, old_len)) => {
                    let delta = new_bytes.len() as i64 - old_len as i64;
                    for (i, o) in offsets.iter_mut().enumerate() {
                        if i as i64 != n && *o > at as i64 {
                            *o += delta;
                        }
                    }
                    offsets[n as usize] = match special {
                        Some(k) => special_offset(k).unwrap_or(0),
                        None => at as i64,
                    };
                    DataEdit::Replace {
                        at,
                        old_len,
                        new: new_bytes,
                    }
                }
                None => match special {
                    Some(k) => {
                        offsets[n as usize] = special_offset(k).unwrap_or(0);
                        DataEdit::None
                    }
                    None => {
                        offsets[n as usize] = data_len;
                        DataEdit::Append(new_bytes)
                    }
                },
            };
            self.commit(edit, Some(offsets), None)
        })();
        if let Err(e) = r {
            (self.chunksize, self.flags2, self.nbytes, self.cbytes) = saved;
            return Err(e);
        }
        Ok(self.nchunks())
    }

    /// Remove chunk `n`.
    pub fn delete_chunk(&mut self, n: i64) -> Result<i64> {
        self.exclusive(|s| s.delete_chunk_here(n))
    }

    fn delete_chunk_here(&mut self, n: i64) -> Result<i64> {
        if n < 0 || n >= self.nchunks() {
            return Err(Error::InvalidParam);
        }
        let saved = (self.chunksize, self.flags2, self.nbytes, self.cbytes);
        let r = (|| {
            let old_nb = self.chunk_nbytes(n)? as i64;
            self.nbytes -= old_nb;
            if self.nchunks() == 1 {
                self.flags2 = 0;
            }
            if let Store::Chunks(v) = &mut self.store {
                let old = v.remove(n as usize);
                self.cbytes -= uncounted_cbytes(old.len());
                return Ok(());
            }
            let f = self.frame().ok_or(Error::Failure)?;
            let mut offsets = f.offsets().to_vec();
            let room = offsets.len() * 8 + EXTENDED_HEADER_LENGTH;
            let old = offsets.remove(n as usize);
            if f.sparse_dir().is_some() {
                let mut cbytes = f.data_len();
                if old >= 0 {
                    cbytes = cbytes.saturating_sub(f.sparse_chunk_size(old).unwrap_or(0));
                }
                let off_chunk = crate::frame::compress_offsets_into(&offsets, room)?;
                // The index stops naming the chunk file before it goes away.
                self.commit(DataEdit::Sparse { cbytes }, Some(offsets), Some(off_chunk))?;
                if old >= 0 {
                    if let Some(f) = self.frame() {
                        f.remove_sparse_chunk(old)?;
                    }
                }
                return Ok(());
            }
            let edit = if offsets.is_empty() {
                DataEdit::Reset
            } else {
                DataEdit::None
            };
            let off_chunk = crate::frame::compress_offsets_into(&offsets, room)?;
            self.commit(edit, Some(offsets), Some(off_chunk))
        })();
        if let Err(e) = r {
            (self.chunksize, self.flags2, self.nbytes, self.cbytes) = saved;
            return Err(e);
        }
        Ok(self.nchunks())
    }

    /// Fill an empty super-chunk with `nitems` special values in chunks of
    /// `chunksize` bytes; returns the number of chunks.
    pub fn fill_special(&mut self, nitems: i64, kind: Special, chunksize: i32) -> Result<i64> {
        self.exclusive(|s| s.fill_special_here(nitems, kind, chunksize))
    }

    fn fill_special_here(&mut self, nitems: i64, kind: Special, chunksize: i32) -> Result<i64> {
        if nitems == 0 {
            return Ok(0);
        }
        let ts = self.cparams.typesize;
        if nitems < 0 || chunksize <= 0 || ts <= 0 {
            return Err(Error::InvalidParam);
        }
        if self.nbytes > 0 || self.cbytes > 0 {
            return Err(Error::FrameSpecial);
        }
        let chunkitems = chunksize / ts;
        if chunkitems <= 0 {
            return Err(Error::InvalidParam);
        }
        let full = nitems / chunkitems as i64;
        if full > i32::MAX as i64 || nitems > i64::MAX / ts as i64 {
            return Err(Error::SchunkSpecial);
        }
        let leftover = (nitems % chunkitems as i64) as i32;
        if !matches!(kind, Special::Zero | Special::Nan | Special::Uninit) {
            return Err(Error::SchunkSpecial);
        }
        let mut params = self.cparams.clone();
        params.prefilter = None;
        let make = |size: i32| -> Result<Vec<u8>> {
            let mut c = vec![0u8; EXTENDED_HEADER_LENGTH];
            special::chunk_special(&params, size, kind, &mut c)?;
            Ok(c)
        };
        match &self.store {
            Store::Chunks(_) => {
                let c = make(chunksize).map_err(|_| Error::SchunkSpecial)?;
                let c2 = make(leftover * ts).map_err(|_| Error::SchunkSpecial)?;
                for _ in 0..full {
                    self.append_chunk(c.clone())
                        .map_err(|_| Error::SchunkSpecial)?;
                }
                if leftover > 0 {
                    self.append_chunk(c2).map_err(|_| Error::SchunkSpecial)?;
                }
            }
            Store::Frame(_) => {
                let total = full + i64::from(leftover > 0);
                if total.checked_mul(8).is_none_or(|b| b > i32::MAX as i64) {
                    return Err(Error::FrameSpecial);
                }
                let sample = make(chunksize).map_err(|_| Error::FrameSpecial)?;
                let off = special_offset(kind).ok_or(Error::FrameSpecial)?;
                let oparams = CParams {
                    typesize: 8,
                    blocksize: 16 * 1024,
                    clevel: 5,
                    compcode: crate::codec::BLOSCLZ,
                    ..params.clone()
                };
                let mut off_chunk = vec![0u8; EXTENDED_HEADER_LENGTH + 8];
                let n = special::chunk_repeatval(
                    &oparams,
                    (total * 8) as i32,
                    &off.to_le_bytes(),
                    &mut off_chunk,
                )
                .map_err(|_| Error::Data)?;
                off_chunk.truncate(n);
                let saved = (self.chunksize, self.nbytes, self.blocksize);
                self.blocksize = chunk::header(&sample)?.blocksize;
                self.chunksize = chunksize;
                self.nbytes = nitems * ts as i64;
                let offsets = vec![off; total as usize];
                if let Err(e) = self.commit(DataEdit::None, Some(offsets), Some(off_chunk)) {
                    (self.chunksize, self.nbytes, self.blocksize) = saved;
                    return Err(e);
                }
            }
        }
        Ok(self.nchunks())
    }

    fn slice_range(&self, start: i64, stop: i64) -> Result<(i64, i64)> {
        let ts = self.cparams.typesize as i64;
        if start < 0 || stop < start || self.chunksize <= 0 {
            return Err(Error::InvalidParam);
        }
        let (bs, be) = (
            start.checked_mul(ts).ok_or(Error::InvalidParam)?,
            stop.checked_mul(ts).ok_or(Error::InvalidParam)?,
        );
        if be > self.nbytes {
            return Err(Error::InvalidParam);
        }
        Ok((bs, be))
    }

    /// Decode items `[start, stop)` into `dest`.
    pub fn get_slice(&self, start: i64, stop: i64, dest: &mut [u8]) -> Result<()> {
        let (bs, be) = self.slice_range(start, stop)?;
        if dest.len() < (be - bs) as usize {
            return Err(Error::WriteBuffer);
        }
        let cs = self.chunksize as i64;
        let mut pos = bs;
        while pos < be {
            let n = pos / cs;
            let c0 = pos - n * cs;
            let c1 = (be - n * cs).min(cs);
            let out = &mut dest[(pos - bs) as usize..(pos - bs + c1 - c0) as usize];
            let chunk = self.chunk(n)?;
            let (nb, cb, _) = chunk_info(&chunk)?;
            if (nb as i64) < c1 {
                return Err(Error::Failure);
            }
            let mut dp = self.dparams.clone();
            dp.nchunk = n;
            if c0 == 0 && c1 == nb as i64 {
                chunk::decompress_into(&dp, &chunk[..cb], out)?;
            } else {
                let got = chunk::getitem_bytes(&dp, &chunk[..cb], c0, c1 - c0, out)?;
                if got as i64 != c1 - c0 {
                    return Err(Error::Failure);
                }
            }
            pos += c1 - c0;
        }
        Ok(())
    }

    /// Overwrite items `[start, stop)` from `src`, recompressing the chunks touched.
    pub fn set_slice(&mut self, start: i64, stop: i64, src: &[u8]) -> Result<()> {
        self.exclusive(|s| s.set_slice_here(start, stop, src))
    }

    fn set_slice_here(&mut self, start: i64, stop: i64, src: &[u8]) -> Result<()> {
        let (bs, be) = self.slice_range(start, stop)?;
        if src.len() < (be - bs) as usize {
            return Err(Error::ReadBuffer);
        }
        let cs = self.chunksize as i64;
        let mut pos = bs;
        while pos < be {
            let n = pos / cs;
            let c0 = pos - n * cs;
            let c1 = (be - n * cs).min(cs);
            let mut data = self.decompress_chunk_vec(n)?;
            if (data.len() as i64) < c1 {
                return Err(Error::Failure);
            }
            data[c0 as usize..c1 as usize]
                .copy_from_slice(&src[(pos - bs) as usize..(pos - bs + c1 - c0) as usize]);
            let mut cp = self.cparams.clone();
            cp.nchunk = n;
            let c = chunk::compress(&cp, &data)?;
            self.last_blocksize = chunk::header(&c)?.blocksize;
            self.update_chunk(n, c)?;
            pos += c1 - c0;
        }
        Ok(())
    }

    // ------------------------------------------------------------ metalayers

    /// Index of metalayer `name`.
    pub fn meta_exists(&self, name: &str) -> Result<usize> {
        check_name(name)?;
        self.metalayers
            .iter()
            .position(|m| m.name == name)
            .ok_or(Error::NotFound)
    }

    /// Content of metalayer `name`.
    pub fn meta_get(&self, name: &str) -> Result<&[u8]> {
        Ok(&self.metalayers[self.meta_exists(name)?].content)
    }

    /// Add a metalayer (frames only before any chunk data); returns its index.
    pub fn meta_add(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        self.exclusive(|s| s.meta_add_here(name, content))
    }

    fn meta_add_here(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        check_name(name)?;
        if self.meta_exists(name).is_ok() || self.metalayers.len() >= MAX_METALAYERS {
            return Err(Error::InvalidParam);
        }
        if self.frame().is_some() && self.cbytes > 0 {
            return Err(Error::InvalidParam);
        }
        self.metalayers.push(Metalayer {
            name: name.to_string(),
            content: content.to_vec(),
        });
        if let Err(e) = self.commit(DataEdit::None, None, None) {
            self.metalayers.pop();
            return Err(e);
        }
        Ok(self.metalayers.len() - 1)
    }

    /// Overwrite the start of metalayer `name` (its length does not change; a
    /// longer content is refused).
    pub fn meta_update(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        self.exclusive(|s| s.meta_update_here(name, content))
    }

    fn meta_update_here(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        let i = self.meta_exists(name)?;
        if content.len() > self.metalayers[i].content.len() {
            return Err(Error::InvalidParam);
        }
        let old = self.metalayers[i].content.clone();
        self.metalayers[i].content[..content.len()].copy_from_slice(content);
        if let Err(e) = self.commit(DataEdit::None, None, None) {
            self.metalayers[i].content = old;
            return Err(e);
        }
        Ok(i)
    }

    /// Index of vlmetalayer `name`.
    pub fn vlmeta_exists(&self, name: &str) -> Result<usize> {
        check_name(name)?;
        self.vlmetalayers
            .iter()
            .position(|m| m.name == name)
            .ok_or(Error::NotFound)
    }

    fn vlmeta_compress(content: &[u8], cparams: Option<&CParams>) -> Result<Vec<u8>> {
        let cp = cparams.cloned().unwrap_or_default();
        chunk::compress(&cp, content)
    }

    /// Add a vlmetalayer compressed with `cparams` (defaults when `None`).
    pub fn vlmeta_add(
        &mut self,
        name: &str,
        content: &[u8],
        cparams: Option<&CParams>,
    ) -> Result<usize> {
        self.exclusive(|s| s.vlmeta_add_here(name, content, cparams))
    }

    fn vlmeta_add_here(
        &mut self,
        name: &str,
        content: &[u8],
        cparams: Option<&CParams>,
    ) -> Result<usize> {
        check_name(name)?;
        if self.vlmeta_exists(name).is_ok() {
            return Err(Error::InvalidParam);
        }
        let max = if self.frame().is_some() {
            MAX_METALAYERS
        } else {
            MAX_VLMETALAYERS
        };
        if self.vlmetalayers.len() >= max {
            return Err(Error::Failure);
        }
        let c = Self::vlmeta_compress(content, cparams)?;
        self.vlmetalayers.push(Metalayer {
            name: name.to_string(),
            content: c,
        });
        if let Err(e) = self.commit(DataEdit::None, None, None) {
            self.vlmetalayers.pop();
            return Err(e);
        }
        Ok(self.vlmetalayers.len() - 1)
    }

    /// Replace the content of vlmetalayer `name`.
    pub fn vlmeta_update(
        &mut self,
        name: &str,
        content: &[u8],
        cparams: Option<&CParams>,
    ) -> Result<usize> {
        self.exclusive(|s| s.vlmeta_update_here(name, content, cparams))
    }

    fn vlmeta_update_here(
        &mut self,
        name: &str,
        content: &[u8],
        cparams: Option<&CParams>,
    ) -> Result<usize> {
        let i = self.vlmeta_exists(name)?;
        let c = Self::vlmeta_compress(content, cparams)?;
        let old = std::mem::replace(&mut self.vlmetalayers[i].content, c);
        if let Err(e) = self.commit(DataEdit::None, None, None) {
            self.vlmetalayers[i].content = old;
            return Err(e);
        }
        Ok(i)
    }

    /// Decompressed content of vlmetalayer `name`.
    pub fn vlmeta_get(&self, name: &str) -> Result<(usize, Vec<u8>)> {
        let i = self.vlmeta_exists(name)?;
        let c = &self.vlmetalayers[i].content;
        let (nb, cb, _) = chunk_info(c).map_err(|_| Error::Data)?;
        if cb != c.len() {
            return Err(Error::Data);
        }
        let mut out = vec![0u8; nb as usize];
        let got = chunk::decompress_into(&self.dparams, c, &mut out)?;
        if got != nb as usize {
            return Err(Error::ReadBuffer);
        }
        Ok((i, out))
    }

    /// Remove vlmetalayer `name`; returns how many remain.
    pub fn vlmeta_delete(&mut self, name: &str) -> Result<usize> {
        self.exclusive(|s| s.vlmeta_delete_here(name))
    }

    fn vlmeta_delete_here(&mut self, name: &str) -> Result<usize> {
        let i = self.vlmeta_exists(name)?;
        let old = self.vlmetalayers.remove(i);
        if let Err(e) = self.commit(DataEdit::None, None, None) {
            self.vlmetalayers.insert(i, old);
            return Err(e);
        }
        Ok(self.vlmetalayers.len())
    }

    // ------------------------------------------------------------ copies

    /// A copy in another storage, built the way the reference builds it
    /// (metalayers, then chunks appended one by one, then vlmetalayers
    /// recompressed with the default parameters). With `cparams` the chunks
    /// are recompressed with them when they differ from ours.
    pub fn copy_to(&self, storage: Storage, cparams: Option<CParams>) -> Result<SuperChunk> {
        let same_params = cparams.is_none();
        let mut cp = match cparams {
            Some(c) => c,
            None => {
                // The reference fills a zeroed struct from the context: no
                // threads, and the context's last block size.
                let mut c = self.cparams.clone();
                c.blocksize = self.last_blocksize;
                c
            }
        };
        if cp.blocksize == 0 {
            cp.blocksize = self.last_blocksize;
        }
        cp.prefilter = None;
        let recompress = !same_params
            && (cp.typesize != self.cparams.typesize
                || cp.clevel != self.cparams.clevel
                || cp.compcode != self.cparams.compcode
                || cp.use_dict != self.cparams.use_dict
                || cp.blocksize != self.last_blocksize
                || cp.filters != self.cparams.filters
                || cp.filters_meta != self.cparams.filters_meta)
            && self.flags2 & B2_VL_BLOCKS == 0;
        let mut dp = self.dparams.clone();
        dp.postfilter = None;
        let nthreads_c = if same_params { 0 } else { cp.nthreads };
        let mut out = SuperChunk::new(cp, dp, storage)?;
        out.header_nthreads = (nthreads_c, 1);
        out.chunksize = self.chunksize;
        out.flags2 = self.flags2;
        for m in &self.metalayers {
            out.meta_add(&m.name, &m.content)?;
        }
        for i in 0..self.nchunks() {
            if recompress {
                out.append_buffer(&self.decompress_chunk_vec(i)?)?;
            } else {
                out.append_chunk(self.chunk(i)?.into_owned())?;
            }
        }
        for m in &self.vlmetalayers {
            let (_, content) = self.vlmeta_get(&m.name)?;
            out.vlmeta_add(&m.name, &content, None)?;
        }
        Ok(out)
    }

    /// The super-chunk as a contiguous frame in memory.
    pub fn to_frame_bytes(&self) -> Result<Vec<u8>> {
        match &self.store {
            Store::Frame(f) if f.memory_bytes().is_some() => f.to_bytes(),
            _ => {
                let c = self.copy_to(Storage::FrameInMemory, None)?;
                c.frame().ok_or(Error::Failure)?.to_bytes()
            }
        }
    }

    /// Write the super-chunk as a contiguous frame into a new file (replacing
    /// an existing one); returns the frame length.
    pub fn to_file(&self, path: &Path) -> Result<i64> {
        let bytes = self.to_frame_bytes()?;
        std::fs::write(path, &bytes).map_err(|_| Error::FileWrite)?;
        Ok(bytes.len() as i64)
    }

    /// Append the super-chunk as a contiguous frame at the end of a file
    /// (created when missing); returns the offset where it starts.
    pub fn append_to_file(&self, path: &Path) -> Result<i64> {
        use std::io::Write;
        let bytes = self.to_frame_bytes()?;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|_| Error::FileOpen)?;
        let at = f.metadata().map_err(|_| Error::FileRead)?.len();
        f.write_all(&bytes).map_err(|_| Error::FileWrite)?;
        Ok(at as i64)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Append,
    Insert,
    Update,
}
