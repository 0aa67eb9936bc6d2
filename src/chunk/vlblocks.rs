//! VL-block chunks: each block comes from its own buffer and has its own size.
//!
//! Layout: the 32-byte header (version 6, flags2 bit 0 set, the blocksize field
//! holding the number of blocks), `nblocks` int32 block starts, an optional
//! dictionary (int32 size + bytes), then per block an int32 holding the block's
//! uncompressed size followed by its single compressed stream. A block's
//! compressed span runs to the next block start (or to cbytes).

use super::params::{CParams, DParams};
use super::pipeline::{self, BackwardInfo, Scratch};
use crate::codec::{self, CallInfo, CompressDict, DecompressDict};
use crate::error::{Error, Result};
use crate::format::header::*;

/// A parsed VL-block chunk.
pub struct VlChunk<'a> {
    h: ChunkHeader,
    src: &'a [u8],
    /// (bstart, nbytes, span) per block.
    blocks: Vec<(usize, usize, usize)>,
    dict: Option<DecompressDict<'a>>,
}

impl<'a> VlChunk<'a> {
    /// Parse and check a VL-block chunk.
    pub fn parse(src: &'a [u8]) -> Result<VlChunk<'a>> {
        let h = ChunkHeader::parse(src)?;
        if !h.vlblocks() {
            return Err(Error::InvalidParam);
        }
        if h.lazy() {
            return Err(Error::InvalidParam);
        }
        let cbytes = h.cbytes as usize;
        if cbytes > src.len() {
            return Err(Error::InvalidHeader);
        }
        let src = &src[..cbytes];
        let nblocks = h.blocksize as usize;
        let bstarts_end = EXTENDED_HEADER_LENGTH + 4 * nblocks;
        if bstarts_end > src.len() {
            return Err(Error::ReadBuffer);
        }
        let rd = |at: usize| i32::from_le_bytes(src[at..at + 4].try_into().unwrap_or([0; 4]));
        let dict = if h.use_dict() {
            Some(super::parsed::read_dict(src, bstarts_end, h.compformat())?)
        } else {
            None
        };
        // Each block takes room in `src` (its start, size and stream).
        let mut blocks = crate::alloc::vec_within(nblocks, src.len())?;
        let mut total = 0usize;
        let mut prev = 0usize;
        for i in 0..nblocks {
            let b = rd(EXTENDED_HEADER_LENGTH + 4 * i);
            let next = if i + 1 < nblocks {
                rd(EXTENDED_HEADER_LENGTH + 4 * (i + 1))
            } else {
                cbytes as i32
            };
            if b < bstarts_end as i32 || (b as usize) <= prev || next <= b || next as usize > cbytes
            {
                return Err(Error::InvalidHeader);
            }
            let (b, next) = (b as usize, next as usize);
            // The block's room must hold at least its 4-byte size.
            if b + 4 > next {
                return Err(Error::InvalidHeader);
            }
            let n = rd(b);
            if n <= 0 {
                return Err(Error::InvalidHeader);
            }
            total += n as usize;
            if total > h.nbytes as usize {
                return Err(Error::InvalidHeader);
            }
            blocks.push((b, n as usize, next - b));
            prev = b;
        }
        if total != h.nbytes as usize {
            return Err(Error::InvalidHeader);
        }
        Ok(VlChunk {
            h,
            src,
            blocks,
            dict,
        })
    }

    /// Number of blocks.
    pub fn nblocks(&self) -> usize {
        self.blocks.len()
    }

    /// Uncompressed size of each block.
    pub fn block_sizes(&self) -> Vec<usize> {
        self.blocks.iter().map(|b| b.1).collect()
    }

    /// Decode block `j` into `out` (exactly its size).
    pub fn decode_block(&self, dparams: &DParams, j: usize, out: &mut [u8]) -> Result<()> {
        let (bstart, nbytes, span) = *self.blocks.get(j).ok_or(Error::InvalidParam)?;
        if out.len() != nbytes {
            return Err(Error::WriteBuffer);
        }
        let (filters, filters_meta) = self.h.decode_pipeline();
        let postfilter = dparams
            .postfilter
            .as_deref()
            .filter(|_| !self.h.instrumented());
        let plain =
            filters.iter().all(|&f| f == NOFILTER || f == TRUNC_PREC) && postfilter.is_none();
        let needs_tmp = pipeline::backward_needs_tmp(&filters) || postfilter.is_some();
        // Scratch room only where the filters run: a plain block decodes
        // straight into `out`.
        let mut scratch = Scratch::default();
        if !plain {
            scratch.ensure(nbytes)?;
        }
        let Scratch { a, b, .. } = &mut scratch;
        let info = CallInfo {
            meta: self.h.compcode_meta,
            compcode: self.h.udcompcode,
            typesize: dparams.typesize,
            blocksize: nbytes as i32,
            nthreads: dparams.nthreads,
            schunk: dparams.schunk.clone(),
            array: dparams.array,
            ..Default::default()
        };
        {
            let target: &mut [u8] = if needs_tmp {
                &mut a[..nbytes]
            } else {
                &mut out[..]
            };
            let stream = &self.src[bstart + 4..bstart + span];
            if stream.len() == nbytes {
                target.copy_from_slice(stream);
            } else {
                codec::decompress_stream(
                    self.h.compformat(),
                    self.h.udcompcode,
                    stream,
                    target,
                    self.dict.as_ref(),
                    &info,
                    self.src,
                )?;
            }
        }
        if plain {
            return Ok(());
        }
        let bi = BackwardInfo {
            filters,
            filters_meta,
            typesize: self.h.typesize as usize,
            version: self.h.version,
            info,
            postfilter,
            nchunk: dparams.nchunk,
            stream_out: false,
        };
        pipeline::backward(&bi, !needs_tmp, out, &mut a[..], &mut b[..], None, 0, j, 0)
    }
}

/// Decompress every block, back to back, into `dest`.
pub fn decompress_all(dparams: &DParams, src: &[u8], dest: &mut [u8]) -> Result<usize> {
    let vl = VlChunk::parse(src)?;
    let nbytes = vl.h.nbytes as usize;
    if nbytes > dest.len() {
        return Err(Error::WriteBuffer);
    }
    let mut at = 0;
    for j in 0..vl.nblocks() {
        let n = vl.blocks[j].1;
        vl.decode_block(dparams, j, &mut dest[at..at + n])?;
        at += n;
    }
    Ok(at)
}

/// Decompress each block into its own vector. A chunk of more than
/// `max_blocks` blocks is `InvalidParam` (the caller has room for no more).
pub fn decompress_blocks(dparams: &DParams, src: &[u8], max_blocks: usize) -> Result<Vec<Vec<u8>>> {
    decompress_blocks_into(dparams, src, max_blocks, crate::alloc::zeroed)
}

/// [`decompress_blocks`] into buffers that `zeroed(n)` gives: all-zero,
/// `n` bytes long (the C layer hands malloc'ed ones to its caller). The
/// buffers are asked for one at a time, each just before its block is
/// decoded, so a chunk that fails half-way has not claimed the rest.
pub fn decompress_blocks_into<B: AsMut<[u8]>>(
    dparams: &DParams,
    src: &[u8],
    max_blocks: usize,
    mut zeroed: impl FnMut(usize) -> Result<B>,
) -> Result<Vec<B>> {
    if nblocks(src)? > max_blocks {
        return Err(Error::InvalidParam);
    }
    let vl = VlChunk::parse(src)?;
    let mut out = Vec::with_capacity(vl.nblocks());
    for j in 0..vl.nblocks() {
        // The sizes the chunk claims (they add up to its nbytes).
        let mut buf = zeroed(vl.blocks[j].1)?;
        vl.decode_block(dparams, j, buf.as_mut())?;
        out.push(buf);
    }
    Ok(out)
}

/// Decompress block `j` alone into a vector of the size the chunk gives it;
/// an index past the last block is `InvalidParam`.
pub fn decompress_block(dparams: &DParams, src: &[u8], j: usize) -> Result<Vec<u8>> {
    decompress_block_into(dparams, src, j, crate::alloc::zeroed)
}

/// [`decompress_block`] into the buffer `zeroed(n)` gives (as in
/// [`decompress_blocks_into`]).
pub fn decompress_block_into<B: AsMut<[u8]>>(
    dparams: &DParams,
    src: &[u8],
    j: usize,
    zeroed: impl FnOnce(usize) -> Result<B>,
) -> Result<B> {
    let vl = VlChunk::parse(src)?;
    if j >= vl.nblocks() {
        return Err(Error::InvalidParam);
    }
    let mut block = zeroed(vl.blocks[j].1)?;
    vl.decode_block(dparams, j, block.as_mut())?;
    Ok(block)
}

/// Number of blocks in a VL-block chunk.
pub fn nblocks(src: &[u8]) -> Result<usize> {
    let h = ChunkHeader::parse(src)?;
    if !h.vlblocks() {
        return Err(Error::InvalidParam);
    }
    Ok(h.blocksize as usize)
}

fn compress_block(
    params: &CParams,
    typesize: usize,
    block: &[u8],
    out: &mut [u8],
    dict: Option<&CompressDict>,
    training: bool,
) -> Result<Option<usize>> {
    let mut scratch = Scratch::default();
    let filtered: &[u8] = if pipeline::forward_is_noop(params) {
        block
    } else {
        pipeline::forward(
            params,
            typesize,
            block.len(),
            block,
            0,
            block.len(),
            &mut scratch,
            0,
        )?
    };
    let n = filtered.len();
    if training {
        if out.len() < n {
            return Ok(None);
        }
        out[..n].copy_from_slice(filtered);
        return Ok(Some(n));
    }
    if out.len() < 4 {
        return Ok(None);
    }
    out[..4].copy_from_slice(&(n as i32).to_le_bytes());
    let room = out.len() - 4;
    let maxout = n.min(room);
    let mut cbytes = 0;
    if params.clevel > 0 && maxout > 0 {
        let info = params.call_info(params.compcode_meta);
        cbytes = codec::compress_stream(
            params.compcode,
            params.clevel as i32,
            filtered,
            &mut out[4..4 + maxout],
            dict,
            &info,
            block,
        )?;
    }
    if cbytes == 0 || cbytes >= n {
        if room < n {
            return Ok(None);
        }
        out[4..4 + n].copy_from_slice(filtered);
        cbytes = n;
    }
    Ok(Some(4 + cbytes))
}

/// Compress `blocks` into one VL-block chunk. Returns the chunk size, or 0
/// when it does not fit in `dest`. The blocks are checked in order: an empty
/// one is `InvalidParam`, and so is an empty list; once the sizes so far add
/// up past `BLOSC2_MAX_BUFFERSIZE` it is `MaxBufsizeExceeded`.
pub fn compress(params: &CParams, blocks: &[&[u8]], dest: &mut [u8]) -> Result<usize> {
    if blocks.is_empty() {
        return Err(Error::InvalidParam);
    }
    let mut total = 0usize;
    for b in blocks {
        if b.is_empty() {
            return Err(Error::InvalidParam);
        }
        total += b.len();
        if total > MAX_BUFFERSIZE as usize {
            return Err(Error::MaxBufsizeExceeded);
        }
    }
    super::compress::validate(params, total, dest.len())?;
    let nblocks = blocks.len();
    let typesize = if params.typesize > 255 {
        1
    } else {
        params.typesize
    } as usize;
    let filter_flags = filters_to_flags(&params.filters);
    let mut header = ChunkHeader {
        version: VERSION_FORMAT_VL_BLOCKS,
        versionlz: codec::compversion(params.compcode).unwrap_or(1),
        flags: FLAG_DOSHUFFLE
            | FLAG_DOBITSHUFFLE
            | filter_flags
            | FLAG_DONT_SPLIT
            | (codec::compformat(params.compcode) << 5),
        typesize: typesize as u8,
        nbytes: total as i32,
        blocksize: nblocks as i32,
        cbytes: 0,
        filters: params.filters,
        udcompcode: params.compcode,
        compcode_meta: params.compcode_meta,
        filters_meta: params.filters_meta,
        blosc2_flags2: B2_VL_BLOCKS,
        blosc2_flags: 0,
    };
    let bstarts_end = EXTENDED_HEADER_LENGTH + 4 * nblocks;
    if bstarts_end > dest.len() {
        return Ok(0);
    }
    let mut pos = bstarts_end;
    let mut dict = None;
    if params.use_dict && params.clevel > 0 {
        dict = build_dict(params, typesize, blocks, total)?;
        if let Some(d) = &dict {
            let n = d.bytes.len();
            if pos + 4 + n > dest.len() {
                dict = None;
            } else {
                dest[pos..pos + 4].copy_from_slice(&(n as i32).to_le_bytes());
                dest[pos + 4..pos + 4 + n].copy_from_slice(&d.bytes);
                pos += 4 + n;
                header.blosc2_flags |= B2_USEDICT;
            }
        }
    }
    for (j, b) in blocks.iter().enumerate() {
        let at = EXTENDED_HEADER_LENGTH + 4 * j;
        dest[at..at + 4].copy_from_slice(&(pos as i32).to_le_bytes());
        match compress_block(params, typesize, b, &mut dest[pos..], dict.as_ref(), false)? {
            Some(n) => pos += n,
            None => return Ok(0),
        }
    }
    header.cbytes = pos as i32;
    header.write(dest, true);
    Ok(pos)
}

fn build_dict(
    params: &CParams,
    typesize: usize,
    blocks: &[&[u8]],
    total: usize,
) -> Result<Option<CompressDict>> {
    let dict_maxsize = (MAX_DICT_SIZE as usize).min(total / 20);
    let nblocks = blocks.len();
    if dict_maxsize < MIN_USEFUL_DICT as usize || nblocks < 8 || total / nblocks / 16 == 0 {
        return Ok(None);
    }
    let mut samples = vec![0u8; total];
    let mut sizes = Vec::with_capacity(nblocks);
    let mut at = 0;
    for b in blocks {
        let n = compress_block(params, typesize, b, &mut samples[at..], None, true)?.unwrap_or(0);
        sizes.push(n);
        at += n;
    }
    let bytes = if params.compcode == codec::ZSTD {
        match codec::zstd::train(&samples[..at], &sizes, dict_maxsize) {
            Some(d) => d,
            None => return Ok(None),
        }
    } else {
        samples[..at.min(dict_maxsize)].to_vec()
    };
    let zstd = if params.compcode == codec::ZSTD {
        Some(codec::zstd::cdict(&bytes).ok_or(Error::CodecDict)?)
    } else {
        None
    };
    Ok(Some(CompressDict { bytes, zstd }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vl_round_trip() {
        let blocks: Vec<Vec<u8>> = (1..20usize)
            .map(|i| (0..i * 997).map(|k| ((k * i) % 251) as u8).collect())
            .collect();
        let refs: Vec<&[u8]> = blocks.iter().map(|b| b.as_slice()).collect();
        for compcode in [codec::BLOSCLZ, codec::LZ4, codec::ZSTD] {
            for use_dict in [false, true] {
                let params = CParams {
                    compcode,
                    use_dict: use_dict && compcode != codec::BLOSCLZ,
                    typesize: 1,
                    ..CParams::default()
                };
                let mut dest = vec![0u8; 1 << 20];
                let n = compress(&params, &refs, &mut dest).unwrap();
                assert!(n > 0);
                assert_eq!(nblocks(&dest[..n]).unwrap(), blocks.len());
                let back = decompress_blocks(&DParams::default(), &dest[..n], 19).unwrap();
                assert_eq!(
                    decompress_blocks(&DParams::default(), &dest[..n], 18).err(),
                    Some(Error::InvalidParam)
                );
                for j in [0, 18] {
                    let one = decompress_block(&DParams::default(), &dest[..n], j).unwrap();
                    assert!(one == blocks[j]);
                }
                assert_eq!(
                    decompress_block(&DParams::default(), &dest[..n], 19).err(),
                    Some(Error::InvalidParam)
                );
                assert!(back == blocks, "compcode {compcode} dict {use_dict}");
                let mut all = vec![0u8; blocks.iter().map(|b| b.len()).sum()];
                decompress_all(&DParams::default(), &dest[..n], &mut all).unwrap();
                assert!(all == blocks.concat());
            }
        }
    }

    #[test]
    fn a_block_with_less_room_than_its_size_field_is_refused() {
        // A fuzzer's input whose bstarts leave a block less than the 4
        // bytes of its size field before the next block starts.
        let src =
            include_bytes!("../../fuzz/regressions/vlchunk/block-shorter-than-its-size-field");
        let n = nblocks(src).unwrap_or(0);
        for j in [0, 1, n.saturating_sub(1), n] {
            assert!(decompress_block(&DParams::default(), src, j).is_err());
        }
        assert!(VlChunk::parse(src).is_err());
    }

    #[test]
    fn compress_checks_the_blocks_in_order() {
        let mut dest = vec![0u8; 1024];
        let p = CParams::default();
        let ok = [1u8; 8];
        assert_eq!(compress(&p, &[], &mut dest), Err(Error::InvalidParam));
        assert_eq!(
            compress(&p, &[&ok, &[]], &mut dest),
            Err(Error::InvalidParam)
        );
    }
}
