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
    fn blosc2_schunk_get_chunk(
        schunk: *mut c_void,
        nchunk: i64,
        chunk: *mut *mut u8,
        needs_free: *mut bool,
    ) -> c_int;
    fn blosc2_schunk_get_lazychunk(
        schunk: *mut c_void,
        nchunk: i64,
        chunk: *mut *mut u8,
        needs_free: *mut bool,
    ) -> c_int;
    fn free(p: *mut c_void);
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

fn be_i32(b: &[u8], at: usize) -> i32 {
    i32::from_be_bytes(b[at..at + 4].try_into().unwrap())
}

fn be_i64(b: &[u8], at: usize) -> i64 {
    i64::from_be_bytes(b[at..at + 8].try_into().unwrap())
}

/// A frame of a few chunks of 1000 bytes (typesize 4).
fn small_frame(storage: Storage) -> SuperChunk {
    let cp = CParams {
        typesize: 4,
        ..CParams::default()
    };
    let mut sc = SuperChunk::new(cp, DParams::default(), storage).unwrap();
    sc.meta_add("small", b"abc").unwrap();
    for i in 0..3u8 {
        let data: Vec<u8> = (0..1000).map(|k| (k as u8).wrapping_mul(i + 1)).collect();
        sc.append_buffer(&data).unwrap();
    }
    sc
}

/// `frame` with its offsets index replaced by `index` (a chunk), the frame
/// length patched to match.  `sparse`: the frame is a sparse frame's index
/// file (no chunks section).
fn with_offsets_index(frame: &[u8], index: &[u8], sparse: bool) -> Vec<u8> {
    let header_len = be_i32(frame, 11) as usize;
    let cbytes = be_i64(frame, 39) as usize;
    let data_end = header_len + if sparse { 0 } else { cbytes };
    // The trailer's length sits 22 bytes before the end (after a 0xce).
    let tl = frame.len() - 22;
    let trailer_len = u32::from_be_bytes(frame[tl..tl + 4].try_into().unwrap()) as usize;
    let mut out = frame[..data_end].to_vec();
    out.extend_from_slice(index);
    out.extend_from_slice(&frame[frame.len() - trailer_len..]);
    let n = out.len() as i64;
    out[16..24].copy_from_slice(&n.to_be_bytes());
    out
}

/// A 32-byte chunk of `nbytes` zeros (a run-length chunk: no data).
fn zeros_chunk(nbytes: i32) -> Vec<u8> {
    let cp = CParams {
        typesize: 8,
        ..CParams::default()
    };
    let mut c = vec![0u8; 32];
    let n =
        chunk::special::chunk_special(&cp, nbytes, blosc2::format::header::Special::Zero, &mut c)
            .unwrap();
    c.truncate(n);
    c
}

/// Hostile frames made from a valid 2 KiB one: an offsets index claiming
/// 2^28 chunks (2 GiB of offsets, all 0) in 32 bytes, a header claiming
/// 2^40 bytes in fixed-size chunks (2^31 of them), and a metalayer claiming
/// 2 GiB of content.
fn hostile_frames() -> Vec<(&'static str, Vec<u8>)> {
    let good = small_frame(Storage::FrameInMemory)
        .to_frame_bytes()
        .unwrap();
    assert!(good.len() < 2048);
    let mut out = Vec::new();
    let mut many = with_offsets_index(&good, &zeros_chunk(i32::MAX - 32 - 7), false);
    many[58..62].copy_from_slice(&0i32.to_be_bytes());
    many[30..38].copy_from_slice(&(1i64 << 40).to_be_bytes());
    out.push(("offsets index of 2^28 chunks", many));
    let mut fixed = good.clone();
    fixed[30..38].copy_from_slice(&(1i64 << 40).to_be_bytes());
    fixed[58..62].copy_from_slice(&512i32.to_be_bytes());
    out.push(("2^40 bytes in 2^31 chunks", fixed));
    let mut meta = good.clone();
    let at = meta.windows(3).position(|w| w == [0xc6, 0, 0]).unwrap();
    meta[at + 1..at + 5].copy_from_slice(&0x7fff_fff0i32.to_be_bytes());
    out.push(("metalayer of 2 GiB", meta));
    out
}

/// A frame with 16 metalayers whose index entries all point at the first
/// one's 5 MiB content: copied out, they would take 80 MiB from 5.
fn overlapping_metalayers_frame() -> Vec<u8> {
    let cp = CParams {
        typesize: 4,
        ..CParams::default()
    };
    let mut sc = SuperChunk::new(cp, DParams::default(), Storage::FrameInMemory).unwrap();
    sc.meta_add("m00", &vec![7u8; 5 << 20]).unwrap();
    for i in 1..16 {
        sc.meta_add(&format!("m{i:02}"), b"x").unwrap();
    }
    let mut frame = sc.to_frame_bytes().unwrap();
    let slot = |f: &[u8], name: &str| {
        let mut key = vec![0xa3];
        key.extend_from_slice(name.as_bytes());
        key.push(0xd2);
        f.windows(key.len()).position(|w| w == key).unwrap() + key.len()
    };
    let first = slot(&frame, "m00");
    let target: [u8; 4] = frame[first..first + 4].try_into().unwrap();
    for i in 1..16 {
        let at = slot(&frame, &format!("m{i:02}"));
        frame[at..at + 4].copy_from_slice(&target);
    }
    frame
}

#[test]
fn hostile_frames_fail_without_allocating_their_claims() {
    let mut frames = hostile_frames();
    frames.push((
        "16 metalayers sharing 5 MiB",
        overlapping_metalayers_frame(),
    ));
    for (what, frame) in frames {
        let backed = frame.len();
        assert_bounded(what, backed, || {
            if let Ok(sc) = SuperChunk::from_frame_bytes(frame.clone(), true) {
                for n in 0..sc.nchunks().min(4) {
                    let mut out = vec![0u8; 1000];
                    let _ = sc.decompress_chunk(n, &mut out);
                }
                panic!("{what}: opened with {} chunks", sc.nchunks());
            }
        });
        assert_bounded(what, backed, || {
            let mut f = frame.clone();
            // SAFETY: f outlives the call (copy = true).
            let sc = unsafe { blosc2_schunk_from_buffer(f.as_mut_ptr(), f.len() as i64, true) };
            assert!(sc.is_null(), "{what}: blosc2_schunk_from_buffer opened it");
        });
        let path = std::env::temp_dir().join(format!(
            "alloc_bounds_{}_{}.b2frame",
            std::process::id(),
            what.len()
        ));
        std::fs::write(&path, &frame).unwrap();
        assert_bounded(what, backed, || {
            assert!(
                SuperChunk::open(&path, 0).is_err(),
                "{what}: opened from a file"
            );
            let c = CString::new(path.to_str().unwrap()).unwrap();
            // SAFETY: c is a NUL-terminated path.
            let sc = unsafe { blosc2_schunk_open(c.as_ptr()) };
            assert!(sc.is_null(), "{what}: blosc2_schunk_open opened it");
        });
        std::fs::remove_file(&path).unwrap();
    }
}

#[test]
fn copying_a_frame_whose_offsets_share_one_chunk_is_bounded() {
    // 2 Mi offsets, all 0 (every chunk is the first one): a 16 MiB index
    // in 32 bytes, which the floor allows, but copies of 1 KB each would
    // take 2 GB.
    let good = small_frame(Storage::FrameInMemory)
        .to_frame_bytes()
        .unwrap();
    let mut frame = with_offsets_index(&good, &zeros_chunk(16 << 20), false);
    frame[58..62].copy_from_slice(&0i32.to_be_bytes());
    for copy in [false, true] {
        let f = frame.clone();
        assert_bounded("2 Mi offsets sharing one chunk", frame.len(), move || {
            if let Ok(sc) = SuperChunk::from_frame_bytes(f, copy) {
                assert!(!copy, "copied 2 Mi chunks");
                assert_eq!(sc.nchunks(), 2 << 20);
            }
        });
    }
}

#[test]
fn sparse_index_claiming_many_chunks_fails() {
    let dir = std::env::temp_dir().join(format!("alloc_bounds_sparse_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    drop(small_frame(Storage::SparseDir(dir.clone())));
    let index_path = dir.join(blosc2::frame::SPARSE_INDEX_NAME);
    let index = std::fs::read(&index_path).unwrap();
    let mut bad = with_offsets_index(&index, &zeros_chunk(i32::MAX - 32 - 7), true);
    bad[58..62].copy_from_slice(&0i32.to_be_bytes());
    std::fs::write(&index_path, &bad).unwrap();
    assert_bounded("sparse index of 2^28 chunks", bad.len(), || {
        assert!(SuperChunk::open(&dir, 0).is_err());
        let c = CString::new(dir.to_str().unwrap()).unwrap();
        // SAFETY: c is a NUL-terminated path.
        let sc = unsafe { blosc2_schunk_open(c.as_ptr()) };
        assert!(sc.is_null());
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A valid one-block chunk whose header then claims `nbytes` bytes in one
/// block of that size.
fn chunk_claiming(nbytes: i32) -> Vec<u8> {
    let cp = CParams {
        typesize: 4,
        ..CParams::default()
    };
    let data: Vec<u8> = (0..4096u32).map(|k| (k * 7 % 256) as u8).collect();
    let mut c = chunk::compress(&cp, &data).unwrap();
    c[4..8].copy_from_slice(&nbytes.to_le_bytes());
    c[8..12].copy_from_slice(&nbytes.to_le_bytes());
    c
}

#[test]
fn chunk_headers_claiming_huge_sizes_into_small_buffers() {
    let c = chunk_claiming(500 << 20);
    let mut small = vec![0u8; 4096];
    assert_bounded("decompress_into", c.len(), || {
        assert!(chunk::decompress_into(&DParams::default(), &c, &mut small).is_err());
        assert!(chunk::getitem(&DParams::default(), &c, 0, 16, &mut small).is_err());
        assert!(chunk::getitem_bytes(&DParams::default(), &c, 100, 64, &mut small).is_err());
    });
    assert_bounded("blosc2_decompress / blosc2_getitem", c.len(), || {
        // SAFETY: c and small are valid for the sizes given.
        unsafe {
            blosc2_init();
            let n = c.len() as i32;
            let rc = blosc2_decompress(c.as_ptr().cast(), n, small.as_mut_ptr().cast(), 4096);
            assert!(rc < 0);
            let rc = blosc2_getitem(c.as_ptr().cast(), n, 0, 16, small.as_mut_ptr().cast(), 4096);
            assert!(rc < 0);
        }
    });
}

#[test]
fn hostile_frame_chunks_read_into_small_buffers() {
    // A valid frame whose first chunk then claims 500 MiB in one block.
    let sc = small_frame(Storage::FrameInMemory);
    let mut frame = sc.to_frame_bytes().unwrap();
    let header_len = be_i32(&frame, 11) as usize;
    let first = sc.chunk(0).unwrap().into_owned();
    let at = header_len
        + frame[header_len..]
            .windows(first.len())
            .position(|w| w == first)
            .unwrap();
    let claim = (500i32 << 20).to_le_bytes();
    frame[at + 4..at + 8].copy_from_slice(&claim);
    frame[at + 8..at + 12].copy_from_slice(&claim);
    let path =
        std::env::temp_dir().join(format!("alloc_bounds_chunk_{}.b2frame", std::process::id()));
    std::fs::write(&path, &frame).unwrap();
    let backed = frame.len() + 1000;
    assert_bounded("frame chunk claiming 500 MiB", backed, || {
        for sc in [
            SuperChunk::from_frame_bytes(frame.clone(), false).unwrap(),
            SuperChunk::open(&path, 0).unwrap(),
        ] {
            let mut out = vec![0u8; 1000];
            assert!(sc.decompress_chunk(0, &mut out).is_err());
            assert!(sc.get_slice(0, 10, &mut out[..40]).is_err());
            let _ = sc.lazy_chunk(0);
            let mut one = [0u8; 4];
            assert!(sc.get_sparse(&[3], &mut one).is_err());
        }
        let c = CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: c is a NUL-terminated path; out holds 1000 bytes.
        unsafe {
            let sc = blosc2_schunk_open(c.as_ptr());
            assert!(!sc.is_null());
            let mut out = vec![0u8; 1000];
            let rc = blosc2_schunk_decompress_chunk(sc, 0, out.as_mut_ptr().cast(), 1000);
            assert!(rc < 0);
            blosc2_schunk_free(sc);
        }
    });
    std::fs::remove_file(&path).unwrap();
}

/// A Bloscpack file of 3 chunks of 1000 bytes, with offsets and metadata.
fn small_bloscpack() -> Vec<u8> {
    use blosc2::bloscpack::{pack, PackOptions};
    let data: Vec<u8> = (0..3000u32).map(|k| (k % 13) as u8).collect();
    let opts = PackOptions {
        chunk_size: 1000,
        metadata: Some(br#"{"a": 1}"#.to_vec()),
        ..PackOptions::default()
    };
    let mut out = std::io::Cursor::new(Vec::new());
    pack(&data[..], data.len() as u64, &mut out, &opts, &mut |_| {}).unwrap();
    out.into_inner()
}

#[test]
fn hostile_bloscpack_headers_fail_without_allocating_their_claims() {
    use blosc2::bloscpack::Reader;
    let good = small_bloscpack();
    let mut cases = Vec::new();
    let mut n = good.clone();
    n[16..24].copy_from_slice(&(1i64 << 40).to_le_bytes());
    cases.push(("nchunks 2^40", n));
    let meta_at = 32;
    let mut m = good.clone();
    m[meta_at + 12..meta_at + 16].copy_from_slice(&u32::MAX.to_le_bytes());
    m[meta_at + 16..meta_at + 20].copy_from_slice(&u32::MAX.to_le_bytes());
    m[meta_at + 20..meta_at + 24].copy_from_slice(&u32::MAX.to_le_bytes());
    cases.push(("metadata of 4 GiB", m));
    // The first chunk (after the headers, the metadata and the offsets)
    // claims 4 GiB of compressed bytes.
    let r = Reader::new(&good[..], Some(good.len() as u64)).unwrap();
    let first = r.offsets[0] as usize;
    let mut c = good.clone();
    c[first + 12..first + 16].copy_from_slice(&u32::MAX.to_le_bytes());
    c[first + 4..first + 8].copy_from_slice(&u32::MAX.to_le_bytes());
    c[8..12].copy_from_slice(&(-1i32).to_le_bytes());
    cases.push(("chunk of 4 GiB", c));
    for (what, file) in cases {
        assert_bounded(what, file.len(), || {
            for len in [Some(file.len() as u64), None] {
                let mut sink = Vec::new();
                let r = blosc2::bloscpack::unpack(&file[..], len, &mut sink, &mut |_| {});
                assert!(r.is_err(), "{what} ({len:?}): unpacked");
            }
        });
    }
}

/// Read what the C API gives of every chunk (whole and lazy) of a frame
/// file, decompressing into a 1 MiB buffer.
fn read_frame_file_through_c(path: &std::path::Path, nchunks: i64) {
    let c = CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: c is a NUL-terminated path; every chunk handed out is freed
    // when the library says so; out holds 1 MiB.
    unsafe {
        let sc = blosc2_schunk_open(c.as_ptr());
        if sc.is_null() {
            return;
        }
        let mut out = vec![0u8; 1 << 20];
        for i in 0..nchunks.min(256) {
            for lazy in [false, true] {
                let mut chunk: *mut u8 = std::ptr::null_mut();
                let mut needs_free = false;
                let _ = if lazy {
                    blosc2_schunk_get_lazychunk(sc, i, &mut chunk, &mut needs_free)
                } else {
                    blosc2_schunk_get_chunk(sc, i, &mut chunk, &mut needs_free)
                };
                if needs_free {
                    free(chunk.cast());
                }
            }
            let _ = blosc2_schunk_decompress_chunk(sc, i, out.as_mut_ptr().cast(), 1 << 20);
        }
        blosc2_schunk_free(sc);
    }
}

/// Write a sparse frame's files from one input, as fuzz/sframe.c does: the
/// parts between "#B2CHUNK#" separators are the index, then chunk files 0,
/// 1, ... (at most 8).
fn write_sparse_dir(dir: &std::path::Path, input: &[u8]) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let sep = b"#B2CHUNK#";
    let mut rest = input;
    for part in 0..=8 {
        let at = rest.windows(sep.len()).position(|w| w == sep);
        let stop = at.unwrap_or(rest.len());
        let name = if part == 0 {
            blosc2::frame::SPARSE_INDEX_NAME.to_string()
        } else {
            format!("{:08X}.chunk", part - 1)
        };
        std::fs::write(dir.join(name), &rest[..stop]).unwrap();
        match at {
            Some(a) => rest = &rest[a + sep.len()..],
            None => break,
        }
    }
}

/// Open a frame file or sparse directory and read every chunk, through the
/// Rust API and the C API.
fn read_stored_frame(path: &std::path::Path) {
    if let Ok(sc) = SuperChunk::open(path, 0) {
        let mut out = vec![0u8; 1 << 20];
        for i in 0..sc.nchunks().min(256) {
            let _ = sc.lazy_chunk(i);
            let _ = sc.decompress_chunk(i, &mut out);
        }
        let n = sc.nchunks();
        drop(sc);
        read_frame_file_through_c(path, n);
    }
}

/// Inputs that made an entry point allocate too much (found by fuzzing and
/// kept in tests/hostile_inputs/), replayed through the calls that found
/// them.  The file name's prefix says how: "lazy-" and "frame-" are frames
/// opened from a file, "sframe-" a sparse frame's files (see
/// `write_sparse_dir`).
#[test]
fn kept_hostile_inputs_stay_bounded() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile_inputs");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".bin"))
        .collect();
    names.sort();
    assert!(!names.is_empty());
    for name in names {
        let input = std::fs::read(dir.join(&name)).unwrap();
        let backed = input.len() + (1 << 20);
        if name.starts_with("lazy-") || name.starts_with("frame-") {
            let path = std::env::temp_dir().join(format!(
                "alloc_bounds_kept_{}_{name}.b2frame",
                std::process::id()
            ));
            std::fs::write(&path, &input).unwrap();
            assert_bounded(&name, backed, || {
                read_stored_frame(&path);
                let _ = SuperChunk::from_frame_bytes(input.clone(), true);
            });
            std::fs::remove_file(&path).unwrap();
        } else if name.starts_with("sframe-") {
            let dir = std::env::temp_dir().join(format!(
                "alloc_bounds_kept_{}_{name}.b2frame",
                std::process::id()
            ));
            write_sparse_dir(&dir, &input);
            assert_bounded(&name, backed, || read_stored_frame(&dir));
            std::fs::remove_dir_all(&dir).unwrap();
        } else {
            panic!("{name}: no replay for this kind of input");
        }
    }
}
