//! Super-chunk, frame and metalayer C functions of blosc2.h.
//!
//! The `blosc2_schunk` C code sees is the first field of a boxed `Holder`
//! that also owns the engine [`SuperChunk`] and every buffer the public
//! fields point at (storage, parameters, metalayer structs, chunk pointers).
//!
//! The public struct is not a one-way mirror: clients write some of its
//! fields and expect the next call to use them, as the reference reads them
//! at each call. Every call starts with `Holder::pull`, which takes into the
//! engine what a client may have written (`chunksize`, and the parameters of
//! the contexts in `cctx`/`dctx`, which clients free and replace); after each
//! call that can change the super-chunk, `Holder::sync` makes the public
//! fields true again. The contexts belong to the struct, not to the holder:
//! `blosc2_schunk_free` frees whatever `cctx`/`dctx` hold at that moment.
#![allow(clippy::missing_safety_doc)]
#![allow(non_camel_case_types)]

use super::ctx::{cparams_defaults, cparams_from_c, dparams_defaults, Context};
use super::guard;
use super::ptr::{bytes, items, items_mut, malloc_copy, malloc_i64s, string_arg};
use super::types::*;
use crate::chunk::{CParams, DParams};
use crate::error::{Error, Result};
use crate::format::header::{ChunkHeader, Special, MIN_HEADER_LENGTH};
use crate::schunk::{Storage, SuperChunk};
use std::ffi::CString;
use std::os::raw::{c_char, c_int, c_void};
use std::path::{Path, PathBuf};

/// `BLOSC2_MAX_METALAYERS`.
pub const MAX_METALAYERS: usize = 16;
/// `BLOSC2_MAX_VLMETALAYERS`.
pub const MAX_VLMETALAYERS: usize = 8 * 1024;

/// `blosc2_metalayer`.
#[repr(C)]
pub struct blosc2_metalayer {
    pub name: *mut c_char,
    pub content: *mut u8,
    pub content_len: i32,
}

/// `blosc2_schunk`, laid out as in blosc2.h 3.3.
#[repr(C)]
pub struct blosc2_schunk {
    pub version: u8,
    pub compcode: u8,
    pub compcode_meta: u8,
    pub clevel: u8,
    pub splitmode: u8,
    pub typesize: i32,
    pub blocksize: i32,
    pub chunksize: i32,
    pub flags2: u8,
    pub use_dict: u8,
    pub filters: [u8; 6],
    pub filters_meta: [u8; 6],
    pub nchunks: i64,
    pub current_nchunk: i64,
    pub nbytes: i64,
    pub cbytes: i64,
    pub data: *mut *mut u8,
    pub data_len: usize,
    pub storage: *mut blosc2_storage,
    pub frame: *mut c_void,
    pub cctx: *mut blosc2_context,
    pub dctx: *mut blosc2_context,
    pub metalayers: [*mut blosc2_metalayer; MAX_METALAYERS],
    pub nmetalayers: u16,
    pub vlmetalayers: [*mut blosc2_metalayer; MAX_VLMETALAYERS],
    pub nvlmetalayers: i16,
    pub tuner_params: *mut c_void,
    pub tuner_id: c_int,
    pub ndim: i8,
    pub blockshape: *mut i64,
    pub view: bool,
    pub change_tick: i64,
}

/// A metalayer as C sees it, with the storage its pointers refer to.
struct CMeta {
    _name: CString,
    _content: Vec<u8>,
    c: Box<blosc2_metalayer>,
}

impl CMeta {
    fn new(name: &str, content: &[u8]) -> CMeta {
        let name = CString::new(name.replace('\0', "")).unwrap_or_default();
        let mut content = content.to_vec();
        let c = Box::new(blosc2_metalayer {
            name: name.as_ptr() as *mut c_char,
            content: if content.is_empty() {
                std::ptr::null_mut()
            } else {
                content.as_mut_ptr()
            },
            content_len: content.len() as i32,
        });
        CMeta {
            _name: name,
            _content: content,
            c,
        }
    }
}

/// What a `blosc2_schunk *` handed to C points at.
#[repr(C)]
struct Holder {
    c: blosc2_schunk,
    sc: SuperChunk,
    storage: blosc2_storage,
    c_cparams: blosc2_cparams,
    c_dparams: blosc2_dparams,
    io: blosc2_io,
    urlpath: Option<CString>,
    metas: Vec<CMeta>,
    vlmetas: Vec<CMeta>,
    data_ptrs: Vec<*mut u8>,
    /// Ids of the contexts whose parameters the engine holds (0: none).
    cctx_id: u64,
    dctx_id: u64,
    /// The `chunksize` last written into the public struct: a different
    /// value there at the next call was written by the client.
    synced_chunksize: i32,
    /// A buffer given to `from_buffer` without copy, freed with the
    /// super-chunk only after `avoid_cframe_free(false)`.
    user_cframe: *mut u8,
    user_cframe_len: usize,
    /// The start of the in-memory frame `blosc2_schunk_to_buffer` lent to
    /// the client: after `avoid_cframe_free(true)` it is the client's to free.
    lent_cframe: *const u8,
    avoid_cframe_free: bool,
}

impl Holder {
    /// Box a new holder around `sc` and return the C pointer.
    fn into_c(
        sc: SuperChunk,
        c_cparams: blosc2_cparams,
        c_dparams: blosc2_dparams,
        io: blosc2_io,
        urlpath: Option<String>,
        contiguous: bool,
    ) -> *mut blosc2_schunk {
        // SAFETY: blosc2_schunk is plain old data (integers and raw pointers),
        // for which all-zero bytes are a valid value (NULL pointers, zeros).
        let c: blosc2_schunk = unsafe { std::mem::zeroed() };
        let mut h = Box::new(Holder {
            c,
            sc,
            storage: blosc2_storage {
                contiguous,
                urlpath: std::ptr::null_mut(),
                cparams: std::ptr::null_mut(),
                dparams: std::ptr::null_mut(),
                io: std::ptr::null_mut(),
            },
            c_cparams,
            c_dparams,
            io,
            urlpath: urlpath.and_then(|u| CString::new(u).ok()),
            metas: Vec::new(),
            vlmetas: Vec::new(),
            data_ptrs: Vec::new(),
            cctx_id: 0,
            dctx_id: 0,
            synced_chunksize: 0,
            user_cframe: std::ptr::null_mut(),
            user_cframe_len: 0,
            lent_cframe: std::ptr::null(),
            avoid_cframe_free: false,
        });
        let me = &mut *h as *mut Holder;
        h.c_cparams.schunk = me as *mut c_void;
        h.c_dparams.schunk = me as *mut c_void;
        h.storage.cparams = &mut h.c_cparams;
        h.storage.dparams = &mut h.c_dparams;
        h.storage.io = &mut h.io;
        h.storage.urlpath = h
            .urlpath
            .as_ref()
            .map_or(std::ptr::null_mut(), |u| u.as_ptr() as *mut c_char);
        if let Some(ctx) = Context::new_compress(&h.c_cparams) {
            // Chunks are compressed with the context's parameters (prefilter included).
            let mut cp = ctx.cparams.clone();
            cp.blocksize = h.sc.cparams.blocksize;
            cp.nthreads = cp.nthreads.max(1);
            h.sc.cparams = cp;
            h.cctx_id = ctx.id;
            h.c.cctx = Box::into_raw(ctx);
        }
        h.sc.header_nthreads = (h.c_cparams.nthreads, h.c_dparams.nthreads);
        let dctx = Context::new_decompress(&h.c_dparams);
        h.sc.dparams = dctx.dparams.clone();
        h.dctx_id = dctx.id;
        h.c.dctx = Box::into_raw(dctx);
        h.sc.cparams.schunk = me as usize;
        h.sc.dparams.schunk = me as usize;
        let locking = locking_enabled(&h.io);
        h.sc.set_locking(locking);
        h.sync_all();
        Box::into_raw(h) as *mut blosc2_schunk
    }

    /// Refresh the public counters and chunk pointers.
    fn sync(&mut self) {
        let sc = &self.sc;
        let c = &mut self.c;
        c.compcode = sc.cparams.compcode;
        c.compcode_meta = sc.cparams.compcode_meta;
        c.clevel = sc.cparams.clevel;
        c.splitmode = sc.cparams.splitmode as u8;
        c.typesize = sc.cparams.typesize;
        c.blocksize = sc.blocksize;
        c.chunksize = sc.chunksize;
        self.synced_chunksize = sc.chunksize;
        c.flags2 = sc.flags2;
        c.use_dict = u8::from(sc.cparams.use_dict);
        c.filters = sc.cparams.filters;
        c.filters_meta = sc.cparams.filters_meta;
        c.nchunks = sc.nchunks();
        c.nbytes = sc.nbytes;
        c.cbytes = sc.cbytes;
        c.storage = &mut self.storage;
        c.tuner_id = sc.cparams.tuner_id;
        self.data_ptrs.clear();
        match sc.memory_chunks() {
            Some(chunks) => {
                self.data_ptrs
                    .extend(chunks.iter().map(|v| v.as_ptr() as *mut u8));
                c.frame = std::ptr::null_mut();
                c.data = if self.data_ptrs.is_empty() {
                    std::ptr::null_mut()
                } else {
                    self.data_ptrs.as_mut_ptr()
                };
                c.data_len = self.data_ptrs.capacity() * std::mem::size_of::<*mut u8>();
            }
            None => {
                c.data = std::ptr::null_mut();
                c.data_len = 0;
                // Non-NULL marks a frame-backed super-chunk; C never dereferences it.
                c.frame = &mut self.storage as *mut blosc2_storage as *mut c_void;
            }
        }
    }

    /// Take into the engine what the client may have written into the
    /// public struct since the last call: the chunk size, and the
    /// parameters of a context it put in `cctx`/`dctx` (python-blosc2 frees
    /// them and installs new ones to change codecs or install filters).
    fn pull(&mut self) {
        let me = self as *mut Holder as usize;
        if self.c.chunksize != self.synced_chunksize {
            self.sc.chunksize = self.c.chunksize;
            self.synced_chunksize = self.c.chunksize;
        }
        // SAFETY: `cctx` is NULL or a live context from blosc2_create_cctx
        // (ours or the client's), as the reference also requires.
        match unsafe { self.c.cctx.as_ref() } {
            Some(ctx) if ctx.compress && ctx.id != self.cctx_id => {
                let mut cp = ctx.cparams.clone();
                cp.nthreads = cp.nthreads.max(1);
                cp.schunk = me;
                self.sc.cparams = cp;
                self.cctx_id = ctx.id;
            }
            _ => {}
        }
        // SAFETY: as for `cctx`.
        match unsafe { self.c.dctx.as_ref() } {
            Some(ctx) if !ctx.compress && ctx.id != self.dctx_id => {
                let mut dp = ctx.dparams.clone();
                dp.schunk = me;
                self.sc.dparams = dp;
                self.dctx_id = ctx.id;
            }
            Some(_) => {}
            None if self.dctx_id != 0 => {
                // No context: decode without the freed one's postfilter.
                self.sc.dparams.postfilter = None;
                self.dctx_id = 0;
            }
            None => {}
        }
    }

    /// Refresh everything, metalayers included.
    fn sync_all(&mut self) {
        self.metas = self
            .sc
            .metalayers()
            .iter()
            .map(|m| CMeta::new(&m.name, &m.content))
            .collect();
        self.vlmetas = self
            .sc
            .vlmetalayers()
            .iter()
            .map(|m| CMeta::new(&m.name, &m.content))
            .collect();
        self.c.metalayers = [std::ptr::null_mut(); MAX_METALAYERS];
        for (i, m) in self.metas.iter_mut().enumerate().take(MAX_METALAYERS) {
            self.c.metalayers[i] = &mut *m.c;
        }
        self.c.nmetalayers = self.metas.len() as u16;
        for p in self.c.vlmetalayers.iter_mut() {
            *p = std::ptr::null_mut();
        }
        for (i, m) in self.vlmetas.iter_mut().enumerate().take(MAX_VLMETALAYERS) {
            self.c.vlmetalayers[i] = &mut *m.c;
        }
        self.c.nvlmetalayers = self.vlmetas.len() as i16;
        self.sync();
    }
}

/// The holder behind a C pointer.
///
/// # Safety
/// `p` must be NULL or a pointer returned by one of our constructors and not freed.
unsafe fn holder_raw<'a>(p: *mut blosc2_schunk) -> Result<&'a mut Holder> {
    if p.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: our constructors return the address of a boxed Holder whose
    // first field (repr(C)) is the blosc2_schunk.
    let h = unsafe { &mut *(p as *mut Holder) };
    h.pull();
    Ok(h)
}

/// A holder in use by one C call: the frame's lock (shared, or exclusive
/// for changes) is held and other handles' changes are taken in, from the
/// start of the call to its end.
struct Access<'a> {
    h: &'a mut Holder,
}

impl std::ops::Deref for Access<'_> {
    type Target = Holder;
    fn deref(&self) -> &Holder {
        self.h
    }
}

impl std::ops::DerefMut for Access<'_> {
    fn deref_mut(&mut self) -> &mut Holder {
        self.h
    }
}

impl Drop for Access<'_> {
    fn drop(&mut self) {
        let _ = self.h.sc.unlock();
    }
}

/// The holder behind `p` for one call (see [`Access`]).
///
/// # Safety
/// As [`holder_raw`].
unsafe fn access<'a>(p: *mut blosc2_schunk, exclusive: bool) -> Result<Access<'a>> {
    // SAFETY: guaranteed by the caller.
    let h = unsafe { holder_raw(p) }?;
    if h.sc.lock(exclusive)? {
        h.c.change_tick += 1;
        h.sync_all();
    }
    Ok(Access { h })
}

/// The holder behind `p` for a call that reads.
///
/// # Safety
/// As [`holder_raw`].
unsafe fn holder<'a>(p: *mut blosc2_schunk) -> Result<Access<'a>> {
    // SAFETY: guaranteed by the caller.
    unsafe { access(p, false) }
}

/// Run `f` on the engine super-chunk behind `schunk`, then make the public
/// fields (metalayers included) true again; `changed` bumps the change tick.
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk pointer from this library,
/// not used by anyone else during the call.
pub(crate) unsafe fn with_engine<R>(
    schunk: *mut blosc2_schunk,
    changed: bool,
    f: impl FnOnce(&mut SuperChunk) -> Result<R>,
) -> Result<R> {
    // SAFETY: guaranteed by the caller.
    let mut h = unsafe { access(schunk, changed) }?;
    let r = f(&mut h.sc);
    if changed {
        h.c.change_tick += 1;
        h.sync_all();
    }
    r
}

/// The C parameters a super-chunk was made with, and whether it is a
/// contiguous frame.
///
/// # Safety
/// As [`with_engine`].
pub(crate) unsafe fn c_params(
    schunk: *mut blosc2_schunk,
) -> Result<(blosc2_cparams, blosc2_dparams, bool)> {
    // SAFETY: guaranteed by the caller.
    let h = unsafe { holder_raw(schunk) }?;
    Ok((h.c_cparams, h.c_dparams, h.storage.contiguous))
}

fn normalize_urlpath(s: &str) -> PathBuf {
    PathBuf::from(s.strip_prefix("file:///").unwrap_or(s))
}

/// The bytes of the chunk at `p`, bounded by its header's cbytes.
///
/// # Safety
/// `p` must point at a chunk whose header tells its true size.
unsafe fn chunk_arg<'a>(p: *const u8) -> Result<&'a [u8]> {
    if p.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: every chunk starts with a 16-byte header.
    let head = unsafe { bytes(p, MIN_HEADER_LENGTH) };
    let h = ChunkHeader::parse_min(head)?;
    // SAFETY: the header's cbytes is the size of the chunk the caller passes.
    Ok(unsafe { bytes(p, h.cbytes as usize) })
}

fn storage_of(st: Option<&blosc2_storage>) -> Result<(Storage, Option<String>, bool)> {
    let Some(st) = st else {
        return Ok((Storage::Memory, None, false));
    };
    let url = if st.urlpath.is_null() {
        None
    } else {
        // SAFETY: a storage's non-NULL urlpath is a C string.
        Some(unsafe { string_arg(st.urlpath) }?)
    };
    Ok(match (st.contiguous, &url) {
        (false, None) => (Storage::Memory, None, false),
        (true, None) => (Storage::FrameInMemory, None, true),
        (true, Some(u)) => (Storage::FrameFile(normalize_urlpath(u)), url.clone(), true),
        (false, Some(u)) => (Storage::SparseDir(normalize_urlpath(u)), url.clone(), false),
    })
}

fn io_defaults() -> blosc2_io {
    super::api::blosc2_get_blosc2_io_defaults()
}

fn engine_params(c: &blosc2_cparams, d: &blosc2_dparams) -> Option<(CParams, DParams)> {
    let cp = cparams_from_c(c, true)?;
    let dp = DParams {
        nthreads: d.nthreads,
        typesize: d.typesize,
        ..DParams::default()
    };
    Some((cp, dp))
}

/// C params describing an opened frame.
fn c_params_of(sc: &SuperChunk) -> (blosc2_cparams, blosc2_dparams) {
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
    c.nthreads = super::api::blosc2_get_nthreads();
    let mut d = dparams_defaults();
    d.nthreads = c.nthreads;
    (c, d)
}

fn wrap_opened(sc: SuperChunk, contiguous: bool, url: Option<String>) -> *mut blosc2_schunk {
    let (c, d) = c_params_of(&sc);
    Holder::into_c(sc, c, d, io_defaults(), url, contiguous)
}

// ---------------------------------------------------------------- lifecycle

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_new(storage: *mut blosc2_storage) -> *mut blosc2_schunk {
    guard(std::ptr::null_mut(), || {
        // SAFETY: storage is NULL or points at a blosc2_storage (blosc2.h).
        let st = unsafe { storage.as_ref() };
        let Ok((kind, url, contiguous)) = storage_of(st) else {
            return std::ptr::null_mut();
        };
        // SAFETY: non-NULL parameter pointers in a storage point at valid structs.
        let c = st
            .and_then(|s| unsafe { s.cparams.as_ref() })
            .copied()
            .unwrap_or_else(cparams_defaults);
        // SAFETY: as above.
        let d = st
            .and_then(|s| unsafe { s.dparams.as_ref() })
            .copied()
            .unwrap_or_else(dparams_defaults);
        // SAFETY: as above.
        let io = st
            .and_then(|s| unsafe { s.io.as_ref() })
            .copied()
            .unwrap_or_else(io_defaults);
        let Some((cp, dp)) = engine_params(&c, &d) else {
            return std::ptr::null_mut();
        };
        let Ok(eio) = super::io::engine_io(&io) else {
            return std::ptr::null_mut();
        };
        match SuperChunk::new_with_io(cp, dp, kind, eio) {
            Ok(sc) => Holder::into_c(sc, c, d, io, url, contiguous),
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
        let mut h = unsafe { Box::from_raw(schunk as *mut Holder) };
        if !h.avoid_cframe_free && !h.user_cframe.is_null() {
            // SAFETY: the caller handed us this malloc'ed frame and asked us to free it.
            unsafe { libc::free(h.user_cframe as *mut c_void) };
        }
        let _ = h.sc.sync();
        let io = h.io;
        // The contexts in the struct now, which the client may have replaced.
        for ctx in [h.c.cctx, h.c.dctx] {
            if !ctx.is_null() {
                // SAFETY: a context from blosc2_create_*ctx that the struct
                // owns, as in the reference; freed once here.
                drop(unsafe { Box::from_raw(ctx) });
            }
        }
        let lent = if h.avoid_cframe_free {
            h.lent_cframe
        } else {
            std::ptr::null()
        };
        let Holder { sc, .. } = *h;
        if !lent.is_null() {
            // The client took the frame buffer (blosc2_schunk_to_buffer) and
            // frees it itself, as blosc2-rs does: leave it allocated (a Vec<u8>
            // comes from malloc, so free() may release it).
            if let Some(v) = sc.into_memory_frame() {
                if v.as_ptr() == lent {
                    std::mem::forget(v);
                }
            }
        } else {
            drop(sc);
        }
        // Like the reference, release the backend's resources with the super-chunk.
        if super::io::destroy_io(&io) < 0 {
            return 1;
        }
        0
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_copy(
    schunk: *mut blosc2_schunk,
    storage: *mut blosc2_storage,
) -> *mut blosc2_schunk {
    guard(std::ptr::null_mut(), || {
        // SAFETY: a super-chunk pointer from this library.
        let Ok(h) = (unsafe { holder(schunk) }) else {
            return std::ptr::null_mut();
        };
        // SAFETY: storage is NULL or a valid blosc2_storage.
        let st = unsafe { storage.as_ref() };
        let Ok((kind, url, contiguous)) = storage_of(st) else {
            return std::ptr::null_mut();
        };
        let mut c = h.c_cparams;
        let mut engine_cp = None;
        // SAFETY: as in blosc2_schunk_new.
        if let Some(user) = st.and_then(|s| unsafe { s.cparams.as_ref() }) {
            c = *user;
            match cparams_from_c(user, true) {
                Some(p) => engine_cp = Some(p),
                None => return std::ptr::null_mut(),
            }
        } else {
            c.nthreads = 0;
            c.blocksize = h.sc.last_blocksize;
        }
        let d = dparams_defaults();
        match h.sc.copy_to(kind, engine_cp) {
            Ok(sc) => Holder::into_c(sc, c, d, io_defaults(), url, contiguous),
            Err(_) => std::ptr::null_mut(),
        }
    })
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
        match SuperChunk::from_frame_bytes(b, copy) {
            Ok(sc) => {
                let p = wrap_opened(sc, !copy, None);
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
            }
            Err(_) => std::ptr::null_mut(),
        }
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
        let opened = (|| {
            if offset < 0 {
                return Err(Error::InvalidParam);
            }
            let eio = super::io::engine_io(&io)?;
            SuperChunk::open_locking(
                &normalize_urlpath(&url),
                offset as u64,
                eio,
                locking_enabled(&io),
            )
        })();
        match opened {
            Ok(sc) => {
                let contiguous = !sc.is_sparse();
                let (c, d) = c_params_of(&sc);
                Holder::into_c(sc, c, d, io, Some(url), contiguous)
            }
            Err(_) => {
                super::io::destroy_io(&io);
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
        let mut h = match unsafe { holder(schunk) } {
            Ok(h) => h,
            Err(e) => return e.code() as i64,
        };
        if let Some(b) = h.sc.frame().and_then(|f| f.memory_bytes()) {
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
            // SAFETY: out-pointers checked above; the bytes live as long as the
            // super-chunk stays unchanged, as with the reference.
            unsafe {
                *cframe = at as *mut u8;
                *needs_free = false;
            }
            if h.user_cframe.is_null() {
                h.lent_cframe = at;
            }
            return len as i64;
        }
        match h.sc.to_frame_bytes() {
            Ok(b) => {
                let p = malloc_copy(&b);
                if p.is_null() {
                    return Error::MemoryAlloc.code() as i64;
                }
                // SAFETY: out-pointers checked above.
                unsafe {
                    *cframe = p;
                    *needs_free = true;
                }
                b.len() as i64
            }
            Err(_) => Error::SchunkCopy.code() as i64,
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_to_file(
    schunk: *mut blosc2_schunk,
    urlpath: *const c_char,
) -> i64 {
    guard(Error::Failure.code() as i64, || {
        // SAFETY: C strings passed to the API are NUL-terminated.
        let Ok(url) = (unsafe { string_arg(urlpath) }) else {
            return Error::InvalidParam.code() as i64;
        };
        // SAFETY: a super-chunk pointer from this library.
        let h = match unsafe { holder(schunk) } {
            Ok(h) => h,
            Err(e) => return e.code() as i64,
        };
        let in_memory_frame = h.sc.frame().is_some_and(|f| f.memory_bytes().is_some());
        match h.sc.to_file(&normalize_urlpath(&url)) {
            Ok(n) => n,
            Err(e) if in_memory_frame => e.code() as i64,
            Err(_) => Error::SchunkCopy.code() as i64,
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_file(
    schunk: *mut blosc2_schunk,
    urlpath: *const c_char,
) -> i64 {
    guard(Error::Failure.code() as i64, || {
        // SAFETY: C strings passed to the API are NUL-terminated.
        let Ok(url) = (unsafe { string_arg(urlpath) }) else {
            return Error::InvalidParam.code() as i64;
        };
        // SAFETY: a super-chunk pointer from this library.
        let h = match unsafe { holder(schunk) } {
            Ok(h) => h,
            Err(e) => return e.code() as i64,
        };
        let in_memory_frame = h.sc.frame().is_some_and(|f| f.memory_bytes().is_some());
        match h.sc.append_to_file(&normalize_urlpath(&url)) {
            Ok(n) => n,
            Err(e) if in_memory_frame => e.code() as i64,
            Err(_) => Error::SchunkCopy.code() as i64,
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_frame_len(schunk: *mut blosc2_schunk) -> i64 {
    guard(Error::Failure.code() as i64, || {
        // SAFETY: a super-chunk pointer from this library.
        match unsafe { holder(schunk) } {
            Ok(h) => h.sc.frame_len(),
            Err(e) => e.code() as i64,
        }
    })
}

// ---------------------------------------------------------------- chunks

/// Run a mutation and refresh the public fields.
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk pointer from this library.
unsafe fn mutate(schunk: *mut blosc2_schunk, f: impl FnOnce(&mut Holder) -> Result<i64>) -> i64 {
    guard(Error::Failure.code() as i64, || {
        // SAFETY: guaranteed by the caller.
        let mut h = match unsafe { access(schunk, true) } {
            Ok(h) => h,
            Err(e) => return e.code() as i64,
        };
        let r = f(&mut h);
        h.sync();
        match r {
            Ok(n) => n,
            Err(e) => e.code() as i64,
        }
    })
}

/// Take a chunk argument: copy it, and free the caller's buffer when the
/// super-chunk takes ownership (`copy == false`) and the call succeeded.
///
/// # Safety
/// `chunk` must point at a chunk; with `copy == false` it must be malloc'ed.
unsafe fn with_chunk(
    chunk: *mut u8,
    copy: bool,
    f: impl FnOnce(Vec<u8>) -> Result<i64>,
) -> Result<i64> {
    // SAFETY: guaranteed by the caller.
    let c = unsafe { chunk_arg(chunk) }?.to_vec();
    let r = f(c)?;
    if !copy {
        // SAFETY: ownership was handed over; we hold our own copy.
        unsafe { libc::free(chunk as *mut c_void) };
    }
    Ok(r)
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_chunk(
    schunk: *mut blosc2_schunk,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    // SAFETY: pointers as documented in blosc2.h.
    unsafe {
        mutate(schunk, |h| {
            h.c.current_nchunk = h.sc.nchunks();
            with_chunk(chunk, copy, |c| h.sc.append_chunk(c))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_insert_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    // SAFETY: pointers as documented in blosc2.h.
    unsafe {
        mutate(schunk, |h| {
            h.c.current_nchunk = nchunk;
            with_chunk(chunk, copy, |c| h.sc.insert_chunk(nchunk, c))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_update_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    // SAFETY: pointers as documented in blosc2.h.
    unsafe {
        mutate(schunk, |h| {
            h.c.current_nchunk = nchunk;
            with_chunk(chunk, copy, |c| h.sc.update_chunk(nchunk, c))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_delete_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
) -> i64 {
    // SAFETY: pointers as documented in blosc2.h.
    unsafe {
        mutate(schunk, |h| {
            h.c.current_nchunk = nchunk;
            h.sc.delete_chunk(nchunk)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_buffer(
    schunk: *mut blosc2_schunk,
    src: *const c_void,
    nbytes: i32,
) -> i64 {
    // SAFETY: pointers as documented in blosc2.h.
    unsafe {
        mutate(schunk, |h| {
            if nbytes < 0 || (src.is_null() && nbytes > 0) {
                return Err(Error::InvalidParam);
            }
            h.c.current_nchunk = h.sc.nchunks();
            // SAFETY: src holds nbytes bytes.
            let s = bytes(src as *const u8, nbytes as usize);
            h.sc.append_buffer(s)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_decompress_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    dest: *mut c_void,
    nbytes: i32,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: a super-chunk pointer from this library.
        let mut h = match unsafe { holder(schunk) } {
            Ok(h) => h,
            Err(e) => return e.code(),
        };
        if dest.is_null() || nbytes < 0 {
            return Error::InvalidParam.code();
        }
        h.c.current_nchunk = nchunk;
        // SAFETY: dest holds nbytes writable bytes.
        let out = unsafe { items_mut(dest as *mut u8, nbytes as usize) };
        super::code(h.sc.decompress_chunk(nchunk, out))
    })
}

unsafe fn get_chunk_impl(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    guard(Error::Failure.code(), || {
        if chunk.is_null() || needs_free.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: out-pointers checked above.
        unsafe {
            *chunk = std::ptr::null_mut();
            *needs_free = false;
        }
        // SAFETY: a super-chunk pointer from this library.
        let mut h = match unsafe { holder(schunk) } {
            Ok(h) => h,
            Err(e) => return e.code(),
        };
        h.c.current_nchunk = nchunk;
        if let Some(chunks) = h.sc.memory_chunks() {
            if nchunk < 0 || nchunk >= chunks.len() as i64 {
                return Error::InvalidParam.code();
            }
            let c = &chunks[nchunk as usize];
            // SAFETY: out-pointers checked; the chunk lives in the super-chunk.
            unsafe { *chunk = c.as_ptr() as *mut u8 };
            return c.len() as c_int;
        }
        match h.sc.chunk(nchunk) {
            Ok(c) => {
                let p = malloc_copy(&c);
                if p.is_null() {
                    return Error::MemoryAlloc.code();
                }
                // SAFETY: out-pointers checked above.
                unsafe {
                    *chunk = p;
                    *needs_free = true;
                }
                c.len() as c_int
            }
            Err(e) => e.code(),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    // SAFETY: same contract.
    unsafe { get_chunk_impl(schunk, nchunk, chunk, needs_free) }
}

/// A lazy chunk for frames on disk (header, block starts and a trailer
/// locating the rest, as the reference builds it); the whole chunk otherwise.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_lazychunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    let on_disk = guard(false, || {
        // SAFETY: a super-chunk pointer from this library.
        unsafe { holder(schunk) }
            .is_ok_and(|h| h.sc.frame().is_some_and(|f| f.memory_bytes().is_none()))
    });
    if !on_disk || chunk.is_null() || needs_free.is_null() {
        // SAFETY: same contract.
        return unsafe { get_chunk_impl(schunk, nchunk, chunk, needs_free) };
    }
    guard(Error::Failure.code(), || {
        // SAFETY: out-pointers checked above.
        unsafe {
            *chunk = std::ptr::null_mut();
            *needs_free = false;
        }
        // SAFETY: a super-chunk pointer from this library.
        let mut h = match unsafe { holder(schunk) } {
            Ok(h) => h,
            Err(e) => return e.code(),
        };
        h.c.current_nchunk = nchunk;
        match h.sc.lazy_chunk(nchunk) {
            Ok(c) => {
                let p = malloc_copy(&c);
                if p.is_null() {
                    return Error::MemoryAlloc.code();
                }
                // SAFETY: out-pointers checked above.
                unsafe {
                    *chunk = p;
                    *needs_free = true;
                }
                c.len() as c_int
            }
            Err(e) => e.code(),
        }
    })
}

/// The whole chunk behind `src` when it is a lazy chunk of the super-chunk
/// `schunk` (a context's `schunk` field); `None` for any other chunk.
///
/// # Safety
/// `schunk` must be 0 or the address of a live super-chunk of this library.
pub(crate) unsafe fn resolve_lazy_for(schunk: usize, src: &[u8]) -> Result<Option<Vec<u8>>> {
    if schunk == 0 || src.len() < crate::format::header::EXTENDED_HEADER_LENGTH {
        return Ok(None);
    }
    let h = ChunkHeader::parse_min(src)?;
    if !h.is_extended() || src[31] & crate::frame::LAZY_FLAG == 0 {
        return Ok(None);
    }
    // SAFETY: guaranteed by the caller (the reference dereferences it too).
    let h = unsafe { holder_raw(schunk as *mut blosc2_schunk) }?;
    h.sc.resolve_lazy(src).map(Some)
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_vlblock(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    nblock: i32,
    dest: *mut *mut u8,
    destsize: *mut i32,
) -> c_int {
    guard(Error::Failure.code(), || {
        if schunk.is_null() || dest.is_null() || destsize.is_null() {
            return Error::InvalidParam.code();
        }
        let mut chunk: *mut u8 = std::ptr::null_mut();
        let mut nf = false;
        // SAFETY: a super-chunk pointer from this library; valid out-pointers.
        let cb = unsafe { get_chunk_impl(schunk, nchunk, &mut chunk, &mut nf) };
        if cb < 0 {
            return cb;
        }
        if chunk.is_null() || cb == 0 {
            return Error::InvalidParam.code();
        }
        // SAFETY: the super-chunk's decompression context and the chunk just read.
        let rc = unsafe {
            super::api::blosc2_vldecompress_block_ctx(
                (*schunk).dctx,
                chunk as *const c_void,
                cb,
                nblock,
                dest,
                destsize,
            )
        };
        if nf {
            // SAFETY: malloc'ed by get_chunk_impl for us.
            unsafe { libc::free(chunk as *mut c_void) };
        }
        rc
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_sparse_buffer(
    schunk: *mut blosc2_schunk,
    ncoords: i64,
    coords: *const i64,
    buffer: *mut c_void,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: a super-chunk pointer from this library.
        let h = match unsafe { holder(schunk) } {
            Ok(h) => h,
            Err(_) => return Error::InvalidParam.code(),
        };
        if ncoords < 0 {
            return Error::InvalidParam.code();
        }
        if ncoords == 0 {
            return 0;
        }
        if coords.is_null() || buffer.is_null() {
            return Error::InvalidParam.code();
        }
        let ts = h.sc.typesize().max(0) as usize;
        let Some(n) = (ncoords as usize).checked_mul(ts) else {
            return Error::InvalidParam.code();
        };
        // SAFETY: the caller passes ncoords coordinates and room for as many items.
        let (c, out) = unsafe {
            (
                items(coords, ncoords as usize),
                items_mut(buffer as *mut u8, n),
            )
        };
        match h.sc.get_sparse(c, out) {
            Ok(()) => 0,
            Err(e) => e.code(),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_reorder_offsets(
    schunk: *mut blosc2_schunk,
    offsets_order: *mut i64,
) -> c_int {
    // SAFETY: pointers as documented in blosc2.h.
    let r = unsafe {
        mutate(schunk, |h| {
            let n = h.sc.nchunks() as usize;
            if offsets_order.is_null() && n > 0 {
                return Err(Error::NullPointer);
            }
            // SAFETY: offsets_order holds nchunks entries.
            let order = if n == 0 {
                &[][..]
            } else {
                items(offsets_order, n)
            };
            h.sc.reorder_offsets(order)?;
            h.c.change_tick += 1;
            Ok(0)
        })
    };
    r as c_int
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_get_slice_nchunks(
    schunk: *mut blosc2_schunk,
    start: *mut i64,
    stop: *mut i64,
    chunks_idx: *mut *mut i64,
) -> i64 {
    guard(Error::Failure.code() as i64, || {
        // SAFETY: a super-chunk pointer from this library.
        let h = match unsafe { holder(schunk) } {
            Ok(h) => h,
            Err(e) => return e.code() as i64,
        };
        if start.is_null() || stop.is_null() || chunks_idx.is_null() {
            return Error::NullPointer.code() as i64;
        }
        let nd = match h.sc.b2nd_ndim() {
            Ok(nd) => nd,
            Err(e) => return e.code() as i64,
        };
        let idx = if let Some(nd) = nd {
            // SAFETY: start and stop hold ndim entries for an n-dimensional array.
            let (a, b) = unsafe { (items(start, nd), items(stop, nd)) };
            match h.sc.b2nd_slice_nchunks(a, b) {
                Ok(v) => v,
                Err(e) => return e.code() as i64,
            }
        } else {
            // SAFETY: as above.
            let (a, b) = unsafe { (*start, *stop) };
            match h.sc.slice_nchunks(a, b) {
                Ok(v) => v,
                Err(e) => return e.code() as i64,
            }
        };
        let p = if idx.is_empty() {
            std::ptr::null_mut()
        } else {
            malloc_i64s(&idx)
        };
        if !idx.is_empty() && p.is_null() {
            return Error::MemoryAlloc.code() as i64;
        }
        // SAFETY: checked non-NULL above.
        unsafe { *chunks_idx = p };
        idx.len() as i64
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_slice_buffer(
    schunk: *mut blosc2_schunk,
    start: i64,
    stop: i64,
    buffer: *mut c_void,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: a super-chunk pointer from this library.
        let h = match unsafe { holder(schunk) } {
            Ok(h) => h,
            Err(e) => return e.code(),
        };
        if buffer.is_null() {
            return Error::InvalidParam.code();
        }
        // As the reference: an empty or reversed range reads nothing and
        // succeeds; a range outside the super-chunk is BLOSC2_ERROR_FAILURE.
        if stop <= start {
            return 0;
        }
        let Some(n) = (stop - start).checked_mul(h.sc.typesize() as i64) else {
            return Error::Failure.code();
        };
        if start < 0 || n > isize::MAX as i64 {
            return Error::Failure.code();
        }
        // SAFETY: the buffer holds (stop - start) * typesize bytes.
        let out = unsafe { items_mut(buffer as *mut u8, n as usize) };
        match h.sc.get_slice(start, stop, out) {
            Ok(()) => 0,
            Err(Error::InvalidParam) => Error::Failure.code(),
            Err(e) => e.code(),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_set_slice_buffer(
    schunk: *mut blosc2_schunk,
    start: i64,
    stop: i64,
    buffer: *mut c_void,
) -> c_int {
    // SAFETY: pointers as documented in blosc2.h.
    let r = unsafe {
        mutate(schunk, |h| {
            if buffer.is_null() || stop < start {
                return Err(Error::InvalidParam);
            }
            let n = (stop - start)
                .checked_mul(h.sc.typesize() as i64)
                .ok_or(Error::InvalidParam)?;
            // SAFETY: the buffer holds (stop - start) * typesize bytes.
            let src = bytes(buffer as *const u8, n as usize);
            h.sc.set_slice(start, stop, src).map(|_| 0)
        })
    };
    r as c_int
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_fill_special(
    schunk: *mut blosc2_schunk,
    nitems: i64,
    special_value: c_int,
    chunksize: i32,
) -> i64 {
    // SAFETY: pointers as documented in blosc2.h.
    unsafe {
        mutate(schunk, |h| {
            let kind = match special_value {
                1 => Special::Zero,
                2 => Special::Nan,
                4 => Special::Uninit,
                _ => return Err(Error::SchunkSpecial),
            };
            h.sc.fill_special(nitems, kind, chunksize)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_cparams(
    schunk: *mut blosc2_schunk,
    cparams: *mut *mut blosc2_cparams,
) -> c_int {
    guard(Error::Failure.code(), || {
        if cparams.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: a super-chunk pointer from this library.
        let h = match unsafe { holder(schunk) } {
            Ok(h) => h,
            Err(e) => return e.code(),
        };
        // SAFETY: calloc'ed like the reference; all-zero is a valid blosc2_cparams.
        let p = unsafe { libc::calloc(1, std::mem::size_of::<blosc2_cparams>()) }
            as *mut blosc2_cparams;
        if p.is_null() {
            return Error::MemoryAlloc.code();
        }
        let sc = &h.sc;
        // SAFETY: p is a fresh, zeroed blosc2_cparams.
        let c = unsafe { &mut *p };
        c.schunk = schunk as *mut c_void;
        c.filters = sc.cparams.filters;
        c.filters_meta = sc.cparams.filters_meta;
        c.compcode = sc.cparams.compcode;
        c.compcode_meta = sc.cparams.compcode_meta;
        c.clevel = sc.cparams.clevel;
        c.typesize = sc.cparams.typesize;
        c.blocksize = sc.blocksize;
        c.splitmode = sc.cparams.splitmode as i32;
        c.use_dict = c_int::from(sc.cparams.use_dict);
        c.nthreads = sc.cparams.nthreads;
        // SAFETY: checked non-NULL above.
        unsafe { *cparams = p };
        0
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_dparams(
    schunk: *mut blosc2_schunk,
    dparams: *mut *mut blosc2_dparams,
) -> c_int {
    guard(Error::Failure.code(), || {
        if dparams.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: a super-chunk pointer from this library.
        let h = match unsafe { holder(schunk) } {
            Ok(h) => h,
            Err(e) => return e.code(),
        };
        // SAFETY: calloc'ed like the reference; all-zero is a valid blosc2_dparams.
        let p = unsafe { libc::calloc(1, std::mem::size_of::<blosc2_dparams>()) }
            as *mut blosc2_dparams;
        if p.is_null() {
            return Error::MemoryAlloc.code();
        }
        // SAFETY: p is a fresh, zeroed blosc2_dparams; dparams checked above.
        unsafe {
            (*p).schunk = schunk as *mut c_void;
            (*p).nthreads = h.sc.dparams.nthreads;
            *dparams = p;
        }
        0
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_frame_get_offsets(schunk: *mut blosc2_schunk) -> *mut i64 {
    guard(std::ptr::null_mut(), || {
        // SAFETY: a super-chunk pointer from this library.
        let Ok(h) = (unsafe { holder(schunk) }) else {
            return std::ptr::null_mut();
        };
        let Some(f) = h.sc.frame() else {
            return std::ptr::null_mut();
        };
        malloc_i64s(f.offsets())
    })
}

// ---------------------------------------------------------------- metalayers

#[no_mangle]
pub unsafe extern "C" fn blosc2_meta_add(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut u8,
    content_len: i32,
) -> c_int {
    // SAFETY: pointers as documented in blosc2.h.
    let r = unsafe {
        mutate(schunk, |h| {
            let name = string_arg(name)?;
            if content_len < 0 || (content.is_null() && content_len > 0) {
                return Err(Error::InvalidParam);
            }
            // SAFETY: content holds content_len bytes.
            let c = bytes(content, content_len as usize);
            let r = h.sc.meta_add(&name, c).map(|i| i as i64);
            h.sync_all();
            h.c.change_tick += 1;
            r
        })
    };
    r as c_int
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_meta_update(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut u8,
    content_len: i32,
) -> c_int {
    // SAFETY: pointers as documented in blosc2.h.
    let r = unsafe {
        mutate(schunk, |h| {
            let name = string_arg(name)?;
            if content_len < 0 || (content.is_null() && content_len > 0) {
                return Err(Error::InvalidParam);
            }
            // SAFETY: content holds content_len bytes.
            let c = bytes(content, content_len as usize);
            let r = h.sc.meta_update(&name, c).map(|i| i as i64);
            h.sync_all();
            h.c.change_tick += 1;
            r
        })
    };
    r as c_int
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_exists(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: a super-chunk pointer from this library.
        let h = match unsafe { holder(schunk) } {
            Ok(h) => h,
            Err(_) => return Error::InvalidParam.code(),
        };
        // SAFETY: C strings passed to the API are NUL-terminated.
        let Ok(name) = (unsafe { string_arg(name) }) else {
            return Error::InvalidParam.code();
        };
        super::code(h.sc.vlmeta_exists(&name))
    })
}

fn vlmeta_cparams(cparams: *mut blosc2_cparams) -> Result<Option<CParams>> {
    // SAFETY: NULL or a valid blosc2_cparams, as documented.
    match unsafe { cparams.as_ref() } {
        None => Ok(None),
        Some(c) => cparams_from_c(c, true).map(Some).ok_or(Error::NullPointer),
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_add(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut u8,
    content_len: i32,
    cparams: *mut blosc2_cparams,
) -> c_int {
    // SAFETY: pointers as documented in blosc2.h.
    let r = unsafe {
        mutate(schunk, |h| {
            let name = string_arg(name)?;
            if content_len < 0 || (content.is_null() && content_len > 0) {
                return Err(Error::InvalidParam);
            }
            let cp = vlmeta_cparams(cparams)?;
            // SAFETY: content holds content_len bytes.
            let c = bytes(content, content_len as usize);
            let r = h.sc.vlmeta_add(&name, c, cp.as_ref()).map(|i| i as i64);
            h.sync_all();
            h.c.change_tick += 1;
            r
        })
    };
    r as c_int
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_update(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut u8,
    content_len: i32,
    cparams: *mut blosc2_cparams,
) -> c_int {
    // SAFETY: pointers as documented in blosc2.h.
    let r = unsafe {
        mutate(schunk, |h| {
            let name = string_arg(name)?;
            if content_len < 0 || (content.is_null() && content_len > 0) {
                return Err(Error::InvalidParam);
            }
            let cp = vlmeta_cparams(cparams)?;
            // SAFETY: content holds content_len bytes.
            let c = bytes(content, content_len as usize);
            let r = h.sc.vlmeta_update(&name, c, cp.as_ref()).map(|i| i as i64);
            h.sync_all();
            h.c.change_tick += 1;
            r
        })
    };
    r as c_int
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_get(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut *mut u8,
    content_len: *mut i32,
) -> c_int {
    guard(Error::Failure.code(), || {
        if content.is_null() || content_len.is_null() {
            return Error::InvalidParam.code();
        }
        // SAFETY: a super-chunk pointer from this library.
        let h = match unsafe { holder(schunk) } {
            Ok(h) => h,
            Err(_) => return Error::InvalidParam.code(),
        };
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
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_delete(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
) -> c_int {
    // SAFETY: pointers as documented in blosc2.h.
    let r = unsafe {
        mutate(schunk, |h| {
            let name = string_arg(name)?;
            let r = h.sc.vlmeta_delete(&name).map(|n| n as i64);
            h.sync_all();
            h.c.change_tick += 1;
            r
        })
    };
    r as c_int
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_get_names(
    schunk: *mut blosc2_schunk,
    names: *mut *mut c_char,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: a super-chunk pointer from this library.
        let h = match unsafe { holder(schunk) } {
            Ok(h) => h,
            Err(e) => return e.code(),
        };
        if names.is_null() && !h.vlmetas.is_empty() {
            return Error::NullPointer.code();
        }
        for (i, m) in h.vlmetas.iter().enumerate() {
            // SAFETY: `names` has room for nvlmetalayers entries (blosc2.h).
            unsafe { *names.add(i) = m.c.name };
        }
        h.vlmetas.len() as c_int
    })
}

// ---------------------------------------------------------------- locks

/// `blosc2_stdio_params`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct blosc2_stdio_params {
    pub locking: bool,
}

/// Whether file locking is enabled for a handle (the plain file backend's
/// `locking` parameter, or the BLOSC_LOCKING environment variable).
fn locking_enabled(io: &blosc2_io) -> bool {
    if let Some(v) = std::env::var_os("BLOSC_LOCKING") {
        if !v.is_empty() && v != "0" {
            return true;
        }
    }
    if io.id != super::io::IO_FILESYSTEM {
        return false;
    }
    // SAFETY: the plain file backend's params are NULL or a blosc2_stdio_params.
    unsafe { (io.params as *const blosc2_stdio_params).as_ref() }.is_some_and(|p| p.locking)
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_lock(schunk: *mut blosc2_schunk) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: a super-chunk pointer from this library.
        let h = match unsafe { holder_raw(schunk) } {
            Ok(h) => h,
            Err(e) => return e.code(),
        };
        if !h.sc.locking() {
            return 0;
        }
        match h.sc.lock(true) {
            Ok(changed) => {
                if changed {
                    h.c.change_tick += 1;
                    h.sync_all();
                }
                0
            }
            Err(e) => e.code(),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_unlock(schunk: *mut blosc2_schunk) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: a super-chunk pointer from this library.
        let h = match unsafe { holder_raw(schunk) } {
            Ok(h) => h,
            Err(e) => return e.code(),
        };
        let was_held = h.sc.lock_held();
        if let Err(e) = h.sc.unlock() {
            return e.code();
        }
        if was_held && !h.sc.lock_held() {
            // The bracket's changes go to stable storage at its end.
            let _ = h.sc.sync();
        }
        0
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_refresh(schunk: *mut blosc2_schunk) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: a super-chunk pointer from this library.
        let h = match unsafe { holder_raw(schunk) } {
            Ok(h) => h,
            Err(e) => return e.code(),
        };
        match h.sc.refresh() {
            Ok(true) => {
                h.c.change_tick += 1;
                h.sync_all();
                1
            }
            Ok(false) => 0,
            Err(e) => e.code(),
        }
    })
}

// ---------------------------------------------------------------- files

#[no_mangle]
pub unsafe extern "C" fn blosc2_remove_dir(path: *const c_char) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: C strings passed to the API are NUL-terminated.
        let Ok(p) = (unsafe { string_arg(path) }) else {
            return Error::FileRemove.code();
        };
        let p = Path::new(&p);
        let Ok(entries) = std::fs::read_dir(p) else {
            return Error::FileRemove.code();
        };
        // Like the reference: the (flat) files of the directory, then the directory.
        for e in entries.flatten() {
            if std::fs::remove_file(e.path()).is_err() {
                return Error::FileRemove.code();
            }
        }
        match std::fs::remove_dir(p) {
            Ok(()) => 0,
            Err(_) => Error::FileRemove.code(),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_rename_urlpath(
    old_urlpath: *mut c_char,
    new_path: *mut c_char,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: C strings passed to the API are NUL-terminated.
        let (Ok(old), Ok(new)) = (unsafe { (string_arg(old_urlpath), string_arg(new_path)) })
        else {
            // Like the reference, NULL paths leave everything as it is.
            return 0;
        };
        if std::fs::metadata(&old).is_err() {
            return Error::Failure.code();
        }
        match std::fs::rename(&old, &new) {
            Ok(()) => 0,
            Err(_) => Error::Failure.code(),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_remove_urlpath(urlpath: *const c_char) -> c_int {
    guard(Error::Failure.code(), || {
        if urlpath.is_null() {
            return 0;
        }
        // SAFETY: C strings passed to the API are NUL-terminated.
        let Ok(url) = (unsafe { string_arg(urlpath) }) else {
            return 0;
        };
        let p = Path::new(&url);
        let meta = match std::fs::symlink_metadata(p) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return 0,
            Err(_) => return Error::Failure.code(),
        };
        let r = if meta.is_dir() {
            std::fs::remove_dir_all(p)
        } else {
            std::fs::remove_file(p)
        };
        if r.is_err() {
            return Error::FileRemove.code();
        }
        let _ = std::fs::remove_file(format!("{url}.b2lock"));
        0
    })
}

#[cfg(test)]
mod limit_tests {
    use super::*;

    /// Sizes at the 2 GiB limit without allocating them: special chunks only.
    #[test]
    fn special_chunks_at_the_2gib_limit() {
        let max = i32::MAX - 32;
        // SAFETY: a NULL storage is an in-memory super-chunk (typesize 8).
        unsafe {
            let sc = blosc2_schunk_new(std::ptr::null_mut());
            assert!(!sc.is_null());
            let cs = max - max % 8;
            let nitems = 3 * (cs as i64 / 8) + 5;
            assert_eq!(blosc2_schunk_fill_special(sc, nitems, 1, cs), 4);
            assert_eq!((*sc).nbytes, nitems * 8);
            assert_eq!((*sc).chunksize, cs);
            let mut probe = [0xffu8; 64];
            let buf = probe.as_mut_ptr() as *mut c_void;
            assert_eq!(
                blosc2_schunk_get_slice_buffer(sc, nitems - 8, nitems, buf),
                0
            );
            assert!(probe.iter().all(|&b| b == 0));
            // Out of range, reversed and empty ranges as the reference answers.
            assert_eq!(
                blosc2_schunk_get_slice_buffer(sc, nitems - 7, nitems + 1, buf),
                -1
            );
            assert_eq!(blosc2_schunk_get_slice_buffer(sc, -1, 2, buf), -1);
            assert_eq!(
                blosc2_schunk_get_slice_buffer(sc, i64::MAX / 2, i64::MAX, buf),
                -1
            );
            assert_eq!(blosc2_schunk_get_slice_buffer(sc, 5, 3, buf), 0);
            assert_eq!(
                blosc2_schunk_get_slice_buffer(sc, nitems + 5, nitems + 5, buf),
                0
            );
            blosc2_schunk_free(sc);

            // A chunksize past BLOSC2_MAX_BUFFERSIZE is refused, nothing added.
            let sc = blosc2_schunk_new(std::ptr::null_mut());
            assert!(blosc2_schunk_fill_special(sc, nitems, 1, i32::MAX - 7) < 0);
            assert_eq!((*sc).nchunks, 0);
            assert_eq!((*sc).nbytes, 0);
            blosc2_schunk_free(sc);
        }
    }
}
