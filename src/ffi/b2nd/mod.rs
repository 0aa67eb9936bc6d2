//! The C functions of b2nd.h: n-dimensional arrays on super-chunks.
//!
//! The `b2nd_array_t` C code sees is the first field of a boxed
//! `ArrayHolder` that also keeps the engine's [`ArrayMeta`] and the dtype
//! string the public `dtype` field points at.  The array owns its
//! `blosc2_schunk` (made by the super-chunk functions of this library) and
//! frees it in `b2nd_free`.  Every call that changes the array makes the
//! public fields true again.
#![allow(clippy::missing_safety_doc)]
#![allow(non_camel_case_types)]

mod args;
mod context;
mod data;
mod derived;
mod metalayer;

pub use context::*;
pub use data::*;
pub use derived::*;
pub use metalayer::*;

use super::ctx::{cparams_defaults, dparams_defaults};
use super::guard;
use super::guarded;
use super::ptr::{
    caller_buffer, caller_buffer_mut, items, items_mut, malloc_bytes, nonnull, required_items,
    store, store_cstring, string, string_arg,
};
use super::schunk::{
    blosc2_schunk, blosc2_schunk_append_file, blosc2_schunk_copy, blosc2_schunk_free,
    blosc2_schunk_from_buffer, blosc2_schunk_new, blosc2_schunk_open_offset,
    blosc2_schunk_to_buffer, c_params, with_engine,
};
use crate::b2nd::array::{self, Fill};
use crate::b2nd::follow::take_in_changes;
use crate::b2nd::geometry::MAX_DIM;
use crate::b2nd::meta::{self, ArrayMeta};
use crate::b2nd::params::ArrayParams;
use crate::b2nd::{copy, reshape, save, select};
use crate::error::{Error, Result};
use crate::format::header::Special;
use crate::schunk::SuperChunk;
use args::{axis_arg, dims, dims_all, shape_args};
use std::ffi::CString;
use std::os::raw::{c_char, c_int, c_void};

/// `struct chunk_cache_s`.
#[repr(C)]
pub struct chunk_cache_s {
    pub data: *mut u8,
    pub nchunk: i64,
}

/// `b2nd_array_t`, laid out as in b2nd.h 3.3.
#[repr(C)]
pub struct b2nd_array_t {
    pub sc: *mut blosc2_schunk,
    pub shape: [i64; MAX_DIM],
    pub chunkshape: [i32; MAX_DIM],
    pub extshape: [i64; MAX_DIM],
    pub blockshape: [i32; MAX_DIM],
    pub extchunkshape: [i64; MAX_DIM],
    pub nitems: i64,
    pub chunknitems: i32,
    pub extnitems: i64,
    pub blocknitems: i32,
    pub extchunknitems: i64,
    pub ndim: i8,
    pub chunk_cache: chunk_cache_s,
    pub item_array_strides: [i64; MAX_DIM],
    pub item_chunk_strides: [i64; MAX_DIM],
    pub item_extchunk_strides: [i64; MAX_DIM],
    pub item_block_strides: [i64; MAX_DIM],
    pub block_chunk_strides: [i64; MAX_DIM],
    pub chunk_array_strides: [i64; MAX_DIM],
    pub dtype: *mut c_char,
    pub dtype_format: i8,
    pub last_tick: i64,
}

/// What a `b2nd_array_t *` handed to C points at.
#[repr(C)]
struct ArrayHolder {
    c: b2nd_array_t,
    meta: ArrayMeta,
    dtype: CString,
    /// The super-chunk generation `meta` was read at (arrays on disk follow
    /// shape changes made by other handles; `u64::MAX`: not yet compared).
    seen: u64,
}

fn fill_c(c: &mut b2nd_array_t, m: &ArrayMeta) {
    let g = &m.geom;
    let nd = g.ndim();
    c.ndim = nd as i8;
    for i in 0..MAX_DIM {
        if i < nd {
            c.shape[i] = g.shape[i];
            c.chunkshape[i] = g.chunkshape[i];
            c.blockshape[i] = g.blockshape[i];
            c.extshape[i] = g.extshape[i];
            c.extchunkshape[i] = g.extchunkshape[i];
        } else {
            c.shape[i] = 1;
            c.chunkshape[i] = 1;
            c.blockshape[i] = 1;
            c.extshape[i] = 1;
            c.extchunkshape[i] = 1;
        }
    }
    c.nitems = g.nitems;
    c.extnitems = g.extnitems;
    c.chunknitems = g.chunknitems;
    c.blocknitems = g.blocknitems;
    c.extchunknitems = g.extchunknitems;
    let s = g.array_strides();
    for (field, v) in [
        (&mut c.item_array_strides, &s.item_array),
        (&mut c.item_chunk_strides, &s.item_chunk),
        (&mut c.item_extchunk_strides, &s.item_extchunk),
        (&mut c.item_block_strides, &s.item_block),
        (&mut c.block_chunk_strides, &s.block_chunk),
        (&mut c.chunk_array_strides, &s.chunk_array),
    ] {
        *field = [0; MAX_DIM];
        field[..nd].copy_from_slice(v);
    }
}

impl ArrayHolder {
    /// Box an array around a super-chunk pointer (taken over) and return the
    /// C pointer.
    fn into_c(sc: *mut blosc2_schunk, meta: ArrayMeta) -> *mut b2nd_array_t {
        let dtype = CString::new(meta.dtype.clone()).unwrap_or_default();
        // SAFETY: b2nd_array_t is plain old data (integers, arrays and raw
        // pointers), for which all-zero bytes are a valid value.
        let c: b2nd_array_t = unsafe { std::mem::zeroed() };
        let mut h = Box::new(ArrayHolder {
            c,
            meta,
            dtype,
            seen: u64::MAX,
        });
        h.c.sc = sc;
        h.sync();
        Box::into_raw(h) as *mut b2nd_array_t
    }

    fn sync(&mut self) {
        if self.dtype.as_bytes() != self.meta.dtype.as_bytes() {
            self.dtype = CString::new(self.meta.dtype.clone()).unwrap_or_default();
        }
        fill_c(&mut self.c, &self.meta);
        self.c.dtype = self.dtype.as_ptr() as *mut c_char;
        self.c.dtype_format = self.meta.dtype_format;
        self.c.chunk_cache = chunk_cache_s {
            data: std::ptr::null_mut(),
            nchunk: -1,
        };
        // SAFETY: sc is NULL or the live super-chunk this array owns.
        if let Some(sc) = unsafe { self.c.sc.as_ref() } {
            self.c.last_tick = sc.change_tick;
        }
    }
}

/// Bring the array up to date with its frame on disk; whether its shape changed.
fn follow(h: &mut ArrayHolder) -> Result<bool> {
    let (meta, seen) = (&mut h.meta, &mut h.seen);
    // SAFETY: the array's super-chunk pointer is one of ours.
    let changed = unsafe { with_engine(h.c.sc, false, |sc| take_in_changes(sc, meta, seen)) }?;
    if changed {
        h.sync();
    }
    Ok(changed)
}

/// The holder behind a C array pointer.
///
/// # Safety
/// `p` must be NULL or a pointer returned by one of our constructors and
/// not freed.
unsafe fn holder<'a>(p: *const b2nd_array_t) -> Result<&'a mut ArrayHolder> {
    if p.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: our constructors return the address of a boxed ArrayHolder
    // whose first field (repr(C)) is the b2nd_array_t.
    Ok(unsafe { &mut *(p as *mut ArrayHolder) })
}

/// Run a read-only engine call on an array.
///
/// # Safety
/// `p` must be NULL or a live array pointer from this library.
unsafe fn read<R>(
    p: *const b2nd_array_t,
    f: impl FnOnce(&SuperChunk, &ArrayMeta) -> Result<R>,
) -> Result<R> {
    // SAFETY: guaranteed by the caller.
    let h = unsafe { holder(p) }?;
    let (meta, seen) = (&mut h.meta, &mut h.seen);
    let mut changed = false;
    // SAFETY: the array's super-chunk pointer is one of ours.
    let r = unsafe {
        with_engine(h.c.sc, false, |sc| {
            changed = take_in_changes(sc, meta, seen)?;
            f(sc, meta)
        })
    };
    if changed {
        h.sync();
    }
    r
}

/// Run a changing engine call on an array and refresh its public fields.
///
/// # Safety
/// As [`read`].
unsafe fn write<R>(
    p: *mut b2nd_array_t,
    f: impl FnOnce(&mut SuperChunk, &mut ArrayMeta) -> Result<R>,
) -> Result<R> {
    // SAFETY: guaranteed by the caller.
    let h = unsafe { holder(p) }?;
    let (meta, seen) = (&mut h.meta, &mut h.seen);
    // SAFETY: the array's super-chunk pointer is one of ours.
    let r = unsafe {
        with_engine(h.c.sc, true, |sc| {
            take_in_changes(sc, meta, seen)?;
            f(sc, meta)
        })
    };
    h.sync();
    r
}

/// One C call that reads an array: under `guard`, its result as a code.
///
/// # Safety
/// As [`read`].
unsafe fn read_call(
    p: *const b2nd_array_t,
    f: impl FnOnce(&SuperChunk, &ArrayMeta) -> Result<()>,
) -> c_int {
    // SAFETY: guaranteed by the caller.
    guard(Error::Failure.code(), || rc(unsafe { read(p, f) }))
}

/// One C call that changes an array: under `guard`, its result as a code.
///
/// # Safety
/// As [`read`].
unsafe fn write_call(
    p: *mut b2nd_array_t,
    f: impl FnOnce(&mut SuperChunk, &mut ArrayMeta) -> Result<()>,
) -> c_int {
    // SAFETY: guaranteed by the caller.
    guard(Error::Failure.code(), || rc(unsafe { write(p, f) }))
}

/// Run a changing engine call on the array `dst` (as [`write`]) that reads
/// the super-chunk `src` too: `f` gets `None` for it when `dst` lives on
/// `src` itself (one super-chunk is not lent twice at once).
///
/// # Safety
/// `dst` as [`read`]; `src` must be NULL or a live super-chunk of this
/// library.
unsafe fn with_source<R>(
    src: *mut blosc2_schunk,
    dst: *mut b2nd_array_t,
    f: impl FnOnce(Option<&SuperChunk>, &mut SuperChunk, &mut ArrayMeta) -> Result<R>,
) -> Result<R> {
    // SAFETY: guaranteed by the caller.
    unsafe {
        if holder(dst)?.c.sc == src {
            write(dst, |d, m| f(None, d, m))
        } else {
            with_engine(src, false, |s| write(dst, |d, m| f(Some(s), d, m)))
        }
    }
}

/// Run `f` under [`guard`] and map its result to 0 or its error code.
fn guarded_rc(f: impl FnOnce() -> Result<()>) -> c_int {
    guard(Error::Failure.code(), || rc(f()))
}

fn rc(r: Result<()>) -> c_int {
    match r {
        Ok(()) => 0,
        Err(e) => e.code(),
    }
}

// ---------------------------------------------------------------- creation

/// A new array for `ctx`, with the metalayers `extra` after the context's.
fn array_new(
    ctx: &mut b2nd_context_t,
    fill: Fill<'_>,
    extra: &[(String, Vec<u8>)],
) -> Result<*mut b2nd_array_t> {
    let meta = ctx.params.meta()?;
    let (mut cp, mut dp) = (cparams_defaults(), dparams_defaults());
    let mut storage = ctx.storage(&mut cp, &mut dp);
    // SAFETY: storage points at live copies owned by this frame and ctx.
    let sc = unsafe { blosc2_schunk_new(&mut storage) };
    if sc.is_null() {
        return Err(Error::Failure);
    }
    let metas: Vec<_> = ctx.params.metalayers.iter().chain(extra).cloned().collect();
    // SAFETY: sc was just made by this library.
    let r = unsafe { with_engine(sc, true, |s| array::init_schunk(s, &meta, &metas, fill)) };
    if let Err(e) = r {
        // SAFETY: sc is ours and not shared.
        unsafe { blosc2_schunk_free(sc) };
        return Err(e);
    }
    Ok(ArrayHolder::into_c(sc, meta))
}

/// A new array for `ctx` handed to C through `out` (NULL is `NullPointer`).
fn create(ctx: &mut b2nd_context_t, out: *mut *mut b2nd_array_t, fill: Fill<'_>) -> Result<()> {
    if out.is_null() {
        return Err(Error::NullPointer);
    }
    store(out, array_new(ctx, fill, &[])?)
}

/// One C call that makes an array filled as `fill` says: under `guard`,
/// its result as a code.
///
/// # Safety
/// `ctx` must be NULL or a live context.
unsafe fn create_call(
    ctx: *mut b2nd_context_t,
    out: *mut *mut b2nd_array_t,
    fill: Fill<'_>,
) -> c_int {
    // SAFETY: guaranteed by the caller.
    guarded_rc(|| create(unsafe { ctx_ref(ctx) }?, out, fill))
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_uninit(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { create_call(ctx, array, Fill::Special(Special::Uninit)) }
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_empty(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    // As the reference: an empty array is a zero-filled one, so that its
    // compression ratio does not depend on leftover bytes.
    // SAFETY: forwarded contract.
    unsafe { b2nd_zeros(ctx, array) }
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_zeros(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { create_call(ctx, array, Fill::Special(Special::Zero)) }
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_nans(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    guarded_rc(|| {
        // SAFETY: ctx is NULL or a live context.
        let c = unsafe { ctx_ref(ctx) }?;
        let nan = Fill::Special(Special::Nan);
        nan.check_typesize(c.cparams.typesize)?;
        create(c, array, nan)
    })
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_full(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
    fill_value: *const c_void,
) -> c_int {
    guarded_rc(|| {
        // SAFETY: ctx is NULL or a live context.
        let c = unsafe { ctx_ref(ctx) }?;
        let nbytes = Fill::value_nbytes(c.cparams.typesize)?;
        // SAFETY: fill_value holds one item of typesize bytes.
        let value = unsafe { caller_buffer(fill_value, nbytes) }?;
        create(c, array, Fill::Value(value))
    })
}

/// A new zero array for `ctx` (the metalayers `extra` after the
/// context's) whose items `fill` then writes; freed when `fill` fails.
fn new_filled(
    ctx: &mut b2nd_context_t,
    extra: &[(String, Vec<u8>)],
    fill: impl FnOnce(*mut b2nd_array_t) -> Result<()>,
) -> Result<*mut b2nd_array_t> {
    let a = array_new(ctx, Fill::Special(Special::Zero), extra)?;
    let r = fill(a);
    // SAFETY: a was just made and nobody else holds it.
    unsafe { kept_or_freed(a, r) }
}

/// The new array `a` when `r` (the call that filled it) succeeded;
/// otherwise `a` is freed and `r`'s error comes back.
///
/// # Safety
/// `a` must be a live array of this library that nobody else holds.
unsafe fn kept_or_freed<T>(a: *mut b2nd_array_t, r: Result<T>) -> Result<*mut b2nd_array_t> {
    if let Err(e) = r {
        // SAFETY: guaranteed by the caller.
        unsafe { b2nd_free(a) };
        return Err(e);
    }
    Ok(a)
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_free(array: *mut b2nd_array_t) -> c_int {
    guarded_rc(|| {
        if array.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: a pointer from one of our constructors, freed once here.
        let h = unsafe { Box::from_raw(array as *mut ArrayHolder) };
        // SAFETY: the array owns its super-chunk (NULL is passed over).
        unsafe { blosc2_schunk_free(h.c.sc) };
        Ok(())
    })
}

/// Wrap a super-chunk; on failure the super-chunk stays the caller's.
unsafe fn from_schunk(sc: *mut blosc2_schunk) -> Result<*mut b2nd_array_t> {
    if sc.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: a super-chunk pointer from this library.
    let meta = unsafe { with_engine(sc, false, |s| array::read_meta(s)) }?;
    Ok(ArrayHolder::into_c(sc, meta))
}

/// Wrap a super-chunk this library just made, freeing it on failure (a
/// NULL one, a failed making, is `Failure`).
///
/// # Safety
/// `sc` must be NULL or a super-chunk of this library nobody else holds.
unsafe fn adopted(sc: *mut blosc2_schunk) -> Result<*mut b2nd_array_t> {
    if sc.is_null() {
        return Err(Error::Failure);
    }
    // SAFETY: guaranteed by the caller.
    unsafe { from_schunk(sc) }.inspect_err(|_| {
        // SAFETY: nobody else holds sc.
        unsafe { blosc2_schunk_free(sc) };
    })
}

/// One C call that opens a super-chunk from `source` and wraps it
/// (`b2nd_from_cframe`, `b2nd_open_offset`): NULL `source` or `out` is
/// `NullPointer`; a super-chunk `open` could not make is `unopened` (the
/// reference's codes differ by call); otherwise the super-chunk is wrapped
/// and stored in `out` (and freed on failure).
///
/// # Safety
/// `out` must be NULL or valid for a write; `open` must return NULL or a
/// super-chunk of this library that nobody else holds.
unsafe fn open_call<T>(
    source: *const T,
    out: *mut *mut b2nd_array_t,
    unopened: Error,
    open: impl FnOnce() -> *mut blosc2_schunk,
) -> c_int {
    guard(Error::Failure.code(), || {
        if source.is_null() || out.is_null() {
            return Error::NullPointer.code();
        }
        let sc = open();
        if sc.is_null() {
            return unopened.code();
        }
        // SAFETY: guaranteed by the caller.
        rc(unsafe { adopted(sc) }.and_then(|a| store(out, a)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_from_schunk(
    schunk: *mut blosc2_schunk,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    guard(Error::Failure.code(), || {
        if array.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: schunk is NULL or one of ours (b2nd.h contract).
        match unsafe { from_schunk(schunk) } {
            Ok(a) => rc(store(array, a)),
            Err(e) => e.code(),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_to_cframe(
    array: *const b2nd_array_t,
    cframe: *mut *mut u8,
    cframe_len: *mut i64,
    needs_free: *mut bool,
) -> c_int {
    guarded_rc(|| {
        // SAFETY: array is NULL or ours.
        let h = unsafe { holder(array) }?;
        if cframe.is_null() || cframe_len.is_null() || needs_free.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: out-parameters checked above; sc is the array's.
        let n = unsafe { blosc2_schunk_to_buffer(h.c.sc, cframe, needs_free) };
        store(cframe_len, n)?;
        (n > 0).then_some(()).ok_or(Error::Failure)
    })
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_from_cframe(
    cframe: *mut u8,
    cframe_len: i64,
    copy: bool,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    // SAFETY: cframe holds cframe_len bytes (b2nd.h); the new super-chunk
    // is ours.
    // (A buffer that is not a frame is `Failure` to the reference.)
    unsafe {
        open_call(cframe, array, Error::Failure, || {
            blosc2_schunk_from_buffer(cframe, cframe_len, copy)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_open(urlpath: *const c_char, array: *mut *mut b2nd_array_t) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { b2nd_open_offset(urlpath, array, 0) }
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_open_offset(
    urlpath: *const c_char,
    array: *mut *mut b2nd_array_t,
    offset: i64,
) -> c_int {
    // SAFETY: urlpath is a NUL-terminated string (b2nd.h); the opened
    // super-chunk is ours.
    // (A file that could not be opened is `NullPointer` to the reference,
    // which hands the NULL super-chunk on to `b2nd_from_schunk`.)
    unsafe {
        open_call(urlpath, array, Error::NullPointer, || {
            blosc2_schunk_open_offset(urlpath, offset)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_save(array: *const b2nd_array_t, urlpath: *mut c_char) -> c_int {
    guarded_rc(|| {
        // SAFETY: array is NULL or ours.
        let h = unsafe { holder(array) }?;
        if urlpath.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: the array's super-chunk is ours; urlpath is a C string.
        let (_, _, contiguous) = unsafe { c_params(h.c.sc) }?;
        // SAFETY: as above.
        let saved = unsafe {
            let url = string_arg(urlpath);
            url.and_then(|u| with_engine(h.c.sc, false, |sc| save::save(sc, contiguous, &u)))
        };
        // As the reference: any failure to write the copy is `Failure`.
        saved.map_err(|_| Error::Failure)
    })
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_save_append(
    array: *const b2nd_array_t,
    urlpath: *const c_char,
) -> i64 {
    guard(Error::Failure.code() as i64, || {
        // SAFETY: array is NULL or ours.
        match unsafe { holder(array) } {
            // SAFETY: sc is ours; urlpath is checked by the callee.
            Ok(h) => unsafe { blosc2_schunk_append_file(h.c.sc, urlpath) },
            Err(e) => e.code() as i64,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::b2nd::Geometry;

    #[test]
    fn public_fields_follow_the_geometry() {
        let g = Geometry::new(&[10, 7, 4], &[4, 3, 4], &[2, 2, 3]).unwrap();
        let m = ArrayMeta {
            geom: g.clone(),
            dtype: "<i4".into(),
            dtype_format: 0,
        };
        // SAFETY: all-zero is a valid b2nd_array_t.
        let mut c: b2nd_array_t = unsafe { std::mem::zeroed() };
        fill_c(&mut c, &m);
        assert_eq!(&c.shape[..4], &[10, 7, 4, 1]);
        assert_eq!(&c.extshape[..3], &[12, 9, 4]);
        assert_eq!(&c.extchunkshape[..3], &[4, 4, 6]);
        assert_eq!(c.extchunknitems, 96);
        assert_eq!(&c.item_array_strides[..3], &[28, 4, 1]);
        assert_eq!(&c.item_block_strides[..3], &[6, 3, 1]);
        assert_eq!(&c.block_chunk_strides[..3], &[4, 2, 1]);
        assert_eq!(
            &c.chunk_array_strides[..3],
            &crate::b2nd::geometry::strides(&g.chunks_per_dim())[..]
        );
    }
}
