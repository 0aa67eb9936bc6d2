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
            let (from, to) = (&src[head..head + body], &mut dest[head..head + body]);
            let backward = aliases_forward(from.as_ptr() as usize, to.as_ptr() as usize);
            // SAFETY: SSE2 is part of the x86_64 baseline; the two ranges have
            // the same length, a multiple of 64, and the destination range
            // starts 16-byte aligned, as `stream_body` requires.
            unsafe { stream_body(from, to, backward) };
        }
        dest[head + body..].copy_from_slice(&src[head + body..]);
    }
    #[cfg(not(target_arch = "x86_64"))]
    dest.copy_from_slice(src);
}

/// Whether a forward copy from `src` to `dest` would suffer from 4K
/// aliasing: the destination a little (under 128 bytes) ahead of the source
/// modulo the 4 KiB page, so that every group of loads names the same low
/// 12 address bits as the stores just issued, and the CPU holds the loads
/// back as if they depended on those stores.  Buffers allocated one after
/// the other on the heap (a chunk, then the buffer it is decompressed into)
/// land like this, and a forward copy then runs at a third of its usual
/// speed (see docs/performance.md).  Copying from the end backwards turns
/// the overlap around; glibc's memmove does the same.
#[cfg(target_arch = "x86_64")]
fn aliases_forward(src: usize, dest: usize) -> bool {
    let ahead = dest.wrapping_sub(src) % 4096;
    (1..128).contains(&ahead)
}

/// # Safety
/// `src.len() == dest.len()`, a multiple of 64, and `dest` 16-byte aligned.
#[cfg(target_arch = "x86_64")]
unsafe fn stream_body(src: &[u8], dest: &mut [u8], backward: bool) {
    use std::arch::x86_64::*;
    debug_assert!(src.len() == dest.len() && src.len().is_multiple_of(64));
    debug_assert!((dest.as_ptr() as usize).is_multiple_of(16));
    let s = src.as_ptr();
    let d = dest.as_mut_ptr();
    let groups = src.len() / 64;
    for g in 0..groups {
        let at = if backward {
            (groups - 1 - g) * 64
        } else {
            g * 64
        };
        // SAFETY: `at + 64 <= len` for both buffers (`at` is a multiple of
        // 64 below the length, itself a multiple of 64); loads are unaligned,
        // stores land on 16-byte boundaries because `dest` starts on one.
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

    /// Destinations a little ahead of the source modulo 4 KiB take the
    /// backward loop; the bytes must be the same either way.
    #[test]
    fn same_bytes_in_both_directions() {
        #[cfg(target_arch = "x86_64")]
        {
            assert!(aliases_forward(0x1000, 0x2010));
            assert!(aliases_forward(0x1fc0, 0x5000));
            assert!(!aliases_forward(0x1000, 0x2000));
            assert!(!aliases_forward(0x1000, 0x2080));
            assert!(!aliases_forward(0x1010, 0x2000));
        }
        let len = 3 * 4096 + 77;
        let src: Vec<u8> = (0..len as u32).map(|i| (i * 31 + i / 97) as u8).collect();
        for ahead in [0usize, 1, 16, 48, 64, 100, 127, 128, 200, 4095] {
            // One allocation, so the distance modulo 4 KiB is the one chosen.
            let mut buf = vec![0u8; 2 * len + 2 * 4096 + 64];
            let base = buf.as_ptr() as usize;
            let s_at = base.next_multiple_of(4096) - base;
            let mut d_at = s_at + len;
            d_at += (ahead + 4096 - (d_at - s_at) % 4096) % 4096;
            buf[s_at..s_at + len].copy_from_slice(&src);
            let (lo, hi) = buf.split_at_mut(d_at);
            copy_streaming(&lo[s_at..s_at + len], &mut hi[..len]);
            assert_eq!(&hi[..len], &src[..], "ahead {ahead}");
            assert!(hi[len..].iter().all(|&b| b == 0), "ahead {ahead}");
        }
    }
}
