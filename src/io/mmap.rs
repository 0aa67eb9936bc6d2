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
use std::ops::Range;
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

    /// The `mmap(2)` protection and flags a mapping in this mode is made
    /// with, as the reference reports them (`access_flags`, `map_flags`).
    pub fn protection_and_flags(self) -> (i32, i32) {
        match self {
            MmapMode::Read => (libc::PROT_READ, libc::MAP_SHARED),
            MmapMode::ReadWrite | MmapMode::Create => {
                (libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED)
            }
            MmapMode::CopyOnWrite => (libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE),
        }
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

    /// Where the mapped bytes `range` start, when they all lie below the
    /// logical size; the address stays valid until the mapping grows or the
    /// file is closed.
    pub fn ptr_at(&self, range: Range<usize>) -> Option<*const u8> {
        self.bytes().get(range).map(<[u8]>::as_ptr)
    }

    /// Flush and unmap, with the error that dropping cannot report.
    pub fn close(self) -> Result<()> {
        self.flush()
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

    /// The mode the file was mapped in.
    pub fn mode(&self) -> MmapMode {
        self.mode
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

/// A mapping made by someone else (a C caller that filled in its own
/// `blosc2_stdio_mmap`), worked on in place as the reference does: the bytes
/// at `addr` are the file's first `file_size` bytes, `mapping_size` of them
/// are mapped, and `fd` is the file (left alone when `is_memory_only`). It is
/// also what such a struct records of a mapping opened here
/// ([`CallerMapping::of_file`]).
#[derive(Debug)]
pub struct CallerMapping {
    /// Start of the mapping, or NULL.
    pub addr: *mut u8,
    /// Logical size of the file.
    pub file_size: usize,
    /// Bytes mapped at `addr`.
    pub mapping_size: usize,
    /// The mapped file's descriptor.
    pub fd: i32,
    /// Whether writes stay in memory (the file is never resized).
    pub is_memory_only: bool,
}

impl CallerMapping {
    /// No mapping: what a caller's struct records before anything is
    /// mapped (no address, no file, nothing mapped).
    pub fn unmapped() -> CallerMapping {
        CallerMapping {
            addr: std::ptr::null_mut(),
            file_size: 0,
            mapping_size: 0,
            fd: -1,
            is_memory_only: false,
        }
    }

    /// What a caller's struct records of the mapping `f` (opened here).
    pub fn of_file(f: &MmapFile) -> CallerMapping {
        CallerMapping {
            addr: f.addr().cast_mut(),
            file_size: f.file_size(),
            mapping_size: f.mapping_size(),
            fd: f.fd(),
            is_memory_only: f.is_memory_only(),
        }
    }

    /// Write `data` at `pos`: a write past `file_size` extends it (and the
    /// file, unless the mapping is memory-only); a write past `mapping_size`
    /// grows the mapping to twice the new file size first. The bytes are
    /// copied only once they lie inside the mapping. `FileWrite` when the
    /// file or the mapping cannot grow (what was changed until then stays).
    ///
    /// # Safety
    /// `addr` must be NULL or the start of a live mapping of `mapping_size`
    /// writable bytes that nothing else uses meanwhile.
    pub unsafe fn write_at(&mut self, pos: usize, data: &[u8]) -> Result<()> {
        let end = pos.checked_add(data.len()).ok_or(Error::FileWrite)?;
        if end > self.file_size {
            self.file_size = end;
            if !self.is_memory_only {
                self.resize_file(end).map_err(|_| Error::FileWrite)?;
            }
        }
        if self.mapping_size < self.file_size {
            self.grow()?;
        }
        if self.addr.is_null() {
            return Err(Error::FileWrite);
        }
        // SAFETY: pos + data.len() <= file_size <= mapping_size, the length
        // of the caller's mapping at addr.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.addr.add(pos), data.len()) };
        Ok(())
    }

    /// Set the logical size to `size`, and the file's unless the mapping is
    /// memory-only (the mapping itself is left as it is).
    pub fn truncate(&mut self, size: usize) -> Result<()> {
        if size == self.file_size {
            return Ok(());
        }
        self.file_size = size;
        if self.is_memory_only {
            return Ok(());
        }
        self.resize_file(size)
    }

    /// Where the bytes `range` start, when they lie below the logical size.
    pub fn ptr_at(&self, range: Range<usize>) -> Option<*mut u8> {
        (range.end <= self.file_size && range.start <= range.end && !self.addr.is_null())
            .then(|| self.addr.wrapping_add(range.start))
    }

    fn resize_file(&self, size: usize) -> Result<()> {
        let len = libc::off_t::try_from(size).map_err(|_| Error::FileTruncate)?;
        // SAFETY: ftruncate on the caller's descriptor; a bad one fails.
        if unsafe { libc::ftruncate(self.fd, len) } < 0 {
            return Err(Error::FileTruncate);
        }
        Ok(())
    }

    /// Make the mapping twice `file_size` long (or `file_size` when doubling
    /// overflows), moving it if need be: Linux only (`mremap`), which keeps
    /// the bytes already there, as the reference does.
    #[cfg(target_os = "linux")]
    fn grow(&mut self) -> Result<()> {
        if self.addr.is_null() {
            return Err(Error::FileWrite);
        }
        let new_len = self.file_size.checked_mul(2).unwrap_or(self.file_size);
        // SAFETY: addr and mapping_size describe the caller's mapping (as the
        // reference assumes); mremap checks them and fails on anything else.
        let p = unsafe {
            libc::mremap(
                self.addr as *mut libc::c_void,
                self.mapping_size,
                new_len,
                libc::MREMAP_MAYMOVE,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(Error::FileWrite);
        }
        self.addr = p as *mut u8;
        self.mapping_size = new_len;
        Ok(())
    }

    #[cfg(not(target_os = "linux"))]
    fn grow(&mut self) -> Result<()> {
        Err(Error::FileWrite)
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
        assert_eq!(ro.ptr_at(1..10), Some(ro.bytes()[1..].as_ptr()));
        assert_eq!(ro.ptr_at(1..11), None);
        assert_eq!(ro.close(), Ok(()));
        let _ = std::fs::remove_file(&p);
    }

    #[test]
    fn nothing_mapped_reads_nothing_and_writes_nowhere() {
        let mut m = CallerMapping::unmapped();
        assert!(m.addr.is_null() && m.fd == -1 && !m.is_memory_only);
        assert_eq!((m.file_size, m.mapping_size), (0, 0));
        assert_eq!(m.ptr_at(0..0), None);
        m.is_memory_only = true;
        // SAFETY: addr is NULL, so nothing is written through it.
        assert_eq!(unsafe { m.write_at(0, b"") }, Err(Error::FileWrite));
    }

    #[test]
    fn a_callers_mapping_grows_with_its_file() {
        let p = tmp("caller.bin");
        let file = std::fs::File::create(&p).unwrap();
        use std::os::unix::io::AsRawFd;
        let mut anon = MmapMut::map_anon(8).unwrap();
        let mut m = CallerMapping {
            addr: anon.as_mut_ptr(),
            file_size: 0,
            mapping_size: 8,
            fd: file.as_raw_fd(),
            is_memory_only: false,
        };
        // SAFETY: addr and mapping_size describe `anon`, used only through m.
        unsafe { m.write_at(0, b"abcd").unwrap() };
        assert_eq!((m.file_size, m.mapping_size), (4, 8));
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 4);
        assert!(m.ptr_at(0..4).is_some() && m.ptr_at(2..5).is_none());
        // SAFETY: as above; growing moves the mapping, whose new address m keeps.
        unsafe { m.write_at(6, b"efgh").unwrap() };
        assert_eq!((m.file_size, m.mapping_size), (10, 20));
        // SAFETY: ptr_at checked the 10 bytes lie in the mapping.
        let got = unsafe { std::slice::from_raw_parts(m.ptr_at(0..10).unwrap(), 10) };
        assert_eq!(&got[..4], b"abcd");
        assert_eq!(&got[6..], b"efgh");
        m.truncate(3).unwrap();
        assert_eq!((m.file_size, std::fs::metadata(&p).unwrap().len()), (3, 3));
        m.is_memory_only = true;
        m.truncate(50).unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 3);
        // SAFETY: the mapping moved by mremap is unmapped once, here; `anon`
        // no longer owns any mapping after the move and is forgotten.
        unsafe { libc::munmap(m.addr as *mut libc::c_void, m.mapping_size) };
        std::mem::forget(anon);
        let _ = std::fs::remove_file(&p);
    }
}
