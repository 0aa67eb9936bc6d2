//! Chunk compression.

use super::blocksize::{compute_blocksize, split_block};
use super::params::CParams;
use super::pipeline::{self, Scratch};
use crate::codec::{self, CompressDict};
use crate::error::{Error, Result};
use crate::format::header::*;
use std::cell::RefCell;

thread_local! {
    /// This thread's scratch buffers for compressing blocks.
    pub(super) static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Everything fixed for one compression call.
pub(super) struct Job<'a> {
    pub(super) params: &'a CParams,
    pub(super) src: &'a [u8],
    pub(super) typesize: usize,
    pub(super) blocksize: usize,
    pub(super) nblocks: usize,
    pub(super) leftover: usize,
    pub(super) split: bool,
    pub(super) extended: bool,
    pub(super) dict: Option<&'a CompressDict>,
    /// Dictionary training pass: blocks are filtered and stored raw, one stream each.
    pub(super) training: bool,
}

impl Job<'_> {
    /// The size of block `j`, and whether it is the short last one.
    pub(super) fn block_size(&self, j: usize) -> (usize, bool) {
        if j == self.nblocks - 1 && self.leftover > 0 {
            (self.leftover, true)
        } else {
            (self.blocksize, false)
        }
    }

    /// Compress one stream `ip` of a filtered block with the job's codec,
    /// level and dictionary into `dest`: the bytes written (0: no gain).
    pub(super) fn code_stream(
        &self,
        ip: &[u8],
        dest: &mut [u8],
        info: &codec::CallInfo,
    ) -> Result<usize> {
        let c = self.params;
        codec::compress_stream(
            c.compcode,
            c.clevel as i32,
            ip,
            dest,
            self.dict,
            info,
            self.src,
        )
    }
}

pub(super) fn is_run(s: &[u8]) -> bool {
    let Some(&first) = s.first() else {
        return false;
    };
    let word = u64::from_ne_bytes([first; 8]);
    let mut chunks = s.chunks_exact(8);
    for c in &mut chunks {
        if u64::from_ne_bytes(c.try_into().unwrap_or([0; 8])) != word {
            return false;
        }
    }
    chunks.remainder().iter().all(|&b| b == first)
}

/// Write the entry of a stream that is a run of `value` (extended headers):
/// a negative size at `csize_at`, then, for a byte other than 0, one byte
/// at `pos`. Returns where the next entry goes, None when out of room.
fn put_run(out: &mut [u8], csize_at: usize, pos: usize, value: u8) -> Option<usize> {
    out[csize_at..csize_at + 4].copy_from_slice(&(-(value as i32)).to_le_bytes());
    if value == 0 {
        return Some(pos);
    }
    *out.get_mut(pos)? = 1;
    Some(pos + 1)
}

/// Block `j` of `job` through its filters (and prefilter), on thread `tid`:
/// the source itself when there is nothing to run, else `scratch`'s output.
pub(super) fn filter_block<'s>(
    job: &Job<'s>,
    j: usize,
    scratch: &'s mut Scratch,
    tid: i32,
) -> Result<&'s [u8]> {
    let (bsize, _) = job.block_size(j);
    let offset = j * job.blocksize;
    if pipeline::forward_is_noop(job.params) {
        return Ok(&job.src[offset..offset + bsize]);
    }
    pipeline::forward(
        job.params,
        job.typesize,
        job.blocksize,
        job.src,
        offset,
        bsize,
        scratch,
        tid,
    )
}

/// Compress block `j` into `out`. `Ok(None)` means it does not fit.
pub(super) fn compress_block(
    job: &Job,
    j: usize,
    out: &mut [u8],
    scratch: &mut Scratch,
    tid: i32,
    raw: Option<&mut Vec<RawStream>>,
) -> Result<Option<usize>> {
    let (bsize, leftover_block) = job.block_size(j);
    let offset = j * job.blocksize;
    let noop = pipeline::forward_is_noop(job.params);
    let filtered = filter_block(job, j, scratch, tid)?;
    if job.training {
        if out.len() < bsize {
            return Ok(None);
        }
        out[..bsize].copy_from_slice(filtered);
        return Ok(Some(bsize));
    }
    let nstreams = if job.split && !leftover_block {
        job.typesize
    } else {
        1
    };
    let neblock = bsize / nstreams;
    let info = job.params.call_info(job.params.compcode_meta);
    let raw_base = if noop { offset } else { 0 };
    let stream = |s: usize| &filtered[s * neblock..(s + 1) * neblock];
    lay_out_streams(
        out,
        filtered,
        neblock,
        raw.map(|r| (r, raw_base)),
        |s| (job.extended && is_run(stream(s))).then(|| stream(s)[0]),
        |s, dest| job.code_stream(stream(s), dest, &info),
    )
}

/// Write the entries of a filtered block's streams (`neblock` bytes each)
/// into `out` in order: a run's entry for a stream for which `run` gives
/// its byte, else `code(s, dest)`'s output, `dest` being the room left
/// for the stream (`neblock` bytes at most), or the stream itself where
/// `code` gives 0 bytes or not fewer than `neblock`.  Streams stored raw
/// are copied, or recorded in `raw`'s list (their place in the source
/// offset by `raw`'s base) for the caller to copy.  `Ok(None)`: the block
/// does not fit.
pub(super) fn lay_out_streams(
    out: &mut [u8],
    filtered: &[u8],
    neblock: usize,
    mut raw: Option<(&mut Vec<RawStream>, usize)>,
    run: impl Fn(usize) -> Option<u8>,
    mut code: impl FnMut(usize, &mut [u8]) -> Result<usize>,
) -> Result<Option<usize>> {
    let nstreams = filtered.len() / neblock;
    let mut pos = 0usize;
    for s in 0..nstreams {
        if out.len() < pos + 4 {
            return Ok(None);
        }
        let csize_at = pos;
        pos += 4;
        if let Some(value) = run(s) {
            match put_run(out, csize_at, pos, value) {
                Some(end) => pos = end,
                None => return Ok(None),
            }
            continue;
        }
        let maxout = neblock.min(out.len() - pos);
        if maxout == 0 {
            return Ok(None);
        }
        let mut cbytes = code(s, &mut out[pos..pos + maxout])?;
        if cbytes == 0 || cbytes >= neblock {
            if out.len() < pos + neblock {
                return Ok(None);
            }
            match raw.as_mut() {
                // Left where it is (the source, or the filtered block in
                // `scratch`); the caller copies it from there.
                Some((r, base)) => r.push(RawStream {
                    at: pos,
                    src: *base + s * neblock,
                    len: neblock,
                }),
                None => super::copy_bytes(
                    &filtered[s * neblock..(s + 1) * neblock],
                    &mut out[pos..pos + neblock],
                ),
            }
            cbytes = neblock;
        }
        out[csize_at..csize_at + 4].copy_from_slice(&(cbytes as i32).to_le_bytes());
        pos += cbytes;
    }
    Ok(Some(pos))
}

/// Compress all blocks after `start` (where the bstarts table begins) in `dest`.
/// Returns the total size, or None when the data does not fit.
fn compress_blocks(
    job: &Job,
    dest: &mut [u8],
    bstarts_at: usize,
    start: usize,
) -> Result<Option<usize>> {
    if !job.training && bstarts_at + 4 * job.nblocks > dest.len() {
        return Ok(None);
    }
    let nthreads = job.params.nthreads.max(1) as usize;
    if nthreads > 1 && job.nblocks > 1 {
        return super::parallel::compress_blocks(job, dest, bstarts_at, start, nthreads);
    }
    SCRATCH.with(|sc| {
        let mut sc = sc.borrow_mut();
        let mut ntbytes = start;
        for j in 0..job.nblocks {
            if !job.training {
                let at = bstarts_at + 4 * j;
                dest[at..at + 4].copy_from_slice(&(ntbytes as i32).to_le_bytes());
            }
            let tail = &mut dest[ntbytes..];
            let done = if nthreads > 1 && super::split_encode::shareable(job) {
                super::split_encode::compress(job, tail, nthreads, &mut sc)?
            } else {
                compress_block(job, j, tail, &mut sc, 0, None)?
            };
            match done {
                Some(n) => ntbytes += n,
                None => return Ok(None),
            }
        }
        Ok(Some(ntbytes))
    })
}

/// A stream stored raw and not copied into the block's output yet: `len` bytes
/// at `src` in the source (no filter) or in the filtered block, to go to `at`.
#[derive(Clone, Copy)]
pub(super) struct RawStream {
    pub(super) at: usize,
    pub(super) src: usize,
    pub(super) len: usize,
}

/// Check the parameters the way the reference does before compressing.
pub(crate) fn validate(params: &CParams, srcsize: usize, destsize: usize) -> Result<()> {
    if srcsize > MAX_BUFFERSIZE as usize {
        return Err(Error::MaxBufsizeExceeded);
    }
    if destsize < EXTENDED_HEADER_LENGTH {
        return Err(Error::MaxBufsizeExceeded);
    }
    if params.clevel > 9 {
        return Err(Error::CodecParam);
    }
    if params.use_dict && !matches!(params.compcode, codec::ZSTD | codec::LZ4 | codec::LZ4HC) {
        return Err(Error::CodecParam);
    }
    if params.typesize <= 0 || params.typesize > MAX_TYPESIZE {
        return Err(Error::InvalidParam);
    }
    if params.blocksize < 0 {
        return Err(Error::InvalidParam);
    }
    if !codec::is_supported(params.compcode) {
        return Err(Error::CodecSupport);
    }
    for &f in &params.filters {
        if (5..=31).contains(&f) {
            return Err(Error::InvalidParam);
        }
        if f > 31 && super::user_filter::find(f).is_none() {
            return Err(Error::FilterPipeline);
        }
    }
    Ok(())
}

/// Compress `src` into `dest` as one chunk. Returns the chunk size, or 0 when
/// the data does not fit in `dest` (then `dest` holds nothing useful).
/// `blosc1_header` writes the 16-byte header of Blosc1-era chunks.
pub fn compress(
    params: &CParams,
    src: &[u8],
    dest: &mut [u8],
    blosc1_header: bool,
) -> Result<usize> {
    validate(params, src.len(), dest.len())?;
    let srcsize = src.len();
    let mut typesize = params.typesize;
    if typesize > 255 {
        typesize = 1;
    }
    let clevel = params.clevel as i32;
    let filter_flags = filters_to_flags(&params.filters);
    let blocksize = compute_blocksize(
        params.compcode,
        clevel,
        typesize,
        srcsize as i32,
        params.blocksize,
        params.splitmode,
        filter_flags,
    )
    .max(1) as usize;
    let nblocks = if srcsize == 0 {
        0
    } else {
        srcsize.div_ceil(blocksize)
    };
    let leftover = srcsize % blocksize;
    // Delta on a block that ends in a partial unit gives a chunk that the
    // reference's encoder would leave without its last bytes and that our
    // decoder therefore refuses (see `decompress::unheld_delta_bytes`): such
    // a chunk is written without delta (the other filters kept), which every
    // decoder reads back whole.
    // The same goes for pipelines whose deltas the reference's decoder
    // would undo from the wrong buffer (see `delta_placement`).
    let u = crate::filter::delta_unit(typesize.max(1) as usize);
    let without_delta;
    let params = if params.filters.contains(&DELTA)
        && ((u > 1
            && (!srcsize.is_multiple_of(u) || (nblocks > 1 && !blocksize.is_multiple_of(u))))
            || !super::delta_placement::reference_decodes(&params.filters))
    {
        let mut p = params.clone();
        for (f, m) in p.filters.iter_mut().zip(p.filters_meta.iter_mut()) {
            if *f == DELTA {
                *f = NOFILTER;
                *m = 0;
            }
        }
        without_delta = p;
        &without_delta
    } else {
        params
    };
    let filter_flags = filters_to_flags(&params.filters);
    let extended = !blosc1_header;
    let overhead = if extended {
        EXTENDED_HEADER_LENGTH
    } else {
        MIN_HEADER_LENGTH
    };
    let use_dict = params.use_dict && clevel > 0 && extended;

    let mut memcpyed = clevel == 0 || srcsize < MIN_BUFFERSIZE as usize;
    // (With a dictionary the reference trains first and only then finds out that
    // the block starts do not fit; it falls back to a plain copy later, keeping
    // the codec bits in the flags. We do the same to write the same header.)
    if !memcpyed && !use_dict && overhead + 4 * nblocks > dest.len() {
        memcpyed = true;
    }
    let mut flags: u8 = if extended {
        FLAG_DOSHUFFLE | FLAG_DOBITSHUFFLE
    } else {
        0
    };
    let mut split = false;
    let mut copy_flags_split: Option<bool> = None;
    if !memcpyed {
        flags |= filter_flags;
        // Split only where every full block divides into typesize equal streams:
        // the reference splits some layouts it then cannot decode.
        let ref_split = split_block(
            params.splitmode,
            params.compcode,
            clevel,
            filter_flags,
            typesize,
            blocksize as i32,
        );
        split = ref_split && blocksize.is_multiple_of(typesize as usize);
        if !split {
            flags |= FLAG_DONT_SPLIT;
        }
        if ref_split != split {
            // Remembered for the plain-copy fallback below, where the split bit
            // does not matter for decoding and we write the reference's choice.
            copy_flags_split = Some(ref_split);
        }
        flags |= codec::compformat(params.compcode) << 5;
    }
    let mut header = ChunkHeader {
        version: VERSION_FORMAT_STABLE,
        versionlz: codec::compversion(params.compcode).unwrap_or(1),
        flags,
        typesize: typesize as u8,
        nbytes: srcsize as i32,
        blocksize: blocksize as i32,
        cbytes: 0,
        filters: params.filters,
        udcompcode: params.compcode,
        compcode_meta: params.compcode_meta,
        filters_meta: params.filters_meta,
        blosc2_flags2: 0,
        blosc2_flags: 0,
    };

    let mut dict_holder: Option<CompressDict> = None;
    let mut job = Job {
        params,
        src,
        typesize: typesize as usize,
        blocksize,
        nblocks,
        leftover,
        split,
        extended,
        dict: None,
        training: false,
    };

    let mut cbytes = None;
    if !memcpyed {
        let bstarts_at = overhead;
        let start = overhead + 4 * nblocks;
        let mut data_start = start;
        if use_dict {
            if let Some(d) = build_dict(&mut job, dest.len())? {
                let dsize = d.bytes.len();
                if start + 4 + dsize <= dest.len() {
                    dest[start..start + 4].copy_from_slice(&(dsize as i32).to_le_bytes());
                    dest[start + 4..start + 4 + dsize].copy_from_slice(&d.bytes);
                    data_start = start + 4 + dsize;
                    header.blosc2_flags |= B2_USEDICT;
                    dict_holder = Some(d);
                }
            }
        }
        job.dict = dict_holder.as_ref();
        cbytes = compress_blocks(&job, dest, bstarts_at, data_start)?;
        if cbytes.is_none() {
            memcpyed = true;
            header.blosc2_flags &= !B2_USEDICT;
        } else if extended && header.blosc2_flags & B2_USEDICT == 0 {
            let nstreams = if split {
                if leftover > 0 {
                    (nblocks - 1) * typesize as usize + 1
                } else {
                    nblocks * typesize as usize
                }
            } else {
                nblocks
            };
            if cbytes == Some(start + 4 * nstreams) {
                header.blosc2_flags |= (Special::Zero as u8) << 4;
                cbytes = Some(overhead);
            }
        }
    }
    if memcpyed {
        if srcsize + overhead > dest.len() {
            return Ok(0);
        }
        header.flags |= FLAG_MEMCPYED;
        if let Some(ref_split) = copy_flags_split {
            header.flags &= !FLAG_DONT_SPLIT;
            if !ref_split {
                header.flags |= FLAG_DONT_SPLIT;
            }
        }
        copy_memcpyed(&job, &mut dest[overhead..overhead + srcsize])?;
        cbytes = Some(overhead + srcsize);
    }
    let cbytes = cbytes.unwrap_or(0);
    header.cbytes = cbytes as i32;
    header.write(dest, extended);
    Ok(cbytes)
}

/// Fill a memcpyed chunk's body (running the prefilter when there is one).
fn copy_memcpyed(job: &Job, body: &mut [u8]) -> Result<()> {
    let Some(_) = &job.params.prefilter else {
        let nthreads = if job.nblocks > 1 {
            job.params.nthreads.max(1) as usize
        } else {
            1
        };
        // Ordinary stores: streaming this copy gains nothing, the time
        // going to the compression attempts before it.
        super::copy_in_parallel(nthreads, job.src, body, false);
        return Ok(());
    };
    // With a prefilter, each block is the prefilter's output (filters are skipped).
    let mut p = job.params.clone();
    p.filters = [0; MAX_FILTERS];
    SCRATCH.with(|sc| {
        let mut sc = sc.borrow_mut();
        for j in 0..job.nblocks {
            let (bsize, _) = job.block_size(j);
            let off = j * job.blocksize;
            let out = pipeline::forward(
                &p,
                job.typesize,
                job.blocksize,
                job.src,
                off,
                bsize,
                &mut sc,
                0,
            )?;
            body[off..off + bsize].copy_from_slice(&out[..bsize]);
        }
        Ok(())
    })
}

/// Train a dictionary from the filtered blocks (the reference's sampling rules).
fn build_dict(job: &mut Job, destsize: usize) -> Result<Option<CompressDict>> {
    let srcsize = job.src.len();
    let dict_maxsize = (MAX_DICT_SIZE as usize).min(srcsize / 20);
    let mut nsamples = job.nblocks;
    if job.split {
        nsamples *= job.typesize;
    }
    nsamples = nsamples.max(8);
    let sample_size = srcsize / nsamples / 16;
    if dict_maxsize < MIN_USEFUL_DICT as usize || sample_size == 0 {
        return Ok(None);
    }
    let need = nsamples * sample_size;
    // The samples are the first bytes of the filtered chunk.
    let mut samples = vec![0u8; srcsize.max(need)];
    job.training = true;
    let filled = compress_blocks(job, &mut samples, 0, 0);
    job.training = false;
    let _ = destsize;
    let Some(filled) = filled? else {
        return Ok(None);
    };
    if filled < need {
        return Ok(None);
    }
    let samples = &samples[..need];
    let bytes = if job.params.compcode == codec::ZSTD {
        let sizes = vec![sample_size; nsamples];
        match codec::zstd::train(samples, &sizes, dict_maxsize) {
            Some(d) => d,
            None => return Ok(None),
        }
    } else {
        samples[..need.min(dict_maxsize)].to_vec()
    };
    let zstd = if job.params.compcode == codec::ZSTD {
        match codec::zstd::cdict(&bytes) {
            Some(c) => Some(c),
            None => return Err(Error::CodecDict),
        }
    } else {
        None
    };
    Ok(Some(CompressDict { bytes, zstd }))
}
