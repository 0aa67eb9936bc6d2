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

/// The caller's own `blosc2_stdio_mmap` behind `stream` when it was never
/// opened through `blosc2_stdio_mmap_open` (the caller filled in `addr`,
/// `file_size`, `mapping_size`, `fd` itself): the reference works on such a
/// struct's fields directly, and so do the functions below.
///
/// # Safety
/// `stream` must be NULL or point to a live `blosc2_stdio_mmap`.
pub(super) unsafe fn caller_mmap<'a>(stream: *mut c_void) -> Option<&'a mut blosc2_stdio_mmap> {
    // SAFETY: guaranteed by the caller.
    unsafe { (stream as *mut blosc2_stdio_mmap).as_mut() }
}

/// Write `data` at `pos` of a caller-filled mapping, as the reference does:
/// a write past `file_size` extends it (and the file, unless the mapping is
/// memory-only); a write past `mapping_size` grows the caller's mapping to
/// twice the new file size first.  The bytes are copied only once they lie
/// inside the mapping.  `false` when the file or the mapping cannot grow.
pub(super) fn caller_mmap_write(m: &mut blosc2_stdio_mmap, data: &[u8], pos: usize) -> bool {
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
pub(super) fn grow_caller_mapping(m: &mut blosc2_stdio_mmap) -> bool {
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
pub(super) fn grow_caller_mapping(_m: &mut blosc2_stdio_mmap) -> bool {
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

/// A stream of this backend: a mapping opened through
/// `blosc2_stdio_mmap_open` (with the caller's struct that mirrors it), or a
/// struct the caller filled in itself.
enum MmapStream<'a> {
    Opened(&'a mut MmapFile, &'a mut blosc2_stdio_mmap),
    Caller(&'a mut blosc2_stdio_mmap),
}

/// Run `f` on the stream at `stream`, holding the registry's lock; `none`
/// for a NULL stream.
///
/// # Safety
/// `stream` must be NULL or point to a live `blosc2_stdio_mmap`.
unsafe fn with_stream<T>(stream: *mut c_void, none: T, f: impl FnOnce(MmapStream<'_>) -> T) -> T {
    let mut maps = MAPS.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: guaranteed by the caller.
    let Some(m) = (unsafe { caller_mmap(stream) }) else {
        return none;
    };
    match maps.get_mut(&(stream as usize)) {
        Some(opened) => f(MmapStream::Opened(&mut opened.0, m)),
        None => f(MmapStream::Caller(m)),
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_size(stream: *mut c_void) -> i64 {
    let size = |s: MmapStream<'_>| match s {
        MmapStream::Opened(f, _) => f.file_size() as i64,
        MmapStream::Caller(m) => m.file_size as i64,
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
    if range.is_empty() {
        return 0;
    }
    let write = |s: MmapStream<'_>| {
        // SAFETY: ptr holds size * nitems bytes.
        let data = unsafe { std::slice::from_raw_parts(ptr as *const u8, range.len()) };
        let ok = match s {
            MmapStream::Caller(m) => caller_mmap_write(m, data, range.start),
            MmapStream::Opened(f, m) => {
                let ok = f.write_at(range.start as u64, data).is_ok();
                mirror(m, f);
                ok
            }
        };
        if ok {
            nitems
        } else {
            0
        }
    };
    // SAFETY: the stream is NULL or the caller's blosc2_stdio_mmap.
    guard(0, || unsafe { with_stream(stream, 0, write) })
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
            MmapStream::Caller(m) if range.end <= m.file_size && !m.addr.is_null() => {
                // SAFETY: start <= end <= file_size <= mapping_size, the
                // length of the caller's mapping at addr.
                unsafe { m.addr.add(range.start) as *mut c_void }
            }
            MmapStream::Opened(f, _) if range.end <= f.bytes().len() => {
                // SAFETY: start <= end <= the mapped length; the pointer
                // stays valid until the mapping grows or is destroyed, as
                // with the reference.
                unsafe { f.bytes().as_ptr().add(range.start) as *mut c_void }
            }
            _ => std::ptr::null_mut(),
        };
        // SAFETY: the stream is NULL or the caller's blosc2_stdio_mmap.
        *out = unsafe { with_stream(stream, std::ptr::null_mut(), at) };
        if out.is_null() {
            0
        } else {
            nitems
        }
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
            let ok = f.truncate(size as u64).is_ok();
            mirror(m, f);
            if ok {
                0
            } else {
                -1
            }
        }
        // As the reference: file_size follows, and the file unless the
        // mapping is memory-only.
        MmapStream::Caller(m) if m.file_size == new_size => 0,
        MmapStream::Caller(m) => {
            m.file_size = new_size;
            if m.is_memory_only {
                return 0;
            }
            // SAFETY: ftruncate on the caller's descriptor; a bad one fails.
            if unsafe { libc::ftruncate(m.fd, size as libc::off_t) } < 0 {
                -1
            } else {
                0
            }
        }
    };
    // SAFETY: the stream is NULL or the caller's blosc2_stdio_mmap.
    guard(-1, || unsafe { with_stream(stream, -1, truncate) })
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
