//! Several handles on one frame on disk: following the changes the others
//! make, and (optionally) locking the frame against them.
//!
//! Each change made through a handle first takes in what other handles
//! wrote (one header read tells), then writes; with locking enabled it
//! does both under the frame's exclusive lock. Reads (which borrow the
//! super-chunk shared) take in other handles' changes when asked:
//! [`SuperChunk::read`] runs one under the shared lock on the current
//! frame (the C API does that at each call); [`SuperChunk::follow`] and
//! [`SuperChunk::lock`] are the parts.

use super::{Store, SuperChunk};
use crate::error::Result;
use crate::frame::lock::{lock_path, FrameLock};
use crate::io::Io;
use std::path::{Path, PathBuf};

/// Reads of a frame caught half way through another handle's unlocked
/// write are tried again this many times.
const UNLOCKED_ATTEMPTS: u32 = 50;

impl SuperChunk {
    /// Open a frame on disk like [`SuperChunk::open_with_io`]; with
    /// `locking`, the frame is read under its shared lock and every later
    /// change or locked read goes through the lock.
    pub fn open_locking(path: &Path, offset: u64, io: Io, locking: bool) -> Result<SuperChunk> {
        if !locking || !path.exists() {
            let mut sc = Self::open_with_io(path, offset, io)?;
            sc.set_locking(locking);
            return Ok(sc);
        }
        let mut lock = FrameLock::new(lock_path(path, path.is_dir()));
        lock.acquire(false)?;
        let r = Self::open_with_io(path, offset, io);
        let released = lock.release();
        let mut sc = r?;
        released?;
        sc.lock = Some(lock);
        Ok(sc)
    }

    /// The lock file of a frame on disk.
    fn lock_file(&self) -> Option<PathBuf> {
        let f = self.frame()?;
        match (f.sparse_dir(), f.file_path()) {
            (Some(d), _) => Some(lock_path(d, true)),
            (None, Some((p, _))) => Some(lock_path(p, false)),
            (None, None) => None,
        }
    }

    /// Whether changes and locked reads take the frame's lock (frames on
    /// disk only; a lock held now is kept).
    pub fn set_locking(&mut self, on: bool) {
        if !on {
            if !self.lock_held() {
                self.lock = None;
            }
        } else if self.lock.is_none() {
            self.lock = self.lock_file().map(FrameLock::new);
        }
    }

    /// Whether locking is enabled.
    pub fn locking(&self) -> bool {
        self.lock.is_some()
    }

    /// Whether this handle holds the frame's lock now.
    pub fn lock_held(&self) -> bool {
        self.lock.as_ref().is_some_and(|l| l.held())
    }

    /// Take the frame's lock (shared or exclusive; re-entrant) and take in
    /// the changes other handles made. Without locking only the latter.
    /// Returns whether anything changed. Every successful call must be
    /// matched by [`SuperChunk::unlock`].
    pub fn lock(&mut self, exclusive: bool) -> Result<bool> {
        let forced = match &mut self.lock {
            Some(l) => l.acquire(exclusive)?,
            None => false,
        };
        match self.follow_now(forced) {
            Ok(c) => Ok(c),
            Err(e) => {
                let _ = self.unlock();
                Err(e)
            }
        }
    }

    /// Release one level of the lock taken by [`SuperChunk::lock`].
    pub fn unlock(&mut self) -> Result<()> {
        match &mut self.lock {
            Some(l) => l.release(),
            None => Ok(()),
        }
    }

    /// Open an explicit lock bracket (`blosc2_schunk_lock`): with locking,
    /// take the lock exclusively until [`SuperChunk::end_bracket`], so that
    /// several changes are seen by others as one. Returns whether another
    /// handle changed the frame; without locking, nothing happens.
    pub fn begin_bracket(&mut self) -> Result<bool> {
        if !self.locking() {
            return Ok(false);
        }
        self.lock(true)
    }

    /// Close one level of a bracket (`blosc2_schunk_unlock`); at the end of
    /// the outermost one the bracket's changes go to stable storage.
    pub fn end_bracket(&mut self) -> Result<()> {
        let was_held = self.lock_held();
        self.unlock()?;
        if was_held && !self.lock_held() {
            let _ = self.sync();
        }
        Ok(())
    }

    /// Take in the changes other handles made to the frame on disk (one
    /// header read when there are none). Returns whether anything changed;
    /// an error when the frame cannot be read consistently (the old view is
    /// then kept, and a later call tries again).
    pub fn follow(&mut self) -> Result<bool> {
        self.follow_now(false)
    }

    /// Like [`SuperChunk::follow`] under the shared lock.
    pub fn refresh(&mut self) -> Result<bool> {
        let changed = self.lock(false)?;
        self.unlock()?;
        Ok(changed)
    }

    /// Run a read on the frame as other handles left it, holding the shared
    /// lock (with locking) for its whole length: what the C API does at
    /// each call.
    pub fn read<R>(&mut self, f: impl FnOnce(&Self) -> Result<R>) -> Result<R> {
        self.lock(false)?;
        let r = f(self);
        let u = self.unlock();
        let r = r?;
        u?;
        Ok(r)
    }

    /// Incremented each time changes by other handles are taken in.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    fn follow_now(&mut self, forced: bool) -> Result<bool> {
        let Store::Frame(f) = &self.store else {
            return Ok(false);
        };
        if f.memory_bytes().is_some() || (!forced && !f.changed_on_disk()?) {
            return Ok(false);
        }
        let held = self.lock_held();
        let o = f.reopen_consistent(if held { 1 } else { UNLOCKED_ATTEMPTS })?;
        let same = o.frame.len() == f.len()
            && o.frame.offsets() == f.offsets()
            && o.header.nbytes == self.nbytes
            && o.header.chunksize == self.chunksize
            && o.metalayers == self.metalayers
            && o.vlmetalayers == self.vlmetalayers;
        let fresh = SuperChunk::from_opened(o, false)?;
        // The new view replaces the old one even when nothing a caller sees
        // changed (the header bytes did), so the next check is quiet again.
        self.cbytes = fresh.cbytes;
        self.store = fresh.store;
        if same {
            return Ok(false);
        }
        self.nbytes = fresh.nbytes;
        self.chunksize = fresh.chunksize;
        self.blocksize = fresh.blocksize;
        self.flags2 = fresh.flags2;
        self.metalayers = fresh.metalayers;
        self.vlmetalayers = fresh.vlmetalayers;
        self.generation += 1;
        Ok(true)
    }

    /// Run a change holding the exclusive lock, on the frame as other
    /// handles left it. Nested changes run inside the outer one's hold.
    pub(super) fn exclusive<R>(&mut self, f: impl FnOnce(&mut Self) -> Result<R>) -> Result<R> {
        if self.busy > 0 {
            return f(self);
        }
        self.lock(true)?;
        self.busy += 1;
        let r = f(self);
        self.busy -= 1;
        let u = self.unlock();
        let r = r?;
        u?;
        Ok(r)
    }
}
