//! libdeflate's zlib decoder, given readable room after the stream.
//!
//! libdeflate decodes in a fast loop only while at least about 22 bytes of
//! input remain past the read position; the rest of the stream goes
//! through a generic loop that copies each match a byte at a time.  In a
//! highly compressible stream the last few dozen input bytes stand for
//! kilobytes of output: a 16 KiB block of mostly-zero integers (a 169-byte
//! stream) took 8.7 us where zlib-ng took 2.5, nearly all of it in that
//! byte loop, and the same stream with 64 zero bytes appended took 2.3 us
//! (64 KiB: 10.5 and 4.9 us against zlib-ng's 6.3; shuffled mostly-zero
//! integers at zlib level 5, 64 KiB: 32.2 and 5.0 us against 7.2).
//! libdeflater hands the decoder the stream alone, so here a stream worth
//! it is copied into a buffer with [`ROOM`] zero bytes after it, and
//! decoded by `libdeflate_zlib_decompress_ex`, whose report of the input
//! it consumed lets the result be refused when the stream it found (its
//! Adler-32 trailer included) reaches into the appended bytes: what is
//! accepted is exactly what the stream alone decodes to.

use libdeflate_sys::{
    libdeflate_alloc_decompressor, libdeflate_decompressor, libdeflate_free_decompressor,
    libdeflate_result_LIBDEFLATE_SUCCESS, libdeflate_zlib_decompress_ex,
};
use std::ptr::NonNull;

/// Zero bytes appended to a copied stream: more than libdeflate's fast
/// loop reads past its position in one step.
const ROOM: usize = 64;

/// Whether copying a `src_len`-byte stream that expands to `dest_len`
/// bytes pays: the byte loop handles about 22 input bytes' worth of
/// output, `22 * dest_len / src_len` bytes at a few ns each, and the copy
/// costs about 0.03 ns per input byte, so the copy pays while
/// `src_len^2 < 2048 * dest_len` (roughly): always for small streams, for
/// a 64 KiB block from 11 KiB of stream down, never for stored data.
fn worth_copying(src_len: usize, dest_len: usize) -> bool {
    (src_len as u128) * (src_len as u128) < (dest_len as u128) * 2048
}

/// A libdeflate decompressor and the buffer streams are copied into.
pub(crate) struct PaddedInflater {
    d: NonNull<libdeflate_decompressor>,
    buf: Vec<u8>,
}

impl PaddedInflater {
    /// A decompressor; `None` when libdeflate cannot allocate one.
    pub(crate) fn new() -> Option<PaddedInflater> {
        // SAFETY: libdeflate_alloc_decompressor takes no arguments and
        // returns an owned decompressor or NULL.
        let d = NonNull::new(unsafe { libdeflate_alloc_decompressor() })?;
        Some(PaddedInflater { d, buf: Vec::new() })
    }

    /// Decompress zlib stream `src` (Adler-32 checked) into `dest`; the
    /// size, or `None` when the stream is bad or does not fit.
    pub(crate) fn decompress(&mut self, src: &[u8], dest: &mut [u8]) -> Option<usize> {
        if !worth_copying(src.len(), dest.len()) || !self.copy_with_room(src) {
            return self.run(src, src.len(), dest);
        }
        let buf = std::mem::take(&mut self.buf);
        let r = self.run(&buf, src.len(), dest);
        self.buf = buf;
        r
    }

    /// `src` into `self.buf`, followed by [`ROOM`] zero bytes; `false` when
    /// the buffer cannot grow.
    fn copy_with_room(&mut self, src: &[u8]) -> bool {
        let len = src.len() + ROOM;
        self.buf.clear();
        if self.buf.try_reserve(len).is_err() {
            return false;
        }
        self.buf.extend_from_slice(src);
        self.buf.resize(len, 0);
        true
    }

    /// Decode the zlib stream at the start of `input`, which must end
    /// within its first `stream_len` bytes.
    fn run(&mut self, input: &[u8], stream_len: usize, dest: &mut [u8]) -> Option<usize> {
        debug_assert!(stream_len <= input.len());
        let (mut used, mut out) = (0usize, 0usize);
        // SAFETY: `self.d` is a live decompressor owned by `self`; `input`
        // and `dest` are valid for reads and writes of their lengths, and
        // libdeflate writes at most `dest.len()` bytes and the two counts.
        let rc = unsafe {
            libdeflate_zlib_decompress_ex(
                self.d.as_ptr(),
                input.as_ptr().cast(),
                input.len(),
                dest.as_mut_ptr().cast(),
                dest.len(),
                &mut used,
                &mut out,
            )
        };
        (rc == libdeflate_result_LIBDEFLATE_SUCCESS && used <= stream_len).then_some(out)
    }
}

impl Drop for PaddedInflater {
    fn drop(&mut self) {
        // SAFETY: `self.d` came from libdeflate_alloc_decompressor and is
        // freed once, here.
        unsafe { libdeflate_free_decompressor(self.d.as_ptr()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use libdeflater::{CompressionLvl, Compressor};

    fn zlib(data: &[u8], level: i32) -> Vec<u8> {
        let mut c = Compressor::new(CompressionLvl::new(level).unwrap());
        let mut out = vec![0u8; c.zlib_compress_bound(data.len())];
        let n = c.zlib_compress(data, &mut out).unwrap();
        out.truncate(n);
        out
    }

    fn mostly_zero(n: usize) -> Vec<u8> {
        (0..n)
            .map(|i| if i % 800 == 3 { (i / 800) as u8 | 1 } else { 0 })
            .collect()
    }

    /// Copied or not, a good stream decodes to its data.
    #[test]
    fn decodes_what_libdeflate_wrote() {
        let mut p = PaddedInflater::new().unwrap();
        for (data, level) in [
            (mostly_zero(65536), 6),
            (mostly_zero(100), 1),
            (vec![7u8; 0], 6),
        ] {
            let z = zlib(&data, level);
            let mut out = vec![0u8; data.len()];
            assert_eq!(p.decompress(&z, &mut out), Some(data.len()));
            assert_eq!(out, data);
        }
        let mut w = 0x9E37_79B9_7F4A_7C15u64;
        let noisy: Vec<u8> = (0..40000)
            .map(|_| {
                w ^= w << 13;
                w ^= w >> 7;
                w ^= w << 17;
                (w >> 32) as u8
            })
            .collect();
        let z = zlib(&noisy, 6);
        assert!(!worth_copying(z.len(), noisy.len()));
        let mut out = vec![0u8; noisy.len()];
        assert_eq!(p.decompress(&z, &mut out), Some(noisy.len()));
        assert_eq!(out, noisy);
    }

    /// A stream cut short is refused as the stream alone is: every cut of a
    /// small stream (the appended zeros never complete it).
    #[test]
    fn cut_streams_fail() {
        let mut p = PaddedInflater::new().unwrap();
        let data = mostly_zero(20000);
        let z = zlib(&data, 6);
        assert!(worth_copying(z.len(), data.len()));
        let mut out = vec![0u8; data.len()];
        for cut in 0..z.len() {
            assert_eq!(p.decompress(&z[..cut], &mut out), None, "cut at {cut}");
        }
    }

    /// A stream that the decoder finds ending past `stream_len` (its
    /// trailer read from the appended bytes) is refused even though it
    /// decodes: here the whole stream is in the buffer but declared one
    /// byte shorter.
    #[test]
    fn a_stream_reaching_into_the_room_is_refused() {
        let mut p = PaddedInflater::new().unwrap();
        let data = mostly_zero(20000);
        let z = zlib(&data, 6);
        let mut input = z.clone();
        input.resize(z.len() + ROOM, 0);
        let mut out = vec![0u8; data.len()];
        assert_eq!(p.run(&input, z.len(), &mut out), Some(data.len()));
        assert_eq!(p.run(&input, z.len() - 1, &mut out), None);
    }

    /// Too small a destination is an error, not a partial result.
    #[test]
    fn short_destination_fails() {
        let mut p = PaddedInflater::new().unwrap();
        let data = mostly_zero(30000);
        let z = zlib(&data, 6);
        let mut out = vec![0u8; data.len() - 1];
        assert_eq!(p.decompress(&z, &mut out), None);
    }
}
