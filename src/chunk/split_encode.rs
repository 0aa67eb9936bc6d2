//! Compressing the streams of a one-block chunk on several threads.
//!
//! A chunk of one block gives the block-parallel compressor nothing to
//! share, yet a split block is made of `typesize` streams (one per byte of
//! the items) that compress independently: the small chunks of shuffled
//! data that BloscLZ, LZ4 and zstd's low levels split.  Shared, the calling
//! thread runs the filters, then it and the helpers compress the streams,
//! each into a buffer of its own, and the calling thread writes them into
//! the chunk in order: the bytes of the serial way.  Whether sharing pays
//! is decided per block by [`super::share_estimate`], from this thread's
//! estimates for the codec and compression level.

use super::compress::{compress_block, filter_block, is_run, lay_out_streams, Job};
use super::parallel::{give_back, take_buffer};
use super::pipeline::Scratch;
use super::share_estimate::{self, Estimates};
use crate::codec;
use crate::error::{Error, FirstError, Result};
use crate::plugin::CallInfo;
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Compression levels per codec in [`COST`].
const LEVELS: usize = 10;

thread_local! {
    /// Per built-in codec (its code, 0 to 5) and compression level.
    static COST: [Cell<Estimates>; 6 * LEVELS] =
        const { [const { Cell::new(Estimates::new(share_estimate::ENCODE)) }; 6 * LEVELS] };
}

/// Whether the chunk's single block is compressed as several streams that
/// helpers may take: a built-in codec (a user codec stays on the calling
/// thread, which may hold a lock that it needs, such as Python's GIL), a
/// split block of whole items, no dictionary training pass.
pub(super) fn shareable(job: &Job) -> bool {
    job.nblocks == 1
        && job.split
        && job.leftover == 0
        && job.typesize > 1
        && !job.training
        && codec::BUILTIN.contains(&job.params.compcode)
}

/// Compress the single block of `job` into `out` as
/// [`compress_block`] does (`Ok(None)`: it does not fit), on this thread or
/// shared with `nthreads - 1` helpers, whichever has been quicker.
pub(super) fn compress(
    job: &Job,
    out: &mut [u8],
    nthreads: usize,
    scratch: &mut Scratch,
) -> Result<Option<usize>> {
    let slot = job.params.compcode as usize * LEVELS + (job.params.clevel as usize).min(LEVELS - 1);
    COST.with(|c| {
        share_estimate::run(&c[slot], job.blocksize, |share| {
            if share {
                shared(job, out, nthreads, scratch)
            } else {
                compress_block(job, 0, out, scratch, 0, None)
            }
        })
    })
}

/// What became of one stream, compressed with room for `neblock` bytes.
#[derive(Clone, Copy)]
enum Outcome {
    /// A run of this byte: no codec call.
    Run(u8),
    /// Coded into this many bytes, fewer than `neblock`.
    Coded(usize),
    /// The codec did not make it smaller: stored raw.
    Raw,
}

/// Filter the block here, compress its streams on up to `nthreads`
/// threads, then lay them out here.
fn shared(
    job: &Job,
    out: &mut [u8],
    nthreads: usize,
    scratch: &mut Scratch,
) -> Result<Option<usize>> {
    let bsize = job.blocksize;
    let filtered = filter_block(job, 0, scratch, 0)?;
    let nstreams = job.typesize;
    let neblock = bsize / nstreams;
    let info = job.params.call_info(job.params.compcode_meta);
    let mut coded = take_buffer(bsize);
    let outcomes = {
        let slots: Vec<Mutex<(&mut [u8], Option<Outcome>)>> = coded[..bsize]
            .chunks_exact_mut(neblock)
            .map(|b| Mutex::new((b, None)))
            .collect();
        let next = AtomicUsize::new(0);
        let error = FirstError::default();
        // One job per thread, each claiming streams until none is left.
        let workers = nthreads.min(nstreams);
        crate::pool::run(workers, workers, &|_, _| loop {
            let s = next.fetch_add(1, Ordering::Relaxed);
            if s >= nstreams {
                break;
            }
            let ip = &filtered[s * neblock..(s + 1) * neblock];
            let mut slot = slots[s].lock().unwrap_or_else(|e| e.into_inner());
            let (buf, got) = &mut *slot;
            if job.extended && is_run(ip) {
                *got = Some(Outcome::Run(ip[0]));
                continue;
            }
            match job.code_stream(ip, buf, &info) {
                Ok(n) if n > 0 && n < neblock => *got = Some(Outcome::Coded(n)),
                Ok(_) => *got = Some(Outcome::Raw),
                Err(e) => {
                    error.keep(e);
                    break;
                }
            }
        });
        if let Err(e) = error.into_result() {
            give_back(coded);
            return Err(e);
        }
        slots
            .into_iter()
            .map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()).1)
            .collect::<Vec<_>>()
    };
    let laid = lay_out(job, out, filtered, &coded, neblock, &outcomes, &info);
    give_back(coded);
    laid
}

/// Write the streams into `out` in order, with the decisions of
/// [`compress_block`]: a stream whose room there is less than `neblock`
/// (the chunk's end is near) is compressed again with that room, as the
/// codec may decide otherwise with less of it.
fn lay_out(
    job: &Job,
    out: &mut [u8],
    filtered: &[u8],
    coded: &[u8],
    neblock: usize,
    outcomes: &[Option<Outcome>],
    info: &CallInfo,
) -> Result<Option<usize>> {
    // Every stream was claimed and none failed (or the caller returned).
    let outcomes: Vec<Outcome> = outcomes
        .iter()
        .map(|o| o.ok_or(Error::Failure))
        .collect::<Result<_>>()?;
    let run = |s: usize| match outcomes[s] {
        Outcome::Run(value) => Some(value),
        _ => None,
    };
    lay_out_streams(out, filtered, neblock, None, run, |s, dest| {
        Ok(match outcomes[s] {
            _ if dest.len() < neblock => {
                job.code_stream(&filtered[s * neblock..(s + 1) * neblock], dest, info)?
            }
            Outcome::Coded(n) => {
                dest[..n].copy_from_slice(&coded[s * neblock..s * neblock + n]);
                n
            }
            _ => 0,
        })
    })
}

/// Make this thread share the next block of a codec and level (for the
/// tests).
#[cfg(test)]
fn always_share(compcode: u8, clevel: u8) {
    let slot = compcode as usize * LEVELS + clevel as usize;
    COST.with(|c| c[slot].set(share_estimate::forced(true)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::tests::SPLIT_FILTER_SETS;
    use crate::chunk::{compress_into, decompress, CParams, DParams, SplitMode};
    use crate::format::header::SHUFFLE;

    /// Items whose low `random` bytes are noise and whose others follow a
    /// slow counter: streams that do not compress next to streams that do,
    /// as in arrays of measurements.
    fn data(n: usize, typesize: usize, random: usize) -> Vec<u8> {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut out = Vec::with_capacity(n);
        for i in 0..n / typesize {
            for b in 0..typesize {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                out.push(if b < random {
                    x as u8
                } else {
                    ((i >> 3) as u8).wrapping_mul(b as u8 + 1)
                });
            }
        }
        out
    }

    fn params(compcode: u8, clevel: u8, typesize: usize, filters: [u8; 6], len: usize) -> CParams {
        CParams {
            compcode,
            clevel,
            typesize: typesize as i32,
            blocksize: len as i32,
            splitmode: SplitMode::Always,
            filters,
            ..CParams::default()
        }
    }

    /// Compress into `room` bytes with `nthreads` (sharing forced when
    /// more than one): the size returned and the chunk.
    fn compress_with(p: &CParams, nthreads: i16, src: &[u8], room: usize) -> (usize, Vec<u8>) {
        let p = CParams {
            nthreads,
            ..p.clone()
        };
        if nthreads > 1 {
            always_share(p.compcode, p.clevel);
        }
        let mut dest = vec![0u8; room];
        let n = compress_into(&p, src, &mut dest).unwrap();
        dest.truncate(n);
        (n, dest)
    }

    #[test]
    fn shared_streams_make_the_serial_chunk() {
        let mut compressed = 0;
        for compcode in codec::BUILTIN {
            for typesize in [2usize, 4, 8, 16] {
                for filters in SPLIT_FILTER_SETS {
                    for random in [0, typesize / 2, typesize] {
                        let src = data(32 << 10, typesize, random);
                        let p = params(compcode, 5, typesize, filters, src.len());
                        let room = src.len() + 32;
                        let (n, serial) = compress_with(&p, 1, &src, room);
                        assert!(n > 0);
                        compressed += (n < src.len()) as usize;
                        for nthreads in [2i16, 3, 8] {
                            let (m, shared) = compress_with(&p, nthreads, &src, room);
                            assert!(
                                m == n && shared == serial,
                                "codec {compcode} typesize {typesize} filters {filters:?} \
                                 random bytes {random} nthreads {nthreads}"
                            );
                        }
                        assert_eq!(decompress(&DParams::default(), &serial).unwrap(), src);
                    }
                }
            }
        }
        // Of the 240 chunks, the 160 whose data is not all noise are
        // nearly all smaller than it.
        assert!(compressed >= 140, "only {compressed} chunks compressed");
    }

    #[test]
    fn shared_streams_fit_where_serial_ones_do() {
        // Seven streams of noise and one that compresses a little: with
        // little room the last streams get less than a stream's size, and
        // the codec must then decide as the serial way does.
        let typesize = 8;
        let src = data(16 << 10, typesize, 7);
        let neblock = src.len() / typesize;
        for compcode in [codec::BLOSCLZ, codec::LZ4, codec::ZLIB, codec::ZSTD] {
            for clevel in [5, 9] {
                let p = params(
                    compcode,
                    clevel,
                    typesize,
                    [0, 0, 0, 0, 0, SHUFFLE],
                    src.len(),
                );
                let rooms = (src.len() - neblock..src.len() + 40).step_by(7);
                let mut fitted = 0;
                for room in rooms.chain([32 + 4 + 8 * 4, 32 + 4 + neblock]) {
                    let (n, serial) = compress_with(&p, 1, &src, room);
                    let (m, shared) = compress_with(&p, 2, &src, room);
                    assert!(
                        m == n && shared == serial,
                        "codec {compcode} clevel {clevel} room {room}: {m} vs {n} bytes"
                    );
                    fitted += (n > 0 && n < src.len()) as usize;
                }
                assert!(fitted > 0, "codec {compcode} clevel {clevel}");
            }
        }
    }
}
