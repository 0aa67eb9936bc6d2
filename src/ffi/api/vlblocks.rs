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
    guard(Error::Failure.code(), || {
        // SAFETY: see ctx_ref.
        let Some(ctx) = (unsafe { ctx_ref(context) }) else {
            return Error::NullPointer.code();
        };
        if !ctx.compress || srcs.is_null() || srcsizes.is_null() || nblocks <= 0 || dest.is_null() {
            return Error::InvalidParam.code();
        }
        let n = nblocks as usize;
        // SAFETY: srcs and srcsizes hold nblocks entries (API contract).
        let (ptrs, sizes) = unsafe { (items(srcs, n), items(srcsizes, n)) };
        let mut blocks = Vec::with_capacity(n);
        let mut total: i64 = 0;
        for (&p, &s) in ptrs.iter().zip(sizes) {
            if p.is_null() || s <= 0 {
                return Error::InvalidParam.code();
            }
            total += s as i64;
            if total > crate::format::header::MAX_BUFFERSIZE as i64 {
                return Error::MaxBufsizeExceeded.code();
            }
            // SAFETY: each source holds its size in bytes.
            blocks.push(unsafe { bytes(p, s as usize) });
        }
        // SAFETY: dest holds destsize bytes.
        let d = unsafe { bytes_mut(dest, destsize.max(0) as usize) };
        code(chunk::vlblocks::compress(&ctx.cparams, &blocks, d))
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_vlchunk_get_nblocks(
    src: *const c_void,
    srcsize: i32,
    nblocks: *mut i32,
) -> c_int {
    guard(Error::Failure.code(), || {
        if src.is_null() || nblocks.is_null() {
            return Error::InvalidParam.code();
        }
        if srcsize < 32 {
            return Error::ReadBuffer.code();
        }
        // SAFETY: srcsize bytes are readable; only the header is looked at.
        let s = unsafe { bytes(src, 32) };
        match chunk::vlblocks::nblocks(s) {
            Ok(n) => {
                // SAFETY: nblocks is valid for one i32.
                unsafe { *nblocks = n as i32 };
                0
            }
            Err(e) => e.code(),
        }
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
    guard(Error::Failure.code(), || {
        // SAFETY: see ctx_ref.
        let Some(ctx) = (unsafe { ctx_ref(context) }) else {
            return Error::NullPointer.code();
        };
        if ctx.compress || dests.is_null() || destsizes.is_null() || maxblocks <= 0 {
            return Error::InvalidParam.code();
        }
        // SAFETY: see chunk_slice.
        let s = match unsafe { chunk_slice(src, srcsize) } {
            Ok(s) => s,
            Err(e) => return e.code(),
        };
        match chunk::vlblocks::nblocks(s) {
            Ok(n) if n > maxblocks as usize => return Error::InvalidParam.code(),
            Ok(_) => {}
            Err(e) => return e.code(),
        }
        let blocks = match chunk::vlblocks::decompress_blocks(&ctx.dparams, s) {
            Ok(b) => b,
            Err(e) => return e.code(),
        };
        for (i, b) in blocks.iter().enumerate() {
            // SAFETY: dests and destsizes hold maxblocks >= nblocks entries.
            unsafe {
                *dests.add(i) = malloc_copy(b) as *mut c_void;
                *destsizes.add(i) = b.len() as i32;
            }
        }
        blocks.len() as c_int
    })
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
    guard(Error::Failure.code(), || {
        // SAFETY: see ctx_ref.
        let Some(ctx) = (unsafe { ctx_ref(context) }) else {
            return Error::NullPointer.code();
        };
        if ctx.compress || dest.is_null() || destsize.is_null() {
            return Error::InvalidParam.code();
        }
        // SAFETY: see chunk_slice.
        let s = match unsafe { chunk_slice(src, srcsize) } {
            Ok(s) => s,
            Err(e) => return e.code(),
        };
        let vl = match chunk::vlblocks::VlChunk::parse(s) {
            Ok(v) => v,
            Err(e) => return e.code(),
        };
        if nblock < 0 || nblock as usize >= vl.nblocks() {
            return Error::InvalidParam.code();
        }
        let j = nblock as usize;
        // The block's size as the chunk claims it, asked for fallibly.
        let mut buf = match crate::alloc::zeroed(vl.block_sizes()[j]) {
            Ok(b) => b,
            Err(e) => return e.code(),
        };
        if let Err(e) = vl.decode_block(&ctx.dparams, j, &mut buf) {
            return e.code();
        }
        // SAFETY: dest and destsize are valid for one value each.
        unsafe {
            *dest = malloc_copy(&buf);
            *destsize = buf.len() as i32;
        }
        buf.len() as c_int
    })
}
