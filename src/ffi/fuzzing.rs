//! Entry points only the fuzz harnesses use (cargo feature `fuzzing`, off by
//! default, so the shipped library exports nothing extra). They reach parsers
//! that blosc2.h does not expose: the Bloscpack reader lives only in the Rust
//! API and the CLI.

use super::guard;
use super::ptr::bytes;
use crate::bloscpack::Reader;
use std::os::raw::c_int;

/// Read the Bloscpack file in `data[..size]` as `blosc2 unpack` does: header,
/// metadata, offsets, then every chunk (checksums verified, decompressed and
/// dropped). Returns the number of chunks read, or -1 when the file is
/// rejected.
///
/// # Safety
/// `data` must point to `size` readable bytes (or be NULL with `size` 0).
#[no_mangle]
pub unsafe extern "C" fn blosc2_fuzz_bloscpack_read(data: *const u8, size: usize) -> c_int {
    // SAFETY: the caller guarantees `size` readable bytes at a non-NULL `data`.
    let bytes = unsafe { bytes(data, size) };
    guard(-1, || {
        let Ok(mut reader) = Reader::new(bytes, Some(bytes.len() as u64)) else {
            return -1;
        };
        let mut chunks = std::iter::from_fn(|| reader.next_chunk().transpose());
        chunks
            .try_fold(0 as c_int, |n, c| c.map(|_| n.saturating_add(1)))
            .unwrap_or(-1)
    })
}
