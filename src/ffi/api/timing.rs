//! The timing helpers of blosc2.h.

use super::*;

#[no_mangle]
pub unsafe extern "C" fn blosc_set_timestamp(timestamp: *mut blosc_timestamp_t) {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into our local.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    let now = blosc_timestamp_t {
        tv_sec: ts.tv_sec,
        tv_nsec: ts.tv_nsec,
    };
    store_opt(timestamp, now);
}

#[no_mangle]
pub extern "C" fn blosc_elapsed_nsecs(
    start_time: blosc_timestamp_t,
    end_time: blosc_timestamp_t,
) -> f64 {
    (end_time.tv_sec - start_time.tv_sec) as f64 * 1e9
        + (end_time.tv_nsec - start_time.tv_nsec) as f64
}

#[no_mangle]
pub extern "C" fn blosc_elapsed_secs(
    start_time: blosc_timestamp_t,
    end_time: blosc_timestamp_t,
) -> f64 {
    blosc_elapsed_nsecs(start_time, end_time) / 1e9
}
