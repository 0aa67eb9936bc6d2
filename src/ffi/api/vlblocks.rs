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
        let n = nblocks as usize;
        // SAFETY: srcs and srcsizes hold nblocks entries (API contract).
        let (ptrs, sizes) = unsafe { (items(srcs, n), items(srcsizes, n)) };
        let mut blocks = Vec::with_capacity(n);
        let mut total: i64 = 0;
        for (&p, &s) in ptrs.iter().zip(sizes) {
            if p.is_null() || s <= 0 {
                return Err(Error::InvalidParam);
            }
            total += s as i64;
            if total > crate::format::header::MAX_BUFFERSIZE as i64 {
                return Err(Error::MaxBufsizeExceeded);
            }
            // SAFETY: each source holds its size in bytes.
            blocks.push(unsafe { bytes(p, s as usize) });
        }
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
        // SAFETY: the caller guarantees the chunk at src (see chunk_slice).
        let s = unsafe { chunk_slice(src, srcsize) }?;
        if chunk::vlblocks::nblocks(s)? > maxblocks as usize {
            return Err(Error::InvalidParam);
        }
        let blocks = chunk::vlblocks::decompress_blocks(&ctx.dparams, s)?;
        for (i, b) in blocks.iter().enumerate() {
            // SAFETY: dests and destsizes hold maxblocks >= nblocks entries.
            unsafe {
                *dests.add(i) = malloc_copy(b) as *mut c_void;
                *destsizes.add(i) = b.len() as i32;
            }
        }
        Ok(blocks.len())
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
        // SAFETY: the caller guarantees the chunk at src (see chunk_slice).
        let s = unsafe { chunk_slice(src, srcsize) }?;
        let vl = chunk::vlblocks::VlChunk::parse(s)?;
        if nblock < 0 || nblock as usize >= vl.nblocks() {
            return Err(Error::InvalidParam);
        }
        let j = nblock as usize;
        // The block's size as the chunk claims it, asked for fallibly.
        let mut buf = crate::alloc::zeroed(vl.block_sizes()[j])?;
        vl.decode_block(&ctx.dparams, j, &mut buf)?;
        // SAFETY: dest and destsize are valid for one value each.
        unsafe {
            *dest = malloc_copy(&buf);
            *destsize = buf.len() as i32;
        }
        Ok(buf.len())
    };
    // SAFETY: context is NULL or live (caller's contract).
    unsafe { with_context(context, Direction::Decompress, call) }
}
