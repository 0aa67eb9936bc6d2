//! A buffer placed at a chosen distance past a 4 KiB page boundary, shared
//! by the benches (each includes this file with `#[path]`).
//!
//! Where a buffer starts decides how fast code runs on it, and plain heap
//! allocations land wherever the allocator puts them: copy loops slow down
//! by half or more when the destination lies a little ahead of the source
//! modulo 4 KiB (4K aliasing), and wide stores that straddle cache lines
//! cost more than aligned ones.  Placing every buffer alike keeps that luck
//! out of a comparison.

/// `len` bytes starting `offset` bytes (below 4096) past a page boundary.
#[derive(Default)]
pub struct PageBuf {
    raw: Vec<u8>,
    start: usize,
    len: usize,
}

impl PageBuf {
    /// A buffer of `len` bytes set to `fill`.
    pub fn new(len: usize, offset: usize, fill: u8) -> PageBuf {
        assert!(offset < 4096, "offset {offset} is not inside a page");
        let raw = vec![fill; len + 4096 + offset];
        let base = raw.as_ptr() as usize;
        let start = base.next_multiple_of(4096) - base + offset;
        PageBuf { raw, start, len }
    }
}

impl std::ops::Deref for PageBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.raw[self.start..self.start + self.len]
    }
}

impl std::ops::DerefMut for PageBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.raw[self.start..self.start + self.len]
    }
}
