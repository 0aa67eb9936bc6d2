//! zlib-format deflate through `flate2` on the zlib-rs backend, with one
//! compressor per level and one decompressor kept per thread (setting up a
//! deflate state costs more than compressing a small block).

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};
use std::cell::RefCell;

thread_local! {
    static COMPRESSORS: RefCell<Vec<Option<Compress>>> = RefCell::new((0..10).map(|_| None).collect());
    static DECOMPRESSOR: RefCell<Option<Decompress>> = const { RefCell::new(None) };
}

/// Compress as zlib's `compress2` does; 0 when it does not fit.
pub fn compress(src: &[u8], dest: &mut [u8], clevel: i32) -> usize {
    let level = clevel.clamp(0, 9) as usize;
    COMPRESSORS.with(|cs| {
        let mut cs = cs.borrow_mut();
        let c =
            cs[level].get_or_insert_with(|| Compress::new(Compression::new(level as u32), true));
        c.reset();
        match c.compress(src, dest, FlushCompress::Finish) {
            Ok(Status::StreamEnd) => c.total_out() as usize,
            _ => 0,
        }
    })
}

/// Decompress a zlib stream; `None` on error or when it does not end.
pub fn decompress(src: &[u8], dest: &mut [u8]) -> Option<usize> {
    DECOMPRESSOR.with(|d| {
        let mut d = d.borrow_mut();
        let d = d.get_or_insert_with(|| Decompress::new(true));
        d.reset(true);
        match d.decompress(src, dest, FlushDecompress::Finish) {
            Ok(Status::StreamEnd) => Some(d.total_out() as usize),
            _ => None,
        }
    })
}

/// Version reported for the zlib library.
pub fn version() -> &'static str {
    "1.3.1.zlib-rs"
}
