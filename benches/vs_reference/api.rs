//! The C ABI mirror (include/blosc2.h): the parameter structs, the ABI
//! constants and `Api`, one loaded library with the entry points the
//! benchmark calls.

use std::ffi::{c_int, c_void};
use std::path::{Path, PathBuf};

use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};

use crate::opts::die;

pub(crate) const MAX_FILTERS: usize = 6;
pub(crate) const MAX_OVERHEAD: usize = 32;
pub(crate) const FORWARD_COMPAT_SPLIT: i32 = 4;

#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct Cparams {
    pub(crate) compcode: u8,
    pub(crate) compcode_meta: u8,
    pub(crate) clevel: u8,
    pub(crate) use_dict: c_int,
    pub(crate) typesize: i32,
    pub(crate) nthreads: i16,
    pub(crate) blocksize: i32,
    pub(crate) splitmode: i32,
    pub(crate) schunk: *mut c_void,
    pub(crate) filters: [u8; MAX_FILTERS],
    pub(crate) filters_meta: [u8; MAX_FILTERS],
    pub(crate) prefilter: *mut c_void,
    pub(crate) preparams: *mut c_void,
    pub(crate) tuner_params: *mut c_void,
    pub(crate) tuner_id: c_int,
    pub(crate) instr_codec: bool,
    pub(crate) codec_params: *mut c_void,
    pub(crate) filter_params: [*mut c_void; MAX_FILTERS],
}

#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct Dparams {
    pub(crate) nthreads: i16,
    pub(crate) schunk: *mut c_void,
    pub(crate) postfilter: *mut c_void,
    pub(crate) postparams: *mut c_void,
    pub(crate) typesize: i32,
}

pub(crate) type Ctx = *mut c_void;
type InitFn = unsafe extern "C" fn();
type CreateCctxFn = unsafe extern "C" fn(Cparams) -> Ctx;
type CreateDctxFn = unsafe extern "C" fn(Dparams) -> Ctx;
type FreeCtxFn = unsafe extern "C" fn(Ctx);
type CodecCtxFn = unsafe extern "C" fn(Ctx, *const c_void, i32, *mut c_void, i32) -> c_int;

/// One loaded library and the entry points the benchmark uses.
pub(crate) struct Api {
    pub(crate) name: &'static str,
    pub(crate) path: PathBuf,
    pub(crate) create_cctx: CreateCctxFn,
    pub(crate) create_dctx: CreateDctxFn,
    pub(crate) free_ctx: FreeCtxFn,
    pub(crate) compress_ctx: CodecCtxFn,
    pub(crate) decompress_ctx: CodecCtxFn,
    destroy: InitFn,
    _lib: Library,
}

impl Api {
    pub(crate) fn load(name: &'static str, path: &Path) -> Api {
        // SAFETY: loading a blosc2 build runs only its (trivial) initialisers.
        let lib = unsafe { Library::open(Some(path), RTLD_NOW | RTLD_LOCAL) }.unwrap_or_else(|e| {
            die(&format!(
                "cannot load {name} library {}: {e}",
                path.display()
            ))
        });
        fn sym<T: Copy>(lib: &Library, name: &str, sym: &[u8]) -> T {
            // SAFETY: the types above mirror the prototypes in include/blosc2.h.
            unsafe { lib.get::<T>(sym) }
                .map(|s| *s)
                .unwrap_or_else(|e| die(&format!("{name}: missing symbol: {e}")))
        }
        let init: InitFn = sym(&lib, name, b"blosc2_init\0");
        let api = Api {
            name,
            path: path.to_path_buf(),
            create_cctx: sym(&lib, name, b"blosc2_create_cctx\0"),
            create_dctx: sym(&lib, name, b"blosc2_create_dctx\0"),
            free_ctx: sym(&lib, name, b"blosc2_free_ctx\0"),
            compress_ctx: sym(&lib, name, b"blosc2_compress_ctx\0"),
            decompress_ctx: sym(&lib, name, b"blosc2_decompress_ctx\0"),
            destroy: sym(&lib, name, b"blosc2_destroy\0"),
            _lib: lib,
        };
        // SAFETY: plain library initialisation.
        unsafe { init() };
        api
    }
}

impl Drop for Api {
    fn drop(&mut self) {
        // SAFETY: every context has been freed by then.
        unsafe { (self.destroy)() };
    }
}
