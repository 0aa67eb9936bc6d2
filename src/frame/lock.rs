//! Advisory locking of a frame on disk shared between handles and processes.
//!
//! The lock is a sidecar file (`<frame>.b2lock` beside a contiguous frame,
//! `.b2lock` inside a sparse frame's directory) locked with `flock`: shared
//! for reads, exclusive for changes, so that c-blosc2 processes locking the
//! same frame exclude ours and the other way round. The sidecar also holds a
//! generation number (8 bytes, native order, at byte 8): every exclusive
//! holder bumps it, and a holder that finds a number other than the one it
//! last saw knows the frame changed, even when its header bytes did not.
//!
//! The lock is re-entrant per handle: nested acquisitions only count.

use crate::error::{Error, Result};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Name of the lock file inside a sparse frame's directory.
pub const LOCK_NAME: &str = ".b2lock";
const SEQ_AT: u64 = 8;

/// Whether the `BLOSC_LOCKING` environment variable asks every handle on
/// a frame file to lock it (set, non-empty and not `0`), as the reference
/// reads it.
pub fn locking_from_env() -> bool {
    std::env::var_os("BLOSC_LOCKING").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The lock file of the frame at `path` (a file, or a sparse frame's directory).
pub fn lock_path(path: &Path, sparse: bool) -> PathBuf {
    if sparse {
        return path.join(LOCK_NAME);
    }
    let mut s = path.as_os_str().to_os_string();
    s.push(LOCK_NAME);
    PathBuf::from(s)
}

/// One handle's lock on a frame.
#[derive(Debug)]
pub struct FrameLock {
    path: PathBuf,
    /// Opened at the first acquisition, kept for the handle's life.
    file: Option<File>,
    depth: u32,
    /// The generation number seen at the last acquisition.
    seen: u64,
}

impl FrameLock {
    /// A lock on the frame whose lock file is `path` (nothing is opened yet).
    pub fn new(path: PathBuf) -> FrameLock {
        FrameLock {
            path,
            file: None,
            depth: 0,
            seen: 0,
        }
    }

    /// Whether this handle holds the lock.
    pub fn held(&self) -> bool {
        self.depth > 0
    }

    /// Acquire the lock (or count one more nesting level). Returns whether
    /// another handle changed the frame since this one last held the lock
    /// (always false for a nested acquisition).
    pub fn acquire(&mut self, exclusive: bool) -> Result<bool> {
        if self.depth > 0 {
            self.depth += 1;
            return Ok(false);
        }
        if self.file.is_none() {
            let f = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&self.path)
                .map_err(|_| Error::Lock)?;
            self.file = Some(f);
        }
        let f = self.file.as_ref().ok_or(Error::Lock)?;
        let locked = if exclusive { f.lock() } else { f.lock_shared() };
        locked.map_err(|_| Error::Lock)?;
        let mut b = [0u8; 8];
        let seq = match f.read_at(&mut b, SEQ_AT) {
            Ok(8) => u64::from_ne_bytes(b),
            Ok(_) => 0,
            Err(_) => {
                let _ = f.unlock();
                return Err(Error::Lock);
            }
        };
        let changed = seq != self.seen;
        let mut now = seq;
        if exclusive {
            now = seq.wrapping_add(1);
            if f.write_all_at(&now.to_ne_bytes(), SEQ_AT).is_err() {
                let _ = f.unlock();
                return Err(Error::Lock);
            }
        }
        self.seen = now;
        self.depth = 1;
        Ok(changed)
    }

    /// Release one nesting level (the lock itself at the last one).
    pub fn release(&mut self) -> Result<()> {
        match self.depth {
            0 => Ok(()),
            1 => {
                self.depth = 0;
                self.file
                    .as_ref()
                    .map_or(Ok(()), |f| f.unlock())
                    .map_err(|_| Error::Lock)
            }
            _ => {
                self.depth -= 1;
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_tells_other_writers_apart() {
        let dir = std::env::temp_dir().join(format!("b2lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = lock_path(&dir.join("f.b2frame"), false);
        assert!(p.ends_with("f.b2frame.b2lock"));
        let mut a = FrameLock::new(p.clone());
        let mut b = FrameLock::new(p.clone());
        // A fresh lock file reads as generation 0: no change seen.
        assert!(!a.acquire(false).unwrap());
        assert!(!a.acquire(true).unwrap()); // nested: only counted
        a.release().unwrap();
        a.release().unwrap();
        assert!(!a.held());
        assert!(!b.acquire(true).unwrap());
        b.release().unwrap();
        // b's exclusive hold bumped the generation: a sees a change once.
        assert!(a.acquire(false).unwrap());
        a.release().unwrap();
        assert!(!a.acquire(true).unwrap());
        a.release().unwrap();
        assert!(!a.acquire(false).unwrap());
        a.release().unwrap();
        assert!(b.acquire(false).unwrap());
        b.release().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
