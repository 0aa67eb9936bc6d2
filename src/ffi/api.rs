//! Chunk-level C functions of blosc2.h.
#![allow(clippy::missing_safety_doc)]

use super::ctx::{cparams_defaults, dparams_defaults, Context};
use super::ptr::{bytes, bytes_mut, items, items_mut, malloc_copy, static_cstr, store_opt, string};
use super::types::*;
use super::{code, guard};
use crate::chunk::env::EnvOverrides;
use crate::chunk::{self, global, DParams};
use crate::error::Error;
use crate::format::header::{ChunkHeader, Special, MIN_HEADER_LENGTH};
use once_cell::sync::Lazy;
use std::ffi::CString;
use std::os::raw::{c_char, c_int, c_void};

/// The bytes of a chunk at `src`: at most `srcsize`, and no more than the
/// header's cbytes (so that callers passing a huge srcsize, as blosc1 does,
/// never make us look past the chunk).
///
/// # Safety
/// `src` must point at a chunk of at least min(srcsize, cbytes) bytes, or at
/// least 16 bytes when srcsize >= 16.
unsafe fn chunk_slice<'a>(src: *const c_void, srcsize: i32) -> Result<&'a [u8], Error> {
    if src.is_null() {
        return Err(Error::NullPointer);
    }
    if srcsize < MIN_HEADER_LENGTH as i32 {
        return Err(Error::ReadBuffer);
    }
    // SAFETY: srcsize >= 16, so the caller guarantees the first 16 bytes.
    let head = unsafe { bytes(src, MIN_HEADER_LENGTH) };
    let h = ChunkHeader::parse_min(head)?;
    let mut n = (srcsize as usize).min(h.cbytes as usize);
    if h.is_extended() && srcsize as usize >= crate::format::header::EXTENDED_HEADER_LENGTH {
        // SAFETY: srcsize >= 32 bytes are readable.
        let full = unsafe { bytes(src, crate::format::header::EXTENDED_HEADER_LENGTH) };
        if ChunkHeader::parse(full).is_ok_and(|f| f.lazy()) {
            // A lazy chunk ends with its trailer, which may lie past the
            // cbytes of a small chunk: it is as long as the caller says.
            n = srcsize as usize;
        }
    }
    // SAFETY: n <= srcsize, and n <= cbytes unless a lazy chunk's own length.
    Ok(unsafe { bytes(src, n) })
}

// ---------------------------------------------------------------- lifecycle

#[no_mangle]
pub extern "C" fn blosc2_init() {
    guard((), || {
        super::plugins::register_builtin_plugins();
        global::settings().initialized = true;
    })
}

#[no_mangle]
pub extern "C" fn blosc2_destroy() {
    guard((), || {
        global::settings().initialized = false;
        crate::pool::clear();
    })
}

#[no_mangle]
pub extern "C" fn blosc2_free_resources() -> c_int {
    guard(-1, || {
        if !global::settings().initialized {
            return Error::Failure.code();
        }
        crate::pool::clear();
        0
    })
}

// ---------------------------------------------------------------- global API

#[no_mangle]
pub unsafe extern "C" fn blosc2_compress(
    clevel: c_int,
    doshuffle: c_int,
    typesize: i32,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    guard(Error::Failure.code(), || {
        let env = EnvOverrides::from_env();
        let (clevel, doshuffle, typesize) =
            global::settings().apply_env(&env, clevel, doshuffle, typesize);
        if src.is_null() && srcsize > 0 || dest.is_null() {
            return Error::NullPointer.code();
        }
        if srcsize < 0 || destsize < 0 {
            return Error::InvalidParam.code();
        }
        // SAFETY: the caller guarantees srcsize readable bytes at src and
        // destsize writable bytes at dest.
        let (s, d) = unsafe {
            (
                bytes(src, srcsize as usize),
                bytes_mut(dest, destsize as usize),
            )
        };
        code(global::compress(clevel, doshuffle, typesize, s, d))
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc1_compress(
    clevel: c_int,
    doshuffle: c_int,
    typesize: usize,
    nbytes: usize,
    src: *const c_void,
    dest: *mut c_void,
    destsize: usize,
) -> c_int {
    if nbytes > i32::MAX as usize {
        return Error::MaxBufsizeExceeded.code();
    }
    // SAFETY: forwarded contract.
    unsafe {
        blosc2_compress(
            clevel,
            doshuffle,
            typesize.min(i32::MAX as usize) as i32,
            src,
            nbytes as i32,
            dest,
            destsize.min(i32::MAX as usize) as i32,
        )
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_decompress(
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    guard(Error::Failure.code(), || {
        if let Err(e) = global::apply_decompress_env(&EnvOverrides::from_env()) {
            return e.code();
        }
        if dest.is_null() && destsize > 0 {
            return Error::NullPointer.code();
        }
        if destsize < 0 {
            return Error::WriteBuffer.code();
        }
        // SAFETY: see chunk_slice; dest is valid for destsize bytes.
        let s = match unsafe { chunk_slice(src, srcsize) } {
            Ok(s) => s,
            Err(e) => return e.code(),
        };
        // SAFETY: the caller guarantees destsize writable bytes at dest.
        let d = unsafe { bytes_mut(dest, destsize.max(0) as usize) };
        code(global::decompress(s, d))
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc1_decompress(
    src: *const c_void,
    dest: *mut c_void,
    destsize: usize,
) -> c_int {
    // SAFETY: forwarded contract (blosc1 gives no source size: the header's cbytes bounds it).
    unsafe { blosc2_decompress(src, i32::MAX, dest, destsize.min(i32::MAX as usize) as i32) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_getitem(
    src: *const c_void,
    srcsize: i32,
    start: c_int,
    nitems: c_int,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: see chunk_slice.
        let s = match unsafe { chunk_slice(src, srcsize) } {
            Ok(s) => s,
            Err(e) => return e.code(),
        };
        if dest.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: the caller guarantees destsize bytes at dest.
        let d = unsafe { bytes_mut(dest, destsize.max(0) as usize) };
        code(chunk::getitem(
            &DParams::default(),
            s,
            start as i64,
            nitems as i64,
            d,
        ))
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc1_getitem(
    src: *const c_void,
    start: c_int,
    nitems: c_int,
    dest: *mut c_void,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: see chunk_slice.
        let s = match unsafe { chunk_slice(src, i32::MAX) } {
            Ok(s) => s,
            Err(e) => return e.code(),
        };
        let ts = ChunkHeader::parse_min(s).map_or(0, |h| h.typesize as i64);
        let want = (nitems.max(0) as i64)
            .saturating_mul(ts)
            .min(i32::MAX as i64) as usize;
        if dest.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: blosc1_getitem's contract: dest holds nitems * typesize bytes.
        let d = unsafe { bytes_mut(dest, want) };
        code(chunk::getitem(
            &DParams::default(),
            s,
            start as i64,
            nitems as i64,
            d,
        ))
    })
}

// ---------------------------------------------------------------- header info

#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_sizes(
    cbuffer: *const c_void,
    nbytes: *mut i32,
    cbytes: *mut i32,
    blocksize: *mut i32,
) -> c_int {
    guard(Error::Failure.code(), || {
        let h = if cbuffer.is_null() {
            Err(Error::NullPointer)
        } else {
            // SAFETY: the API requires at least a 16-byte header at cbuffer.
            ChunkHeader::parse_min(unsafe { bytes(cbuffer, MIN_HEADER_LENGTH) })
        };
        let (n, c, b, rc) = match h {
            Ok(h) => {
                // Like the reference, which reads only the first 16 bytes here.
                let bs = if h.nbytes > 0 && h.blocksize > h.nbytes {
                    h.nbytes
                } else {
                    h.blocksize
                };
                (h.nbytes, h.cbytes, bs, 0)
            }
            Err(e) => (0, 0, 0, e.code()),
        };
        store_opt(nbytes, n);
        store_opt(cbytes, c);
        store_opt(blocksize, b);
        rc
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_sizes(
    cbuffer: *const c_void,
    nbytes: *mut usize,
    cbytes: *mut usize,
    blocksize: *mut usize,
) {
    let (mut n, mut c, mut b) = (0i32, 0i32, 0i32);
    // SAFETY: forwarded contract; the locals are valid.
    unsafe { blosc2_cbuffer_sizes(cbuffer, &mut n, &mut c, &mut b) };
    store_opt(nbytes, n as usize);
    store_opt(cbytes, c as usize);
    store_opt(blocksize, b as usize);
}

#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_validate(
    cbuffer: *const c_void,
    cbytes: usize,
    nbytes: *mut usize,
) -> c_int {
    guard(Error::Failure.code(), || {
        let set = |v: usize| {
            if !nbytes.is_null() {
                // SAFETY: nbytes is valid for one size_t when non-null.
                unsafe { *nbytes = v };
            }
        };
        if cbytes < MIN_HEADER_LENGTH {
            set(0);
            return Error::WriteBuffer.code();
        }
        if cbuffer.is_null() {
            set(0);
            return Error::NullPointer.code();
        }
        // SAFETY: cbytes >= 16 bytes are readable at cbuffer.
        match ChunkHeader::parse_min(unsafe { bytes(cbuffer, MIN_HEADER_LENGTH) }) {
            Err(e) => {
                set(0);
                e.code()
            }
            Ok(h) => {
                if h.cbytes as usize != cbytes {
                    set(0);
                    return Error::InvalidHeader.code();
                }
                if h.nbytes > crate::format::header::MAX_BUFFERSIZE {
                    set(0);
                    return Error::MemoryAlloc.code();
                }
                set(h.nbytes as usize);
                0
            }
        }
    })
}

/// The 16-byte header at `cbuffer`, if it is non-null and valid.
///
/// # Safety
/// A non-null `cbuffer` must have at least 16 readable bytes.
unsafe fn min_header(cbuffer: *const c_void) -> Option<ChunkHeader> {
    if cbuffer.is_null() {
        return None;
    }
    // SAFETY: guaranteed by the caller.
    ChunkHeader::parse_min(unsafe { bytes(cbuffer, MIN_HEADER_LENGTH) }).ok()
}

#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_metainfo(
    cbuffer: *const c_void,
    typesize: *mut usize,
    flags: *mut c_int,
) {
    guard((), || {
        // SAFETY: the API requires a 16-byte header at cbuffer.
        let h = unsafe { min_header(cbuffer) };
        let (t, f) = h
            .map(|h| (h.typesize as usize, h.flags as c_int))
            .unwrap_or((0, 0));
        store_opt(typesize, t);
        store_opt(flags, f);
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_versions(
    cbuffer: *const c_void,
    version: *mut c_int,
    versionlz: *mut c_int,
) {
    guard((), || {
        // SAFETY: the API requires a 16-byte header at cbuffer.
        let h = unsafe { min_header(cbuffer) };
        let (v, l) = h
            .map(|h| (h.version as c_int, h.versionlz as c_int))
            .unwrap_or((0, 0));
        store_opt(version, v);
        store_opt(versionlz, l);
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_complib(cbuffer: *const c_void) -> *const c_char {
    guard(std::ptr::null(), || {
        // SAFETY: the API requires a 16-byte header at cbuffer.
        match unsafe { min_header(cbuffer) }.and_then(|h| crate::codec::libname(h.compformat())) {
            Some(n) => static_cstr(&n),
            None => std::ptr::null(),
        }
    })
}

// ---------------------------------------------------------------- settings

#[no_mangle]
pub extern "C" fn blosc1_get_compressor() -> *const c_char {
    guard(std::ptr::null(), || {
        let c = global::settings().compcode;
        crate::codec::name(c)
            .map(|n| static_cstr(&n))
            .unwrap_or(std::ptr::null())
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc1_set_compressor(compname: *const c_char) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: a non-NULL name passed to the API is NUL-terminated.
        let Some(name) = (unsafe { string(compname) }) else {
            return Error::NullPointer.code();
        };
        match global::settings().set_compressor(&name) {
            Ok(c) => c as c_int,
            Err(e) => e.code(),
        }
    })
}

#[no_mangle]
pub extern "C" fn blosc2_set_delta(dodelta: c_int) {
    guard((), || global::settings().delta = dodelta != 0)
}

#[no_mangle]
pub extern "C" fn blosc1_get_blocksize() -> c_int {
    guard(0, || global::settings().blocksize)
}

#[no_mangle]
pub extern "C" fn blosc1_set_blocksize(blocksize: usize) {
    guard((), || global::settings().set_blocksize(blocksize))
}

#[no_mangle]
pub extern "C" fn blosc1_set_splitmode(splitmode: c_int) {
    guard((), || global::settings().splitmode = splitmode)
}

#[no_mangle]
pub extern "C" fn blosc2_get_nthreads() -> i16 {
    guard(1, || global::settings().nthreads)
}

#[no_mangle]
pub extern "C" fn blosc2_set_nthreads(nthreads: i16) -> i16 {
    guard(Error::Failure.code() as i16, || {
        match global::settings().set_nthreads(nthreads) {
            Ok(old) => old,
            Err(e) => e.code() as i16,
        }
    })
}

/// One job handed to a caller's threads callback.
#[repr(C)]
struct CallbackJob {
    run: *const (dyn Fn(usize) + Sync),
    index: usize,
}

unsafe extern "C" fn callback_trampoline(arg: *mut c_void) {
    if arg.is_null() {
        return;
    }
    // SAFETY: `arg` points at one CallbackJob of the array built in the executor
    // below, which outlives the callback call; `run` borrows a closure that is
    // alive for the same duration.
    let job = unsafe { &*(arg as *const CallbackJob) };
    let f = unsafe { &*job.run };
    let index = job.index;
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(index)));
}

struct CallbackExecutor {
    callback: unsafe extern "C" fn(
        *mut c_void,
        Option<unsafe extern "C" fn(*mut c_void)>,
        c_int,
        usize,
        *mut c_void,
    ),
    data: usize,
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_set_threads_callback(
    callback: blosc_threads_callback,
    callback_data: *mut c_void,
) {
    guard((), || match callback {
        None => crate::pool::set_executor(None),
        Some(cb) => {
            let ex = CallbackExecutor {
                callback: cb,
                data: callback_data as usize,
            };
            crate::pool::set_executor(Some(std::sync::Arc::new(
                move |njobs: usize, f: &(dyn Fn(usize) + Sync)| {
                    // SAFETY: erase the borrow's lifetime only for the duration of the
                    // callback, which must return after every job has run.
                    let f: &'static (dyn Fn(usize) + Sync) = unsafe { std::mem::transmute(f) };
                    let mut jobs: Vec<CallbackJob> = (0..njobs)
                        .map(|index| CallbackJob {
                            run: f as *const _,
                            index,
                        })
                        .collect();
                    // SAFETY: the caller's callback runs `dojob` on each of the `njobs`
                    // entries (each `elsize` bytes) and returns when all are done.
                    unsafe {
                        (ex.callback)(
                            ex.data as *mut c_void,
                            Some(callback_trampoline),
                            njobs as c_int,
                            std::mem::size_of::<CallbackJob>(),
                            jobs.as_mut_ptr() as *mut c_void,
                        )
                    };
                },
            )));
        }
    })
}

// ---------------------------------------------------------------- names

#[no_mangle]
pub unsafe extern "C" fn blosc2_compcode_to_compname(
    compcode: c_int,
    compname: *mut *const c_char,
) -> c_int {
    guard(-1, || {
        let name = if (0..=255).contains(&compcode) {
            crate::codec::name(compcode as u8)
        } else {
            None
        };
        if !compname.is_null() {
            // SAFETY: compname is valid for one pointer when non-null.
            unsafe {
                *compname = name.as_deref().map(static_cstr).unwrap_or(std::ptr::null());
            }
        }
        if name.is_some() {
            compcode
        } else {
            -1
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_compname_to_compcode(compname: *const c_char) -> c_int {
    guard(-1, || {
        // SAFETY: a non-NULL name passed to the API is NUL-terminated.
        match unsafe { string(compname) }.and_then(|n| crate::codec::code_of(&n)) {
            Some(c) => c as c_int,
            None => -1,
        }
    })
}

#[no_mangle]
pub extern "C" fn blosc2_list_compressors() -> *const c_char {
    guard(std::ptr::null(), || {
        static_cstr("blosclz,lz4,lz4hc,zlib,zstd")
    })
}

#[no_mangle]
pub extern "C" fn blosc2_get_version_string() -> *const c_char {
    c"3.3.5".as_ptr()
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_get_complib_info(
    compname: *const c_char,
    complib: *mut *mut c_char,
    version: *mut *mut c_char,
) -> c_int {
    guard(-1, || {
        // SAFETY: a non-NULL name passed to the API is NUL-terminated.
        let Some(name) = (unsafe { string(compname) }) else {
            return Error::NullPointer.code();
        };
        let lib = crate::codec::complib_of(&name);
        let (libname, ver) = match lib {
            Some(l) => (crate::codec::libname(l), crate::codec::lib_version(l)),
            None => (None, "unknown".to_string()),
        };
        let dup = |s: &str| -> *mut c_char {
            let c = CString::new(s).unwrap_or_default();
            // SAFETY: strdup copies a NUL-terminated string into malloc'ed memory,
            // which the caller frees with free() as with the reference.
            unsafe { libc::strdup(c.as_ptr()) }
        };
        // SAFETY: outputs are valid when non-null.
        unsafe {
            if !complib.is_null() {
                *complib = libname.as_deref().map(dup).unwrap_or(std::ptr::null_mut());
            }
            if !version.is_null() {
                *version = dup(&ver);
            }
        }
        match lib {
            Some(l) => l as c_int,
            None => Error::NotFound.code(),
        }
    })
}

#[no_mangle]
pub extern "C" fn blosc2_error_string(error_code: c_int) -> *const c_char {
    guard(std::ptr::null(), || {
        if (-37..=-1).contains(&error_code) {
            static_cstr(Error::from_code(error_code).message())
        } else {
            static_cstr("Unknown error")
        }
    })
}

// ---------------------------------------------------------------- defaults

#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_cparams_defaults() -> blosc2_cparams {
    cparams_defaults()
}

#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_dparams_defaults() -> blosc2_dparams {
    dparams_defaults()
}

static IO_DEFAULTS: Lazy<usize> = Lazy::new(|| {
    let b = Box::new(blosc2_io {
        id: 0,
        name: c"filesystem".as_ptr(),
        params: std::ptr::null_mut(),
    });
    Box::into_raw(b) as usize
});

#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_io_defaults() -> blosc2_io {
    blosc2_io {
        id: 0,
        name: c"filesystem".as_ptr(),
        params: std::ptr::null_mut(),
    }
}

#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_storage_defaults() -> blosc2_storage {
    let _ = *IO_DEFAULTS;
    blosc2_storage {
        contiguous: false,
        urlpath: std::ptr::null_mut(),
        cparams: std::ptr::null_mut(),
        dparams: std::ptr::null_mut(),
        io: std::ptr::null_mut(),
    }
}

#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_stdio_mmap_defaults() -> blosc2_stdio_mmap {
    blosc2_stdio_mmap {
        mode: c"r".as_ptr(),
        initial_mapping_size: 1 << 30,
        needs_free: false,
        addr: std::ptr::null_mut(),
        urlpath: std::ptr::null_mut(),
        file_size: 0,
        mapping_size: 0,
        is_memory_only: false,
        file: std::ptr::null_mut(),
        fd: -1,
        access_flags: -1,
        map_flags: -1,
    }
}

// ---------------------------------------------------------------- contexts

#[no_mangle]
pub extern "C" fn blosc2_create_cctx(cparams: blosc2_cparams) -> *mut blosc2_context {
    guard(std::ptr::null_mut(), || {
        match Context::new_compress(&cparams) {
            Some(c) => Box::into_raw(c),
            None => std::ptr::null_mut(),
        }
    })
}

#[no_mangle]
pub extern "C" fn blosc2_create_dctx(dparams: blosc2_dparams) -> *mut blosc2_context {
    guard(std::ptr::null_mut(), || {
        Box::into_raw(Context::new_decompress(&dparams))
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_free_ctx(context: *mut blosc2_context) {
    guard((), || {
        if !context.is_null() {
            // SAFETY: the pointer came from blosc2_create_*ctx and is freed once.
            drop(unsafe { Box::from_raw(context) });
        }
    })
}

/// # Safety
/// `ctx` must be null or a live context from this library.
unsafe fn ctx_ref<'a>(ctx: *mut blosc2_context) -> Option<&'a mut Context> {
    // SAFETY: guaranteed by the caller.
    unsafe { ctx.as_mut() }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_compress_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: see ctx_ref.
        let Some(ctx) = (unsafe { ctx_ref(context) }) else {
            return Error::NullPointer.code();
        };
        if !ctx.compress {
            return Error::InvalidParam.code();
        }
        if (src.is_null() && srcsize > 0) || dest.is_null() {
            return Error::NullPointer.code();
        }
        if srcsize < 0 || destsize < 0 {
            return Error::InvalidParam.code();
        }
        // SAFETY: the caller guarantees the buffer sizes.
        let (s, d) = unsafe {
            (
                bytes(src, srcsize as usize),
                bytes_mut(dest, destsize as usize),
            )
        };
        if ctx.cparams.prefilter.is_some() && ctx.cparams.schunk != 0 {
            // The prefilter sees the chunk index the client set on the super-chunk.
            let mut cp = ctx.cparams.clone();
            // SAFETY: the context's schunk pointer is live (see current_nchunk).
            cp.nchunk = unsafe { current_nchunk(cp.schunk) };
            return code(chunk::compress_into(&cp, s, d));
        }
        code(chunk::compress_into(&ctx.cparams, s, d))
    })
}

/// The `current_nchunk` field of the super-chunk a context was made for: the
/// chunk index the reference hands to pre- and postfilters (clients such as
/// python-blosc2 set it before compressing through the super-chunk's context).
///
/// # Safety
/// `schunk` must be 0 or the address of a live `blosc2_schunk` (the one in the
/// parameters the context was made from; the reference dereferences it too).
unsafe fn current_nchunk(schunk: usize) -> i64 {
    if schunk == 0 {
        return -1;
    }
    // SAFETY: guaranteed by the caller.
    unsafe { (*(schunk as *const super::schunk::blosc2_schunk)).current_nchunk }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_decompress_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: see ctx_ref.
        let Some(ctx) = (unsafe { ctx_ref(context) }) else {
            return Error::NullPointer.code();
        };
        if ctx.compress {
            return Error::InvalidParam.code();
        }
        let maskout = ctx.maskout.take();
        // SAFETY: see chunk_slice.
        let s = match unsafe { chunk_slice(src, srcsize) } {
            Ok(s) => s,
            Err(e) => return e.code(),
        };
        // A lazy chunk of a super-chunk on disk: read the rest through it.
        // SAFETY: the context's schunk is NULL or the super-chunk owning it.
        let resolved = match unsafe { super::schunk::resolve_lazy_for(ctx.dparams.schunk, s) } {
            Ok(r) => r,
            Err(e) => return e.code(),
        };
        let s = resolved.as_deref().unwrap_or(s);
        if dest.is_null() && destsize > 0 {
            return Error::NullPointer.code();
        }
        if destsize < 0 {
            return Error::WriteBuffer.code();
        }
        // SAFETY: the caller guarantees destsize bytes at dest.
        let d = unsafe { bytes_mut(dest, destsize as usize) };
        let with_nchunk;
        let dp = if ctx.dparams.postfilter.is_some() && ctx.dparams.schunk != 0 {
            let mut dp = ctx.dparams.clone();
            // SAFETY: the context's schunk pointer is live (see current_nchunk).
            dp.nchunk = unsafe { current_nchunk(dp.schunk) };
            with_nchunk = dp;
            &with_nchunk
        } else {
            &ctx.dparams
        };
        match maskout {
            Some(m) => code(chunk::decompress_masked(dp, s, d, &m)),
            None => code(chunk::decompress_into(dp, s, d)),
        }
    })
}

/// What the two `_ctx` getitem calls share: find the context, the chunk (a lazy
/// chunk of a super-chunk on disk is read back whole through it) and the output
/// buffer, then run `f` on them.
///
/// # Safety
/// As for the getitem calls: `context` null or live, `src` a chunk of `srcsize`
/// bytes (see `chunk_slice`), `dest` valid for `destsize` bytes.
unsafe fn getitem_ctx_with(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
    f: impl FnOnce(&Context, &[u8], &mut [u8]) -> c_int,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: see ctx_ref.
        let Some(ctx) = (unsafe { ctx_ref(context) }) else {
            return Error::NullPointer.code();
        };
        // SAFETY: see chunk_slice.
        let s = match unsafe { chunk_slice(src, srcsize) } {
            Ok(s) => s,
            Err(e) => return e.code(),
        };
        // SAFETY: the context's schunk is NULL or the super-chunk owning it.
        let resolved = match unsafe { super::schunk::resolve_lazy_for(ctx.dparams.schunk, s) } {
            Ok(r) => r,
            Err(e) => return e.code(),
        };
        let s = resolved.as_deref().unwrap_or(s);
        if dest.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: destsize bytes are writable at dest.
        let d = unsafe { bytes_mut(dest, destsize.max(0) as usize) };
        f(ctx, s, d)
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_getitem_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    start: c_int,
    nitems: c_int,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe {
        getitem_ctx_with(context, src, srcsize, dest, destsize, |ctx, s, d| {
            code(chunk::getitem(
                &ctx.dparams,
                s,
                start as i64,
                nitems as i64,
                d,
            ))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_getitem_bytes_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    start: i32,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe {
        getitem_ctx_with(context, src, srcsize, dest, destsize, |ctx, s, d| {
            let ts = ChunkHeader::parse_min(s).map_or(1, |h| h.typesize.max(1) as i32);
            if start % ts != 0 || nbytes % ts != 0 {
                return Error::InvalidParam.code();
            }
            code(chunk::getitem_bytes(
                &ctx.dparams,
                s,
                start as i64,
                nbytes as i64,
                d,
            ))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_ctx_get_cparams(
    ctx: *mut blosc2_context,
    cparams: *mut blosc2_cparams,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: see ctx_ref.
        let Some(c) = (unsafe { ctx_ref(ctx) }) else {
            return Error::NullPointer.code();
        };
        if cparams.is_null() {
            return Error::NullPointer.code();
        }
        let mut out = c.c_cparams;
        let p = &c.cparams;
        out.compcode = p.compcode;
        out.compcode_meta = p.compcode_meta;
        out.clevel = p.clevel;
        out.use_dict = p.use_dict as c_int;
        out.typesize = p.typesize;
        out.nthreads = p.nthreads;
        out.blocksize = p.blocksize;
        out.splitmode = p.splitmode as i32;
        out.filters = p.filters;
        out.filters_meta = p.filters_meta;
        if let Some(pp) = c.preparams.as_mut() {
            out.preparams = &mut **pp;
        }
        // SAFETY: cparams is valid for one struct.
        unsafe { *cparams = out };
        0
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_ctx_get_dparams(
    ctx: *mut blosc2_context,
    dparams: *mut blosc2_dparams,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: see ctx_ref.
        let Some(c) = (unsafe { ctx_ref(ctx) }) else {
            return Error::NullPointer.code();
        };
        if dparams.is_null() {
            return Error::NullPointer.code();
        }
        let mut out = c.c_dparams;
        out.nthreads = c.dparams.nthreads;
        // SAFETY: dparams is valid for one struct.
        unsafe { *dparams = out };
        0
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_set_maskout(
    ctx: *mut blosc2_context,
    maskout: *mut bool,
    nblocks: c_int,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: see ctx_ref.
        let Some(c) = (unsafe { ctx_ref(ctx) }) else {
            return Error::NullPointer.code();
        };
        if maskout.is_null() || nblocks < 0 {
            return Error::NullPointer.code();
        }
        // SAFETY: maskout points at nblocks booleans.
        let m = unsafe { items(maskout, nblocks as usize) };
        c.maskout = Some(m.to_vec());
        0
    })
}

// ---------------------------------------------------------------- special chunks

unsafe fn special(
    cparams: &blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
    kind: Special,
) -> c_int {
    guard(Error::Failure.code(), || {
        if dest.is_null() {
            return Error::NullPointer.code();
        }
        let Some(p) = super::ctx::cparams_from_c(cparams, false) else {
            return Error::NullPointer.code();
        };
        // SAFETY: dest is valid for destsize bytes.
        let d = unsafe { bytes_mut(dest, destsize.max(0) as usize) };
        code(chunk::special::chunk_special(&p, nbytes, kind, d))
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_zeros(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { special(&cparams, nbytes, dest, destsize, Special::Zero) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_uninit(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { special(&cparams, nbytes, dest, destsize, Special::Uninit) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_nans(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { special(&cparams, nbytes, dest, destsize, Special::Nan) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_repeatval(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
    repeatval: *const c_void,
) -> c_int {
    guard(Error::Failure.code(), || {
        if dest.is_null() || repeatval.is_null() {
            return Error::NullPointer.code();
        }
        let Some(p) = super::ctx::cparams_from_c(&cparams, false) else {
            return Error::NullPointer.code();
        };
        if p.typesize <= 0 {
            return Error::InvalidParam.code();
        }
        // SAFETY: repeatval holds typesize bytes; dest holds destsize bytes.
        let (v, d) = unsafe {
            (
                bytes(repeatval, p.typesize as usize),
                bytes_mut(dest, destsize.max(0) as usize),
            )
        };
        code(chunk::special::chunk_repeatval(&p, nbytes, v, d))
    })
}

// ---------------------------------------------------------------- raw filters

/// The four raw (un)shuffle entry points: check the arguments (the reference
/// takes typesizes up to 256, and any for bitunshuffle), run `f` on the two
/// buffers and return `blocksize` (or a negative code).
///
/// # Safety
/// `src` and `dest` must hold `blocksize` bytes each and not overlap.
unsafe fn raw_filter(
    max_typesize: i32,
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
    f: impl FnOnce(usize, &[u8], &mut [u8]) -> Result<(), ()>,
) -> i32 {
    guard(Error::Failure.code(), || {
        if typesize <= 0
            || typesize > max_typesize
            || blocksize < 0
            || src.is_null()
            || dest.is_null()
        {
            return Error::InvalidParam.code();
        }
        let n = blocksize as usize;
        // SAFETY: both buffers hold blocksize bytes and do not overlap (API contract).
        let (s, d) = unsafe { (bytes(src, n), bytes_mut(dest, n)) };
        match f(typesize as usize, s, d) {
            Ok(()) => blocksize,
            Err(()) => Error::FilterPipeline.code(),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_shuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        raw_filter(256, typesize, blocksize, src, dest, |t, s, d| {
            crate::filter::shuffle(t, s, d);
            Ok(())
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_unshuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        raw_filter(256, typesize, blocksize, src, dest, |t, s, d| {
            crate::filter::unshuffle(t, s, d);
            Ok(())
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_bitshuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        raw_filter(
            256,
            typesize,
            blocksize,
            src,
            dest,
            crate::filter::bitshuffle,
        )
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_bitunshuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        raw_filter(
            i32::MAX,
            typesize,
            blocksize,
            src,
            dest,
            crate::filter::bitunshuffle,
        )
    }
}

// ---------------------------------------------------------------- timing

#[no_mangle]
pub unsafe extern "C" fn blosc_set_timestamp(timestamp: *mut blosc_timestamp_t) {
    if timestamp.is_null() {
        return;
    }
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into our local.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    // SAFETY: timestamp is valid for one struct.
    unsafe {
        *timestamp = blosc_timestamp_t {
            tv_sec: ts.tv_sec,
            tv_nsec: ts.tv_nsec,
        }
    };
}

#[no_mangle]
pub extern "C" fn blosc_elapsed_nsecs(
    start_time: blosc_timestamp_t,
    end_time: blosc_timestamp_t,
) -> f64 {
    (end_time.tv_sec - start_time.tv_sec) as f64 * 1e9
        + (end_time.tv_nsec - start_time.tv_nsec) as f64
}

#[no_mangle]
pub extern "C" fn blosc_elapsed_secs(
    start_time: blosc_timestamp_t,
    end_time: blosc_timestamp_t,
) -> f64 {
    blosc_elapsed_nsecs(start_time, end_time) / 1e9
}

// ---------------------------------------------------------------- index helpers

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

// ---------------------------------------------------------------- VL blocks

#[no_mangle]
pub unsafe extern "C" fn blosc2_vlcompress_ctx(
    context: *mut blosc2_context,
    srcs: *const *const c_void,
    srcsizes: *const i32,
    nblocks: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: see ctx_ref.
        let Some(ctx) = (unsafe { ctx_ref(context) }) else {
            return Error::NullPointer.code();
        };
        if !ctx.compress || srcs.is_null() || srcsizes.is_null() || nblocks <= 0 || dest.is_null() {
            return Error::InvalidParam.code();
        }
        let n = nblocks as usize;
        // SAFETY: srcs and srcsizes hold nblocks entries (API contract).
        let (ptrs, sizes) = unsafe { (items(srcs, n), items(srcsizes, n)) };
        let mut blocks = Vec::with_capacity(n);
        let mut total: i64 = 0;
        for (&p, &s) in ptrs.iter().zip(sizes) {
            if p.is_null() || s <= 0 {
                return Error::InvalidParam.code();
            }
            total += s as i64;
            if total > crate::format::header::MAX_BUFFERSIZE as i64 {
                return Error::MaxBufsizeExceeded.code();
            }
            // SAFETY: each source holds its size in bytes.
            blocks.push(unsafe { bytes(p, s as usize) });
        }
        // SAFETY: dest holds destsize bytes.
        let d = unsafe { bytes_mut(dest, destsize.max(0) as usize) };
        code(chunk::vlblocks::compress(&ctx.cparams, &blocks, d))
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_vlchunk_get_nblocks(
    src: *const c_void,
    srcsize: i32,
    nblocks: *mut i32,
) -> c_int {
    guard(Error::Failure.code(), || {
        if src.is_null() || nblocks.is_null() {
            return Error::InvalidParam.code();
        }
        if srcsize < 32 {
            return Error::ReadBuffer.code();
        }
        // SAFETY: srcsize bytes are readable; only the header is looked at.
        let s = unsafe { bytes(src, 32) };
        match chunk::vlblocks::nblocks(s) {
            Ok(n) => {
                // SAFETY: nblocks is valid for one i32.
                unsafe { *nblocks = n as i32 };
                0
            }
            Err(e) => e.code(),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_vldecompress_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    dests: *mut *mut c_void,
    destsizes: *mut i32,
    maxblocks: i32,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: see ctx_ref.
        let Some(ctx) = (unsafe { ctx_ref(context) }) else {
            return Error::NullPointer.code();
        };
        if ctx.compress || dests.is_null() || destsizes.is_null() || maxblocks <= 0 {
            return Error::InvalidParam.code();
        }
        // SAFETY: see chunk_slice.
        let s = match unsafe { chunk_slice(src, srcsize) } {
            Ok(s) => s,
            Err(e) => return e.code(),
        };
        match chunk::vlblocks::nblocks(s) {
            Ok(n) if n > maxblocks as usize => return Error::InvalidParam.code(),
            Ok(_) => {}
            Err(e) => return e.code(),
        }
        let blocks = match chunk::vlblocks::decompress_blocks(&ctx.dparams, s) {
            Ok(b) => b,
            Err(e) => return e.code(),
        };
        for (i, b) in blocks.iter().enumerate() {
            // SAFETY: dests and destsizes hold maxblocks >= nblocks entries.
            unsafe {
                *dests.add(i) = malloc_copy(b) as *mut c_void;
                *destsizes.add(i) = b.len() as i32;
            }
        }
        blocks.len() as c_int
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_vldecompress_block_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    nblock: i32,
    dest: *mut *mut u8,
    destsize: *mut i32,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: see ctx_ref.
        let Some(ctx) = (unsafe { ctx_ref(context) }) else {
            return Error::NullPointer.code();
        };
        if ctx.compress || dest.is_null() || destsize.is_null() {
            return Error::InvalidParam.code();
        }
        // SAFETY: see chunk_slice.
        let s = match unsafe { chunk_slice(src, srcsize) } {
            Ok(s) => s,
            Err(e) => return e.code(),
        };
        let vl = match chunk::vlblocks::VlChunk::parse(s) {
            Ok(v) => v,
            Err(e) => return e.code(),
        };
        if nblock < 0 || nblock as usize >= vl.nblocks() {
            return Error::InvalidParam.code();
        }
        let j = nblock as usize;
        let mut buf = vec![0u8; vl.block_sizes()[j]];
        if let Err(e) = vl.decode_block(&ctx.dparams, j, &mut buf) {
            return e.code();
        }
        // SAFETY: dest and destsize are valid for one value each.
        unsafe {
            *dest = malloc_copy(&buf);
            *destsize = buf.len() as i32;
        }
        buf.len() as c_int
    })
}
