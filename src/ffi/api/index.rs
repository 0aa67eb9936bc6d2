//! Conversions between flat and multidimensional item indexes.

use super::*;
use crate::b2nd::geometry;

#[no_mangle]
pub unsafe extern "C" fn blosc2_unidim_to_multidim(
    ndim: u8,
    shape: *mut i64,
    i: i64,
    index: *mut i64,
) {
    guard((), || {
        if shape.is_null() || index.is_null() {
            return;
        }
        let n = ndim as usize;
        // SAFETY: both arrays hold ndim entries (API contract).
        let (shape, index) = unsafe { (items(shape, n), items_mut(index, n)) };
        geometry::from_linear_strided(shape, i, index);
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_multidim_to_unidim(
    index: *const i64,
    ndim: i8,
    strides: *const i64,
    i: *mut i64,
) {
    guard((), || {
        if i.is_null() || (ndim > 0 && (index.is_null() || strides.is_null())) {
            return;
        }
        let n = ndim.max(0) as usize;
        // SAFETY: arrays hold ndim entries; i is valid for one value.
        unsafe { *i = geometry::to_linear(items(index, n), items(strides, n)) };
    })
}
