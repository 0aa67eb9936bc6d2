//! Zstandard through `zstd-safe`, with one reusable context per thread.

use std::cell::RefCell;
use zstd_safe::{CCtx, CDict, DCtx, DDict};

thread_local! {
    static CCTX: RefCell<Option<CCtx<'static>>> = const { RefCell::new(None) };
    static DCTX: RefCell<Option<DCtx<'static>>> = const { RefCell::new(None) };
}

/// The zstd level Blosc uses for a Blosc clevel (1..=9): odd levels up to 15,
/// then zstd's maximum. (The reference also has a rule for a mapped level of
/// 8, which odd levels never reach, so it never applies.)
pub fn level_for(clevel: i32) -> i32 {
    if clevel < 9 {
        clevel * 2 - 1
    } else {
        zstd_safe::max_c_level()
    }
}

/// Compress; 0 when it does not fit.
pub fn compress(src: &[u8], dest: &mut [u8], clevel: i32, cdict: Option<&CDict<'static>>) -> usize {
    CCTX.with(|c| {
        let mut c = c.borrow_mut();
        if c.is_none() {
            *c = CCtx::try_create();
        }
        let Some(cctx) = c.as_mut() else { return 0 };
        let r = match cdict {
            Some(d) => cctx.compress_using_cdict(dest, src, d),
            None => cctx.compress(dest, src, level_for(clevel)),
        };
        r.unwrap_or(0)
    })
}

/// Decompress; `None` on error.
pub fn decompress(src: &[u8], dest: &mut [u8], ddict: Option<&DDict<'static>>) -> Option<usize> {
    DCTX.with(|c| {
        let mut c = c.borrow_mut();
        if c.is_none() {
            *c = DCtx::try_create();
        }
        let dctx = c.as_mut()?;
        let r = match ddict {
            Some(d) => dctx.decompress_using_ddict(dest, src, d),
            None => dctx.decompress(dest, src),
        };
        r.ok()
    })
}

/// Train a dictionary of at most `max_size` bytes from equally sized samples.
pub fn train(samples: &[u8], sample_sizes: &[usize], max_size: usize) -> Option<Vec<u8>> {
    let mut dict: Vec<u8> = Vec::with_capacity(max_size);
    match zstd_safe::train_from_buffer(&mut dict, samples, sample_sizes) {
        Ok(n) if n > 0 => {
            dict.truncate(n);
            Some(dict)
        }
        _ => None,
    }
}

/// Digest a dictionary for compression (level 1, as the reference does).
pub fn cdict(dict: &[u8]) -> Option<CDict<'static>> {
    CDict::try_create(dict, 1)
}

/// Digest a dictionary for decompression.
pub fn ddict(dict: &[u8]) -> Option<DDict<'static>> {
    DDict::try_create(dict)
}

/// Library version string.
pub fn version() -> String {
    let v = zstd_safe::version_number();
    format!("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100)
}
