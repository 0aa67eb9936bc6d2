//! `b2nd_context_t`: the storage and array parameters `b2nd_create_ctx`
//! copies, and the calls that make and free one.
//!
//! b2nd.h declares the context opaque, but c-blosc2 defines it in its
//! private context.h and its own test programs (built against the
//! library) read `ctx->ndim` and `ctx->shape`, and write
//! `ctx->b2_storage->urlpath`.  So a context handed to C starts with
//! `ContextHead`, those members in that layout, kept equal to the
//! parameters the context holds; the rest is ours.  The storage C sees
//! there is taken back as the context's own on every call that uses the
//! context (see `ctx_ref`), as c-blosc2 keeps the storage nowhere else.
use super::args::{metalayer_args, shape_args};
use crate::b2nd::geometry::MAX_DIM;
use crate::b2nd::params::{self, ArrayParams, MAX_METALAYERS};
use crate::error::{Error, Result};
use crate::ffi::ctx::{cparams_defaults, dparams_defaults};
use crate::ffi::guard;
use crate::ffi::ptr::{c_str, string};
use crate::ffi::schunk::blosc2_metalayer;
use crate::ffi::types::*;
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int};

/// The members of c-blosc2's `struct b2nd_context_s`, in its order.
#[repr(C)]
struct ContextHead {
    ndim: i8,
    shape: [i64; MAX_DIM],
    chunkshape: [i32; MAX_DIM],
    blockshape: [i32; MAX_DIM],
    dtype: *mut c_char,
    dtype_format: i8,
    b2_storage: *mut blosc2_storage,
    metalayers: [blosc2_metalayer; MAX_METALAYERS],
    nmetalayers: i32,
}

/// What the head's pointers point at: copies owned by the context.
struct HeadTargets {
    dtype: CString,
    meta_names: Vec<CString>,
    cparams: blosc2_cparams,
    dparams: blosc2_dparams,
    storage: blosc2_storage,
}

/// `b2nd_context_t`: the head C may read (`ContextHead`), then the copies
/// the calls use.
#[repr(C)]
pub struct b2nd_context_t {
    head: ContextHead,
    pub(super) contiguous: bool,
    pub(super) urlpath: Option<CString>,
    pub(super) cparams: blosc2_cparams,
    pub(super) dparams: Option<blosc2_dparams>,
    pub(super) io: *mut blosc2_io,
    pub(super) params: ArrayParams,
    targets: Option<Box<HeadTargets>>,
}

impl b2nd_context_t {
    /// A context for arrays in memory with the given parameters.
    pub(super) fn in_memory(
        cparams: blosc2_cparams,
        dparams: Option<blosc2_dparams>,
        params: ArrayParams,
    ) -> b2nd_context_t {
        b2nd_context_t {
            // SAFETY: all-zero is a valid ContextHead (NULL pointers, zeros).
            head: unsafe { std::mem::zeroed() },
            contiguous: false,
            urlpath: None,
            cparams,
            dparams,
            io: std::ptr::null_mut(),
            params,
            targets: None,
        }
    }

    /// A context copying the storage `st` (NULL: the defaults), with
    /// default array parameters.
    ///
    /// # Safety
    /// `st` must be NULL or a valid storage whose non-NULL pointers are valid.
    unsafe fn from_storage(st: *const blosc2_storage) -> b2nd_context_t {
        let mut ctx = b2nd_context_t::in_memory(cparams_defaults(), None, ArrayParams::default());
        // SAFETY: guaranteed by the caller.
        if let Some(st) = unsafe { st.as_ref() } {
            // SAFETY: as above.
            unsafe { ctx.take_storage(st) };
        }
        ctx
    }

    /// Copy the storage `st` into the context: its contiguity, urlpath and
    /// I/O backend, and the parameters it points at (those it leaves NULL
    /// stay as they are).
    ///
    /// # Safety
    /// The pointers in `st` must be NULL or valid.
    unsafe fn take_storage(&mut self, st: &blosc2_storage) {
        // SAFETY: guaranteed by the caller; the urlpath is NULL or a
        // NUL-terminated string.
        let (urlpath, cparams, dparams) = unsafe {
            (
                c_str(st.urlpath).map(CStr::to_owned),
                st.cparams.as_ref().copied(),
                st.dparams.as_ref().copied(),
            )
        };
        self.contiguous = st.contiguous;
        self.io = st.io;
        self.cparams = cparams.unwrap_or(self.cparams);
        self.dparams = dparams.or(self.dparams);
        self.urlpath = urlpath;
    }

    /// A context copying the storage `st` (NULL: the defaults) whose array
    /// parameters `make` makes (given the storage's typesize); the
    /// compression parameters get the block size those need, and the head
    /// shows them to C.
    ///
    /// # Safety
    /// As [`Self::from_storage`].
    unsafe fn with_params(
        st: *const blosc2_storage,
        make: impl FnOnce(i32) -> Result<ArrayParams>,
    ) -> Result<b2nd_context_t> {
        // SAFETY: guaranteed by the caller.
        let mut ctx = unsafe { b2nd_context_t::from_storage(st) };
        let p = make(ctx.cparams.typesize)?;
        ctx.cparams.blocksize = p.blocksize(ctx.cparams.typesize)?;
        ctx.params = p;
        ctx.refresh_head();
        Ok(ctx)
    }

    /// Change the array parameters with `f` (given them and the typesize);
    /// the head follows.
    pub(super) fn change_params<R>(
        &mut self,
        f: impl FnOnce(&mut ArrayParams, i32) -> Result<R>,
    ) -> Result<R> {
        let r = f(&mut self.params, self.cparams.typesize);
        self.refresh_head();
        r
    }

    /// A `blosc2_storage` pointing at this context's copies (valid while
    /// `self` and `dparams` live and are not moved).
    pub(super) fn storage(
        &self,
        cparams: &mut blosc2_cparams,
        dparams: &mut blosc2_dparams,
    ) -> blosc2_storage {
        *cparams = self.cparams;
        *dparams = self.dparams.unwrap_or_else(dparams_defaults);
        blosc2_storage {
            contiguous: self.contiguous,
            urlpath: self.urlpath_ptr(),
            cparams,
            dparams,
            io: self.io,
        }
    }

    /// The urlpath as C reads it (NULL: in memory).
    fn urlpath_ptr(&self) -> *mut c_char {
        self.urlpath
            .as_ref()
            .map_or(std::ptr::null_mut(), |u| u.as_ptr() as *mut c_char)
    }

    /// Make the context's storage the one C sees through the head's
    /// `b2_storage` (which C may have changed since the last call): its
    /// contiguity, urlpath, I/O backend and the parameters it points at.
    /// Nothing changes for a head that was never shown to C.
    ///
    /// # Safety
    /// The head's storage pointer, and the pointers in that storage, must
    /// be NULL or valid: ours, or what the caller stored there.
    unsafe fn adopt_head_storage(&mut self) {
        // SAFETY: guaranteed by the caller.
        let Some(st) = (unsafe { self.head.b2_storage.as_ref() }) else {
            return;
        };
        // A copy: `st` may be the head's own storage, rebuilt just below.
        let st = *st;
        // SAFETY: as above.
        unsafe { self.take_storage(&st) };
        // The head's urlpath may point into the copy just replaced: it is
        // pointed at the new one here.
        self.refresh_head();
    }

    /// Make the C-visible head equal to the parameters again (after they
    /// changed).  Its pointers point into boxed copies, made once, so they
    /// stay valid while the context lives, wherever it is moved, and a
    /// pointer C keeps to `ctx->b2_storage` stays good.
    pub(super) fn refresh_head(&mut self) {
        let p = &self.params;
        let mut t = self.targets.take().unwrap_or_else(|| {
            Box::new(HeadTargets {
                dtype: CString::default(),
                meta_names: Vec::new(),
                cparams: self.cparams,
                dparams: dparams_defaults(),
                // SAFETY: all-zero is a valid blosc2_storage (NULL pointers).
                storage: unsafe { std::mem::zeroed() },
            })
        });
        t.dtype = CString::new(p.dtype.replace('\0', "")).unwrap_or_default();
        t.meta_names = p.metalayers.iter().map(|(n, _)| c_name(n)).collect();
        let HeadTargets {
            cparams, dparams, ..
        } = &mut *t;
        t.storage = self.storage(cparams, dparams);
        let h = &mut self.head;
        let nd = p.shape.len();
        h.ndim = nd as i8;
        h.shape = [0; MAX_DIM];
        h.shape[..nd].copy_from_slice(&p.shape);
        h.chunkshape = [0; MAX_DIM];
        h.chunkshape[..nd].copy_from_slice(&p.chunkshape);
        h.blockshape = [0; MAX_DIM];
        h.blockshape[..nd].copy_from_slice(&p.blockshape);
        h.dtype = t.dtype.as_ptr() as *mut c_char;
        h.dtype_format = p.dtype_format;
        h.b2_storage = &mut t.storage;
        // SAFETY: all-zero is a valid blosc2_metalayer (NULL pointers).
        h.metalayers = unsafe { std::mem::zeroed() };
        for (slot, ((_, content), name)) in h
            .metalayers
            .iter_mut()
            .zip(p.metalayers.iter().zip(&t.meta_names))
        {
            slot.name = name.as_ptr() as *mut c_char;
            slot.content = content.as_ptr() as *mut u8;
            slot.content_len = content.len() as i32;
        }
        h.nmetalayers = p.metalayers.len().min(MAX_METALAYERS) as i32;
        self.targets = Some(t);
    }
}

/// A metalayer name as a C string (an inner NUL ends it, as C would read it).
fn c_name(name: &str) -> CString {
    CString::new(name.split('\0').next().unwrap_or_default()).unwrap_or_default()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_create_ctx(
    b2_storage: *const blosc2_storage,
    ndim: i8,
    shape: *const i64,
    chunkshape: *const i32,
    blockshape: *const i32,
    dtype: *const c_char,
    dtype_format: i8,
    metalayers: *const blosc2_metalayer_c,
    nmetalayers: i32,
) -> *mut b2nd_context_t {
    guard(std::ptr::null_mut(), || {
        // SAFETY: the shape arrays hold ndim values and metalayers holds
        // nmetalayers entries (b2nd.h); dtype is NULL or a C string.
        let made = (|| unsafe {
            let nd = params::ndim_count(ndim)?;
            let (s, c, b) = shape_args(nd, shape, chunkshape, blockshape)?;
            let metas = metalayer_args(metalayers, params::metalayer_count(nmetalayers)?)?;
            let (d, f) = (string(dtype), dtype_format);
            b2nd_context_t::with_params(b2_storage, |ts| ArrayParams::new(s, c, b, d, f, ts, metas))
        })();
        made.map_or(std::ptr::null_mut(), |ctx| Box::into_raw(Box::new(ctx)))
    })
}

/// `blosc2_metalayer` as b2nd_create_ctx reads it.
pub type blosc2_metalayer_c = blosc2_metalayer;

#[no_mangle]
pub unsafe extern "C" fn b2nd_free_ctx(ctx: *mut b2nd_context_t) -> c_int {
    guard(Error::Failure.code(), || {
        if ctx.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: a pointer from b2nd_create_ctx, freed once here.
        drop(unsafe { Box::from_raw(ctx) });
        0
    })
}

/// The context behind `ctx`, its storage first taken back from what C sees
/// in `ctx->b2_storage` (c-blosc2's callers change it between calls, e.g.
/// setting its urlpath to NULL to make the next arrays in memory).
///
/// # Safety
/// `ctx` must be NULL or a live context whose `b2_storage` C left NULL or
/// pointing at a valid storage.
pub(super) unsafe fn ctx_ref<'a>(ctx: *mut b2nd_context_t) -> Result<&'a mut b2nd_context_t> {
    // SAFETY: guaranteed by the caller.
    let c = unsafe { ctx.as_mut() }.ok_or(Error::NullPointer)?;
    // SAFETY: guaranteed by the caller.
    unsafe { c.adopt_head_storage() };
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_shows_the_parameters_where_c_blosc2_has_them() {
        let metas = vec![("m1".to_string(), vec![1u8, 2, 3])];
        let p =
            ArrayParams::new(&[10, 7], &[4, 3], &[2, 2], Some("<i4".into()), 0, 4, metas).unwrap();
        let mut ctx = b2nd_context_t::in_memory(cparams_defaults(), None, p);
        ctx.refresh_head();
        let ctx = Box::new(ctx);
        let h = &ctx.head;
        assert_eq!(std::mem::offset_of!(b2nd_context_t, head), 0);
        assert_eq!(h.ndim, 2);
        assert_eq!(&h.shape[..3], &[10, 7, 0]);
        assert_eq!(&h.chunkshape[..2], &[4, 3]);
        assert_eq!(&h.blockshape[..2], &[2, 2]);
        // SAFETY: the head's pointers point into the context's copies.
        unsafe {
            assert_eq!(CStr::from_ptr(h.dtype).to_str().unwrap(), "<i4");
            assert_eq!(h.nmetalayers, 1);
            assert_eq!(CStr::from_ptr(h.metalayers[0].name).to_str().unwrap(), "m1");
            assert_eq!(*h.metalayers[0].content.add(2), 3);
            assert_eq!((*(*h.b2_storage).cparams).typesize, ctx.cparams.typesize);
        }
    }

    #[test]
    fn a_new_context_takes_the_storage_typesize_and_sizes_its_blocks() {
        let mut cp = cparams_defaults();
        cp.typesize = 8;
        // SAFETY: all-zero is a valid blosc2_storage (NULL pointers).
        let mut st: blosc2_storage = unsafe { std::mem::zeroed() };
        st.cparams = &mut cp;
        let make = |ts| ArrayParams::new(&[10], &[5], &[5], None, 0, ts, Vec::new());
        // SAFETY: st points at a live cparams and NULL otherwise.
        let ctx = unsafe { b2nd_context_t::with_params(&st, make) }.unwrap();
        assert_eq!(ctx.cparams.typesize, 8);
        assert_eq!(ctx.cparams.blocksize, ctx.params.blocksize(8).unwrap());
        assert_eq!(&ctx.head.shape[..2], &[10, 0]);
        let refused = |_| Err(Error::InvalidParam);
        // SAFETY: NULL storage: the defaults.
        let made = unsafe { b2nd_context_t::with_params(std::ptr::null(), refused) };
        assert_eq!(made.err(), Some(Error::InvalidParam));
    }

    #[test]
    fn storage_written_through_the_head_is_the_one_used() {
        let p = ArrayParams::new(&[4], &[2], &[1], None, 0, 1, Vec::new()).unwrap();
        let mut ctx = Box::new(b2nd_context_t::in_memory(cparams_defaults(), None, p));
        ctx.urlpath = Some(CString::new("a.b2nd").unwrap());
        ctx.refresh_head();
        let st = ctx.head.b2_storage;
        // SAFETY: st and its cparams point into the context's boxed copies.
        unsafe {
            assert_eq!(CStr::from_ptr((*st).urlpath).to_str(), Ok("a.b2nd"));
            (*st).urlpath = std::ptr::null_mut();
            (*st).contiguous = true;
            (*(*st).cparams).clevel = 1;
        }
        // SAFETY: a live context whose storage pointer is its own.
        let c = unsafe { ctx_ref(&mut *ctx) }.unwrap();
        assert_eq!(
            (c.urlpath.as_ref(), c.contiguous, c.cparams.clevel),
            (None, true, 1)
        );
        c.change_params(|p, _| p.set_shape(&[3])).unwrap();
        // The storage stays where C saw it, and shows the same values.
        assert_eq!(c.head.b2_storage, st);
        // SAFETY: as above.
        unsafe {
            assert!((*st).urlpath.is_null());
            assert_eq!((*(*st).cparams).clevel, 1);
        }
        // SAFETY: NULL is refused before anything is read.
        assert!(unsafe { ctx_ref(std::ptr::null_mut()) }.is_err());
    }
}
