//! `#[repr(C)]` mirrors of the public c-blosc2 3.3 structs this layer reads or
//! writes. Field order and types follow blosc2.h; `capi-tests/abi` checks the
//! layouts from the C side.
#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_int, c_void};

/// Opaque context handed to C (`blosc2_context`).
pub type blosc2_context = super::ctx::Context;

/// `blosc2_prefilter_fn`.
pub type blosc2_prefilter_fn = Option<unsafe extern "C" fn(*mut blosc2_prefilter_params) -> c_int>;
/// `blosc2_postfilter_fn`.
pub type blosc2_postfilter_fn =
    Option<unsafe extern "C" fn(*mut blosc2_postfilter_params) -> c_int>;

/// `blosc2_prefilter_params`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct blosc2_prefilter_params {
    pub user_data: *mut c_void,
    pub input: *const u8,
    pub output: *mut u8,
    pub output_size: i32,
    pub output_typesize: i32,
    pub output_offset: i32,
    pub nchunk: i64,
    pub nblock: i32,
    pub tid: i32,
    pub ttmp: *mut u8,
    pub ttmp_nbytes: usize,
    pub ctx: *mut blosc2_context,
    pub output_is_disposable: bool,
}

/// `blosc2_postfilter_params`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct blosc2_postfilter_params {
    pub user_data: *mut c_void,
    pub input: *const u8,
    pub output: *mut u8,
    pub size: i32,
    pub typesize: i32,
    pub offset: i32,
    pub nchunk: i64,
    pub nblock: i32,
    pub tid: i32,
    pub ttmp: *mut u8,
    pub ttmp_nbytes: usize,
    pub ctx: *mut blosc2_context,
}

/// `blosc2_cparams`.
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
    pub filters: [u8; 6],
    pub filters_meta: [u8; 6],
    pub prefilter: blosc2_prefilter_fn,
    pub preparams: *mut blosc2_prefilter_params,
    pub tuner_params: *mut c_void,
    pub tuner_id: c_int,
    pub instr_codec: bool,
    pub codec_params: *mut c_void,
    pub filter_params: [*mut c_void; 6],
}

/// `blosc2_dparams`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct blosc2_dparams {
    pub nthreads: i16,
    pub schunk: *mut c_void,
    pub postfilter: blosc2_postfilter_fn,
    pub postparams: *mut blosc2_postfilter_params,
    pub typesize: i32,
}

/// `blosc2_io`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct blosc2_io {
    pub id: u8,
    pub name: *const c_char,
    pub params: *mut c_void,
}

/// `blosc2_storage`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct blosc2_storage {
    pub contiguous: bool,
    pub urlpath: *mut c_char,
    pub cparams: *mut blosc2_cparams,
    pub dparams: *mut blosc2_dparams,
    pub io: *mut blosc2_io,
}

/// `blosc2_stdio_mmap`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct blosc2_stdio_mmap {
    pub mode: *const c_char,
    pub initial_mapping_size: usize,
    pub needs_free: bool,
    pub addr: *mut c_char,
    pub urlpath: *mut c_char,
    pub file_size: usize,
    pub mapping_size: usize,
    pub is_memory_only: bool,
    pub file: *mut c_void,
    pub fd: c_int,
    pub access_flags: i64,
    pub map_flags: i64,
}

/// `blosc2_codec_encoder_cb`.
pub type blosc2_codec_encoder_cb = Option<
    unsafe extern "C" fn(
        *const u8,
        i32,
        *mut u8,
        i32,
        u8,
        *mut blosc2_cparams,
        *const c_void,
    ) -> c_int,
>;
/// `blosc2_codec_decoder_cb`.
pub type blosc2_codec_decoder_cb = Option<
    unsafe extern "C" fn(
        *const u8,
        i32,
        *mut u8,
        i32,
        u8,
        *mut blosc2_dparams,
        *const c_void,
    ) -> c_int,
>;

/// `blosc2_codec`.
#[repr(C)]
pub struct blosc2_codec {
    pub compcode: u8,
    pub compname: *mut c_char,
    pub complib: u8,
    pub version: u8,
    pub encoder: blosc2_codec_encoder_cb,
    pub decoder: blosc2_codec_decoder_cb,
}

/// `blosc2_filter_forward_cb`.
pub type blosc2_filter_forward_cb =
    Option<unsafe extern "C" fn(*const u8, *mut u8, i32, u8, *mut blosc2_cparams, u8) -> c_int>;
/// `blosc2_filter_backward_cb`.
pub type blosc2_filter_backward_cb =
    Option<unsafe extern "C" fn(*const u8, *mut u8, i32, u8, *mut blosc2_dparams, u8) -> c_int>;

/// `blosc2_filter`.
#[repr(C)]
pub struct blosc2_filter {
    pub id: u8,
    pub name: *mut c_char,
    pub version: u8,
    pub forward: blosc2_filter_forward_cb,
    pub backward: blosc2_filter_backward_cb,
}

/// `blosc2_tuner`.
#[repr(C)]
pub struct blosc2_tuner {
    pub init: Option<
        unsafe extern "C" fn(*mut c_void, *mut blosc2_context, *mut blosc2_context) -> c_int,
    >,
    pub next_blocksize: Option<unsafe extern "C" fn(*mut blosc2_context) -> c_int>,
    pub next_cparams: Option<unsafe extern "C" fn(*mut blosc2_context) -> c_int>,
    pub update: Option<unsafe extern "C" fn(*mut blosc2_context, f64) -> c_int>,
    pub free: Option<unsafe extern "C" fn(*mut blosc2_context) -> c_int>,
    pub id: c_int,
    pub name: *mut c_char,
}

/// `blosc_threads_callback`.
pub type blosc_threads_callback = Option<
    unsafe extern "C" fn(
        *mut c_void,
        Option<unsafe extern "C" fn(*mut c_void)>,
        c_int,
        usize,
        *mut c_void,
    ),
>;

/// `blosc_timestamp_t` on POSIX (`struct timespec`).
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct blosc_timestamp_t {
    pub tv_sec: libc::time_t,
    pub tv_nsec: libc::c_long,
}
