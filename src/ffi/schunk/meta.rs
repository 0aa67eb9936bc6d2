//! Metalayers and variable-length metalayers.

use super::*;

/// What the four calls that write a metalayer share: check the name and
/// the content, write through the engine, make the public metalayer fields
/// true again. `cparams` is the vlmetalayer argument (NULL: the defaults).
///
/// # Safety
/// `schunk` as for [`mutate`]; `name` NULL or a C string; `content` valid for
/// `content_len` bytes; a `cparams` pointer NULL or valid.
unsafe fn write_meta(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut u8,
    content_len: i32,
    cparams: Option<*mut blosc2_cparams>,
    write: impl FnOnce(&mut SuperChunk, &str, &[u8], Option<&CParams>) -> Result<usize>,
) -> c_int {
    let call = |h: &mut Holder| {
        // SAFETY: guaranteed by the caller.
        let name = unsafe { string_arg(name) }?;
        if content_len < 0 || (content.is_null() && content_len > 0) {
            return Err(Error::InvalidParam);
        }
        let cp = match cparams {
            Some(c) => vlmeta_cparams(c)?,
            None => None,
        };
        // SAFETY: content holds content_len bytes.
        let c = unsafe { bytes(content, content_len as usize) };
        let r = write(&mut h.sc, &name, c, cp.as_ref()).map(|i| i as c_int);
        h.sync_all();
        h.c.change_tick += 1;
        r
    };
    // SAFETY: guaranteed by the caller.
    unsafe { mutate(schunk, call) }
}

/// One exported metalayer writer: `$name(schunk, name, content,
/// content_len)` (and `cparams` for the variable-length ones) runs the
/// super-chunk's `$method` through [`write_meta`].
macro_rules! meta_write_export {
    ($name:ident, $method:ident) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            schunk: *mut blosc2_schunk,
            name: *const c_char,
            content: *mut u8,
            content_len: i32,
        ) -> c_int {
            // SAFETY: pointers as documented in blosc2.h.
            unsafe {
                write_meta(schunk, name, content, content_len, None, |sc, n, c, _| {
                    sc.$method(n, c)
                })
            }
        }
    };
    ($name:ident, $method:ident, cparams) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            schunk: *mut blosc2_schunk,
            name: *const c_char,
            content: *mut u8,
            content_len: i32,
            cparams: *mut blosc2_cparams,
        ) -> c_int {
            // SAFETY: pointers as documented in blosc2.h.
            unsafe {
                write_meta(
                    schunk,
                    name,
                    content,
                    content_len,
                    Some(cparams),
                    |sc, n, c, cp| sc.$method(n, c, cp),
                )
            }
        }
    };
}

meta_write_export!(blosc2_meta_add, meta_add);
meta_write_export!(blosc2_meta_update, meta_update);
meta_write_export!(blosc2_vlmeta_add, vlmeta_add, cparams);
meta_write_export!(blosc2_vlmeta_update, vlmeta_update, cparams);

#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_exists(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
) -> c_int {
    let call = |h: &mut Access<'_>| {
        // SAFETY: C strings passed to the API are NUL-terminated.
        let Ok(name) = (unsafe { string_arg(name) }) else {
            return Error::InvalidParam.code();
        };
        crate::ffi::code(h.sc.vlmeta_exists(&name))
    };
    // SAFETY: a super-chunk pointer from this library.
    unsafe { reading_with(schunk, |_| Error::InvalidParam, call) }
}

pub(super) fn vlmeta_cparams(cparams: *mut blosc2_cparams) -> Result<Option<CParams>> {
    // SAFETY: NULL or a valid blosc2_cparams, as documented.
    match unsafe { cparams.as_ref() } {
        None => Ok(None),
        Some(c) => cparams_from_c(c, true).map(Some).ok_or(Error::NullPointer),
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_get(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut *mut u8,
    content_len: *mut i32,
) -> c_int {
    if content.is_null() || content_len.is_null() {
        return Error::InvalidParam.code();
    }
    let call = |h: &mut Access<'_>| {
        // SAFETY: C strings passed to the API are NUL-terminated.
        let Ok(name) = (unsafe { string_arg(name) }) else {
            return Error::InvalidParam.code();
        };
        match h.sc.vlmeta_get(&name) {
            Ok((i, v)) => {
                let p = if v.is_empty() {
                    std::ptr::null_mut()
                } else {
                    malloc_copy(&v)
                };
                if !v.is_empty() && p.is_null() {
                    return Error::MemoryAlloc.code();
                }
                // SAFETY: out-pointers checked above.
                unsafe {
                    *content = p;
                    *content_len = v.len() as i32;
                }
                i as c_int
            }
            Err(e) => e.code(),
        }
    };
    // SAFETY: a super-chunk pointer from this library.
    unsafe { reading_with(schunk, |_| Error::InvalidParam, call) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_delete(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
) -> c_int {
    // SAFETY: pointers as documented in blosc2.h.
    unsafe {
        mutate(schunk, |h| {
            let name = string_arg(name)?;
            let r = h.sc.vlmeta_delete(&name).map(|n| n as c_int);
            h.sync_all();
            h.c.change_tick += 1;
            r
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_get_names(
    schunk: *mut blosc2_schunk,
    names: *mut *mut c_char,
) -> c_int {
    let call = |h: &mut Access<'_>| {
        if names.is_null() && !h.vlmetas.is_empty() {
            return Error::NullPointer.code();
        }
        for (i, m) in h.vlmetas.iter().enumerate() {
            // SAFETY: `names` has room for nvlmetalayers entries (blosc2.h).
            unsafe { *names.add(i) = m.c.name };
        }
        h.vlmetas.len() as c_int
    };
    // SAFETY: a super-chunk pointer from this library.
    unsafe { reading(schunk, call) }
}
