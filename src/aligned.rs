//! Scratch buffers aligned to a cache line, for the block pipeline and the
//! SIMD kernels' tests.

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

    /// Make the buffer at least `n` bytes long (zeroed when it grows).
    pub fn grow_to(&mut self, n: usize) {
        if self.len >= n {
            return;
        }
        self.raw = vec![0u8; n + Self::ALIGN - 1];
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
