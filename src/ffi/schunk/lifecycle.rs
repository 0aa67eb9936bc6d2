//! Making, opening, copying, serializing and freeing super-chunks.

use super::*;
use crate::ffi::guarded_ptr;
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

    /// The compression parameters named, for the engine (None when left
    /// NULL; parameters the engine cannot take are `InvalidParam`).
    fn engine_cparams(&self) -> Result<Option<CParams>> {
        let cp = self.cparams.map(|c| cparams_from_c(c, true));
        cp.map(|c| c.ok_or(Error::InvalidParam)).transpose()
    }

    /// The C parameters a copy of a super-chunk made with `ours` records:
    /// those named, or, without, ours as the reference fills them from its
    /// context (no threads, the block size used last).
    fn cparams_of_copy(&self, ours: blosc2_cparams, last_blocksize: i32) -> blosc2_cparams {
        self.cparams.copied().unwrap_or(blosc2_cparams {
            nthreads: 0,
            blocksize: last_blocksize,
            ..ours
        })
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
    guarded_ptr(|| {
        // SAFETY: storage is NULL or a valid blosc2_storage (blosc2.h).
        let st = unsafe { StorageArg::read(storage) };
        let (c, d, io) = st.params_or_defaults();
        let (cp, dp) = engine_params(&c, &d).ok_or(Error::InvalidParam)?;
        let sc = SuperChunk::new_with_io(cp, dp, st.kind, crate::ffi::io::engine_io(&io)?)?;
        Ok(Holder::into_c(sc, c, d, io, st.url))
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_free(schunk: *mut blosc2_schunk) -> c_int {
    guard(0, || {
        if schunk.is_null() {
            return 0;
        }
        // SAFETY: a pointer from Box::into_raw of a Holder, freed once here.
        unsafe { Box::from_raw(schunk as *mut Holder) }.free()
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
        let cp = st.engine_cparams()?;
        let c = st.cparams_of_copy(h.c_cparams, h.sc.last_blocksize);
        let sc = h.sc.copy_to(st.kind, cp)?;
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
        let Some(len) = usize::try_from(len).ok().filter(|_| !cframe.is_null()) else {
            return std::ptr::null_mut();
        };
        let opened = CallerBuffers::open(Box::new(CallerFrame(cframe, len)), copy);
        opened.map_or(std::ptr::null_mut(), |(sc, buffers)| {
            wrap_opened(sc, io_defaults(), None, buffers)
        })
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
        let locking = locking_enabled(&io);
        let open = |eio| SuperChunk::open_urlpath(&url, offset, eio, locking);
        let opened = crate::ffi::io::open_through(&io, open);
        opened.map_or(std::ptr::null_mut(), |sc| {
            wrap_opened(sc, io, Some(url), CallerBuffers::default())
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_records_the_storage_parameters_or_ours_without_threads() {
        let mut theirs = cparams_defaults();
        theirs.clevel = 9;
        // SAFETY: all-zero is a valid blosc2_storage (NULL pointers).
        let mut st: blosc2_storage = unsafe { std::mem::zeroed() };
        // SAFETY: no pointer set: no parameters, in memory.
        let none = unsafe { StorageArg::read(&st) };
        assert_eq!(none.engine_cparams().map(|c| c.is_none()), Ok(true));
        let mut ours = cparams_defaults();
        (ours.nthreads, ours.clevel) = (4, 3);
        let c = none.cparams_of_copy(ours, 2048);
        assert_eq!((c.nthreads, c.blocksize, c.clevel), (0, 2048, 3));
        st.cparams = &mut theirs;
        // SAFETY: st points at a live cparams.
        let named = unsafe { StorageArg::read(&st) };
        assert_eq!(named.cparams_of_copy(ours, 2048).clevel, 9);
        assert_eq!(named.engine_cparams().unwrap().map(|c| c.clevel), Some(9));
        theirs.filters[0] = 40;
        st.cparams = &mut theirs;
        // SAFETY: as above.
        let bad = unsafe { StorageArg::read(&st) };
        assert_eq!(bad.engine_cparams().err(), Some(Error::InvalidParam));
    }
}
