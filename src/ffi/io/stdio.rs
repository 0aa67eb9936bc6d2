//! `blosc2_stdio_*`: plain files through the descriptor of a `FILE *`,
//! with positioned reads and writes.

use super::*;
use std::fs::File;
use std::mem::ManuallyDrop;
use std::os::unix::io::FromRawFd;

/// `blosc2_stdio_file`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct blosc2_stdio_file {
    pub file: *mut libc::FILE,
}

impl blosc2_stdio_file {
    /// `fopen(path, mode)` in a malloc'ed handle, as the reference's (freed
    /// by `blosc2_stdio_close`): NULL when the file does not open or the
    /// handle cannot be allocated (the file is then closed again).
    fn open(path: &CStr, mode: &CStr) -> *mut c_void {
        // SAFETY: two NUL-terminated strings.
        let file = unsafe { libc::fopen(path.as_ptr(), mode.as_ptr()) };
        if file.is_null() {
            return std::ptr::null_mut();
        }
        let handle = malloc_nonempty(&[blosc2_stdio_file { file }]);
        if handle.is_err() {
            // SAFETY: the FILE just opened, closed once.
            unsafe { libc::fclose(file) };
        }
        handle.map_or(std::ptr::null_mut(), |p| p as *mut c_void)
    }
}

/// The open `FILE` of a `blosc2_stdio_file *` (None for a NULL handle or
/// file).
///
/// # Safety
/// `stream` must be NULL or come from `blosc2_stdio_open`.
unsafe fn open_file(stream: *mut c_void) -> Option<*mut libc::FILE> {
    // SAFETY: guaranteed by the caller.
    let f = unsafe { (stream as *mut blosc2_stdio_file).as_ref() }?;
    (!f.file.is_null()).then_some(f.file)
}

/// The file behind a `blosc2_stdio_file *`, borrowed: it is not closed
/// when the value goes away (None when unusable).
///
/// # Safety
/// `stream` must be NULL or come from `blosc2_stdio_open`, and stay open
/// while the value is used.
pub(super) unsafe fn stdio_file(stream: *mut c_void) -> Option<ManuallyDrop<File>> {
    // SAFETY: guaranteed by the caller; a FILE opened by blosc2_stdio_open.
    let fd = unsafe { libc::fileno(open_file(stream)?) };
    // SAFETY: fd is the FILE's open descriptor; ManuallyDrop leaves closing
    // it to blosc2_stdio_close.
    (fd >= 0).then(|| ManuallyDrop::new(unsafe { File::from_raw_fd(fd) }))
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
        blosc2_stdio_file::open(path, mode)
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_close(stream: *mut c_void) -> c_int {
    guard(-1, || {
        // SAFETY: NULL or a handle from blosc2_stdio_open.
        let Some(file) = (unsafe { open_file(stream) }) else {
            return -1;
        };
        // SAFETY: closing the FILE and freeing the handle, once.
        unsafe {
            let rc = libc::fclose(file);
            libc::free(stream);
            rc
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_size(stream: *mut c_void) -> i64 {
    guard(-1, || {
        // SAFETY: NULL or a handle from blosc2_stdio_open.
        let Some(file) = (unsafe { stdio_file(stream) }) else {
            return -1;
        };
        file.metadata().map_or(-1, |m| m.len() as i64)
    })
}

/// Whole items of `size` bytes in `done` bytes moved.
fn items_done(done: usize, size: i64) -> i64 {
    if size > 0 {
        done as i64 / size
    } else {
        0
    }
}

/// Move `nitems` items of `size` bytes between `buf` and the file of the
/// `stream` handle at `position` (`write` says which way): the whole items
/// moved, 0 for a bad request or a NULL buffer.
///
/// # Safety
/// `stream` NULL or a handle from `blosc2_stdio_open`; `buf` NULL or valid
/// for `size * nitems` bytes (written to only when reading).
unsafe fn transfer(
    buf: *mut u8,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
    write: bool,
) -> i64 {
    let Some(range) = request_range(size, nitems, position).filter(|_| !buf.is_null()) else {
        return 0;
    };
    // SAFETY: guaranteed by the caller.
    let Some(file) = (unsafe { stdio_file(stream) }) else {
        return 0;
    };
    let pos = range.start as u64;
    let done = if write {
        // SAFETY: buf holds size * nitems readable bytes.
        crate::io::write_at_most(&file, unsafe { bytes(buf, range.len()) }, pos)
    } else {
        // SAFETY: buf holds size * nitems writable bytes.
        crate::io::read_at_most(&file, unsafe { bytes_mut(buf, range.len()) }, pos)
    };
    items_done(done, size)
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_write(
    ptr: *const c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    // SAFETY: ptr holds size * nitems bytes (only read); stream as documented.
    guard(0, || unsafe {
        transfer(ptr as *mut u8, size, nitems, position, stream, true)
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
    // SAFETY: ptr is NULL or points at the caller's buffer, which holds
    // size * nitems writable bytes; stream as documented.
    unsafe {
        read_request(ptr, |buf| {
            transfer(*buf as *mut u8, size, nitems, position, stream, false)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_truncate(stream: *mut c_void, size: i64) -> c_int {
    guard(-1, || {
        if size < 0 {
            return -1;
        }
        // SAFETY: NULL or a handle from blosc2_stdio_open.
        let Some(file) = (unsafe { stdio_file(stream) }) else {
            return -1;
        };
        file.set_len(size as u64).map_or(-1, |()| 0)
    })
}

#[no_mangle]
pub extern "C" fn blosc2_stdio_destroy(_params: *mut c_void) -> c_int {
    0
}
