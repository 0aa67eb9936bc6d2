//! Decoding the streams of a one-block chunk on several threads.
//!
//! A chunk of one block gives the block-parallel decoder nothing to share,
//! yet its block is made of up to `typesize` streams (one per byte of the
//! items) that decode independently.  Sharing them pays when they take long
//! to decode (zstd or zlib, or any codec on data it decodes slowly), and
//! costs when they are quick: handing streams to another core and reading
//! back what it wrote takes a couple of microseconds for a 64 KiB block.
//! So each calling thread keeps, per codec, an estimate of how long such a
//! block takes to decode on one thread (timing one serial decode in
//! [`SAMPLE_SERIAL`]), and shares the next one only when that estimate is
//! above [`pays`]'s threshold.

use super::decompress::{
    decode_block, finish_block, next_stream, write_stream, Layout, Parsed, Stream,
};
use super::params::DParams;
use super::pipeline::Scratch;
use crate::error::{Error, Result};
use crate::format::header::Special;
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

thread_local! {
    /// Per codec format (the low three bits of the flags): the estimated
    /// time to decode a one-block chunk's block, in ns per KiB (0: none yet).
    static COST: Cell<[u32; 8]> = const { Cell::new([0; 8]) };
    /// Counts the one-block chunks decoded, for the sampling below.
    static CALLS: Cell<u32> = const { Cell::new(0) };
}

/// One serial decode in this many is timed (a clock read costs ~25 ns,
/// about 1% of the quickest blocks this applies to).
const SAMPLE_SERIAL: u32 = 8;

/// One block in this many that would be shared is decoded serially and
/// timed instead (a multiple of [`SAMPLE_SERIAL`]).
const SAMPLE_SHARED: u32 = 16;

/// Whether the chunk's single block is made of several streams.
pub(super) fn splittable(p: &Parsed) -> bool {
    p.special == Special::None
        && !p.memcpyed
        && !p.h.dont_split()
        && p.typesize > 1
        && p.leftover == 0
        // A user codec stays on the calling thread: one that needs a lock
        // the caller holds (a Python callback and the GIL) would wait
        // forever on a helper.
        && p.h.compformat() != crate::codec::FORMAT_UDCODEC
}

/// Whether sharing a block of `bsize` bytes estimated at `ns_per_kib`
/// pays: it must take longer than a fixed cost (waking a helper, about
/// 2 us) plus a cost per byte (moving the helper's streams between cores).
/// With two threads a block saves about half its stream time, so the
/// break-even sits near twice that cost; the margin keeps blocks near it
/// serial.  Measured on the 2-core Zen 5 VM with 64 KiB chunks (see
/// README, Speed): blocks decoded at 3.4 us lost 25% when shared, at 7.5 us
/// and more they gained 20-40%.
fn pays(ns_per_kib: u32, bsize: usize) -> bool {
    let kib = (bsize / 1024) as u64;
    ns_per_kib as u64 * kib >= FIXED_NS + PER_KIB_NS * kib
}

/// The two parts of [`pays`]'s threshold (7.2 us for a 64 KiB block).
const FIXED_NS: u64 = 3000;
const PER_KIB_NS: u64 = 65;

fn record(format: u8, bsize: usize, ns: u64) {
    let kib = (bsize / 1024).max(1) as u64;
    let sample = (ns / kib).min(u32::MAX as u64) as u32;
    COST.with(|c| {
        let mut v = c.get();
        let slot = &mut v[(format & 7) as usize];
        // Up by a quarter of the difference, down by half: a block slowed
        // by an interrupt or a page fault does not make the next ones
        // shared, while data that decodes slower for good gets there
        // after a few samples.
        *slot = match *slot {
            0 => sample,
            old if sample > old => old + (sample - old) / 4,
            old => old - (old - sample) / 2,
        };
        c.set(v);
    });
}

/// Decode the single block of `p` into `out` with `nthreads` threads when
/// that pays, else on this thread.
pub(super) fn decode(
    p: &Parsed,
    dparams: &DParams,
    out: &mut [u8],
    nthreads: usize,
    scratch: &mut Scratch,
) -> Result<()> {
    let format = p.h.compformat();
    let bsize = out.len();
    let cost = COST.with(|c| c.get()[(format & 7) as usize]);
    let n = CALLS.with(|c| {
        let n = c.get().wrapping_add(1);
        c.set(n);
        n
    });
    // Only serial decodes are timed: a shared one is slower than its
    // streams would have been alone (its helper's writes and this thread's
    // reads of them move between cores), so timing it would keep sharing
    // blocks that are better decoded here.  A shared block is therefore
    // decoded here now and then, to notice when it stops paying.
    if cost != 0 && pays(cost, bsize) && !n.is_multiple_of(SAMPLE_SHARED) {
        return shared(p, dparams, out, nthreads, scratch);
    }
    if cost != 0 && !n.is_multiple_of(SAMPLE_SERIAL) {
        return decode_block(p, dparams, 0, out, None, scratch, 0);
    }
    let start = Instant::now();
    decode_block(p, dparams, 0, out, None, scratch, 0)?;
    record(format, bsize, start.elapsed().as_nanos() as u64);
    Ok(())
}

/// Decode the block's streams on up to `nthreads` threads, then undo the
/// filters on this one.
fn shared(
    p: &Parsed,
    dparams: &DParams,
    out: &mut [u8],
    nthreads: usize,
    scratch: &mut Scratch,
) -> Result<()> {
    let bsize = out.len();
    let lay = Layout::new(p, dparams, bsize, false)?;
    let nstreams = bsize / lay.neblock;
    let mut streams = Vec::with_capacity(nstreams);
    let mut src = &p.src[p.bstart(0)..];
    for _ in 0..nstreams {
        let (stream, rest) = next_stream(src, lay.neblock)?;
        streams.push(stream);
        src = rest;
    }
    // Largest coded streams first, so that the last ones claimed are quick.
    let mut order: Vec<usize> = (0..nstreams).collect();
    order.sort_by_key(|&s| match streams[s] {
        Stream::Coded(d) => usize::MAX - d.len(),
        Stream::Raw(_) => usize::MAX - 1,
        Stream::Fill(_) => usize::MAX,
    });
    scratch.ensure(bsize);
    let Scratch { a, b, .. } = scratch;
    {
        let target: &mut [u8] = if lay.in_tmp {
            &mut a[..bsize]
        } else {
            &mut out[..]
        };
        let slots: Vec<Mutex<&mut [u8]>> = target
            .chunks_exact_mut(lay.neblock)
            .map(Mutex::new)
            .collect();
        let next = AtomicUsize::new(0);
        let error: Mutex<Option<Error>> = Mutex::new(None);
        let lay = &lay;
        // One job per thread, each claiming streams until none is left.
        crate::pool::run(
            nthreads.min(nstreams),
            nthreads.min(nstreams),
            &|_, _| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= nstreams {
                    break;
                }
                let s = order[k];
                let mut dst = slots[s].lock().unwrap_or_else(|e| e.into_inner());
                if let Err(e) = write_stream(p, lay, streams[s], &mut dst) {
                    error
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .get_or_insert(e);
                    break;
                }
            },
        );
        if let Some(e) = error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            return Err(e);
        }
    }
    finish_block(p, dparams, &lay, 0, out, a, b, None, 0)
}

/// Set this thread's estimate for a codec format (tests force or forbid
/// sharing with it).
#[cfg(test)]
fn set_estimate(format: u8, ns_per_kib: u32) {
    COST.with(|c| {
        let mut v = c.get();
        v[(format & 7) as usize] = ns_per_kib;
        c.set(v);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::{compress, decompress_into, CParams, SplitMode};
    use crate::codec;
    use crate::format::header::{BITSHUFFLE, DELTA, NOFILTER, SHUFFLE};

    /// Items whose low bytes vary and high bytes repeat, as in real arrays.
    fn data(n: usize, typesize: usize) -> Vec<u8> {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        (0..n / typesize)
            .flat_map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let v = (i as u64 * 3) ^ (x & 0x3f);
                v.to_le_bytes().into_iter().cycle().take(typesize)
            })
            .collect()
    }

    /// A one-block chunk of several streams, or None when the codec left
    /// the data stored.
    fn one_block(compcode: u8, typesize: usize, filters: [u8; 6]) -> Option<(Vec<u8>, Vec<u8>)> {
        let src = data(64 << 10, typesize);
        let params = CParams {
            compcode,
            clevel: 5,
            typesize: typesize as i32,
            blocksize: src.len() as i32,
            splitmode: SplitMode::Always,
            filters,
            ..CParams::default()
        };
        let chunk = compress(&params, &src).unwrap();
        let p = crate::chunk::decompress::parse(&chunk).unwrap();
        assert_eq!(p.nblocks, 1);
        if p.memcpyed {
            return None;
        }
        assert!(splittable(&p), "codec {compcode} typesize {typesize}");
        Some((src, chunk))
    }

    fn decode_with(chunk: &[u8], nthreads: i16, len: usize) -> crate::error::Result<Vec<u8>> {
        let dp = DParams {
            nthreads,
            ..DParams::default()
        };
        let mut out = vec![0u8; len];
        decompress_into(&dp, chunk, &mut out)?;
        Ok(out)
    }

    #[test]
    fn shared_blocks_decode_exactly() {
        let filter_sets = [
            [0, 0, 0, 0, 0, NOFILTER],
            [0, 0, 0, 0, 0, SHUFFLE],
            [0, 0, 0, 0, 0, BITSHUFFLE],
            [0, 0, 0, 0, DELTA, SHUFFLE],
        ];
        let mut tested = 0;
        for compcode in [
            codec::BLOSCLZ,
            codec::LZ4,
            codec::LZ4HC,
            codec::ZLIB,
            codec::ZSTD,
        ] {
            for typesize in [2usize, 4, 8, 16] {
                for filters in filter_sets {
                    let Some((src, chunk)) = one_block(compcode, typesize, filters) else {
                        continue;
                    };
                    tested += 1;
                    let format = crate::format::header::ChunkHeader::parse(&chunk)
                        .unwrap()
                        .compformat();
                    let serial = decode_with(&chunk, 1, src.len()).unwrap();
                    assert!(serial == src);
                    for nthreads in [2i16, 3, 8] {
                        // Far above the threshold: every block is shared
                        // but one in SAMPLE_SHARED.
                        for _ in 0..SAMPLE_SHARED {
                            set_estimate(format, u32::MAX / 2);
                            let out = decode_with(&chunk, nthreads, src.len()).unwrap();
                            assert!(
                                out == serial,
                                "codec {compcode} typesize {typesize} filters {filters:?} \
                                 nthreads {nthreads}"
                            );
                        }
                    }
                }
            }
        }
        // 5 codecs x 4 typesizes x 4 filter sets, less the stored ones.
        assert!(tested >= 60, "only {tested} chunks were compressed");
    }

    #[test]
    fn shared_blocks_report_bad_streams() {
        let (src, chunk) = one_block(codec::ZSTD, 8, [0, 0, 0, 0, 0, SHUFFLE]).unwrap();
        let format = codec::FORMAT_ZSTD;
        // Damage every byte of the block's streams in turn (a sample of
        // them): a shared decode must fail or give the serial result,
        // never panic or differ.
        let start = crate::chunk::decompress::parse(&chunk).unwrap().bstart(0);
        for at in (start..chunk.len()).step_by(7) {
            let mut bad = chunk.clone();
            bad[at] ^= 0x5a;
            let serial = decode_with(&bad, 1, src.len());
            for _ in 0..SAMPLE_SHARED {
                set_estimate(format, u32::MAX / 2);
                let shared = decode_with(&bad, 2, src.len());
                match (&serial, &shared) {
                    (Ok(a), Ok(b)) => assert!(a == b, "byte {at}"),
                    (Err(_), Err(_)) => {}
                    _ => panic!(
                        "byte {at}: serial {:?} shared {:?}",
                        serial.is_ok(),
                        shared.is_ok()
                    ),
                }
            }
        }
    }

    #[test]
    fn estimate_follows_the_samples() {
        let format = codec::FORMAT_LZ4;
        set_estimate(format, 0);
        record(format, 64 << 10, 64 * 100);
        assert_eq!(COST.with(|c| c.get()[1]), 100);
        // An outlier moves it up by a quarter, a quick block down by half.
        record(format, 64 << 10, 64 * 500);
        assert_eq!(COST.with(|c| c.get()[1]), 200);
        record(format, 64 << 10, 64 * 100);
        assert_eq!(COST.with(|c| c.get()[1]), 150);
        assert!(!pays(100, 64 << 10));
        assert!(pays(120, 64 << 10));
        assert!(!pays(u32::MAX, 512));
    }
}
