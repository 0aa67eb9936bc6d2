//! Chunk-level C functions of blosc2.h, one file per concept.
#![allow(clippy::missing_safety_doc)]

use super::ptr::{
    buffer_list, bytes, bytes_mut, items, items_mut, static_cstr, store, store_opt,
    store_opt_cstring, string, CBytes,
};
use super::types::*;
use super::{code, guard, guarded};
use crate::chunk::env::EnvOverrides;
use crate::chunk::{self, global, DParams};
use crate::error::Error;
use crate::ffi::ctx::{cparams_defaults, dparams_defaults, Context};
use crate::format::header::{ChunkHeader, Special, MIN_HEADER_LENGTH};
use once_cell::sync::Lazy;
use std::os::raw::{c_char, c_int, c_void};

/// The source and destination of a compression call: `srcsize` bytes at
/// `src` (NULL only when empty) and `destsize` writable bytes at `dest`.
///
/// # Safety
/// The caller guarantees those sizes at those pointers.
pub(super) unsafe fn compress_buffers<'a>(
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> Result<(&'a [u8], &'a mut [u8]), Error> {
    if (src.is_null() && srcsize > 0) || dest.is_null() {
        return Err(Error::NullPointer);
    }
    if srcsize < 0 || destsize < 0 {
        return Err(Error::InvalidParam);
    }
    // SAFETY: guaranteed by the caller.
    Ok(unsafe {
        (
            bytes(src, srcsize as usize),
            bytes_mut(dest, destsize as usize),
        )
    })
}

/// The output buffer of a getitem call: `destsize` writable bytes at `dest`
/// (none for a negative size); NULL is `NullPointer`.
///
/// # Safety
/// A non-NULL `dest` must be valid for writes of `destsize` bytes.
pub(super) unsafe fn getitem_dest<'a>(
    dest: *mut c_void,
    destsize: i32,
) -> Result<&'a mut [u8], Error> {
    if dest.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: guaranteed by the caller.
    Ok(unsafe { bytes_mut(dest, destsize.max(0) as usize) })
}

/// The output buffer of a decompression call: `destsize` writable bytes at
/// `dest`, which may be NULL only when `destsize` is 0 or less
/// (`NullPointer`); a negative size is `WriteBuffer`.
///
/// # Safety
/// A non-NULL `dest` must be valid for writes of `destsize` bytes.
pub(super) unsafe fn decompress_dest<'a>(
    dest: *mut c_void,
    destsize: i32,
) -> Result<&'a mut [u8], Error> {
    if dest.is_null() && destsize > 0 {
        return Err(Error::NullPointer);
    }
    if destsize < 0 {
        return Err(Error::WriteBuffer);
    }
    // SAFETY: guaranteed by the caller.
    Ok(unsafe { bytes_mut(dest, destsize as usize) })
}

/// The bytes of a chunk at `src`: at most `srcsize`, and no more than the
/// header's cbytes (so that callers passing a huge srcsize, as blosc1 does,
/// never make us look past the chunk).
///
/// # Safety
/// `src` must point at a chunk of at least min(srcsize, cbytes) bytes, or at
/// least 16 bytes when srcsize >= 16.
pub(super) unsafe fn chunk_slice<'a>(src: *const c_void, srcsize: i32) -> Result<&'a [u8], Error> {
    if src.is_null() {
        return Err(Error::NullPointer);
    }
    if srcsize < MIN_HEADER_LENGTH as i32 {
        return Err(Error::ReadBuffer);
    }
    // SAFETY: srcsize >= 16, so the caller guarantees the first 16 bytes.
    let head = unsafe { bytes(src, MIN_HEADER_LENGTH) };
    let h = ChunkHeader::parse_min(head)?;
    let mut n = (srcsize as usize).min(h.cbytes as usize);
    if h.is_extended() && srcsize as usize >= crate::format::header::EXTENDED_HEADER_LENGTH {
        // SAFETY: srcsize >= 32 bytes are readable.
        let full = unsafe { bytes(src, crate::format::header::EXTENDED_HEADER_LENGTH) };
        if ChunkHeader::parse(full).is_ok_and(|f| f.lazy()) {
            // A lazy chunk ends with its trailer, which may lie past the
            // cbytes of a small chunk: it is as long as the caller says.
            n = srcsize as usize;
        }
    }
    // SAFETY: n <= srcsize, and n <= cbytes unless a lazy chunk's own length.
    Ok(unsafe { bytes(src, n) })
}

mod context;
mod global_calls;
mod header;
mod index;
mod raw_filter;
mod settings;
mod special;
mod timing;
mod vlblocks;

pub use context::*;
pub use global_calls::*;
pub use header::*;
pub use index::*;
pub use raw_filter::*;
pub use settings::*;
pub use special::*;
pub use timing::*;
pub use vlblocks::*;
