//! Compressing the blocks of one chunk on several threads, into the same
//! bytes as the serial path of [`super::compress`].

use super::compress::{compress_block, Job, RawStream, SCRATCH};
use super::pipeline::{self, AlignedBuf};
use crate::error::{Error, Result};
use std::cell::RefCell;

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
            super::copy_bytes(&src[r.src..r.src + r.len], &mut to[r.at..r.at + r.len]);
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

/// Compress all blocks after `start` (where the bstarts table begins) in
/// `dest` with `nthreads` workers; the chunk is byte for byte the serial
/// one.  Returns the total size, or None when the data does not fit.
pub(super) fn compress_blocks(
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
pub(super) fn take_buffer(n: usize) -> AlignedBuf {
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

pub(super) fn give_back(v: AlignedBuf) {
    BUFFERS.with(|b| {
        let mut b = b.borrow_mut();
        let kept: usize = b.iter().map(|v| v.len()).sum();
        if b.len() < KEEP_BUFFERS && kept + v.len() <= KEEP_BYTES {
            b.push(v);
        }
    });
}
