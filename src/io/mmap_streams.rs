//! The streams of the memory-mapped backend as its callbacks see them.
//!
//! A caller opens a stream by handing in a struct of its own (in C, a
//! `blosc2_stdio_mmap`) whose address names the stream from then on. Opening
//! maps the file once per stream: opening the same stream again is accepted
//! only for the path it was mapped from, and the same mapping is kept. A
//! stream that was never opened here is a mapping the caller made itself
//! ([`CallerMapping`]), worked on in place, as the reference does.

use super::mmap::{CallerMapping, MmapFile, MmapMode};
use super::IoFile;
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::ffi::OsStr;
use std::ops::Range;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

/// What opening a stream asks for.
#[derive(Debug, Clone, Copy)]
pub struct StreamRequest<'a> {
    /// The path to map.
    pub path: &'a OsStr,
    /// The path the caller's struct records (set by an earlier open).
    pub recorded_path: Option<&'a OsStr>,
    /// The mode letters the caller's struct holds ("r", "r+", "w+", "c").
    pub mode: Option<&'a str>,
    /// Bytes the writable modes map at least.
    pub initial_mapping_size: usize,
}

/// One stream: a mapping opened by [`MmapStreams::open`] with the view the
/// caller keeps of it, or the caller's own mapping.
#[derive(Debug)]
pub enum MmapStream<'a> {
    /// Mapped by [`MmapStreams::open`]; the view follows what changes it.
    Opened(&'a mut MmapFile, &'a mut CallerMapping),
    /// Mapped by the caller.
    Caller(&'a mut CallerMapping),
}

impl MmapStream<'_> {
    /// The logical size of the file.
    pub fn file_size(&self) -> usize {
        match self {
            MmapStream::Opened(f, _) => f.file_size(),
            MmapStream::Caller(c) => c.file_size,
        }
    }

    /// Write `data` at `pos`, growing the file and the mapping as needed.
    ///
    /// # Safety
    /// For a caller's mapping, as [`CallerMapping::write_at`].
    pub unsafe fn write_at(&mut self, pos: usize, data: &[u8]) -> Result<()> {
        match self {
            // SAFETY: guaranteed by the caller.
            MmapStream::Caller(c) => unsafe { c.write_at(pos, data) },
            MmapStream::Opened(f, view) => {
                let r = f.write_at(pos as u64, data);
                **view = CallerMapping::of_file(f);
                r
            }
        }
    }

    /// Where the bytes `range` start, when they lie below the logical size.
    pub fn ptr_at(&self, range: Range<usize>) -> Option<*mut u8> {
        match self {
            MmapStream::Caller(c) => c.ptr_at(range),
            MmapStream::Opened(f, _) => f.ptr_at(range).map(<*const u8>::cast_mut),
        }
    }

    /// Set the logical size to `size`.
    pub fn truncate(&mut self, size: usize) -> Result<()> {
        match self {
            MmapStream::Caller(c) => c.truncate(size),
            MmapStream::Opened(f, view) => {
                let r = IoFile::truncate(*f, size as u64);
                **view = CallerMapping::of_file(f);
                r
            }
        }
    }
}

/// The mappings opened for streams, keyed by the stream's address.
#[derive(Debug, Default)]
pub struct MmapStreams {
    opened: Mutex<HashMap<usize, MmapFile>>,
}

impl MmapStreams {
    /// An empty table.
    pub fn new() -> MmapStreams {
        MmapStreams::default()
    }

    fn table(&self) -> MutexGuard<'_, HashMap<usize, MmapFile>> {
        self.opened.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Open the stream `key` as `request` says. A stream opened before is
    /// kept as it is when the recorded path is the path asked for
    /// (`FileOpen` otherwise). A new stream needs a known mode and a file
    /// that maps; `publish` then gets the mapping (to record it where the
    /// caller sees it) and, when it succeeds, the stream is opened; when it
    /// fails, the mapping is closed again and its error returned.
    pub fn open(
        &self,
        key: usize,
        request: StreamRequest<'_>,
        publish: impl FnOnce(&MmapFile) -> Result<()>,
    ) -> Result<()> {
        let mut opened = self.table();
        if opened.contains_key(&key) {
            return match request.recorded_path {
                Some(p) if p == request.path => Ok(()),
                _ => Err(Error::FileOpen),
            };
        }
        let mode = request
            .mode
            .and_then(MmapMode::parse)
            .ok_or(Error::FileOpen)?;
        let f = MmapFile::open(Path::new(request.path), mode, request.initial_mapping_size)?;
        publish(&f)?;
        opened.insert(key, f);
        Ok(())
    }

    /// Run `f` on the stream `key`, holding the table's lock: on its mapping
    /// when it was opened here (a write or truncation then brings `view` up
    /// to date), on the caller's own mapping `view` otherwise.
    pub fn with<T>(
        &self,
        key: usize,
        view: &mut CallerMapping,
        f: impl FnOnce(MmapStream<'_>) -> T,
    ) -> T {
        let mut opened = self.table();
        match opened.get_mut(&key) {
            Some(file) => f(MmapStream::Opened(file, view)),
            None => f(MmapStream::Caller(view)),
        }
    }

    /// Forget the stream `key` and close its mapping: true when it was
    /// opened here and closed cleanly.
    pub fn close(&self, key: usize) -> bool {
        let removed = self.table().remove(&key);
        removed.is_some_and(|f| f.close().is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    #[test]
    fn a_stream_maps_once_and_reopens_only_for_its_path() {
        let dir = std::env::temp_dir().join(format!("b2streams-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path: OsString = dir.join("s.bin").into_os_string();
        let other: OsString = dir.join("t.bin").into_os_string();
        let streams = MmapStreams::new();
        let ask = |mode, recorded| StreamRequest {
            path: &path,
            recorded_path: recorded,
            mode,
            initial_mapping_size: 64,
        };
        assert_eq!(
            streams.open(1, ask(Some("x"), None), |_| Ok(())),
            Err(Error::FileOpen)
        );
        assert_eq!(
            streams.open(1, ask(None, None), |_| Ok(())),
            Err(Error::FileOpen)
        );
        let failed = streams.open(1, ask(Some("w+"), None), |_| Err(Error::MemoryAlloc));
        assert_eq!(failed, Err(Error::MemoryAlloc));
        let mut seen = 0;
        let published = |f: &MmapFile| {
            seen = f.mapping_size();
            Ok(())
        };
        assert_eq!(streams.open(1, ask(Some("w+"), None), published), Ok(()));
        assert_eq!(seen, 64);
        // Open again: the mode no longer matters, the recorded path does.
        let never = |_: &MmapFile| -> Result<()> { unreachable!() };
        assert_eq!(streams.open(1, ask(None, Some(&path)), never), Ok(()));
        assert_eq!(
            streams.open(1, ask(None, Some(&other)), never),
            Err(Error::FileOpen)
        );
        assert_eq!(
            streams.open(1, ask(None, None), never),
            Err(Error::FileOpen)
        );

        let mut view = CallerMapping {
            addr: std::ptr::null_mut(),
            file_size: 9,
            mapping_size: 0,
            fd: -1,
            is_memory_only: true,
        };
        // SAFETY: an opened stream is the engine's own mapping.
        let wrote = streams.with(1, &mut view, |mut s| unsafe { s.write_at(2, b"ab") });
        assert_eq!(wrote, Ok(()));
        assert_eq!((view.file_size, view.is_memory_only), (4, false));
        assert!(!view.addr.is_null());
        assert_eq!(streams.with(1, &mut view, |s| s.file_size()), 4);
        assert!(streams.with(1, &mut view, |s| s.ptr_at(0..4)).is_some());
        assert!(streams.with(1, &mut view, |s| s.ptr_at(0..5)).is_none());
        assert_eq!(streams.with(1, &mut view, |mut s| s.truncate(1)), Ok(()));
        assert_eq!(view.file_size, 1);
        assert!(streams.close(1));
        assert!(!streams.close(1));
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 1);

        // A stream never opened here is the caller's mapping.
        view.addr = std::ptr::null_mut();
        view.file_size = 9;
        assert_eq!(streams.with(2, &mut view, |s| s.file_size()), 9);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
