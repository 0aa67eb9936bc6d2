//! Chunk compression.

use super::blocksize::{compute_blocksize, split_block};
use super::params::CParams;
use super::pipeline::{self, AlignedBuf, Scratch};
use crate::codec::{self, CompressDict};
use crate::error::{Error, Result};
use crate::format::header::*;
use std::cell::RefCell;

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Everything fixed for one compression call.
struct Job<'a> {
    params: &'a CParams,
    src: &'a [u8],
    typesize: usize,
    blocksize: usize,
    nblocks: usize,
    leftover: usize,
    split: bool,
    extended: bool,
    dict: Option<&'a CompressDict>,
    /// Dictionary training pass: blocks are filtered and stored raw, one stream each.
    training: bool,
}

impl Job<'_> {
    fn block_size(&self, j: usize) -> (usize, bool) {
        if j == self.nblocks - 1 && self.leftover > 0 {
            (self.leftover, true)
        } else {
            (self.blocksize, false)
        }
    }
}

fn is_run(s: &[u8]) -> bool {
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

/// Compress block `j` into `out`. `Ok(None)` means it does not fit.
fn compress_block(
    job: &Job,
    j: usize,
    out: &mut [u8],
    scratch: &mut Scratch,
    tid: i32,
    mut raw: Option<&mut Vec<RawStream>>,
) -> Result<Option<usize>> {
    let (bsize, leftover_block) = job.block_size(j);
    let offset = j * job.blocksize;
    let noop = pipeline::forward_is_noop(job.params);
    let filtered: &[u8] = if noop {
        &job.src[offset..offset + bsize]
    } else {
        pipeline::forward(
            job.params,
            job.typesize,
            job.blocksize,
            job.src,
            offset,
            bsize,
            scratch,
            tid,
        )?
    };
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
    let mut pos = 0usize;
    for s in 0..nstreams {
        if out.len() < pos + 4 {
            return Ok(None);
        }
        let csize_at = pos;
        pos += 4;
        let ip = &filtered[s * neblock..(s + 1) * neblock];
        if job.extended && is_run(ip) {
            let value = ip[0];
            out[csize_at..csize_at + 4].copy_from_slice(&(-(value as i32)).to_le_bytes());
            if value != 0 {
                if out.len() < pos + 1 {
                    return Ok(None);
                }
                out[pos] = 1;
                pos += 1;
            }
            continue;
        }
        let maxout = neblock.min(out.len() - pos);
        if maxout == 0 {
            return Ok(None);
        }
        let mut cbytes = codec::compress_stream(
            job.params.compcode,
            job.params.clevel as i32,
            ip,
            &mut out[pos..pos + maxout],
            job.dict,
            &info,
            job.src,
        )?;
        if cbytes == 0 || cbytes >= neblock {
            if out.len() < pos + neblock {
                return Ok(None);
            }
            match raw.as_deref_mut() {
                // Left where it is (the source, or the filtered block in
                // `scratch`); the caller copies it from there.
                Some(r) => r.push(RawStream {
                    at: pos,
                    src: if noop { offset } else { 0 } + s * neblock,
                    len: neblock,
                }),
                None => out[pos..pos + neblock].copy_from_slice(ip),
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
        return compress_blocks_parallel(job, dest, bstarts_at, start, nthreads);
    }
    SCRATCH.with(|sc| {
        let mut sc = sc.borrow_mut();
        let mut ntbytes = start;
        for j in 0..job.nblocks {
            if !job.training {
                let at = bstarts_at + 4 * j;
                dest[at..at + 4].copy_from_slice(&(ntbytes as i32).to_le_bytes());
            }
            let (head, tail) = dest.split_at_mut(ntbytes);
            let _ = head;
            match compress_block(job, j, tail, &mut sc, 0, None)? {
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
struct RawStream {
    at: usize,
    src: usize,
    len: usize,
}

/// A block compressed into a buffer of its own, waiting for its place in the chunk.
struct Done {
    /// The block's index.
    j: usize,
    buf: AlignedBuf,
    len: usize,
    raw: Vec<RawStream>,
    /// The filtered block, when filters ran and `raw` refers to it.
    filtered: Option<AlignedBuf>,
}

impl Done {
    /// Hand the buffers back for later blocks.
    fn recycle(self) {
        give_back(self.buf);
        if let Some(f) = self.filtered {
            give_back(f);
        }
    }

    /// Write the block into its place in the chunk.
    fn write(&self, to: &mut [u8], src: &[u8]) {
        let src = self.filtered.as_deref().unwrap_or(src);
        let mut pos = 0;
        for r in &self.raw {
            to[pos..r.at].copy_from_slice(&self.buf[pos..r.at]);
            to[r.at..r.at + r.len].copy_from_slice(&src[r.src..r.src + r.len]);
            pos = r.at + r.len;
        }
        to[pos..self.len].copy_from_slice(&self.buf[pos..self.len]);
    }
}

/// A block not finished yet, in [`Shared::sizes`].
const UNFINISHED: usize = usize::MAX;

/// What the workers of one parallel compression share, under one lock.
///
/// Blocks are claimed in order, so the chunk is the same as a serial
/// compression's: a block's place is known once the sizes of all blocks before
/// it are. Under the lock a worker only records sizes and hands out places;
/// the copying happens outside it, each worker copying the blocks it
/// compressed (still in its cache) as soon as their places are known, in
/// parallel with the others (one worker copying every block in turn would
/// leave the others idle at high thread counts). A block claimed when every
/// block before it has its place is compressed straight into the chunk, with
/// no copy at all.
struct Shared<'d> {
    /// The chunk body after the placed blocks (empty while a block is being
    /// compressed straight into it).
    tail: &'d mut [u8],
    /// Next block to claim.
    claim: usize,
    /// First block without a place.
    next: usize,
    /// Where it starts in the chunk.
    offset: usize,
    /// Each block's compressed size, [`UNFINISHED`] until known.
    sizes: Vec<usize>,
    /// Where each placed block starts.
    starts: Vec<usize>,
    /// The places not yet taken by the workers that compressed their blocks.
    regions: Vec<Option<&'d mut [u8]>>,
    /// Bytes of all blocks finished so far: past `room`, the chunk cannot fit.
    produced: usize,
    /// Stop: the chunk does not fit, or `error`.
    stop: bool,
    error: Option<Error>,
    /// Workers asleep on the condition variable, waiting for places.
    sleepers: usize,
}

impl<'d> Shared<'d> {
    /// Claim the next block (None: no more). When every block before it has
    /// its place and the rest of the chunk holds `cap(j)` bytes, the rest
    /// comes with it, to compress into. (With less room the block goes to a
    /// buffer of `cap(j)` bytes like the others: the codecs must get the
    /// same room whichever way a block goes, or whether a tight chunk fits
    /// would depend on timing.)
    fn claim(
        &mut self,
        nblocks: usize,
        cap: impl Fn(usize) -> usize,
    ) -> Option<(usize, Option<&'d mut [u8]>)> {
        if self.stop || self.claim >= nblocks {
            return None;
        }
        let j = self.claim;
        self.claim += 1;
        let direct =
            (j == self.next && self.tail.len() >= cap(j)).then(|| std::mem::take(&mut self.tail));
        Some((j, direct))
    }

    /// Block `j`, compressed into a buffer, is `len` bytes.
    fn finished(&mut self, j: usize, len: usize, room: usize) {
        self.sizes[j] = len;
        self.produced += len;
        if self.produced > room {
            self.stop = true;
        }
        self.place();
    }

    /// Block `j`, compressed at the front of `rest` (the tail it claimed
    /// with), is `len` bytes.
    fn finished_direct(&mut self, j: usize, len: usize, rest: &'d mut [u8]) {
        let (_, rest) = rest.split_at_mut(len);
        self.tail = rest;
        self.sizes[j] = len;
        self.produced += len;
        self.starts[j] = self.offset;
        self.offset += len;
        self.next = j + 1;
        self.place();
    }

    /// Give places to the finished blocks that follow the placed ones.
    fn place(&mut self) {
        while !self.stop && self.next < self.sizes.len() && self.sizes[self.next] != UNFINISHED {
            let len = self.sizes[self.next];
            if len > self.tail.len() {
                self.stop = true;
                return;
            }
            let (region, rest) = std::mem::take(&mut self.tail).split_at_mut(len);
            self.tail = rest;
            self.regions[self.next] = Some(region);
            self.starts[self.next] = self.offset;
            self.offset += len;
            self.next += 1;
        }
    }

    /// Move the blocks of `mine` (in block order) that have places onto `out`,
    /// with their places.
    fn take_placed(&mut self, mine: &mut Vec<Done>, out: &mut Vec<(&'d mut [u8], Done)>) {
        let n = mine.iter().take_while(|d| d.j < self.next).count();
        for d in mine.drain(..n) {
            match self.regions[d.j].take() {
                Some(region) => out.push((region, d)),
                None => d.recycle(),
            }
        }
    }

    fn fail(&mut self, e: Error) {
        self.stop = true;
        if self.error.is_none() {
            self.error = Some(e);
        }
    }
}

fn compress_blocks_parallel(
    job: &Job,
    dest: &mut [u8],
    bstarts_at: usize,
    start: usize,
    nthreads: usize,
) -> Result<Option<usize>> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let nblocks = job.nblocks;
    let room = dest.len().saturating_sub(start);
    let (head, body) = dest.split_at_mut(start);
    // Every block is compressed into a buffer (or the chunk's tail) with room
    // for its worst case, but never more than the room left in the chunk: the
    // codecs' own "does not fit" decisions must be those of the serial path.
    let cap = |j: usize| (job.block_size(j).0 + 5 * job.typesize.max(1) + 8).min(room.max(1));
    let shared = std::sync::Mutex::new(Shared {
        tail: body,
        claim: 0,
        next: 0,
        offset: start,
        sizes: vec![UNFINISHED; nblocks],
        starts: vec![0; nblocks],
        regions: (0..nblocks).map(|_| None).collect(),
        produced: 0,
        stop: false,
        error: None,
        sleepers: 0,
    });
    let wake = std::sync::Condvar::new();
    // Read without the lock by the workers waiting for their blocks' places.
    let placed = AtomicUsize::new(0);
    let stopped = AtomicBool::new(false);
    let lock = || shared.lock().unwrap_or_else(|e| e.into_inner());
    // After a change of places or a stop, with the lock held.
    let publish = |st: &Shared| {
        placed.store(st.next, Ordering::Release);
        if st.stop {
            stopped.store(true, Ordering::Release);
        }
        if st.sleepers > 0 {
            wake.notify_all();
        }
    };
    // Waiting workers spin for a while before they sleep, when every thread
    // has a core of its own (as the pool's waits do).
    let spin = nthreads <= crate::pool::cores();
    // Raw streams are copied into the chunk only once, from the source when no
    // filter ran, else from the filtered block (kept out of the scratch).
    let noop = pipeline::forward_is_noop(job.params);
    let defer_raw = !job.training;
    let workers = nthreads.min(nblocks);
    crate::pool::run(workers, workers, &|_, tid| {
        SCRATCH.with(|sc| {
            let mut sc = sc.borrow_mut();
            // Blocks this worker compressed that wait for their places, in
            // block order, and those that have one.
            let mut mine: Vec<Done> = Vec::new();
            let mut ready: Vec<(&mut [u8], Done)> = Vec::new();
            let mut raw = Vec::new();
            let copy_ready = |ready: &mut Vec<(&mut [u8], Done)>, raw: &mut Vec<RawStream>| {
                for (region, done) in ready.drain(..) {
                    done.write(region, job.src);
                    let Done {
                        buf,
                        raw: r,
                        filtered,
                        ..
                    } = done;
                    if raw.capacity() < r.capacity() {
                        *raw = r;
                    }
                    give_back(buf);
                    if let Some(f) = filtered {
                        give_back(f);
                    }
                }
            };
            let mut claimed = lock().claim(nblocks, cap);
            while let Some((j, direct)) = claimed {
                let mut st = match direct {
                    Some(whole) => {
                        let r =
                            compress_block(job, j, &mut whole[..cap(j)], &mut sc, tid as i32, None);
                        let mut st = lock();
                        match r {
                            Ok(Some(n)) => st.finished_direct(j, n, whole),
                            Ok(None) => st.stop = true,
                            Err(e) => st.fail(e),
                        }
                        st
                    }
                    None => {
                        let mut buf = take_buffer(cap(j));
                        raw.clear();
                        let to_raw = defer_raw.then_some(&mut raw);
                        let r =
                            compress_block(job, j, &mut buf[..cap(j)], &mut sc, tid as i32, to_raw);
                        let filtered = match r {
                            Ok(Some(_)) if !noop && !raw.is_empty() => {
                                let keep = if sc.out_in_b { &mut sc.b } else { &mut sc.a };
                                Some(std::mem::replace(keep, take_buffer(job.blocksize)))
                            }
                            _ => None,
                        };
                        let mut st = lock();
                        match r {
                            Ok(Some(n)) => {
                                st.finished(j, n, room);
                                mine.push(Done {
                                    j,
                                    buf,
                                    len: n,
                                    raw: std::mem::take(&mut raw),
                                    filtered,
                                });
                            }
                            Ok(None) => {
                                st.stop = true;
                                give_back(buf);
                            }
                            Err(e) => {
                                st.fail(e);
                                give_back(buf);
                            }
                        }
                        st
                    }
                };
                publish(&st);
                st.take_placed(&mut mine, &mut ready);
                claimed = st.claim(nblocks, cap);
                drop(st);
                copy_ready(&mut ready, &mut raw);
            }
            // Nothing left to claim: wait for the places of this worker's
            // blocks (the blocks before them are all being compressed by
            // running workers), copying each as soon as it has one.
            while let Some(first) = mine.first().map(|d| d.j) {
                let since = std::time::Instant::now();
                let mut spins = 0u32;
                while spin
                    && placed.load(Ordering::Acquire) <= first
                    && !stopped.load(Ordering::Acquire)
                {
                    std::hint::spin_loop();
                    spins += 1;
                    if spins.is_multiple_of(64) && since.elapsed() > WAIT_SPIN {
                        break;
                    }
                }
                let mut st = lock();
                while st.next <= first && !st.stop {
                    st.sleepers += 1;
                    st = wake.wait(st).unwrap_or_else(|e| e.into_inner());
                    st.sleepers -= 1;
                }
                if st.stop {
                    break;
                }
                st.take_placed(&mut mine, &mut ready);
                drop(st);
                copy_ready(&mut ready, &mut raw);
            }
            for d in mine {
                d.recycle();
            }
        })
    });
    let st = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some(e) = st.error {
        return Err(e);
    }
    if st.stop || st.next < nblocks {
        return Ok(None);
    }
    if !job.training {
        for (j, &s) in st.starts.iter().enumerate() {
            let at = bstarts_at + 4 * j;
            head[at..at + 4].copy_from_slice(&(s as i32).to_le_bytes());
        }
    }
    Ok(Some(st.offset))
}

/// The longest a worker spins waiting for its blocks' places before it sleeps.
const WAIT_SPIN: std::time::Duration = std::time::Duration::from_micros(50);

thread_local! {
    /// Output buffers of parallel blocks, kept by each thread between blocks
    /// and calls so that they are not allocated and zeroed again for every
    /// block, and stay in that thread's cache.
    static BUFFERS: RefCell<Vec<AlignedBuf>> = const { RefCell::new(Vec::new()) };
}

/// Most buffers, and most bytes in them, that one thread keeps.
const KEEP_BUFFERS: usize = 8;
const KEEP_BYTES: usize = 8 << 20;

/// A buffer of at least `n` bytes (the smallest kept one that is large
/// enough, else a kept one grown, else a new one).
fn take_buffer(n: usize) -> AlignedBuf {
    let mut v = BUFFERS
        .with(|b| {
            let mut b = b.borrow_mut();
            let fit = b
                .iter()
                .enumerate()
                .filter(|(_, v)| v.len() >= n)
                .min_by_key(|(_, v)| v.len())
                .map(|(i, _)| i);
            match fit {
                Some(i) => Some(b.swap_remove(i)),
                None => b.pop(),
            }
        })
        .unwrap_or_default();
    v.grow_to(n);
    v
}

fn give_back(v: AlignedBuf) {
    BUFFERS.with(|b| {
        let mut b = b.borrow_mut();
        let kept: usize = b.iter().map(|v| v.len()).sum();
        if b.len() < KEEP_BUFFERS && kept + v.len() <= KEEP_BYTES {
            b.push(v);
        }
    });
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
    let u = crate::filter::delta_unit(typesize.max(1) as usize);
    let without_delta;
    let params = if params.filters.contains(&DELTA)
        && u > 1
        && (!srcsize.is_multiple_of(u) || (nblocks > 1 && !blocksize.is_multiple_of(u)))
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
        // Ordinary stores: streaming this copy measured no faster
        // (2026-11-25, incompressible 4 MiB chunks, one thread), the time
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
