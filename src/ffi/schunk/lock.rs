//! Locking a frame on disk across handles and processes, and taking in other handles' changes.

use super::*;

/// `blosc2_stdio_params`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct blosc2_stdio_params {
    pub locking: bool,
}

/// Whether file locking is enabled for a handle (the plain file backend's
/// `locking` parameter, or the BLOSC_LOCKING environment variable).
pub(super) fn locking_enabled(io: &blosc2_io) -> bool {
    if crate::frame::lock::locking_from_env() {
        return true;
    }
    if io.id != crate::ffi::io::IO_FILESYSTEM {
        return false;
    }
    // SAFETY: the plain file backend's params are NULL or a blosc2_stdio_params.
    unsafe { (io.params as *const blosc2_stdio_params).as_ref() }.is_some_and(|p| p.locking)
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_lock(schunk: *mut blosc2_schunk) -> c_int {
    let call = |h: &mut Holder| {
        let changed = h.sc.begin_bracket()?;
        h.take_in(changed);
        Ok(0)
    };
    // SAFETY: a super-chunk pointer from this library.
    unsafe { unlocked(schunk, call) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_unlock(schunk: *mut blosc2_schunk) -> c_int {
    let call = |h: &mut Holder| h.sc.end_bracket().map(|()| 0);
    // SAFETY: a super-chunk pointer from this library.
    unsafe { unlocked(schunk, call) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_refresh(schunk: *mut blosc2_schunk) -> c_int {
    let call = |h: &mut Holder| {
        let changed = h.sc.refresh()?;
        Ok(c_int::from(h.take_in(changed)))
    };
    // SAFETY: a super-chunk pointer from this library.
    unsafe { unlocked(schunk, call) }
}
