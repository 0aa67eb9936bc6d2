//! b2nd.h: new arrays made from arrays (slices, copies, concatenations and
//! arrays with unit dimensions added or removed).
#![allow(clippy::missing_safety_doc)]

use super::*;
use crate::b2nd::params::CopyWay;
use crate::b2nd::reshape::concatenate_from;

// ---------------------------------------------------------------- new arrays from arrays

/// Copy the items of `src` at `offset` into the new array `dst`.
unsafe fn fill_from(
    src: *const b2nd_array_t,
    offset: &[i64],
    dst: *mut b2nd_array_t,
) -> Result<()> {
    // SAFETY: both are live arrays of this library (dst just made).
    unsafe {
        let s = holder(src)?;
        let (ssc, sg) = (s.c.sc, s.meta.geom.clone());
        with_source(ssc, dst, |from, d, dm| {
            let from = from.ok_or(Error::InvalidParam)?;
            reshape::copy_into(from, &sg, offset, d, &dm.geom)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_get_slice(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
    src: *const b2nd_array_t,
    start: *const i64,
    stop: *const i64,
) -> c_int {
    guarded_rc(|| {
        // SAFETY: ctx/src are NULL or live; start/stop hold ndim values.
        let (c, s) = unsafe { (ctx_ref(ctx)?, holder(src)?) };
        if array.is_null() {
            return Err(Error::NullPointer);
        }
        let g = &s.meta.geom;
        // SAFETY: as above.
        let [s0, s1] = unsafe { dims_all(g.ndim(), [start, stop]) }?;
        c.change_params(|p, ts| p.set_box_shape(g, s0, s1, ts, s.c_typesize()))?;
        // SAFETY: src is live, the new array ours alone.
        let a = new_filled(c, &[], |a| unsafe { fill_from(src, s0, a) })?;
        store(array, a)
    })
}

impl ArrayHolder {
    fn c_typesize(&self) -> i32 {
        // SAFETY: sc is the live super-chunk of this array.
        unsafe { self.c.sc.as_ref() }.map_or(0, |s| s.typesize)
    }

    /// The fixed metalayers other than "b2nd" (see [`array::extra_metalayers`]).
    fn other_metas(&self) -> Result<Vec<(String, Vec<u8>)>> {
        // SAFETY: sc is ours.
        unsafe { with_engine(self.c.sc, false, |sc| Ok(array::extra_metalayers(sc))) }
    }
}

/// Copy every vlmetalayer of `src` into `dst`.
///
/// # Safety
/// Both must be live super-chunks of this library.
unsafe fn copy_vlmetas(src: *mut blosc2_schunk, dst: *mut blosc2_schunk) -> Result<()> {
    // SAFETY: guaranteed by the caller.
    let items = unsafe { with_engine(src, false, |s| array::vlmetalayers(s)) }?;
    // SAFETY: guaranteed by the caller.
    unsafe { with_engine(dst, true, |d| array::add_vlmetalayers(d, &items)) }
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_copy(
    ctx: *mut b2nd_context_t,
    src: *const b2nd_array_t,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: forwarded contract.
        rc(unsafe { copy_array(ctx, src) }.and_then(|a| store(array, a)))
    })
}

/// `b2nd_copy` without the out-parameter.
unsafe fn copy_array(
    ctx: *mut b2nd_context_t,
    src: *const b2nd_array_t,
) -> Result<*mut b2nd_array_t> {
    // SAFETY: ctx/src are NULL or live.
    let (c, s) = unsafe { (ctx_ref(ctx)?, holder(src)?) };
    let g = s.meta.geom.clone();
    if c.params.copy_way(&g, c.cparams.typesize, s.c_typesize())? == CopyWay::Chunks {
        let (mut cp, mut dp) = (cparams_defaults(), dparams_defaults());
        let mut st = c.storage(&mut cp, &mut dp);
        // SAFETY: storage and super-chunk are valid for the call; the copy
        // is ours.
        return unsafe { adopted(blosc2_schunk_copy(s.c.sc, &mut st)) };
    }
    let extra = s.other_metas()?;
    c.change_params(|p, _| p.set_shape(&g.shape))?;
    let zero = vec![0i64; g.ndim()];
    // SAFETY: src is live, the new array ours alone.
    new_filled(c, &extra, |a| unsafe {
        fill_from(src, &zero, a)?;
        copy_vlmetas(s.c.sc, holder(a)?.c.sc)
    })
}

/// The array a change of `src` ends in: `src` itself changed in place,
/// or, with `copy`, a new copy of it made with `ctx` (see `b2nd_copy`),
/// changed, and freed again when `change` fails.
///
/// # Safety
/// `ctx` must be NULL or live, `src` a live array of this library.
unsafe fn changed_in_place_or_copy(
    ctx: *mut b2nd_context_t,
    src: *const b2nd_array_t,
    copy: bool,
    change: impl FnOnce(*mut b2nd_array_t) -> Result<()>,
) -> Result<*mut b2nd_array_t> {
    if !copy {
        let dst = src as *mut b2nd_array_t;
        return change(dst).map(|()| dst);
    }
    // SAFETY: guaranteed by the caller.
    let a = unsafe { copy_array(ctx, src) }?;
    let r = change(a);
    // SAFETY: the copy was just made and nobody else holds it.
    unsafe { kept_or_freed(a, r) }
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_concatenate(
    ctx: *mut b2nd_context_t,
    src1: *const b2nd_array_t,
    src2: *const b2nd_array_t,
    axis: i8,
    copy: bool,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    guarded_rc(|| {
        // SAFETY: sources are NULL or live arrays.
        let (a1, a2) = unsafe { (holder(src1)?, holder(src2)?) };
        nonnull(array)?;
        let (axis, g2) = (axis_arg(axis)?, a2.meta.geom.clone());
        reshape::check_concatenable(&a1.meta.geom, a1.c_typesize(), &g2, a2.c_typesize(), axis)?;
        // SAFETY: the array changed (src1 or its copy) and src2 are live
        // arrays of this library.
        let concatenate = |dst| unsafe {
            with_source(a2.c.sc, dst, |s, d, m| concatenate_from(d, m, s, &g2, axis))
        };
        // SAFETY: ctx is NULL or live; src1 is live (checked above).
        let dst = unsafe { changed_in_place_or_copy(ctx, src1, copy, concatenate) }?;
        store(array, dst)
    })
}

/// A new in-memory array with other unit dimensions sharing `src`'s items
/// (`b2nd_expand_dims`, `b2nd_squeeze_index`).
unsafe fn view(
    src: &ArrayHolder,
    shapes: (Vec<i64>, Vec<i32>, Vec<i32>),
) -> Result<*mut b2nd_array_t> {
    // SAFETY: src's super-chunk is ours.
    let (cp, dp, _) = unsafe {
        with_engine(src.c.sc, false, |sc| reshape::check_viewable(sc))?;
        c_params(src.c.sc)?
    };
    let params = ArrayParams::view_of(&src.meta, shapes);
    let mut ctx = b2nd_context_t::in_memory(cp, Some(dp), params);
    let sg = src.meta.geom.clone();
    // SAFETY: src and the new array are live and distinct.
    new_filled(&mut ctx, &[], |a| unsafe {
        with_source(src.c.sc, a, |s, d, m| {
            reshape::reshape_units(s.ok_or(Error::InvalidParam)?, &sg, d, &m.geom)
        })
        .and_then(|_| copy_vlmetas(src.c.sc, holder(a)?.c.sc))
    })
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_expand_dims(
    array: *const b2nd_array_t,
    view_out: *mut *mut b2nd_array_t,
    axis: *const bool,
    final_dims: u8,
) -> c_int {
    guarded_rc(|| {
        // SAFETY: array is NULL or live; axis holds final_dims values.
        let h = unsafe { holder(array)? };
        if view_out.is_null() || final_dims as usize > MAX_DIM {
            return Err(Error::InvalidParam);
        }
        // SAFETY: as above.
        let axis = unsafe { required_items(axis, final_dims as usize)? };
        let shapes = reshape::expanded(&h.meta.geom, axis).ok_or(Error::InvalidParam)?;
        // SAFETY: h is live.
        store(view_out, unsafe { view(h, shapes)? })
    })
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_squeeze_index(
    array: *mut b2nd_array_t,
    view_out: *mut *mut b2nd_array_t,
    index: *const bool,
) -> c_int {
    guarded_rc(|| {
        // SAFETY: array is NULL or live; index holds ndim values.
        let h = unsafe { holder(array)? };
        if view_out.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: as above.
        let index = unsafe { required_items(index, h.meta.geom.ndim())? };
        let shapes = reshape::squeezed(&h.meta.geom, index)?;
        // SAFETY: h is live.
        store(view_out, unsafe { view(h, shapes)? })
    })
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_squeeze(
    array: *mut b2nd_array_t,
    view_out: *mut *mut b2nd_array_t,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: array is NULL or live.
        let index: Vec<bool> = match unsafe { holder(array) } {
            Ok(h) => reshape::unit_dims(&h.meta.geom),
            Err(e) => return e.code(),
        };
        // SAFETY: index holds ndim values.
        unsafe { b2nd_squeeze_index(array, view_out, index.as_ptr()) }
    })
}
