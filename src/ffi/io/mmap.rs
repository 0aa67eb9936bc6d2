//! `blosc2_stdio_mmap_*`: the engine's memory-mapped files, their state
//! mirrored in the caller's `blosc2_stdio_mmap` (a struct the caller filled
//! in itself is worked on directly, as the reference does).

use super::*;

/// The mappings opened through `blosc2_stdio_mmap_open`, keyed by the address
/// of the caller's `blosc2_stdio_mmap` (which C uses as the stream).
static STREAMS: Lazy<MmapStreams> = Lazy::new(MmapStreams::new);

impl blosc2_stdio_mmap {
    /// The mapping this struct describes.
    fn view(&self) -> CallerMapping {
        CallerMapping {
            addr: self.addr as *mut u8,
            file_size: self.file_size,
            mapping_size: self.mapping_size,
            fd: self.fd,
            is_memory_only: self.is_memory_only,
        }
    }

    /// Make this struct describe the mapping `v`.
    pub(crate) fn record(&mut self, v: &CallerMapping) {
        self.addr = v.addr as *mut c_char;
        self.file_size = v.file_size;
        self.mapping_size = v.mapping_size;
        self.is_memory_only = v.is_memory_only;
        self.fd = v.fd;
    }

    /// What opening `path` with this struct asks for: the path it records
    /// from an earlier open, its mode and its initial mapping size.
    ///
    /// # Safety
    /// The struct's `urlpath` and `mode` must be NULL or C strings that
    /// live for `'a`.
    unsafe fn request<'a>(&self, path: &'a CStr) -> StreamRequest<'a> {
        // SAFETY: guaranteed by the caller.
        let (recorded, mode) = unsafe { (c_str(self.urlpath), c_str(self.mode)) };
        StreamRequest {
            path: os_str(path),
            recorded_path: recorded.map(os_str),
            mode: mode.and_then(|s| s.to_str().ok()),
            initial_mapping_size: self.initial_mapping_size,
        }
    }

    /// Make this struct describe the file `f` just mapped from `path`: a
    /// malloc'ed copy of the path (freed by [`Self::forget_open`]), the
    /// protection and flags of its mode, and its mapping.
    fn publish(&mut self, path: &CStr, f: &MmapFile) -> Result<()> {
        self.urlpath = malloc_bytes(path.to_bytes(), true)? as *mut c_char;
        self.file = std::ptr::null_mut();
        let (access, map) = f.mode().protection_and_flags();
        (self.access_flags, self.map_flags) = (access as i64, map as i64);
        self.record(&CallerMapping::of_file(f));
        // The caller's mode string is only valid during the open call.
        self.mode = std::ptr::null();
        Ok(())
    }

    /// Undo what [`Self::publish`] recorded: free the copy of the path and
    /// leave no pointer into the mapping.
    ///
    /// # Safety
    /// `urlpath` must be NULL or the copy `publish` made, not freed yet.
    unsafe fn forget_open(&mut self) {
        // SAFETY: guaranteed by the caller.
        unsafe { libc::free(self.urlpath as *mut c_void) };
        let null = std::ptr::null_mut::<c_char>();
        (self.urlpath, self.addr, self.file) = (null, null, null.cast());
    }
}

fn os_str(s: &CStr) -> &OsStr {
    OsStr::from_bytes(s.to_bytes())
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_open(
    urlpath: *const c_char,
    _mode: *const c_char,
    params: *mut c_void,
) -> *mut c_void {
    guard(std::ptr::null_mut(), || {
        // SAFETY: C strings passed to the API are NUL-terminated; params is
        // NULL or the caller's blosc2_stdio_mmap.
        let (Some(path), Some(m)) =
            (unsafe { (c_str(urlpath), (params as *mut blosc2_stdio_mmap).as_mut()) })
        else {
            return std::ptr::null_mut();
        };
        // SAFETY: the caller's struct holds NULL or C strings.
        let request = unsafe { m.request(path) };
        let opened = STREAMS.open(params as usize, request, |f| m.publish(path, f));
        opened.map_or(std::ptr::null_mut(), |()| params)
    })
}

#[no_mangle]
pub extern "C" fn blosc2_stdio_mmap_close(_stream: *mut c_void) -> c_int {
    0
}

/// Run `f` on the stream at `stream`; `none` for a NULL stream. The
/// caller's struct gets back what `f` changed of its mapping.
///
/// # Safety
/// `stream` must be NULL or point to a live `blosc2_stdio_mmap`, whose
/// mapping (when the caller filled it in) is the caller's to change.
unsafe fn with_stream<T>(stream: *mut c_void, none: T, f: impl FnOnce(MmapStream<'_>) -> T) -> T {
    // SAFETY: guaranteed by the caller.
    let Some(m) = (unsafe { (stream as *mut blosc2_stdio_mmap).as_mut() }) else {
        return none;
    };
    let mut view = m.view();
    let r = STREAMS.with(stream as usize, &mut view, f);
    m.record(&view);
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
    let size = |s: MmapStream<'_>| s.file_size() as i64;
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
    // SAFETY: a caller's struct describes its live mapping.
    let write = |mut s: MmapStream<'_>| unsafe { s.write_at(range.start, data) }.is_ok();
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
        // SAFETY: the stream is NULL or the caller's blosc2_stdio_mmap.
        let at = unsafe { with_stream(stream, None, |s| s.ptr_at(range)) };
        *out = at.map_or(std::ptr::null_mut(), |p| p as *mut c_void);
        at.map_or(0, |_| nitems)
    };
    // SAFETY: ptr is NULL or valid for one pointer (blosc2_read_cb).
    unsafe { read_request(ptr, read) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_truncate(stream: *mut c_void, size: i64) -> c_int {
    let Ok(new_size) = usize::try_from(size) else {
        return -1;
    };
    let truncate = |mut s: MmapStream<'_>| status(s.truncate(new_size).is_ok());
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
        let closed = STREAMS.close(params as usize);
        // SAFETY: the urlpath is NULL or malloc'ed by blosc2_stdio_mmap_open.
        unsafe { m.forget_open() };
        if m.needs_free {
            // SAFETY: the caller asked us to free its malloc'ed struct.
            unsafe { libc::free(params) };
        }
        status(closed)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::mmap::MmapMode;

    #[test]
    fn the_callers_struct_asks_records_and_forgets_an_open() {
        let dir = std::env::temp_dir().join(format!("b2ffimmap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = CString::new(dir.join("m.bin").as_os_str().as_bytes()).unwrap();
        let mut m = crate::ffi::api::blosc2_get_blosc2_stdio_mmap_defaults();
        m.mode = c"w+".as_ptr();
        // SAFETY: the struct's strings are NULL or static.
        let r = unsafe { m.request(&path) };
        assert_eq!((r.mode, r.recorded_path), (Some("w+"), None));
        assert_eq!(r.initial_mapping_size, m.initial_mapping_size);
        let f = MmapFile::open(Path::new(os_str(&path)), MmapMode::parse("w+").unwrap(), 64);
        assert_eq!(m.publish(&path, &f.unwrap()), Ok(()));
        assert!(m.mode.is_null() && !m.addr.is_null() && m.fd >= 0);
        assert!(m.access_flags >= 0 && m.map_flags >= 0);
        // SAFETY: urlpath is the copy publish made.
        unsafe {
            assert_eq!(CStr::from_ptr(m.urlpath), path.as_c_str());
            assert_eq!(m.request(&path).recorded_path, Some(os_str(&path)));
            m.forget_open();
        }
        assert!(m.urlpath.is_null() && m.addr.is_null() && m.file.is_null());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
