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

use super::guard;
use super::ptr::c_str;
use super::types::{blosc2_io, blosc2_stdio_mmap};
use crate::error::{Error, Result};
use crate::io::mmap::{MmapFile, MmapMode};
use crate::io::{IoBackend, IoFile, OpenMode};
use once_cell::sync::Lazy;
use std::collections::HashMap;
use std::ffi::{CStr, CString};
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
pub const IO_REGISTERED: u8 = 160;

struct Entry(Box<blosc2_io_cb>);
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

static REGISTRY: Lazy<Mutex<Vec<Entry>>> = Lazy::new(|| {
    Mutex::new(vec![
        Entry(Box::new(builtin(IO_FILESYSTEM))),
        Entry(Box::new(builtin(IO_FILESYSTEM_MMAP))),
    ])
});

fn names_equal(a: *const c_char, b: *const c_char) -> bool {
    if a.is_null() || b.is_null() {
        return a.is_null() && b.is_null();
    }
    // SAFETY: registered names are NUL-terminated C strings.
    unsafe { CStr::from_ptr(a) == CStr::from_ptr(b) }
}

/// A copy of the callbacks registered under `id`.
pub(crate) fn lookup(id: u8) -> Option<blosc2_io_cb> {
    let reg = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    reg.iter().find(|e| e.0.id == id).map(|e| *e.0)
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_register_io_cb(io: *const blosc2_io_cb) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: NULL or a valid blosc2_io_cb, as documented.
        let Some(io) = (unsafe { io.as_ref() }) else {
            return Error::InvalidParam.code();
        };
        if io.id < IO_REGISTERED {
            return Error::PluginIo.code();
        }
        let mut reg = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = reg.iter().find(|e| e.0.id == io.id) {
            return if names_equal(e.0.name, io.name) {
                0
            } else {
                Error::PluginIo.code()
            };
        }
        if reg.len() >= u8::MAX as usize {
            return Error::PluginIo.code();
        }
        reg.push(Entry(Box::new(*io)));
        0
    })
}

#[no_mangle]
pub extern "C" fn blosc2_get_io_cb(id: u8) -> *mut blosc2_io_cb {
    guard(std::ptr::null_mut(), || {
        let mut reg = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
        match reg.iter_mut().find(|e| e.0.id == id) {
            // The boxes are never freed, so the pointer stays valid.
            Some(e) => &mut *e.0 as *mut blosc2_io_cb,
            None => std::ptr::null_mut(),
        }
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
        let truncate = self.cb.truncate.ok_or(Error::PluginIo)?;
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

// ---------------------------------------------------------------- stdio

/// `blosc2_stdio_file`.
#[repr(C)]
pub struct blosc2_stdio_file {
    pub file: *mut libc::FILE,
}

/// The descriptor behind a `blosc2_stdio_file *` (None when unusable).
///
/// # Safety
/// `stream` must be NULL or come from `blosc2_stdio_open`.
unsafe fn stdio_fd(stream: *mut c_void) -> Option<c_int> {
    // SAFETY: guaranteed by the caller.
    let f = unsafe { (stream as *mut blosc2_stdio_file).as_ref() }?;
    if f.file.is_null() {
        return None;
    }
    // SAFETY: a FILE opened by blosc2_stdio_open.
    let fd = unsafe { libc::fileno(f.file) };
    (fd >= 0).then_some(fd)
}

/// Positioned transfer of `n` bytes; returns the bytes moved.
///
/// # Safety
/// `buf` must be valid for `n` bytes (writable when reading).
unsafe fn pio(fd: c_int, buf: *mut u8, n: usize, pos: i64, write: bool) -> usize {
    let mut done = 0usize;
    while done < n {
        let chunk = (n - done).min(1 << 30);
        let off = pos + done as i64;
        // SAFETY: buf + done .. + chunk lies inside the caller's buffer.
        let r = unsafe {
            if write {
                libc::pwrite(fd, buf.add(done) as *const c_void, chunk, off)
            } else {
                libc::pread(fd, buf.add(done) as *mut c_void, chunk, off)
            }
        };
        if r < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            break;
        }
        if r == 0 {
            break;
        }
        done += r as usize;
    }
    done
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_open(
    urlpath: *const c_char,
    mode: *const c_char,
    _params: *mut c_void,
) -> *mut c_void {
    guard(std::ptr::null_mut(), || {
        // SAFETY: C strings passed to the API are NUL-terminated.
        let (Some(path), Some(mode)) = (unsafe { (c_str(urlpath), c_str(mode)) }) else {
            return std::ptr::null_mut();
        };
        // SAFETY: two NUL-terminated strings.
        let file = unsafe { libc::fopen(path.as_ptr(), mode.as_ptr()) };
        if file.is_null() {
            return std::ptr::null_mut();
        }
        // SAFETY: malloc of the handle struct, filled before use.
        let p = unsafe { libc::malloc(std::mem::size_of::<blosc2_stdio_file>()) }
            as *mut blosc2_stdio_file;
        if p.is_null() {
            // SAFETY: the FILE just opened.
            unsafe { libc::fclose(file) };
            return std::ptr::null_mut();
        }
        // SAFETY: p is a fresh allocation of the right size.
        unsafe { p.write(blosc2_stdio_file { file }) };
        p as *mut c_void
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_close(stream: *mut c_void) -> c_int {
    guard(-1, || {
        // SAFETY: NULL or a handle from blosc2_stdio_open.
        let Some(f) = (unsafe { (stream as *mut blosc2_stdio_file).as_ref() }) else {
            return -1;
        };
        if f.file.is_null() {
            return -1;
        }
        // SAFETY: closing the FILE and freeing the handle, once.
        unsafe {
            let rc = libc::fclose(f.file);
            libc::free(stream);
            rc
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_size(stream: *mut c_void) -> i64 {
    guard(-1, || {
        // SAFETY: NULL or a handle from blosc2_stdio_open.
        let Some(fd) = (unsafe { stdio_fd(stream) }) else {
            return -1;
        };
        // SAFETY: fstat into a zeroed struct.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: fd is open; st is writable.
        if unsafe { libc::fstat(fd, &mut st) } != 0 {
            return -1;
        }
        st.st_size
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_write(
    ptr: *const c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    guard(0, || {
        if ptr.is_null() || size < 0 || nitems < 0 || position < 0 {
            return 0;
        }
        // SAFETY: NULL or a handle from blosc2_stdio_open.
        let Some(fd) = (unsafe { stdio_fd(stream) }) else {
            return 0;
        };
        let Some(n) = size.checked_mul(nitems) else {
            return 0;
        };
        // SAFETY: ptr holds size * nitems bytes (only read).
        let done = unsafe { pio(fd, ptr as *mut u8, n as usize, position, true) };
        if size > 0 {
            done as i64 / size
        } else {
            0
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_read(
    ptr: *mut *mut c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    guard(0, || {
        if ptr.is_null() || size < 0 || nitems < 0 || position < 0 {
            return 0;
        }
        // SAFETY: NULL or a handle from blosc2_stdio_open.
        let Some(fd) = (unsafe { stdio_fd(stream) }) else {
            return 0;
        };
        let Some(n) = size.checked_mul(nitems) else {
            return 0;
        };
        // SAFETY: ptr checked non-NULL above.
        let buf = unsafe { *ptr } as *mut u8;
        if n > 0 && buf.is_null() {
            return 0;
        }
        // SAFETY: *ptr holds size * nitems writable bytes.
        let done = unsafe { pio(fd, buf, n as usize, position, false) };
        if size > 0 {
            done as i64 / size
        } else {
            0
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_truncate(stream: *mut c_void, size: i64) -> c_int {
    guard(-1, || {
        if size < 0 {
            return -1;
        }
        // SAFETY: NULL or a handle from blosc2_stdio_open.
        let Some(fd) = (unsafe { stdio_fd(stream) }) else {
            return -1;
        };
        // SAFETY: fd is open.
        unsafe { libc::ftruncate(fd, size) }
    })
}

#[no_mangle]
pub extern "C" fn blosc2_stdio_destroy(_params: *mut c_void) -> c_int {
    0
}

// ---------------------------------------------------------------- mmap

struct Mapped(MmapFile);
// SAFETY: MmapFile owns its mapping and file; it is moved between threads
// only behind the registry's Mutex.
unsafe impl Send for Mapped {}

/// The mappings opened through `blosc2_stdio_mmap_open`, keyed by the address
/// of the caller's `blosc2_stdio_mmap` (which C uses as the stream).
static MAPS: Lazy<Mutex<HashMap<usize, Mapped>>> = Lazy::new(|| Mutex::new(HashMap::new()));

fn mirror(m: &mut blosc2_stdio_mmap, f: &MmapFile) {
    m.addr = f.addr() as *mut c_char;
    m.file_size = f.file_size();
    m.mapping_size = f.mapping_size();
    m.is_memory_only = f.is_memory_only();
    m.fd = f.fd();
}

/// The caller's own `blosc2_stdio_mmap` behind `stream` when it was never
/// opened through `blosc2_stdio_mmap_open` (the caller filled in `addr`,
/// `file_size`, `mapping_size`, `fd` itself): the reference works on such a
/// struct's fields directly, and so do the functions below.
///
/// # Safety
/// `stream` must be NULL or point to a live `blosc2_stdio_mmap`.
unsafe fn caller_mmap<'a>(stream: *mut c_void) -> Option<&'a mut blosc2_stdio_mmap> {
    // SAFETY: guaranteed by the caller.
    unsafe { (stream as *mut blosc2_stdio_mmap).as_mut() }
}

/// Write `data` at `pos` of a caller-filled mapping, as the reference does:
/// a write past `file_size` extends it (and the file, unless the mapping is
/// memory-only); a write past `mapping_size` grows the caller's mapping to
/// twice the new file size first.  The bytes are copied only once they lie
/// inside the mapping.  `false` when the file or the mapping cannot grow.
fn caller_mmap_write(m: &mut blosc2_stdio_mmap, data: &[u8], pos: usize) -> bool {
    let Some(end) = pos.checked_add(data.len()) else {
        return false;
    };
    if end > m.file_size {
        m.file_size = end;
        if !m.is_memory_only {
            let Ok(len) = libc::off_t::try_from(end) else {
                return false;
            };
            // SAFETY: ftruncate on the caller's descriptor; a bad one fails.
            if unsafe { libc::ftruncate(m.fd, len) } < 0 {
                return false;
            }
        }
    }
    if m.mapping_size < m.file_size && !grow_caller_mapping(m) {
        return false;
    }
    if m.addr.is_null() {
        return false;
    }
    // SAFETY: pos + data.len() <= file_size <= mapping_size, the length of
    // the caller's mapping at addr.
    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), m.addr.add(pos) as *mut u8, data.len()) };
    true
}

/// Make the caller's mapping twice `file_size` long (or `file_size` when
/// doubling overflows), moving it if need be: Linux only (`mremap`), as the
/// reference keeps the bytes already there this way.
#[cfg(target_os = "linux")]
fn grow_caller_mapping(m: &mut blosc2_stdio_mmap) -> bool {
    if m.addr.is_null() {
        return false;
    }
    let new_len = m.file_size.checked_mul(2).unwrap_or(m.file_size);
    // SAFETY: addr and mapping_size describe the caller's mapping (as the
    // reference assumes); mremap checks them and fails on anything else.
    let p = unsafe {
        libc::mremap(
            m.addr as *mut c_void,
            m.mapping_size,
            new_len,
            libc::MREMAP_MAYMOVE,
        )
    };
    if p == libc::MAP_FAILED {
        return false;
    }
    m.addr = p as *mut c_char;
    m.mapping_size = new_len;
    true
}

#[cfg(not(target_os = "linux"))]
fn grow_caller_mapping(_m: &mut blosc2_stdio_mmap) -> bool {
    false
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_open(
    urlpath: *const c_char,
    _mode: *const c_char,
    params: *mut c_void,
) -> *mut c_void {
    guard(std::ptr::null_mut(), || {
        // SAFETY: C strings passed to the API are NUL-terminated.
        let Some(path) = (unsafe { c_str(urlpath) }) else {
            return std::ptr::null_mut();
        };
        // SAFETY: params is NULL or the caller's blosc2_stdio_mmap.
        let Some(m) = (unsafe { (params as *mut blosc2_stdio_mmap).as_mut() }) else {
            return std::ptr::null_mut();
        };
        let mut maps = MAPS.lock().unwrap_or_else(|e| e.into_inner());
        if maps.contains_key(&(params as usize)) {
            // Mapped once; only the same path may be opened again.
            // SAFETY: the caller's struct holds NULL or a C string.
            return match unsafe { c_str(m.urlpath) } {
                Some(p) if p == path => params,
                _ => std::ptr::null_mut(),
            };
        }
        // SAFETY: the caller's struct holds NULL or a C string.
        let Some(mode) = unsafe { c_str(m.mode) }
            .and_then(|s| s.to_str().ok())
            .and_then(MmapMode::parse)
        else {
            return std::ptr::null_mut();
        };
        let p = Path::new(std::ffi::OsStr::from_bytes(path.to_bytes()));
        let Ok(f) = MmapFile::open(p, mode, m.initial_mapping_size) else {
            return std::ptr::null_mut();
        };
        let bytes = path.to_bytes_with_nul();
        // SAFETY: a malloc'ed copy of the path, freed by destroy.
        let u = unsafe { libc::malloc(bytes.len()) } as *mut c_char;
        if u.is_null() {
            return std::ptr::null_mut();
        }
        // SAFETY: u holds bytes.len() bytes.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr() as *const c_char, u, bytes.len()) };
        m.urlpath = u;
        m.file = std::ptr::null_mut();
        (m.access_flags, m.map_flags) = match mode {
            MmapMode::Read => (libc::PROT_READ as i64, libc::MAP_SHARED as i64),
            MmapMode::ReadWrite | MmapMode::Create => (
                (libc::PROT_READ | libc::PROT_WRITE) as i64,
                libc::MAP_SHARED as i64,
            ),
            MmapMode::CopyOnWrite => (
                (libc::PROT_READ | libc::PROT_WRITE) as i64,
                libc::MAP_PRIVATE as i64,
            ),
        };
        mirror(m, &f);
        // The caller's mode string is only valid during this call.
        m.mode = std::ptr::null();
        maps.insert(params as usize, Mapped(f));
        params
    })
}

#[no_mangle]
pub extern "C" fn blosc2_stdio_mmap_close(_stream: *mut c_void) -> c_int {
    0
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_size(stream: *mut c_void) -> i64 {
    guard(-1, || {
        let maps = MAPS.lock().unwrap_or_else(|e| e.into_inner());
        match maps.get(&(stream as usize)) {
            Some(f) => f.0.file_size() as i64,
            // SAFETY: the stream is NULL or the caller's blosc2_stdio_mmap.
            None => match unsafe { caller_mmap(stream) } {
                Some(m) => m.file_size as i64,
                None => -1,
            },
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_write(
    ptr: *const c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    guard(0, || {
        if ptr.is_null() || size < 0 || nitems < 0 || position < 0 {
            return 0;
        }
        let Some(n) = size.checked_mul(nitems) else {
            return 0;
        };
        if n == 0 {
            return 0;
        }
        let (Ok(n), Ok(pos)) = (usize::try_from(n), usize::try_from(position)) else {
            return 0;
        };
        if pos.checked_add(n).is_none() {
            return 0;
        }
        // SAFETY: ptr holds size * nitems bytes.
        let data = unsafe { std::slice::from_raw_parts(ptr as *const u8, n) };
        let mut maps = MAPS.lock().unwrap_or_else(|e| e.into_inner());
        let Some(f) = maps.get_mut(&(stream as usize)) else {
            // SAFETY: the stream is NULL or the caller's blosc2_stdio_mmap.
            let Some(m) = (unsafe { caller_mmap(stream) }) else {
                return 0;
            };
            return if caller_mmap_write(m, data, pos) {
                nitems
            } else {
                0
            };
        };
        let ok = f.0.write_at(position as u64, data).is_ok();
        // SAFETY: the stream is the caller's blosc2_stdio_mmap.
        if let Some(m) = unsafe { (stream as *mut blosc2_stdio_mmap).as_mut() } {
            mirror(m, &f.0);
        }
        if ok {
            nitems
        } else {
            0
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_read(
    ptr: *mut *mut c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    guard(0, || {
        if ptr.is_null() {
            return 0;
        }
        // SAFETY: ptr checked non-NULL.
        unsafe { *ptr = std::ptr::null_mut() };
        if size < 0 || nitems < 0 || position < 0 {
            return 0;
        }
        let Some(end) = size
            .checked_mul(nitems)
            .and_then(|n| n.checked_add(position))
        else {
            return 0;
        };
        let maps = MAPS.lock().unwrap_or_else(|e| e.into_inner());
        let Some(f) = maps.get(&(stream as usize)) else {
            // SAFETY: the stream is NULL or the caller's blosc2_stdio_mmap.
            let Some(m) = (unsafe { caller_mmap(stream) }) else {
                return 0;
            };
            if end as u64 > m.file_size as u64 || m.addr.is_null() {
                return 0;
            }
            // SAFETY: position <= end <= file_size <= mapping_size, the
            // length of the caller's mapping at addr.
            unsafe { *ptr = m.addr.add(position as usize) as *mut c_void };
            return nitems;
        };
        let b = f.0.bytes();
        if end as u64 > b.len() as u64 {
            return 0;
        }
        // SAFETY: position <= end <= the mapped length; the pointer stays
        // valid until the mapping grows or is destroyed, as with the reference.
        unsafe { *ptr = b.as_ptr().add(position as usize) as *mut c_void };
        nitems
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_truncate(stream: *mut c_void, size: i64) -> c_int {
    guard(-1, || {
        if size < 0 {
            return -1;
        }
        let mut maps = MAPS.lock().unwrap_or_else(|e| e.into_inner());
        let Some(f) = maps.get_mut(&(stream as usize)) else {
            // SAFETY: the stream is NULL or the caller's blosc2_stdio_mmap.
            let Some(m) = (unsafe { caller_mmap(stream) }) else {
                return -1;
            };
            // As the reference: file_size follows, and the file unless the
            // mapping is memory-only.
            if m.file_size as u64 == size as u64 {
                return 0;
            }
            let Ok(new_size) = usize::try_from(size) else {
                return -1;
            };
            m.file_size = new_size;
            if m.is_memory_only {
                return 0;
            }
            // SAFETY: ftruncate on the caller's descriptor; a bad one fails.
            return if unsafe { libc::ftruncate(m.fd, size as libc::off_t) } < 0 {
                -1
            } else {
                0
            };
        };
        let rc = if f.0.truncate(size as u64).is_ok() {
            0
        } else {
            -1
        };
        // SAFETY: the stream is the caller's blosc2_stdio_mmap.
        if let Some(m) = unsafe { (stream as *mut blosc2_stdio_mmap).as_mut() } {
            mirror(m, &f.0);
        }
        rc
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_destroy(params: *mut c_void) -> c_int {
    guard(-1, || {
        if params.is_null() {
            return -1;
        }
        let removed = MAPS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&(params as usize));
        let mut err = 0;
        match removed {
            Some(f) => {
                if f.0.flush().is_err() {
                    err = -1;
                }
                drop(f);
            }
            None => err = -1,
        }
        // SAFETY: params is the caller's blosc2_stdio_mmap.
        let m = unsafe { &mut *(params as *mut blosc2_stdio_mmap) };
        if !m.urlpath.is_null() {
            // SAFETY: malloc'ed by blosc2_stdio_mmap_open.
            unsafe { libc::free(m.urlpath as *mut c_void) };
        }
        m.urlpath = std::ptr::null_mut();
        m.addr = std::ptr::null_mut();
        m.file = std::ptr::null_mut();
        if m.needs_free {
            // SAFETY: the caller asked us to free its malloc'ed struct.
            unsafe { libc::free(params) };
        }
        err
    })
}
