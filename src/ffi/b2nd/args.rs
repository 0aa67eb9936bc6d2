//! The array arguments of b2nd.h calls turned into slices: shapes, boxes,
//! axes and the metalayers of a new context.  Shared by the exports of
//! every `ffi::b2nd` file.

use super::super::ptr::{required_items, string};
use super::super::schunk::blosc2_metalayer;
use crate::error::{Error, Result};

/// The `nd` values of a box or shape argument (NULL is `NullPointer`).
///
/// # Safety
/// `p` must hold `nd` values when non-NULL.
pub(super) unsafe fn dims<'a>(p: *const i64, nd: usize) -> Result<&'a [i64]> {
    if p.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: guaranteed by the caller.
    unsafe { required_items(p, nd) }
}

/// [`dims`] of several arguments, checked in order (the first NULL one is
/// `NullPointer`).
///
/// # Safety
/// Each pointer must hold `nd` values when non-NULL.
pub(super) unsafe fn dims_all<'a, const N: usize>(
    nd: usize,
    ptrs: [*const i64; N],
) -> Result<[&'a [i64]; N]> {
    let mut out: [&[i64]; N] = [&[]; N];
    for (slot, p) in out.iter_mut().zip(ptrs) {
        // SAFETY: guaranteed by the caller.
        *slot = unsafe { dims(p, nd) }?;
    }
    Ok(out)
}

/// An axis argument (a negative one is `InvalidParam`).
pub(super) fn axis_arg(axis: i8) -> Result<usize> {
    usize::try_from(axis).map_err(|_| Error::InvalidParam)
}

/// The shape, chunk shape and block shape arguments of an array of `nd`
/// dimensions (NULL only for 0 dimensions).
///
/// # Safety
/// Each pointer must hold `nd` values when non-NULL.
pub(super) unsafe fn shape_args<'a>(
    nd: usize,
    shape: *const i64,
    chunkshape: *const i32,
    blockshape: *const i32,
) -> Result<(&'a [i64], &'a [i32], &'a [i32])> {
    // SAFETY: guaranteed by the caller.
    unsafe {
        Ok((
            required_items(shape, nd)?,
            required_items(chunkshape, nd)?,
            required_items(blockshape, nd)?,
        ))
    }
}

/// The `n` metalayers (name, content) of a `b2nd_create_ctx` call, copied.
///
/// # Safety
/// `p` must hold `n` entries when non-NULL, each with a NUL-terminated name
/// and `content_len` bytes of content.
pub(super) unsafe fn metalayer_args(
    p: *const blosc2_metalayer,
    n: usize,
) -> Result<Vec<(String, Vec<u8>)>> {
    // SAFETY: guaranteed by the caller.
    let metas = unsafe { required_items(p, n)? };
    let mut copied = Vec::with_capacity(n);
    for m in metas {
        // SAFETY: metalayer names are NUL-terminated strings.
        let name = unsafe { string(m.name) }.ok_or(Error::NullPointer)?;
        let len = usize::try_from(m.content_len).map_err(|_| Error::InvalidParam)?;
        // SAFETY: content holds content_len bytes.
        let content = unsafe { required_items(m.content as *const u8, len)? }.to_vec();
        copied.push((name, content));
    }
    Ok(copied)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dims_are_checked_in_order() {
        let (a, b) = ([1i64, 2], [3i64, 4]);
        // SAFETY: each non-NULL pointer holds two values.
        unsafe {
            let [x, y] = dims_all(2, [a.as_ptr(), b.as_ptr()]).unwrap();
            assert_eq!((x, y), (&a[..], &b[..]));
            let with_null = dims_all(2, [a.as_ptr(), std::ptr::null()]);
            assert_eq!(with_null, Err(Error::NullPointer));
        }
        assert_eq!(axis_arg(-1), Err(Error::InvalidParam));
        assert_eq!(axis_arg(3), Ok(3));
    }
}
