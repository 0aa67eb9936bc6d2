//! A chunk's header and tables checked against its bytes: what every
//! decoding path (whole chunk, item range, split block) starts from.

use crate::codec::{self, DecompressDict};
use crate::error::{Error, Result};
use crate::format::header::*;

/// A chunk whose header and tables have been checked against its bytes.
pub(crate) struct Parsed<'a> {
    pub h: ChunkHeader,
    /// The chunk, cut to `cbytes`.
    pub src: &'a [u8],
    pub overhead: usize,
    pub typesize: usize,
    pub blocksize: usize,
    pub nblocks: usize,
    pub leftover: usize,
    pub special: Special,
    pub memcpyed: bool,
    pub dict: Option<DecompressDict<'a>>,
    /// Write the destination (unshuffle, stored data) with streaming
    /// (non-temporal) stores: set by [`decompress`] for large chunks, see
    /// [`super::stream_min_bytes`].
    pub stream_out: bool,
}

impl Parsed<'_> {
    pub fn block_size(&self, j: usize) -> (usize, bool) {
        if j + 1 == self.nblocks && self.leftover > 0 {
            (self.leftover, true)
        } else {
            (self.blocksize, false)
        }
    }
    pub(super) fn bstart(&self, j: usize) -> usize {
        let at = self.overhead + 4 * j;
        i32::from_le_bytes(self.src[at..at + 4].try_into().unwrap_or([0; 4])) as usize
    }
}

/// Parse and check a regular (not VL-block) chunk.
pub(crate) fn parse(src: &[u8]) -> Result<Parsed<'_>> {
    let h = ChunkHeader::parse(src)?;
    check_header(&h, src)?;
    let mut p = Parsed::from_checked_header(h, src);
    check_tables(&mut p)?;
    Ok(p)
}

/// The checks of a chunk that come before its [`Parsed`] can be built
/// (for a caller that has already run `ChunkHeader::parse(src)`).
///
/// [`parse`] in three steps, for [`super::decompress::decompress`], which
/// runs on every call:
/// a `Result<Parsed>` built in one function and moved out of it costs a
/// store-forwarding stall per call (the move reads 16 bytes at a time what
/// was written a field at a time just before), about a third of the fixed
/// cost of a 4 KiB chunk; built by an infallible function, `Parsed` is
/// written in place.
#[inline(always)]
pub(super) fn check_header(h: &ChunkHeader, src: &[u8]) -> Result<()> {
    if h.lazy() {
        // Lazy chunks only make sense inside a frame on disk.
        return Err(Error::InvalidParam);
    }
    if h.cbytes as usize > src.len() {
        return Err(Error::InvalidHeader);
    }
    if h.special().is_none() {
        return Err(Error::Data);
    }
    // A plain copy must hold exactly its bytes (also when a special-value bit is
    // set too: such headers are contradictory and the reference refuses them).
    if h.memcpyed() && h.cbytes as usize != h.nbytes as usize + h.overhead() {
        return Err(Error::Data);
    }
    Ok(())
}

impl<'a> Parsed<'a> {
    /// The fields of a chunk whose header passed [`check_header`]; no
    /// dictionary yet (see [`check_tables`]).
    #[inline(always)]
    pub(super) fn from_checked_header(h: ChunkHeader, src: &'a [u8]) -> Self {
        let nbytes = h.nbytes as usize;
        let blocksize = h.blocksize as usize;
        // Both fit in 31 bits (checked by the header parser); 32-bit division is
        // the cheaper instruction, and this runs on every call.
        let (nblocks, leftover) = {
            let (n, b) = (nbytes as u32, blocksize as u32);
            (n.div_ceil(b) as usize, (n % b) as usize)
        };
        Parsed {
            h,
            src: &src[..(h.cbytes as usize).min(src.len())],
            overhead: h.overhead(),
            typesize: h.typesize as usize,
            blocksize,
            nblocks,
            leftover,
            // check_header refused the headers without one.
            special: h.special().unwrap_or(Special::None),
            memcpyed: h.memcpyed(),
            dict: None,
            stream_out: false,
        }
    }
}

/// The dictionary stored at `src[at..]` (an int32 size, then the bytes)
/// of a chunk whose codec format is `compformat`, checked: the size within
/// 1..=`MAX_DICT_SIZE` (`CodecDict`), the bytes inside `src`
/// (`ReadBuffer`), and for zstd a dictionary zstd accepts. Regular and
/// VL-block chunks store it the same way, after their block starts.
pub(super) fn read_dict(src: &[u8], at: usize, compformat: u8) -> Result<DecompressDict<'_>> {
    if src.len() < at + 4 {
        return Err(Error::ReadBuffer);
    }
    let dsize = i32::from_le_bytes(src[at..at + 4].try_into().unwrap_or([0; 4]));
    if dsize <= 0 || dsize > MAX_DICT_SIZE {
        return Err(Error::CodecDict);
    }
    let dsize = dsize as usize;
    if src.len() < at + 4 + dsize {
        return Err(Error::ReadBuffer);
    }
    let bytes = &src[at + 4..at + 4 + dsize];
    let zstd = if compformat == codec::FORMAT_ZSTD {
        Some(codec::zstd::ddict(bytes).ok_or(Error::CodecDict)?)
    } else {
        None
    };
    Ok(DecompressDict { bytes, zstd })
}

/// The checks of a chunk's block-start table and dictionary, which set
/// `p.dict`: the last step of [`parse`].
#[inline(always)]
pub(super) fn check_tables(p: &mut Parsed) -> Result<()> {
    let (src, overhead, nblocks) = (p.src, p.overhead, p.nblocks);
    if p.special != Special::None || p.memcpyed || p.h.nbytes == 0 {
        return Ok(());
    }
    let bstarts_end = overhead
        .checked_add(nblocks.checked_mul(4).ok_or(Error::InvalidHeader)?)
        .ok_or(Error::InvalidHeader)?;
    if bstarts_end > src.len() {
        return Err(Error::ReadBuffer);
    }
    if p.h.use_dict() {
        p.dict = Some(read_dict(src, bstarts_end, p.h.compformat())?);
    }
    for j in 0..nblocks {
        let b = p.bstart(j);
        if b == 0 || b >= src.len() || (b as i32) < 0 {
            return Err(Error::Data);
        }
    }
    Ok(())
}
