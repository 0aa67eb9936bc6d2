//! Process-wide settings, codec names and versions, and the default
//! parameter structs.

use super::*;

#[no_mangle]
pub extern "C" fn blosc1_get_compressor() -> *const c_char {
    guard(std::ptr::null(), || {
        let c = global::settings().compcode;
        crate::codec::name(c)
            .map(|n| static_cstr(&n))
            .unwrap_or(std::ptr::null())
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc1_set_compressor(compname: *const c_char) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: a non-NULL name passed to the API is NUL-terminated.
        let Some(name) = (unsafe { string(compname) }) else {
            return Error::NullPointer.code();
        };
        match global::settings().set_compressor(&name) {
            Ok(c) => c as c_int,
            Err(e) => e.code(),
        }
    })
}

#[no_mangle]
pub extern "C" fn blosc2_set_delta(dodelta: c_int) {
    guard((), || global::settings().delta = dodelta != 0)
}

#[no_mangle]
pub extern "C" fn blosc1_get_blocksize() -> c_int {
    guard(0, || global::settings().blocksize)
}

#[no_mangle]
pub extern "C" fn blosc1_set_blocksize(blocksize: usize) {
    guard((), || global::settings().set_blocksize(blocksize))
}

#[no_mangle]
pub extern "C" fn blosc1_set_splitmode(splitmode: c_int) {
    guard((), || global::settings().splitmode = splitmode)
}

#[no_mangle]
pub extern "C" fn blosc2_get_nthreads() -> i16 {
    guard(1, || global::settings().nthreads)
}

#[no_mangle]
pub extern "C" fn blosc2_set_nthreads(nthreads: i16) -> i16 {
    guard(Error::Failure.code() as i16, || {
        match global::settings().set_nthreads(nthreads) {
            Ok(old) => old,
            Err(e) => e.code() as i16,
        }
    })
}

/// One job handed to a caller's threads callback.
#[repr(C)]
pub(super) struct CallbackJob {
    run: *const (dyn Fn(usize) + Sync),
    index: usize,
}

pub(super) unsafe extern "C" fn callback_trampoline(arg: *mut c_void) {
    if arg.is_null() {
        return;
    }
    // SAFETY: `arg` points at one CallbackJob of the array built in the executor
    // below, which outlives the callback call; `run` borrows a closure that is
    // alive for the same duration.
    let job = unsafe { &*(arg as *const CallbackJob) };
    // SAFETY: `job.run` points at that closure (see above).
    let f = unsafe { &*job.run };
    let index = job.index;
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(index)));
}

pub(super) struct CallbackExecutor {
    callback: unsafe extern "C" fn(
        *mut c_void,
        Option<unsafe extern "C" fn(*mut c_void)>,
        c_int,
        usize,
        *mut c_void,
    ),
    data: usize,
}

impl CallbackExecutor {
    /// Run `f` on each index below `njobs` through the caller's callback,
    /// one `CallbackJob` per index.
    fn run(&self, njobs: usize, f: &(dyn Fn(usize) + Sync)) {
        // SAFETY: erase the borrow's lifetime only for the duration of the
        // callback, which must return after every job has run.
        let f: &'static (dyn Fn(usize) + Sync) = unsafe { std::mem::transmute(f) };
        let mut jobs: Vec<CallbackJob> = (0..njobs)
            .map(|index| CallbackJob {
                run: f as *const _,
                index,
            })
            .collect();
        // SAFETY: the caller's callback runs `dojob` on each of the `njobs`
        // entries (each `elsize` bytes) and returns when all are done.
        unsafe {
            (self.callback)(
                self.data as *mut c_void,
                Some(callback_trampoline),
                njobs as c_int,
                std::mem::size_of::<CallbackJob>(),
                jobs.as_mut_ptr() as *mut c_void,
            )
        };
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_set_threads_callback(
    callback: blosc_threads_callback,
    callback_data: *mut c_void,
) {
    guard((), || {
        let executor = callback.map(|cb| {
            let ex = CallbackExecutor {
                callback: cb,
                data: callback_data as usize,
            };
            let run: std::sync::Arc<crate::pool::Executor> =
                std::sync::Arc::new(move |njobs, f| ex.run(njobs, f));
            run
        });
        crate::pool::set_executor(executor)
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_compcode_to_compname(
    compcode: c_int,
    compname: *mut *const c_char,
) -> c_int {
    guard(-1, || {
        let name = crate::codec::name_of_code(compcode);
        store_opt(
            compname,
            name.as_deref().map_or(std::ptr::null(), static_cstr),
        );
        name.map_or(-1, |_| compcode)
    })
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_compname_to_compcode(compname: *const c_char) -> c_int {
    guard(-1, || {
        // SAFETY: a non-NULL name passed to the API is NUL-terminated.
        match unsafe { string(compname) }.and_then(|n| crate::codec::code_of(&n)) {
            Some(c) => c as c_int,
            None => -1,
        }
    })
}

#[no_mangle]
pub extern "C" fn blosc2_list_compressors() -> *const c_char {
    guard(std::ptr::null(), || {
        static_cstr("blosclz,lz4,lz4hc,zlib,zstd")
    })
}

#[no_mangle]
pub extern "C" fn blosc2_get_version_string() -> *const c_char {
    c"3.3.5".as_ptr()
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_get_complib_info(
    compname: *const c_char,
    complib: *mut *mut c_char,
    version: *mut *mut c_char,
) -> c_int {
    guard(-1, || {
        // SAFETY: a non-NULL name passed to the API is NUL-terminated.
        let Some(name) = (unsafe { string(compname) }) else {
            return Error::NullPointer.code();
        };
        let info = crate::codec::complib_info(&name);
        // malloc'ed copies the caller frees with free(), as with the reference.
        store_opt_cstring(complib, info.libname.as_deref());
        store_opt_cstring(version, Some(&info.version));
        info.complib.map_or(Error::NotFound.code(), c_int::from)
    })
}

#[no_mangle]
pub extern "C" fn blosc2_error_string(error_code: c_int) -> *const c_char {
    guard(std::ptr::null(), || {
        if (-37..=-1).contains(&error_code) {
            static_cstr(Error::from_code(error_code).message())
        } else {
            static_cstr("Unknown error")
        }
    })
}

#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_cparams_defaults() -> blosc2_cparams {
    cparams_defaults()
}

#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_dparams_defaults() -> blosc2_dparams {
    dparams_defaults()
}

pub(super) static IO_DEFAULTS: Lazy<usize> = Lazy::new(|| {
    let b = Box::new(blosc2_io {
        id: 0,
        name: c"filesystem".as_ptr(),
        params: std::ptr::null_mut(),
    });
    Box::into_raw(b) as usize
});

#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_io_defaults() -> blosc2_io {
    blosc2_io {
        id: 0,
        name: c"filesystem".as_ptr(),
        params: std::ptr::null_mut(),
    }
}

#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_storage_defaults() -> blosc2_storage {
    let _ = *IO_DEFAULTS;
    blosc2_storage {
        contiguous: false,
        urlpath: std::ptr::null_mut(),
        cparams: std::ptr::null_mut(),
        dparams: std::ptr::null_mut(),
        io: std::ptr::null_mut(),
    }
}

#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_stdio_mmap_defaults() -> blosc2_stdio_mmap {
    // SAFETY: all-zero bytes are a valid blosc2_stdio_mmap (NULL pointers,
    // zeros, false): no urlpath, no FILE, not freed by destroy.
    let mut m: blosc2_stdio_mmap = unsafe { std::mem::zeroed() };
    m.mode = c"r".as_ptr();
    m.initial_mapping_size = crate::io::mmap::DEFAULT_INITIAL_MAPPING_SIZE;
    // The protection and flags are known once a mode maps a file.
    (m.access_flags, m.map_flags) = (-1, -1);
    m.record(&crate::io::mmap::CallerMapping::unmapped());
    m
}
