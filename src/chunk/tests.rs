use super::*;
use crate::codec;
use crate::format::header::*;

/// Filter pipelines for the tests of blocks split into streams: none, the
/// byte and bit shuffles, and delta before a shuffle.
pub(super) const SPLIT_FILTER_SETS: [[u8; 6]; 4] = [
    [0, 0, 0, 0, 0, NOFILTER],
    [0, 0, 0, 0, 0, SHUFFLE],
    [0, 0, 0, 0, 0, BITSHUFFLE],
    [0, 0, 0, 0, DELTA, SHUFFLE],
];

fn sample(n: usize) -> Vec<u8> {
    (0..n / 4)
        .flat_map(|i| ((i as u32) / 3).to_le_bytes())
        .chain(std::iter::repeat_n(7u8, n % 4))
        .collect()
}

#[test]
fn round_trip_codecs_and_filters() {
    for codec_id in codec::BUILTIN {
        for &filt in &[NOFILTER, SHUFFLE, BITSHUFFLE] {
            for &n in &[0usize, 1, 31, 32, 100, 4096, 100_003, 1 << 20] {
                for &clevel in &[0u8, 1, 5, 9] {
                    let data = sample(n);
                    let params = CParams {
                        compcode: codec_id,
                        clevel,
                        typesize: 4,
                        filters: [0, 0, 0, 0, 0, filt],
                        ..CParams::default()
                    };
                    let c = compress(&params, &data).unwrap();
                    let d = decompress(&DParams::default(), &c).unwrap();
                    assert!(
                        d == data,
                        "codec {codec_id} filter {filt} n {n} clevel {clevel}"
                    );
                }
            }
        }
    }
}

#[test]
fn delta_and_threads() {
    let data = sample(1 << 20);
    for nthreads in [1i16, 2, 4] {
        let params = CParams {
            typesize: 4,
            nthreads,
            filters: [0, 0, 0, 0, DELTA, SHUFFLE],
            ..CParams::default()
        };
        let c = compress(&params, &data).unwrap();
        let dp = DParams {
            nthreads,
            ..DParams::default()
        };
        assert!(decompress(&dp, &c).unwrap() == data, "nthreads {nthreads}");
    }
}

#[test]
fn zero_chunk_is_special() {
    let data = vec![0u8; 100_000];
    let c = compress(&CParams::default(), &data).unwrap();
    assert_eq!(c.len(), 32);
    assert!(decompress(&DParams::default(), &c).unwrap() == data);
}

#[test]
fn special_chunk_with_lazy_bit_decodes() {
    // A zeros chunk whose blosc2 flags also carry the lazy bit (found by the
    // differential fuzzer): the reference ignores the bit on special chunks.
    let data = vec![0u8; 4096];
    let mut c = compress(&CParams::default(), &data).unwrap();
    assert!(ChunkHeader::parse(&c).unwrap().special() == Some(Special::Zero));
    c[31] |= B2_LAZY;
    assert!(decompress(&DParams::default(), &c).unwrap() == data);
}

#[test]
fn empty_chunk_with_lazy_bit_decodes() {
    // Likewise an empty chunk: nothing to fetch, the reference returns 0.
    let mut c = compress(&CParams::default(), &[]).unwrap();
    c[31] |= B2_LAZY;
    assert_eq!(
        decompress(&DParams::default(), &c).unwrap(),
        Vec::<u8>::new()
    );
}

#[test]
fn getitem_matches_slices() {
    let data = sample(300_000);
    let params = CParams {
        typesize: 4,
        blocksize: 16384,
        ..CParams::default()
    };
    let c = compress(&params, &data).unwrap();
    let mut out = vec![0u8; 4 * 1000];
    for start in [0i64, 1, 4095, 4096, 70_000] {
        let n = getitem(&DParams::default(), &c, start, 1000, &mut out).unwrap();
        assert_eq!(n, 4000);
        assert!(out[..] == data[start as usize * 4..start as usize * 4 + 4000]);
    }
}

#[test]
fn blocksize_bigger_than_buffer_round_trips() {
    // The reference writes a header it cannot decode for this case.
    let data = sample(65549);
    for codec_id in [codec::LZ4, codec::BLOSCLZ] {
        let params = CParams {
            compcode: codec_id,
            typesize: 8,
            blocksize: 131072,
            splitmode: SplitMode::Never,
            ..CParams::default()
        };
        let c = compress(&params, &data).unwrap();
        assert!(decompress(&DParams::default(), &c).unwrap() == data);
    }
}

#[test]
fn dicts_round_trip() {
    let data: Vec<u8> = (0..400_000u32)
        .flat_map(|i| (i % 1000).to_le_bytes())
        .collect();
    for codec_id in [codec::ZSTD, codec::LZ4, codec::LZ4HC] {
        let params = CParams {
            compcode: codec_id,
            use_dict: true,
            typesize: 4,
            ..CParams::default()
        };
        let c = compress(&params, &data).unwrap();
        let h = header(&c).unwrap();
        assert!(h.use_dict(), "codec {codec_id}");
        assert!(decompress(&DParams::default(), &c).unwrap() == data);
    }
}

/// Compress `data` with `filter` and decompress it into destinations that
/// start 0 and `shifts` bytes past an allocation; check the bytes and that
/// nothing around them was written.
fn check_large_round_trip(data: &[u8], filter: u8, typesize: i32, nthreads: i16, shifts: &[usize]) {
    let n = data.len();
    let params = CParams {
        typesize,
        nthreads,
        filters: [0, 0, 0, 0, 0, filter],
        ..CParams::default()
    };
    let c = compress(&params, data).unwrap();
    let dp = DParams {
        nthreads,
        ..DParams::default()
    };
    for &shift in shifts {
        let mut buf = vec![0xEEu8; n + shift + 64];
        let got = decompress_into(&dp, &c, &mut buf[shift..shift + n + 64]).unwrap();
        assert_eq!(got, n);
        assert!(
            buf[shift..shift + n] == data[..],
            "filter {filter} typesize {typesize} nthreads {nthreads} shift {shift}"
        );
        assert!(buf[..shift].iter().all(|&b| b == 0xEE));
        assert!(buf[shift + n..].iter().all(|&b| b == 0xEE));
    }
}

thread_local! {
    /// Set by a test to fix [`stream_min_bytes`] on its own thread (the
    /// machine's cache decides it otherwise, up to tens of MiB).
    pub(super) static STREAM_MIN_OVERRIDE: std::cell::Cell<Option<usize>> =
        const { std::cell::Cell::new(None) };
}

/// The streaming threshold these tests use, set for the calling thread.
const TEST_STREAM_MIN: usize = 3 << 20;

fn force_stream_min() {
    STREAM_MIN_OVERRIDE.with(|c| c.set(Some(TEST_STREAM_MIN)));
}

/// Chunks of at least `stream_min_bytes()` (bit)unshuffle
/// with streaming stores: the same bytes for the typesizes the streaming
/// kernels cover and another, into aligned and misaligned destinations, with
/// one and two threads, and nothing written past the chunk.
#[test]
fn large_chunks_stream_the_same_bytes() {
    force_stream_min();
    let data = sample(2 * TEST_STREAM_MIN + 48);
    for filter in [SHUFFLE, BITSHUFFLE] {
        for typesize in [2, 4, 8, 16, 3] {
            for nthreads in [1, 2] {
                check_large_round_trip(&data, filter, typesize, nthreads, &[0, 8, 1]);
            }
        }
    }
}

/// Large plain-copy (incompressible) chunks and raw streams are copied with
/// streaming stores: the same bytes, aligned or not, one or two threads.
#[test]
fn large_incompressible_chunks_stream_the_same_bytes() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    force_stream_min();
    let data: Vec<u8> = (0..2 * TEST_STREAM_MIN + 100).map(|_| rng.gen()).collect();
    for filter in [NOFILTER, SHUFFLE] {
        for nthreads in [1, 2] {
            check_large_round_trip(&data, filter, 8, nthreads, &[0, 3]);
        }
    }
}

#[test]
fn cache_sizes_parse_as_sysfs_writes_them() {
    assert_eq!(parse_cache_size("32768K\n"), Some(32 << 20));
    assert_eq!(parse_cache_size("8M"), Some(8 << 20));
    assert_eq!(parse_cache_size("1024"), Some(1024));
    assert_eq!(parse_cache_size(""), None);
    assert_eq!(parse_cache_size("K"), None);
    assert_eq!(parse_cache_size("12X"), None);
    assert_eq!(parse_cache_size("99999999999999999999G"), None);
}

/// Without an override the threshold is the fallback or 3/8 of a cache of
/// at least 64 KiB, and the same on every call.
#[test]
fn stream_threshold_comes_from_the_cache() {
    let t = stream_min_bytes();
    assert!(t == STREAM_MIN_FALLBACK || t >= (64 << 10) / 8 * 3, "{t}");
    assert_eq!(stream_min_bytes(), t);
    if let Some(c) = last_level_cache_bytes() {
        assert_eq!(t, c / 8 * 3);
    }
}

/// Plain-copy chunks below the streaming threshold are copied in
/// `COPY_PIECE` pieces: the same bytes, with a partial last piece, one or
/// two threads, aligned or not.
#[test]
fn large_incompressible_chunks_copy_in_pieces() {
    use rand::{Rng, SeedableRng};
    STREAM_MIN_OVERRIDE.with(|c| c.set(Some(usize::MAX)));
    let mut rng = rand::rngs::StdRng::seed_from_u64(6);
    let data: Vec<u8> = (0..4 * COPY_PIECE + 4100).map(|_| rng.gen()).collect();
    for nthreads in [1, 2] {
        check_large_round_trip(&data, NOFILTER, 8, nthreads, &[0, 5]);
    }
}

/// Parallel compression writes the serial path's chunk, byte for byte, with
/// any thread count: blocks finishing in any order, streams stored raw (the
/// random stretches), a leftover block. In a destination of exactly the
/// chunk's size the serial path can give up where the parallel one fits (its
/// codecs get only the room left, the parallel ones a block's worth, as in
/// the reference's two paths), but every thread count above one decides
/// alike, and one byte less fits with none.
#[test]
fn parallel_chunks_equal_serial() {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let data: Vec<u8> = (0..(600_000 / 8))
        .flat_map(|i: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // 64 KiB stretches of random words between stretches of a ramp.
            let v = if (i / 8192) % 3 == 1 { x } else { i / 5 };
            v.to_le_bytes()
        })
        .chain([1, 2, 3, 4, 5])
        .collect();
    for (codec_id, clevel) in [(codec::BLOSCLZ, 5), (codec::LZ4, 1), (codec::ZSTD, 1)] {
        for filt in [NOFILTER, SHUFFLE, BITSHUFFLE] {
            for typesize in [8, 3] {
                let params = |nthreads| CParams {
                    compcode: codec_id,
                    clevel,
                    typesize,
                    nthreads,
                    blocksize: 16 << 10,
                    filters: [0, 0, 0, 0, 0, filt],
                    ..CParams::default()
                };
                let serial = compress(&params(1), &data).unwrap();
                assert!(serial.len() < data.len());
                let tight = |nthreads, room| {
                    let mut d = vec![0u8; room];
                    let n = compress_into(&params(nthreads), &data, &mut d).unwrap();
                    d.truncate(n);
                    d
                };
                let exact = tight(2, serial.len());
                assert!(exact.is_empty() || exact == serial);
                for nthreads in [2, 3, 8, 16] {
                    let what = format!(
                        "codec {codec_id} filter {filt} typesize {typesize} nthreads {nthreads}"
                    );
                    let c = compress(&params(nthreads), &data).unwrap();
                    assert!(c == serial, "{what}");
                    for _ in 0..4 {
                        assert!(tight(nthreads, serial.len()) == exact, "{what}");
                    }
                    assert!(tight(nthreads, serial.len() - 1).is_empty(), "{what}");
                }
            }
        }
    }
}

/// A chunk with the instrumented-codec flag decodes to its streams as
/// stored: the filters (and a postfilter) are not undone, as in the
/// reference, whose instrumented chunks hold measurements, not data.
#[test]
fn instrumented_chunk_skips_the_filters() {
    let data = sample(16384);
    let params = CParams {
        typesize: 4,
        blocksize: 4096,
        filters: [0, 0, 0, 0, 0, SHUFFLE],
        ..CParams::default()
    };
    let mut c = compress(&params, &data).unwrap();
    assert_eq!(decompress(&DParams::default(), &c).unwrap(), data);
    c[31] |= B2_INSTR_CODEC;
    let d = decompress(&DParams::default(), &c).unwrap();
    let shuffled: Vec<u8> = data
        .chunks(4096)
        .flat_map(|block| (0..4).flat_map(move |k| block.iter().skip(k).step_by(4).copied()))
        .collect();
    assert_eq!(d, shuffled);
}

#[test]
fn header_sizes_and_validation_read_only_the_first_bytes() {
    let data = sample(1000);
    let params = CParams {
        typesize: 4,
        blocksize: 4096,
        ..CParams::default()
    };
    let c = compress(&params, &data).unwrap();
    let (nbytes, cbytes, blocksize) = reported_sizes(&c[..MIN_HEADER_LENGTH]).unwrap();
    assert_eq!((nbytes, cbytes as usize), (1000, c.len()));
    // One block larger than the data is reported as the data's size.
    assert_eq!(blocksize, 1000);
    assert_eq!(validated_nbytes(&c[..MIN_HEADER_LENGTH], c.len()), Ok(1000));
    assert_eq!(
        validated_nbytes(&c[..MIN_HEADER_LENGTH], c.len() + 1),
        Err(Error::InvalidHeader)
    );
    assert_eq!(validated_nbytes(&c[..8], 8), Err(Error::WriteBuffer));
    let mut huge = c.clone();
    huge[4..8].copy_from_slice(&i32::MAX.to_le_bytes());
    assert_eq!(
        validated_nbytes(&huge[..MIN_HEADER_LENGTH], c.len()),
        Err(Error::MemoryAlloc)
    );
}

#[test]
fn whole_item_reads_refuse_partial_items() {
    let data = sample(400);
    let params = CParams {
        typesize: 4,
        ..CParams::default()
    };
    let c = compress(&params, &data).unwrap();
    let dp = DParams::default();
    let mut out = [0u8; 8];
    assert_eq!(getitem_whole_items(&dp, &c, 8, 8, &mut out), Ok(8));
    assert_eq!(&out, &data[8..16]);
    assert_eq!(
        getitem_whole_items(&dp, &c, 2, 8, &mut out),
        Err(Error::InvalidParam)
    );
    assert_eq!(
        getitem_whole_items(&dp, &c, 8, 6, &mut out),
        Err(Error::InvalidParam)
    );
}

#[test]
fn a_mask_skips_its_blocks_and_no_mask_decompresses_all() {
    let data = sample(4 * 1024);
    let params = CParams {
        typesize: 4,
        blocksize: 1024,
        ..CParams::default()
    };
    let c = compress(&params, &data).unwrap();
    let dp = DParams::default();
    let mut all = vec![0u8; data.len()];
    assert_eq!(
        decompress_with_mask(&dp, &c, &mut all, None),
        Ok(data.len())
    );
    assert_eq!(all, data);
    let mut some = vec![0u8; data.len()];
    let mask = [false, true, true, false];
    assert!(decompress_with_mask(&dp, &c, &mut some, Some(&mask)).is_ok());
    assert_eq!(some[..1024], data[..1024]);
    assert!(some[1024..3072].iter().all(|&b| b == 0));
    assert_eq!(some[3072..], data[3072..]);
}

#[test]
fn a_new_chunk_holds_only_its_bytes() {
    // Worst-case room is needed while compressing, not afterwards: a super-chunk
    // keeps thousands of these.
    let src: Vec<u8> = (0..32768u32).flat_map(|i| (i / 64).to_le_bytes()).collect();
    let cp = CParams {
        typesize: 4,
        ..CParams::default()
    };
    for _ in 0..2 {
        let c = compress(&cp, &src).unwrap();
        assert!(c.len() < src.len() / 8, "{} bytes", c.len());
        assert!(
            c.capacity() < 2 * c.len() + 64,
            "capacity {} for {} bytes",
            c.capacity(),
            c.len()
        );
        let mut back = vec![0u8; src.len()];
        assert_eq!(
            decompress_into(&DParams::default(), &c, &mut back).unwrap(),
            src.len()
        );
        assert_eq!(back, src);
    }
}

/// Float64 values with noisy low bytes, shuffled and split into streams:
/// the low-byte streams are stored raw and the high-byte ones coded, and
/// `decompress::decode_shuffled_rows` unshuffles the raw ones where they lie
/// in the chunk.  The same bytes come back for BloscLZ and LZ4, one and two
/// threads, whole chunks (also large ones, with streaming stores) and item
/// ranges.
#[test]
fn shuffled_blocks_read_raw_streams_in_place() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let data: Vec<u8> = (0..(2 * TEST_STREAM_MIN + 64) / 8)
        .flat_map(|i| (i as f64 * 1e-3 + rng.gen::<f64>() * 1e-9).to_le_bytes())
        .collect();
    force_stream_min();
    for compcode in [codec::BLOSCLZ, codec::LZ4] {
        let params = CParams {
            compcode,
            typesize: 8,
            filters: [0, 0, 0, 0, 0, SHUFFLE],
            ..CParams::default()
        };
        for len in [64 * 1024, data.len()] {
            let c = compress(&params, &data[..len]).unwrap();
            // Block 0 mixes raw streams and coded ones.
            let p = parsed::parse(&c).unwrap();
            let neblock = p.blocksize / 8;
            let mut src = &c[p.bstart(0)..];
            let mut raw = 0;
            for _ in 0..8 {
                let (stream, rest) = decompress::next_stream(src, neblock).unwrap();
                raw += usize::from(matches!(stream, decompress::Stream::Raw(_)));
                src = rest;
            }
            assert!(
                (1..8).contains(&raw),
                "codec {compcode}: {raw} of 8 streams raw"
            );
            for nthreads in [1, 2] {
                let dp = DParams {
                    nthreads,
                    ..DParams::default()
                };
                let d = decompress(&dp, &c).unwrap();
                assert!(
                    d == data[..len],
                    "codec {compcode} len {len} nthreads {nthreads}"
                );
            }
            let mut items = vec![0u8; 100 * 8];
            getitem(&DParams::default(), &c, 1001, 100, &mut items).unwrap();
            assert_eq!(items, data[1001 * 8..1101 * 8]);
        }
    }
}

/// A stored chunk takes the one-copy path unless a mask or a postfilter
/// needs the block loop: both give the same bytes, and a header whose sizes
/// disagree with the bytes is refused the same way on both.
#[test]
fn stored_chunks_copy_and_refuse_bad_sizes() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let data: Vec<u8> = (0..8192).map(|_| rng.gen()).collect();
    let params = CParams {
        typesize: 8,
        blocksize: 2048,
        ..CParams::default()
    };
    let c = compress(&params, &data).unwrap();
    let h = ChunkHeader::parse(&c).unwrap();
    assert!(h.memcpyed());
    let dp = DParams::default();
    let mut out = vec![0u8; data.len()];
    assert_eq!(
        decompress_with_mask(&dp, &c, &mut out, None),
        Ok(data.len())
    );
    assert_eq!(out, data);
    let mut masked = vec![0u8; data.len()];
    let mask = [false, true, false, false];
    assert_eq!(
        decompress_with_mask(&dp, &c, &mut masked, Some(&mask)),
        Ok(data.len())
    );
    assert_eq!(masked[..2048], data[..2048]);
    assert!(masked[2048..4096].iter().all(|&b| b == 0));
    assert_eq!(masked[4096..], data[4096..]);
    // cbytes past the end of the buffer, and cbytes not nbytes + header.
    let mut long = c.clone();
    long[12..16].copy_from_slice(&(c.len() as i32 + 1).to_le_bytes());
    assert_eq!(
        decompress_with_mask(&dp, &long, &mut out, None),
        Err(Error::InvalidHeader)
    );
    let mut short = c.clone();
    short[12..16].copy_from_slice(&(c.len() as i32 - 1).to_le_bytes());
    assert_eq!(
        decompress_with_mask(&dp, &short, &mut out, None),
        Err(Error::Data)
    );
    // A destination shorter than nbytes.
    assert_eq!(
        decompress_with_mask(&dp, &c, &mut out[..100], None),
        Err(Error::WriteBuffer)
    );
}

/// `copy_bytes` copies every byte whatever the length (around its piece
/// sizes) and whatever the skew between the two buffers.
#[test]
fn copy_bytes_copies_at_every_skew_and_length() {
    let src: Vec<u8> = (0..(600usize << 10) + 64)
        .map(|i| (i * 31 + i / 251) as u8)
        .collect();
    let mut dst = vec![0u8; src.len() + 64];
    for len in [
        0,
        1,
        2047,
        2048,
        2049,
        5000,
        (256 << 10) - 1,
        256 << 10,
        (600 << 10) - 3,
    ] {
        for (from, to) in [(0, 0), (0, 16), (16, 0), (8, 40), (3, 30), (0, 63)] {
            dst.fill(0xEE);
            super::copy_bytes(&src[from..from + len], &mut dst[to..to + len]);
            assert_eq!(
                &dst[to..to + len],
                &src[from..from + len],
                "len {len} {from}->{to}"
            );
            assert!(dst[..to].iter().chain(&dst[to + len..]).all(|&b| b == 0xEE));
        }
    }
}
