//! Chunk decompression.

use super::params::DParams;
use super::parsed::{check_header, check_tables, Parsed};
use super::pipeline::{self, BackwardInfo, Scratch};
use crate::codec::{self, CallInfo};
use crate::error::{Error, FirstError, Result};
use crate::format::header::*;
use std::cell::RefCell;

thread_local! {
    pub(super) static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

pub(super) fn fill_special(p: &Parsed, out: &mut [u8]) -> Result<()> {
    match p.special {
        Special::Zero => out.fill(0),
        Special::Uninit => {}
        Special::Nan => match p.typesize {
            4 => {
                if !out.len().is_multiple_of(4) {
                    return Err(Error::Data);
                }
                for c in out.chunks_exact_mut(4) {
                    c.copy_from_slice(&f32::NAN.to_le_bytes());
                }
            }
            8 => {
                if !out.len().is_multiple_of(8) {
                    return Err(Error::Data);
                }
                for c in out.chunks_exact_mut(8) {
                    c.copy_from_slice(&f64::NAN.to_le_bytes());
                }
            }
            _ => return Err(Error::Data),
        },
        Special::Value => {
            let ts = p.src.len() - p.overhead;
            let val = &p.src[p.overhead..];
            if ts == 0 || !out.len().is_multiple_of(ts) {
                return Err(Error::Data);
            }
            for c in out.chunks_exact_mut(ts) {
                c.copy_from_slice(val);
            }
        }
        Special::None => {}
    }
    Ok(())
}

fn call_info(p: &Parsed, dparams: &DParams, filters: [u8; 6]) -> CallInfo {
    CallInfo {
        filters,
        meta: p.h.compcode_meta,
        compcode: p.h.udcompcode,
        typesize: dparams.typesize,
        clevel: 0,
        blocksize: p.blocksize as i32,
        nthreads: dparams.nthreads,
        schunk: dparams.schunk.clone(),
        array: dparams.array,
        ..Default::default()
    }
}

/// Whether every block of `p` is one stream with no filter to undo and no
/// postfilter to run, written straight to the output with plain stores: the
/// chunks [`decode_plain`] takes (no shuffle, as most codecs write them
/// without one; stored incompressible data).
fn is_plain(p: &Parsed, dparams: &DParams) -> bool {
    p.special == Special::None
        && !p.memcpyed
        && !p.stream_out
        && dparams.postfilter.is_none()
        && (p.h.dont_split() || p.typesize == 1)
        && p.h
            .decode_pipeline()
            .0
            .iter()
            .all(|&f| f == NOFILTER || f == TRUNC_PREC)
}

/// Decode a chunk that [`is_plain`] on the calling thread, block by block
/// straight into `dest` (its `nbytes`): what [`decode_block`] does for such
/// chunks, in the same order and with the same checks, without its scratch
/// buffers and per-block set-up, which cost as much as copying a few KiB
/// (docs/performance.md, session 21, "Plain chunks").
fn decode_plain(p: &Parsed, dparams: &DParams, dest: &mut [u8]) -> Result<()> {
    // Built for the first coded stream: stored blocks need none, and it is a
    // few hundred bytes to fill.
    let mut info = None;
    for (j, out) in dest.chunks_mut(p.blocksize).enumerate() {
        let (stream, _) = next_stream(&p.src[p.bstart(j)..], out.len())?;
        let slot = &mut info;
        // Plain stores: `is_plain` leaves streamed chunks to `decode_block`.
        put_stream(
            p,
            || &*slot.get_or_insert_with(|| call_info(p, dparams, p.h.decode_pipeline().0)),
            false,
            stream,
            out,
        )?;
    }
    Ok(())
}

/// Decode block `j` into `out` (exactly the block's size).
pub(super) fn decode_block(
    p: &Parsed,
    dparams: &DParams,
    j: usize,
    out: &mut [u8],
    dref: Option<&[u8]>,
    scratch: &mut Scratch,
    tid: i32,
) -> Result<()> {
    let (bsize, leftover_block) = p.block_size(j);
    debug_assert_eq!(out.len(), bsize);
    let offset = j * p.blocksize;
    if p.special != Special::None || p.memcpyed {
        let data: &[u8] = if p.special != Special::None {
            scratch.ensure(bsize)?;
            fill_special(p, &mut scratch.a[..bsize])?;
            &scratch.a[..bsize]
        } else {
            let at = p.overhead + offset;
            if p.src.len() < at + bsize {
                return Err(Error::ReadBuffer);
            }
            &p.src[at..at + bsize]
        };
        if let Some(pf) = dparams.postfilter.as_deref() {
            let mut tmp = Vec::new();
            let rc = pf.apply(super::params::PostfilterArgs {
                input: data,
                output: out,
                typesize: p.typesize as i32,
                offset: offset as i32,
                nblock: j as i32,
                nchunk: dparams.nchunk,
                tid,
                scratch: &mut tmp,
            });
            if rc != 0 {
                return Err(Error::Postfilter);
            }
        } else if p.special == Special::Uninit {
            // Nothing to write: the values are undefined.
        } else {
            super::copy_bytes(data, out);
        }
        return Ok(());
    }
    let lay = Layout::new(p, dparams, bsize, leftover_block)?;
    scratch.ensure(bsize + DECODE_ROOM)?;
    let Scratch { a, b, .. } = scratch;
    if lay.shuffle_rows {
        return decode_shuffled_rows(p, &lay, j, out, &mut a[..bsize + DECODE_ROOM]);
    }
    if lay.in_tmp {
        write_streams_with_room(p, &lay, j, &mut a[..bsize + DECODE_ROOM], |_, _| true)?;
    } else {
        let mut src = &p.src[p.bstart(j)..];
        for dst in lay.slots_mut(out) {
            let (stream, rest) = next_stream(src, lay.neblock)?;
            src = rest;
            write_stream(p, &lay, stream, dst)?;
        }
    }
    finish_block(p, dparams, &lay, j, out, a, b, dref, tid)
}

/// Whether the pipeline `filters` only byte-shuffles by `typesize` (the
/// element size of a block split into `typesize` streams); a precision
/// truncation needs nothing undone.
fn shuffles_streams_only(
    filters: &[u8; MAX_FILTERS],
    filters_meta: &[u8; MAX_FILTERS],
    typesize: usize,
) -> bool {
    let mut shuffles = 0;
    for (&f, &meta) in filters.iter().zip(filters_meta) {
        match f {
            NOFILTER | TRUNC_PREC => {}
            SHUFFLE if meta == 0 || usize::from(meta) == typesize => shuffles += 1,
            _ => return false,
        }
    }
    shuffles == 1
}

/// Decode block `j` of a chunk whose only filter is a byte shuffle of its
/// streams ([`Layout::shuffle_rows`]) into `out`: the streams that are
/// coded or runs are decoded into `a`, and the unshuffle reads the ones
/// stored raw straight from the chunk, which saves copying them (for
/// floating-point data, the low bytes of noisy values are often stored
/// raw).  The reference copies every raw stream first; the output is the
/// same.
fn decode_shuffled_rows(
    p: &Parsed,
    lay: &Layout,
    j: usize,
    out: &mut [u8],
    a: &mut [u8],
) -> Result<()> {
    // At most 16 rows: `Layout::shuffle_rows` needs a rows kernel.
    let mut streams = [Stream::Fill(0); 16];
    write_streams_with_room(p, lay, j, a, |k, stream| {
        streams[k] = stream;
        !matches!(stream, Stream::Raw(_))
    })?;
    unshuffle_stream_rows(p, lay, &streams[..lay.nstreams], a, out)
}

/// Bytes past a block in the scratch buffer that the block's last stream
/// may be decoded into ([`write_streams_with_room`]); LZ4's decoder runs
/// its fast loop only up to 64 bytes before the end of its destination
/// (see `codec::decompress_stream_into`).
const DECODE_ROOM: usize = 64;

/// Decode block `j`'s streams in order into `buf` (the block, then
/// [`DECODE_ROOM`] spare bytes), slot `k` at `k * lay.neblock`; the decoder
/// of stream `k` may scribble past its slot, into slot `k + 1` (written
/// after it) or the spare bytes. So only for a buffer of this thread's
/// and streams written in order (not `split_decode`'s shared slots).
/// `keep(k, stream)` sees each stream first; `false` leaves its slot
/// unwritten.
fn write_streams_with_room<'s>(
    p: &Parsed<'s>,
    lay: &Layout,
    j: usize,
    buf: &mut [u8],
    mut keep: impl FnMut(usize, Stream<'s>) -> bool,
) -> Result<()> {
    debug_assert_eq!(buf.len(), lay.nstreams * lay.neblock + DECODE_ROOM);
    let mut src = &p.src[p.bstart(j)..];
    let mut at = 0;
    for k in 0..lay.nstreams {
        let (stream, rest) = next_stream(src, lay.neblock)?;
        src = rest;
        if keep(k, stream) {
            put_stream_into(p, lay, stream, &mut buf[at..], lay.neblock)?;
        }
        at += lay.neblock;
    }
    Ok(())
}

/// Undo the byte shuffle of a block whose streams ([`Layout::shuffle_rows`])
/// are decoded in `decoded`, one per `lay.neblock` bytes, except those
/// stored raw, which are read where they lie in the chunk.
pub(super) fn unshuffle_stream_rows(
    p: &Parsed,
    lay: &Layout,
    streams: &[Stream],
    decoded: &[u8],
    out: &mut [u8],
) -> Result<()> {
    let mut rows: [&[u8]; 16] = [&[]; 16];
    let rows = &mut rows[..streams.len()];
    let mut decoded = decoded;
    for (row, stream) in rows.iter_mut().zip(streams) {
        // `decoded` holds one stream's room per stream.
        let (row_decoded, rest) = decoded.split_at(lay.neblock);
        decoded = rest;
        *row = match *stream {
            Stream::Raw(data) => data,
            _ => row_decoded,
        };
    }
    if crate::filter::unshuffle_rows(rows, out, p.stream_out) {
        Ok(())
    } else {
        Err(Error::FilterPipeline)
    }
}

/// How a block's streams are laid out and where they are decoded to.
pub(super) struct Layout {
    filters: [u8; MAX_FILTERS],
    filters_meta: [u8; MAX_FILTERS],
    /// Bytes per stream; the streams fill the block exactly.
    pub neblock: usize,
    /// Streams per block (`neblock * nstreams` is the block's size).
    pub nstreams: usize,
    /// The streams go to the scratch buffer (a filter or postfilter runs
    /// after them), not to the output.
    pub in_tmp: bool,
    /// Run the caller's postfilter (never on an instrumented chunk).
    postfilter: bool,
    /// Write streams stored raw with non-temporal stores.
    stream_raw: bool,
    /// The only filter is a byte shuffle of the block's streams (one per
    /// byte of the type), which [`unshuffle_stream_rows`] undoes reading
    /// each stream stored raw where it lies in the chunk.
    pub shuffle_rows: bool,
    info: CallInfo,
}

impl Layout {
    /// The streams' places in `block` (`nstreams` of `neblock` bytes each,
    /// as the block's size is): cut one after the other, where
    /// `chunks_exact_mut` would divide the length first (a division costs
    /// as much as the rest of a small block's bookkeeping).
    #[inline(always)]
    pub fn slots_mut<'b>(&self, block: &'b mut [u8]) -> impl Iterator<Item = &'b mut [u8]> {
        let neblock = self.neblock;
        let mut rest = block;
        (0..self.nstreams).map(move |_| {
            let (slot, after) = std::mem::take(&mut rest).split_at_mut(neblock);
            rest = after;
            slot
        })
    }

    #[inline(always)]
    pub fn new(
        p: &Parsed,
        dparams: &DParams,
        bsize: usize,
        leftover_block: bool,
    ) -> Result<Layout> {
        let (filters, filters_meta) = p.h.decode_pipeline();
        let nstreams = if !p.h.dont_split() && !leftover_block {
            p.typesize
        } else {
            1
        };
        // 32-bit division (block sizes fit in 31 bits), none for one stream.
        let (neblock, uneven) = match nstreams {
            0 => return Err(Error::Data),
            1 => (bsize, false),
            n => (
                (bsize as u32 / n as u32) as usize,
                !(bsize as u32).is_multiple_of(n as u32),
            ),
        };
        if neblock == 0 {
            return Err(Error::WriteBuffer);
        }
        if uneven {
            // The reference writes such chunks but cannot restore the tail bytes.
            return Err(Error::Data);
        }
        let postfilter = dparams.postfilter.is_some() && !p.h.instrumented();
        let in_tmp = pipeline::backward_needs_tmp(&filters) || postfilter;
        let shuffle_rows = nstreams > 1
            && !postfilter
            && shuffles_streams_only(&filters, &filters_meta, nstreams)
            && crate::filter::unshuffle_rows_available(nstreams);
        Ok(Layout {
            filters,
            filters_meta,
            neblock,
            nstreams,
            in_tmp,
            postfilter,
            // Streams stored raw straight into the output of a large chunk
            // are streamed.  (Decoding into the scratch and streaming that
            // to `out` instead helps output-bound codecs on a memory-bound
            // machine but costs more for highly compressible data whose
            // output stays in the cache, so the other streams are decoded
            // in place.)
            stream_raw: p.stream_out && !in_tmp,
            shuffle_rows,
            info: call_info(p, dparams, filters),
        })
    }
}

/// One stream of a block as stored.
#[derive(Clone, Copy)]
pub(super) enum Stream<'a> {
    /// Every byte has this value (a zero size or a run).
    Fill(u8),
    /// Stored as is.
    Raw(&'a [u8]),
    /// Compressed with the chunk's codec.
    Coded(&'a [u8]),
}

/// Read the stream at the start of `src` (one that decodes to `neblock`
/// bytes); returns it and what follows it.
#[inline(always)]
pub(super) fn next_stream(src: &[u8], neblock: usize) -> Result<(Stream<'_>, &[u8])> {
    let Some((head, src)) = src.split_first_chunk::<4>() else {
        return Err(Error::ReadBuffer);
    };
    let csize = i32::from_le_bytes(*head);
    if csize == 0 {
        return Ok((Stream::Fill(0), src));
    }
    if csize < 0 {
        let Some((&token, rest)) = src.split_first() else {
            return Err(Error::ReadBuffer);
        };
        if token & 1 == 0 || csize < -255 {
            return Err(Error::RunLength);
        }
        return Ok((Stream::Fill((-csize) as u8), rest));
    }
    let cs = csize as usize;
    if src.len() < cs {
        return Err(Error::ReadBuffer);
    }
    let (data, rest) = src.split_at(cs);
    if cs == neblock {
        Ok((Stream::Raw(data), rest))
    } else {
        Ok((Stream::Coded(data), rest))
    }
}

/// Write one stream's bytes to `dst` (exactly the stream's size).
#[inline(always)]
pub(super) fn write_stream(p: &Parsed, lay: &Layout, stream: Stream, dst: &mut [u8]) -> Result<()> {
    put_stream(p, || &lay.info, lay.stream_raw, stream, dst)
}

/// [`write_stream`] of a stream of `len` bytes into `buf[..len]`, where a
/// codec may also write into `buf[len..]` (see
/// `codec::decompress_stream_into`).
#[inline(always)]
fn put_stream_into(
    p: &Parsed,
    lay: &Layout,
    stream: Stream,
    buf: &mut [u8],
    len: usize,
) -> Result<()> {
    match stream {
        Stream::Coded(data) => codec::decompress_stream_into(
            p.h.compformat(),
            p.h.udcompcode,
            data,
            buf,
            len,
            p.dict.as_ref(),
            &lay.info,
            p.src,
        ),
        _ => write_stream(p, lay, stream, &mut buf[..len]),
    }
}

/// [`write_stream`] with its layout's pieces: the codec call's `info` (asked
/// for only by a coded stream: [`decode_plain`] builds it on the first),
/// and whether a raw stream is written with streaming stores.
#[inline(always)]
fn put_stream<'i>(
    p: &Parsed,
    info: impl FnOnce() -> &'i CallInfo,
    stream_raw: bool,
    stream: Stream,
    dst: &mut [u8],
) -> Result<()> {
    match stream {
        Stream::Fill(v) => dst.fill(v),
        Stream::Raw(data) if stream_raw => crate::filter::copy_streaming(data, dst),
        Stream::Raw(data) => super::copy_bytes(data, dst),
        Stream::Coded(data) => codec::decompress_stream(
            p.h.compformat(),
            p.h.udcompcode,
            data,
            dst,
            p.dict.as_ref(),
            info(),
            p.src,
        )?,
    }
    Ok(())
}

/// Undo the filters of block `j` once its streams are in place (in `a`
/// when `lay.in_tmp`, else in `out`).
#[allow(clippy::too_many_arguments)]
pub(super) fn finish_block(
    p: &Parsed,
    dparams: &DParams,
    lay: &Layout,
    j: usize,
    out: &mut [u8],
    a: &mut [u8],
    b: &mut [u8],
    dref: Option<&[u8]>,
    tid: i32,
) -> Result<()> {
    let filters = lay.filters;
    if filters.iter().all(|&f| f == NOFILTER || f == TRUNC_PREC) && !lay.postfilter {
        return Ok(());
    }
    let bi = BackwardInfo {
        filters,
        filters_meta: lay.filters_meta,
        typesize: p.typesize,
        version: p.h.version,
        info: lay.info.clone(),
        postfilter: dparams.postfilter.as_deref().filter(|_| lay.postfilter),
        nchunk: dparams.nchunk,
        stream_out: p.stream_out,
    };
    pipeline::backward(&bi, !lay.in_tmp, out, a, b, dref, j * p.blocksize, j, tid)
}

pub(super) fn has_delta(p: &Parsed) -> bool {
    p.special == Special::None && !p.memcpyed && p.h.decode_pipeline().0.contains(&DELTA)
}

/// Whether the writer ran delta over the chunk's data: a regular chunk with
/// delta in its pipeline, or an all-zeros chunk with delta in it (the
/// reference marks a chunk whose filtered blocks all came out zero as
/// all-zeros, keeping its filters; `blosc2_chunk_zeros` writes no filters).
fn delta_written(p: &Parsed) -> bool {
    matches!(p.special, Special::None | Special::Zero)
        && !p.memcpyed
        && p.h.decode_pipeline().0.contains(&DELTA)
}

/// The bytes `[from, to)` of the chunk's data that a delta chunk does not
/// hold, in block `j`: the reference's delta encoder never writes the bytes
/// of a block after its last whole unit (see `filter::delta`), so what the
/// chunk stores there is whatever was in the writer's scratch buffer, not
/// the source.  `None` when block `j` has no such bytes (or no delta).
fn unheld_delta_bytes(p: &Parsed, j: usize) -> Option<(usize, usize)> {
    let u = crate::filter::delta_unit(p.typesize.max(1));
    let (bsize, _) = p.block_size(j);
    if u <= 1 || bsize.is_multiple_of(u) || !delta_written(p) {
        return None;
    }
    let start = j * p.blocksize;
    Some((start + bsize / u * u, start + bsize))
}

/// Whether a decode of the bytes `[start, stop)` of the chunk's data, in
/// the blocks not skipped, would give bytes the chunk does not hold.
pub(super) fn touches_unheld_delta_bytes(
    p: &Parsed,
    start: usize,
    stop: usize,
    skip: impl Fn(usize) -> bool,
) -> bool {
    let u = crate::filter::delta_unit(p.typesize.max(1));
    let nbytes = p.h.nbytes as usize;
    // Quick out: with whole units in every block nothing is missing.
    if u <= 1 || start >= stop || p.blocksize == 0 || !delta_written(p) {
        return false;
    }
    if p.blocksize.is_multiple_of(u) && nbytes.is_multiple_of(u) {
        return false;
    }
    let (first_j, last_j) = (start / p.blocksize, (stop - 1) / p.blocksize);
    (first_j..=last_j.min(p.nblocks.saturating_sub(1))).any(|j| {
        !skip(j) && unheld_delta_bytes(p, j).is_some_and(|(a, b)| a.max(start) < b.min(stop))
    })
}

/// Decompress a chunk into `dest`; returns the number of bytes written.
/// `maskout[j] == true` skips block `j`.
pub fn decompress(
    dparams: &DParams,
    src: &[u8],
    dest: &mut [u8],
    maskout: Option<&[bool]>,
) -> Result<usize> {
    let h = ChunkHeader::parse(src)?;
    if h.vlblocks() {
        return super::vlblocks::decompress_all(dparams, src, dest);
    }
    if h.nbytes as usize > dest.len() {
        return Err(Error::WriteBuffer);
    }
    // A stored chunk (the common case for incompressible data) is one copy:
    // taken before the general path builds its `Parsed`, whose moves cost a
    // measurable share of a small chunk's copy.  Same checks, same order.
    if h.memcpyed()
        && h.special_bits() == 0
        && !h.lazy()
        && dparams.postfilter.is_none()
        && maskout.is_none()
    {
        let (nbytes, cbytes, overhead) = (h.nbytes as usize, h.cbytes as usize, h.overhead());
        if cbytes > src.len() {
            return Err(Error::InvalidHeader);
        }
        if cbytes != nbytes + overhead {
            return Err(Error::Data);
        }
        let nblocks = if h.blocksize > 0 {
            nbytes.div_ceil(h.blocksize as usize)
        } else {
            0
        };
        let writers = if nblocks > 1 {
            dparams.nthreads.max(1) as usize
        } else {
            1
        };
        let stream_out = nbytes >= super::stream_min_bytes();
        super::copy_in_parallel(
            writers,
            &src[overhead..cbytes],
            &mut dest[..nbytes],
            stream_out,
        );
        return Ok(nbytes);
    }
    check_header(&h, src)?;
    let mut p = Parsed::from_checked_header(h, src);
    check_tables(&mut p)?;
    let nbytes = p.h.nbytes as usize;
    let delta = has_delta(&p);
    // Threads writing the output (a one-block chunk is written by one).
    let writers = if p.nblocks > 1 {
        dparams.nthreads.max(1) as usize
    } else {
        1
    };
    // Delta reads the output back (block 0 and each block after unshuffling),
    // and a postfilter works on a scratch copy: no streaming for those.
    p.stream_out = nbytes >= super::stream_min_bytes() && !delta && dparams.postfilter.is_none();
    if let Some(m) = maskout {
        if m.len() != p.nblocks {
            return Err(Error::Data);
        }
    }
    if nbytes == 0 {
        return Ok(0);
    }
    // A delta chunk with partial units (the reference's leftover bug) does
    // not hold its last bytes: refuse rather than hand back what the writer's
    // scratch buffer held.
    if touches_unheld_delta_bytes(&p, 0, nbytes, |j| maskout.is_some_and(|m| m[j])) {
        return Err(Error::Data);
    }
    let dest = &mut dest[..nbytes];
    if p.special != Special::None && dparams.postfilter.is_none() && maskout.is_none() {
        fill_special(&p, dest)?;
        return Ok(nbytes);
    }
    if p.memcpyed && dparams.postfilter.is_none() && maskout.is_none() {
        let from = &p.src[p.overhead..p.overhead + nbytes];
        super::copy_in_parallel(writers, from, dest, p.stream_out);
        return Ok(nbytes);
    }
    let nthreads = dparams.nthreads.max(1) as usize;
    if nthreads == 1 && maskout.is_none() && is_plain(&p, dparams) {
        decode_plain(&p, dparams, dest)?;
        return Ok(nbytes);
    }
    let skip = |j: usize| maskout.is_some_and(|m| m[j]);
    if nthreads > 1 && p.nblocks == 1 && !skip(0) && super::split_decode::splittable(&p) {
        SCRATCH.with(|sc| {
            super::split_decode::decode(&p, dparams, dest, nthreads, &mut sc.borrow_mut())
        })?;
        return Ok(nbytes);
    }
    if nthreads > 1 && p.nblocks > 1 && !delta {
        // No block depends on another: all of them go to the workers.
        let blocks = dest.chunks_mut(p.blocksize).enumerate().collect();
        decode_in_parallel(nthreads, blocks, &|j, blk, tid| {
            if skip(j) {
                return Ok(());
            }
            SCRATCH.with(|sc| decode_block(&p, dparams, j, blk, None, &mut sc.borrow_mut(), tid))
        })?;
        return Ok(nbytes);
    }
    let (first, rest) = dest.split_at_mut(p.blocksize.min(nbytes));
    // Block 0 goes first: with delta, every other block refers to it.
    SCRATCH.with(|sc| -> Result<()> {
        let mut sc = sc.borrow_mut();
        if !skip(0) || delta {
            decode_block(&p, dparams, 0, first, None, &mut sc, 0)?;
        }
        if nthreads <= 1 || p.nblocks <= 2 {
            for (i, blk) in rest.chunks_mut(p.blocksize).enumerate() {
                let j = i + 1;
                if !skip(j) {
                    decode_block(&p, dparams, j, blk, Some(first), &mut sc, 0)?;
                }
            }
        }
        Ok(())
    })?;
    if nthreads > 1 && p.nblocks > 2 {
        let first: &[u8] = first;
        let blocks = rest
            .chunks_mut(p.blocksize)
            .enumerate()
            .map(|(i, blk)| (i + 1, blk))
            .collect();
        decode_in_parallel(nthreads, blocks, &|j, blk, tid| {
            if skip(j) {
                return Ok(());
            }
            SCRATCH.with(|sc| {
                decode_block(&p, dparams, j, blk, Some(first), &mut sc.borrow_mut(), tid)
            })
        })?;
    }
    Ok(nbytes)
}

/// Decodes block `j` into the given slice on thread `tid`.
type DecodeFn<'a> = dyn Fn(usize, &mut [u8], i32) -> Result<()> + Sync + 'a;

/// Consecutive blocks, each with its index, claimed by one thread at a time.
type BlockGroup<'a> = std::sync::Mutex<Vec<(usize, &'a mut [u8])>>;

/// Groups of consecutive blocks per thread: few enough that claiming one
/// (a lock, an atomic) costs little next to decoding it, enough to balance.
const GROUPS_PER_THREAD: usize = 4;

/// Run `decode(j, block, tid)` on every `(j, block)` with `nthreads` threads.
/// The blocks are handed out in groups of consecutive ones, so that two
/// threads rarely work on neighbouring blocks (and their locks) at the same
/// time.  The first error wins.
fn decode_in_parallel(
    nthreads: usize,
    blocks: Vec<(usize, &mut [u8])>,
    decode: &DecodeFn,
) -> Result<()> {
    let ngroups = (nthreads * GROUPS_PER_THREAD).clamp(1, blocks.len().max(1));
    let per = blocks.len().div_ceil(ngroups).max(1);
    let mut groups: Vec<BlockGroup> = Vec::new();
    let mut rest = blocks.into_iter().peekable();
    while rest.peek().is_some() {
        groups.push(std::sync::Mutex::new(rest.by_ref().take(per).collect()));
    }
    let errors = FirstError::default();
    crate::pool::run(nthreads, groups.len(), &|g, tid| {
        let mut group = groups[g].lock().unwrap_or_else(|e| e.into_inner());
        for (j, blk) in group.iter_mut() {
            if let Err(e) = decode(*j, blk, tid as i32) {
                errors.keep(e);
                return;
            }
        }
    });
    errors.into_result()
}
