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

/// One exported raw filter: `$name(typesize, blocksize, src, dest)` runs
/// `$filter` through [`raw_filter`] with typesizes up to `$max_typesize`.
macro_rules! raw_filter_export {
    ($name:ident, $max_typesize:expr, $filter:expr) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            typesize: i32,
            blocksize: i32,
            src: *const c_void,
            dest: *mut c_void,
        ) -> i32 {
            // SAFETY: forwarded contract.
            unsafe { raw_filter($max_typesize, typesize, blocksize, src, dest, $filter) }
        }
    };
}

raw_filter_export!(blosc2_shuffle, 256, |t, s, d| {
    crate::filter::shuffle(t, s, d);
    Ok(())
});
raw_filter_export!(blosc2_unshuffle, 256, |t, s, d| {
    crate::filter::unshuffle(t, s, d);
    Ok(())
});
raw_filter_export!(blosc2_bitshuffle, 256, crate::filter::bitshuffle);
raw_filter_export!(blosc2_bitunshuffle, i32::MAX, crate::filter::bitunshuffle);
