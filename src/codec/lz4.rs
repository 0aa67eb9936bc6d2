//! LZ4 and LZ4HC through the C library that `lz4-sys` builds.
//!
//! `lz4-sys` declares only part of the LZ4 API; the dictionary entry points that
//! Blosc2 chunks need are declared here against the same static library.

// Linking `lz4-sys` pulls in the static LZ4 library these declarations refer to.
use lz4_sys as _;
use std::os::raw::{c_char, c_int, c_void};

extern "C" {
    fn LZ4_compress_fast(
        src: *const c_char,
        dst: *mut c_char,
        n: c_int,
        cap: c_int,
        acc: c_int,
    ) -> c_int;
    fn LZ4_compress_HC(
        src: *const c_char,
        dst: *mut c_char,
        n: c_int,
        cap: c_int,
        lvl: c_int,
    ) -> c_int;
    fn LZ4_decompress_safe(src: *const c_char, dst: *mut c_char, n: c_int, cap: c_int) -> c_int;
    fn LZ4_decompress_safe_usingDict(
        src: *const c_char,
        dst: *mut c_char,
        n: c_int,
        cap: c_int,
        dict: *const c_char,
        dict_len: c_int,
    ) -> c_int;
    fn LZ4_createStream() -> *mut c_void;
    fn LZ4_freeStream(s: *mut c_void) -> c_int;
    fn LZ4_loadDict(s: *mut c_void, dict: *const c_char, dict_len: c_int) -> c_int;
    fn LZ4_compress_fast_continue(
        s: *mut c_void,
        src: *const c_char,
        dst: *mut c_char,
        n: c_int,
        cap: c_int,
        acc: c_int,
    ) -> c_int;
    fn LZ4_createStreamHC() -> *mut c_void;
    fn LZ4_freeStreamHC(s: *mut c_void) -> c_int;
    fn LZ4_resetStreamHC_fast(s: *mut c_void, lvl: c_int);
    fn LZ4_loadDictHC(s: *mut c_void, dict: *const c_char, dict_len: c_int) -> c_int;
    fn LZ4_compress_HC_continue(
        s: *mut c_void,
        src: *const c_char,
        dst: *mut c_char,
        n: c_int,
        cap: c_int,
    ) -> c_int;
    fn LZ4_versionString() -> *const c_char;
}

fn clamp_len(n: usize) -> c_int {
    n.min(i32::MAX as usize) as c_int
}

/// LZ4 fast compression; 0 when `dest` is too small.
pub fn compress(src: &[u8], dest: &mut [u8], accel: i32, dict: Option<&[u8]>) -> usize {
    if src.len() > i32::MAX as usize {
        return 0;
    }
    let r = match dict {
        None => {
            // SAFETY: both pointers come from live slices and the lengths passed are
            // at most the slices' lengths; LZ4 never writes past `cap`.
            unsafe {
                LZ4_compress_fast(
                    src.as_ptr().cast(),
                    dest.as_mut_ptr().cast(),
                    src.len() as c_int,
                    clamp_len(dest.len()),
                    accel,
                )
            }
        }
        Some(d) => {
            // SAFETY: the stream is created, used and freed here; the dictionary,
            // source and destination slices outlive the calls that read them.
            unsafe {
                let s = LZ4_createStream();
                if s.is_null() {
                    return 0;
                }
                LZ4_loadDict(s, d.as_ptr().cast(), clamp_len(d.len()));
                let r = LZ4_compress_fast_continue(
                    s,
                    src.as_ptr().cast(),
                    dest.as_mut_ptr().cast(),
                    src.len() as c_int,
                    clamp_len(dest.len()),
                    accel,
                );
                LZ4_freeStream(s);
                r
            }
        }
    };
    r.max(0) as usize
}

/// LZ4HC compression; 0 when `dest` is too small.
pub fn compress_hc(src: &[u8], dest: &mut [u8], clevel: i32, dict: Option<&[u8]>) -> usize {
    if src.len() > i32::MAX as usize {
        return 0;
    }
    let r = match dict {
        None => {
            // SAFETY: pointers and lengths come from live slices; LZ4HC respects `cap`.
            unsafe {
                LZ4_compress_HC(
                    src.as_ptr().cast(),
                    dest.as_mut_ptr().cast(),
                    src.len() as c_int,
                    clamp_len(dest.len()),
                    clevel,
                )
            }
        }
        Some(d) => {
            // SAFETY: the HC stream lives only inside this block; all slices outlive it.
            unsafe {
                let s = LZ4_createStreamHC();
                if s.is_null() {
                    return 0;
                }
                LZ4_resetStreamHC_fast(s, clevel);
                LZ4_loadDictHC(s, d.as_ptr().cast(), clamp_len(d.len()));
                let r = LZ4_compress_HC_continue(
                    s,
                    src.as_ptr().cast(),
                    dest.as_mut_ptr().cast(),
                    src.len() as c_int,
                    clamp_len(dest.len()),
                );
                LZ4_freeStreamHC(s);
                r
            }
        }
    };
    r.max(0) as usize
}

/// LZ4 decompression; `None` on a malformed stream.
pub fn decompress(src: &[u8], dest: &mut [u8], dict: Option<&[u8]>) -> Option<usize> {
    if src.len() > i32::MAX as usize {
        return None;
    }
    let r = match dict {
        // SAFETY: LZ4_decompress_safe* never read past `n` nor write past `cap`.
        None => unsafe {
            LZ4_decompress_safe(
                src.as_ptr().cast(),
                dest.as_mut_ptr().cast(),
                src.len() as c_int,
                clamp_len(dest.len()),
            )
        },
        // SAFETY: as above; the dictionary slice is only read.
        Some(d) => unsafe {
            LZ4_decompress_safe_usingDict(
                src.as_ptr().cast(),
                dest.as_mut_ptr().cast(),
                src.len() as c_int,
                clamp_len(dest.len()),
                d.as_ptr().cast(),
                clamp_len(d.len()),
            )
        },
    };
    if r < 0 {
        None
    } else {
        Some(r as usize)
    }
}

/// Version of the bundled LZ4 library.
pub fn version() -> String {
    // SAFETY: LZ4 returns a pointer to a static NUL-terminated string.
    unsafe { std::ffi::CStr::from_ptr(LZ4_versionString()) }
        .to_string_lossy()
        .into_owned()
}
