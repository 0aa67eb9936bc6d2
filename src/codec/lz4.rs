//! LZ4 and LZ4HC through the C library that `lz4-sys` builds.
//!
//! `lz4-sys` declares only part of the LZ4 API; the dictionary entry points that
//! Blosc2 chunks need are declared here against the same static library.

// Linking `lz4-sys` pulls in the static LZ4 library these declarations refer to.
use lz4_sys as _;
use std::cell::RefCell;
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
    fn LZ4_sizeofStateHC() -> c_int;
    fn LZ4_initStreamHC(buf: *mut c_void, size: usize) -> *mut c_void;
    fn LZ4_compress_HC_extStateHC_fastReset(
        state: *mut c_void,
        src: *const c_char,
        dst: *mut c_char,
        n: c_int,
        cap: c_int,
        lvl: c_int,
    ) -> c_int;
}

// The AVX2 build of the same LZ4 source (`csrc/lz4_v3.c`, built by build.rs
// on x86_64): same signatures and output as the generic functions.
#[cfg(lz4_v3)]
extern "C" {
    fn b2rs_lz4v3_decompress_safe(
        src: *const c_char,
        dst: *mut c_char,
        n: c_int,
        cap: c_int,
    ) -> c_int;
    fn b2rs_lz4v3_decompress_safe_usingDict(
        src: *const c_char,
        dst: *mut c_char,
        n: c_int,
        cap: c_int,
        dict: *const c_char,
        dict_len: c_int,
    ) -> c_int;
}

/// Whether the AVX2 build of LZ4 may run here: it needs AVX2, BMI1, BMI2
/// and LZCNT among the features [`crate::cpu`] allows (`BLOSC2_RS_SIMD=sse2`
/// turns it off, for comparisons).  It decodes faster than the generic
/// build (see docs/performance.md).  Decompression only: see [`compress`].
#[cfg(lz4_v3)]
fn v3() -> bool {
    let f = crate::cpu::features();
    f.avx2 && f.bmi1 && f.bmi2 && f.lzcnt
}

/// Calls `$v3(args)` when [`v3`] holds, `$generic(args)` otherwise.
macro_rules! lz4_call {
    ($v3:ident, $generic:ident, $($arg:expr),*) => {{
        #[cfg(lz4_v3)]
        let r = if v3() { $v3($($arg),*) } else { $generic($($arg),*) };
        #[cfg(not(lz4_v3))]
        let r = $generic($($arg),*);
        r
    }};
}

thread_local! {
    /// This thread's LZ4HC state (as 8-byte words, for its alignment),
    /// initialised once and then only fast-reset between blocks.
    /// `LZ4_compress_HC` allocates and clears about 256 KiB on every call,
    /// which costs more than compressing a small compressible block; the
    /// output is the same (see the `hc_state_reuse_gives_the_same_output`
    /// test).
    static HC_STATE: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// `LZ4_compress_HC` without a dictionary, on this thread's reused state.
fn compress_hc_plain(src: &[u8], dest: &mut [u8], clevel: i32) -> c_int {
    let stateless = |dest: &mut [u8]| {
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
    };
    HC_STATE.with(|cell| {
        let Ok(mut state) = cell.try_borrow_mut() else {
            return stateless(dest);
        };
        if state.is_empty() {
            // SAFETY: a plain query of a constant.
            let bytes = unsafe { LZ4_sizeofStateHC() }.max(0) as usize;
            state.resize(bytes.div_ceil(8), 0);
            // SAFETY: the buffer holds at least `bytes` bytes, 8-aligned;
            // LZ4 checks size and alignment and returns NULL if unsuitable.
            let ok = unsafe { LZ4_initStreamHC(state.as_mut_ptr().cast(), bytes) };
            if ok.is_null() {
                state.clear();
                return stateless(dest);
            }
        }
        // SAFETY: the state was initialised by LZ4_initStreamHC above and is
        // used by this thread only; source and destination are live slices
        // whose lengths are passed, and LZ4HC never writes past `cap`.
        unsafe {
            LZ4_compress_HC_extStateHC_fastReset(
                state.as_mut_ptr().cast(),
                src.as_ptr().cast(),
                dest.as_mut_ptr().cast(),
                src.len() as c_int,
                clamp_len(dest.len()),
                clevel,
            )
        }
    })
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
            // (Not the AVX2 build: it compresses more slowly than the
            // generic one; see docs/performance.md.)
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
        None => compress_hc_plain(src, dest, clevel),
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
            lz4_call!(
                b2rs_lz4v3_decompress_safe,
                LZ4_decompress_safe,
                src.as_ptr().cast(),
                dest.as_mut_ptr().cast(),
                src.len() as c_int,
                clamp_len(dest.len())
            )
        },
        // SAFETY: as above; the dictionary slice is only read.
        Some(d) => unsafe {
            lz4_call!(
                b2rs_lz4v3_decompress_safe_usingDict,
                LZ4_decompress_safe_usingDict,
                src.as_ptr().cast(),
                dest.as_mut_ptr().cast(),
                src.len() as c_int,
                clamp_len(dest.len()),
                d.as_ptr().cast(),
                clamp_len(d.len())
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// What `LZ4_compress_HC` (a fresh, fully cleared state) writes.
    fn fresh(src: &[u8], cap: usize, clevel: i32) -> Vec<u8> {
        let mut out = vec![0u8; cap];
        // SAFETY: pointers and lengths come from live slices.
        let n = unsafe {
            LZ4_compress_HC(
                src.as_ptr().cast(),
                out.as_mut_ptr().cast(),
                src.len() as c_int,
                clamp_len(cap),
                clevel,
            )
        };
        out.truncate(n.max(0) as usize);
        out
    }

    /// build.rs finds lz4-sys's `lz4.c` for the AVX2 decoder; when it does
    /// not, the library still works but decodes LZ4 more slowly, which a
    /// fresh build once did without anyone noticing (its warning scrolls
    /// by).  On x86_64 Linux, where the source comes from the registry,
    /// that is a failure.
    #[test]
    #[cfg(all(target_arch = "x86_64", target_os = "linux", not(lz4_v3)))]
    fn the_avx2_decoder_is_built() {
        panic!("build.rs did not find lz4.c: no AVX2 LZ4 decoder in this build");
    }

    #[test]
    fn hc_state_reuse_gives_the_same_output() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        // Inputs of varied sizes and kinds, compressed in turn on the same
        // (reused) state, some into buffers too small (failed calls).
        for case in 0..120 {
            let n = [0, 1, 15, 300, 4096, 40_000, 70_000, 300_000][case % 8];
            let src: Vec<u8> = match case % 3 {
                0 => (0..n).map(|_| rng.gen_range(0..4u8)).collect(),
                1 => (0..n)
                    .map(|i| ((i * 7) % 251) as u8 ^ (i / 1000) as u8)
                    .collect(),
                _ => {
                    let mut v = vec![0u8; n];
                    for _ in 0..n / 64 {
                        let at = rng.gen_range(0..n);
                        v[at] = rng.gen();
                    }
                    v
                }
            };
            let clevel = (case % 12) as i32 + 1;
            for cap in [n + n / 255 + 16, n / 3 + 1] {
                let want = fresh(&src, cap, clevel);
                let mut got = vec![0u8; cap];
                let k = compress_hc(&src, &mut got, clevel, None);
                assert_eq!(k, want.len(), "case {case} clevel {clevel} cap {cap}");
                assert_eq!(got[..k], want[..], "case {case} clevel {clevel} cap {cap}");
            }
        }
    }

    #[cfg(lz4_v3)]
    extern "C" {
        fn b2rs_lz4v3_compress_fast(
            src: *const c_char,
            dst: *mut c_char,
            n: c_int,
            cap: c_int,
            accel: c_int,
        ) -> c_int;
    }

    /// The AVX2 build writes the generic build's bytes and each decodes the
    /// other's streams (with and without a dictionary), also refusing the
    /// same damaged ones.
    #[cfg(lz4_v3)]
    #[test]
    fn avx2_build_matches_the_generic_one() {
        if !v3() {
            eprintln!("no AVX2/BMI2/LZCNT here: nothing to compare");
            return;
        }
        let mut rng = rand::rngs::StdRng::seed_from_u64(44);
        for case in 0..200 {
            let len = rng.gen_range(1..100_000);
            let alphabet = rng.gen_range(1..=255u8);
            let src: Vec<u8> = (0..len)
                .map(|i| {
                    if i % 7 < 3 {
                        (i / 64) as u8
                    } else {
                        rng.gen_range(0..=alphabet)
                    }
                })
                .collect();
            let cap = len + len / 255 + 64;
            let accel = rng.gen_range(1..10);
            let (mut a, mut b) = (vec![0u8; cap], vec![0u8; cap]);
            // SAFETY: pointers and lengths come from live slices.
            let (na, nb) = unsafe {
                (
                    LZ4_compress_fast(
                        src.as_ptr().cast(),
                        a.as_mut_ptr().cast(),
                        len as c_int,
                        cap as c_int,
                        accel,
                    ),
                    b2rs_lz4v3_compress_fast(
                        src.as_ptr().cast(),
                        b.as_mut_ptr().cast(),
                        len as c_int,
                        cap as c_int,
                        accel,
                    ),
                )
            };
            assert!(na > 0);
            assert_eq!(a[..na as usize], b[..nb as usize], "case {case}");
            let mut stream = a[..na as usize].to_vec();
            if case % 3 == 0 {
                let at = rng.gen_range(0..stream.len());
                stream[at] ^= 1 << rng.gen_range(0..8);
            }
            let dict = &src[..len.min(4096)];
            let (mut x, mut y) = (vec![0u8; len], vec![0u8; len]);
            // SAFETY: as above; LZ4 never writes past `cap`.
            unsafe {
                let rx = LZ4_decompress_safe(
                    stream.as_ptr().cast(),
                    x.as_mut_ptr().cast(),
                    stream.len() as c_int,
                    len as c_int,
                );
                let ry = b2rs_lz4v3_decompress_safe(
                    stream.as_ptr().cast(),
                    y.as_mut_ptr().cast(),
                    stream.len() as c_int,
                    len as c_int,
                );
                assert_eq!(rx, ry, "case {case}");
                assert_eq!(x, y, "case {case}");
                let rx = LZ4_decompress_safe_usingDict(
                    stream.as_ptr().cast(),
                    x.as_mut_ptr().cast(),
                    stream.len() as c_int,
                    len as c_int,
                    dict.as_ptr().cast(),
                    dict.len() as c_int,
                );
                let ry = b2rs_lz4v3_decompress_safe_usingDict(
                    stream.as_ptr().cast(),
                    y.as_mut_ptr().cast(),
                    stream.len() as c_int,
                    len as c_int,
                    dict.as_ptr().cast(),
                    dict.len() as c_int,
                );
                assert_eq!(rx, ry, "case {case} (dict)");
                assert_eq!(x, y, "case {case} (dict)");
            }
            if case % 3 != 0 {
                assert_eq!(x, src, "case {case}");
            }
        }
    }
}
