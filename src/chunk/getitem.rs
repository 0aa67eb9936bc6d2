//! getitem: a range of items (or bytes) of a chunk, decoding only the
//! blocks that hold it.

use super::decompress::{
    decode_block, fill_special, has_delta, touches_unheld_delta_bytes, SCRATCH,
};
use super::params::DParams;
use super::parsed::{parse, Parsed};
use crate::error::{Error, Result};
use crate::format::header::{ChunkHeader, Special};

/// The chunk `src` parsed for a range read: chunks of variable-length
/// blocks have no item offsets and are refused.
pub(super) fn parse_for_range(src: &[u8]) -> Result<Parsed<'_>> {
    if ChunkHeader::parse(src)?.vlblocks() {
        return Err(Error::InvalidParam);
    }
    parse(src)
}

/// Decode bytes `start*itemsize .. (start+nitems)*itemsize` into `dest`.
pub(crate) fn getitem_bytes_parsed(
    dparams: &DParams,
    p: &Parsed,
    start: i64,
    nitems: i64,
    itemsize: i64,
    dest: &mut [u8],
) -> Result<usize> {
    if nitems == 0 {
        return Ok(0);
    }
    if nitems < 0 {
        return Err(Error::InvalidParam);
    }
    let nbytes_req = nitems.checked_mul(itemsize).ok_or(Error::WriteBuffer)?;
    if nbytes_req > i32::MAX as i64 || nbytes_req as usize > dest.len() {
        return Err(Error::WriteBuffer);
    }
    let start_b = start.checked_mul(itemsize).ok_or(Error::InvalidParam)?;
    let nbytes = p.h.nbytes as i64;
    if start < 0 || start_b > nbytes {
        return Err(Error::InvalidParam);
    }
    let stop_b = start_b + nbytes_req;
    if stop_b > nbytes {
        return Err(Error::InvalidParam);
    }
    let (start_b, stop_b) = (start_b as usize, stop_b as usize);
    let dest = &mut dest[..stop_b - start_b];
    // Bytes a delta chunk does not hold (see `unheld_delta_bytes`).
    if touches_unheld_delta_bytes(p, start_b, stop_b, |_| false) {
        return Err(Error::Data);
    }
    if p.special != Special::None && dparams.postfilter.is_none() {
        if p.special == Special::Value {
            let ts = p.src.len() - p.overhead;
            if ts == 0 || start_b % ts != 0 || !dest.len().is_multiple_of(ts) {
                // Values straddling items: fill via a full pattern shift.
                for (i, d) in dest.iter_mut().enumerate() {
                    *d = p.src[p.overhead + (start_b + i) % ts];
                }
                return Ok(dest.len());
            }
        }
        fill_special(p, dest)?;
        return Ok(dest.len());
    }
    if p.memcpyed && dparams.postfilter.is_none() {
        let at = p.overhead + start_b;
        super::copy_bytes(&p.src[at..at + dest.len()], dest);
        return Ok(dest.len());
    }
    let delta = has_delta(p);
    SCRATCH.with(|sc| -> Result<usize> {
        let mut sc = sc.borrow_mut();
        // A block the caller's buffer and the chunk cannot back is refused
        // before anything is decoded (docs/limits.md).
        let backed = dest.len().max(p.src.len());
        let mut block = crate::alloc::zeroed_within(p.blocksize, backed)?;
        let mut block0 = Vec::new();
        if delta {
            block0 = crate::alloc::zeroed_within(p.block_size(0).0, backed)?;
            decode_block(p, dparams, 0, &mut block0, None, &mut sc, 0)?;
        }
        let first_j = start_b / p.blocksize;
        let last_j = (stop_b - 1) / p.blocksize;
        let mut written = 0;
        for j in first_j..=last_j {
            let (bsize, _) = p.block_size(j);
            let bstart = j * p.blocksize;
            let blk: &[u8] = if delta && j == 0 {
                &block0
            } else {
                decode_block(
                    p,
                    dparams,
                    j,
                    &mut block[..bsize],
                    if delta { Some(&block0) } else { None },
                    &mut sc,
                    0,
                )?;
                &block[..bsize]
            };
            let lo = start_b.max(bstart) - bstart;
            let hi = stop_b.min(bstart + bsize) - bstart;
            dest[written..written + hi - lo].copy_from_slice(&blk[lo..hi]);
            written += hi - lo;
        }
        Ok(written)
    })
}
