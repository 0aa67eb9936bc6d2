//! The global (non-context) calls: library start and end, compress,
//! decompress and getitem with the process-wide settings.

use super::*;

#[no_mangle]
pub extern "C" fn blosc2_init() {
    guard((), || {
        global::settings().initialized = true;
    })
}

#[no_mangle]
pub extern "C" fn blosc2_destroy() {
    guard((), || {
        global::settings().initialized = false;
        crate::pool::clear();
    })
}

#[no_mangle]
pub extern "C" fn blosc2_free_resources() -> c_int {
    guard(-1, || {
        if !global::settings().initialized {
            return Error::Failure.code();
        }
        crate::pool::clear();
        0
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_compress(
    clevel: c_int,
    doshuffle: c_int,
    typesize: i32,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    guarded(|| {
        let env = EnvOverrides::from_env();
        let (clevel, doshuffle, typesize) =
            global::settings().apply_env(&env, clevel, doshuffle, typesize);
        // SAFETY: the caller guarantees srcsize bytes at src, destsize at dest.
        let (s, d) = unsafe { compress_buffers(src, srcsize, dest, destsize) }?;
        global::compress(clevel, doshuffle, typesize, s, d)
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc1_compress(
    clevel: c_int,
    doshuffle: c_int,
    typesize: usize,
    nbytes: usize,
    src: *const c_void,
    dest: *mut c_void,
    destsize: usize,
) -> c_int {
    let (typesize, nbytes, destsize) = match global::blosc1_sizes(typesize, nbytes, destsize) {
        Ok(sizes) => sizes,
        Err(e) => return e.code(),
    };
    // SAFETY: forwarded contract.
    unsafe { blosc2_compress(clevel, doshuffle, typesize, src, nbytes, dest, destsize) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_decompress(
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    guarded(|| {
        global::apply_decompress_env(&EnvOverrides::from_env())?;
        // SAFETY: the caller guarantees destsize writable bytes at dest.
        let d = unsafe { decompress_dest(dest, destsize) }?;
        // SAFETY: the caller guarantees the chunk at src (see chunk_slice).
        let s = unsafe { chunk_slice(src, srcsize) }?;
        global::decompress(s, d)
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc1_decompress(
    src: *const c_void,
    dest: *mut c_void,
    destsize: usize,
) -> c_int {
    // SAFETY: forwarded contract (blosc1 gives no source size: the header's cbytes bounds it).
    unsafe { blosc2_decompress(src, i32::MAX, dest, global::clamp_i32(destsize)) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_getitem(
    src: *const c_void,
    srcsize: i32,
    start: c_int,
    nitems: c_int,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller guarantees the chunk at src (see chunk_slice).
        let s = unsafe { chunk_slice(src, srcsize) }?;
        // SAFETY: the caller guarantees destsize bytes at dest.
        let d = unsafe { getitem_dest(dest, destsize) }?;
        chunk::getitem(&DParams::default(), s, start as i64, nitems as i64, d)
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc1_getitem(
    src: *const c_void,
    start: c_int,
    nitems: c_int,
    dest: *mut c_void,
) -> c_int {
    guard(Error::Failure.code(), || {
        // blosc1 gives no sizes: the header's cbytes bounds the chunk, and
        // dest holds nitems items of the header's typesize.
        // SAFETY: src points at a chunk header (blosc1's contract).
        let want = global::blosc1_getitem_destsize(unsafe { min_header(src) }.as_ref(), nitems);
        // SAFETY: as above.
        unsafe { blosc2_getitem(src, i32::MAX, start, nitems, dest, want) }
    })
}
