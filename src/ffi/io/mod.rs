//! I/O backends seen from C: the registry behind `blosc2_register_io_cb` /
//! `blosc2_get_io_cb` (ids 0 and 1 built in, users from 160), the exported
//! `blosc2_stdio_*` (plain files, positioned reads/writes on the descriptor of
//! a `FILE *`) and `blosc2_stdio_mmap_*` (the engine's memory-mapped files,
//! state mirrored in the caller's `blosc2_stdio_mmap`; a struct the caller
//! filled in itself is worked on directly, as the reference does), and the
//! adapter that lets the engine use any registered backend through its
//! callbacks.
#![allow(clippy::missing_safety_doc)]
#![allow(non_camel_case_types)]

use super::ptr::{bytes, bytes_mut, c_str, malloc_bytes, malloc_nonempty};
use super::types::{blosc2_io, blosc2_stdio_mmap};
use super::{code, guard};
use crate::error::{Error, Result};
use crate::io::mmap::{CallerMapping, MmapFile};
use crate::io::mmap_streams::{MmapStream, MmapStreams, StreamRequest};
use crate::io::registry::Registry;
use crate::io::{IoBackend, IoFile, OpenMode};
use once_cell::sync::Lazy;
use std::ffi::{CStr, CString, OsStr};
use std::os::raw::{c_char, c_int, c_void};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// `blosc2_open_cb`.
pub type blosc2_open_cb =
    Option<unsafe extern "C" fn(*const c_char, *const c_char, *mut c_void) -> *mut c_void>;
/// `blosc2_close_cb`.
pub type blosc2_close_cb = Option<unsafe extern "C" fn(*mut c_void) -> c_int>;
/// `blosc2_size_cb`.
pub type blosc2_size_cb = Option<unsafe extern "C" fn(*mut c_void) -> i64>;
/// `blosc2_write_cb`.
pub type blosc2_write_cb =
    Option<unsafe extern "C" fn(*const c_void, i64, i64, i64, *mut c_void) -> i64>;
/// `blosc2_read_cb`.
pub type blosc2_read_cb =
    Option<unsafe extern "C" fn(*mut *mut c_void, i64, i64, i64, *mut c_void) -> i64>;
/// `blosc2_truncate_cb`.
pub type blosc2_truncate_cb = Option<unsafe extern "C" fn(*mut c_void, i64) -> c_int>;
/// `blosc2_destroy_cb`.
pub type blosc2_destroy_cb = Option<unsafe extern "C" fn(*mut c_void) -> c_int>;

/// `blosc2_io_cb`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct blosc2_io_cb {
    pub id: u8,
    pub name: *mut c_char,
    pub is_allocation_necessary: bool,
    pub open: blosc2_open_cb,
    pub close: blosc2_close_cb,
    pub size: blosc2_size_cb,
    pub write: blosc2_write_cb,
    pub read: blosc2_read_cb,
    pub truncate: blosc2_truncate_cb,
    pub destroy: blosc2_destroy_cb,
}

/// `BLOSC2_IO_FILESYSTEM`.
pub const IO_FILESYSTEM: u8 = 0;
/// `BLOSC2_IO_FILESYSTEM_MMAP`.
pub const IO_FILESYSTEM_MMAP: u8 = 1;
/// `BLOSC2_IO_REGISTERED`: first id users may register.
pub const IO_REGISTERED: u8 = crate::io::registry::FIRST_USER_ID;

struct Entry(blosc2_io_cb);
// SAFETY: the entries are plain data (function pointers and a name pointer
// that the registering code keeps alive, as with the reference); they are
// only read after registration and the registry is behind a Mutex.
unsafe impl Send for Entry {}

fn builtin(id: u8) -> blosc2_io_cb {
    if id == IO_FILESYSTEM {
        blosc2_io_cb {
            id,
            name: c"filesystem".as_ptr() as *mut c_char,
            is_allocation_necessary: true,
            open: Some(blosc2_stdio_open),
            close: Some(blosc2_stdio_close),
            size: Some(blosc2_stdio_size),
            write: Some(blosc2_stdio_write),
            read: Some(blosc2_stdio_read),
            truncate: Some(blosc2_stdio_truncate),
            destroy: Some(blosc2_stdio_destroy),
        }
    } else {
        blosc2_io_cb {
            id,
            name: c"filesystem_mmap".as_ptr() as *mut c_char,
            is_allocation_necessary: false,
            open: Some(blosc2_stdio_mmap_open),
            close: Some(blosc2_stdio_mmap_close),
            size: Some(blosc2_stdio_mmap_size),
            write: Some(blosc2_stdio_mmap_write),
            read: Some(blosc2_stdio_mmap_read),
            truncate: Some(blosc2_stdio_mmap_truncate),
            destroy: Some(blosc2_stdio_mmap_destroy),
        }
    }
}

static REGISTRY: Lazy<Mutex<Registry<Entry>>> = Lazy::new(|| {
    Mutex::new(Registry::with_builtins(
        [IO_FILESYSTEM, IO_FILESYSTEM_MMAP].map(|id| (id, Entry(builtin(id)))),
    ))
});

/// Whether two registrations under one id name the same backend.
fn same_name(a: &Entry, b: &Entry) -> bool {
    let (a, b) = (a.0.name, b.0.name);
    if a.is_null() || b.is_null() {
        return a.is_null() && b.is_null();
    }
    // SAFETY: registered names are NUL-terminated C strings.
    unsafe { CStr::from_ptr(a) == CStr::from_ptr(b) }
}

/// A copy of the callbacks registered under `id`.
pub(crate) fn lookup(id: u8) -> Option<blosc2_io_cb> {
    let reg = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    reg.get(id).map(|e| e.0)
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_register_io_cb(io: *const blosc2_io_cb) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: NULL or a valid blosc2_io_cb, as documented.
        let Some(io) = (unsafe { io.as_ref() }) else {
            return Error::InvalidParam.code();
        };
        let mut reg = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
        code(reg.register(io.id, Entry(*io), same_name).map(|()| 0))
    })
}

#[no_mangle]
pub extern "C" fn blosc2_get_io_cb(id: u8) -> *mut blosc2_io_cb {
    guard(std::ptr::null_mut(), || {
        let mut reg = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
        // The entries never move nor go away, so the pointer stays valid.
        reg.get_mut(id)
            .map_or(std::ptr::null_mut(), |e| &mut e.0 as *mut blosc2_io_cb)
    })
}

// ---------------------------------------------------------------- engine adapter

/// A registered backend used by the engine through its C callbacks.
#[derive(Debug)]
pub(crate) struct CallbackIo {
    cb: blosc2_io_cb,
    params: *mut c_void,
}

// SAFETY: the callbacks and their params are supplied by C code that asks the
// library to use them from the calling threads; like the reference we call
// them from whatever thread uses the super-chunk.
unsafe impl Send for CallbackIo {}
// SAFETY: as above; the adapter itself holds no mutable state.
unsafe impl Sync for CallbackIo {}

#[derive(Debug)]
struct CallbackFile {
    cb: blosc2_io_cb,
    stream: *mut c_void,
}

// SAFETY: see CallbackIo.
unsafe impl Send for CallbackFile {}

impl CallbackIo {
    /// The engine backend for a C `blosc2_io` (None for an unknown id).
    pub(crate) fn for_io(io: &blosc2_io) -> Option<CallbackIo> {
        lookup(io.id).map(|cb| CallbackIo {
            cb,
            params: io.params,
        })
    }
}

/// The engine backend selected by a C `blosc2_io`: the native plain file
/// backend for id 0, the registered callbacks otherwise.
pub(crate) fn engine_io(io: &blosc2_io) -> Result<crate::io::Io> {
    if io.id == IO_FILESYSTEM {
        return Ok(crate::io::filesystem());
    }
    Ok(Arc::new(CallbackIo::for_io(io).ok_or(Error::PluginIo)?))
}

/// Run `open` on the engine backend `io` selects; when that fails (an
/// unknown backend included), the backend's destroy callback runs, as the
/// reference's does when an open fails.
pub(crate) fn open_through<T>(
    io: &blosc2_io,
    open: impl FnOnce(crate::io::Io) -> Result<T>,
) -> Result<T> {
    let opened = engine_io(io).and_then(open);
    if opened.is_err() {
        destroy_io(io);
    }
    opened
}

/// Call the destroy callback of `io` (as the reference does when a
/// super-chunk goes away or an open fails).
pub(crate) fn destroy_io(io: &blosc2_io) -> c_int {
    match lookup(io.id).and_then(|cb| cb.destroy) {
        // SAFETY: a registered destroy callback on the params given with it.
        Some(d) => unsafe { d(io.params) },
        None => 0,
    }
}

impl IoBackend for CallbackIo {
    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn IoFile>> {
        let open = self.cb.open.ok_or(Error::PluginIo)?;
        let cpath = CString::new(path.as_os_str().as_bytes()).map_err(|_| Error::FileOpen)?;
        let cmode = match mode {
            OpenMode::Read => c"rb",
            OpenMode::ReadWrite => c"rb+",
            OpenMode::Create => c"wb+",
        };
        // SAFETY: a registered open callback with NUL-terminated strings.
        let stream = unsafe { open(cpath.as_ptr(), cmode.as_ptr(), self.params) };
        if stream.is_null() {
            return Err(Error::FileOpen);
        }
        Ok(Box::new(CallbackFile {
            cb: self.cb,
            stream,
        }))
    }
    fn supports_sparse(&self) -> bool {
        self.cb.id != IO_FILESYSTEM_MMAP
    }
    fn keeps_files_open(&self) -> bool {
        // The built-in backends keep their files; user backends get the
        // reference's open / read or write / close around each operation.
        self.cb.id == IO_FILESYSTEM || self.cb.id == IO_FILESYSTEM_MMAP
    }
}

impl IoFile for CallbackFile {
    fn read_at(&self, pos: u64, buf: &mut [u8]) -> Result<()> {
        if buf.is_empty() {
            return Ok(());
        }
        let read = self.cb.read.ok_or(Error::PluginIo)?;
        let n = buf.len() as i64;
        let pos = i64::try_from(pos).map_err(|_| Error::FileRead)?;
        let mut ptr: *mut c_void = if self.cb.is_allocation_necessary {
            buf.as_mut_ptr() as *mut c_void
        } else {
            std::ptr::null_mut()
        };
        // SAFETY: a registered read callback; ptr is NULL or `buf`.
        let got = unsafe { read(&mut ptr, 1, n, pos, self.stream) };
        if got != n || ptr.is_null() {
            return Err(Error::FileRead);
        }
        if ptr as *const u8 != buf.as_ptr() {
            // SAFETY: the callback reported `n` bytes available at ptr.
            let src = unsafe { std::slice::from_raw_parts(ptr as *const u8, buf.len()) };
            buf.copy_from_slice(src);
        }
        Ok(())
    }
    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        let write = self.cb.write.ok_or(Error::PluginIo)?;
        let pos = i64::try_from(pos).map_err(|_| Error::FileWrite)?;
        let n = data.len() as i64;
        // SAFETY: a registered write callback reading `n` bytes of data.
        let got = unsafe { write(data.as_ptr() as *const c_void, 1, n, pos, self.stream) };
        if got != n {
            return Err(Error::FileWrite);
        }
        Ok(())
    }
    fn size(&self) -> Result<u64> {
        let size = self.cb.size.ok_or(Error::PluginIo)?;
        // SAFETY: a registered size callback on its own stream.
        let n = unsafe { size(self.stream) };
        u64::try_from(n).map_err(|_| Error::FileRead)
    }
    fn truncate(&mut self, size: u64) -> Result<()> {
        let Some(truncate) = self.cb.truncate else {
            // A backend without truncate can still hold frames that only grow.
            return if self.size()? <= size {
                Ok(())
            } else {
                Err(Error::PluginIo)
            };
        };
        let size = i64::try_from(size).map_err(|_| Error::FileTruncate)?;
        // SAFETY: a registered truncate callback on its own stream.
        if unsafe { truncate(self.stream, size) } != 0 {
            return Err(Error::FileTruncate);
        }
        Ok(())
    }
}

impl Drop for CallbackFile {
    fn drop(&mut self) {
        if let Some(close) = self.cb.close {
            // SAFETY: the stream came from this backend's open and is closed once.
            unsafe { close(self.stream) };
        }
    }
}

/// The bytes an I/O callback request names: `nitems` items of `size`
/// bytes from `position`. `None` for a negative argument or an end past
/// `i64` (the request then does nothing).
fn request_range(size: i64, nitems: i64, position: i64) -> Option<std::ops::Range<usize>> {
    if size < 0 || nitems < 0 || position < 0 {
        return None;
    }
    let end = size.checked_mul(nitems)?.checked_add(position)?;
    Some(usize::try_from(position).ok()?..usize::try_from(end).ok()?)
}

/// What the read callbacks share: a NULL `ptr` reads nothing (0 items);
/// otherwise `f` gets the place `ptr` points at.
///
/// # Safety
/// `ptr` must be NULL or valid for reads and writes of one pointer.
unsafe fn read_request(ptr: *mut *mut c_void, f: impl FnOnce(&mut *mut c_void) -> i64) -> i64 {
    guard(0, || {
        // SAFETY: guaranteed by the caller.
        match unsafe { ptr.as_mut() } {
            Some(slot) => f(slot),
            None => 0,
        }
    })
}

mod mmap;
mod stdio;

pub use mmap::*;
pub use stdio::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_open_runs_on_the_selected_backend_or_fails_for_unknown_ids() {
        let mut io = crate::ffi::api::blosc2_get_blosc2_io_defaults();
        assert_eq!(open_through(&io, |_| Ok(7)), Ok(7));
        assert_eq!(
            open_through(&io, |_| Err::<(), _>(Error::FileOpen)),
            Err(Error::FileOpen)
        );
        io.id = 200;
        let never = |_| -> Result<()> { unreachable!() };
        assert_eq!(open_through(&io, never), Err(Error::PluginIo));
    }

    #[test]
    fn requests_name_their_byte_range_or_nothing() {
        assert_eq!(request_range(4, 3, 10), Some(10..22));
        assert_eq!(request_range(0, 3, 5), Some(5..5));
        assert_eq!(request_range(-1, 3, 0), None);
        assert_eq!(request_range(1, 1, -1), None);
        assert_eq!(request_range(i64::MAX, 2, 0), None);
        assert_eq!(request_range(1, i64::MAX, 1), None);
    }
}
