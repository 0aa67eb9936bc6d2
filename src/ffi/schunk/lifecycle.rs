//! Making, opening, copying, serializing and freeing super-chunks.

use super::*;
use crate::schunk::urlpath;
use std::borrow::Cow;

/// The engine storage a C storage describes, its urlpath, and whether it
/// is contiguous (NULL: separate chunks in memory).
pub(super) fn storage_of(st: Option<&blosc2_storage>) -> Result<(Storage, Option<String>, bool)> {
    let Some(st) = st else {
        return Ok((Storage::Memory, None, false));
    };
    let url = if st.urlpath.is_null() {
        None
    } else {
        // SAFETY: a storage's non-NULL urlpath is a C string.
        Some(unsafe { string_arg(st.urlpath) }?)
    };
    let kind = Storage::from_urlpath(st.contiguous, url.as_deref());
    Ok((kind, url, st.contiguous))
}

/// The parameters and I/O backend a C storage names, the defaults for
/// those it leaves NULL (or for a NULL storage).
///
/// # Safety
/// The non-NULL pointers of `st` must point at valid structs.
unsafe fn storage_params(
    st: Option<&blosc2_storage>,
) -> (blosc2_cparams, blosc2_dparams, blosc2_io) {
    let Some(st) = st else {
        return (cparams_defaults(), dparams_defaults(), io_defaults());
    };
    // SAFETY: guaranteed by the caller.
    unsafe {
        (
            st.cparams
                .as_ref()
                .copied()
                .unwrap_or_else(cparams_defaults),
            st.dparams
                .as_ref()
                .copied()
                .unwrap_or_else(dparams_defaults),
            st.io.as_ref().copied().unwrap_or_else(io_defaults),
        )
    }
}

pub(super) fn io_defaults() -> blosc2_io {
    crate::ffi::api::blosc2_get_blosc2_io_defaults()
}

pub(super) fn engine_params(c: &blosc2_cparams, d: &blosc2_dparams) -> Option<(CParams, DParams)> {
    let cp = cparams_from_c(c, true)?;
    let dp = DParams {
        nthreads: d.nthreads,
        typesize: d.typesize,
        ..DParams::default()
    };
    Some((cp, dp))
}

/// C params describing an opened frame.
pub(super) fn c_params_of(sc: &SuperChunk) -> (blosc2_cparams, blosc2_dparams) {
    let mut c = cparams_defaults();
    c.compcode = sc.cparams.compcode;
    c.compcode_meta = sc.cparams.compcode_meta;
    c.clevel = sc.cparams.clevel;
    c.use_dict = c_int::from(sc.cparams.use_dict);
    c.typesize = sc.cparams.typesize;
    c.blocksize = sc.cparams.blocksize;
    c.splitmode = sc.cparams.splitmode as i32;
    c.filters = sc.cparams.filters;
    c.filters_meta = sc.cparams.filters_meta;
    c.nthreads = crate::ffi::api::blosc2_get_nthreads();
    let mut d = dparams_defaults();
    d.nthreads = c.nthreads;
    (c, d)
}

/// The C handle of an opened super-chunk, with C parameters describing it.
pub(super) fn wrap_opened(
    sc: SuperChunk,
    io: blosc2_io,
    url: Option<String>,
    contiguous: bool,
) -> *mut blosc2_schunk {
    let (c, d) = c_params_of(&sc);
    Holder::into_c(sc, c, d, io, url, contiguous)
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_new(storage: *mut blosc2_storage) -> *mut blosc2_schunk {
    guard(std::ptr::null_mut(), || {
        // SAFETY: storage is NULL or points at a blosc2_storage (blosc2.h).
        let st = unsafe { storage.as_ref() };
        // SAFETY: non-NULL parameter pointers in a storage point at valid structs.
        let (c, d, io) = unsafe { storage_params(st) };
        let made = storage_of(st).and_then(|(kind, url, contiguous)| {
            let (cp, dp) = engine_params(&c, &d).ok_or(Error::InvalidParam)?;
            let eio = crate::ffi::io::engine_io(&io)?;
            Ok((SuperChunk::new_with_io(cp, dp, kind, eio)?, url, contiguous))
        });
        match made {
            Ok((sc, url, contiguous)) => Holder::into_c(sc, c, d, io, url, contiguous),
            Err(_) => std::ptr::null_mut(),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_free(schunk: *mut blosc2_schunk) -> c_int {
    guard(0, || {
        if schunk.is_null() {
            return 0;
        }
        // SAFETY: a pointer from Box::into_raw of a Holder, freed once here.
        let h = unsafe { Box::from_raw(schunk as *mut Holder) };
        if !h.avoid_cframe_free && !h.user_cframe.is_null() {
            // SAFETY: the caller handed us this malloc'ed frame and asked us to free it.
            unsafe { libc::free(h.user_cframe as *mut c_void) };
        }
        let (io, contexts) = (h.io, [h.c.cctx, h.c.dctx]);
        let taken = h.avoid_cframe_free.then_some(h.lent_cframe);
        let Holder { sc, .. } = *h;
        let frame = sc.close();
        // The contexts in the struct now, which the client may have replaced.
        for ctx in contexts.into_iter().filter(|c| !c.is_null()) {
            // SAFETY: a context from blosc2_create_*ctx that the struct owns,
            // as in the reference; freed once here.
            drop(unsafe { Box::from_raw(ctx) });
        }
        // The client took the frame buffer blosc2_schunk_to_buffer lent it
        // and frees it itself, as blosc2-rs does: leave it allocated (a
        // Vec<u8> comes from malloc, so free() may release it).
        if let Some(v) = frame.filter(|v| taken == Some(v.as_ptr())) {
            std::mem::forget(v);
        }
        // Like the reference, release the backend's resources with the super-chunk.
        c_int::from(crate::ffi::io::destroy_io(&io) < 0)
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_copy(
    schunk: *mut blosc2_schunk,
    storage: *mut blosc2_storage,
) -> *mut blosc2_schunk {
    // SAFETY: storage is NULL or a valid blosc2_storage.
    let st = unsafe { storage.as_ref() };
    // SAFETY: non-NULL parameter pointers in a storage point at valid structs.
    let user = st.and_then(|s| unsafe { s.cparams.as_ref() });
    let copy = |h: &mut Access<'_>| {
        let (kind, url, contiguous) = storage_of(st)?;
        let mut c = h.c_cparams;
        let mut engine_cp = None;
        if let Some(user) = user {
            c = *user;
            engine_cp = Some(cparams_from_c(user, true).ok_or(Error::InvalidParam)?);
        } else {
            c.nthreads = 0;
            c.blocksize = h.sc.last_blocksize;
        }
        let d = dparams_defaults();
        let sc = h.sc.copy_to(kind, engine_cp)?;
        Ok(Holder::into_c(sc, c, d, io_defaults(), url, contiguous))
    };
    // SAFETY: a super-chunk pointer from this library.
    unsafe { reading(schunk, copy) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_from_buffer(
    cframe: *mut u8,
    len: i64,
    copy: bool,
) -> *mut blosc2_schunk {
    guard(std::ptr::null_mut(), || {
        if cframe.is_null() || len < crate::format::frame::HEADER_MINLEN as i64 {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller passes a buffer of `len` bytes.
        let b = unsafe { bytes(cframe, len as usize) }.to_vec();
        let Ok(sc) = SuperChunk::from_frame_bytes(b, copy) else {
            return std::ptr::null_mut();
        };
        let p = wrap_opened(sc, io_defaults(), None, !copy);
        if !copy {
            // SAFETY: p was just created by wrap_opened.
            if let Ok(h) = unsafe { holder_raw(p) } {
                h.user_cframe = cframe;
                h.user_cframe_len = len as usize;
                // As the reference: the caller's buffer stays the caller's.
                h.avoid_cframe_free = true;
            }
        }
        p
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_avoid_cframe_free(
    schunk: *mut blosc2_schunk,
    avoid_cframe_free: bool,
) {
    guard((), || {
        // SAFETY: a super-chunk pointer from this library.
        if let Ok(h) = unsafe { holder_raw(schunk) } {
            h.avoid_cframe_free = avoid_cframe_free;
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_offset(
    urlpath: *const c_char,
    offset: i64,
) -> *mut blosc2_schunk {
    let io = io_defaults();
    // SAFETY: same contract; io is a valid blosc2_io.
    unsafe { blosc2_schunk_open_offset_udio(urlpath, offset, &io) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_udio(
    urlpath: *const c_char,
    udio: *const blosc2_io,
) -> *mut blosc2_schunk {
    // SAFETY: same contract.
    unsafe { blosc2_schunk_open_offset_udio(urlpath, 0, udio) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_offset_udio(
    urlpath: *const c_char,
    offset: i64,
    udio: *const blosc2_io,
) -> *mut blosc2_schunk {
    guard(std::ptr::null_mut(), || {
        // SAFETY: NULL or a valid blosc2_io, as documented.
        let Some(io) = (unsafe { udio.as_ref() }).copied() else {
            return std::ptr::null_mut();
        };
        // SAFETY: C strings passed to the API are NUL-terminated.
        let Ok(url) = (unsafe { string_arg(urlpath) }) else {
            return std::ptr::null_mut();
        };
        let opened = u64::try_from(offset)
            .map_err(|_| Error::InvalidParam)
            .and_then(|offset| {
                let eio = crate::ffi::io::engine_io(&io)?;
                let path = urlpath::path_of(&url);
                SuperChunk::open_locking(&path, offset, eio, locking_enabled(&io))
            });
        match opened {
            Ok(sc) => {
                let contiguous = !sc.is_sparse();
                wrap_opened(sc, io, Some(url), contiguous)
            }
            Err(_) => {
                crate::ffi::io::destroy_io(&io);
                std::ptr::null_mut()
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open(urlpath: *const c_char) -> *mut blosc2_schunk {
    // SAFETY: same contract.
    unsafe { blosc2_schunk_open_offset(urlpath, 0) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_to_buffer(
    schunk: *mut blosc2_schunk,
    cframe: *mut *mut u8,
    needs_free: *mut bool,
) -> i64 {
    guard(Error::Failure.code() as i64, || {
        if cframe.is_null() || needs_free.is_null() {
            return Error::NullPointer.code() as i64;
        }
        // SAFETY: out-pointers checked above.
        unsafe {
            *cframe = std::ptr::null_mut();
            *needs_free = false;
        }
        // SAFETY: a super-chunk pointer from this library.
        unsafe { reading(schunk, |h| Ok(frame_buffer(h, cframe, needs_free))) }
    })
}

/// `blosc2_schunk_to_buffer` once its out-pointers are checked.
fn frame_buffer(h: &mut Holder, cframe: *mut *mut u8, needs_free: *mut bool) -> i64 {
    match h.sc.frame_buffer() {
        Ok(Cow::Borrowed(b)) => {
            // A frame opened on the caller's buffer without copy and not
            // changed since: that buffer, as the reference returns it (it
            // stays the caller's; we hold a copy of it).
            // SAFETY: the caller lent us user_cframe_len bytes at user_cframe.
            let mine =
                !h.user_cframe.is_null() && unsafe { bytes(h.user_cframe, h.user_cframe_len) } == b;
            let (at, len) = if mine {
                (h.user_cframe as *const u8, h.user_cframe_len)
            } else {
                (b.as_ptr(), b.len())
            };
            // SAFETY: out-pointers checked by the caller; the bytes live as
            // long as the super-chunk stays unchanged, as with the reference.
            unsafe {
                *cframe = at as *mut u8;
                *needs_free = false;
            }
            if h.user_cframe.is_null() {
                h.lent_cframe = at;
            }
            len as i64
        }
        Ok(Cow::Owned(b)) => {
            let p = malloc_copy(&b);
            if p.is_null() {
                return Error::MemoryAlloc.code() as i64;
            }
            // SAFETY: out-pointers checked by the caller.
            unsafe {
                *cframe = p;
                *needs_free = true;
            }
            b.len() as i64
        }
        Err(_) => Error::SchunkCopy.code() as i64,
    }
}

/// What `blosc2_schunk_to_file` and `blosc2_schunk_append_file` share:
/// the path argument (NULL is `InvalidParam`) and the read access.
///
/// # Safety
/// `schunk` as for [`reading`]; `urlpath` NULL or a C string.
unsafe fn write_frame_file(
    schunk: *mut blosc2_schunk,
    urlpath: *const c_char,
    write: impl FnOnce(&SuperChunk, &Path) -> Result<i64>,
) -> i64 {
    // SAFETY: guaranteed by the caller.
    let Ok(url) = (unsafe { string_arg(urlpath) }) else {
        return Error::InvalidParam.code() as i64;
    };
    let call = |h: &mut Access<'_>| write(&h.sc, &urlpath::path_of(&url));
    // SAFETY: guaranteed by the caller.
    unsafe { reading(schunk, call) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_to_file(
    schunk: *mut blosc2_schunk,
    urlpath: *const c_char,
) -> i64 {
    // SAFETY: pointers as documented in blosc2.h.
    unsafe { write_frame_file(schunk, urlpath, SuperChunk::to_file) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_file(
    schunk: *mut blosc2_schunk,
    urlpath: *const c_char,
) -> i64 {
    // SAFETY: pointers as documented in blosc2.h.
    unsafe { write_frame_file(schunk, urlpath, SuperChunk::append_to_file) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_frame_len(schunk: *mut blosc2_schunk) -> i64 {
    // SAFETY: a super-chunk pointer from this library.
    unsafe { reading(schunk, |h| Ok(h.sc.frame_len())) }
}
