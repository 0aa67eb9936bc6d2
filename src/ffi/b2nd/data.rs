//! b2nd.h: moving items between arrays and C buffers (whole arrays, boxes,
//! sparse and orthogonal selections) and changing an array's shape.
#![allow(clippy::missing_safety_doc)]

use super::*;

// ---------------------------------------------------------------- buffers

#[no_mangle]
pub unsafe extern "C" fn b2nd_from_cbuffer(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
    buffer: *const c_void,
    buffersize: i64,
) -> c_int {
    guarded_rc(|| {
        // SAFETY: ctx is NULL or a live context.
        let c = unsafe { ctx_ref(ctx) }?;
        if array.is_null() || buffer.is_null() {
            return Err(Error::NullPointer);
        }
        let need = c.params.buffer_nbytes(c.cparams.typesize, buffersize)?;
        // SAFETY: buffer holds buffersize >= need bytes.
        let data = unsafe { caller_buffer(buffer, need) }?;
        let fill = |sc: &mut SuperChunk, m: &mut ArrayMeta| array::from_buffer(sc, &m.geom, data);
        // SAFETY: the new array is live and ours alone.
        let a = new_filled(c, &[], |a| unsafe { write(a, fill) })?;
        store(array, a)
    })
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_to_cbuffer(
    array: *const b2nd_array_t,
    buffer: *mut c_void,
    buffersize: i64,
) -> c_int {
    // SAFETY: array is NULL or ours; buffer holds buffersize bytes.
    unsafe {
        read_call(array, |sc, m| {
            let out = output_for(buffer, buffersize, m.geom.nitems, sc.typesize())?;
            array::get_all(sc, &m.geom, out)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_get_sparse_cbuffer(
    array: *const b2nd_array_t,
    ncoords: i64,
    coords: *const i64,
    buffer: *mut c_void,
    buffersize: i64,
) -> c_int {
    // SAFETY: array is NULL or ours; coords and buffer hold what the
    // arguments say.
    unsafe {
        read_call(array, |sc, m| {
            let Some(n) = select::sparse_count(ncoords)? else {
                return Ok(());
            };
            let coords = required_items(coords, n)?;
            let out = output_for(buffer, buffersize, ncoords, sc.typesize())?;
            select::get_sparse(sc, &m.geom, coords, out)
        })
    }
}

/// The caller's buffer for `nitems` items of `typesize` bytes (a smaller
/// one is `InvalidParam`).
///
/// # Safety
/// As [`caller_buffer_mut`].
unsafe fn output_for<'a>(
    buffer: *mut c_void,
    buffersize: i64,
    nitems: i64,
    typesize: i32,
) -> Result<&'a mut [u8]> {
    array::buffer_nbytes(nitems, typesize, buffersize)?;
    // SAFETY: guaranteed by the caller.
    unsafe { caller_buffer_mut(buffer, buffersize) }
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_get_slice_cbuffer(
    array: *const b2nd_array_t,
    start: *const i64,
    stop: *const i64,
    buffer: *mut c_void,
    buffershape: *const i64,
    buffersize: i64,
) -> c_int {
    // SAFETY: array is NULL or ours; the box arrays hold ndim values and
    // buffer holds buffersize bytes (b2nd.h).
    unsafe {
        read_call(array, |sc, m| {
            let [s0, s1, bs] = dims_all(m.geom.ndim(), [start, stop, buffershape])?;
            let out = caller_buffer_mut(buffer, buffersize)?;
            array::get_slice(sc, &m.geom, s0, s1, out, bs)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_set_slice_cbuffer(
    buffer: *const c_void,
    buffershape: *const i64,
    buffersize: i64,
    start: *const i64,
    stop: *const i64,
    array: *mut b2nd_array_t,
) -> c_int {
    // SAFETY: as in b2nd_get_slice_cbuffer.
    unsafe {
        write_call(array, |sc, m| {
            let [s0, s1, bs] = dims_all(m.geom.ndim(), [start, stop, buffershape])?;
            let data = caller_buffer(buffer, buffersize)?;
            array::set_slice(sc, &m.geom, s0, s1, data, bs)
        })
    }
}

// ---------------------------------------------------------------- shape changes

#[no_mangle]
pub unsafe extern "C" fn b2nd_resize(
    array: *mut b2nd_array_t,
    new_shape: *const i64,
    start: *const i64,
) -> c_int {
    // SAFETY: array is NULL or live; the shapes hold ndim values.
    unsafe {
        write_call(array, |sc, m| {
            let nd = m.geom.ndim();
            let ns = dims(new_shape, nd)?;
            let st = (!start.is_null()).then(|| dims(start, nd)).transpose()?;
            reshape::resize(sc, m, ns, st)
        })
    }
}

/// What `b2nd_insert` and `b2nd_append` share: the items in `buffer` go in
/// along `axis` from `start` (`None`: at the end of that axis).
///
/// # Safety
/// `array` NULL or live; `buffer` valid for `buffersize` bytes when non-NULL.
unsafe fn insert_items(
    array: *mut b2nd_array_t,
    buffer: *const c_void,
    buffersize: i64,
    axis: i8,
    start: Option<i64>,
) -> c_int {
    let call = |sc: &mut SuperChunk, m: &mut ArrayMeta| {
        // SAFETY: guaranteed by the caller.
        let data = unsafe { caller_buffer(buffer, buffersize) }?;
        let axis = axis_arg(axis)?;
        match start {
            Some(at) => reshape::insert(sc, m, data, axis, at),
            None => reshape::append(sc, m, data, axis),
        }
    };
    // SAFETY: guaranteed by the caller.
    unsafe { write_call(array, call) }
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_insert(
    array: *mut b2nd_array_t,
    buffer: *const c_void,
    buffersize: i64,
    axis: i8,
    insert_start: i64,
) -> c_int {
    // SAFETY: array is NULL or live; buffer holds buffersize bytes.
    unsafe { insert_items(array, buffer, buffersize, axis, Some(insert_start)) }
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_append(
    array: *mut b2nd_array_t,
    buffer: *const c_void,
    buffersize: i64,
    axis: i8,
) -> c_int {
    // SAFETY: array is NULL or live; buffer holds buffersize bytes.
    unsafe { insert_items(array, buffer, buffersize, axis, None) }
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_delete(
    array: *mut b2nd_array_t,
    axis: i8,
    delete_start: i64,
    delete_len: i64,
) -> c_int {
    // SAFETY: array is NULL or live.
    unsafe {
        write_call(array, |sc, m| {
            let axis = axis_arg(axis)?;
            reshape::delete(sc, m, axis, delete_start, delete_len)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_refresh(array: *mut b2nd_array_t) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: array is NULL or live.
        match unsafe { holder(array) }.and_then(follow) {
            Ok(changed) => c_int::from(changed),
            Err(e) => e.code(),
        }
    })
}

// ---------------------------------------------------------------- selections

/// The per-dimension index lists of an orthogonal selection.
///
/// # Safety
/// `selection` and `sizes` must hold `nd` entries, each list its size.
unsafe fn selection_lists<'a>(
    selection: *mut *mut i64,
    sizes: *mut i64,
    nd: usize,
) -> Result<Vec<&'a [i64]>> {
    // SAFETY: guaranteed by the caller.
    let (lists, sizes) = unsafe {
        (
            required_items(selection as *const *mut i64, nd)?,
            required_items(sizes as *const i64, nd)?,
        )
    };
    let mut out = Vec::with_capacity(nd);
    for (p, &n) in lists.iter().zip(sizes) {
        let n = usize::try_from(n).map_err(|_| Error::InvalidParam)?;
        if p.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: each list holds its size.
        out.push(unsafe { required_items(*p as *const i64, n)? });
    }
    Ok(out)
}

/// The index lists and buffer shape of an orthogonal selection of the
/// array `m` of `sc`; the reference refuses buffers larger than the
/// selection.
///
/// # Safety
/// As [`selection_lists`]; `buffershape` must hold `ndim` values when non-NULL.
unsafe fn orthogonal_args<'a>(
    sc: &SuperChunk,
    m: &ArrayMeta,
    selection: *mut *mut i64,
    sizes: *mut i64,
    buffershape: *mut i64,
    buffersize: i64,
) -> Result<(Vec<&'a [i64]>, &'a [i64])> {
    let nd = m.geom.ndim();
    // SAFETY: guaranteed by the caller.
    let sel = unsafe { selection_lists(selection, sizes, nd) }?;
    select::check_buffer_size(sc.typesize(), &sel, buffersize)?;
    // SAFETY: guaranteed by the caller.
    let bs = unsafe { dims(buffershape, nd) }?;
    Ok((sel, bs))
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_get_orthogonal_selection(
    array: *const b2nd_array_t,
    selection: *mut *mut i64,
    selection_size: *mut i64,
    buffer: *mut c_void,
    buffershape: *mut i64,
    buffersize: i64,
) -> c_int {
    // SAFETY: array is NULL or live; the other arguments hold what
    // b2nd.h says.
    unsafe {
        read_call(array, |sc, m| {
            let (sel, bs) =
                orthogonal_args(sc, m, selection, selection_size, buffershape, buffersize)?;
            let out = caller_buffer_mut(buffer, buffersize)?;
            select::get_orthogonal(sc, &m.geom, &sel, out, bs)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_set_orthogonal_selection(
    array: *mut b2nd_array_t,
    selection: *mut *mut i64,
    selection_size: *mut i64,
    buffer: *const c_void,
    buffershape: *mut i64,
    buffersize: i64,
) -> c_int {
    // SAFETY: as in b2nd_get_orthogonal_selection.
    unsafe {
        write_call(array, |sc, m| {
            let (sel, bs) =
                orthogonal_args(sc, m, selection, selection_size, buffershape, buffersize)?;
            let data = caller_buffer(buffer, buffersize)?;
            select::set_orthogonal(sc, &m.geom, &sel, data, bs)
        })
    }
}
