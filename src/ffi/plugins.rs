//! User codecs, filters and tuners registered from C.
#![allow(clippy::missing_safety_doc)]

use super::ctx::{cparams_defaults, dparams_defaults, with_call_fields};
use super::guard;
use super::ptr::string;
use super::types::*;
use crate::chunk::user_filter::{self, FilterPlugin, RegisteredFilter};
use crate::codec::{self, CallInfo, CodecPlugin, RegisteredCodec};
use crate::error::Error;
use crate::plugin::{SchunkContext, SchunkRef};
use std::ffi::CStr;
use std::os::raw::{c_int, c_void};
use std::sync::Arc;

fn cparams_for(info: &CallInfo) -> blosc2_cparams {
    blosc2_cparams {
        schunk: schunk_addr(&info.schunk) as *mut c_void,
        codec_params: info.codec_params as *mut c_void,
        filter_params: info.filter_params.map(|p| p as *mut c_void),
        ..with_call_fields(cparams_defaults(), info)
    }
}

fn dparams_for(info: &CallInfo) -> blosc2_dparams {
    blosc2_dparams {
        nthreads: info.nthreads,
        typesize: info.typesize,
        schunk: schunk_addr(&info.schunk) as *mut c_void,
        ..dparams_defaults()
    }
}

struct CCodec {
    encoder: blosc2_codec_encoder_cb,
    decoder: blosc2_codec_decoder_cb,
}
// SAFETY: registered C callbacks must be callable from any thread (the
// reference calls them from its worker pool too).
unsafe impl Send for CCodec {}
// SAFETY: see above.
unsafe impl Sync for CCodec {}

impl CCodec {
    /// The engine's registration of the C codec `c`, named `name`.
    fn registration(c: &blosc2_codec, name: String) -> RegisteredCodec {
        RegisteredCodec {
            compcode: c.compcode,
            name,
            complib: c.complib,
            version: c.version,
            plugin: Arc::new(CCodec {
                encoder: c.encoder,
                decoder: c.decoder,
            }),
        }
    }
}

/// A C codec callback, encoder (`P` = `blosc2_cparams`) or decoder
/// (`blosc2_dparams`).
type CodecFn<P> =
    unsafe extern "C" fn(*const u8, i32, *mut u8, i32, u8, *mut P, *const c_void) -> c_int;

/// Run a C codec callback over `src` into `dest` with the parameters `params`.
fn call_codec<P>(
    f: Option<CodecFn<P>>,
    mut params: P,
    src: &[u8],
    dest: &mut [u8],
    info: &CallInfo,
    chunk: &[u8],
) -> i32 {
    let Some(f) = f else {
        return Error::CodecSupport.code();
    };
    // SAFETY: the buffers are live slices of the lengths passed.
    unsafe {
        f(
            src.as_ptr(),
            src.len() as i32,
            dest.as_mut_ptr(),
            dest.len() as i32,
            info.meta,
            &mut params,
            chunk.as_ptr().cast(),
        )
    }
}

impl CodecPlugin for CCodec {
    fn encode(&self, src: &[u8], dest: &mut [u8], info: &CallInfo, chunk: &[u8]) -> i32 {
        call_codec(self.encoder, cparams_for(info), src, dest, info, chunk)
    }
    fn decode(&self, src: &[u8], dest: &mut [u8], info: &CallInfo, chunk: &[u8]) -> i32 {
        call_codec(self.decoder, dparams_for(info), src, dest, info, chunk)
    }
}

struct CFilter {
    forward: blosc2_filter_forward_cb,
    backward: blosc2_filter_backward_cb,
}
// SAFETY: as for CCodec.
unsafe impl Send for CFilter {}
// SAFETY: as for CCodec.
unsafe impl Sync for CFilter {}

impl CFilter {
    /// The engine's registration of the C filter `f`, named `name`.
    fn registration(f: &blosc2_filter, name: String) -> RegisteredFilter {
        RegisteredFilter {
            id: f.id,
            name,
            version: f.version,
            plugin: Arc::new(CFilter {
                forward: f.forward,
                backward: f.backward,
            }),
        }
    }
}

/// A C filter callback, forward (`P` = `blosc2_cparams`) or backward
/// (`blosc2_dparams`).
type FilterFn<P> = unsafe extern "C" fn(*const u8, *mut u8, i32, u8, *mut P, u8) -> c_int;

/// Run a C filter callback over `src` into `dest` with the parameters `params`.
fn call_filter<P>(
    f: Option<FilterFn<P>>,
    mut params: P,
    src: &[u8],
    dest: &mut [u8],
    info: &CallInfo,
    id: u8,
) -> i32 {
    let Some(f) = f else {
        return Error::FilterPipeline.code();
    };
    if dest.len() < src.len() {
        return Error::WriteBuffer.code();
    }
    // SAFETY: src and dest are live slices of at least src.len() bytes.
    unsafe {
        f(
            src.as_ptr(),
            dest.as_mut_ptr(),
            src.len() as i32,
            info.meta,
            &mut params,
            id,
        )
    }
}

impl FilterPlugin for CFilter {
    fn forward(&self, src: &[u8], dest: &mut [u8], info: &CallInfo, id: u8) -> i32 {
        call_filter(self.forward, cparams_for(info), src, dest, info, id)
    }
    fn backward(&self, src: &[u8], dest: &mut [u8], info: &CallInfo, id: u8) -> i32 {
        call_filter(self.backward, dparams_for(info), src, dest, info, id)
    }
}

/// What the three register calls share: a NULL description is
/// `BLOSC2_ERROR_INVALID_PARAM`; otherwise `register` gets it and its name
/// (a NULL name is empty), and 0 or its error code comes back.
///
/// # Safety
/// `p` must be NULL or point at a valid description whose name is NULL or a
/// C string.
unsafe fn register_from<T>(
    p: *mut T,
    name: impl FnOnce(&T) -> *const std::os::raw::c_char,
    register: impl FnOnce(&T, String) -> crate::error::Result<()>,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: guaranteed by the caller.
        let Some(t) = (unsafe { p.as_ref() }) else {
            return Error::InvalidParam.code();
        };
        // SAFETY: guaranteed by the caller.
        let n = unsafe { string(name(t)) }.unwrap_or_default();
        register(t, n).map_or_else(Error::code, |()| 0)
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_register_codec(codec: *mut blosc2_codec) -> c_int {
    let register = |c: &blosc2_codec, name| codec::register(CCodec::registration(c, name));
    // SAFETY: codec is NULL or a valid blosc2_codec (blosc2.h).
    unsafe { register_from(codec, |c| c.compname, register) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_register_filter(filter: *mut blosc2_filter) -> c_int {
    let register = |f: &blosc2_filter, name| user_filter::register(CFilter::registration(f, name));
    // SAFETY: filter is NULL or a valid blosc2_filter (blosc2.h).
    unsafe { register_from(filter, |f| f.name, register) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_register_tuner(tuner: *mut blosc2_tuner) -> c_int {
    let register = |t: &blosc2_tuner, name: String| crate::chunk::tuner::register(t.id, &name);
    // SAFETY: tuner is NULL or a valid blosc2_tuner (blosc2.h).
    unsafe { register_from(tuner, |t| t.name, register) }
}

/// The `blosc2_schunk` at an address taken from C parameters, as the
/// engine's plugins see it (typesize, "b2nd" metalayer).
pub(crate) struct CSchunk(usize);

/// The engine value for the `schunk` pointer of C parameters (`None` for NULL).
pub(crate) fn schunk_ref(schunk: usize) -> Option<SchunkRef> {
    (schunk != 0).then(|| SchunkRef(Arc::new(CSchunk(schunk))))
}

/// The `blosc2_schunk` pointer behind a value made by [`schunk_ref`] (0 for
/// `None` or a super-chunk context of another kind).
pub(crate) fn schunk_addr(schunk: &Option<SchunkRef>) -> usize {
    let Some(r) = schunk else { return 0 };
    let any: &dyn std::any::Any = &*r.0;
    any.downcast_ref::<CSchunk>().map_or(0, |c| c.0)
}

impl SchunkContext for CSchunk {
    fn typesize(&self) -> Option<i32> {
        schunk_typesize(self.0)
    }
    fn metalayer(&self, name: &str) -> Option<Vec<u8>> {
        schunk_meta(self.0, name)
    }
    fn current_nchunk(&self) -> i64 {
        let p = self.0 as *const super::schunk::blosc2_schunk;
        // SAFETY: as in `schunk_typesize` (clients such as python-blosc2 set
        // the field before compressing through the super-chunk's context).
        unsafe { p.as_ref() }.map_or(-1, |s| s.current_nchunk)
    }
}

/// Typesize of the `blosc2_schunk` at `schunk` (for plugins that read it).
fn schunk_typesize(schunk: usize) -> Option<i32> {
    let p = schunk as *const super::schunk::blosc2_schunk;
    // SAFETY: a non-zero `schunk` in the parameters is the `blosc2_schunk`
    // pointer the caller put in its cparams/dparams (as in the reference,
    // whose plugins dereference it too); it outlives the call.
    unsafe { p.as_ref() }.map(|s| s.typesize)
}

/// Content of the fixed-length metalayer `name` of the `blosc2_schunk` at
/// `schunk`.
fn schunk_meta(schunk: usize, name: &str) -> Option<Vec<u8>> {
    let p = schunk as *const super::schunk::blosc2_schunk;
    // SAFETY: as in `schunk_typesize`.
    let sc = unsafe { p.as_ref() }?;
    let n = (sc.nmetalayers as usize).min(super::schunk::MAX_METALAYERS);
    for &m in &sc.metalayers[..n] {
        // SAFETY: the first `nmetalayers` entries are null or point at live
        // metalayers whose name is a C string and whose content holds
        // `content_len` bytes (kept so by the super-chunk's owner).
        let Some(m) = (unsafe { m.as_ref() }) else {
            continue;
        };
        if m.name.is_null() {
            continue;
        }
        // SAFETY: see above.
        let mname = unsafe { CStr::from_ptr(m.name) };
        if mname.to_bytes() != name.as_bytes() {
            continue;
        }
        if m.content.is_null() || m.content_len < 0 {
            return None;
        }
        // SAFETY: see above.
        let content = unsafe { std::slice::from_raw_parts(m.content, m.content_len as usize) };
        return Some(content.to_vec());
    }
    None
}
