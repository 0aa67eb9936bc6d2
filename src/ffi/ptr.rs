//! The one place where the C layer turns raw pointers into Rust values:
//! slices from a pointer and a length, C strings, malloc'ed copies handed to
//! C (which frees them with `free()`), and out-pointers.
//!
//! Every function that reads through a pointer is `unsafe` and states what
//! the caller must guarantee; the C functions call these once and then work
//! on slices.

use crate::error::{Error, Result};
use once_cell::sync::Lazy;
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_void};
use std::sync::Mutex;

/// `len` bytes at `p`, whatever `p` points at (empty for NULL or 0).
///
/// # Safety
/// A non-NULL `p` must be valid for reads of `len` bytes for `'a`.
pub(crate) unsafe fn bytes<'a, T>(p: *const T, len: usize) -> &'a [u8] {
    // SAFETY: guaranteed by the caller.
    unsafe { items(p as *const u8, len) }
}

/// `len` writable bytes at `p` (empty for NULL or 0).
///
/// # Safety
/// A non-NULL `p` must be valid for writes of `len` bytes for `'a`, and not
/// be read or written through another pointer meanwhile.
pub(crate) unsafe fn bytes_mut<'a, T>(p: *mut T, len: usize) -> &'a mut [u8] {
    // SAFETY: guaranteed by the caller.
    unsafe { items_mut(p as *mut u8, len) }
}

/// `n` values at `p` (empty for NULL or 0).
///
/// # Safety
/// A non-NULL `p` must be valid for reads of `n` values for `'a`.
pub(crate) unsafe fn items<'a, T>(p: *const T, n: usize) -> &'a [T] {
    if p.is_null() || n == 0 {
        &[]
    } else {
        // SAFETY: guaranteed by the caller.
        unsafe { std::slice::from_raw_parts(p, n) }
    }
}

/// `n` writable values at `p` (empty for NULL or 0).
///
/// # Safety
/// As [`bytes_mut`], for `n` values.
pub(crate) unsafe fn items_mut<'a, T>(p: *mut T, n: usize) -> &'a mut [T] {
    if p.is_null() || n == 0 {
        &mut []
    } else {
        // SAFETY: guaranteed by the caller.
        unsafe { std::slice::from_raw_parts_mut(p, n) }
    }
}

/// The `n` buffers of a C list given as an array of pointers and an array
/// of sizes: a NULL pointer or a size of 0 or less gives an empty buffer.
///
/// # Safety
/// `ptrs` and `sizes` must be NULL or hold `n` values each, and each
/// non-NULL pointer must be valid for reads of its size for `'a`.
pub(crate) unsafe fn buffer_list<'a, T>(
    ptrs: *const *const T,
    sizes: *const i32,
    n: usize,
) -> Vec<&'a [u8]> {
    // SAFETY: guaranteed by the caller.
    let (ptrs, sizes) = unsafe { (items(ptrs, n), items(sizes, n)) };
    ptrs.iter()
        .zip(sizes)
        // SAFETY: guaranteed by the caller.
        .map(|(&p, &s)| unsafe { bytes(p, s.max(0) as usize) })
        .collect()
}

/// A required buffer argument whose length the engine decides: NULL is
/// `InvalidParam`; otherwise a function giving the first `len` bytes at `p`.
///
/// # Safety
/// `p` must be valid for writes of the length the function is called with,
/// for `'a`, and not be used through another pointer meanwhile.
pub(crate) unsafe fn sized_buffer_mut<'a, T>(
    p: *mut T,
) -> Result<impl FnOnce(usize) -> &'a mut [u8]> {
    if p.is_null() {
        return Err(Error::InvalidParam);
    }
    // SAFETY: guaranteed by the caller.
    Ok(move |len| unsafe { bytes_mut(p, len) })
}

/// As [`sized_buffer_mut`], for reading.
///
/// # Safety
/// `p` must be valid for reads of the length the function is called with,
/// for `'a`.
pub(crate) unsafe fn sized_buffer<'a, T>(p: *const T) -> Result<impl FnOnce(usize) -> &'a [u8]> {
    if p.is_null() {
        return Err(Error::InvalidParam);
    }
    // SAFETY: guaranteed by the caller.
    Ok(move |len| unsafe { bytes(p, len) })
}

/// `n` values at `p`, which may be NULL only when `n` is 0.
///
/// # Safety
/// As [`items`].
pub(crate) unsafe fn required_items<'a, T>(p: *const T, n: usize) -> Result<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: guaranteed by the caller.
    Ok(unsafe { items(p, n) })
}

/// A caller's buffer of `len` bytes given as a signed length: a negative
/// length is `InvalidParam`, a NULL pointer `NullPointer` (even for 0).
///
/// # Safety
/// As [`bytes_mut`].
pub(crate) unsafe fn caller_buffer_mut<'a, T>(p: *mut T, len: i64) -> Result<&'a mut [u8]> {
    let len = usize::try_from(len).map_err(|_| Error::InvalidParam)?;
    if p.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: guaranteed by the caller.
    Ok(unsafe { bytes_mut(p, len) })
}

/// As [`caller_buffer_mut`], for reading.
///
/// # Safety
/// As [`bytes`].
pub(crate) unsafe fn caller_buffer<'a, T>(p: *const T, len: i64) -> Result<&'a [u8]> {
    let len = usize::try_from(len).map_err(|_| Error::InvalidParam)?;
    if p.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: guaranteed by the caller.
    Ok(unsafe { bytes(p, len) })
}

/// The C string at `p` (None for NULL).
///
/// # Safety
/// A non-NULL `p` must point at a NUL-terminated string that lives for `'a`.
pub(crate) unsafe fn c_str<'a>(p: *const c_char) -> Option<&'a CStr> {
    if p.is_null() {
        None
    } else {
        // SAFETY: guaranteed by the caller.
        Some(unsafe { CStr::from_ptr(p) })
    }
}

/// The C string at `p` as an owned string, invalid UTF-8 replaced (None for NULL).
///
/// # Safety
/// As [`c_str`].
pub(crate) unsafe fn string(p: *const c_char) -> Option<String> {
    // SAFETY: guaranteed by the caller.
    unsafe { c_str(p) }.map(|s| s.to_string_lossy().into_owned())
}

/// A required string argument: NULL is `InvalidParam`.
///
/// # Safety
/// As [`c_str`].
pub(crate) unsafe fn string_arg(p: *const c_char) -> Result<String> {
    // SAFETY: guaranteed by the caller.
    unsafe { string(p) }.ok_or(Error::InvalidParam)
}

/// A NUL-terminated copy of `s` that lives as long as the process, for the
/// functions that return `const char *` the caller must not free. Equal
/// strings share one copy, so the cache stays as small as the set of names.
pub(crate) fn static_cstr(s: &str) -> *const c_char {
    static CACHE: Lazy<Mutex<Vec<CString>>> = Lazy::new(|| Mutex::new(Vec::new()));
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(c) = cache.iter().find(|c| c.to_str().ok() == Some(s)) {
        return c.as_ptr();
    }
    let c = CString::new(s).unwrap_or_default();
    let p = c.as_ptr();
    cache.push(c);
    p
}

/// A malloc'ed copy of `b`, with a NUL byte after it when `nul`, that the C
/// caller frees with `free()`.
pub(crate) fn malloc_bytes(b: &[u8], nul: bool) -> Result<*mut u8> {
    let n = b.len() + usize::from(nul);
    // SAFETY: malloc of at least one byte; the result is checked.
    let p = unsafe { libc::malloc(n.max(1)) } as *mut u8;
    if p.is_null() {
        return Err(Error::MemoryAlloc);
    }
    // SAFETY: p holds n >= b.len() (+1 with nul) bytes and does not overlap b.
    unsafe {
        std::ptr::copy_nonoverlapping(b.as_ptr(), p, b.len());
        if nul {
            *p.add(b.len()) = 0;
        }
    }
    Ok(p)
}

/// A malloc'ed copy of `b` (NULL when malloc fails), freed by C with `free()`.
pub(crate) fn malloc_copy(b: &[u8]) -> *mut u8 {
    malloc_bytes(b, false).unwrap_or(std::ptr::null_mut())
}

/// A malloc'ed copy of the values `v` that the C caller frees with
/// `free()`, NULL when `v` is empty; `MemoryAlloc` when malloc fails.
pub(crate) fn malloc_nonempty<T: Copy>(v: &[T]) -> Result<*mut T> {
    if v.is_empty() {
        return Ok(std::ptr::null_mut());
    }
    // SAFETY: malloc of the non-zero size of `v`; the result is checked.
    let p = unsafe { libc::malloc(std::mem::size_of_val(v)) } as *mut T;
    if p.is_null() {
        return Err(Error::MemoryAlloc);
    }
    // SAFETY: p holds v.len() values (malloc aligns for every fundamental
    // type) and does not overlap v.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p, v.len()) };
    Ok(p)
}

/// A calloc'ed byte buffer on its way to a C caller: freed on drop, unless
/// handed out with [`CBytes::into_raw`] (the caller then frees it with
/// `free()`).  The engine decodes straight into it, so nothing is copied,
/// and its pages stay untouched until written.
pub(crate) struct CBytes {
    p: *mut u8,
    len: usize,
}

impl CBytes {
    /// `len` zero bytes (at least one byte is asked for, so that the
    /// caller gets a pointer it can free), or `MemoryAlloc`.
    pub(crate) fn zeroed(len: usize) -> Result<CBytes> {
        // SAFETY: calloc of at least one byte; the result is checked.
        let p = unsafe { libc::calloc(len.max(1), 1) } as *mut u8;
        if p.is_null() {
            return Err(Error::MemoryAlloc);
        }
        Ok(CBytes { p, len })
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The buffer, for C to free with `free()`.
    pub(crate) fn into_raw(self) -> *mut u8 {
        let p = self.p;
        std::mem::forget(self);
        p
    }
}

impl AsMut<[u8]> for CBytes {
    fn as_mut(&mut self) -> &mut [u8] {
        // SAFETY: p holds len initialized (calloc'ed) bytes that only self
        // owns; the borrow of self keeps them from being freed or aliased.
        unsafe { std::slice::from_raw_parts_mut(self.p, self.len) }
    }
}

impl Drop for CBytes {
    fn drop(&mut self) {
        // SAFETY: p came from calloc and was not handed out (into_raw
        // forgets self).
        unsafe { libc::free(self.p as *mut c_void) };
    }
}

/// A calloc'ed `T` (freed by C with `free()`, like the reference's) made
/// by `make` from the all-zero `T`, handed to C through `out`: 0, or
/// `BLOSC2_ERROR_MEMORY_ALLOC`.
///
/// # Safety
/// All-zero bytes must be a valid `T`; `out` must be valid for one pointer.
pub(crate) unsafe fn calloc_out<T>(out: *mut *mut T, make: impl FnOnce(T) -> T) -> i32 {
    // SAFETY: calloc of one T; the result is checked.
    let p = unsafe { libc::calloc(1, std::mem::size_of::<T>()) } as *mut T;
    if p.is_null() {
        return Error::MemoryAlloc.code();
    }
    // SAFETY: p holds one zeroed T, valid as the caller guarantees; out is
    // valid for one pointer.
    unsafe {
        p.write(make(p.read()));
        *out = p;
    }
    0
}

/// A malloc'ed array of `v` in native order (NULL when malloc fails).
pub(crate) fn malloc_i64s(v: &[i64]) -> *mut i64 {
    let raw: Vec<u8> = v.iter().flat_map(|i| i.to_ne_bytes()).collect();
    malloc_copy(&raw) as *mut i64
}

/// Write `v` through a required out-pointer (NULL is `NullPointer`).
pub(crate) fn store<T>(out: *mut T, v: T) -> Result<()> {
    if out.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: a non-NULL out-parameter of the C API points at writable memory
    // for one value of its type.
    unsafe { out.write(v) };
    Ok(())
}

/// Hand C a malloc'ed NUL-terminated copy of `s`, which it frees with
/// `free()`, through an optional out-pointer: NULL for no string or when
/// malloc fails; nothing is copied for a NULL `out`.
pub(crate) fn store_opt_cstring(out: *mut *mut c_char, s: Option<&str>) {
    if store_cstring(out, s).is_err() {
        store_opt(out, std::ptr::null_mut());
    }
}

/// Hand C a malloc'ed NUL-terminated copy of `s` (NULL for no string),
/// which it frees with `free()`, through a required out-pointer: NULL is
/// `NullPointer`, a failed malloc `MemoryAlloc`.
pub(crate) fn store_cstring(out: *mut *mut c_char, s: Option<&str>) -> Result<()> {
    nonnull(out)?;
    let copy = s.map(|s| malloc_bytes(s.as_bytes(), true)).transpose()?;
    store(out, copy.map_or(std::ptr::null_mut(), |p| p as *mut c_char))
}

/// A required pointer argument: NULL is `NullPointer`.
pub(crate) fn nonnull<T>(p: *const T) -> Result<*const T> {
    if p.is_null() {
        Err(Error::NullPointer)
    } else {
        Ok(p)
    }
}

/// Write `v` through an optional out-pointer (nothing for NULL).
pub(crate) fn store_opt<T>(out: *mut T, v: T) {
    let _ = store(out, v);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_and_empty_pointers_give_empty_slices() {
        // SAFETY: NULL pointers are never dereferenced.
        unsafe {
            assert!(bytes(std::ptr::null::<u8>(), 10).is_empty());
            assert!(items_mut(std::ptr::null_mut::<i64>(), 3).is_empty());
            assert_eq!(
                required_items(std::ptr::null::<i64>(), 2),
                Err(Error::NullPointer)
            );
            assert!(required_items(std::ptr::null::<i64>(), 0)
                .unwrap()
                .is_empty());
            assert_eq!(
                caller_buffer_mut(std::ptr::null_mut::<u8>(), 0).map(|b| b.len()),
                Err(Error::NullPointer)
            );
            let mut x = [1u8, 2];
            assert_eq!(
                caller_buffer_mut(x.as_mut_ptr(), -1).map(|b| b.len()),
                Err(Error::InvalidParam)
            );
            assert_eq!(string_arg(std::ptr::null()), Err(Error::InvalidParam));
            assert!(sized_buffer_mut(std::ptr::null_mut::<u8>()).is_err());
            assert!(sized_buffer(std::ptr::null::<u8>()).is_err());
            assert_eq!(sized_buffer_mut(x.as_mut_ptr()).map(|f| f(1).len()), Ok(1));
            assert_eq!(string(c"abc".as_ptr()).as_deref(), Some("abc"));
            let (a, b) = (b"ab", b"xyz");
            let ptrs = [a.as_ptr(), std::ptr::null(), b.as_ptr(), a.as_ptr()];
            let list = buffer_list(ptrs.as_ptr(), [2, 5, 3, -1].as_ptr(), 4);
            assert_eq!(list, [&b"ab"[..], b"", b"xyz", b""]);
        }
    }

    #[test]
    fn malloc_copies_hold_the_bytes() {
        let p = malloc_bytes(b"xyz", true).unwrap();
        // SAFETY: p holds 4 bytes from malloc and is freed once.
        unsafe {
            assert_eq!(std::slice::from_raw_parts(p, 4), b"xyz\0");
            libc::free(p as *mut libc::c_void);
        }
        let mut c = CBytes::zeroed(3).unwrap();
        assert_eq!(c.as_mut(), [0, 0, 0]);
        c.as_mut()[1] = 9;
        assert_eq!(c.len(), 3);
        let out = c.into_raw();
        // SAFETY: out holds the 3 calloc'ed bytes handed out, freed once.
        unsafe {
            assert_eq!(std::slice::from_raw_parts(out, 3), [0, 9, 0]);
            libc::free(out as *mut libc::c_void);
        }
        // Dropped without being handed out: freed by Drop (valgrind and the
        // ASan build would report a leak or a double free).
        drop(CBytes::zeroed(0).unwrap());
        let q = malloc_i64s(&[7, -1]);
        // SAFETY: q holds two i64 from malloc and is freed once.
        unsafe {
            assert_eq!(std::slice::from_raw_parts(q, 2), &[7, -1]);
            libc::free(q as *mut libc::c_void);
        }
        let mut name = std::ptr::null_mut();
        store_opt_cstring(&mut name, Some("zstd"));
        // SAFETY: name is a malloc'ed C string, freed once.
        unsafe {
            assert_eq!(CStr::from_ptr(name).to_str(), Ok("zstd"));
            libc::free(name as *mut libc::c_void);
        }
        store_opt_cstring(&mut name, None);
        assert!(name.is_null());
        assert_eq!(store_cstring(&mut name, Some("lz4")), Ok(()));
        // SAFETY: name is a malloc'ed C string, freed once.
        unsafe {
            assert_eq!(CStr::from_ptr(name).to_str(), Ok("lz4"));
            libc::free(name as *mut libc::c_void);
        }
        assert_eq!(store_cstring(&mut name, None), Ok(()));
        assert!(name.is_null());
        let no_out = std::ptr::null_mut();
        assert_eq!(store_cstring(no_out, None), Err(Error::NullPointer));
        assert_eq!(nonnull(std::ptr::null::<u8>()), Err(Error::NullPointer));
        assert_eq!(nonnull(&0u8 as *const u8).map(|p| p.is_null()), Ok(false));
        store_opt_cstring(std::ptr::null_mut(), Some("x"));
        assert_eq!(static_cstr("same"), static_cstr("same"));
        assert!(malloc_nonempty::<i64>(&[]).unwrap().is_null());
        let r = malloc_nonempty(&[3i64, 4]).unwrap();
        // SAFETY: r holds two i64 from malloc and is freed once.
        unsafe {
            assert_eq!(std::slice::from_raw_parts(r, 2), &[3, 4]);
            libc::free(r as *mut libc::c_void);
        }
    }
}
