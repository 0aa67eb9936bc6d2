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

use super::ctx::{cparams_defaults, cparams_from_c, dparams_defaults, with_call_fields, Context};
use super::guard;
use super::ptr::{
    bytes, calloc_out, items, items_mut, malloc_copy, malloc_i64s, malloc_nonempty, required_items,
    sized_buffer, sized_buffer_mut, string_arg, CBytes,
};
use super::types::*;
use crate::chunk::{CParams, DParams};
use crate::error::{Error, Result};
use crate::format::header::{ChunkHeader, MIN_HEADER_LENGTH};
use crate::schunk::{CallerBuffers, Storage, SuperChunk};
use std::ffi::CString;
use std::os::raw::{c_char, c_int, c_void};
use std::path::Path;

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

mod chunks;
mod files;
mod handle;
mod lifecycle;
mod lock;
mod meta;

pub use chunks::*;
pub use files::*;
use handle::*;
pub(crate) use handle::{c_params, with_engine};
pub use lifecycle::*;
pub use lock::*;
pub use meta::*;
