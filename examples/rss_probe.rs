//! Peak-memory probe: compress and decompress 256 MiB through a context of the
//! libblosc2 given by path, using only the C ABI. Run it under `/usr/bin/time -v`
//! once per library and compare "Maximum resident set size":
//!
//! ```sh
//! cargo build --release --example rss_probe
//! /usr/bin/time -v target/release/examples/rss_probe .ref/blosc2/lib/libblosc2.so.9
//! /usr/bin/time -v target/release/examples/rss_probe target/release/libblosc2.so
//! ```
//!
//! Arguments: LIBRARY [NTHREADS (1)] [CODEC id (0 = blosclz)] [CLEVEL (5)].
//! The input is a float64 linspace with small noise, shuffled (typesize 8); the
//! whole 256 MiB go through a single blosc2_compress_ctx / blosc2_decompress_ctx
//! call each, and the round trip is checked.

use std::ffi::{c_int, c_void};

use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};

#[repr(C)]
#[derive(Clone, Copy)]
struct Cparams {
    compcode: u8,
    compcode_meta: u8,
    clevel: u8,
    use_dict: c_int,
    typesize: i32,
    nthreads: i16,
    blocksize: i32,
    splitmode: i32,
    schunk: *mut c_void,
    filters: [u8; 6],
    filters_meta: [u8; 6],
    prefilter: *mut c_void,
    preparams: *mut c_void,
    tuner_params: *mut c_void,
    tuner_id: c_int,
    instr_codec: bool,
    codec_params: *mut c_void,
    filter_params: [*mut c_void; 6],
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Dparams {
    nthreads: i16,
    schunk: *mut c_void,
    postfilter: *mut c_void,
    postparams: *mut c_void,
    typesize: i32,
}

type Ctx = *mut c_void;
type CodecCtxFn = unsafe extern "C" fn(Ctx, *const c_void, i32, *mut c_void, i32) -> c_int;

const SIZE: usize = 256 << 20;

fn fail(msg: &str) -> ! {
    eprintln!("rss_probe: {msg}");
    std::process::exit(1)
}

fn arg<T: std::str::FromStr>(args: &[String], i: usize, default: T) -> T {
    args.get(i)
        .map(|s| {
            s.parse()
                .unwrap_or_else(|_| fail(&format!("bad argument {s:?}")))
        })
        .unwrap_or(default)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        fail("usage: rss_probe LIBRARY [NTHREADS] [CODEC] [CLEVEL]")
    };
    let nthreads: i16 = arg(&args, 2, 1);
    let codec: u8 = arg(&args, 3, 0);
    let clevel: u8 = arg(&args, 4, 5);

    // SAFETY: loading a blosc2 build and calling its C API with mirrored types.
    unsafe {
        let lib = Library::open(Some(path), RTLD_NOW | RTLD_LOCAL)
            .unwrap_or_else(|e| fail(&format!("cannot load {path}: {e}")));
        let init = *lib.get::<unsafe extern "C" fn()>(b"blosc2_init\0").unwrap();
        let destroy = *lib
            .get::<unsafe extern "C" fn()>(b"blosc2_destroy\0")
            .unwrap();
        let create_cctx = *lib
            .get::<unsafe extern "C" fn(Cparams) -> Ctx>(b"blosc2_create_cctx\0")
            .unwrap();
        let create_dctx = *lib
            .get::<unsafe extern "C" fn(Dparams) -> Ctx>(b"blosc2_create_dctx\0")
            .unwrap();
        let free_ctx = *lib
            .get::<unsafe extern "C" fn(Ctx)>(b"blosc2_free_ctx\0")
            .unwrap();
        let compress = *lib.get::<CodecCtxFn>(b"blosc2_compress_ctx\0").unwrap();
        let decompress = *lib.get::<CodecCtxFn>(b"blosc2_decompress_ctx\0").unwrap();
        init();

        let n = SIZE / 8;
        let mut state = 0x1234_5678_9abc_def0u64;
        let src: Vec<u8> = (0..n)
            .flat_map(|i| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let noise = (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
                (i as f64 * (1000.0 / n as f64) + noise * 1e-6).to_le_bytes()
            })
            .collect();

        let mut filters = [0u8; 6];
        filters[5] = 1; // shuffle
        let cp = Cparams {
            compcode: codec,
            compcode_meta: 0,
            clevel,
            use_dict: 0,
            typesize: 8,
            nthreads,
            blocksize: 0,
            splitmode: 4,
            schunk: std::ptr::null_mut(),
            filters,
            filters_meta: [0; 6],
            prefilter: std::ptr::null_mut(),
            preparams: std::ptr::null_mut(),
            tuner_params: std::ptr::null_mut(),
            tuner_id: 0,
            instr_codec: false,
            codec_params: std::ptr::null_mut(),
            filter_params: [std::ptr::null_mut(); 6],
        };
        let dp = Dparams {
            nthreads,
            schunk: std::ptr::null_mut(),
            postfilter: std::ptr::null_mut(),
            postparams: std::ptr::null_mut(),
            typesize: 8,
        };
        let cctx = create_cctx(cp);
        let dctx = create_dctx(dp);
        if cctx.is_null() || dctx.is_null() {
            fail("context creation failed");
        }

        let cap = SIZE + 32;
        let mut comp: Vec<u8> = Vec::with_capacity(cap);
        let csize = compress(
            cctx,
            src.as_ptr().cast(),
            SIZE as i32,
            comp.as_mut_ptr().cast(),
            cap as i32,
        );
        if csize <= 0 {
            fail(&format!("compress returned {csize}"));
        }
        comp.set_len(csize as usize);
        comp.shrink_to_fit();

        let mut out: Vec<u8> = Vec::with_capacity(SIZE);
        let dsize = decompress(
            dctx,
            comp.as_ptr().cast(),
            csize,
            out.as_mut_ptr().cast(),
            SIZE as i32,
        );
        if dsize != SIZE as i32 {
            fail(&format!("decompress returned {dsize}"));
        }
        out.set_len(SIZE);
        if out != src {
            fail("round trip mismatch");
        }
        println!(
            "{path}: {SIZE} bytes -> {csize} (ratio {:.2}), nthreads {nthreads}, codec {codec}, clevel {clevel}: round trip ok",
            SIZE as f64 / csize as f64
        );
        free_ctx(cctx);
        free_ctx(dctx);
        destroy();
    }
}
