//! What a chunk's header tells, read without decompressing.

use super::*;

#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_sizes(
    cbuffer: *const c_void,
    nbytes: *mut i32,
    cbytes: *mut i32,
    blocksize: *mut i32,
) -> c_int {
    guard(Error::Failure.code(), || {
        let sizes = if cbuffer.is_null() {
            Err(Error::NullPointer)
        } else {
            // SAFETY: the API requires at least a 16-byte header at cbuffer.
            chunk::reported_sizes(unsafe { bytes(cbuffer, MIN_HEADER_LENGTH) })
        };
        let (n, c, b) = sizes.unwrap_or_default();
        store_opt(nbytes, n);
        store_opt(cbytes, c);
        store_opt(blocksize, b);
        sizes.map_or_else(Error::code, |_| 0)
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_sizes(
    cbuffer: *const c_void,
    nbytes: *mut usize,
    cbytes: *mut usize,
    blocksize: *mut usize,
) {
    let (mut n, mut c, mut b) = (0i32, 0i32, 0i32);
    // SAFETY: forwarded contract; the locals are valid.
    unsafe { blosc2_cbuffer_sizes(cbuffer, &mut n, &mut c, &mut b) };
    store_opt(nbytes, n as usize);
    store_opt(cbytes, c as usize);
    store_opt(blocksize, b as usize);
}

#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_validate(
    cbuffer: *const c_void,
    cbytes: usize,
    nbytes: *mut usize,
) -> c_int {
    guard(Error::Failure.code(), || {
        let checked = if cbuffer.is_null() && cbytes >= MIN_HEADER_LENGTH {
            Err(Error::NullPointer)
        } else {
            // SAFETY: cbytes bytes are readable at a non-NULL cbuffer; at most
            // the 16 of the header are looked at.
            let head = unsafe { bytes(cbuffer, cbytes.min(MIN_HEADER_LENGTH)) };
            chunk::validated_nbytes(head, cbytes)
        };
        store_opt(nbytes, checked.unwrap_or(0));
        checked.map_or_else(Error::code, |_| 0)
    })
}

/// The 16-byte header at `cbuffer`, if it is non-null and valid.
///
/// # Safety
/// A non-null `cbuffer` must have at least 16 readable bytes.
pub(super) unsafe fn min_header(cbuffer: *const c_void) -> Option<ChunkHeader> {
    if cbuffer.is_null() {
        return None;
    }
    // SAFETY: guaranteed by the caller.
    ChunkHeader::parse_min(unsafe { bytes(cbuffer, MIN_HEADER_LENGTH) }).ok()
}

/// What the calls that report two header fields share: `fields` of the
/// 16-byte header at `cbuffer` (zeros without a valid one), stored through
/// the optional out-pointers `a` and `b`.
///
/// # Safety
/// As [`min_header`]; `a` and `b` NULL or valid for one value each.
unsafe fn store_header_fields<A: Default, B: Default>(
    cbuffer: *const c_void,
    a: *mut A,
    b: *mut B,
    fields: impl FnOnce(ChunkHeader) -> (A, B),
) {
    guard((), || {
        // SAFETY: guaranteed by the caller.
        let (va, vb) = unsafe { min_header(cbuffer) }
            .map(fields)
            .unwrap_or_default();
        store_opt(a, va);
        store_opt(b, vb);
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_metainfo(
    cbuffer: *const c_void,
    typesize: *mut usize,
    flags: *mut c_int,
) {
    let fields = |h: ChunkHeader| (h.typesize as usize, h.flags as c_int);
    // SAFETY: the API requires a 16-byte header at cbuffer.
    unsafe { store_header_fields(cbuffer, typesize, flags, fields) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_versions(
    cbuffer: *const c_void,
    version: *mut c_int,
    versionlz: *mut c_int,
) {
    let fields = |h: ChunkHeader| (h.version as c_int, h.versionlz as c_int);
    // SAFETY: the API requires a 16-byte header at cbuffer.
    unsafe { store_header_fields(cbuffer, version, versionlz, fields) }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_complib(cbuffer: *const c_void) -> *const c_char {
    guard(std::ptr::null(), || {
        // SAFETY: the API requires a 16-byte header at cbuffer.
        match unsafe { min_header(cbuffer) }.and_then(|h| crate::codec::libname(h.compformat())) {
            Some(n) => static_cstr(&n),
            None => std::ptr::null(),
        }
    })
}
