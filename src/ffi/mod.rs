//! The C ABI of c-blosc2 3.3: every `#[no_mangle]` function lives under this module.
//!
//! Each function checks its pointers, turns them into slices, calls the engine and
//! maps the result to the reference's return convention. No panic crosses into C:
//! every body runs under `guard`.

pub mod api;
pub mod b2nd;
pub mod ctx;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod io;
pub mod plugins;
pub(crate) mod ptr;
pub mod schunk;
pub mod types;

use std::panic::{catch_unwind, AssertUnwindSafe};

/// Run `f`, turning a panic into `on_panic`.
pub(crate) fn guard<T>(on_panic: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(on_panic)
}

/// Run `f` under [`guard`] and map its result to the C convention (a panic
/// is `BLOSC2_ERROR_FAILURE`).
pub(crate) fn guarded(f: impl FnOnce() -> crate::Result<usize>) -> i32 {
    guard(crate::error::Error::Failure.code(), || code(f()))
}

/// Run `f` under [`guard`] for a function returning a pointer: an error
/// or a panic is NULL.
pub(crate) fn guarded_ptr<T>(f: impl FnOnce() -> crate::Result<*mut T>) -> *mut T {
    guard(std::ptr::null_mut(), || f().unwrap_or(std::ptr::null_mut()))
}

/// Map an engine result to the C convention (size or negative code).
pub(crate) fn code(r: crate::Result<usize>) -> i32 {
    match r {
        Ok(n) => n.min(i32::MAX as usize) as i32,
        Err(e) => e.code(),
    }
}
