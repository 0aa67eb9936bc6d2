//! Removing and renaming stored super-chunks.

use super::*;
use crate::schunk::urlpath;

fn rc(r: Result<()>) -> c_int {
    r.map_or_else(|e| e.code(), |()| 0)
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_remove_dir(path: *const c_char) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: C strings passed to the API are NUL-terminated.
        let Ok(p) = (unsafe { string_arg(path) }) else {
            return Error::FileRemove.code();
        };
        rc(urlpath::remove_dir(Path::new(&p)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_rename_urlpath(
    old_urlpath: *mut c_char,
    new_path: *mut c_char,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: C strings passed to the API are NUL-terminated.
        let (Ok(old), Ok(new)) = (unsafe { (string_arg(old_urlpath), string_arg(new_path)) })
        else {
            // Like the reference, NULL paths leave everything as it is.
            return 0;
        };
        rc(urlpath::rename(Path::new(&old), Path::new(&new)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_remove_urlpath(urlpath: *const c_char) -> c_int {
    guard(Error::Failure.code(), || {
        if urlpath.is_null() {
            return 0;
        }
        // SAFETY: C strings passed to the API are NUL-terminated.
        let Ok(url) = (unsafe { string_arg(urlpath) }) else {
            return 0;
        };
        rc(urlpath::remove(Path::new(&url)))
    })
}
