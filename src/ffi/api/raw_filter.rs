//! The shuffle filters run on their own, outside a chunk.

use super::*;

/// The four raw (un)shuffle entry points: check the arguments (the reference
/// takes typesizes up to 256, and any for bitunshuffle), run `f` on the two
/// buffers and return `blocksize` (or a negative code).
///
/// # Safety
/// `src` and `dest` must hold `blocksize` bytes each and not overlap.
pub(super) unsafe fn raw_filter(
    max_typesize: i32,
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
    f: impl FnOnce(usize, &[u8], &mut [u8]) -> Result<(), ()>,
) -> i32 {
    guard(Error::Failure.code(), || {
        if typesize <= 0
            || typesize > max_typesize
            || blocksize < 0
            || src.is_null()
            || dest.is_null()
        {
            return Error::InvalidParam.code();
        }
        let n = blocksize as usize;
        // SAFETY: both buffers hold blocksize bytes and do not overlap (API contract).
        let (s, d) = unsafe { (bytes(src, n), bytes_mut(dest, n)) };
        match f(typesize as usize, s, d) {
            Ok(()) => blocksize,
            Err(()) => Error::FilterPipeline.code(),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_shuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        raw_filter(256, typesize, blocksize, src, dest, |t, s, d| {
            crate::filter::shuffle(t, s, d);
            Ok(())
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_unshuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        raw_filter(256, typesize, blocksize, src, dest, |t, s, d| {
            crate::filter::unshuffle(t, s, d);
            Ok(())
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_bitshuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        raw_filter(
            256,
            typesize,
            blocksize,
            src,
            dest,
            crate::filter::bitshuffle,
        )
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_bitunshuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        raw_filter(
            i32::MAX,
            typesize,
            blocksize,
            src,
            dest,
            crate::filter::bitunshuffle,
        )
    }
}
