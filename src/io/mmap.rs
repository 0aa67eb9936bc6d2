//! The memory-mapped file backend (`BLOSC2_IO_FILESYSTEM_MMAP`).
//!
//! Modes, as in the reference (and numpy.memmap):
//! - `r`: read only;
//! - `r+`: read and write an existing file;
//! - `w+`: create (or truncate) the file, read and write;
//! - `c`: copy on write: reads come from the file, writes stay in memory.
//!
//! The writable shared modes map `initial_mapping_size` bytes (or the file
//! size when larger) and grow the file, then the mapping, as writes go past
//! the end. Only bytes below the logical file size are ever touched, so no
//! access can fall on a page past the end of the file.
//!
//! This is the only file of the engine with `unsafe` code: creating a mapping
//! is unsafe because another process could truncate the file under it.

use super::{IoBackend, IoFile, OpenMode};
use crate::error::{Error, Result};
use memmap2::{Mmap, MmapMut, MmapOptions};
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

/// Mapping mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MmapMode {
    /// `r`.
    Read,
    /// `r+`.
    ReadWrite,
    /// `w+`.
    Create,
    /// `c`.
    CopyOnWrite,
}

impl MmapMode {
    /// Parse "r", "r+", "w+" or "c".
    pub fn parse(s: &str) -> Option<MmapMode> {
        Some(match s {
            "r" => MmapMode::Read,
            "r+" => MmapMode::ReadWrite,
            "w+" => MmapMode::Create,
            "c" => MmapMode::CopyOnWrite,
            _ => return None,
        })
    }

    /// The mode's letters, as [`MmapMode::parse`] takes them.
    pub fn name(self) -> &'static str {
        match self {
            MmapMode::Read => "r",
            MmapMode::ReadWrite => "r+",
            MmapMode::Create => "w+",
            MmapMode::CopyOnWrite => "c",
        }
    }
}

#[derive(Debug)]
enum Map {
    None,
    Ro(Mmap),
    Rw(MmapMut),
}

/// A memory-mapped file.
#[derive(Debug)]
pub struct MmapFile {
    file: File,
    path: PathBuf,
    mode: MmapMode,
    map: Map,
    file_size: usize,
    mapping_size: usize,
}

/// The default initial mapping size of the writable modes (1 GiB).
pub const DEFAULT_INITIAL_MAPPING_SIZE: usize = 1 << 30;

impl MmapFile {
    /// Open `path` in `mode`, mapping at least `initial_mapping_size` bytes in
    /// the writable modes.
    pub fn open(path: &Path, mode: MmapMode, initial_mapping_size: usize) -> Result<MmapFile> {
        let mut o = OpenOptions::new();
        match mode {
            MmapMode::Read | MmapMode::CopyOnWrite => o.read(true),
            MmapMode::ReadWrite => o.read(true).write(true),
            MmapMode::Create => o.read(true).write(true).create(true).truncate(true),
        };
        let file = o.open(path).map_err(|_| Error::FileOpen)?;
        let meta = file.metadata().map_err(|_| Error::FileOpen)?;
        if !meta.is_file() {
            return Err(Error::FileOpen);
        }
        let file_size = usize::try_from(meta.len()).map_err(|_| Error::FileOpen)?;
        let mut f = MmapFile {
            file,
            path: path.to_path_buf(),
            mode,
            map: Map::None,
            file_size,
            mapping_size: 0,
        };
        let want = match mode {
            MmapMode::Read | MmapMode::CopyOnWrite => file_size,
            MmapMode::ReadWrite | MmapMode::Create => initial_mapping_size.max(file_size),
        };
        f.remap(want.max(1))?;
        // The reference's line, with the size it maps in this mode (its
        // copy-on-write mode maps the initial size too; ours maps the file
        // and grows in anonymous memory, see `remap`).
        let reported = match mode {
            MmapMode::Read => file_size,
            _ => initial_mapping_size.max(file_size),
        };
        crate::info::info!(
            "Opened memory-mapped file {} in mode {} with an mapping size of {} bytes.",
            path.display(),
            mode.name(),
            reported.max(1)
        );
        Ok(f)
    }

    /// Map `size` bytes (keeping the content of a copy-on-write mapping).
    fn remap(&mut self, size: usize) -> Result<()> {
        self.map = match self.mode {
            MmapMode::Read => {
                if self.file_size == 0 {
                    Map::None
                } else {
                    // SAFETY: a read-only shared mapping of the file's current
                    // length; we only read below `file_size`. Another process
                    // truncating the file could fault, as with the reference.
                    let m = unsafe { MmapOptions::new().len(self.file_size).map(&self.file) }
                        .map_err(|_| Error::FileOpen)?;
                    Map::Ro(m)
                }
            }
            MmapMode::ReadWrite | MmapMode::Create => {
                // SAFETY: a shared writable mapping of `size` bytes; we only
                // touch bytes below `file_size`, which the file always covers
                // (it is extended before the mapping is written past its end).
                let m = unsafe { MmapOptions::new().len(size).map_mut(&self.file) }
                    .map_err(|_| Error::FileOpen)?;
                Map::Rw(m)
            }
            MmapMode::CopyOnWrite => {
                let old = std::mem::replace(&mut self.map, Map::None);
                let mut m =
                    if matches!(old, Map::None) && self.file_size > 0 && size <= self.file_size {
                        // SAFETY: a private copy-on-write mapping of the file's
                        // current length; writes never reach the file.
                        unsafe { MmapOptions::new().len(self.file_size).map_copy(&self.file) }
                            .map_err(|_| Error::FileOpen)?
                    } else {
                        MmapMut::map_anon(size).map_err(|_| Error::MemoryAlloc)?
                    };
                match &old {
                    Map::Rw(o) => {
                        let n = self.file_size.min(o.len()).min(m.len());
                        m[..n].copy_from_slice(&o[..n]);
                    }
                    Map::Ro(o) => {
                        let n = self.file_size.min(o.len()).min(m.len());
                        m[..n].copy_from_slice(&o[..n]);
                    }
                    Map::None => {}
                }
                Map::Rw(m)
            }
        };
        self.mapping_size = size;
        Ok(())
    }

    /// The mapped bytes below the logical size.
    pub fn bytes(&self) -> &[u8] {
        match &self.map {
            Map::None => &[],
            Map::Ro(m) => &m[..self.file_size.min(m.len())],
            Map::Rw(m) => &m[..self.file_size.min(m.len())],
        }
    }

    /// Start address of the mapping (for the C struct), or NULL.
    pub fn addr(&self) -> *const u8 {
        match &self.map {
            Map::None => std::ptr::null(),
            Map::Ro(m) => m.as_ptr(),
            Map::Rw(m) => m.as_ptr(),
        }
    }

    /// Logical file size.
    pub fn file_size(&self) -> usize {
        self.file_size
    }

    /// Current mapping size.
    pub fn mapping_size(&self) -> usize {
        self.mapping_size
    }

    /// Whether writes stay in memory (mode `c`).
    pub fn is_memory_only(&self) -> bool {
        self.mode == MmapMode::CopyOnWrite
    }

    /// The mapped file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file descriptor.
    pub fn fd(&self) -> i32 {
        use std::os::unix::io::AsRawFd;
        self.file.as_raw_fd()
    }

    /// Flush modified pages of a shared writable mapping to the file.
    pub fn flush(&self) -> Result<()> {
        if let (Map::Rw(m), MmapMode::ReadWrite | MmapMode::Create) = (&self.map, self.mode) {
            m.flush_range(0, self.file_size.min(m.len()))
                .map_err(|_| Error::FileWrite)?;
        }
        Ok(())
    }
}

impl IoFile for MmapFile {
    fn read_at(&self, pos: u64, buf: &mut [u8]) -> Result<()> {
        let b = self.bytes();
        let start = usize::try_from(pos).map_err(|_| Error::FileRead)?;
        let end = start.checked_add(buf.len()).ok_or(Error::FileRead)?;
        if end > b.len() {
            return Err(Error::FileRead);
        }
        buf.copy_from_slice(&b[start..end]);
        Ok(())
    }

    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        if self.mode == MmapMode::Read {
            return Err(Error::FileWrite);
        }
        if data.is_empty() {
            return Ok(());
        }
        let start = usize::try_from(pos).map_err(|_| Error::FileWrite)?;
        let end = start.checked_add(data.len()).ok_or(Error::FileWrite)?;
        if end > self.mapping_size {
            let mut size = self.mapping_size.max(1);
            while size < end {
                size = size.checked_mul(2).ok_or(Error::FileWrite)?;
            }
            if let Map::Rw(m) = &self.map {
                if self.mode != MmapMode::CopyOnWrite {
                    m.flush().map_err(|_| Error::FileWrite)?;
                }
            }
            self.remap(size)?;
        }
        if end > self.file_size {
            if self.mode != MmapMode::CopyOnWrite {
                self.file
                    .set_len(end as u64)
                    .map_err(|_| Error::FileWrite)?;
            }
            self.file_size = end;
        }
        match &mut self.map {
            Map::Rw(m) => {
                m[start..end].copy_from_slice(data);
                Ok(())
            }
            _ => Err(Error::FileWrite),
        }
    }

    fn size(&self) -> Result<u64> {
        Ok(self.file_size as u64)
    }

    fn truncate(&mut self, size: u64) -> Result<()> {
        let size = usize::try_from(size).map_err(|_| Error::FileTruncate)?;
        if size == self.file_size {
            return Ok(());
        }
        match self.mode {
            MmapMode::Read => return Err(Error::FileTruncate),
            MmapMode::CopyOnWrite => {
                if size > self.mapping_size {
                    self.remap(size)?;
                }
                if size > self.file_size {
                    if let Map::Rw(m) = &mut self.map {
                        m[self.file_size..size].fill(0);
                    }
                }
            }
            MmapMode::ReadWrite | MmapMode::Create => {
                self.file
                    .set_len(size as u64)
                    .map_err(|_| Error::FileTruncate)?;
                if size > self.mapping_size {
                    self.remap(size)?;
                }
            }
        }
        self.file_size = size;
        Ok(())
    }

    fn sync(&mut self) -> Result<()> {
        self.flush()
    }
}

impl Drop for MmapFile {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// A backend opening every file memory-mapped in one mode.
#[derive(Debug, Clone, Copy)]
pub struct MmapBackend {
    /// Mapping mode.
    pub mode: MmapMode,
    /// Initial mapping size of the writable modes.
    pub initial_mapping_size: usize,
}

impl IoBackend for MmapBackend {
    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn IoFile>> {
        // A new frame needs a writable mapping whatever the mode asks.
        let m = match (self.mode, mode) {
            (MmapMode::Read, OpenMode::Create) => return Err(Error::FileOpen),
            (MmapMode::Create, OpenMode::Read | OpenMode::ReadWrite) => MmapMode::ReadWrite,
            (m, _) => m,
        };
        Ok(Box::new(MmapFile::open(
            path,
            m,
            self.initial_mapping_size,
        )?))
    }
    fn supports_sparse(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("b2mmap-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&d);
        d.join(name)
    }

    #[test]
    fn modes() {
        let p = tmp("m.bin");
        let mut f = MmapFile::open(&p, MmapMode::Create, 16).unwrap();
        f.write_at(0, b"hello").unwrap();
        f.write_at(30, b"world").unwrap(); // grows past the initial mapping
        assert_eq!(f.size().unwrap(), 35);
        drop(f);
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 35);
        let r = MmapFile::open(&p, MmapMode::Read, 0).unwrap();
        let mut b = [0u8; 5];
        r.read_at(30, &mut b).unwrap();
        assert_eq!(&b, b"world");
        assert!(r.read_at(31, &mut b).is_err());
        drop(r);
        let mut c = MmapFile::open(&p, MmapMode::CopyOnWrite, 0).unwrap();
        c.write_at(0, b"HELLO").unwrap();
        c.write_at(100, b"!").unwrap();
        c.read_at(0, &mut b).unwrap();
        assert_eq!(&b, b"HELLO");
        assert_eq!(c.size().unwrap(), 101);
        drop(c);
        assert_eq!(&std::fs::read(&p).unwrap()[..5], b"hello");
        let mut rw = MmapFile::open(&p, MmapMode::ReadWrite, 0).unwrap();
        rw.write_at(0, b"J").unwrap();
        rw.truncate(10).unwrap();
        drop(rw);
        assert_eq!(std::fs::read(&p).unwrap(), b"Jello\0\0\0\0\0");
        let mut ro = MmapFile::open(&p, MmapMode::Read, 0).unwrap();
        assert!(ro.write_at(0, b"x").is_err());
        let _ = std::fs::remove_file(&p);
    }
}
