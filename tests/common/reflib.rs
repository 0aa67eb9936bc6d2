//! The reference c-blosc2 3.3.5 shared library, loaded at run time by path.
//!
//! Path: `$BLOSC2_REF_LIB`, else `<CARGO_MANIFEST_DIR>/.ref/blosc2/lib/libblosc2.so.9`
//! (put there by `scripts/fetch-reference.sh`).  A missing library is a test
//! FAILURE (a panic telling what to run), never a silent pass.
//!
//! All `unsafe` of the interop tests lives in this file.  The public surface is
//! safe: slices in, C return codes out.

#![allow(dead_code)]

use libloading::os::unix::{Library, Symbol};
use std::ffi::c_void;
use std::os::raw::c_int;
use std::path::PathBuf;
use std::sync::OnceLock;

/// `BLOSC2_MAX_FILTERS`.
pub const MAX_FILTERS: usize = 6;

/// Mirror of `blosc2_cparams` (blosc2.h of c-blosc2 3.3.5).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct blosc2_cparams {
    pub compcode: u8,
    pub compcode_meta: u8,
    pub clevel: u8,
    pub use_dict: c_int,
    pub typesize: i32,
    pub nthreads: i16,
    pub blocksize: i32,
    pub splitmode: i32,
    pub schunk: *mut c_void,
    pub filters: [u8; MAX_FILTERS],
    pub filters_meta: [u8; MAX_FILTERS],
    pub prefilter: *mut c_void,
    pub preparams: *mut c_void,
    pub tuner_params: *mut c_void,
    pub tuner_id: c_int,
    pub instr_codec: bool,
    pub codec_params: *mut c_void,
    pub filter_params: [*mut c_void; MAX_FILTERS],
}

/// Mirror of `blosc2_dparams` (blosc2.h of c-blosc2 3.3.5).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct blosc2_dparams {
    pub nthreads: i16,
    pub schunk: *mut c_void,
    pub postfilter: *mut c_void,
    pub postparams: *mut c_void,
    pub typesize: i32,
}

// The layouts the C compiler gives these structs on LP64 targets.
const _: () = assert!(std::mem::size_of::<blosc2_cparams>() == 136);
const _: () = assert!(std::mem::offset_of!(blosc2_cparams, schunk) == 24);
const _: () = assert!(std::mem::offset_of!(blosc2_cparams, filters) == 32);
const _: () = assert!(std::mem::offset_of!(blosc2_cparams, prefilter) == 48);
const _: () = assert!(std::mem::offset_of!(blosc2_cparams, tuner_id) == 72);
const _: () = assert!(std::mem::offset_of!(blosc2_cparams, filter_params) == 88);
const _: () = assert!(std::mem::size_of::<blosc2_dparams>() == 40);
const _: () = assert!(std::mem::offset_of!(blosc2_dparams, typesize) == 32);

/// Opaque `blosc2_context`.
#[repr(C)]
pub struct blosc2_context {
    _private: [u8; 0],
}

type InitFn = unsafe extern "C" fn();
type CreateCctxFn = unsafe extern "C" fn(blosc2_cparams) -> *mut blosc2_context;
type CreateDctxFn = unsafe extern "C" fn(blosc2_dparams) -> *mut blosc2_context;
type FreeCtxFn = unsafe extern "C" fn(*mut blosc2_context);
type CompressCtxFn =
    unsafe extern "C" fn(*mut blosc2_context, *const c_void, i32, *mut c_void, i32) -> c_int;
type DecompressCtxFn =
    unsafe extern "C" fn(*mut blosc2_context, *const c_void, i32, *mut c_void, i32) -> c_int;
type GetitemCtxFn = unsafe extern "C" fn(
    *mut blosc2_context,
    *const c_void,
    i32,
    c_int,
    c_int,
    *mut c_void,
    i32,
) -> c_int;
type CbufferSizesFn = unsafe extern "C" fn(*const c_void, *mut i32, *mut i32, *mut i32) -> c_int;

/// Compression parameters in plain Rust terms (what the tests vary).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefCParams {
    pub compcode: u8,
    pub compcode_meta: u8,
    pub clevel: u8,
    pub use_dict: bool,
    pub typesize: i32,
    pub nthreads: i16,
    pub blocksize: i32,
    pub splitmode: i32,
    pub filters: [u8; MAX_FILTERS],
    pub filters_meta: [u8; MAX_FILTERS],
}

impl RefCParams {
    fn to_c(self) -> blosc2_cparams {
        blosc2_cparams {
            compcode: self.compcode,
            compcode_meta: self.compcode_meta,
            clevel: self.clevel,
            use_dict: self.use_dict as c_int,
            typesize: self.typesize,
            nthreads: self.nthreads,
            blocksize: self.blocksize,
            splitmode: self.splitmode,
            schunk: std::ptr::null_mut(),
            filters: self.filters,
            filters_meta: self.filters_meta,
            prefilter: std::ptr::null_mut(),
            preparams: std::ptr::null_mut(),
            tuner_params: std::ptr::null_mut(),
            tuner_id: 0,
            instr_codec: false,
            codec_params: std::ptr::null_mut(),
            filter_params: [std::ptr::null_mut(); MAX_FILTERS],
        }
    }
}

/// Bytes of slack given to the reference after every output buffer; they must
/// come back untouched (the reference is never trusted to stay in bounds).
const CANARY_LEN: usize = 64 * 1024;
const CANARY: u8 = 0xA5;

/// The loaded reference library.
pub struct RefLib {
    path: PathBuf,
    create_cctx: Symbol<CreateCctxFn>,
    create_dctx: Symbol<CreateDctxFn>,
    free_ctx: Symbol<FreeCtxFn>,
    compress_ctx: Symbol<CompressCtxFn>,
    decompress_ctx: Symbol<DecompressCtxFn>,
    getitem_ctx: Symbol<GetitemCtxFn>,
    cbuffer_sizes: Symbol<CbufferSizesFn>,
    // Keeps the symbols above valid; dropped last (never, in practice: 'static).
    _lib: Library,
}

/// Where the reference library is expected.
pub fn ref_lib_path() -> PathBuf {
    match std::env::var_os("BLOSC2_REF_LIB") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".ref/blosc2/lib/libblosc2.so.9"),
    }
}

static REF: OnceLock<RefLib> = OnceLock::new();

/// The reference library, loaded (and `blosc2_init`ed) once per process.
/// Panics, failing the calling test, when it cannot be loaded.
pub fn reflib() -> &'static RefLib {
    REF.get_or_init(|| {
        let path = ref_lib_path();
        if !path.exists() {
            panic!(
                "reference c-blosc2 library not found at {} -- run scripts/fetch-reference.sh \
                 (or point BLOSC2_REF_LIB at a libblosc2.so.9 of c-blosc2 3.3.5)",
                path.display()
            );
        }
        load(path.clone()).unwrap_or_else(|e| {
            panic!(
                "cannot load reference c-blosc2 library {}: {e} -- run scripts/fetch-reference.sh",
                path.display()
            )
        })
    })
}

fn load(path: PathBuf) -> Result<RefLib, libloading::Error> {
    // RTLD_DEEPBIND: the test executable links our own crate, which defines the
    // same `blosc2_*` names; the reference must bind its internal calls to its
    // own definitions, never to ours.
    let flags = libc::RTLD_NOW | libc::RTLD_LOCAL | libc::RTLD_DEEPBIND;
    // SAFETY: loading runs the library's initializers; libblosc2's only set up
    // its own globals.  The path names c-blosc2 3.3.5 (checked by the caller's
    // expectations; a wrong library makes the tests fail, not misbehave silently,
    // as long as it exports these symbols with these C signatures).
    let lib = unsafe { Library::open(Some(&path), flags)? };
    // SAFETY (all `get` calls below): each symbol is declared in blosc2.h
    // (3.3.5) with exactly the function type given here; the layouts of the
    // by-value structs are checked by the const assertions above.
    unsafe {
        let init: Symbol<InitFn> = lib.get(b"blosc2_init\0")?;
        let r = RefLib {
            path,
            create_cctx: lib.get(b"blosc2_create_cctx\0")?,
            create_dctx: lib.get(b"blosc2_create_dctx\0")?,
            free_ctx: lib.get(b"blosc2_free_ctx\0")?,
            compress_ctx: lib.get(b"blosc2_compress_ctx\0")?,
            decompress_ctx: lib.get(b"blosc2_decompress_ctx\0")?,
            getitem_ctx: lib.get(b"blosc2_getitem_ctx\0")?,
            cbuffer_sizes: lib.get(b"blosc2_cbuffer_sizes\0")?,
            _lib: lib,
        };
        // SAFETY: blosc2_init takes no arguments and is idempotent; it runs
        // once here, before any other reference call (OnceLock).
        init();
        Ok(r)
    }
}

/// A context owned by Rust; freed on drop.
struct Ctx<'a> {
    lib: &'a RefLib,
    ptr: *mut blosc2_context,
}

impl Drop for Ctx<'_> {
    fn drop(&mut self) {
        // SAFETY: ptr came from blosc2_create_cctx/dctx of this library, is
        // non-null (checked at creation) and is freed exactly once, here.
        unsafe { (self.lib.free_ctx)(self.ptr) }
    }
}

/// How many bytes past `len` were written (0 when the canary is intact).
/// Panics when even the end of the canary was hit: memory past it may be corrupt.
fn check_canary(buf: &[u8], len: usize, what: &str) -> usize {
    match buf[len..].iter().rposition(|&b| b != CANARY) {
        None => 0,
        Some(i) if i + 1 < CANARY_LEN => i + 1,
        Some(_) => {
            panic!("reference {what} wrote {CANARY_LEN}+ bytes past its {len}-byte output buffer")
        }
    }
}

/// The outcome of a reference call that writes a buffer.
#[derive(Debug, Clone)]
pub struct RefOut {
    /// The C return code.
    pub rc: i32,
    /// The output buffer, cut to the size the library was told.
    pub out: Vec<u8>,
    /// Bytes written past the end of that size (a reference bug when non-zero;
    /// counted up to the last byte that differs from the canary fill).
    pub overrun: usize,
}

impl RefLib {
    /// Where it was loaded from.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    fn cctx(&self, p: &RefCParams) -> Ctx<'_> {
        // SAFETY: the struct is fully initialised, with null for every pointer
        // (no schunk, prefilter, tuner or plugin params); create_cctx copies it.
        let ptr = unsafe { (self.create_cctx)(p.to_c()) };
        assert!(
            !ptr.is_null(),
            "reference blosc2_create_cctx returned NULL for {p:?}"
        );
        Ctx { lib: self, ptr }
    }

    fn dctx(&self, nthreads: i16) -> Ctx<'_> {
        let dp = blosc2_dparams {
            nthreads,
            schunk: std::ptr::null_mut(),
            postfilter: std::ptr::null_mut(),
            postparams: std::ptr::null_mut(),
            typesize: 8,
        };
        // SAFETY: fully initialised struct, null pointers only; copied by the callee.
        let ptr = unsafe { (self.create_dctx)(dp) };
        assert!(!ptr.is_null(), "reference blosc2_create_dctx returned NULL");
        Ctx { lib: self, ptr }
    }

    /// `blosc2_compress_ctx` into a buffer of `destsize` bytes.
    /// Returns the C return code and the output buffer cut to `destsize`.
    pub fn compress(&self, p: &RefCParams, src: &[u8], destsize: usize) -> RefOut {
        let ctx = self.cctx(p);
        let mut out = vec![CANARY; destsize + CANARY_LEN];
        assert!(src.len() <= i32::MAX as usize && destsize <= i32::MAX as usize);
        // SAFETY: ctx is a live compression context; src is readable for
        // src.len() bytes and out is writable for destsize (+ canary) bytes;
        // the lengths fit in i32 (asserted).
        let rc = unsafe {
            (self.compress_ctx)(
                ctx.ptr,
                src.as_ptr().cast(),
                src.len() as i32,
                out.as_mut_ptr().cast(),
                destsize as i32,
            )
        };
        let overrun = check_canary(&out, destsize, "blosc2_compress_ctx");
        out.truncate(destsize);
        RefOut { rc, out, overrun }
    }

    /// Compress into a buffer of `len + BLOSC2_MAX_OVERHEAD` bytes (documented
    /// to always suffice); on success returns the chunk, else the C code.
    /// The second value is the overrun past that buffer (see [`RefOut`]).
    pub fn compress_chunk(&self, p: &RefCParams, src: &[u8]) -> (Result<Vec<u8>, i32>, usize) {
        let RefOut {
            rc,
            mut out,
            overrun,
        } = self.compress(p, src, src.len() + 32);
        if rc <= 0 {
            return (Err(rc), overrun);
        }
        out.truncate(rc as usize);
        (Ok(out), overrun)
    }

    /// `blosc2_decompress_ctx` into a `destsize`-byte buffer (zero-filled first).
    pub fn decompress(&self, nthreads: i16, chunk: &[u8], destsize: usize) -> RefOut {
        let ctx = self.dctx(nthreads);
        let mut out = vec![0u8; destsize + CANARY_LEN];
        out[destsize..].fill(CANARY);
        assert!(chunk.len() <= i32::MAX as usize && destsize <= i32::MAX as usize);
        // SAFETY: live decompression context; chunk readable for its length
        // (passed as srcsize, which bounds every read the library does), out
        // writable for destsize (+ canary) bytes.
        let rc = unsafe {
            (self.decompress_ctx)(
                ctx.ptr,
                chunk.as_ptr().cast(),
                chunk.len() as i32,
                out.as_mut_ptr().cast(),
                destsize as i32,
            )
        };
        let overrun = check_canary(&out, destsize, "blosc2_decompress_ctx");
        out.truncate(destsize);
        RefOut { rc, out, overrun }
    }

    /// `blosc2_getitem_ctx` of `nitems` items from `start`, into a buffer of
    /// exactly `destsize` bytes (plus a canary that must stay untouched).
    pub fn getitem(
        &self,
        nthreads: i16,
        chunk: &[u8],
        start: i32,
        nitems: i32,
        destsize: usize,
    ) -> RefOut {
        let ctx = self.dctx(nthreads);
        let mut out = vec![0u8; destsize + CANARY_LEN];
        out[destsize..].fill(CANARY);
        assert!(chunk.len() <= i32::MAX as usize && destsize <= i32::MAX as usize);
        // SAFETY: as for decompress; destsize bounds the output.
        let rc = unsafe {
            (self.getitem_ctx)(
                ctx.ptr,
                chunk.as_ptr().cast(),
                chunk.len() as i32,
                start,
                nitems,
                out.as_mut_ptr().cast(),
                destsize as i32,
            )
        };
        let overrun = check_canary(&out, destsize, "blosc2_getitem_ctx");
        out.truncate(destsize);
        RefOut { rc, out, overrun }
    }

    /// `blosc2_cbuffer_sizes` -> (rc, nbytes, cbytes, blocksize).
    pub fn cbuffer_sizes(&self, chunk: &[u8]) -> (i32, i32, i32, i32) {
        assert!(chunk.len() >= 16, "cbuffer_sizes needs a 16-byte header");
        let (mut n, mut c, mut b) = (0i32, 0i32, 0i32);
        // SAFETY: the function reads the first 16 bytes of chunk (asserted
        // present) and writes one i32 through each (valid, local) pointer.
        let rc = unsafe { (self.cbuffer_sizes)(chunk.as_ptr().cast(), &mut n, &mut c, &mut b) };
        (rc, n, c, b)
    }
}

/// Mirror of `blosc2_storage` (blosc2.h of c-blosc2 3.3.5).
#[repr(C)]
struct blosc2_storage {
    contiguous: bool,
    urlpath: *mut std::os::raw::c_char,
    cparams: *mut blosc2_cparams,
    dparams: *mut blosc2_dparams,
    io: *mut c_void,
}
const _: () = assert!(std::mem::size_of::<blosc2_storage>() == 40);

type SchunkNewFn = unsafe extern "C" fn(*mut blosc2_storage) -> *mut c_void;
type SchunkFreeFn = unsafe extern "C" fn(*mut c_void) -> c_int;
type MetaAddFn =
    unsafe extern "C" fn(*mut c_void, *const std::os::raw::c_char, *mut u8, i32) -> c_int;

impl RefLib {
    /// Compress `src` as one chunk with `cparams.schunk` pointing at a fresh
    /// in-memory reference super-chunk that holds a fixed-length metalayer
    /// `meta_name` with `meta` (what plugins such as ndlz read: "b2nd").
    pub fn compress_chunk_with_meta(
        &self,
        p: &RefCParams,
        meta_name: &str,
        meta: &[u8],
        src: &[u8],
    ) -> (Result<Vec<u8>, i32>, usize) {
        let name = std::ffi::CString::new(meta_name).expect("metalayer name without NUL");
        let mut content = meta.to_vec();
        // SAFETY: the symbols are declared in blosc2.h (3.3.5) with these C
        // signatures; `_lib` keeps them loaded for the life of `self`.
        let (schunk_new, schunk_free, meta_add) = unsafe {
            let a: Symbol<SchunkNewFn> = self
                ._lib
                .get(b"blosc2_schunk_new\0")
                .expect("blosc2_schunk_new");
            let b: Symbol<SchunkFreeFn> = self
                ._lib
                .get(b"blosc2_schunk_free\0")
                .expect("blosc2_schunk_free");
            let c: Symbol<MetaAddFn> = self
                ._lib
                .get(b"blosc2_meta_add\0")
                .expect("blosc2_meta_add");
            (a, b, c)
        };
        let mut storage = blosc2_storage {
            contiguous: false,
            urlpath: std::ptr::null_mut(),
            cparams: std::ptr::null_mut(),
            dparams: std::ptr::null_mut(),
            io: std::ptr::null_mut(),
        };
        // SAFETY: a fully initialised storage with null pointers (defaults,
        // in memory); the library copies what it keeps.
        let sc = unsafe { schunk_new(&mut storage) };
        assert!(!sc.is_null(), "reference blosc2_schunk_new returned NULL");
        // SAFETY: sc is a live super-chunk; name is a C string; content is
        // readable for its length (copied by the callee).
        let rc = unsafe {
            meta_add(
                sc,
                name.as_ptr(),
                content.as_mut_ptr(),
                content.len() as i32,
            )
        };
        assert!(rc >= 0, "reference blosc2_meta_add failed: {rc}");
        let mut c = p.to_c();
        c.schunk = sc;
        // SAFETY: fully initialised cparams whose only pointer is the live
        // super-chunk above, which outlives the context.
        let ptr = unsafe { (self.create_cctx)(c) };
        assert!(!ptr.is_null(), "reference blosc2_create_cctx returned NULL");
        let ctx = Ctx { lib: self, ptr };
        let destsize = src.len() + 32;
        let mut out = vec![CANARY; destsize + CANARY_LEN];
        // SAFETY: as in `compress`.
        let rc = unsafe {
            (self.compress_ctx)(
                ctx.ptr,
                src.as_ptr().cast(),
                src.len() as i32,
                out.as_mut_ptr().cast(),
                destsize as i32,
            )
        };
        drop(ctx);
        // SAFETY: sc came from blosc2_schunk_new and is freed once, after
        // the context that referred to it.
        unsafe { schunk_free(sc) };
        let overrun = check_canary(&out, destsize, "blosc2_compress_ctx");
        if rc <= 0 {
            return (Err(rc), overrun);
        }
        out.truncate(rc as usize);
        (Ok(out), overrun)
    }
}

/// A reference in-memory super-chunk with a given typesize and one
/// fixed-length metalayer, for plugins that read the super-chunk behind
/// `cparams.schunk` / `dparams.schunk` (ndcell and ndmean read "b2nd" and,
/// when decoding, the super-chunk's typesize).  Freed on drop.
pub struct RefSchunk<'a> {
    lib: &'a RefLib,
    sc: *mut c_void,
    free: Symbol<SchunkFreeFn>,
}

impl Drop for RefSchunk<'_> {
    fn drop(&mut self) {
        // SAFETY: sc came from blosc2_schunk_new of this library and is freed
        // exactly once, here (no context refers to it any more: the contexts
        // made by the methods below are freed before they return).
        unsafe { (self.free)(self.sc) };
    }
}

impl RefLib {
    /// A fresh reference super-chunk of items of `typesize` bytes holding the
    /// fixed-length metalayer `meta_name` with content `meta`.
    pub fn schunk_with_meta(&self, typesize: i32, meta_name: &str, meta: &[u8]) -> RefSchunk<'_> {
        let name = std::ffi::CString::new(meta_name).expect("metalayer name without NUL");
        let mut content = meta.to_vec();
        // SAFETY: the symbols are declared in blosc2.h (3.3.5) with these C
        // signatures; `_lib` keeps them loaded for the life of `self`.
        let (schunk_new, schunk_free, meta_add) = unsafe {
            let a: Symbol<SchunkNewFn> = self
                ._lib
                .get(b"blosc2_schunk_new\0")
                .expect("blosc2_schunk_new");
            let b: Symbol<SchunkFreeFn> = self
                ._lib
                .get(b"blosc2_schunk_free\0")
                .expect("blosc2_schunk_free");
            let c: Symbol<MetaAddFn> = self
                ._lib
                .get(b"blosc2_meta_add\0")
                .expect("blosc2_meta_add");
            (a, b, c)
        };
        let mut cparams = RefCParams {
            compcode: 0,
            compcode_meta: 0,
            clevel: 5,
            use_dict: false,
            typesize,
            nthreads: 1,
            blocksize: 0,
            splitmode: 4,
            filters: [0, 0, 0, 0, 0, 1],
            filters_meta: [0; MAX_FILTERS],
        }
        .to_c();
        let mut storage = blosc2_storage {
            contiguous: false,
            urlpath: std::ptr::null_mut(),
            cparams: &mut cparams,
            dparams: std::ptr::null_mut(),
            io: std::ptr::null_mut(),
        };
        // SAFETY: a fully initialised storage whose only pointer is a fully
        // initialised cparams (null pointers inside); the library copies both.
        let sc = unsafe { schunk_new(&mut storage) };
        assert!(!sc.is_null(), "reference blosc2_schunk_new returned NULL");
        let sc = RefSchunk {
            lib: self,
            sc,
            free: schunk_free,
        };
        // SAFETY: sc.sc is a live super-chunk; name is a C string; content is
        // readable for its length (copied by the callee).
        let rc = unsafe {
            meta_add(
                sc.sc,
                name.as_ptr(),
                content.as_mut_ptr(),
                content.len() as i32,
            )
        };
        assert!(rc >= 0, "reference blosc2_meta_add failed: {rc}");
        sc
    }
}

impl RefSchunk<'_> {
    /// Compress `src` as one chunk with `cparams.schunk` pointing at this
    /// super-chunk, into `src.len() + 32` bytes.  The second value is the
    /// overrun past that buffer (see [`RefOut`]).
    pub fn compress_chunk(&self, p: &RefCParams, src: &[u8]) -> (Result<Vec<u8>, i32>, usize) {
        let mut c = p.to_c();
        c.schunk = self.sc;
        // SAFETY: fully initialised cparams whose only pointer is the live
        // super-chunk, which outlives the context.
        let ptr = unsafe { (self.lib.create_cctx)(c) };
        assert!(!ptr.is_null(), "reference blosc2_create_cctx returned NULL");
        let ctx = Ctx { lib: self.lib, ptr };
        let destsize = src.len() + 32;
        let mut out = vec![CANARY; destsize + CANARY_LEN];
        assert!(destsize <= i32::MAX as usize);
        // SAFETY: as in `RefLib::compress`.
        let rc = unsafe {
            (self.lib.compress_ctx)(
                ctx.ptr,
                src.as_ptr().cast(),
                src.len() as i32,
                out.as_mut_ptr().cast(),
                destsize as i32,
            )
        };
        drop(ctx);
        let overrun = check_canary(&out, destsize, "blosc2_compress_ctx");
        if rc <= 0 {
            return (Err(rc), overrun);
        }
        out.truncate(rc as usize);
        (Ok(out), overrun)
    }

    /// `blosc2_decompress_ctx` with `dparams.schunk` pointing at this
    /// super-chunk, into a `destsize`-byte buffer (zero-filled first).
    pub fn decompress(&self, nthreads: i16, chunk: &[u8], destsize: usize) -> RefOut {
        let dp = blosc2_dparams {
            nthreads,
            schunk: self.sc,
            postfilter: std::ptr::null_mut(),
            postparams: std::ptr::null_mut(),
            typesize: 8,
        };
        // SAFETY: fully initialised dparams whose only pointer is the live
        // super-chunk, which outlives the context.
        let ptr = unsafe { (self.lib.create_dctx)(dp) };
        assert!(!ptr.is_null(), "reference blosc2_create_dctx returned NULL");
        let ctx = Ctx { lib: self.lib, ptr };
        let mut out = vec![0u8; destsize + CANARY_LEN];
        out[destsize..].fill(CANARY);
        assert!(chunk.len() <= i32::MAX as usize && destsize <= i32::MAX as usize);
        // SAFETY: as in `RefLib::decompress`.
        let rc = unsafe {
            (self.lib.decompress_ctx)(
                ctx.ptr,
                chunk.as_ptr().cast(),
                chunk.len() as i32,
                out.as_mut_ptr().cast(),
                destsize as i32,
            )
        };
        drop(ctx);
        let overrun = check_canary(&out, destsize, "blosc2_decompress_ctx");
        out.truncate(destsize);
        RefOut { rc, out, overrun }
    }

    /// `blosc2_getitem_ctx` of `nitems` items from `start` with
    /// `dparams.schunk` pointing at this super-chunk, into a buffer of exactly
    /// `destsize` bytes (plus a canary that must stay untouched).
    pub fn getitem(
        &self,
        nthreads: i16,
        chunk: &[u8],
        start: i32,
        nitems: i32,
        destsize: usize,
    ) -> RefOut {
        let dp = blosc2_dparams {
            nthreads,
            schunk: self.sc,
            postfilter: std::ptr::null_mut(),
            postparams: std::ptr::null_mut(),
            typesize: 8,
        };
        // SAFETY: fully initialised dparams whose only pointer is the live
        // super-chunk, which outlives the context.
        let ptr = unsafe { (self.lib.create_dctx)(dp) };
        assert!(!ptr.is_null(), "reference blosc2_create_dctx returned NULL");
        let ctx = Ctx { lib: self.lib, ptr };
        let mut out = vec![0u8; destsize + CANARY_LEN];
        out[destsize..].fill(CANARY);
        assert!(chunk.len() <= i32::MAX as usize && destsize <= i32::MAX as usize);
        // SAFETY: as in `RefLib::getitem`.
        let rc = unsafe {
            (self.lib.getitem_ctx)(
                ctx.ptr,
                chunk.as_ptr().cast(),
                chunk.len() as i32,
                start,
                nitems,
                out.as_mut_ptr().cast(),
                destsize as i32,
            )
        };
        drop(ctx);
        let overrun = check_canary(&out, destsize, "blosc2_getitem_ctx");
        out.truncate(destsize);
        RefOut { rc, out, overrun }
    }
}
