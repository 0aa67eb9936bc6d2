use super::*;
use crate::format::header::{BITSHUFFLE, NOFILTER};
use std::io::Cursor;

fn sample(n: usize) -> Vec<u8> {
    (0..n as u32).map(|i| ((i / 3) ^ (i >> 9)) as u8).collect()
}

fn pack_vec(data: &[u8], opts: &PackOptions) -> Vec<u8> {
    let mut c = Cursor::new(Vec::new());
    let st = pack(data, data.len() as u64, &mut c, opts, &mut |_| {}).unwrap();
    let v = c.into_inner();
    assert_eq!(st.file_size, v.len() as u64);
    v
}

fn unpack_vec(file: &[u8]) -> Result<Vec<u8>, BpError> {
    let mut out = Vec::new();
    unpack(file, Some(file.len() as u64), &mut out, &mut |_| {})?;
    Ok(out)
}

#[test]
fn round_trip_every_checksum_codec_and_layout() {
    let data = sample(1_000_003);
    for checksum in checksum::ALL {
        for offsets in [true, false] {
            for compcode in [codec::BLOSCLZ, codec::LZ4, codec::ZSTD] {
                let opts = PackOptions {
                    checksum,
                    offsets,
                    compcode,
                    chunk_size: 300_000,
                    metadata: Some(br#"{"a":1}"#.to_vec()),
                    ..PackOptions::default()
                };
                let f = pack_vec(&data, &opts);
                assert_eq!(unpack_vec(&f).unwrap(), data);
                let r = Reader::new(&f[..], None).unwrap();
                assert_eq!(r.header.nchunks, 4);
                assert_eq!(r.header.last_chunk, 100_003);
                assert_eq!(r.header.max_app_chunks, if offsets { 40 } else { 0 });
                assert_eq!(r.metadata.unwrap().data, br#"{"a":1}"#);
            }
        }
    }
}

#[test]
fn empty_and_small_inputs() {
    for n in [0usize, 1, 7, 100] {
        for filter in [NOFILTER, SHUFFLE, BITSHUFFLE] {
            let data = sample(n);
            let f = pack_vec(
                &data,
                &PackOptions {
                    filter,
                    ..PackOptions::default()
                },
            );
            assert_eq!(unpack_vec(&f).unwrap(), data);
        }
    }
}

#[test]
fn corrupt_files_are_reported() {
    let data = sample(500_000);
    let f = pack_vec(
        &data,
        &PackOptions {
            chunk_size: 100_000,
            ..PackOptions::default()
        },
    );
    let mut bad = f.clone();
    bad[1] = b'X';
    assert!(unpack_vec(&bad).unwrap_err().to_string().contains("magic"));
    for cut in [10, 40, 100, f.len() / 2, f.len() - 1] {
        assert!(unpack_vec(&f[..cut]).is_err(), "cut at {cut}");
    }
    // flip one byte in every position after the header: never a panic, and a
    // flipped byte inside a chunk or checksum is always caught
    let offsets_end = 32 + 8 * (5 + 50);
    for at in (32..f.len()).step_by(97) {
        let mut bad = f.clone();
        bad[at] ^= 0x41;
        let r = unpack_vec(&bad);
        if at >= offsets_end {
            assert!(r.is_err(), "flip at {at} undetected");
        }
    }
    // lying nchunks
    let mut bad = f.clone();
    bad[16..24].copy_from_slice(&(1i64 << 40).to_le_bytes());
    assert!(unpack_vec(&bad).is_err());
}

#[test]
fn an_offsets_table_claiming_nearly_2_to_the_64_bytes_is_corrupt_not_an_overflow() {
    // Found by fuzz/cli_info: with 2^61 - 2 chunks the offsets table's size
    // plus its position overflowed u64 before being compared with the file's.
    let h = header::Header {
        format_version: 3,
        offsets: true,
        metadata: false,
        checksum: Checksum::Sha256,
        typesize: 4,
        chunk_size: 0,
        last_chunk: 0,
        nchunks: (1 << 61) - 2,
        max_app_chunks: 0,
    };
    let mut file = h.encode().to_vec();
    file.extend_from_slice(&[0xff; 64]);
    let e = Reader::new(&file[..], Some(file.len() as u64))
        .err()
        .expect("must fail");
    assert!(e.to_string().contains("offsets need"), "{e}");
}
