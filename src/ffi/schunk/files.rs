//! Removing and renaming stored super-chunks.

use super::*;

#[no_mangle]
pub unsafe extern "C" fn blosc2_remove_dir(path: *const c_char) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: C strings passed to the API are NUL-terminated.
        let Ok(p) = (unsafe { string_arg(path) }) else {
            return Error::FileRemove.code();
        };
        let p = Path::new(&p);
        let Ok(entries) = std::fs::read_dir(p) else {
            return Error::FileRemove.code();
        };
        // Like the reference: the (flat) files of the directory, then the directory.
        for e in entries.flatten() {
            if std::fs::remove_file(e.path()).is_err() {
                return Error::FileRemove.code();
            }
        }
        match std::fs::remove_dir(p) {
            Ok(()) => 0,
            Err(_) => Error::FileRemove.code(),
        }
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
        if std::fs::metadata(&old).is_err() {
            return Error::Failure.code();
        }
        match std::fs::rename(&old, &new) {
            Ok(()) => 0,
            Err(_) => Error::Failure.code(),
        }
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
        let p = Path::new(&url);
        let meta = match std::fs::symlink_metadata(p) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return 0,
            Err(_) => return Error::Failure.code(),
        };
        let r = if meta.is_dir() {
            std::fs::remove_dir_all(p)
        } else {
            std::fs::remove_file(p)
        };
        if r.is_err() {
            return Error::FileRemove.code();
        }
        let _ = std::fs::remove_file(format!("{url}.b2lock"));
        0
    })
}
