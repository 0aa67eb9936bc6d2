//! Making, opening, copying, serializing and freeing super-chunks.

use super::*;
use crate::ffi::api::blosc2_free_ctx;
use crate::ffi::ptr::string;
use crate::frame::LentBytes;
use crate::schunk::urlpath;
use std::borrow::Cow;

/// What a C `blosc2_storage` says, read once: the engine storage, the
/// urlpath, and the parameter structs and I/O backend it points at.
pub(super) struct StorageArg<'a> {
    kind: Storage,
    url: Option<String>,
    cparams: Option<&'a blosc2_cparams>,
    dparams: Option<&'a blosc2_dparams>,
    io: Option<&'a blosc2_io>,
}

impl StorageArg<'_> {
    /// Read `storage` (NULL: separate chunks in memory, default parameters).
    ///
    /// # Safety
    /// `storage` must be NULL or a valid `blosc2_storage` whose non-NULL
    /// pointers point at valid structs and C strings.
    unsafe fn read<'a>(storage: *const blosc2_storage) -> StorageArg<'a> {
        // SAFETY: guaranteed by the caller.
        let Some(st) = (unsafe { storage.as_ref() }) else {
            return StorageArg {
                kind: Storage::Memory,
                url: None,
                cparams: None,
                dparams: None,
                io: None,
            };
        };
        // SAFETY: guaranteed by the caller.
        let url = unsafe { string(st.urlpath) };
        StorageArg {
            kind: Storage::from_urlpath(st.contiguous, url.as_deref()),
            // SAFETY: guaranteed by the caller.
            cparams: unsafe { st.cparams.as_ref() },
            // SAFETY: guaranteed by the caller.
            dparams: unsafe { st.dparams.as_ref() },
            // SAFETY: guaranteed by the caller.
            io: unsafe { st.io.as_ref() },
            url,
        }
    }

    /// The parameters and I/O backend named, the defaults for those left NULL.
    fn params_or_defaults(&self) -> (blosc2_cparams, blosc2_dparams, blosc2_io) {
        (
            self.cparams.copied().unwrap_or_else(cparams_defaults),
            self.dparams.copied().unwrap_or_else(dparams_defaults),
            self.io.copied().unwrap_or_else(io_defaults),
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
    buffers: CallerBuffers,
) -> *mut blosc2_schunk {
    let (c, d) = c_params_of(&sc);
    let mut h = Holder::boxed(sc, c, d, io, url);
    h.buffers = buffers;
    Box::into_raw(h) as *mut blosc2_schunk
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_new(storage: *mut blosc2_storage) -> *mut blosc2_schunk {
    guard(std::ptr::null_mut(), || {
        // SAFETY: storage is NULL or a valid blosc2_storage (blosc2.h).
        let st = unsafe { StorageArg::read(storage) };
        let (c, d, io) = st.params_or_defaults();
        let made = engine_params(&c, &d)
            .ok_or(Error::InvalidParam)
            .and_then(|(cp, dp)| {
                SuperChunk::new_with_io(cp, dp, st.kind, crate::ffi::io::engine_io(&io)?)
            });
        match made {
            Ok(sc) => Holder::into_c(sc, c, d, io, st.url),
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
        let h = *unsafe { Box::from_raw(schunk as *mut Holder) };
        let released = h.buffers.release(h.sc);
        let caller_frame = released.free.unwrap_or(0) as *mut c_void;
        // SAFETY: NULL, or the malloc'ed frame the caller handed us and asked us to free.
        unsafe { libc::free(caller_frame) };
        // The client frees the frame it took itself (a Vec<u8> comes from malloc).
        std::mem::forget(released.kept);
        for ctx in [h.c.cctx, h.c.dctx] {
            // SAFETY: NULL or a context the struct owns (the client may have replaced it).
            unsafe { blosc2_free_ctx(ctx) };
        }
        // Like the reference, release the backend's resources with the super-chunk.
        c_int::from(crate::ffi::io::destroy_io(&h.io) < 0)
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_copy(
    schunk: *mut blosc2_schunk,
    storage: *mut blosc2_storage,
) -> *mut blosc2_schunk {
    // SAFETY: storage is NULL or a valid blosc2_storage (blosc2.h).
    let st = unsafe { StorageArg::read(storage) };
    let copy = |h: &mut Access<'_>| {
        let cp = st.cparams.map(|u| cparams_from_c(u, true));
        let cp = cp.map(|c| c.ok_or(Error::InvalidParam)).transpose()?;
        let sc = h.sc.copy_to(st.kind, cp)?;
        // Without parameters of its own the copy records ours, as the reference
        // fills them from its context: no threads, the last block size.
        let mut c = st.cparams.copied().unwrap_or(h.c_cparams);
        if st.cparams.is_none() {
            (c.nthreads, c.blocksize) = (0, h.sc.last_blocksize);
        }
        let (d, io) = (dparams_defaults(), io_defaults());
        Ok(Holder::into_c(sc, c, d, io, st.url))
    };
    // SAFETY: a super-chunk pointer from this library.
    unsafe { reading(schunk, copy) }
}

/// The frame buffer a caller opens a super-chunk on without copy.
#[derive(Debug)]
struct CallerFrame(*const u8, usize);

// SAFETY: the frame only reads the buffer, which blosc2.h makes the
// caller keep alive and unchanged while the super-chunk uses it.
unsafe impl Send for CallerFrame {}
// SAFETY: as above (shared reads only).
unsafe impl Sync for CallerFrame {}

impl LentBytes for CallerFrame {
    fn bytes(&self) -> &[u8] {
        // SAFETY: `self.1` readable bytes at `self.0` (see above).
        unsafe { bytes(self.0, self.1) }
    }
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
        let buffers = CallerBuffers::opened_on(cframe as usize, len as usize, copy);
        let wrap = |sc| wrap_opened(sc, io_defaults(), None, buffers);
        let opened = if copy {
            // SAFETY: the caller passes a buffer of `len` bytes.
            SuperChunk::from_frame_bytes(unsafe { bytes(cframe, len as usize) }.to_vec(), true)
        } else {
            let lent = CallerFrame(cframe, len as usize);
            SuperChunk::from_lent_frame(Box::new(lent))
        };
        opened.map_or(std::ptr::null_mut(), wrap)
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
            h.buffers.set_avoid_free(avoid_cframe_free);
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
        // SAFETY: NULL or a valid blosc2_io, and a C string, as documented.
        let (io, url) = unsafe { (udio.as_ref().copied(), string_arg(urlpath)) };
        let (Some(io), Ok(url)) = (io, url) else {
            return std::ptr::null_mut();
        };
        let opened = crate::ffi::io::engine_io(&io)
            .and_then(|eio| SuperChunk::open_urlpath(&url, offset, eio, locking_enabled(&io)));
        match opened {
            Ok(sc) => wrap_opened(sc, io, Some(url), CallerBuffers::default()),
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
            // SAFETY: a caller buffer the super-chunk was opened on holds
            // its length in bytes and stays the caller's, readable.
            let caller = h
                .buffers
                .caller_buffer()
                .map(|(p, n)| unsafe { bytes(p as *const u8, n) });
            let (at, len) = h.buffers.lend(b, caller);
            // SAFETY: out-pointers checked by the caller; the bytes live as
            // long as the super-chunk stays unchanged, as with the reference.
            unsafe {
                *cframe = at as *mut u8;
                *needs_free = false;
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
