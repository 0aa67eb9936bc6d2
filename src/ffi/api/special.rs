//! Special chunks: zeros, NaNs, uninitialized and repeated values.

use super::*;

/// What the calls that make a special chunk share: a NULL `dest` or
/// unusable `cparams` is `BLOSC2_ERROR_NULL_POINTER`; otherwise `fill` makes
/// the chunk in the `destsize` bytes at `dest`.
///
/// # Safety
/// `dest` must be valid for writes of `destsize` bytes when non-NULL.
unsafe fn fill_special(
    cparams: &blosc2_cparams,
    dest: *mut c_void,
    destsize: i32,
    fill: impl FnOnce(&chunk::CParams, &mut [u8]) -> Result<usize, Error>,
) -> c_int {
    guarded(|| {
        if dest.is_null() {
            return Err(Error::NullPointer);
        }
        let p = crate::ffi::ctx::cparams_from_c(cparams, false).ok_or(Error::NullPointer)?;
        // SAFETY: guaranteed by the caller.
        let d = unsafe { bytes_mut(dest, destsize.max(0) as usize) };
        fill(&p, d)
    })
}

/// A chunk of `nbytes` bytes of the special value `kind`.
///
/// # Safety
/// As [`fill_special`].
unsafe fn special(
    cparams: &blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
    kind: Special,
) -> c_int {
    let fill = |p: &chunk::CParams, d: &mut [u8]| chunk::special::chunk_special(p, nbytes, kind, d);
    // SAFETY: guaranteed by the caller.
    unsafe { fill_special(cparams, dest, destsize, fill) }
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
    let fill = |p: &chunk::CParams, d: &mut [u8]| {
        if repeatval.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: repeatval holds typesize bytes (blosc2.h); a typesize of 0
        // or less reads none, and the engine refuses it.
        let v = unsafe { bytes(repeatval, p.typesize.max(0) as usize) };
        chunk::special::chunk_repeatval(p, nbytes, v, d)
    };
    // SAFETY: dest holds destsize bytes (blosc2.h).
    unsafe { fill_special(&cparams, dest, destsize, fill) }
}
