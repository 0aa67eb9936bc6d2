//! Conversions between flat and multidimensional item indexes.

use super::*;

#[no_mangle]
pub unsafe extern "C" fn blosc2_unidim_to_multidim(
    ndim: u8,
    shape: *mut i64,
    i: i64,
    index: *mut i64,
) {
    guard((), || {
        if shape.is_null() || index.is_null() || ndim == 0 {
            return;
        }
        let n = ndim as usize;
        // SAFETY: both arrays hold ndim entries (API contract).
        let (shape, index) = unsafe { (items(shape, n), items_mut(index, n)) };
        let mut strides = vec![1i64; n];
        for d in (0..n - 1).rev() {
            strides[d] = shape[d + 1].wrapping_mul(strides[d + 1]);
        }
        index[0] = if strides[0] == 0 { 0 } else { i / strides[0] };
        for d in 1..n {
            index[d] = if strides[d - 1] == 0 || strides[d] == 0 {
                0
            } else {
                (i % strides[d - 1]) / strides[d]
            };
        }
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
        if i.is_null() {
            return;
        }
        if ndim <= 0 {
            // SAFETY: i is valid for one value.
            unsafe { *i = 0 };
            return;
        }
        if index.is_null() || strides.is_null() {
            return;
        }
        let n = ndim as usize;
        // SAFETY: arrays hold ndim entries; i is valid for one value.
        unsafe {
            let (idx, st) = (items(index, n), items(strides, n));
            *i = idx
                .iter()
                .zip(st)
                .fold(0i64, |acc, (a, b)| acc.wrapping_add(a.wrapping_mul(*b)));
        }
    })
}
