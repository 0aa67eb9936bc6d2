//! Chunks of variable-length blocks.

use super::*;

#[no_mangle]
pub unsafe extern "C" fn blosc2_vlcompress_ctx(
    context: *mut blosc2_context,
    srcs: *const *const c_void,
    srcsizes: *const i32,
    nblocks: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    let call = |ctx: &mut Context| {
        if srcs.is_null() || srcsizes.is_null() || nblocks <= 0 || dest.is_null() {
            return Err(Error::InvalidParam);
        }
        // SAFETY: srcs and srcsizes hold nblocks entries, each source its
        // size in bytes (API contract). A NULL source or a size of 0 or
        // less gives an empty block, which the engine refuses in its turn.
        let blocks = unsafe { buffer_list(srcs, srcsizes, nblocks as usize) };
        // SAFETY: dest holds destsize bytes.
        let d = unsafe { bytes_mut(dest, destsize.max(0) as usize) };
        chunk::vlblocks::compress(&ctx.cparams, &blocks, d)
    };
    // SAFETY: context is NULL or live (caller's contract).
    unsafe { with_context(context, Direction::Compress, call) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_vlchunk_get_nblocks(
    src: *const c_void,
    srcsize: i32,
    nblocks: *mut i32,
) -> c_int {
    guarded(|| {
        if src.is_null() || nblocks.is_null() {
            return Err(Error::InvalidParam);
        }
        if srcsize < 32 {
            return Err(Error::ReadBuffer);
        }
        // SAFETY: srcsize bytes are readable; only the header is looked at.
        let n = chunk::vlblocks::nblocks(unsafe { bytes(src, 32) })?;
        store(nblocks, n as i32).map(|()| 0)
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
    let call = |ctx: &mut Context| {
        if dests.is_null() || destsizes.is_null() || maxblocks <= 0 {
            return Err(Error::InvalidParam);
        }
        // SAFETY: the caller guarantees the chunk at src (see context_chunk).
        let s = unsafe { context_chunk(ctx, src, srcsize) }?;
        let blocks = chunk::vlblocks::decompress_blocks_into(
            &ctx.dparams,
            &s,
            maxblocks as usize,
            CBytes::zeroed,
        )?;
        let n = blocks.len();
        for (i, b) in blocks.into_iter().enumerate() {
            // SAFETY: dests and destsizes hold maxblocks >= nblocks entries.
            unsafe {
                *destsizes.add(i) = b.len() as i32;
                *dests.add(i) = b.into_raw() as *mut c_void;
            }
        }
        Ok(n)
    };
    // SAFETY: context is NULL or live (caller's contract).
    unsafe { with_context(context, Direction::Decompress, call) }
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
    let call = |ctx: &mut Context| {
        if dest.is_null() || destsize.is_null() {
            return Err(Error::InvalidParam);
        }
        // SAFETY: the caller guarantees the chunk at src (see context_chunk).
        let s = unsafe { context_chunk(ctx, src, srcsize) }?;
        // A negative index is past the last block too.
        let j = usize::try_from(nblock).unwrap_or(usize::MAX);
        let buf = chunk::vlblocks::decompress_block_into(&ctx.dparams, &s, j, CBytes::zeroed)?;
        let n = buf.len();
        // SAFETY: dest and destsize are valid for one value each.
        unsafe {
            *destsize = n as i32;
            *dest = buf.into_raw();
        }
        Ok(n)
    };
    // SAFETY: context is NULL or live (caller's contract).
    unsafe { with_context(context, Direction::Decompress, call) }
}
