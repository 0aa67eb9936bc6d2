//! zlib-format deflate through `flate2` (zlib-rs backend by default, zlib-ng
//! with the `zlib-ng` feature). A fresh stream per call: reusing deflate states
//! across calls was measured to gain nothing and produced corrupt streams once
//! (seed 17118290131095851751, case 1729 of tests/interop_reference.rs).

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

/// Compress as zlib's `compress2` does; 0 when it does not fit.
pub fn compress(src: &[u8], dest: &mut [u8], clevel: i32) -> usize {
    let mut c = Compress::new(Compression::new(clevel.clamp(0, 9) as u32), true);
    match c.compress(src, dest, FlushCompress::Finish) {
        Ok(Status::StreamEnd) => c.total_out() as usize,
        _ => 0,
    }
}

/// Decompress a zlib stream; `None` on error or when it does not end.
pub fn decompress(src: &[u8], dest: &mut [u8]) -> Option<usize> {
    let mut d = Decompress::new(true);
    match d.decompress(src, dest, FlushDecompress::Finish) {
        Ok(Status::StreamEnd) => Some(d.total_out() as usize),
        _ => None,
    }
}

/// Version reported for the zlib library.
pub fn version() -> &'static str {
    "1.3.1.zlib-rs"
}
