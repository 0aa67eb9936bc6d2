//! Compression and decompression contexts and the calls that use them.

use super::*;

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

/// Which contexts a call takes: the compressing calls refuse a
/// decompression context and the decompressing calls a compression one.
#[derive(Clone, Copy)]
pub(super) enum Direction {
    Compress,
    Decompress,
    Either,
}

impl Direction {
    fn allows(self, ctx: &Context) -> bool {
        match self {
            Direction::Compress => ctx.compress,
            Direction::Decompress => !ctx.compress,
            Direction::Either => true,
        }
    }
}

/// The prologue every call on a context shares: a NULL context is
/// `BLOSC2_ERROR_NULL_POINTER` before anything else is looked at, a context
/// made for the other direction `BLOSC2_ERROR_INVALID_PARAM`; otherwise `f`
/// runs on it and its result is mapped to the C convention.
///
/// # Safety
/// `context` must be NULL or a live context from this library.
pub(super) unsafe fn with_context(
    context: *mut blosc2_context,
    direction: Direction,
    f: impl FnOnce(&mut Context) -> Result<usize, Error>,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: guaranteed by the caller.
        let Some(ctx) = (unsafe { context.as_mut() }) else {
            return Error::NullPointer.code();
        };
        if !direction.allows(ctx) {
            return Error::InvalidParam.code();
        }
        code(f(ctx))
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_compress_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    let call = |ctx: &mut Context| {
        // SAFETY: the caller guarantees srcsize bytes at src, destsize at dest.
        let (s, d) = unsafe { compress_buffers(src, srcsize, dest, destsize) }?;
        chunk::compress_into(&ctx.cparams.with_current_nchunk(), s, d)
    };
    // SAFETY: context is NULL or live (caller's contract).
    unsafe { with_context(context, Direction::Compress, call) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_decompress_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    let call = |ctx: &mut Context| {
        let maskout = ctx.maskout.take();
        // SAFETY: the caller guarantees the chunk at src (see context_chunk).
        let s = unsafe { context_chunk(ctx, src, srcsize) }?;
        // SAFETY: the caller guarantees destsize bytes at dest.
        let d = unsafe { decompress_dest(dest, destsize) }?;
        let dp = ctx.dparams.with_current_nchunk();
        chunk::decompress_with_mask(&dp, &s, d, maskout.as_deref())
    };
    // SAFETY: context is NULL or live (caller's contract).
    unsafe { with_context(context, Direction::Decompress, call) }
}

/// The chunk at `src` as a decompression context reads it: a lazy chunk of
/// the context's super-chunk on disk is read back whole through it.
///
/// # Safety
/// As `chunk_slice`; the context's schunk is NULL or the super-chunk owning it.
pub(super) unsafe fn context_chunk<'a>(
    ctx: &Context,
    src: *const c_void,
    srcsize: i32,
) -> Result<std::borrow::Cow<'a, [u8]>, Error> {
    // SAFETY: guaranteed by the caller.
    let s = unsafe { chunk_slice(src, srcsize) }?;
    // SAFETY: guaranteed by the caller.
    let resolved = unsafe {
        crate::ffi::schunk::resolve_lazy_for(
            crate::ffi::plugins::schunk_addr(&ctx.dparams.schunk),
            s,
        )
    }?;
    Ok(resolved.map_or(std::borrow::Cow::Borrowed(s), std::borrow::Cow::Owned))
}

/// What the two `_ctx` getitem calls share: find the context, the chunk (a lazy
/// chunk of a super-chunk on disk is read back whole through it) and the output
/// buffer, then run `f` on them.
///
/// # Safety
/// As for the getitem calls: `context` null or live, `src` a chunk of `srcsize`
/// bytes (see `chunk_slice`), `dest` valid for `destsize` bytes.
pub(super) unsafe fn getitem_ctx_with(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
    f: impl FnOnce(&Context, &[u8], &mut [u8]) -> Result<usize, Error>,
) -> c_int {
    let call = |ctx: &mut Context| {
        // SAFETY: guaranteed by the caller (see context_chunk).
        let s = unsafe { context_chunk(ctx, src, srcsize) }?;
        // SAFETY: guaranteed by the caller.
        let d = unsafe { getitem_dest(dest, destsize) }?;
        f(ctx, &s, d)
    };
    // SAFETY: guaranteed by the caller.
    unsafe { with_context(context, Direction::Either, call) }
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
            chunk::getitem(&ctx.dparams, s, start as i64, nitems as i64, d)
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
            chunk::getitem_whole_items(&ctx.dparams, s, start as i64, nbytes as i64, d)
        })
    }
}

/// Store what `params` makes of the context at `ctx` in `*out`: 0, or
/// `BLOSC2_ERROR_NULL_POINTER` when either pointer is NULL.
///
/// # Safety
/// `ctx` NULL or a live context; `out` NULL or valid for one `T`.
unsafe fn ctx_params_out<T>(
    ctx: *mut blosc2_context,
    out: *mut T,
    params: impl FnOnce(&mut Context) -> T,
) -> c_int {
    // SAFETY: guaranteed by the caller.
    unsafe {
        with_context(ctx, Direction::Either, |c| {
            store(out, params(c)).map(|()| 0)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_ctx_get_cparams(
    ctx: *mut blosc2_context,
    cparams: *mut blosc2_cparams,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { ctx_params_out(ctx, cparams, Context::cparams_as_c) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_ctx_get_dparams(
    ctx: *mut blosc2_context,
    dparams: *mut blosc2_dparams,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { ctx_params_out(ctx, dparams, Context::dparams_as_c) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_set_maskout(
    ctx: *mut blosc2_context,
    maskout: *mut bool,
    nblocks: c_int,
) -> c_int {
    let call = |c: &mut Context| {
        if maskout.is_null() || nblocks < 0 {
            return Err(Error::NullPointer);
        }
        // SAFETY: maskout points at nblocks booleans (caller's contract).
        let m = unsafe { items(maskout, nblocks as usize) };
        c.maskout = Some(m.to_vec());
        Ok(0)
    };
    // SAFETY: ctx is NULL or live (caller's contract).
    unsafe { with_context(ctx, Direction::Either, call) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_prologue_checks_null_then_direction() {
        // SAFETY: a NULL context and one made here, freed once.
        unsafe {
            let null = std::ptr::null_mut();
            let code_of = |c, d| with_context(c, d, |_| Ok(7));
            assert_eq!(code_of(null, Direction::Either), Error::NullPointer.code());
            let d = blosc2_create_dctx(dparams_defaults());
            assert_eq!(code_of(d, Direction::Compress), Error::InvalidParam.code());
            assert_eq!(code_of(d, Direction::Decompress), 7);
            assert_eq!(code_of(d, Direction::Either), 7);
            blosc2_free_ctx(d);
        }
    }
}
