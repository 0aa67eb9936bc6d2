use super::*;
use crate::format::header::Special;

fn data(n: usize, seed: u32) -> Vec<u8> {
    (0..n as u32)
        .flat_map(|i| (i.wrapping_mul(seed) / 7).to_le_bytes())
        .collect()
}

fn cp(typesize: i32) -> CParams {
    CParams {
        typesize,
        clevel: 5,
        ..CParams::default()
    }
}

fn tmp(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("b2rs-{}-{}", std::process::id(), name));
    let _ = std::fs::remove_file(&p);
    p
}

/// Apply the same edits to every storage kind and compare contents.
fn exercise(storage: Storage) -> SuperChunk {
    let mut sc = SuperChunk::new(cp(4), DParams::default(), storage).unwrap();
    for i in 0..5 {
        assert_eq!(sc.append_buffer(&data(1000, i + 1)).unwrap(), i as i64 + 1);
    }
    assert_eq!(sc.chunksize, 4000);
    let c = chunk::compress(&cp(4), &data(1000, 99)).unwrap();
    sc.insert_chunk(2, c).unwrap();
    let z = {
        let mut z = vec![0u8; 32];
        special::chunk_special(&cp(4), 4000, Special::Zero, &mut z).unwrap();
        z
    };
    sc.update_chunk(0, z).unwrap();
    let c = chunk::compress(&cp(4), &data(1000, 77)).unwrap();
    sc.update_chunk(3, c).unwrap();
    sc.delete_chunk(4).unwrap();
    assert_eq!(sc.nchunks(), 5);
    assert_eq!(sc.nbytes, 5 * 4000);
    sc
}

fn expected() -> Vec<Vec<u8>> {
    vec![
        vec![0u8; 4000],
        data(1000, 2),
        data(1000, 99),
        data(1000, 77),
        data(1000, 5),
    ]
}

fn check(sc: &SuperChunk) {
    for (i, e) in expected().iter().enumerate() {
        assert_eq!(&sc.decompress_chunk_vec(i as i64).unwrap(), e, "chunk {i}");
    }
}

#[test]
fn edits_agree_across_storages() {
    let mem = exercise(Storage::Memory);
    check(&mem);
    let fr = exercise(Storage::FrameInMemory);
    check(&fr);
    let bytes = fr.to_frame_bytes().unwrap();
    assert_eq!(bytes.len() as i64, fr.frame_len());
    let back = SuperChunk::from_frame_bytes(bytes.clone(), false).unwrap();
    check(&back);
    assert_eq!(back.nbytes, fr.nbytes);
    assert_eq!(back.cbytes, fr.cbytes);
    let copied = SuperChunk::from_frame_bytes(bytes, true).unwrap();
    check(&copied);
    assert!(copied.frame().is_none());

    let p = tmp("edits.b2frame");
    let file = exercise(Storage::FrameFile(p.clone()));
    check(&file);
    let on_disk = std::fs::read(&p).unwrap();
    assert_eq!(on_disk, fr.to_frame_bytes().unwrap());
    let opened = SuperChunk::open(&p, 0).unwrap();
    check(&opened);
    std::fs::remove_file(&p).unwrap();

    // A memory super-chunk serialized equals the same edits replayed on a frame
    // built by appending the final chunks.
    let f2 = SuperChunk::from_frame_bytes(mem.to_frame_bytes().unwrap(), false).unwrap();
    check(&f2);
}

#[test]
fn metalayers_and_vlmetalayers_round_trip() {
    let mut sc = SuperChunk::new(cp(8), DParams::default(), Storage::FrameInMemory).unwrap();
    assert_eq!(sc.meta_add("b2nd", b"hello").unwrap(), 0);
    assert_eq!(sc.meta_add("other", b"").unwrap(), 1);
    assert!(sc.meta_add("b2nd", b"x").is_err());
    assert!(sc.meta_add(&"x".repeat(32), b"x").is_err());
    sc.append_buffer(&data(500, 3)).unwrap();
    assert_eq!(sc.meta_add("late", b"x"), Err(Error::InvalidParam));
    assert_eq!(sc.meta_update("b2nd", b"HE").unwrap(), 0);
    assert!(sc.meta_update("b2nd", b"too long!").is_err());
    sc.vlmeta_add("info", &data(300, 5), None).unwrap();
    sc.vlmeta_add("empty", b"", None).unwrap();
    sc.vlmeta_update("info", b"short", None).unwrap();
    sc.append_buffer(&data(500, 4)).unwrap();
    let back = SuperChunk::from_frame_bytes(sc.to_frame_bytes().unwrap(), false).unwrap();
    assert_eq!(back.meta_get("b2nd").unwrap(), b"HEllo");
    assert_eq!(back.meta_get("other").unwrap(), b"");
    assert_eq!(back.vlmeta_get("info").unwrap().1, b"short");
    assert_eq!(back.vlmeta_get("empty").unwrap().1, b"");
    assert_eq!(back.vlmeta_exists("nope"), Err(Error::NotFound));
    let mut back = back;
    assert_eq!(back.vlmeta_delete("info").unwrap(), 1);
    let again = SuperChunk::from_frame_bytes(back.to_frame_bytes().unwrap(), true).unwrap();
    assert_eq!(again.vlmetalayers().len(), 1);
    assert_eq!(again.decompress_chunk_vec(1).unwrap(), data(500, 4));
}

#[test]
fn special_fill_and_slices() {
    for storage in [Storage::Memory, Storage::FrameInMemory] {
        let mut sc = SuperChunk::new(cp(8), DParams::default(), storage).unwrap();
        assert_eq!(sc.fill_special(1000, Special::Nan, 8 * 300).unwrap(), 4);
        assert_eq!(sc.nbytes, 8000);
        let last = sc.decompress_chunk_vec(3).unwrap();
        assert_eq!(last.len(), 800);
        assert!(f64::from_le_bytes(last[..8].try_into().unwrap()).is_nan());
        let src: Vec<u8> = (0..100u64).flat_map(|i| (i as f64).to_le_bytes()).collect();
        sc.set_slice(250, 350, &src).unwrap();
        let mut out = vec![0u8; 800];
        sc.get_slice(250, 350, &mut out).unwrap();
        assert_eq!(out, src);
        let mut one = vec![0u8; 8];
        sc.get_slice(249, 250, &mut one).unwrap();
        assert!(f64::from_le_bytes(one.try_into().unwrap()).is_nan());
        let bytes = sc.to_frame_bytes().unwrap();
        let back = SuperChunk::from_frame_bytes(bytes, false).unwrap();
        let mut out2 = vec![0u8; 800];
        back.get_slice(250, 350, &mut out2).unwrap();
        assert_eq!(out2, src);
        assert!(sc.get_slice(0, 1001, &mut vec![0u8; 8008]).is_err());
    }
}

#[test]
fn delete_everything_then_append() {
    let mut sc = SuperChunk::new(cp(4), DParams::default(), Storage::FrameInMemory).unwrap();
    sc.append_buffer(&data(100, 1)).unwrap();
    sc.append_buffer(&data(100, 2)).unwrap();
    sc.delete_chunk(0).unwrap();
    sc.delete_chunk(0).unwrap();
    assert_eq!(sc.nchunks(), 0);
    let back = SuperChunk::from_frame_bytes(sc.to_frame_bytes().unwrap(), false).unwrap();
    assert_eq!(back.nchunks(), 0);
    sc.append_buffer(&data(100, 3)).unwrap();
    let back = SuperChunk::from_frame_bytes(sc.to_frame_bytes().unwrap(), false).unwrap();
    assert_eq!(back.decompress_chunk_vec(0).unwrap(), data(100, 3));
}

#[test]
fn frame_at_offset_in_file() {
    let p = tmp("offset.bin");
    std::fs::write(&p, vec![7u8; 123]).unwrap();
    let mut sc = SuperChunk::new(cp(4), DParams::default(), Storage::Memory).unwrap();
    sc.append_buffer(&data(1000, 9)).unwrap();
    sc.vlmeta_add("v", b"abc", None).unwrap();
    assert_eq!(sc.append_to_file(&p).unwrap(), 123);
    let o = SuperChunk::open(&p, 123).unwrap();
    assert_eq!(o.decompress_chunk_vec(0).unwrap(), data(1000, 9));
    assert_eq!(o.vlmeta_get("v").unwrap().1, b"abc");
    assert!(SuperChunk::open(&p, 0).is_err());
    std::fs::remove_file(&p).unwrap();
}

#[test]
fn mutated_frames_never_panic() {
    let mut sc = SuperChunk::new(cp(4), DParams::default(), Storage::FrameInMemory).unwrap();
    sc.meta_add("m", b"meta").unwrap();
    for i in 0..3 {
        sc.append_buffer(&data(300, i + 1)).unwrap();
    }
    let mut z = vec![0u8; 32];
    special::chunk_special(&cp(4), 1200, Special::Zero, &mut z).unwrap();
    sc.append_chunk(z).unwrap();
    sc.vlmeta_add("v", b"vl content", None).unwrap();
    let bytes = sc.to_frame_bytes().unwrap();
    let mut rng: u64 = 0x1234_5678;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    for trial in 0..4000 {
        let mut b = bytes.clone();
        if trial % 5 == 0 {
            let n = (next() % b.len() as u64) as usize;
            b.truncate(n);
        } else {
            for _ in 0..1 + trial % 3 {
                let i = (next() % b.len() as u64) as usize;
                b[i] ^= 1 << (next() % 8);
            }
        }
        if let Ok(s) = SuperChunk::from_frame_bytes(b, false) {
            for i in 0..s.nchunks().min(8) {
                let _ = s.decompress_chunk_vec(i);
            }
            let _ = s.vlmeta_get("v");
        }
    }
}
