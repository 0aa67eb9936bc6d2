//! Special-value chunks: a header that stands for a whole chunk of zeros, NaNs,
//! uninitialized bytes or one repeated value.

use super::blocksize::compute_blocksize;
use super::params::CParams;
use crate::codec;
use crate::error::{Error, Result};
use crate::format::header::*;

fn special_header(
    params: &CParams,
    nbytes: i32,
    kind: Special,
    cbytes: usize,
) -> Result<ChunkHeader> {
    if params.typesize <= 0 || params.typesize > MAX_TYPESIZE {
        return Err(Error::InvalidParam);
    }
    if !(0..=MAX_BUFFERSIZE).contains(&nbytes) {
        return Err(Error::MaxBufsizeExceeded);
    }
    let mut typesize = params.typesize;
    if typesize > 255 {
        typesize = 1;
    }
    let blocksize = compute_blocksize(
        params.compcode,
        params.clevel as i32,
        typesize,
        nbytes,
        params.blocksize,
        params.splitmode,
        filters_to_flags(&params.filters),
    );
    Ok(ChunkHeader {
        version: VERSION_FORMAT_STABLE,
        versionlz: 1,
        flags: FLAG_DOSHUFFLE | FLAG_DOBITSHUFFLE,
        typesize: typesize as u8,
        nbytes,
        blocksize: blocksize.max(if nbytes == 0 { 0 } else { 1 }),
        cbytes: cbytes as i32,
        blosc2_flags: (kind as u8) << 4,
        ..Default::default()
    })
}

/// Write a chunk of `nbytes` zeros, NaNs or uninitialized bytes into `dest`.
pub fn chunk_special(
    params: &CParams,
    nbytes: i32,
    kind: Special,
    dest: &mut [u8],
) -> Result<usize> {
    if dest.len() < EXTENDED_HEADER_LENGTH {
        return Err(Error::Data);
    }
    if params.typesize <= 0 {
        return Err(Error::InvalidParam);
    }
    let ts = params.typesize;
    match kind {
        Special::Nan => {
            if ts != 4 && ts != 8 {
                return Err(Error::InvalidParam);
            }
            if nbytes % ts != 0 {
                return Err(Error::Data);
            }
        }
        Special::Zero => {
            if nbytes > 0 && nbytes % ts != 0 {
                return Err(Error::Data);
            }
        }
        _ => {
            if nbytes % ts != 0 {
                return Err(Error::Data);
            }
        }
    }
    let _ = codec::BLOSCLZ;
    let mut h = special_header(params, nbytes, kind, EXTENDED_HEADER_LENGTH)?;
    if h.blocksize == 0 {
        h.blocksize = 1;
    }
    h.write(dest, true);
    Ok(EXTENDED_HEADER_LENGTH)
}

/// Write a chunk where `value` (one item of typesize bytes) repeats.
pub fn chunk_repeatval(
    params: &CParams,
    nbytes: i32,
    value: &[u8],
    dest: &mut [u8],
) -> Result<usize> {
    let ts = params.typesize;
    if ts <= 0 || value.len() < ts as usize {
        return Err(Error::InvalidParam);
    }
    let total = EXTENDED_HEADER_LENGTH + ts as usize;
    if dest.len() < total {
        return Err(Error::Data);
    }
    if nbytes % ts != 0 {
        return Err(Error::Data);
    }
    let mut h = special_header(params, nbytes, Special::Value, total)?;
    if h.blocksize == 0 {
        h.blocksize = 1;
    }
    h.write(dest, true);
    dest[EXTENDED_HEADER_LENGTH..total].copy_from_slice(&value[..ts as usize]);
    Ok(total)
}
