//! Buffers whose size comes from input (chunk headers, frame headers and
//! trailers, metalayers, Bloscpack headers): fallible, and bounded by what
//! the input can back.
//!
//! The rule (docs/limits.md): an entry point fed N bytes never asks for
//! more than `max(ALLOC_FLOOR, 4 x backed)` bytes in one buffer, where
//! `backed` is what the input, the file or the caller's buffers actually
//! hold for the size claimed.  A claim above that is refused with
//! [`Error::MemoryAlloc`] before anything is allocated, and an allocation
//! within it that the system cannot give is [`Error::MemoryAlloc`] too,
//! never an abort.

use crate::error::{Error, Result};

/// What any buffer sized from input may take whatever backs it.
pub const ALLOC_FLOOR: usize = 64 << 20;

/// The most bytes one buffer sized from input may take when `backed` bytes
/// of input, file or caller buffer stand behind its size.
pub fn limit(backed: usize) -> usize {
    ALLOC_FLOOR.max(backed.saturating_mul(4))
}

/// Refuse a claim of `n` bytes that `backed` bytes cannot back.
pub fn check(n: usize, backed: usize) -> Result<()> {
    if n > limit(backed) {
        return Err(Error::MemoryAlloc);
    }
    Ok(())
}

/// A zeroed buffer of `n` bytes, or [`Error::MemoryAlloc`] when the system
/// cannot give it.  Use it where `n` has been checked against what backs it
/// already (or is not read from input); [`zeroed_within`] otherwise.
///
/// The zeros come from the allocator (calloc), not from writing them: a
/// large buffer's pages stay untouched until used, so a size claimed by
/// input that the decoder never fills costs address space, not memory.
pub fn zeroed(n: usize) -> Result<Vec<u8>> {
    bytemuck::allocation::try_zeroed_vec(n).map_err(|()| Error::MemoryAlloc)
}

/// A zeroed buffer of `n` bytes read from input, refused when `backed`
/// bytes cannot back it.
pub fn zeroed_within(n: usize, backed: usize) -> Result<Vec<u8>> {
    check(n, backed)?;
    zeroed(n)
}

/// An empty vector with room for `n` items, `n` read from input and backed
/// by `backed` bytes (the items' room is counted in bytes).
pub fn vec_within<T>(n: usize, backed: usize) -> Result<Vec<T>> {
    let bytes = n
        .checked_mul(std::mem::size_of::<T>())
        .ok_or(Error::MemoryAlloc)?;
    check(bytes, backed)?;
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| Error::MemoryAlloc)?;
    Ok(v)
}

/// A copy of `src` (whose bytes exist already, so only the system can
/// refuse it).
pub fn copied(src: &[u8]) -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(src.len())
        .map_err(|_| Error::MemoryAlloc)?;
    v.extend_from_slice(src);
    Ok(v)
}

/// Grow `v` to `n` bytes (zeros), `n` read from input and backed by
/// `backed` bytes.
pub fn grow_within(v: &mut Vec<u8>, n: usize, backed: usize) -> Result<()> {
    if n <= v.len() {
        return Ok(());
    }
    check(n, backed)?;
    v.try_reserve_exact(n - v.len())
        .map_err(|_| Error::MemoryAlloc)?;
    v.resize(n, 0);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_beyond_the_limit_are_refused_before_allocating() {
        assert_eq!(limit(0), ALLOC_FLOOR);
        assert_eq!(limit(100 << 20), 400 << 20);
        assert_eq!(limit(usize::MAX), usize::MAX);
        assert!(check(ALLOC_FLOOR, 0).is_ok());
        assert_eq!(check(ALLOC_FLOOR + 1, 0), Err(Error::MemoryAlloc));
        assert_eq!(zeroed_within(1 << 40, 10).unwrap_err(), Error::MemoryAlloc);
        assert_eq!(zeroed_within(5, 0).unwrap(), vec![0; 5]);
        assert!(vec_within::<u64>(usize::MAX / 4, usize::MAX).is_err());
        assert!(vec_within::<i64>(1 << 30, 1000).is_err());
        assert_eq!(vec_within::<i64>(10, 0).unwrap().capacity(), 10);
        let mut v = vec![1u8];
        grow_within(&mut v, 3, 0).unwrap();
        assert_eq!(v, [1, 0, 0]);
        assert!(grow_within(&mut v, usize::MAX, 0).is_err());
        assert_eq!(copied(b"ab").unwrap(), b"ab");
    }
}
