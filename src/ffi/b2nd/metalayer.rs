//! b2nd.h: the "b2nd" metalayer (serialize, deserialize, print) and the
//! padded-buffer copies.
#![allow(clippy::missing_safety_doc)]

use super::*;

// ---------------------------------------------------------------- metalayer

#[no_mangle]
pub unsafe extern "C" fn b2nd_serialize_meta(
    ndim: i8,
    shape: *const i64,
    chunkshape: *const i32,
    blockshape: *const i32,
    dtype: *const c_char,
    dtype_format: i8,
    smeta: *mut *mut u8,
) -> c_int {
    guard(Error::Failure.code(), || {
        let r = (|| -> Result<c_int> {
            if smeta.is_null() {
                return Err(Error::NullPointer);
            }
            if !(0..=MAX_DIM as i8).contains(&ndim) || dtype_format < 0 {
                return Err(Error::Failure);
            }
            // SAFETY: the shape arrays hold ndim values (b2nd.h).
            let (s, c, b) = unsafe { shape_args(ndim as usize, shape, chunkshape, blockshape) }?;
            // SAFETY: dtype is NULL or a NUL-terminated string.
            let d = unsafe { string(dtype) }.unwrap_or_else(|| DEFAULT_DTYPE.to_string());
            let bytes = meta::serialize(s, c, b, &d, dtype_format)?;
            store(smeta, malloc_bytes(&bytes, false)?)?;
            Ok(bytes.len() as c_int)
        })();
        r.unwrap_or_else(|e| e.code())
    })
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_deserialize_meta(
    smeta: *const u8,
    smeta_len: i32,
    ndim: *mut i8,
    shape: *mut i64,
    chunkshape: *mut i32,
    blockshape: *mut i32,
    dtype: *mut *mut c_char,
    dtype_format: *mut i8,
) -> c_int {
    guard(Error::Failure.code(), || {
        let r = (|| -> Result<c_int> {
            if smeta.is_null()
                || ndim.is_null()
                || shape.is_null()
                || chunkshape.is_null()
                || blockshape.is_null()
            {
                return Err(Error::NullPointer);
            }
            let len = usize::try_from(smeta_len).map_err(|_| Error::Failure)?;
            // SAFETY: smeta holds smeta_len bytes.
            let bytes = unsafe { required_items(smeta, len)? };
            let want_dtype = !dtype.is_null() && !dtype_format.is_null();
            let d = meta::deserialize_parts(bytes, want_dtype)?;
            let g = &d.meta.geom;
            let nd = g.ndim();
            // SAFETY: the output arrays hold B2ND_MAX_DIM values (b2nd.h);
            // only ndim of them are written.
            unsafe {
                *ndim = nd as i8;
                items_mut(shape, nd).copy_from_slice(&g.shape);
                items_mut(chunkshape, nd).copy_from_slice(&g.chunkshape);
                items_mut(blockshape, nd).copy_from_slice(&g.blockshape);
                if want_dtype {
                    *dtype_format = d.meta.dtype_format;
                    // A metalayer without a dtype section gives no dtype.
                    *dtype = match d.has_dtype {
                        true => malloc_bytes(d.meta.dtype.as_bytes(), true)? as *mut c_char,
                        false => std::ptr::null_mut(),
                    };
                }
            }
            Ok(d.len as c_int)
        })();
        r.unwrap_or_else(|e| e.code())
    })
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_print_meta(array: *const b2nd_array_t) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: array is NULL or live.
        let m = match unsafe { read(array, |sc, _| array::read_meta(sc)) } {
            Ok(m) => m,
            Err(e) => return e.code(),
        };
        let out = meta::describe(&m);
        use std::io::Write;
        let mut so = std::io::stdout().lock();
        let _ = so.write_all(out.as_bytes());
        let _ = so.flush();
        0
    })
}

// ---------------------------------------------------------------- buffer copies

#[no_mangle]
pub unsafe extern "C" fn b2nd_copy_buffer2(
    ndim: i8,
    itemsize: i32,
    src: *const c_void,
    src_pad_shape: *const i64,
    src_start: *const i64,
    src_stop: *const i64,
    dst: *mut c_void,
    dst_pad_shape: *const i64,
    dst_start: *const i64,
) -> c_int {
    guarded_rc(|| {
        if !(1..=MAX_DIM as i8).contains(&ndim) || itemsize <= 0 {
            return Err(Error::InvalidParam);
        }
        let nd = ndim as usize;
        let ts = itemsize as usize;
        // SAFETY: the shape arrays hold ndim values.
        let (sp, s0, s1, dp, d0) = unsafe {
            (
                dims(src_pad_shape, nd)?,
                dims(src_start, nd)?,
                dims(src_stop, nd)?,
                dims(dst_pad_shape, nd)?,
                dims(dst_start, nd)?,
            )
        };
        let Some((src_len, dst_len)) = copy::box_extents(ts, sp, s0, s1, dp, d0)? else {
            return Ok(());
        };
        if src.is_null() || dst.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: the caller's buffers hold their padded shapes, of
        // which only the boxes (src_len and dst_len bytes from the start) are
        // touched; src and dst do not overlap (b2nd.h).
        let (sb, db) = unsafe { (bytes(src, src_len), bytes_mut(dst, dst_len)) };
        copy::copy_box(ts, sb, sp, s0, s1, db, dp, d0)
    })
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_copy_buffer(
    ndim: i8,
    itemsize: u8,
    src: *const c_void,
    src_pad_shape: *const i64,
    src_start: *const i64,
    src_stop: *const i64,
    dst: *mut c_void,
    dst_pad_shape: *const i64,
    dst_start: *const i64,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe {
        b2nd_copy_buffer2(
            ndim,
            itemsize as i32,
            src,
            src_pad_shape,
            src_start,
            src_stop,
            dst,
            dst_pad_shape,
            dst_start,
        )
    }
}
