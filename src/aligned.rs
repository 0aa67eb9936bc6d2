//! Scratch buffers aligned to a cache line, for the block pipeline and the
//! SIMD kernels' tests.

use crate::error::{Error, Result};

/// A zero-initialised byte buffer whose first byte sits on a 64-byte boundary.
///
/// `Vec<u8>` from the system allocator starts 16 bytes past a boundary, so
/// every other 32-byte load of the AVX2 (un)shuffle kernels and the codecs
/// straddled two cache lines; the reference allocates its block buffers
/// 32-byte aligned.  Growing drops the old contents (it is scratch).
#[derive(Default)]
pub struct AlignedBuf {
    raw: Vec<u8>,
    start: usize,
    len: usize,
}

impl AlignedBuf {
    const ALIGN: usize = 64;

    /// Make the buffer at least `n` bytes long (zeroed when it grows), for a
    /// size that memory the caller holds already backs (a block of its own
    /// input): aborts, as `vec!` does, when the system cannot give it.
    pub fn grow_to(&mut self, n: usize) {
        if self.len >= n {
            return;
        }
        self.set(vec![0u8; n + Self::ALIGN - 1], n);
    }

    /// [`AlignedBuf::grow_to`] for a size read from input: `MemoryAlloc`
    /// (the buffer unchanged) when the system cannot give it.
    pub fn try_grow_to(&mut self, n: usize) -> Result<()> {
        if self.len >= n {
            return Ok(());
        }
        let raw = n
            .checked_add(Self::ALIGN - 1)
            .ok_or(Error::MemoryAlloc)
            .and_then(crate::alloc::zeroed)?;
        self.set(raw, n);
        Ok(())
    }

    fn set(&mut self, raw: Vec<u8>, n: usize) {
        self.raw = raw;
        let off = self.raw.as_ptr().align_offset(Self::ALIGN);
        // align_offset may give up (usize::MAX); unaligned is still correct.
        self.start = if off < Self::ALIGN { off } else { 0 };
        self.len = n;
    }
}

impl std::ops::Deref for AlignedBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.raw[self.start..self.start + self.len]
    }
}

impl std::ops::DerefMut for AlignedBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.raw[self.start..self.start + self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_aligned_and_refuses_what_cannot_be_had() {
        let mut b = AlignedBuf::default();
        assert_eq!(b.try_grow_to(1000), Ok(()));
        assert_eq!(b.len(), 1000);
        assert_eq!(b.as_ptr() as usize % AlignedBuf::ALIGN, 0);
        b[999] = 7;
        // Large enough already: kept as it is.
        assert_eq!(b.try_grow_to(10), Ok(()));
        assert_eq!((b.len(), b[999]), (1000, 7));
        // A size no allocator gives (or that overflows with the alignment
        // slack): refused, the buffer unchanged.
        assert_eq!(b.try_grow_to(usize::MAX - 8), Err(Error::MemoryAlloc));
        assert_eq!(b.try_grow_to(isize::MAX as usize), Err(Error::MemoryAlloc));
        assert_eq!((b.len(), b[999]), (1000, 7));
    }
}
