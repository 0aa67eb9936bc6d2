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

#![forbid(unsafe_code)]

use crate::chunk::{self, special, CParams, DParams, SplitMode};
use crate::error::{Error, Result};
use crate::format::frame::{
    encode_trailer, special_offset, FrameHeader, Metalayer, MAX_METALAYERS, MAX_VLMETALAYERS,
    METALAYER_NAME_MAXLEN, TYPE_CONTIGUOUS, TYPE_SPARSE,
};
use crate::format::header::{ChunkHeader, Special, B2_VL_BLOCKS, EXTENDED_HEADER_LENGTH};
use crate::frame::lock::FrameLock;
use crate::frame::{DataEdit, Frame, FrameBytes, LentBytes, OpenedFrame, StoredChunk};
use crate::io::Io;
use std::borrow::Cow;
use std::path::{Path, PathBuf};

mod access;
mod caller_buffers;
mod edit;
mod follow;
mod items;
mod meta;
mod serialize;
#[cfg(test)]
mod tests;
pub mod urlpath;

pub use caller_buffers::{CallerBuffers, Released};

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

impl Storage {
    /// The storage a C `blosc2_storage` describes: a contiguous frame or
    /// separate chunks, in memory without a urlpath, on disk (a frame file
    /// or a sparse frame's directory, see [`urlpath::path_of`]) with one.
    pub fn from_urlpath(contiguous: bool, urlpath: Option<&str>) -> Storage {
        match (contiguous, urlpath) {
            (false, None) => Storage::Memory,
            (true, None) => Storage::FrameInMemory,
            (true, Some(u)) => Storage::FrameFile(urlpath::path_of(u)),
            (false, Some(u)) => Storage::SparseDir(urlpath::path_of(u)),
        }
    }
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

    pub(super) fn from_opened(o: OpenedFrame, copy: bool) -> Result<SuperChunk> {
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
            // The copies may take no more than the frame backs: offsets
            // sharing one chunk would multiply it (docs/limits.md).
            let backed = usize::try_from(sc.frame_len()).unwrap_or(0);
            // The frame and its offsets index (8 bytes a chunk) are still
            // held meanwhile.
            let mut held = n
                .saturating_mul(std::mem::size_of::<Vec<u8>>() + 8)
                .saturating_add(backed);
            crate::alloc::check(held, backed)?;
            let mut chunks: Vec<Vec<u8>> = crate::alloc::vec_within(n, backed)?;
            let mut acc_nbytes = 0i64;
            let mut blocksize = 0;
            for i in 0..n {
                let c = sc.chunk(i as i64)?.into_owned();
                held = held.saturating_add(c.len());
                crate::alloc::check(held, backed)?;
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

    /// Open a contiguous frame on bytes the caller lends: they are read in
    /// place, and copied only when the super-chunk first changes.
    pub fn from_lent_frame(bytes: Box<dyn LentBytes>) -> Result<SuperChunk> {
        Self::from_opened(Frame::from_bytes(FrameBytes::Lent(bytes))?, false)
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

    /// Whether the super-chunk is a contiguous frame, in memory or in a
    /// file (not separate chunks, not a sparse frame).
    pub fn is_contiguous(&self) -> bool {
        self.frame().is_some_and(|f| f.sparse_dir().is_none())
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

    pub(super) fn header_bytes(&self, cbytes: u64) -> Result<Vec<u8>> {
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

    pub(super) fn trailer_bytes(&self) -> Result<Vec<u8>> {
        encode_trailer(&self.vlmetalayers)
    }

    /// Rewrite the frame (if any) after a change of counters or metadata.
    pub(super) fn commit(
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

    /// Close the super-chunk: write out what is pending, and give back the
    /// buffer of a contiguous frame held in memory (C clients may keep the
    /// one they were lent; see [`Self::frame_buffer`]).
    pub fn close(mut self) -> Option<Vec<u8>> {
        let _ = self.sync();
        self.into_memory_frame()
    }

    /// The super-chunk as one contiguous frame: the frame's own buffer when
    /// it is held in memory, a serialized copy otherwise.
    pub fn frame_buffer(&self) -> Result<Cow<'_, [u8]>> {
        match self.frame().and_then(|f| f.memory_bytes()) {
            Some(b) => Ok(Cow::Borrowed(b)),
            None => self.to_frame_bytes().map(Cow::Owned),
        }
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

    pub(super) fn special_chunk(&self, n: i64, kind: Special) -> Result<Vec<u8>> {
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

    pub(super) fn chunk_nbytes(&self, n: i64) -> Result<i32> {
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
        // A chunk holds at most the super-chunk's chunksize.
        if self.chunksize > 0 && nb > self.chunksize {
            return Err(Error::Data);
        }
        let mut out = crate::alloc::zeroed(nb as usize)?;
        self.decompress_chunk(n, &mut out)?;
        Ok(out)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    Append,
    Insert,
    Update,
}
