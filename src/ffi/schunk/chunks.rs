//! Chunks and items of a super-chunk: add, replace, delete, read, slices.

use super::*;
use std::borrow::Cow;

/// The bytes of the chunk at `p`, bounded by its header's cbytes.
///
/// # Safety
/// `p` must point at a chunk whose header tells its true size.
pub(super) unsafe fn chunk_arg<'a>(p: *const u8) -> Result<&'a [u8]> {
    if p.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: every chunk starts with a 16-byte header.
    let head = unsafe { bytes(p, MIN_HEADER_LENGTH) };
    let h = ChunkHeader::parse_min(head)?;
    // SAFETY: the header's cbytes is the size of the chunk the caller passes.
    Ok(unsafe { bytes(p, h.cbytes as usize) })
}

/// Take a chunk argument: copy it, and free the caller's buffer when the
/// super-chunk takes ownership (`copy == false`) and the call succeeded.
///
/// # Safety
/// `chunk` must point at a chunk; with `copy == false` it must be malloc'ed.
pub(super) unsafe fn with_chunk(
    chunk: *mut u8,
    copy: bool,
    f: impl FnOnce(Vec<u8>) -> Result<i64>,
) -> Result<i64> {
    // SAFETY: guaranteed by the caller.
    let c = unsafe { chunk_arg(chunk) }?.to_vec();
    let r = f(c)?;
    if !copy {
        // SAFETY: ownership was handed over; we hold our own copy.
        unsafe { libc::free(chunk as *mut c_void) };
    }
    Ok(r)
}

/// Where a chunk argument goes in the super-chunk.
#[derive(Clone, Copy)]
enum ChunkPut {
    Append,
    Insert(i64),
    Update(i64),
}

/// What the three calls that store a chunk share: note the chunk index
/// for the filters (the end for an append), take the chunk argument and
/// store it through the engine.
///
/// # Safety
/// As [`mutate`] and [`with_chunk`].
unsafe fn put_chunk(schunk: *mut blosc2_schunk, put: ChunkPut, chunk: *mut u8, copy: bool) -> i64 {
    let call = |h: &mut Holder| {
        h.c.current_nchunk = match put {
            ChunkPut::Append => h.sc.nchunks(),
            ChunkPut::Insert(n) | ChunkPut::Update(n) => n,
        };
        let store = |c| match put {
            ChunkPut::Append => h.sc.append_chunk(c),
            ChunkPut::Insert(n) => h.sc.insert_chunk(n, c),
            ChunkPut::Update(n) => h.sc.update_chunk(n, c),
        };
        // SAFETY: guaranteed by the caller.
        unsafe { with_chunk(chunk, copy, store) }
    };
    // SAFETY: guaranteed by the caller.
    unsafe { mutate(schunk, call) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_chunk(
    schunk: *mut blosc2_schunk,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    // SAFETY: pointers as documented in blosc2.h.
    unsafe { put_chunk(schunk, ChunkPut::Append, chunk, copy) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_insert_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    // SAFETY: pointers as documented in blosc2.h.
    unsafe { put_chunk(schunk, ChunkPut::Insert(nchunk), chunk, copy) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_update_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    // SAFETY: pointers as documented in blosc2.h.
    unsafe { put_chunk(schunk, ChunkPut::Update(nchunk), chunk, copy) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_delete_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
) -> i64 {
    // SAFETY: pointers as documented in blosc2.h.
    unsafe {
        mutate(schunk, |h| {
            h.c.current_nchunk = nchunk;
            h.sc.delete_chunk(nchunk)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_buffer(
    schunk: *mut blosc2_schunk,
    src: *const c_void,
    nbytes: i32,
) -> i64 {
    // SAFETY: pointers as documented in blosc2.h.
    unsafe {
        mutate(schunk, |h| {
            if nbytes < 0 || (src.is_null() && nbytes > 0) {
                return Err(Error::InvalidParam);
            }
            h.c.current_nchunk = h.sc.nchunks();
            // SAFETY: src holds nbytes bytes.
            let s = bytes(src as *const u8, nbytes as usize);
            h.sc.append_buffer(s)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_decompress_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    dest: *mut c_void,
    nbytes: i32,
) -> c_int {
    let call = |h: &mut Access<'_>| {
        if dest.is_null() || nbytes < 0 {
            return Error::InvalidParam.code();
        }
        h.c.current_nchunk = nchunk;
        // SAFETY: dest holds nbytes writable bytes.
        let out = unsafe { items_mut(dest as *mut u8, nbytes as usize) };
        crate::ffi::code(h.sc.decompress_chunk(nchunk, out))
    };
    // SAFETY: a super-chunk pointer from this library.
    unsafe { reading(schunk, call) }
}

/// What `blosc2_schunk_get_chunk` and `blosc2_schunk_get_lazychunk`
/// share: separate chunks held in memory are lent, as the reference lends
/// them; others are handed out as malloc'ed copies (lazy chunks for frames
/// on disk when `lazy`).
///
/// # Safety
/// `schunk` as for [`reading`]; `chunk` and `needs_free` NULL or valid for
/// writing.
unsafe fn get_chunk_impl(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
    lazy: bool,
) -> c_int {
    if chunk.is_null() || needs_free.is_null() {
        return Error::NullPointer.code();
    }
    // SAFETY: out-pointers checked above.
    unsafe {
        *chunk = std::ptr::null_mut();
        *needs_free = false;
    }
    let call = |h: &mut Access<'_>| {
        h.c.current_nchunk = nchunk;
        let read = if lazy {
            h.sc.lazy_chunk(nchunk)
        } else {
            h.sc.chunk(nchunk)
        };
        match read {
            Ok(Cow::Borrowed(c)) if h.sc.memory_chunks().is_some() => {
                // SAFETY: out-pointers checked; the chunk lives in the super-chunk.
                unsafe { *chunk = c.as_ptr() as *mut u8 };
                c.len() as c_int
            }
            // SAFETY: out-pointers checked above.
            read => unsafe { hand_out_chunk(read, chunk, needs_free) },
        }
    };
    // SAFETY: guaranteed by the caller.
    unsafe { reading(schunk, call) }
}

/// Hands a malloc'ed copy of the chunk read to C through `chunk` (to be
/// freed, as `needs_free` says): its length, or the read's error code.
///
/// # Safety
/// `chunk` and `needs_free` must be valid for writing.
unsafe fn hand_out_chunk<C: AsRef<[u8]>>(
    read: crate::error::Result<C>,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    let c = match read {
        Ok(c) => c,
        Err(e) => return e.code(),
    };
    let c = c.as_ref();
    let p = malloc_copy(c);
    if p.is_null() {
        return Error::MemoryAlloc.code();
    }
    // SAFETY: guaranteed by the caller.
    unsafe {
        *chunk = p;
        *needs_free = true;
    }
    c.len() as c_int
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    // SAFETY: pointers as documented in blosc2.h.
    unsafe { get_chunk_impl(schunk, nchunk, chunk, needs_free, false) }
}

/// A lazy chunk for frames on disk (header, block starts and a trailer
/// locating the rest, as the reference builds it); the whole chunk otherwise.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_lazychunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    // SAFETY: pointers as documented in blosc2.h.
    unsafe { get_chunk_impl(schunk, nchunk, chunk, needs_free, true) }
}

/// The whole chunk behind `src` when it is a lazy chunk of the super-chunk
/// `schunk` (a context's `schunk` field); `None` for any other chunk.
///
/// # Safety
/// `schunk` must be 0 or the address of a live super-chunk of this library.
pub(crate) unsafe fn resolve_lazy_for(schunk: usize, src: &[u8]) -> Result<Option<Vec<u8>>> {
    if schunk == 0 || !SuperChunk::is_lazy_chunk(src)? {
        return Ok(None);
    }
    // SAFETY: guaranteed by the caller (the reference dereferences it too).
    let h = unsafe { holder_raw(schunk as *mut blosc2_schunk) }?;
    h.sc.resolve_lazy(src).map(Some)
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_vlblock(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    nblock: i32,
    dest: *mut *mut u8,
    destsize: *mut i32,
) -> c_int {
    if schunk.is_null() || dest.is_null() || destsize.is_null() {
        return Error::InvalidParam.code();
    }
    let call = |h: &mut Access<'_>| {
        h.c.current_nchunk = nchunk;
        let block =
            h.sc.vl_block_into(nchunk, nblock, || h.dctx_params(), CBytes::zeroed)?;
        let n = block.len();
        // SAFETY: out-pointers checked above.
        unsafe {
            *destsize = n as i32;
            *dest = block.into_raw();
        }
        Ok(n as c_int)
    };
    // SAFETY: a super-chunk pointer from this library.
    unsafe { reading(schunk, call) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_sparse_buffer(
    schunk: *mut blosc2_schunk,
    ncoords: i64,
    coords: *const i64,
    buffer: *mut c_void,
) -> c_int {
    let args = |n, len| {
        if coords.is_null() || buffer.is_null() {
            return Err(Error::InvalidParam);
        }
        // SAFETY: the caller passes ncoords coordinates and room for as many items.
        Ok(unsafe { (items(coords, n), items_mut(buffer as *mut u8, len)) })
    };
    let call = |h: &mut Access<'_>| h.sc.get_sparse_with(ncoords, args).map(|()| 0);
    // SAFETY: a super-chunk pointer from this library.
    unsafe { reading_with(schunk, |_| Error::InvalidParam, call) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_reorder_offsets(
    schunk: *mut blosc2_schunk,
    offsets_order: *mut i64,
) -> c_int {
    let call = |h: &mut Holder| {
        // SAFETY: offsets_order holds nchunks entries (blosc2.h).
        let order = unsafe { required_items(offsets_order, h.sc.nchunks() as usize) }?;
        h.sc.reorder_offsets(order)?;
        h.c.change_tick += 1;
        Ok(0)
    };
    // SAFETY: a super-chunk pointer from this library.
    unsafe { mutate(schunk, call) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_get_slice_nchunks(
    schunk: *mut blosc2_schunk,
    start: *mut i64,
    stop: *mut i64,
    chunks_idx: *mut *mut i64,
) -> i64 {
    let call = |h: &mut Access<'_>| {
        if start.is_null() || stop.is_null() || chunks_idx.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: start and stop hold `nd` entries each (ndim, or 1: API contract).
        let bounds = |nd| unsafe { (items(start, nd), items(stop, nd)) };
        let idx = h.sc.slice_chunk_indexes_with(bounds)?;
        // SAFETY: checked non-NULL above.
        unsafe { *chunks_idx = malloc_nonempty(&idx)? };
        Ok(idx.len() as i64)
    };
    // SAFETY: a super-chunk pointer from this library.
    unsafe { reading(schunk, call) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_slice_buffer(
    schunk: *mut blosc2_schunk,
    start: i64,
    stop: i64,
    buffer: *mut c_void,
) -> c_int {
    let call = |h: &mut Access<'_>| {
        // SAFETY: the buffer holds (stop - start) * typesize bytes.
        let dest = unsafe { sized_buffer_mut(buffer) }?;
        h.sc.get_slice_with(start, stop, dest).map(|()| 0)
    };
    // SAFETY: a super-chunk pointer from this library.
    unsafe { reading(schunk, call) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_set_slice_buffer(
    schunk: *mut blosc2_schunk,
    start: i64,
    stop: i64,
    buffer: *mut c_void,
) -> c_int {
    // SAFETY: the buffer holds (stop - start) * typesize bytes.
    let write = |h: &mut Holder| unsafe { h.sc.set_slice_with(start, stop, sized_buffer(buffer)?) };
    // SAFETY: a super-chunk pointer from this library.
    unsafe { mutate(schunk, |h| write(h).map(|()| 0)) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_fill_special(
    schunk: *mut blosc2_schunk,
    nitems: i64,
    special_value: c_int,
    chunksize: i32,
) -> i64 {
    let call = |h: &mut Holder| h.sc.fill_special_code(nitems, special_value, chunksize);
    // SAFETY: a super-chunk pointer from this library.
    unsafe { mutate(schunk, call) }
}

/// What the two calls that hand out a super-chunk's parameters share: a
/// NULL `out` is `BLOSC2_ERROR_NULL_POINTER` before the super-chunk is looked
/// at; otherwise `*out` gets a calloc'ed `T` that `make` builds from the
/// all-zero `T` and the super-chunk.
///
/// # Safety
/// `schunk` as for [`reading`]; `out` NULL or valid for one pointer;
/// all-zero bytes must be a valid `T`.
unsafe fn params_out<T>(
    schunk: *mut blosc2_schunk,
    out: *mut *mut T,
    make: impl FnOnce(T, &SuperChunk) -> T,
) -> c_int {
    if out.is_null() {
        return Error::NullPointer.code();
    }
    // SAFETY: guaranteed by the caller.
    let call = |h: &mut Access<'_>| unsafe { calloc_out(out, |zero| make(zero, &h.sc)) };
    // SAFETY: guaranteed by the caller.
    unsafe { reading(schunk, call) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_cparams(
    schunk: *mut blosc2_schunk,
    cparams: *mut *mut blosc2_cparams,
) -> c_int {
    let make = |zero, sc: &SuperChunk| blosc2_cparams {
        schunk: schunk as *mut c_void,
        blocksize: sc.blocksize,
        ..with_call_fields(zero, &sc.cparams.call_info(sc.cparams.compcode_meta))
    };
    // SAFETY: pointers as documented in blosc2.h.
    unsafe { params_out(schunk, cparams, make) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_dparams(
    schunk: *mut blosc2_schunk,
    dparams: *mut *mut blosc2_dparams,
) -> c_int {
    let make = |zero, sc: &SuperChunk| blosc2_dparams {
        schunk: schunk as *mut c_void,
        nthreads: sc.dparams.nthreads,
        ..zero
    };
    // SAFETY: pointers as documented in blosc2.h.
    unsafe { params_out(schunk, dparams, make) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_frame_get_offsets(schunk: *mut blosc2_schunk) -> *mut i64 {
    let call = |h: &mut Access<'_>| {
        h.sc.frame()
            .map_or(std::ptr::null_mut(), |f| malloc_i64s(f.offsets()))
    };
    // SAFETY: a super-chunk pointer from this library.
    unsafe { reading(schunk, call) }
}

#[cfg(test)]
mod limit_tests {
    use super::*;

    /// Sizes at the 2 GiB limit without allocating them: special chunks only.
    #[test]
    fn special_chunks_at_the_2gib_limit() {
        let max = i32::MAX - 32;
        // SAFETY: a NULL storage is an in-memory super-chunk (typesize 8).
        unsafe {
            let sc = blosc2_schunk_new(std::ptr::null_mut());
            assert!(!sc.is_null());
            let cs = max - max % 8;
            let nitems = 3 * (cs as i64 / 8) + 5;
            assert_eq!(blosc2_schunk_fill_special(sc, nitems, 1, cs), 4);
            assert_eq!((*sc).nbytes, nitems * 8);
            assert_eq!((*sc).chunksize, cs);
            let mut probe = [0xffu8; 64];
            let buf = probe.as_mut_ptr() as *mut c_void;
            assert_eq!(
                blosc2_schunk_get_slice_buffer(sc, nitems - 8, nitems, buf),
                0
            );
            assert!(probe.iter().all(|&b| b == 0));
            // Out of range, reversed and empty ranges as the reference answers.
            assert_eq!(
                blosc2_schunk_get_slice_buffer(sc, nitems - 7, nitems + 1, buf),
                -1
            );
            assert_eq!(blosc2_schunk_get_slice_buffer(sc, -1, 2, buf), -1);
            assert_eq!(
                blosc2_schunk_get_slice_buffer(sc, i64::MAX / 2, i64::MAX, buf),
                -1
            );
            assert_eq!(blosc2_schunk_get_slice_buffer(sc, 5, 3, buf), 0);
            assert_eq!(
                blosc2_schunk_get_slice_buffer(sc, nitems + 5, nitems + 5, buf),
                0
            );
            blosc2_schunk_free(sc);

            // A chunksize past BLOSC2_MAX_BUFFERSIZE is refused, nothing added.
            let sc = blosc2_schunk_new(std::ptr::null_mut());
            assert!(blosc2_schunk_fill_special(sc, nitems, 1, i32::MAX - 7) < 0);
            assert_eq!((*sc).nchunks, 0);
            assert_eq!((*sc).nbytes, 0);
            blosc2_schunk_free(sc);
        }
    }
}
