//! Several handles on one frame, its lock, and I/O backends that open
//! files around each operation.

use super::*;

/// Two handles on one frame on disk: each takes in the other's changes.
fn two_handles(storage: Storage, path: &Path) {
    let mut sc = SuperChunk::new(cp(4), DParams::default(), storage).unwrap();
    for i in 0..10 {
        sc.append_buffer(&data(1000, i + 1)).unwrap();
    }
    drop(sc);
    let mut h1 = SuperChunk::open(path, 0).unwrap();
    let mut h2 = SuperChunk::open(path, 0).unwrap();
    assert_eq!(h2.decompress_chunk_vec(0).unwrap(), data(1000, 1));
    assert!(!h2.follow().unwrap());
    let mut z = vec![0u8; 32];
    special::chunk_special(&cp(4), 4000, Special::Uninit, &mut z).unwrap();
    h1.update_chunk(0, z).unwrap();
    assert_eq!(h2.read(|s| Ok(s.chunk(0)?.len())).unwrap(), 32);
    assert_eq!(h2.generation(), 1);
    assert_eq!(h2.decompress_chunk_vec(1).unwrap(), data(1000, 2));
    assert_eq!(h2.cbytes, h1.cbytes);
    assert!(!h2.follow().unwrap());
    // A change through a handle starts from the other handles' changes.
    h1.append_buffer(&data(1000, 50)).unwrap();
    assert_eq!(h2.append_buffer(&data(1000, 60)).unwrap(), 12);
    assert!(h1.follow().unwrap());
    assert_eq!(h1.nchunks(), 12);
    assert_eq!(h1.decompress_chunk_vec(10).unwrap(), data(1000, 50));
    assert_eq!(h1.decompress_chunk_vec(11).unwrap(), data(1000, 60));
    h2.vlmeta_add("v", b"abc", None).unwrap();
    assert_eq!(h1.generation(), 1);
    assert!(h1.follow().unwrap());
    assert_eq!(h1.generation(), 2);
    assert!(!h1.follow().unwrap());
    assert_eq!(h1.generation(), 2);
    assert_eq!(h1.vlmeta_get("v").unwrap().1, b"abc");
}

#[test]
fn handles_follow_each_other_contiguous() {
    let p = tmp("follow.b2frame");
    two_handles(Storage::FrameFile(p.clone()), &p);
    let _ = std::fs::remove_file(&p);
}

#[test]
fn handles_follow_each_other_sparse() {
    let d = tmp_dir("follow.sparse");
    two_handles(Storage::SparseDir(d.clone()), &d);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn locked_handles_see_a_reorder() {
    let p = tmp("locked.b2frame");
    let mut sc = SuperChunk::new(cp(4), DParams::default(), Storage::FrameFile(p.clone())).unwrap();
    for i in 0..4 {
        sc.append_buffer(&data(1000, i + 1)).unwrap();
    }
    drop(sc);
    let io = crate::io::filesystem();
    let mut h1 = SuperChunk::open_locking(&p, 0, io.clone(), true).unwrap();
    let mut h2 = SuperChunk::open_locking(&p, 0, io, true).unwrap();
    assert!(h1.locking() && h2.locking());
    // The frame's header bytes stay the same; the lock's generation tells.
    h1.reorder_offsets(&[3, 2, 1, 0]).unwrap();
    assert!(!h2.frame().unwrap().changed_on_disk().unwrap());
    assert!(h2.lock(false).unwrap());
    assert_eq!(h2.decompress_chunk_vec(0).unwrap(), data(1000, 4));
    h2.unlock().unwrap();
    assert!(!h2.refresh().unwrap());
    drop((h1, h2));
    let _ = std::fs::remove_file(&p);
    let _ = std::fs::remove_file(crate::frame::lock::lock_path(&p, false));
}

#[test]
fn a_lock_bracket_holds_the_lock_until_its_end() {
    let p = tmp("bracket.b2frame");
    let mut sc = SuperChunk::new(cp(4), DParams::default(), Storage::FrameFile(p.clone())).unwrap();
    sc.append_buffer(&data(1000, 1)).unwrap();
    drop(sc);
    let io = crate::io::filesystem();
    let mut h1 = SuperChunk::open_locking(&p, 0, io.clone(), true).unwrap();
    let mut h2 = SuperChunk::open_locking(&p, 0, io.clone(), true).unwrap();
    assert!(!h1.begin_bracket().unwrap());
    assert!(!h1.begin_bracket().unwrap());
    assert!(h1.lock_held());
    h1.append_buffer(&data(1000, 2)).unwrap();
    h1.end_bracket().unwrap();
    assert!(h1.lock_held());
    h1.end_bracket().unwrap();
    assert!(!h1.lock_held());
    // The other handle takes in the bracket's change at its own bracket.
    assert!(h2.begin_bracket().unwrap());
    assert_eq!(h2.nchunks(), 2);
    h2.end_bracket().unwrap();
    // Without locking a bracket does nothing.
    let mut h3 = SuperChunk::open_locking(&p, 0, io, false).unwrap();
    assert!(!h3.begin_bracket().unwrap());
    assert!(!h3.lock_held());
    h3.end_bracket().unwrap();
    drop((h1, h2, h3));
    urlpath::remove(&p).unwrap();
    assert!(!crate::frame::lock::lock_path(&p, false).exists());
}

/// A backend whose files are opened around each operation, counting the
/// files open now.
#[derive(Debug, Default)]
struct PerOperation {
    open: std::sync::Arc<std::sync::atomic::AtomicI64>,
}

#[derive(Debug)]
struct CountedFile {
    inner: Box<dyn crate::io::IoFile>,
    open: std::sync::Arc<std::sync::atomic::AtomicI64>,
}

impl Drop for CountedFile {
    fn drop(&mut self) {
        self.open.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

impl crate::io::IoFile for CountedFile {
    fn read_at(&self, pos: u64, buf: &mut [u8]) -> Result<()> {
        self.inner.read_at(pos, buf)
    }
    fn write_at(&mut self, pos: u64, d: &[u8]) -> Result<()> {
        self.inner.write_at(pos, d)
    }
    fn size(&self) -> Result<u64> {
        self.inner.size()
    }
    fn truncate(&mut self, size: u64) -> Result<()> {
        self.inner.truncate(size)
    }
}

impl crate::io::IoBackend for PerOperation {
    fn open(&self, path: &Path, mode: crate::io::OpenMode) -> Result<Box<dyn crate::io::IoFile>> {
        let inner = crate::io::FileSystem.open(path, mode)?;
        self.open.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(Box::new(CountedFile {
            inner,
            open: self.open.clone(),
        }))
    }
    fn keeps_files_open(&self) -> bool {
        false
    }
}

#[test]
fn per_operation_backends_hold_no_file_between_calls() {
    let backend = PerOperation::default();
    let live = backend.open.clone();
    let io: Io = std::sync::Arc::new(backend);
    for sparse in [false, true] {
        let p = if sparse {
            tmp_dir("perop.sparse")
        } else {
            tmp("perop.b2frame")
        };
        let st = if sparse {
            Storage::SparseDir(p.clone())
        } else {
            Storage::FrameFile(p.clone())
        };
        let mut sc = SuperChunk::new_with_io(cp(4), DParams::default(), st, io.clone()).unwrap();
        assert_eq!(live.load(std::sync::atomic::Ordering::SeqCst), 0);
        sc.append_buffer(&data(1000, 3)).unwrap();
        assert_eq!(live.load(std::sync::atomic::Ordering::SeqCst), 0);
        let mut other = SuperChunk::open_with_io(&p, 0, io.clone()).unwrap();
        assert_eq!(live.load(std::sync::atomic::Ordering::SeqCst), 0);
        sc.append_buffer(&data(1000, 4)).unwrap();
        assert!(other.follow().unwrap());
        assert_eq!(other.decompress_chunk_vec(1).unwrap(), data(1000, 4));
        assert_eq!(live.load(std::sync::atomic::Ordering::SeqCst), 0);
        drop((sc, other));
        if sparse {
            let _ = std::fs::remove_dir_all(&p);
        } else {
            let _ = std::fs::remove_file(&p);
        }
    }
}
