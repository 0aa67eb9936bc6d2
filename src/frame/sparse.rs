//! Sparse frames: a directory holding one file per chunk (`%08X.chunk`, named
//! after the chunk's number in the offsets index, not its position) and the
//! index frame `chunks.b2frame`, a frame of type sparse whose chunks section
//! is empty and whose offsets are those chunk numbers (or special values).

use super::{Backing, Frame, OpenedFrame};
use crate::alloc;
use crate::error::{Error, Result};
use crate::format::frame::TYPE_SPARSE;
use crate::format::header::{ChunkHeader, MIN_HEADER_LENGTH};
use crate::io::{Io, OpenMode};
use std::path::{Path, PathBuf};

/// Name of the index frame inside a sparse frame's directory.
pub const SPARSE_INDEX_NAME: &str = "chunks.b2frame";

/// Path of the index frame of the sparse frame in `dir`.
pub fn sparse_index_path(dir: &Path) -> PathBuf {
    dir.join(SPARSE_INDEX_NAME)
}

/// Path of chunk file `id` of the sparse frame in `dir`.
pub fn sparse_chunk_path(dir: &Path, id: i64) -> Result<PathBuf> {
    let id = u32::try_from(id).map_err(|_| Error::InvalidIndex)?;
    Ok(dir.join(format!("{id:08X}.chunk")))
}

impl Frame {
    /// A new, empty sparse frame in directory `dir` (created when missing).
    pub fn create_sparse(dir: &Path, io: Io, header: Vec<u8>, trailer: Vec<u8>) -> Result<Frame> {
        if !io.supports_sparse() {
            return Err(Error::PluginIo);
        }
        std::fs::create_dir_all(dir).map_err(|_| Error::FileOpen)?;
        let index = sparse_index_path(dir);
        let file = io.open(&index, OpenMode::Create)?;
        let mut f = Frame::empty(
            Backing::open_file(io, file, index, 0),
            Some(dir.to_path_buf()),
        );
        f.commit(
            super::DataEdit::Sparse { cbytes: 0 },
            Vec::new(),
            None,
            |_| Ok(header),
            trailer,
        )?;
        f.close_if_per_operation();
        Ok(f)
    }

    /// Open the sparse frame in directory `dir`.
    pub fn open_sparse(dir: &Path, io: Io) -> Result<OpenedFrame> {
        if !io.supports_sparse() {
            return Err(Error::PluginIo);
        }
        Self::open_file_typed(
            &sparse_index_path(dir),
            0,
            io,
            TYPE_SPARSE,
            Some(dir.to_path_buf()),
        )
    }

    fn sparse_parts(&self) -> Result<(&Io, &Path)> {
        match (&self.backing, &self.sparse_dir) {
            (Backing::File { io, .. }, Some(d)) => Ok((io, d)),
            _ => Err(Error::FrameType),
        }
    }

    /// The bytes of chunk file `id`, checked against the chunk's header.
    pub fn read_sparse_chunk(&self, id: i64) -> Result<Vec<u8>> {
        let (io, dir) = self.sparse_parts()?;
        let f = io.open(&sparse_chunk_path(dir, id)?, OpenMode::Read)?;
        let size = f.size()?;
        if size < MIN_HEADER_LENGTH as u64 || size > i32::MAX as u64 {
            return Err(Error::FileRead);
        }
        // The file's own size: what it holds backs it.
        let mut buf = alloc::zeroed(size as usize)?;
        f.read_at(0, &mut buf)?;
        let h = ChunkHeader::parse_min(&buf)?;
        if h.cbytes < 0 || h.cbytes as u64 > size {
            return Err(Error::InvalidHeader);
        }
        buf.truncate(h.cbytes as usize);
        Ok(buf)
    }

    /// Read `len` bytes at `pos` of chunk file `id`.
    pub fn read_sparse_chunk_range(&self, id: i64, pos: u64, len: usize) -> Result<Vec<u8>> {
        let (io, dir) = self.sparse_parts()?;
        let f = io.open(&sparse_chunk_path(dir, id)?, OpenMode::Read)?;
        let end = pos.checked_add(len as u64).ok_or(Error::FileRead)?;
        if end > f.size()? {
            return Err(Error::FileRead);
        }
        let mut buf = alloc::zeroed(len)?;
        f.read_at(pos, &mut buf)?;
        Ok(buf)
    }

    /// Size of chunk file `id`.
    pub fn sparse_chunk_size(&self, id: i64) -> Result<u64> {
        let (io, dir) = self.sparse_parts()?;
        io.open(&sparse_chunk_path(dir, id)?, OpenMode::Read)?
            .size()
    }

    /// Write `chunk` as a new chunk file under the next free number (see
    /// [`Self::next_sparse_id`]) and return that number; a file left half
    /// written by a failure is removed.
    pub fn add_sparse_chunk(&self, chunk: &[u8]) -> Result<i64> {
        let (io, dir) = self.sparse_parts()?;
        let id = self.next_sparse_id();
        let path = sparse_chunk_path(dir, id)?;
        let r = crate::io::write_whole(&**io, &path, chunk);
        if r.is_err() {
            let _ = std::fs::remove_file(&path);
        }
        r.map(|()| id)
    }

    fn staged_path(&self, id: i64) -> Result<PathBuf> {
        let (_, dir) = self.sparse_parts()?;
        let mut p = sparse_chunk_path(dir, id)?.into_os_string();
        p.push(".new");
        Ok(PathBuf::from(p))
    }

    /// Write the replacement of chunk file `id` beside it (the old file stays).
    pub fn stage_sparse_chunk(&self, id: i64, chunk: &[u8]) -> Result<()> {
        let (io, _) = self.sparse_parts()?;
        let staged = self.staged_path(id)?;
        let r = crate::io::write_whole(&**io, &staged, chunk);
        if r.is_err() {
            let _ = std::fs::remove_file(&staged);
        }
        r
    }

    /// Put the staged replacement of chunk file `id` in place (an atomic
    /// rename; a copy when the backend's files cannot be renamed).
    pub fn publish_staged_chunk(&self, id: i64) -> Result<()> {
        let (io, dir) = self.sparse_parts()?;
        let staged = self.staged_path(id)?;
        let target = sparse_chunk_path(dir, id)?;
        if std::fs::rename(&staged, &target).is_ok() {
            return Ok(());
        }
        let bytes = crate::io::read_whole(&**io, &staged)?;
        crate::io::write_whole(&**io, &target, &bytes)?;
        let _ = std::fs::remove_file(&staged);
        Ok(())
    }

    /// Drop the staged replacement of chunk file `id`.
    pub fn discard_staged_chunk(&self, id: i64) {
        if let Ok(p) = self.staged_path(id) {
            let _ = std::fs::remove_file(p);
        }
    }

    /// Remove chunk file `id`.
    pub fn remove_sparse_chunk(&self, id: i64) -> Result<()> {
        let (_, dir) = self.sparse_parts()?;
        std::fs::remove_file(sparse_chunk_path(dir, id)?).map_err(|_| Error::FileRemove)
    }

    /// The next free chunk number (one past the largest in use).
    pub fn next_sparse_id(&self) -> i64 {
        self.offsets.iter().copied().max().unwrap_or(-1).max(-1) + 1
    }
}
