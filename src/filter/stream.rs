//! Copying with non-temporal (streaming) stores, for large outputs that are
//! not read again soon: the destination lines go to memory without being
//! read into the cache first (no read-for-ownership), which takes up to half
//! of the memory traffic of an ordinary copy away.  The bytes are the same
//! as `copy_from_slice`'s.

/// Copy `src` into `dest` (the same length) with streaming stores where the
/// target has them (x86_64); elsewhere an ordinary copy.
pub fn copy_streaming(src: &[u8], dest: &mut [u8]) {
    assert_eq!(src.len(), dest.len(), "copy_streaming: lengths differ");
    #[cfg(target_arch = "x86_64")]
    {
        // Ordinary stores up to the first 16-byte boundary of `dest`, then
        // whole 64-byte groups streamed, then the tail.
        let head = dest.as_ptr().align_offset(16).min(dest.len());
        let body = (dest.len() - head) / 64 * 64;
        dest[..head].copy_from_slice(&src[..head]);
        if body > 0 {
            // SAFETY: SSE2 is part of the x86_64 baseline; the two ranges have
            // the same length, a multiple of 64, and the destination range
            // starts 16-byte aligned, as `stream_body` requires.
            unsafe { stream_body(&src[head..head + body], &mut dest[head..head + body]) };
        }
        dest[head + body..].copy_from_slice(&src[head + body..]);
    }
    #[cfg(not(target_arch = "x86_64"))]
    dest.copy_from_slice(src);
}

/// # Safety
/// `src.len() == dest.len()`, a multiple of 64, and `dest` 16-byte aligned.
#[cfg(target_arch = "x86_64")]
unsafe fn stream_body(src: &[u8], dest: &mut [u8]) {
    use std::arch::x86_64::*;
    debug_assert!(src.len() == dest.len() && src.len() % 64 == 0);
    debug_assert!((dest.as_ptr() as usize) % 16 == 0);
    let s = src.as_ptr();
    let d = dest.as_mut_ptr();
    let mut at = 0;
    while at < src.len() {
        // SAFETY: `at + 64 <= len` for both buffers (the length is a multiple
        // of 64); loads are unaligned, stores land on 16-byte boundaries
        // because `dest` starts on one and `at` is a multiple of 64.
        unsafe {
            let v0 = _mm_loadu_si128(s.add(at) as *const __m128i);
            let v1 = _mm_loadu_si128(s.add(at + 16) as *const __m128i);
            let v2 = _mm_loadu_si128(s.add(at + 32) as *const __m128i);
            let v3 = _mm_loadu_si128(s.add(at + 48) as *const __m128i);
            _mm_stream_si128(d.add(at) as *mut __m128i, v0);
            _mm_stream_si128(d.add(at + 16) as *mut __m128i, v1);
            _mm_stream_si128(d.add(at + 32) as *mut __m128i, v2);
            _mm_stream_si128(d.add(at + 48) as *mut __m128i, v3);
        }
        at += 64;
    }
    // SAFETY: SSE is part of the x86_64 baseline.  The fence orders the
    // streaming stores before whatever publishes the copy to other threads.
    unsafe { _mm_sfence() };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_bytes_at_every_alignment_and_length() {
        let src: Vec<u8> = (0..5000u32).map(|i| (i * 7 + i / 251) as u8).collect();
        for len in [0usize, 1, 15, 16, 63, 64, 65, 127, 128, 1000, 4097] {
            for shift in 0..17 {
                let mut buf = vec![0xA5u8; len + shift + 40];
                copy_streaming(&src[3..3 + len], &mut buf[shift..shift + len]);
                assert_eq!(
                    &buf[shift..shift + len],
                    &src[3..3 + len],
                    "len {len} shift {shift}"
                );
                assert!(buf[..shift].iter().all(|&b| b == 0xA5));
                assert!(buf[shift + len..].iter().all(|&b| b == 0xA5));
            }
        }
    }
}
