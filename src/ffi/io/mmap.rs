//! `blosc2_stdio_mmap_*`: the engine's memory-mapped files, their state
//! mirrored in the caller's `blosc2_stdio_mmap` (a struct the caller filled
//! in itself is worked on directly, as the reference does).

use super::*;

pub(super) struct Mapped(MmapFile);
// SAFETY: MmapFile owns its mapping and file; it is moved between threads
// only behind the registry's Mutex.
unsafe impl Send for Mapped {}

/// The mappings opened through `blosc2_stdio_mmap_open`, keyed by the address
/// of the caller's `blosc2_stdio_mmap` (which C uses as the stream).
pub(super) static MAPS: Lazy<Mutex<HashMap<usize, Mapped>>> =
    Lazy::new(|| Mutex::new(HashMap::new()));

pub(super) fn mirror(m: &mut blosc2_stdio_mmap, f: &MmapFile) {
    m.addr = f.addr() as *mut c_char;
    m.file_size = f.file_size();
    m.mapping_size = f.mapping_size();
    m.is_memory_only = f.is_memory_only();
    m.fd = f.fd();
}

/// The engine's view of a `blosc2_stdio_mmap` the caller filled in itself.
fn caller_mapping(m: &blosc2_stdio_mmap) -> CallerMapping {
    CallerMapping {
        addr: m.addr as *mut u8,
        file_size: m.file_size,
        mapping_size: m.mapping_size,
        fd: m.fd,
        is_memory_only: m.is_memory_only,
    }
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
        // A malloc'ed copy of the path, freed by destroy.
        let Ok(u) = malloc_bytes(path.to_bytes(), true) else {
            return std::ptr::null_mut();
        };
        m.urlpath = u as *mut c_char;
        m.file = std::ptr::null_mut();
        let (access, map) = mode.protection_and_flags();
        (m.access_flags, m.map_flags) = (access as i64, map as i64);
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

/// A stream of this backend: a mapping opened through
/// `blosc2_stdio_mmap_open` (with the caller's struct that mirrors it), or a
/// struct the caller filled in itself.
enum MmapStream<'a> {
    Opened(&'a mut MmapFile, &'a mut blosc2_stdio_mmap),
    Caller(&'a mut CallerMapping),
}

/// Run `f` on the stream at `stream`, holding the registry's lock; `none`
/// for a NULL stream. A caller's own struct gets back what `f` changed of
/// its mapping.
///
/// # Safety
/// `stream` must be NULL or point to a live `blosc2_stdio_mmap`, whose
/// mapping (when the caller filled it in) is the caller's to change.
unsafe fn with_stream<T>(stream: *mut c_void, none: T, f: impl FnOnce(MmapStream<'_>) -> T) -> T {
    let mut maps = MAPS.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: guaranteed by the caller.
    let Some(m) = (unsafe { (stream as *mut blosc2_stdio_mmap).as_mut() }) else {
        return none;
    };
    if let Some(opened) = maps.get_mut(&(stream as usize)) {
        return f(MmapStream::Opened(&mut opened.0, m));
    }
    let mut c = caller_mapping(m);
    let r = f(MmapStream::Caller(&mut c));
    (m.addr, m.file_size, m.mapping_size) = (c.addr as *mut c_char, c.file_size, c.mapping_size);
    r
}

/// 0 for success, -1 for failure, as the callbacks return.
fn status(ok: bool) -> c_int {
    if ok {
        0
    } else {
        -1
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_size(stream: *mut c_void) -> i64 {
    let size = |s: MmapStream<'_>| match s {
        MmapStream::Opened(f, _) => f.file_size() as i64,
        MmapStream::Caller(c) => c.file_size as i64,
    };
    // SAFETY: the stream is NULL or the caller's blosc2_stdio_mmap.
    guard(-1, || unsafe { with_stream(stream, -1, size) })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_write(
    ptr: *const c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    let Some(range) = request_range(size, nitems, position).filter(|_| !ptr.is_null()) else {
        return 0;
    };
    // SAFETY: ptr holds size * nitems bytes.
    let data = unsafe { bytes(ptr, range.len()) };
    let write = |s: MmapStream<'_>| match s {
        // SAFETY: the caller's struct describes its live mapping.
        MmapStream::Caller(c) => unsafe { c.write_at(range.start, data) }.is_ok(),
        MmapStream::Opened(f, m) => {
            let ok = f.write_at(range.start as u64, data).is_ok();
            mirror(m, f);
            ok
        }
    };
    // SAFETY: the stream is NULL or the caller's blosc2_stdio_mmap.
    let written = !data.is_empty() && guard(false, || unsafe { with_stream(stream, false, write) });
    if written {
        nitems
    } else {
        0
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_read(
    ptr: *mut *mut c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    let read = |out: &mut *mut c_void| {
        *out = std::ptr::null_mut();
        let Some(range) = request_range(size, nitems, position) else {
            return 0;
        };
        let at = |s: MmapStream<'_>| match s {
            MmapStream::Caller(c) => c.ptr_at(range),
            MmapStream::Opened(f, _) => f.ptr_at(range).map(<*const u8>::cast_mut),
        };
        // SAFETY: the stream is NULL or the caller's blosc2_stdio_mmap.
        let Some(p) = (unsafe { with_stream(stream, None, at) }) else {
            return 0;
        };
        *out = p as *mut c_void;
        nitems
    };
    // SAFETY: ptr is NULL or valid for one pointer (blosc2_read_cb).
    unsafe { read_request(ptr, read) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_truncate(stream: *mut c_void, size: i64) -> c_int {
    let Ok(new_size) = usize::try_from(size) else {
        return -1;
    };
    let truncate = |s: MmapStream<'_>| match s {
        MmapStream::Opened(f, m) => {
            let ok = f.truncate(new_size as u64).is_ok();
            mirror(m, f);
            status(ok)
        }
        MmapStream::Caller(c) => status(c.truncate(new_size).is_ok()),
    };
    // SAFETY: the stream is NULL or the caller's blosc2_stdio_mmap.
    guard(-1, || unsafe { with_stream(stream, -1, truncate) })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_destroy(params: *mut c_void) -> c_int {
    guard(-1, || {
        // SAFETY: params is NULL or the caller's blosc2_stdio_mmap.
        let Some(m) = (unsafe { (params as *mut blosc2_stdio_mmap).as_mut() }) else {
            return -1;
        };
        let removed = MAPS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&(params as usize));
        let closed = removed.is_some_and(|f| f.0.close().is_ok());
        // SAFETY: NULL or malloc'ed by blosc2_stdio_mmap_open.
        unsafe { libc::free(m.urlpath as *mut c_void) };
        (m.urlpath, m.addr, m.file) = (
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        );
        if m.needs_free {
            // SAFETY: the caller asked us to free its malloc'ed struct.
            unsafe { libc::free(params) };
        }
        status(closed)
    })
}
