//! The filter pipeline for one block, forward (compression) and backward
//! (decompression).

use super::params::{CParams, Postfilter, PostfilterArgs, PrefilterArgs};
use super::user_filter;
use crate::codec::CallInfo;
use crate::error::{Error, Result};
use crate::filter;
use crate::format::header::{BITSHUFFLE, DELTA, MAX_FILTERS, NOFILTER, SHUFFLE, TRUNC_PREC};

pub use crate::aligned::AlignedBuf;

/// Which buffer holds the current stage.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    Src,
    A,
    B,
}

/// Three scratch buffers a block moves between.
#[derive(Default)]
pub struct Scratch {
    /// First buffer.
    pub a: AlignedBuf,
    /// Second buffer.
    pub b: AlignedBuf,
    /// Third buffer (decoded streams, prefilter scratch).
    pub c: AlignedBuf,
    /// The last [`forward`] left its block in `b` (else in `a` or the source).
    pub out_in_b: bool,
}

impl Scratch {
    /// Make every buffer at least `n` bytes; `MemoryAlloc` when the system
    /// cannot give them (`n` often comes from a chunk header).
    pub fn ensure(&mut self, n: usize) -> Result<()> {
        for v in [&mut self.a, &mut self.b, &mut self.c] {
            v.try_grow_to(n)?;
        }
        Ok(())
    }
}

/// Whether a compression pipeline does anything.
pub fn forward_is_noop(params: &CParams) -> bool {
    params.prefilter.is_none() && params.filters.iter().all(|&f| f == NOFILTER)
}

/// Run the forward pipeline on block `nblock` (bytes `offset..offset+bsize` of
/// `chunk_src`). Returns the filtered block, which lives either in `chunk_src` or
/// in one of the scratch buffers.
#[allow(clippy::too_many_arguments)]
pub fn forward<'s>(
    params: &CParams,
    typesize: usize,
    blocksize: usize,
    chunk_src: &'s [u8],
    offset: usize,
    bsize: usize,
    scratch: &'s mut Scratch,
    tid: i32,
) -> Result<&'s [u8]> {
    scratch.ensure(bsize.max(1))?;
    let Scratch { a, b, c, out_in_b } = scratch;
    let mut stage = Stage::Src;
    let block_src = &chunk_src[offset..offset + bsize];

    if let Some(pf) = &params.prefilter {
        let nelems = bsize / typesize.max(1);
        let out_ts = match pf.output_typesize() {
            0 => typesize as i32,
            t => t,
        };
        let out_size = nelems * out_ts as usize;
        a.grow_to(out_size.max(bsize));
        let disposable = pf.output_is_disposable();
        if !disposable {
            a[..out_size].fill(0);
        }
        let rc = pf.apply(PrefilterArgs {
            input: &chunk_src[offset..],
            output: &mut a[..],
            output_size: out_size as i32,
            output_typesize: out_ts,
            output_offset: offset as i32,
            nblock: (offset / blocksize.max(1)) as i32,
            nchunk: params.nchunk,
            tid,
            scratch: &mut c[..],
            output_is_disposable: disposable,
        });
        if rc != 0 && !disposable {
            return Err(Error::FilterPipeline);
        }
        stage = Stage::A;
    }

    for i in 0..MAX_FILTERS {
        let f = params.filters[i];
        if f == NOFILTER {
            continue;
        }
        let (input, output): (&[u8], &mut [u8]) = match stage {
            Stage::Src => (block_src, &mut a[..bsize]),
            Stage::A => (&a[..bsize], &mut b[..bsize]),
            Stage::B => (&b[..bsize], &mut a[..bsize]),
        };
        let meta = params.filters_meta[i];
        match f {
            SHUFFLE => {
                let ts = if meta == 0 { typesize } else { meta as usize };
                filter::shuffle(ts, input, output);
            }
            BITSHUFFLE => {
                filter::bitshuffle(typesize, input, output).map_err(|_| Error::FilterPipeline)?
            }
            DELTA => {
                // The reference block is the current stage of block 0 for block 0,
                // and the raw block 0 for the others.
                if offset == 0 {
                    filter::delta_encode(input, 0, typesize, input, output);
                } else {
                    let dref = &chunk_src[..bsize.min(chunk_src.len())];
                    filter::delta_encode(dref, offset, typesize, input, output);
                }
            }
            TRUNC_PREC => filter::truncate_precision(meta as i8, typesize, input, output)
                .map_err(|_| Error::FilterPipeline)?,
            id if id <= user_filter::DEFINED_FILTERS_STOP => return Err(Error::FilterPipeline),
            id => {
                let Some(uf) = user_filter::find(id) else {
                    return Err(Error::FilterPipeline);
                };
                let info = params.call_info(meta);
                if uf.plugin.forward(input, output, &info, id) != 0 {
                    return Err(Error::FilterPipeline);
                }
            }
        }
        stage = match stage {
            Stage::Src | Stage::B => Stage::A,
            Stage::A => Stage::B,
        };
    }
    *out_in_b = stage == Stage::B;
    Ok(match stage {
        Stage::Src => block_src,
        Stage::A => &a[..bsize],
        Stage::B => &b[..bsize],
    })
}

/// Whether a decompression pipeline has work besides delta.
pub fn backward_needs_tmp(filters: &[u8; MAX_FILTERS]) -> bool {
    filters
        .iter()
        .any(|&f| f != NOFILTER && f != TRUNC_PREC && f != DELTA)
}

/// Everything the backward pipeline needs to know about the chunk.
pub struct BackwardInfo<'a> {
    /// Filters.
    pub filters: [u8; MAX_FILTERS],
    /// Filter meta.
    pub filters_meta: [u8; MAX_FILTERS],
    /// Typesize from the header.
    pub typesize: usize,
    /// Chunk format version (bitshuffle changed behaviour after version 2).
    pub version: u8,
    /// Parameters for user filters.
    pub info: CallInfo,
    /// Postfilter.
    pub postfilter: Option<&'a dyn Postfilter>,
    /// Chunk index for postfilters.
    pub nchunk: i64,
    /// A shuffle that writes the final output may use non-temporal stores
    /// (the caller has ruled out delta and postfilters, which read it back).
    pub stream_out: bool,
}

/// Undo the filters for one block. `data` holds the decoded streams (it is
/// `out` itself when no filter needs a temporary). `dref` is block 0 of the
/// output, already fully decoded (None when this is block 0).
#[allow(clippy::too_many_arguments)]
pub fn backward(
    bi: &BackwardInfo,
    data_in_out: bool,
    out: &mut [u8],
    scratch_data: &mut [u8],
    scratch_other: &mut [u8],
    dref: Option<&[u8]>,
    offset: usize,
    nblock: usize,
    tid: i32,
) -> Result<()> {
    let bsize = out.len();
    // Stage: 0 = out, 1 = scratch_data, 2 = scratch_other
    let mut stage: u8 = if data_in_out { 0 } else { 1 };
    let ts = bi.typesize;
    // The last filter that moves bytes between buffers writes straight into
    // `out` (unless a postfilter still has to run), saving a block copy.
    let last_writer = if bi.postfilter.is_none() {
        (0..MAX_FILTERS).find(|&i| !matches!(bi.filters[i], NOFILTER | TRUNC_PREC | DELTA))
    } else {
        None
    };
    for i in (0..MAX_FILTERS).rev() {
        let f = bi.filters[i];
        if f == NOFILTER || f == TRUNC_PREC {
            continue;
        }
        if f == DELTA {
            let buf: &mut [u8] = match stage {
                0 => &mut out[..],
                1 => &mut scratch_data[..bsize],
                _ => &mut scratch_other[..bsize],
            };
            match dref {
                None => filter::delta_decode(&[], 0, ts, buf),
                Some(r) => filter::delta_decode(&r[..bsize.min(r.len())], offset, ts, buf),
            }
            continue;
        }
        // Every other filter reads one buffer and writes another; the final one
        // writes straight into `out` when no postfilter follows.
        let to_out = last_writer == Some(i) && stage != 0;
        let (input, output, next): (&[u8], &mut [u8], u8) = match (stage, to_out) {
            (0, _) => {
                scratch_data[..bsize].copy_from_slice(out);
                (&scratch_data[..bsize], &mut scratch_other[..bsize], 2)
            }
            (1, true) => (&scratch_data[..bsize], &mut out[..], 0),
            (1, false) => (&scratch_data[..bsize], &mut scratch_other[..bsize], 2),
            (_, true) => (&scratch_other[..bsize], &mut out[..], 0),
            (_, false) => (&scratch_other[..bsize], &mut scratch_data[..bsize], 1),
        };
        let meta = bi.filters_meta[i];
        match f {
            SHUFFLE => {
                let t = if meta == 0 { ts } else { meta as usize };
                if bi.stream_out && to_out {
                    filter::unshuffle_streaming(t, input, output);
                } else {
                    filter::unshuffle(t, input, output);
                }
            }
            BITSHUFFLE => {
                let nelems = bsize / ts.max(1);
                if bi.version == 2 && !nelems.is_multiple_of(8) {
                    output.copy_from_slice(input);
                } else if bi.stream_out && to_out {
                    filter::bitunshuffle_streaming(ts, input, output)
                        .map_err(|_| Error::FilterPipeline)?;
                } else {
                    filter::bitunshuffle(ts, input, output).map_err(|_| Error::FilterPipeline)?;
                }
            }
            id if id <= user_filter::DEFINED_FILTERS_STOP => return Err(Error::Failure),
            id => {
                let Some(uf) = user_filter::find(id) else {
                    return Err(Error::FilterPipeline);
                };
                let mut info = bi.info.clone();
                info.meta = meta;
                let rc = uf.plugin.backward(input, output, &info, id);
                if rc != 0 {
                    return Err(if rc < 0 {
                        Error::from_code(rc)
                    } else {
                        Error::FilterPipeline
                    });
                }
            }
        }
        stage = next;
    }
    let result: &[u8] = match stage {
        0 => {
            if bi.postfilter.is_some() {
                scratch_data[..bsize].copy_from_slice(out);
                &scratch_data[..bsize]
            } else {
                return Ok(());
            }
        }
        1 => &scratch_data[..bsize],
        _ => &scratch_other[..bsize],
    };
    match bi.postfilter {
        Some(pf) => {
            let mut scratch = Vec::new();
            let rc = pf.apply(PostfilterArgs {
                input: result,
                output: out,
                typesize: ts as i32,
                offset: offset as i32,
                nblock: nblock as i32,
                nchunk: bi.nchunk,
                tid,
                scratch: &mut scratch,
            });
            if rc != 0 {
                return Err(Error::Postfilter);
            }
        }
        None => out.copy_from_slice(result),
    }
    Ok(())
}
