//! The C entry point fuzz/cli_info.c calls (built only with the `fuzzing`
//! feature): `blosc2 info` on a file that holds the fuzzer's input.
#![allow(unsafe_code)]

use std::ffi::{c_char, c_int, CStr};

/// Run [`crate::info::info`] on the file `path` (as text when `as_json` is 0,
/// else as JSON) into a sink: 0 when it succeeds, -1 when it reports an
/// error. A panic is a bug (the fuzz build aborts on it).
///
/// # Safety
/// `path` is NULL or points to a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_cli_fuzz_info(path: *const c_char, as_json: c_int) -> c_int {
    if path.is_null() {
        return -1;
    }
    // SAFETY: non-NULL, and the caller promises a NUL-terminated string.
    let path = unsafe { CStr::from_ptr(path) };
    let Ok(path) = path.to_str() else {
        return -1;
    };
    match crate::info::info(path, as_json != 0, &mut std::io::sink()) {
        Ok(()) => 0,
        Err(_) => -1,
    }
}
