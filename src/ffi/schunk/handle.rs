//! The holder behind a `blosc2_schunk *`: the engine super-chunk, the
//! buffers the public fields point at, and the access every call goes through.

use super::*;

/// A metalayer as C sees it, with the storage its pointers refer to.
pub(super) struct CMeta {
    pub(super) _name: CString,
    pub(super) _content: Vec<u8>,
    pub(super) c: Box<blosc2_metalayer>,
}

impl CMeta {
    pub(super) fn new(name: &str, content: &[u8]) -> CMeta {
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
pub(super) struct Holder {
    pub(super) c: blosc2_schunk,
    pub(super) sc: SuperChunk,
    pub(super) storage: blosc2_storage,
    pub(super) c_cparams: blosc2_cparams,
    pub(super) c_dparams: blosc2_dparams,
    pub(super) io: blosc2_io,
    pub(super) urlpath: Option<CString>,
    pub(super) metas: Vec<CMeta>,
    pub(super) vlmetas: Vec<CMeta>,
    pub(super) data_ptrs: Vec<*mut u8>,
    /// Ids of the contexts whose parameters the engine holds (0: none).
    pub(super) cctx_id: u64,
    pub(super) dctx_id: u64,
    /// The `chunksize` last written into the public struct: a different
    /// value there at the next call was written by the client.
    pub(super) synced_chunksize: i32,
    /// The frame buffers shared with the client, and who frees them.
    pub(super) buffers: CallerBuffers,
}

impl Holder {
    /// Box a new holder around `sc` and return the C pointer.
    pub(super) fn into_c(
        sc: SuperChunk,
        c_cparams: blosc2_cparams,
        c_dparams: blosc2_dparams,
        io: blosc2_io,
        urlpath: Option<String>,
    ) -> *mut blosc2_schunk {
        Box::into_raw(Self::boxed(sc, c_cparams, c_dparams, io, urlpath)) as *mut blosc2_schunk
    }

    /// A new holder around `sc`, its public fields made true.
    pub(super) fn boxed(
        sc: SuperChunk,
        c_cparams: blosc2_cparams,
        c_dparams: blosc2_dparams,
        io: blosc2_io,
        urlpath: Option<String>,
    ) -> Box<Holder> {
        // SAFETY: blosc2_schunk is plain old data (integers and raw pointers),
        // for which all-zero bytes are a valid value (NULL pointers, zeros).
        let c: blosc2_schunk = unsafe { std::mem::zeroed() };
        let contiguous = sc.is_contiguous();
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
            buffers: CallerBuffers::default(),
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
        h.sc.cparams.schunk = crate::ffi::plugins::schunk_ref(me as usize);
        h.sc.dparams.schunk = crate::ffi::plugins::schunk_ref(me as usize);
        let locking = locking_enabled(&h.io);
        h.sc.set_locking(locking);
        h.sync_all();
        h
    }

    /// Let go of everything the handle holds, as `blosc2_schunk_free`
    /// does: the super-chunk, the caller's frame buffer when the caller
    /// asked us to free it (a frame buffer the caller took stays its own),
    /// the contexts in the public struct (the client may have replaced
    /// them), and, like the reference, the I/O backend's resources.
    /// Returns 1 when the backend's destroy callback failed, else 0.
    pub(super) fn free(self) -> c_int {
        let released = self.buffers.release(self.sc);
        let caller_frame = released.free.unwrap_or(0) as *mut c_void;
        // SAFETY: NULL, or the malloc'ed frame the caller handed us and asked us to free.
        unsafe { libc::free(caller_frame) };
        // The client frees the frame it took itself (a Vec<u8> comes from malloc).
        std::mem::forget(released.kept);
        for ctx in [self.c.cctx, self.c.dctx] {
            // SAFETY: NULL or a context the struct owns.
            unsafe { crate::ffi::api::blosc2_free_ctx(ctx) };
        }
        c_int::from(crate::ffi::io::destroy_io(&self.io) < 0)
    }

    /// Refresh the public counters and chunk pointers.
    pub(super) fn sync(&mut self) {
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
    pub(super) fn pull(&mut self) {
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
                cp.schunk = crate::ffi::plugins::schunk_ref(me);
                self.sc.cparams = cp;
                self.cctx_id = ctx.id;
            }
            _ => {}
        }
        // SAFETY: as for `cctx`.
        match unsafe { self.c.dctx.as_ref() } {
            Some(ctx) if !ctx.compress && ctx.id != self.dctx_id => {
                let mut dp = ctx.dparams.clone();
                dp.schunk = crate::ffi::plugins::schunk_ref(me);
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

    /// The parameters of the decompression context in the struct now (the
    /// client may have replaced it), checked as the calls taking a context
    /// check it: none is `NullPointer`, a compression context `InvalidParam`.
    pub(super) fn dctx_params(&self) -> Result<&DParams> {
        // SAFETY: `dctx` is NULL or a live context, as the reference requires.
        match unsafe { self.c.dctx.as_ref() } {
            None => Err(Error::NullPointer),
            Some(ctx) if ctx.compress => Err(Error::InvalidParam),
            Some(ctx) => Ok(&ctx.dparams),
        }
    }

    /// When `changed` (the engine took in another handle's changes, or the
    /// call changed metalayers), bump the public change tick and make every
    /// public field true again. Returns `changed`.
    pub(super) fn take_in(&mut self, changed: bool) -> bool {
        if changed {
            self.c.change_tick += 1;
            self.sync_all();
        }
        changed
    }

    /// Refresh everything, metalayers included.
    pub(super) fn sync_all(&mut self) {
        self.metas = c_metas(self.sc.metalayers(), &mut self.c.metalayers);
        self.c.nmetalayers = self.metas.len() as u16;
        self.vlmetas = c_metas(self.sc.vlmetalayers(), &mut self.c.vlmetalayers);
        self.c.nvlmetalayers = self.vlmetas.len() as i16;
        self.sync();
    }
}

/// C copies of the metalayers `list`, their addresses written into `slots`
/// (NULL after the last).
fn c_metas(
    list: &[crate::format::frame::Metalayer],
    slots: &mut [*mut blosc2_metalayer],
) -> Vec<CMeta> {
    let mut metas: Vec<CMeta> = list
        .iter()
        .map(|m| CMeta::new(&m.name, &m.content))
        .collect();
    slots.fill(std::ptr::null_mut());
    for (slot, m) in slots.iter_mut().zip(metas.iter_mut()) {
        *slot = &mut *m.c;
    }
    metas
}

/// The holder behind a C pointer.
///
/// # Safety
/// `p` must be NULL or a pointer returned by one of our constructors and not freed.
pub(super) unsafe fn holder_raw<'a>(p: *mut blosc2_schunk) -> Result<&'a mut Holder> {
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
pub(super) struct Access<'a> {
    pub(super) h: &'a mut Holder,
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
pub(super) unsafe fn access<'a>(p: *mut blosc2_schunk, exclusive: bool) -> Result<Access<'a>> {
    // SAFETY: guaranteed by the caller.
    let h = unsafe { holder_raw(p) }?;
    let changed = h.sc.lock(exclusive)?;
    h.take_in(changed);
    Ok(Access { h })
}

/// The holder behind `p` for a call that reads.
///
/// # Safety
/// As [`holder_raw`].
pub(super) unsafe fn holder<'a>(p: *mut blosc2_schunk) -> Result<Access<'a>> {
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
    h.take_in(changed);
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

/// How a C function of this module reports an error: its return type.
pub(super) trait CReturn: Sized {
    fn from_error(e: Error) -> Self;
}

impl CReturn for c_int {
    fn from_error(e: Error) -> c_int {
        e.code()
    }
}

impl CReturn for i64 {
    fn from_error(e: Error) -> i64 {
        e.code() as i64
    }
}

impl<T> CReturn for *mut T {
    fn from_error(_: Error) -> *mut T {
        std::ptr::null_mut()
    }
}

/// What the body of a C call gives back: the C value itself, or an engine
/// result mapped to it.
pub(super) trait IntoCReturn<T> {
    fn into_c(self) -> T;
}

impl<T: CReturn> IntoCReturn<T> for T {
    fn into_c(self) -> T {
        self
    }
}

impl<T: CReturn> IntoCReturn<T> for Result<T> {
    fn into_c(self) -> T {
        self.unwrap_or_else(T::from_error)
    }
}

/// Run one C call that reads the super-chunk behind `schunk`: under
/// `guard`, with the frame's lock held shared (see [`Access`]), the error
/// of `f` (or of finding the holder, passed through `holder_error`) mapped
/// to the function's return convention.
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk pointer from this library.
pub(super) unsafe fn reading_with<T: CReturn, R: IntoCReturn<T>>(
    schunk: *mut blosc2_schunk,
    holder_error: impl FnOnce(Error) -> Error,
    f: impl FnOnce(&mut Access<'_>) -> R,
) -> T {
    guard(T::from_error(Error::Failure), || {
        // SAFETY: guaranteed by the caller.
        match unsafe { holder(schunk) } {
            Ok(mut h) => f(&mut h).into_c(),
            Err(e) => T::from_error(holder_error(e)),
        }
    })
}

/// [`reading_with`], passing the holder's error through.
///
/// # Safety
/// As [`reading_with`].
pub(super) unsafe fn reading<T: CReturn, R: IntoCReturn<T>>(
    schunk: *mut blosc2_schunk,
    f: impl FnOnce(&mut Access<'_>) -> R,
) -> T {
    // SAFETY: guaranteed by the caller.
    unsafe { reading_with(schunk, |e| e, f) }
}

/// Run one C call that changes the super-chunk behind `schunk`: as
/// [`reading`], with the lock held exclusively, and the public fields made
/// true again afterwards (whether `f` succeeded or not).
///
/// # Safety
/// As [`reading_with`].
pub(super) unsafe fn mutate<T: CReturn>(
    schunk: *mut blosc2_schunk,
    f: impl FnOnce(&mut Holder) -> Result<T>,
) -> T {
    guard(T::from_error(Error::Failure), || {
        // SAFETY: guaranteed by the caller.
        let mut h = match unsafe { access(schunk, true) } {
            Ok(h) => h,
            Err(e) => return T::from_error(e),
        };
        let r = f(&mut h);
        h.sync();
        r.unwrap_or_else(T::from_error)
    })
}

/// Run one C call on the holder behind `schunk` without taking the lock
/// (the explicit lock calls and the flags of the handle itself).
///
/// # Safety
/// As [`reading_with`].
pub(super) unsafe fn unlocked<T: CReturn, R: IntoCReturn<T>>(
    schunk: *mut blosc2_schunk,
    f: impl FnOnce(&mut Holder) -> R,
) -> T {
    guard(T::from_error(Error::Failure), || {
        // SAFETY: guaranteed by the caller.
        match unsafe { holder_raw(schunk) } {
            Ok(h) => f(h).into_c(),
            Err(e) => T::from_error(e),
        }
    })
}
