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
/// Decompression is bounded as the other harnesses bound it: a chunk whose
/// header claims more than `max_chunk_nbytes` is read and checked but not
/// decompressed, and neither is one past `max_total_nbytes` over the file. A
/// hundred bytes of valid chunk can claim 2 GiB of one repeated byte, which
/// the reader rightly writes out; a fuzzer must not spend its memory limit
/// on that.
///
/// # Safety
/// `data` must point to `size` readable bytes (or be NULL with `size` 0).
#[no_mangle]
pub unsafe extern "C" fn blosc2_fuzz_bloscpack_read(
    data: *const u8,
    size: usize,
    max_chunk_nbytes: i64,
    max_total_nbytes: i64,
) -> c_int {
    // SAFETY: the caller guarantees `size` readable bytes at a non-NULL `data`.
    let bytes = unsafe { bytes(data, size) };
    guard(-1, || {
        let Ok(mut reader) = Reader::new(bytes, Some(bytes.len() as u64)) else {
            return -1;
        };
        let mut budget = max_total_nbytes;
        let mut n: c_int = 0;
        loop {
            let i = i64::from(n);
            let c = match reader.next_compressed() {
                Ok(Some(c)) => c,
                Ok(None) => return n,
                Err(_) => return -1,
            };
            // next_compressed has read a 16-byte header at least.
            let claimed = i64::from(u32::from_le_bytes([c[4], c[5], c[6], c[7]]));
            if claimed <= max_chunk_nbytes && claimed <= budget {
                budget -= claimed;
                if reader.decompress(i, &c).is_err() {
                    return -1;
                }
            }
            n = n.saturating_add(1);
        }
    })
}
