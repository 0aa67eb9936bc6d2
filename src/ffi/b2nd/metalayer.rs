//! b2nd.h: the "b2nd" metalayer (serialize, deserialize, print) and the
//! padded-buffer copies.
#![allow(clippy::missing_safety_doc)]

use super::*;
use std::io::Write;

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
    guarded(|| {
        if smeta.is_null() {
            return Err(Error::NullPointer);
        }
        let nd = meta::serialized_ndim(ndim, dtype_format)?;
        // SAFETY: the shape arrays hold ndim values (b2nd.h).
        let (s, c, b) = unsafe { shape_args(nd, shape, chunkshape, blockshape) }?;
        // SAFETY: dtype is NULL or a NUL-terminated string.
        let d = meta::dtype_or_default(unsafe { string(dtype) });
        let bytes = meta::serialize(s, c, b, &d, dtype_format)?;
        store(smeta, malloc_bytes(&bytes, false)?)?;
        Ok(bytes.len())
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
    guarded(|| {
        let out = MetaOut::new(ndim, shape, chunkshape, blockshape, dtype, dtype_format)?;
        let smeta = nonnull(smeta)?;
        let len = usize::try_from(smeta_len).map_err(|_| Error::Failure)?;
        // SAFETY: smeta holds smeta_len bytes.
        let d = meta::deserialize_parts(unsafe { items(smeta, len) }, out.wants_dtype())?;
        // SAFETY: the output arrays hold B2ND_MAX_DIM values (b2nd.h).
        unsafe { out.write(&d) }?;
        Ok(d.len)
    })
}

/// The out-pointers of `b2nd_deserialize_meta`: the number of dimensions
/// and the three shapes (required), the dtype and its format (both given
/// or the dtype is not asked for).
struct MetaOut {
    ndim: *mut i8,
    shape: *mut i64,
    chunkshape: *mut i32,
    blockshape: *mut i32,
    dtype: *mut *mut c_char,
    dtype_format: *mut i8,
}

impl MetaOut {
    /// The out-pointers; NULL for one of the required ones is `NullPointer`.
    fn new(
        ndim: *mut i8,
        shape: *mut i64,
        chunkshape: *mut i32,
        blockshape: *mut i32,
        dtype: *mut *mut c_char,
        dtype_format: *mut i8,
    ) -> Result<MetaOut> {
        let shapes = [shape as *const c_void, chunkshape.cast(), blockshape.cast()];
        if ndim.is_null() || shapes.iter().any(|p| p.is_null()) {
            return Err(Error::NullPointer);
        }
        Ok(MetaOut {
            ndim,
            shape,
            chunkshape,
            blockshape,
            dtype,
            dtype_format,
        })
    }

    /// Whether the caller asked for the dtype.
    fn wants_dtype(&self) -> bool {
        !self.dtype.is_null() && !self.dtype_format.is_null()
    }

    /// Write what `d` decoded: the number of dimensions and the first ndim
    /// values of each shape, then, when asked for, the dtype format and a
    /// malloc'ed copy of the dtype (NULL for none) the caller frees.
    ///
    /// # Safety
    /// The shape pointers must be valid for writes of the ndim values.
    unsafe fn write(&self, d: &meta::Decoded) -> Result<()> {
        let g = &d.meta.geom;
        let nd = g.ndim();
        // SAFETY: guaranteed by the caller; ndim checked non-NULL by `new`.
        unsafe {
            *self.ndim = nd as i8;
            items_mut(self.shape, nd).copy_from_slice(&g.shape);
            items_mut(self.chunkshape, nd).copy_from_slice(&g.chunkshape);
            items_mut(self.blockshape, nd).copy_from_slice(&g.blockshape);
        }
        if self.wants_dtype() {
            store(self.dtype_format, d.meta.dtype_format)?;
            store_cstring(self.dtype, d.dtype())?;
        }
        Ok(())
    }
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_print_meta(array: *const b2nd_array_t) -> c_int {
    // SAFETY: array is NULL or live.
    unsafe {
        read_call(array, |sc, _| {
            let text = meta::describe(&array::read_meta(sc)?);
            let mut out = std::io::stdout().lock();
            // As the reference's printf, a failed write is not an error.
            let _ = out.write_all(text.as_bytes()).and_then(|_| out.flush());
            Ok(())
        })
    }
}

// ---------------------------------------------------------------- buffer copies

/// What `b2nd_copy_buffer` and `b2nd_copy_buffer2` share: copy a box of
/// the padded buffer `src` into `dst`; `boxes` are the source's padded
/// shape, start and stop, then the destination's padded shape and start.
/// 0 or an error code.
///
/// # Safety
/// The shape arrays must hold `ndim` values, the buffers their padded
/// shapes of `itemsize`-byte items, without overlapping.
unsafe fn copy_box_call(
    ndim: i8,
    itemsize: i32,
    src: *const c_void,
    dst: *mut c_void,
    boxes: [*const i64; 5],
) -> c_int {
    guarded_rc(|| {
        let (nd, ts) = copy::copy_args(ndim, itemsize)?;
        // SAFETY: the shape arrays hold ndim values.
        let [sp, s0, s1, dp, d0] = unsafe { dims_all(nd, boxes) }?;
        let Some((src_len, dst_len)) = copy::box_extents(ts, sp, s0, s1, dp, d0)? else {
            return Ok(());
        };
        // SAFETY: the buffers hold their padded shapes, of which the boxes
        // (the extents from the start) are touched; they do not overlap.
        let sb = unsafe { caller_buffer(src, src_len as i64) }?;
        // SAFETY: as above.
        let db = unsafe { caller_buffer_mut(dst, dst_len as i64) }?;
        copy::copy_box(ts, sb, sp, s0, s1, db, dp, d0)
    })
}

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
    let boxes = [src_pad_shape, src_start, src_stop, dst_pad_shape, dst_start];
    // SAFETY: forwarded contract.
    unsafe { copy_box_call(ndim, itemsize, src, dst, boxes) }
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
    let boxes = [src_pad_shape, src_start, src_stop, dst_pad_shape, dst_start];
    // SAFETY: forwarded contract.
    unsafe { copy_box_call(ndim, itemsize.into(), src, dst, boxes) }
}
