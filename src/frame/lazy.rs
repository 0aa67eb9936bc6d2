//! Lazy chunks: for a frame on disk, a chunk's header and block starts plus a
//! trailer telling where the rest lives, as the reference builds them:
//!
//! `header (32 bytes, blosc2 flags | 0x08) | bstarts (4 * nblocks) |
//!  nchunk (int32) | chunk offset (int64) | block csizes (4 * nblocks)`
//!
//! For a contiguous frame `nchunk` is the chunk's position and the offset is
//! counted from the start of the frame; for a sparse frame both are the
//! chunk file's number. [`Frame::resolve_lazy`] reads the whole chunk back.

use super::Frame;
use crate::alloc;
use crate::error::{Error, Result};
use crate::format::header::{ChunkHeader, B2_VL_BLOCKS, EXTENDED_HEADER_LENGTH, FLAG_MEMCPYED};

/// The lazy bit of the blosc2 flags byte.
pub const LAZY_FLAG: u8 = 0x08;
const POS_BLOSC2_FLAGS: usize = 31;
const SPECIAL_VALUE: u8 = 3;

/// `(nblocks, leftover)` of a chunk header.
fn nblocks_of(h: &ChunkHeader) -> Result<(usize, usize)> {
    if h.nbytes < 0 || h.blocksize <= 0 {
        return Err(Error::InvalidHeader);
    }
    let vl = h.is_extended() && h.blosc2_flags2 & B2_VL_BLOCKS != 0;
    let (n, left) = if vl {
        (h.blocksize as usize, 0)
    } else {
        let bs = h.blocksize as usize;
        let nb = h.nbytes as usize;
        (nb / bs + usize::from(!nb.is_multiple_of(bs)), nb % bs)
    };
    if n == 0 || n > (i32::MAX as usize) / 8 {
        return Err(Error::InvalidHeader);
    }
    Ok((n, left))
}

/// The compressed size of each block of a chunk with header `h`, as a lazy
/// chunk's trailer holds them: the distance from a block's start to the next
/// one in the chunk (or to its end); the block sizes for a plain copy.
/// `head` starts with the header and, unless the chunk is a plain copy, the
/// block starts.
fn block_csizes(h: &ChunkHeader, head: &[u8], nblocks: usize, leftover: usize) -> Vec<i32> {
    let mut csizes = vec![0i32; nblocks];
    if h.flags & FLAG_MEMCPYED != 0 {
        csizes.fill(h.blocksize);
        if leftover > 0 {
            csizes[nblocks - 1] = leftover as i32;
        }
        return csizes;
    }
    let start = |j: usize| {
        let a = EXTENDED_HEADER_LENGTH + 4 * j;
        i32::from_le_bytes([head[a], head[a + 1], head[a + 2], head[a + 3]])
    };
    let mut starts: Vec<(i32, usize)> = (0..nblocks).map(|j| (start(j), j)).collect();
    starts.sort();
    for k in 0..nblocks {
        let next = starts.get(k + 1).map_or(h.cbytes, |s| s.0);
        csizes[starts[k].1] = next.wrapping_sub(starts[k].0);
    }
    csizes
}

impl Frame {
    /// Read `len` bytes at `pos` of the chunk stored at offset `off`.
    fn read_in_chunk(&self, off: i64, pos: u64, len: usize) -> Result<Vec<u8>> {
        if self.sparse_dir.is_some() {
            self.read_sparse_chunk_range(off, pos, len)
        } else {
            let at = self
                .header_len
                .checked_add(off as u64)
                .and_then(|a| a.checked_add(pos))
                .ok_or(Error::ReadBuffer)?;
            if at + len as u64 > self.header_len + self.section_len() {
                return Err(Error::ReadBuffer);
            }
            Ok(self.read_at(at, len as u64)?.into_owned())
        }
    }

    /// The lazy chunk of regular chunk `n` of a frame on disk (`None` for a
    /// frame in memory or a special chunk: the whole chunk serves then).
    /// `typesize` is the super-chunk's (for repeated-value chunks).
    pub fn lazy_chunk(&self, n: usize, typesize: i32) -> Result<Option<Vec<u8>>> {
        let off = *self.offsets.get(n).ok_or(Error::InvalidIndex)?;
        if self.memory_bytes().is_some() || off < 0 {
            return Ok(None);
        }
        let head = self.read_in_chunk(off, 0, EXTENDED_HEADER_LENGTH)?;
        let h = ChunkHeader::parse(&head)?;
        if (h.cbytes as usize) < EXTENDED_HEADER_LENGTH || !h.is_extended() {
            return Err(Error::InvalidHeader);
        }
        let cbytes = h.cbytes as usize;
        // The chunk must be stored whole: its cbytes then back the block
        // tables built below (docs/limits.md).
        let room = if self.sparse_dir.is_some() {
            self.sparse_chunk_size(off)?
        } else {
            self.section_len().saturating_sub(off as u64)
        };
        if cbytes as u64 > room {
            return Err(Error::InvalidHeader);
        }
        let (nblocks, leftover) = nblocks_of(&h)?;
        let special = (head[POS_BLOSC2_FLAGS] >> 4) & 0x7;
        let memcpyed = h.flags & FLAG_MEMCPYED != 0;
        if special == SPECIAL_VALUE {
            let n = EXTENDED_HEADER_LENGTH
                + usize::try_from(typesize).map_err(|_| Error::InvalidHeader)?;
            if typesize <= 0 || n > cbytes {
                return Err(Error::InvalidHeader);
            }
            return Ok(Some(self.read_in_chunk(off, 0, n)?));
        }
        if special != 0 {
            return Err(Error::InvalidHeader);
        }
        let bstarts_len = nblocks * 4;
        if !memcpyed && bstarts_len > cbytes - EXTENDED_HEADER_LENGTH {
            return Err(Error::InvalidHeader);
        }
        let trailer_at = EXTENDED_HEADER_LENGTH + bstarts_len;
        let streams_at = if memcpyed {
            EXTENDED_HEADER_LENGTH
        } else {
            trailer_at
        };
        let total = trailer_at + 12 + bstarts_len;
        alloc::check(total + 4 * nblocks, cbytes)?;
        let mut out = alloc::zeroed(total)?;
        out[..streams_at].copy_from_slice(&self.read_in_chunk(off, 0, streams_at)?);
        out[POS_BLOSC2_FLAGS] |= LAZY_FLAG;
        let (nchunk, where_) = if self.sparse_dir.is_some() {
            (off as i32, off)
        } else {
            (n as i32, self.header_len as i64 + off)
        };
        out[trailer_at..trailer_at + 4].copy_from_slice(&nchunk.to_le_bytes());
        out[trailer_at + 4..trailer_at + 12].copy_from_slice(&where_.to_le_bytes());
        let csizes = block_csizes(&h, &out, nblocks, leftover);
        let cs_at = total - bstarts_len;
        for (j, c) in csizes.iter().enumerate() {
            out[cs_at + 4 * j..cs_at + 4 * j + 4].copy_from_slice(&c.to_le_bytes());
        }
        Ok(Some(out))
    }

    /// The whole chunk a lazy chunk of this frame stands for.
    pub fn resolve_lazy(&self, lazy: &[u8]) -> Result<Vec<u8>> {
        let h = ChunkHeader::parse(lazy)?;
        if !h.lazy() || lazy.len() < EXTENDED_HEADER_LENGTH {
            return Err(Error::InvalidParam);
        }
        let (nblocks, leftover) = nblocks_of(&h)?;
        let t = EXTENDED_HEADER_LENGTH + 4 * nblocks;
        // The lazy chunk handed in must be whole: its trailer (nchunk,
        // offset and one compressed size per block) inside the bytes given,
        // as the reference checks before reading any block through it.
        if lazy.len() < t + 12 + 4 * nblocks {
            return Err(Error::ReadBuffer);
        }
        let nchunk = i32::from_le_bytes(lazy[t..t + 4].try_into().unwrap_or([0; 4]));
        let off = i64::from_le_bytes(lazy[t + 4..t + 12].try_into().unwrap_or([0; 8]));
        let cbytes = usize::try_from(h.cbytes).map_err(|_| Error::InvalidHeader)?;
        let full = if self.sparse_dir.is_some() {
            if nchunk < 0 || i64::from(nchunk) != off {
                return Err(Error::InvalidHeader);
            }
            self.read_sparse_chunk(off)?
        } else {
            let rel = off
                .checked_sub(self.header_len as i64)
                .filter(|r| *r >= 0)
                .ok_or(Error::InvalidHeader)?;
            self.read_in_chunk(rel, 0, cbytes)?
        };
        if full.len() != cbytes
            || full[..POS_BLOSC2_FLAGS] != lazy[..POS_BLOSC2_FLAGS]
            || full[POS_BLOSC2_FLAGS] | LAZY_FLAG != lazy[POS_BLOSC2_FLAGS]
        {
            return Err(Error::Data);
        }
        // The block sizes of the trailer must be the chunk's (the reference
        // reads the blocks through them and refuses a lazy chunk whose sizes
        // cannot hold its blocks).
        if h.flags & FLAG_MEMCPYED == 0 && full.len() < t {
            return Err(Error::InvalidHeader);
        }
        let csizes = block_csizes(&h, &full, nblocks, leftover);
        let trailer = lazy[t + 12..t + 12 + 4 * nblocks].chunks_exact(4);
        if !csizes
            .iter()
            .zip(trailer)
            .all(|(c, b)| c.to_le_bytes() == b)
        {
            return Err(Error::InvalidHeader);
        }
        Ok(full)
    }
}
