//! An I/O error at any write of an update leaves the previous frame.
use super::*;
use crate::io::{IoBackend, IoFile, OpenMode};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The plain file backend, failing its `fail_at`-th write (after writing
/// half of it, like a full disk).
#[derive(Debug)]
struct Faulty {
    writes: Arc<AtomicUsize>,
    fail_at: usize,
}

#[derive(Debug)]
struct FaultyFile {
    inner: Box<dyn IoFile>,
    writes: Arc<AtomicUsize>,
    fail_at: usize,
}

impl IoFile for FaultyFile {
    fn read_at(&self, pos: u64, buf: &mut [u8]) -> Result<()> {
        self.inner.read_at(pos, buf)
    }
    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        let n = self.writes.fetch_add(1, Ordering::SeqCst) + 1;
        if n == self.fail_at {
            let _ = self.inner.write_at(pos, &data[..data.len() / 2]);
            return Err(Error::FileWrite);
        }
        self.inner.write_at(pos, data)
    }
    fn size(&self) -> Result<u64> {
        self.inner.size()
    }
    fn truncate(&mut self, size: u64) -> Result<()> {
        self.inner.truncate(size)
    }
}

impl IoBackend for Faulty {
    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn IoFile>> {
        Ok(Box::new(FaultyFile {
            inner: crate::io::FileSystem.open(path, mode)?,
            writes: self.writes.clone(),
            fail_at: self.fail_at,
        }))
    }
}

type Op = fn(&mut SuperChunk) -> Result<()>;

fn ops() -> Vec<(&'static str, Op)> {
    vec![
        ("append", |sc| sc.append_buffer(&data(1000, 42)).map(|_| ())),
        ("insert", |sc| {
            let c = chunk::compress(&cp(4), &data(1000, 43)).unwrap();
            sc.insert_chunk(1, c).map(|_| ())
        }),
        ("update", |sc| {
            let c = chunk::compress(&cp(4), &data(1000, 44)).unwrap();
            sc.update_chunk(2, c).map(|_| ())
        }),
        ("update-special", |sc| {
            let mut z = vec![0u8; 32];
            special::chunk_special(&cp(4), 4000, Special::Zero, &mut z).unwrap();
            sc.update_chunk(1, z).map(|_| ())
        }),
        ("delete", |sc| sc.delete_chunk(1).map(|_| ())),
        ("vlmeta_update", |sc| {
            sc.vlmeta_update("v", b"a longer new value", None)
                .map(|_| ())
        }),
        ("vlmeta_add", |sc| {
            sc.vlmeta_add("w", b"x", None).map(|_| ())
        }),
        ("vlmeta_delete", |sc| sc.vlmeta_delete("gone").map(|_| ())),
        ("meta_update", |sc| sc.meta_update("m", b"xy").map(|_| ())),
        ("reorder", |sc| sc.reorder_offsets(&[3, 2, 1, 0])),
    ]
}

fn snapshot(sc: &SuperChunk) -> (Vec<Vec<u8>>, Vec<u8>, Vec<u8>) {
    let chunks = (0..sc.nchunks())
        .map(|i| sc.decompress_chunk_vec(i).unwrap())
        .collect();
    (
        chunks,
        sc.meta_get("m").unwrap().to_vec(),
        sc.vlmeta_get("v").unwrap().1,
    )
}

fn files(p: &Path) -> Vec<(String, Vec<u8>)> {
    if p.is_dir() {
        let mut v: Vec<_> = std::fs::read_dir(p)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    } else {
        vec![(String::new(), std::fs::read(p).unwrap())]
    }
}

fn build(storage: Storage) {
    let mut sc = SuperChunk::new(cp(4), DParams::default(), storage).unwrap();
    sc.meta_add("m", b"abc").unwrap();
    for i in 0..4 {
        sc.append_buffer(&data(1000, i + 1)).unwrap();
    }
    sc.vlmeta_add("v", b"hello", None).unwrap();
    sc.vlmeta_add("gone", b"bye", None).unwrap();
}

fn check_every_write_fails_cleanly(sparse: bool) {
    let name = if sparse {
        "crash-sparse"
    } else {
        "crash-cframe"
    };
    let path = tmp_dir(name);
    for (opname, op) in ops() {
        let mut n = 1;
        loop {
            let _ = std::fs::remove_dir_all(&path);
            let _ = std::fs::remove_file(&path);
            build(if sparse {
                Storage::SparseDir(path.clone())
            } else {
                Storage::FrameFile(path.clone())
            });
            let before_files = files(&path);
            let before = snapshot(&SuperChunk::open(&path, 0).unwrap());
            let io = Arc::new(Faulty {
                writes: Arc::new(AtomicUsize::new(0)),
                fail_at: n,
            });
            let mut sc = SuperChunk::open_with_io(&path, 0, io).unwrap();
            let r = op(&mut sc);
            drop(sc);
            if r.is_ok() {
                assert!(n > 1, "{opname}: no write happened");
                break;
            }
            // The frame on disk is the previous one, byte for byte.
            assert_eq!(files(&path), before_files, "{opname}, write {n} failing");
            let back = SuperChunk::open(&path, 0).unwrap();
            assert_eq!(snapshot(&back), before, "{opname}, write {n} failing");
            n += 1;
            assert!(n < 100, "{opname}: never succeeds");
        }
    }
    let _ = std::fs::remove_dir_all(&path);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn contiguous_frame_survives_a_failing_write_anywhere() {
    check_every_write_fails_cleanly(false);
}

#[test]
fn sparse_frame_survives_a_failing_write_anywhere() {
    check_every_write_fails_cleanly(true);
}
