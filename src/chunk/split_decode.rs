//! Decoding the streams of a one-block chunk on several threads.
//!
//! A chunk of one block gives the block-parallel decoder nothing to share,
//! yet its block is made of up to `typesize` streams (one per byte of the
//! items) that decode independently.  Whether sharing them pays is decided
//! per block by [`super::share_estimate`], from this thread's estimates for
//! the chunk's codec format.

use super::decompress::{
    decode_block, finish_block, next_stream, unshuffle_stream_rows, write_stream, Layout, Stream,
};
use super::params::DParams;
use super::parsed::Parsed;
use super::pipeline::Scratch;
use super::share_estimate::{self, Estimates};
use crate::error::{FirstError, Result};
use crate::format::header::Special;
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

thread_local! {
    /// Per codec format (the low three bits of the flags).
    static COST: [Cell<Estimates>; 8] = const { [const { Cell::new(Estimates::new(share_estimate::DECODE)) }; 8] };
}

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

/// Decode the single block of `p` into `out`, on this thread or shared
/// with `nthreads - 1` helpers, whichever has been quicker.
pub(super) fn decode(
    p: &Parsed,
    dparams: &DParams,
    out: &mut [u8],
    nthreads: usize,
    scratch: &mut Scratch,
) -> Result<()> {
    let slot = (p.h.compformat() & 7) as usize;
    COST.with(|c| {
        share_estimate::run(&c[slot], out.len(), |share| {
            if share {
                shared(p, dparams, out, nthreads, scratch)
            } else {
                decode_block(p, dparams, 0, out, None, scratch, 0)
            }
        })
    })
}

/// Decode the block's streams on up to `nthreads` threads, then undo the
/// filters on this one.  As in the serial decoder, when the only filter is
/// a byte shuffle of the streams, those stored raw are not copied: the
/// unshuffle reads them in the chunk.
fn shared(
    p: &Parsed,
    dparams: &DParams,
    out: &mut [u8],
    nthreads: usize,
    scratch: &mut Scratch,
) -> Result<()> {
    let bsize = out.len();
    let lay = Layout::new(p, dparams, bsize, false)?;
    let nstreams = lay.nstreams;
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
    scratch.ensure(bsize)?;
    let Scratch { a, b, .. } = scratch;
    {
        let target: &mut [u8] = if lay.in_tmp {
            &mut a[..bsize]
        } else {
            &mut out[..]
        };
        let slots: Vec<Mutex<&mut [u8]>> = lay.slots_mut(target).map(Mutex::new).collect();
        let next = AtomicUsize::new(0);
        let error = FirstError::default();
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
                if lay.shuffle_rows && matches!(streams[s], Stream::Raw(_)) {
                    continue;
                }
                let mut dst = slots[s].lock().unwrap_or_else(|e| e.into_inner());
                if let Err(e) = write_stream(p, lay, streams[s], &mut dst) {
                    error.keep(e);
                    break;
                }
            },
        );
        error.into_result()?;
    }
    if lay.shuffle_rows {
        return unshuffle_stream_rows(p, &lay, &streams, &a[..bsize], out);
    }
    finish_block(p, dparams, &lay, 0, out, a, b, None, 0)
}

/// Make this thread share every block of a codec format outside trials
/// of the serial way (for the tests).
#[cfg(test)]
fn always_share(format: u8) {
    COST.with(|c| c[(format & 7) as usize].set(share_estimate::forced(true)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::tests::SPLIT_FILTER_SETS;
    use crate::chunk::{compress, decompress_into, CParams, SplitMode};
    use crate::codec;
    use crate::format::header::SHUFFLE;

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
        let p = crate::chunk::parsed::parse(&chunk).unwrap();
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
        let mut tested = 0;
        for compcode in codec::BUILTIN {
            for typesize in [2usize, 4, 8, 16] {
                for filters in SPLIT_FILTER_SETS {
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
                        // Far above the threshold and sharing far quicker:
                        // every block is shared but those of the trials
                        // of the serial way (the last TRIAL of 32).
                        for _ in 0..16 {
                            always_share(format);
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
    fn shared_blocks_read_raw_streams_in_place() {
        // Noisy float64: the low bytes' streams stay raw, the high ones code.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let src: Vec<u8> = (0..(64 << 10) / 8)
            .flat_map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (i as f64 * 1e-3 + (x >> 11) as f64 * 1e-25).to_le_bytes()
            })
            .collect();
        for compcode in [codec::BLOSCLZ, codec::LZ4, codec::ZSTD] {
            let params = CParams {
                compcode,
                typesize: 8,
                blocksize: src.len() as i32,
                filters: [0, 0, 0, 0, 0, SHUFFLE],
                splitmode: SplitMode::Always,
                ..CParams::default()
            };
            let chunk = compress(&params, &src).unwrap();
            let p = crate::chunk::parsed::parse(&chunk).unwrap();
            assert_eq!(p.nblocks, 1);
            let mut rest = &chunk[p.bstart(0)..];
            let mut raw = 0;
            for _ in 0..8 {
                let (stream, next) = next_stream(rest, src.len() / 8).unwrap();
                raw += usize::from(matches!(stream, Stream::Raw(_)));
                rest = next;
            }
            assert!((1..8).contains(&raw), "codec {compcode}: {raw} raw");
            let format = crate::format::header::ChunkHeader::parse(&chunk)
                .unwrap()
                .compformat();
            for nthreads in [2i16, 3, 8] {
                for _ in 0..16 {
                    always_share(format);
                    let out = decode_with(&chunk, nthreads, src.len()).unwrap();
                    assert!(out == src, "codec {compcode} nthreads {nthreads}");
                }
            }
        }
    }

    #[test]
    fn shared_blocks_report_bad_streams() {
        let (src, chunk) = one_block(codec::ZSTD, 8, [0, 0, 0, 0, 0, SHUFFLE]).unwrap();
        let format = codec::FORMAT_ZSTD;
        // Damage every byte of the block's streams in turn (a sample of
        // them): a shared decode must fail or give the serial result,
        // never panic or differ.
        let start = crate::chunk::parsed::parse(&chunk).unwrap().bstart(0);
        for at in (start..chunk.len()).step_by(7) {
            let mut bad = chunk.clone();
            bad[at] ^= 0x5a;
            let serial = decode_with(&bad, 1, src.len());
            for _ in 0..16 {
                always_share(format);
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
}
