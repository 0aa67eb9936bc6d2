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
fn a_lent_frame_is_read_in_place_and_copied_when_changed() {
    #[derive(Debug)]
    struct Lent(std::sync::Arc<Vec<u8>>);
    impl crate::frame::LentBytes for Lent {
        fn bytes(&self) -> &[u8] {
            &self.0
        }
    }
    let bytes = std::sync::Arc::new(exercise(Storage::FrameInMemory).to_frame_bytes().unwrap());
    let mut sc = SuperChunk::from_lent_frame(Box::new(Lent(bytes.clone()))).unwrap();
    check(&sc);
    let in_place = sc.frame().and_then(|f| f.memory_bytes()).unwrap().as_ptr();
    assert_eq!(in_place, bytes.as_ptr());
    let before = bytes.as_ref().clone();
    sc.append_buffer(&data(400, 99)).unwrap();
    assert_eq!(bytes.as_ref(), &before);
    let own = sc.frame().and_then(|f| f.memory_bytes()).unwrap();
    assert_ne!(own.as_ptr(), bytes.as_ptr());
    assert!(!sc.chunk(sc.nchunks() - 1).unwrap().is_empty());
    assert!(sc.close().is_some());
    assert!(SuperChunk::from_lent_frame(Box::new(Lent(bytes)))
        .unwrap()
        .close()
        .is_none());
}

#[test]
fn an_empty_chunk_keeps_the_frame_readable() {
    for empty_at in [2i64, 1] {
        let mut sc = SuperChunk::new(cp(4), DParams::default(), Storage::FrameInMemory).unwrap();
        sc.append_buffer(&data(4000, 1)).unwrap();
        sc.append_buffer(&data(4000, 2)).unwrap();
        if empty_at == 2 {
            sc.append_buffer(&[]).unwrap();
        } else {
            let empty = chunk::compress(&sc.cparams, &[]).unwrap();
            sc.insert_chunk(1, empty).unwrap();
        }
        assert_eq!(sc.chunksize, 0);
        let back = SuperChunk::from_frame_bytes(sc.to_frame_bytes().unwrap(), false).unwrap();
        assert_eq!(back.nchunks(), 3);
        assert_eq!(back.nbytes, 2 * data(4000, 1).len() as i64);
        assert_eq!(back.chunk_nbytes(empty_at).unwrap(), 0);
    }
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

fn tmp_dir(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("b2rs-{}-{}", std::process::id(), name));
    let _ = std::fs::remove_dir_all(&p);
    p
}

#[test]
fn sparse_frames_edit_reopen_and_export() {
    let dir = tmp_dir("sparse.b2frame");
    let mut sc = exercise(Storage::SparseDir(dir.clone()));
    assert!(sc.is_sparse());
    check(&sc);
    sc.meta_add("m", b"abc").unwrap_err(); // chunks exist: no new metalayer
    sc.vlmeta_add("v", b"hello", None).unwrap();
    drop(sc);
    // One file per regular chunk, named by the index, plus the index frame.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 5, "{names:?}");
    assert!(names.contains(&crate::frame::SPARSE_INDEX_NAME.to_string()));
    let back = SuperChunk::open(&dir, 0).unwrap();
    assert!(back.is_sparse());
    assert_eq!(back.nchunks(), 5);
    check(&back);
    assert_eq!(back.vlmeta_get("v").unwrap().1, b"hello");
    // The same content as a contiguous frame.
    let bytes = back.to_frame_bytes().unwrap();
    let cf = SuperChunk::from_frame_bytes(bytes, false).unwrap();
    check(&cf);
    // A missing chunk file is an error, not a panic.
    let first = back.frame().unwrap().offsets()[1];
    std::fs::remove_file(crate::frame::sparse_chunk_path(&dir, first).unwrap()).unwrap();
    assert!(back.decompress_chunk_vec(1).is_err());
    // A truncated chunk file too.
    let other = back.frame().unwrap().offsets()[2];
    let p = crate::frame::sparse_chunk_path(&dir, other).unwrap();
    let b = std::fs::read(&p).unwrap();
    std::fs::write(&p, &b[..b.len() / 2]).unwrap();
    assert!(back.decompress_chunk_vec(2).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn mmap_backed_frames() {
    use crate::io::mmap::{MmapBackend, MmapMode};
    use std::sync::Arc;
    let p = tmp("mmap.b2frame");
    let w = Arc::new(MmapBackend {
        mode: MmapMode::Create,
        initial_mapping_size: 1 << 16,
    });
    let mut sc =
        SuperChunk::new_with_io(cp(4), DParams::default(), Storage::FrameFile(p.clone()), w)
            .unwrap();
    for i in 0..5 {
        sc.append_buffer(&data(1000, i + 1)).unwrap();
    }
    drop(sc);
    let plain = SuperChunk::open(&p, 0).unwrap();
    assert_eq!(plain.decompress_chunk_vec(4).unwrap(), data(1000, 5));
    drop(plain);
    let r = Arc::new(MmapBackend {
        mode: MmapMode::Read,
        initial_mapping_size: 0,
    });
    let mut ro = SuperChunk::open_with_io(&p, 0, r).unwrap();
    assert_eq!(ro.decompress_chunk_vec(2).unwrap(), data(1000, 3));
    assert!(ro.append_buffer(&data(1000, 9)).is_err());
    let c = Arc::new(MmapBackend {
        mode: MmapMode::CopyOnWrite,
        initial_mapping_size: 0,
    });
    let before = std::fs::read(&p).unwrap();
    let mut cow = SuperChunk::open_with_io(&p, 0, c).unwrap();
    cow.append_buffer(&data(1000, 9)).unwrap();
    assert_eq!(cow.nchunks(), 6);
    assert_eq!(cow.decompress_chunk_vec(5).unwrap(), data(1000, 9));
    drop(cow);
    assert_eq!(std::fs::read(&p).unwrap(), before);
    let _ = std::fs::remove_file(&p);
}

mod crash;
mod handles;

/// A frame whose chunks section spans more than 4 GiB (a hole in a sparse
/// file, so no disk space or memory is needed): 64-bit offsets all along.
#[test]
fn frame_beyond_4gib() {
    use crate::format::frame::{POS_CBYTES, POS_FRAME_LEN};
    use std::os::unix::fs::FileExt;
    let mut sc = SuperChunk::new(cp(4), DParams::default(), Storage::FrameInMemory).unwrap();
    sc.append_buffer(&data(1000, 1)).unwrap();
    sc.append_buffer(&data(1000, 2)).unwrap();
    let f = sc.frame().unwrap();
    let bytes = f.to_bytes().unwrap();
    let hl = FrameHeader::parse(&bytes, TYPE_CONTIGUOUS)
        .unwrap()
        .header_len as u64;
    let c0 = sc.chunk(0).unwrap().into_owned();
    let c1 = sc.chunk(1).unwrap().into_owned();
    let trailer_len = {
        let tail = &bytes[bytes.len() - 25..];
        crate::format::frame::trailer_len_from_tail(tail, bytes.len() as i64).unwrap() as usize
    };
    let trailer = bytes[bytes.len() - trailer_len..].to_vec();
    let gap: u64 = (4 << 30) + 12345;
    let offsets = crate::frame::compress_offsets(&[0, gap as i64]).unwrap();
    let cbytes = gap + c1.len() as u64;
    let len = hl + cbytes + offsets.len() as u64 + trailer.len() as u64;
    let mut header = bytes[..hl as usize].to_vec();
    header[POS_CBYTES..POS_CBYTES + 8].copy_from_slice(&(cbytes as i64).to_be_bytes());
    header[POS_FRAME_LEN..POS_FRAME_LEN + 8].copy_from_slice(&(len as i64).to_be_bytes());
    let p = tmp("big.b2frame");
    let file = std::fs::File::create(&p).unwrap();
    file.set_len(len).unwrap();
    file.write_all_at(&header, 0).unwrap();
    file.write_all_at(&c0, hl).unwrap();
    file.write_all_at(&c1, hl + gap).unwrap();
    file.write_all_at(&offsets, hl + cbytes).unwrap();
    file.write_all_at(&trailer, hl + cbytes + offsets.len() as u64)
        .unwrap();
    drop(file);

    let mut big = SuperChunk::open(&p, 0).unwrap();
    assert_eq!(big.frame().unwrap().offsets(), &[0, gap as i64]);
    assert_eq!(big.decompress_chunk_vec(1).unwrap(), data(1000, 2));
    // A lazy chunk locates its bytes with a 64-bit offset.
    let lazy = big.lazy_chunk(1).unwrap().into_owned();
    assert_ne!(lazy[31] & crate::frame::LAZY_FLAG, 0);
    let mut out = vec![0u8; 4000];
    big.decompress_any(&lazy, &mut out).unwrap();
    assert_eq!(out, data(1000, 2));
    // Appending writes past 4 GiB.
    big.append_buffer(&data(1000, 3)).unwrap();
    drop(big);
    let back = SuperChunk::open(&p, 0).unwrap();
    assert_eq!(back.nchunks(), 3);
    assert!(back.frame().unwrap().offsets()[2] > gap as i64);
    assert_eq!(back.decompress_chunk_vec(2).unwrap(), data(1000, 3));
    assert_eq!(back.decompress_chunk_vec(0).unwrap(), data(1000, 1));
    let _ = std::fs::remove_file(&p);
}

#[test]
fn lazy_chunks_are_told_by_their_header() {
    let chunk = crate::chunk::compress(&cp(4), &data(1000, 3)).unwrap();
    assert!(!SuperChunk::is_lazy_chunk(&chunk).unwrap());
    assert!(!SuperChunk::is_lazy_chunk(&chunk[..20]).unwrap());
    let p = tmp("lazy.b2frame");
    let mut sc = SuperChunk::new(cp(4), DParams::default(), Storage::FrameFile(p.clone())).unwrap();
    sc.append_buffer(&data(1000, 3)).unwrap();
    let lazy = sc.lazy_chunk(0).unwrap();
    assert!(SuperChunk::is_lazy_chunk(&lazy).unwrap());
    assert_eq!(
        sc.resolve_lazy(&lazy).unwrap(),
        sc.chunk(0).unwrap().to_vec()
    );
    drop(sc);
    urlpath::remove(&p).unwrap();
}

#[test]
fn slice_chunk_indexes_of_a_plain_super_chunk_take_item_bounds() {
    let mut sc = SuperChunk::new(cp(4), DParams::default(), Storage::Memory).unwrap();
    for i in 0..4 {
        sc.append_buffer(&data(1000, i + 1)).unwrap();
    }
    // Not n-dimensional: one entry per bound, item indexes.
    assert_eq!(sc.slice_dims().unwrap(), 1);
    assert_eq!(
        sc.slice_chunk_indexes(&[999], &[2001]).unwrap(),
        vec![0, 1, 2]
    );
    assert_eq!(
        sc.slice_chunk_indexes(&[999], &[2001]).unwrap(),
        sc.slice_nchunks(999, 2001).unwrap()
    );
    assert_eq!(sc.slice_chunk_indexes(&[], &[5]), Err(Error::InvalidParam));
    // The bounds are asked for with one entry each.
    let (mut asked, a, b) = (None, [999i64], [2001i64]);
    let idx = sc.slice_chunk_indexes_with(|n| {
        asked = Some(n);
        (&a[..n], &b[..n])
    });
    assert_eq!((asked, idx.unwrap()), (Some(1), vec![0, 1, 2]));
}

/// The C API's sizing of slice reads: nothing asked for an empty or
/// reversed range, `Failure` outside the items or past memory.
#[test]
fn slice_reads_and_writes_size_the_caller_buffer() {
    let mut sc = SuperChunk::new(cp(4), DParams::default(), Storage::Memory).unwrap();
    sc.append_buffer(&data(1000, 3)).unwrap();
    let mut buf = vec![0u8; 40];
    let mut asked = None;
    sc.get_slice_with(10, 20, |n| {
        asked = Some(n);
        &mut buf[..n]
    })
    .unwrap();
    assert_eq!(asked, Some(40));
    assert_eq!(buf, data(1000, 3)[40..80]);
    let never = |_: usize| -> &mut [u8] { unreachable!() };
    assert_eq!(sc.get_slice_with(5, 5, never), Ok(()));
    assert_eq!(sc.get_slice_with(7, 3, never), Ok(()));
    assert_eq!(sc.get_slice_with(-1, 2, never), Err(Error::Failure));
    assert_eq!(
        sc.get_slice_with(i64::MAX / 2, i64::MAX, never),
        Err(Error::Failure)
    );
    let mut past = [0u8; 8];
    assert_eq!(
        sc.get_slice_with(999, 1001, |n| &mut past[..n]),
        Err(Error::Failure)
    );

    let src = [7u8; 8];
    let mut asked = None;
    sc.set_slice_with(2, 4, |n| {
        asked = Some(n);
        &src[..n]
    })
    .unwrap();
    assert_eq!(asked, Some(8));
    let mut back = [0u8; 8];
    sc.get_slice(2, 4, &mut back).unwrap();
    assert_eq!(back, [7u8; 8]);
    let never = |_: usize| -> &[u8] { unreachable!() };
    assert_eq!(sc.set_slice_with(4, 2, never), Err(Error::InvalidParam));
    assert_eq!(
        sc.set_slice_with(0, i64::MAX, never),
        Err(Error::InvalidParam)
    );
}

/// The C API's sizing of scattered reads: a negative count is refused and
/// no coordinates ask for no buffers.
#[test]
fn sparse_reads_size_the_caller_buffers() {
    let mut sc = SuperChunk::new(cp(4), DParams::default(), Storage::Memory).unwrap();
    sc.append_buffer(&data(1000, 5)).unwrap();
    let never = |_: usize, _: usize| -> Result<(&[i64], &mut [u8])> { unreachable!() };
    assert_eq!(sc.get_sparse_with(-1, never), Err(Error::InvalidParam));
    assert_eq!(sc.get_sparse_with(0, never), Ok(()));
    assert_eq!(
        sc.get_sparse_with(2, |_, _| Err(Error::InvalidParam)),
        Err(Error::InvalidParam)
    );
    let coords = [3i64, 0];
    let mut out = [0u8; 8];
    let mut asked = None;
    sc.get_sparse_with(2, |n, len| {
        asked = Some((n, len));
        Ok((&coords[..n], &mut out[..len]))
    })
    .unwrap();
    assert_eq!(asked, Some((2, 8)));
    let d = data(1000, 5);
    assert_eq!(out[..4], d[12..16]);
    assert_eq!(out[4..], d[..4]);
}

/// One block of a VL-block chunk, decoded with the parameters asked for
/// once the chunk is found.
#[test]
fn vl_blocks_read_one_block() {
    let blocks: [&[u8]; 2] = [b"first block", &[9u8; 300]];
    let mut c = vec![0u8; 4096];
    let n = chunk::vlblocks::compress(&cp(1), &blocks, &mut c).unwrap();
    c.truncate(n);
    let mut sc = SuperChunk::new(cp(1), DParams::default(), Storage::Memory).unwrap();
    sc.append_chunk(c).unwrap();
    let dp = DParams::default();
    assert_eq!(sc.vl_block(0, 0, || Ok(&dp)).unwrap(), b"first block");
    assert_eq!(sc.vl_block(0, 1, || Ok(&dp)).unwrap(), vec![9u8; 300]);
    assert_eq!(sc.vl_block(0, 2, || Ok(&dp)), Err(Error::InvalidParam));
    assert_eq!(sc.vl_block(0, -1, || Ok(&dp)), Err(Error::InvalidParam));
    assert_eq!(sc.vl_block(1, 0, || Ok(&dp)), Err(Error::InvalidParam));
    // The parameters are asked for only once the chunk is found.
    assert_eq!(
        sc.vl_block(0, 0, || Err(Error::NullPointer)),
        Err(Error::NullPointer)
    );
    assert_eq!(
        sc.vl_block(5, 0, || Err(Error::NullPointer)),
        Err(Error::InvalidParam)
    );
}

#[test]
fn storage_follows_contiguity_and_urlpath() {
    assert_eq!(Storage::from_urlpath(false, None), Storage::Memory);
    assert_eq!(Storage::from_urlpath(true, None), Storage::FrameInMemory);
    assert_eq!(
        Storage::from_urlpath(true, Some("file:///x.b2frame")),
        Storage::FrameFile(PathBuf::from("x.b2frame"))
    );
    assert_eq!(
        Storage::from_urlpath(false, Some("d.b2frame")),
        Storage::SparseDir(PathBuf::from("d.b2frame"))
    );
}

/// Only a frame in one piece (memory or file) is contiguous.
#[test]
fn contiguous_means_a_frame_in_one_piece() {
    let new = |st| SuperChunk::new(cp(4), DParams::default(), st).unwrap();
    assert!(!new(Storage::Memory).is_contiguous());
    assert!(new(Storage::FrameInMemory).is_contiguous());
    let dir = tmp_dir("contiguous-sparse");
    assert!(!new(Storage::SparseDir(dir.clone())).is_contiguous());
    let _ = std::fs::remove_dir_all(&dir);
    let bytes = new(Storage::FrameInMemory).to_frame_bytes().unwrap();
    assert!(SuperChunk::from_frame_bytes(bytes.clone(), false)
        .unwrap()
        .is_contiguous());
    assert!(!SuperChunk::from_frame_bytes(bytes, true)
        .unwrap()
        .is_contiguous());
}

/// A frame in memory lends its own buffer, which closing gives back; other
/// storages serialize a copy and give nothing back.
#[test]
fn frame_buffer_lends_a_memory_frame_and_close_gives_it_back() {
    let mut sc = SuperChunk::new(cp(4), DParams::default(), Storage::FrameInMemory).unwrap();
    sc.append_buffer(&data(100, 1)).unwrap();
    let lent = match sc.frame_buffer().unwrap() {
        Cow::Borrowed(b) => (b.as_ptr(), b.to_vec()),
        Cow::Owned(_) => panic!("a frame in memory is lent"),
    };
    let back = sc.close().unwrap();
    assert_eq!((back.as_ptr(), back), lent);

    let mut sc = SuperChunk::new(cp(4), DParams::default(), Storage::Memory).unwrap();
    sc.append_buffer(&data(100, 1)).unwrap();
    let copy = sc.frame_buffer().unwrap();
    assert!(matches!(copy, Cow::Owned(_)));
    assert_eq!(copy.as_ref(), sc.to_frame_bytes().unwrap());
    drop(copy);
    assert!(sc.close().is_none());
}

/// Fill codes other than zeros, NaNs and uninitialized items are refused
/// before anything else is looked at.
#[test]
fn fill_special_codes_name_the_fill_value() {
    let mut sc = SuperChunk::new(cp(4), DParams::default(), Storage::Memory).unwrap();
    for bad in [0, 3, 5, 257, -1] {
        assert_eq!(sc.fill_special_code(0, bad, 400), Err(Error::SchunkSpecial));
    }
    assert_eq!(sc.fill_special_code(0, 1, 400), Ok(0));
    assert_eq!(sc.fill_special_code(250, 2, 400), Ok(3));
    let last = sc.decompress_chunk_vec(2).unwrap();
    assert!(f32::from_le_bytes(last[..4].try_into().unwrap()).is_nan());
    let mut sc = SuperChunk::new(cp(4), DParams::default(), Storage::Memory).unwrap();
    assert_eq!(sc.fill_special_code(10, 4, 40), Ok(1));
}

/// A frame file that cannot be written: the write's error for a frame in
/// memory, `SchunkCopy` for separate chunks (copied into a frame first).
#[test]
fn frame_file_errors_follow_the_storage() {
    let nowhere = tmp("no-such-dir").join("x.b2frame");
    let mut frame = SuperChunk::new(cp(4), DParams::default(), Storage::FrameInMemory).unwrap();
    frame.append_buffer(&data(100, 2)).unwrap();
    assert_eq!(frame.to_file(&nowhere), Err(Error::FileWrite));
    assert_eq!(frame.append_to_file(&nowhere), Err(Error::FileOpen));
    let mut chunks = SuperChunk::new(cp(4), DParams::default(), Storage::Memory).unwrap();
    chunks.append_buffer(&data(100, 2)).unwrap();
    assert_eq!(chunks.to_file(&nowhere), Err(Error::SchunkCopy));
    assert_eq!(chunks.append_to_file(&nowhere), Err(Error::SchunkCopy));
}
