//! A writer of Blosc1-format chunks (format version 2, 16-byte header), the
//! chunks Bloscpack files hold and that c-blosc 1.x (python-blosc 1.x) reads.
//!
//! The chunk engine writes Blosc2 chunks (format version 5 and later), which
//! c-blosc 1.x refuses, and may encode runs of one byte in ways it does not
//! know. This writer uses only what format version 2 has: byte or bit shuffle,
//! one stream per block or one per byte of the type, and streams that are
//! either compressed or stored raw.

use crate::chunk::blocksize::{compute_blocksize, split_block};
use crate::chunk::SplitMode;
use crate::codec::{self, blosclz, lz4, zlib, zstd};
use crate::error::{Error, Result};
use crate::format::header::{
    BITSHUFFLE, FLAG_DOBITSHUFFLE, FLAG_DONT_SPLIT, FLAG_DOSHUFFLE, FLAG_MEMCPYED, NOFILTER,
    SHUFFLE,
};

const HEADER: usize = 16;
const VERSION_FORMAT: u8 = 2;

/// Parameters of a Blosc1 chunk.
#[derive(Debug, Clone, Copy)]
pub struct Blosc1Params {
    /// Codec id (blosclz, lz4, lz4hc, zlib, zstd).
    pub compcode: u8,
    /// 0 (store) ..= 9.
    pub clevel: u8,
    /// Item size, 1..=255.
    pub typesize: usize,
    /// NOFILTER, SHUFFLE or BITSHUFFLE.
    pub filter: u8,
}

fn compformat_and_version(compcode: u8) -> Result<(u8, u8)> {
    // versionlz byte as c-blosc 1.x writes it: 1 for every codec.
    match compcode {
        codec::BLOSCLZ | codec::LZ4 | codec::LZ4HC | codec::ZLIB | codec::ZSTD => {
            Ok((codec::compformat(compcode), 1))
        }
        _ => Err(Error::CodecSupport),
    }
}

fn compress_stream(p: &Blosc1Params, src: &[u8], dest: &mut [u8]) -> usize {
    let clevel = p.clevel as i32;
    match p.compcode {
        codec::BLOSCLZ => blosclz::compress(clevel, src, dest),
        codec::LZ4 => lz4::compress(src, dest, 1, None),
        codec::LZ4HC => lz4::compress_hc(src, dest, clevel, None),
        codec::ZLIB => zlib::compress(src, dest, clevel, zlib::Layout::of(&[p.filter])),
        codec::ZSTD => zstd::compress(src, dest, clevel, None),
        _ => 0,
    }
}

fn memcpyed(header: &mut [u8; HEADER], src: &[u8]) -> Vec<u8> {
    // c-blosc 1.x keeps the block size it computed (at least 1) in a memcpyed header.
    header[2] |= FLAG_MEMCPYED;
    if header[8..12] == [0; 4] {
        let bs = if src.len() < header[3] as usize {
            1
        } else {
            src.len().max(1)
        };
        header[8..12].copy_from_slice(&(bs as u32).to_le_bytes());
    }
    header[12..16].copy_from_slice(&((src.len() + HEADER) as u32).to_le_bytes());
    let mut out = Vec::with_capacity(src.len() + HEADER);
    out.extend_from_slice(header);
    out.extend_from_slice(src);
    out
}

/// Compress `src` into one Blosc1 chunk.
pub fn compress(p: &Blosc1Params, src: &[u8]) -> Result<Vec<u8>> {
    if p.typesize == 0 || p.typesize > 255 || p.clevel > 9 {
        return Err(Error::InvalidParam);
    }
    if src.len() > (i32::MAX as usize) - HEADER {
        return Err(Error::MaxBufsizeExceeded);
    }
    let (compformat, versionlz) = compformat_and_version(p.compcode)?;
    let typesize = p.typesize;
    let filter_flag = match p.filter {
        NOFILTER => 0,
        SHUFFLE => FLAG_DOSHUFFLE,
        BITSHUFFLE => FLAG_DOBITSHUFFLE,
        _ => return Err(Error::InvalidParam),
    };
    let mut header = [0u8; HEADER];
    header[0] = VERSION_FORMAT;
    header[1] = versionlz;
    header[2] = filter_flag | (compformat << 5);
    header[3] = typesize as u8;
    header[4..8].copy_from_slice(&(src.len() as u32).to_le_bytes());
    if p.clevel == 0 || src.len() < typesize.max(HEADER) {
        return Ok(memcpyed(&mut header, src));
    }

    let nbytes = src.len() as i32;
    let blocksize = compute_blocksize(
        p.compcode,
        p.clevel as i32,
        typesize as i32,
        nbytes,
        0,
        SplitMode::ForwardCompat,
        filter_flag,
    )
    .clamp(1, nbytes) as usize;
    let split = split_block(
        SplitMode::ForwardCompat,
        p.compcode,
        p.clevel as i32,
        filter_flag,
        typesize as i32,
        blocksize as i32,
    );
    if !split {
        header[2] |= FLAG_DONT_SPLIT;
    }
    header[8..12].copy_from_slice(&(blocksize as u32).to_le_bytes());
    let nblocks = src.len().div_ceil(blocksize);
    let limit = src.len() + HEADER; // beyond this a memcpyed chunk is smaller
    let mut out = Vec::with_capacity(limit);
    out.extend_from_slice(&header);
    out.resize(HEADER + 4 * nblocks, 0);
    let mut filtered = vec![0u8; blocksize];
    let mut scratch = vec![0u8; blocksize];
    for j in 0..nblocks {
        let block = &src[j * blocksize..((j + 1) * blocksize).min(src.len())];
        let bsize = block.len();
        let start = out.len() as u32;
        out[HEADER + 4 * j..HEADER + 4 * j + 4].copy_from_slice(&start.to_le_bytes());
        let data: &[u8] = match p.filter {
            SHUFFLE if typesize > 1 => {
                crate::filter::shuffle(typesize, block, &mut filtered[..bsize]);
                &filtered[..bsize]
            }
            // Format version 2 bit-shuffles a block only when its number of
            // items is a multiple of 8; other blocks are left as they are.
            BITSHUFFLE if (bsize / typesize).is_multiple_of(8) => {
                crate::filter::bitshuffle(typesize, block, &mut filtered[..bsize])
                    .map_err(|_| Error::InvalidParam)?;
                &filtered[..bsize]
            }
            _ => block,
        };
        let leftover = bsize < blocksize;
        let nstreams = if split && !leftover { typesize } else { 1 };
        let neblock = bsize / nstreams;
        for s in 0..nstreams {
            let stream = &data[s * neblock..(s + 1) * neblock];
            let n = compress_stream(p, stream, &mut scratch[..neblock]);
            // A size equal to the stream's means "stored raw" to the reader.
            if n == 0 || n >= neblock {
                out.extend_from_slice(&(neblock as u32).to_le_bytes());
                out.extend_from_slice(stream);
            } else {
                out.extend_from_slice(&(n as u32).to_le_bytes());
                out.extend_from_slice(&scratch[..n]);
            }
        }
        if out.len() > limit {
            return Ok(memcpyed(&mut header, src));
        }
    }
    let ctbytes = out.len() as u32;
    out[12..16].copy_from_slice(&ctbytes.to_le_bytes());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::{decompress, DParams};

    #[test]
    fn round_trips_through_our_decoder() {
        let data: Vec<u8> = (0..300_001u32)
            .map(|i| ((i / 5) ^ (i >> 11)) as u8)
            .collect();
        for compcode in codec::BUILTIN {
            for filter in [NOFILTER, SHUFFLE, BITSHUFFLE] {
                for typesize in [1usize, 2, 3, 4, 8, 16, 255] {
                    for clevel in [0u8, 1, 5, 9] {
                        for len in [0usize, 1, 15, 16, 100, 4099, data.len()] {
                            let p = Blosc1Params {
                                compcode,
                                clevel,
                                typesize,
                                filter,
                            };
                            let c = compress(&p, &data[..len]).unwrap();
                            assert_eq!(c[0], 2);
                            let back = decompress(&DParams::default(), &c).unwrap();
                            assert!(back == data[..len], "{p:?} len {len}");
                        }
                    }
                }
            }
        }
    }
}
