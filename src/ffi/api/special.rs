//! Special chunks: zeros, NaNs, uninitialized and repeated values.

use super::*;

pub(super) unsafe fn special(
    cparams: &blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
    kind: Special,
) -> c_int {
    guard(Error::Failure.code(), || {
        if dest.is_null() {
            return Error::NullPointer.code();
        }
        let Some(p) = crate::ffi::ctx::cparams_from_c(cparams, false) else {
            return Error::NullPointer.code();
        };
        // SAFETY: dest is valid for destsize bytes.
        let d = unsafe { bytes_mut(dest, destsize.max(0) as usize) };
        code(chunk::special::chunk_special(&p, nbytes, kind, d))
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_zeros(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { special(&cparams, nbytes, dest, destsize, Special::Zero) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_uninit(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { special(&cparams, nbytes, dest, destsize, Special::Uninit) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_nans(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { special(&cparams, nbytes, dest, destsize, Special::Nan) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_repeatval(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
    repeatval: *const c_void,
) -> c_int {
    guard(Error::Failure.code(), || {
        if dest.is_null() || repeatval.is_null() {
            return Error::NullPointer.code();
        }
        let Some(p) = crate::ffi::ctx::cparams_from_c(&cparams, false) else {
            return Error::NullPointer.code();
        };
        if p.typesize <= 0 {
            return Error::InvalidParam.code();
        }
        // SAFETY: repeatval holds typesize bytes; dest holds destsize bytes.
        let (v, d) = unsafe {
            (
                bytes(repeatval, p.typesize as usize),
                bytes_mut(dest, destsize.max(0) as usize),
            )
        };
        code(chunk::special::chunk_repeatval(&p, nbytes, v, d))
    })
}
