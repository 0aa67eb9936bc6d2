//! Memory on hostile input: small inputs whose headers or metalayers claim
//! huge sizes must fail (or succeed) without the library asking for more
//! memory than the limit of docs/limits.md: max(64 MiB, 4 x what the input,
//! the file or the caller's buffers actually back).
//!
//! A counting global allocator records the largest single request and the
//! peak of live bytes while each input runs, through the safe Rust API and
//! through the C entry points (called as `extern "C"` functions).  The
//! tests share one lock so that their measurements do not mix.

use blosc2::b2nd::meta::serialize;
use blosc2::b2nd::NdArray;
use blosc2::chunk::{self, CParams, DParams};
use blosc2::schunk::{Storage, SuperChunk};
use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::{c_char, c_int, c_void, CString};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The allowance every entry point has whatever its input (docs/limits.md).
const FLOOR: usize = 64 << 20;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static LARGEST: AtomicUsize = AtomicUsize::new(0);

fn record(size: usize) {
    LARGEST.fetch_max(size, Ordering::Relaxed);
    let now = LIVE.fetch_add(size, Ordering::Relaxed) + size;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call forwards to the system allocator with the same layout;
// the counters are only statistics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded contract.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            record(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded contract.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            record(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded contract.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        // SAFETY: forwarded contract.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            record(new_size);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

static SERIAL: Mutex<()> = Mutex::new(());

/// Run `f` and return the largest single request and the peak of live
/// bytes above what was live before it.
fn measure(f: impl FnOnce()) -> (usize, usize) {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    LARGEST.store(0, Ordering::Relaxed);
    f();
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    (LARGEST.load(Ordering::Relaxed), peak)
}

/// Run `f` and check that it stayed within `FLOOR` + 4 x `backed` bytes.
fn assert_bounded(what: &str, backed: usize, f: impl FnOnce()) {
    let (largest, peak) = measure(f);
    let limit = FLOOR.max(4 * backed);
    assert!(
        largest <= limit && peak <= limit,
        "{what}: largest request {largest}, peak {peak} bytes, limit {limit}"
    );
}

extern "C" {
    fn blosc2_init();
    fn blosc2_schunk_from_buffer(cframe: *mut u8, len: i64, copy: bool) -> *mut c_void;
    fn blosc2_schunk_open(urlpath: *const c_char) -> *mut c_void;
    fn blosc2_schunk_free(schunk: *mut c_void) -> c_int;
    fn blosc2_schunk_decompress_chunk(
        schunk: *mut c_void,
        nchunk: i64,
        dest: *mut c_void,
        nbytes: i32,
    ) -> c_int;
    fn b2nd_from_cframe(cframe: *mut u8, len: i64, copy: bool, array: *mut *mut c_void) -> c_int;
    fn b2nd_to_cbuffer(array: *const c_void, buffer: *mut c_void, buffersize: i64) -> c_int;
    fn b2nd_free(array: *mut c_void) -> c_int;
    fn blosc2_decompress(
        src: *const c_void,
        srcsize: i32,
        dest: *mut c_void,
        destsize: i32,
    ) -> c_int;
    fn blosc2_getitem(
        src: *const c_void,
        srcsize: i32,
        start: c_int,
        nitems: c_int,
        dest: *mut c_void,
        destsize: i32,
    ) -> c_int;
}

/// A 4-chunk frame of typesize 8964 whose "b2nd" metalayer claims shape
/// [1000], chunkshape [196396], blockshape [64]: a padded chunk of 1.76 GB
/// while the stored chunks hold a few KB (the chunks differ in size, so the
/// frame's chunksize is 0).
fn lying_b2nd_frame() -> Vec<u8> {
    let ts = 8964;
    let cp = CParams {
        typesize: ts,
        ..CParams::default()
    };
    let mut sc = SuperChunk::new(cp.clone(), DParams::default(), Storage::Memory).unwrap();
    for i in 0..4usize {
        let data: Vec<u8> = (0..ts as usize * (i + 1))
            .map(|k| (k % 7 + i) as u8)
            .collect();
        sc.append_chunk(chunk::compress(&cp, &data).unwrap())
            .unwrap();
    }
    let meta = serialize(&[1000], &[196396], &[64], "|V8964", 0).unwrap();
    sc.meta_add("b2nd", &meta).unwrap();
    sc.to_frame_bytes().unwrap()
}

#[test]
fn lying_b2nd_metalayer_is_refused_without_a_chunk_buffer() {
    let frame = lying_b2nd_frame();
    assert!(frame.len() < 64 << 10);
    let caller = 1000 * 8964;
    assert_bounded("NdArray::to_buffer", caller, || {
        if let Ok(a) = NdArray::from_frame_bytes(frame.clone()) {
            assert!(a.to_buffer().is_err());
        }
    });
    let mut out = vec![0u8; caller];
    assert_bounded("b2nd_to_cbuffer", caller, || {
        // SAFETY: frame and out outlive the calls; the array is freed.
        unsafe {
            blosc2_init();
            let mut f = frame.clone();
            let mut arr: *mut c_void = std::ptr::null_mut();
            let rc = b2nd_from_cframe(f.as_mut_ptr(), f.len() as i64, true, &mut arr);
            if rc >= 0 {
                let rc = b2nd_to_cbuffer(arr, out.as_mut_ptr().cast(), out.len() as i64);
                assert!(rc < 0, "b2nd_to_cbuffer gave {rc}");
                b2nd_free(arr);
            }
        }
    });
}

#[test]
fn huge_special_chunks_are_read_block_by_block() {
    // One run-length chunk of 1.76 GB (every item the same value) holds a
    // 1000-item array: reading it needs the caller's buffer and one block.
    let ts = 8964usize;
    let cp = CParams {
        typesize: ts as i32,
        ..CParams::default()
    };
    let value: Vec<u8> = (0..ts).map(|k| (k % 251) as u8).collect();
    let a = NdArray::new(
        cp,
        DParams::default(),
        Storage::Memory,
        &[1000],
        &[196396],
        &[64],
        "|V8964",
        blosc2::b2nd::Fill::Value(&value),
    )
    .unwrap();
    let frame = a.sc.to_frame_bytes().unwrap();
    let caller = 1000 * ts;
    assert_bounded("to_buffer of a huge repeated-value chunk", caller, || {
        let a = NdArray::from_frame_bytes(frame.clone()).unwrap();
        let out = a.to_buffer().unwrap();
        assert!(out.chunks(ts).all(|item| item == value));
        let mut part = vec![0u8; 3 * ts];
        a.get_slice(&[500], &[503], &mut part, &[3]).unwrap();
        assert!(part.chunks(ts).all(|item| item == value));
    });
}
