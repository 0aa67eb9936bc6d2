//! Removing and renaming a stored super-chunk by its path (a frame file or
//! a sparse frame's directory), as the reference's `blosc2_remove_dir`,
//! `blosc2_remove_urlpath` and `blosc2_rename_urlpath` do it; opening
//! one by its urlpath.

use super::SuperChunk;
use crate::error::{Error, Result};
use crate::frame::lock::lock_path;
use crate::io::Io;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// The file-system path a urlpath names: the path itself, or what follows
/// a `file:///` prefix.
pub fn path_of(urlpath: &str) -> PathBuf {
    PathBuf::from(urlpath.strip_prefix("file:///").unwrap_or(urlpath))
}

impl SuperChunk {
    /// Open the super-chunk stored at `urlpath` (see [`path_of`]), a
    /// contiguous frame starting at byte `offset` of its file or a sparse
    /// frame (offset 0), through `io`, with the frame lock when `locking`
    /// (see [`SuperChunk::open_locking`]). A negative offset is
    /// `InvalidParam`.
    pub fn open_urlpath(urlpath: &str, offset: i64, io: Io, locking: bool) -> Result<SuperChunk> {
        let offset = u64::try_from(offset).map_err(|_| Error::InvalidParam)?;
        SuperChunk::open_locking(&path_of(urlpath), offset, io, locking)
    }
}

/// Remove the (flat) files of the directory `dir`, then the directory.
pub fn remove_dir(dir: &Path) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|_| Error::FileRemove)?;
    for e in entries.flatten() {
        std::fs::remove_file(e.path()).map_err(|_| Error::FileRemove)?;
    }
    std::fs::remove_dir(dir).map_err(|_| Error::FileRemove)
}

/// Remove the frame file or sparse frame directory at `path`, and the lock
/// file beside a frame file. Nothing there is no error; a path that cannot
/// be examined is `Failure`.
pub fn remove(path: &Path) -> Result<()> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(_) => return Err(Error::Failure),
    };
    let r = if meta.is_dir() {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    };
    r.map_err(|_| Error::FileRemove)?;
    let _ = std::fs::remove_file(lock_path(path, false));
    Ok(())
}

/// Rename `old` to `new`; `old` must exist (`Failure` otherwise).
pub fn rename(old: &Path, new: &Path) -> Result<()> {
    std::fs::metadata(old).map_err(|_| Error::Failure)?;
    std::fs::rename(old, new).map_err(|_| Error::Failure)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_url_names_the_path_after_its_prefix() {
        assert_eq!(path_of("file:///tmp/a.b2frame"), Path::new("tmp/a.b2frame"));
        assert_eq!(path_of("/tmp/a.b2frame"), Path::new("/tmp/a.b2frame"));
        assert_eq!(path_of("dir.b2frame"), Path::new("dir.b2frame"));
    }

    #[test]
    fn a_super_chunk_opens_by_its_urlpath_at_a_non_negative_offset() {
        use crate::chunk::{CParams, DParams};
        use crate::schunk::Storage;
        let path =
            std::env::temp_dir().join(format!("urlpath-open-{}.b2frame", std::process::id()));
        let url = format!("file:///{}", path.display());
        let cp = CParams {
            typesize: 4,
            ..CParams::default()
        };
        let mut sc = SuperChunk::new(cp, DParams::default(), Storage::FrameInMemory).unwrap();
        sc.append_buffer(&[3u8; 400]).unwrap();
        std::fs::write(
            &path,
            [&[0u8; 10][..], &sc.to_frame_bytes().unwrap()].concat(),
        )
        .unwrap();
        let io = crate::io::filesystem;
        let opened = SuperChunk::open_urlpath(&url, 10, io(), false).unwrap();
        assert!(opened.is_contiguous());
        assert_eq!(opened.decompress_chunk_vec(0).unwrap(), vec![3u8; 400]);
        assert_eq!(
            SuperChunk::open_urlpath(&url, -1, io(), false).err(),
            Some(Error::InvalidParam)
        );
        assert!(SuperChunk::open_urlpath(&url, 0, io(), false).is_err());
        remove(&path).unwrap();
    }

    #[test]
    fn remove_takes_the_lock_file_too_and_rename_needs_a_source() {
        let dir = std::env::temp_dir().join(format!("urlpath-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("a.b2frame");
        std::fs::write(&f, b"x").unwrap();
        std::fs::write(lock_path(&f, false), b"").unwrap();
        let g = dir.join("b.b2frame");
        rename(&f, &g).unwrap();
        assert_eq!(rename(&f, &g), Err(Error::Failure));
        std::fs::write(lock_path(&g, false), b"").unwrap();
        remove(&g).unwrap();
        assert!(!g.exists() && !lock_path(&g, false).exists());
        remove(&g).unwrap();
        let _ = std::fs::remove_file(lock_path(&f, false));
        remove_dir(&dir).unwrap();
        assert_eq!(remove_dir(&dir), Err(Error::FileRemove));
    }
}
