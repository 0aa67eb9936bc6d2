//! I/O backends: where the bytes of an on-disk frame are read and written.
//!
//! A backend ([`IoBackend`]) opens files by path; an open file ([`IoFile`])
//! offers positioned reads and writes, its size and truncation. Built in:
//! [`FileSystem`] (positioned reads/writes on a plain file) and
//! [`mmap::MmapFile`] (a memory-mapped file, modes r, r+, w+ and c). User
//! backends registered from C come through the same traits (see `ffi::io`).

pub mod mmap;
pub mod mmap_streams;
pub mod registry;

use crate::error::{Error, Result};
use std::fmt::Debug;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

/// How a file is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    /// Read only ("rb").
    Read,
    /// Read and write an existing file ("rb+").
    ReadWrite,
    /// Create or truncate, then read and write ("wb+").
    Create,
}

impl OpenMode {
    /// The C `fopen` mode string the reference passes for this mode.
    pub fn c_mode(self) -> &'static str {
        match self {
            OpenMode::Read => "rb",
            OpenMode::ReadWrite => "rb+",
            OpenMode::Create => "wb",
        }
    }
}

/// An open file of a backend.
pub trait IoFile: Debug + Send {
    /// Fill `buf` from position `pos` (all of it, or an error).
    fn read_at(&self, pos: u64, buf: &mut [u8]) -> Result<()>;
    /// Write all of `data` at position `pos`.
    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()>;
    /// Current size in bytes.
    fn size(&self) -> Result<u64>;
    /// Set the size to `size` bytes.
    fn truncate(&mut self, size: u64) -> Result<()>;
    /// Push written data to stable storage.
    fn sync(&mut self) -> Result<()> {
        Ok(())
    }
    /// Whether `path` still names this open file: false once another
    /// program replaced it (renamed a new file over it, or removed and
    /// recreated it), as python-blosc2's stores do to swap in a new value.
    fn still_at(&self, _path: &Path) -> bool {
        true
    }
}

/// A way to open files.
pub trait IoBackend: Debug + Send + Sync {
    /// Open `path` in `mode`.
    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn IoFile>>;
    /// Whether this backend can hold a sparse frame (many files).
    fn supports_sparse(&self) -> bool {
        true
    }
    /// Whether a frame may keep its file open between operations. Backends
    /// answering false see each operation open the file, read or write it,
    /// and close it (as c-blosc2 does with user backends).
    fn keeps_files_open(&self) -> bool {
        true
    }
}

/// A shared handle on a backend.
pub type Io = Arc<dyn IoBackend>;

/// The plain file backend (positioned reads and writes).
#[derive(Debug, Default, Clone, Copy)]
pub struct FileSystem;

/// The plain file backend as a shared handle.
pub fn filesystem() -> Io {
    Arc::new(FileSystem)
}

/// A file of the [`FileSystem`] backend.
#[derive(Debug)]
pub struct PlainFile {
    file: File,
    /// Device and inode of the file, to tell whether its path still names it.
    id: Option<(u64, u64)>,
}

/// Device and inode of a file's metadata.
fn file_id(m: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino())
}

impl PlainFile {
    /// Wrap an open file.
    pub fn new(file: File) -> PlainFile {
        let id = file.metadata().ok().map(|m| file_id(&m));
        PlainFile { file, id }
    }
}

impl IoFile for PlainFile {
    fn read_at(&self, pos: u64, buf: &mut [u8]) -> Result<()> {
        self.file
            .read_exact_at(buf, pos)
            .map_err(|_| Error::FileRead)
    }
    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        self.file
            .write_all_at(data, pos)
            .map_err(|_| Error::FileWrite)
    }
    fn size(&self) -> Result<u64> {
        Ok(self.file.metadata().map_err(|_| Error::FileRead)?.len())
    }
    fn truncate(&mut self, size: u64) -> Result<()> {
        self.file.set_len(size).map_err(|_| Error::FileTruncate)
    }
    fn sync(&mut self) -> Result<()> {
        self.file.sync_data().map_err(|_| Error::FileWrite)
    }
    fn still_at(&self, path: &Path) -> bool {
        match (self.id, std::fs::metadata(path)) {
            (Some(id), Ok(m)) => file_id(&m) == id,
            _ => false,
        }
    }
}

impl IoBackend for FileSystem {
    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn IoFile>> {
        let mut o = OpenOptions::new();
        match mode {
            OpenMode::Read => o.read(true),
            OpenMode::ReadWrite => o.read(true).write(true),
            OpenMode::Create => o.read(true).write(true).create(true).truncate(true),
        };
        let file = o.open(path).map_err(|_| Error::FileOpen)?;
        let m = file.metadata().map_err(|_| Error::FileOpen)?;
        if !m.is_file() {
            return Err(Error::FileOpen);
        }
        let id = Some(file_id(&m));
        Ok(Box::new(PlainFile { file, id }))
    }
}

/// Read into `buf` from `pos` as far as the file goes: the bytes read,
/// fewer than asked at the end of the file or on an error (an interrupted
/// read is tried again).
pub fn read_at_most(file: &File, buf: &mut [u8], pos: u64) -> usize {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], pos + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    done
}

/// Write `data` at `pos`: the bytes written, fewer than given on an error
/// (an interrupted write is tried again).
pub fn write_at_most(file: &File, data: &[u8], pos: u64) -> usize {
    let mut done = 0;
    while done < data.len() {
        match file.write_at(&data[done..], pos + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    done
}

/// Read a whole file through a backend.
pub fn read_whole(io: &dyn IoBackend, path: &Path) -> Result<Vec<u8>> {
    let f = io.open(path, OpenMode::Read)?;
    let n = f.size()?;
    let n = usize::try_from(n).map_err(|_| Error::MemoryAlloc)?;
    // The file's own size: what it holds backs it.
    let mut buf = crate::alloc::zeroed(n)?;
    f.read_at(0, &mut buf)?;
    Ok(buf)
}

/// Write a whole new file through a backend (replacing any old content).
pub fn write_whole(io: &dyn IoBackend, path: &Path, data: &[u8]) -> Result<()> {
    let mut f = io.open(path, OpenMode::Create)?;
    f.write_at(0, data)?;
    f.truncate(data.len() as u64)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_file_positioned_io() {
        let dir = std::env::temp_dir().join(format!("b2io-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let p = dir.join("plain.bin");
        let io = filesystem();
        let mut f = io.open(&p, OpenMode::Create).unwrap();
        f.write_at(4, b"abcd").unwrap();
        assert_eq!(f.size().unwrap(), 8);
        let mut b = [0u8; 4];
        f.read_at(4, &mut b).unwrap();
        assert_eq!(&b, b"abcd");
        assert!(f.read_at(6, &mut b).is_err());
        f.truncate(2).unwrap();
        assert_eq!(f.size().unwrap(), 2);
        drop(f);
        assert!(io.open(&dir, OpenMode::Read).is_err());
        assert_eq!(read_whole(&*io, &p).unwrap(), vec![0, 0]);
        let f = OpenOptions::new().read(true).write(true).open(&p).unwrap();
        assert_eq!(write_at_most(&f, b"xyz", 4), 3);
        let mut b = [9u8; 10];
        // The file ends after 7 bytes: the rest of the buffer is left alone.
        assert_eq!(read_at_most(&f, &mut b, 0), 7);
        assert_eq!(&b, b"\0\0\0\0xyz\x09\x09\x09");
        assert_eq!(read_at_most(&f, &mut b, 100), 0);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
