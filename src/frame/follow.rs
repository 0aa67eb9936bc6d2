//! Noticing and reading again a frame on disk that another handle (in this
//! process or another one) changed.
//!
//! Every change rewrites the frame's fixed header (its length, counters or
//! flags) last, so comparing the header bytes on disk with the ones this
//! handle last read or wrote is a one-read test for the common case; a
//! change that leaves them equal (a reorder of same-length offsets) is only
//! seen through the lock's generation number (see [`super::lock`]).

use super::{Backing, Frame, OpenedFrame};
use crate::error::{Error, Result};
use crate::format::frame::{HEADER_MINLEN, TYPE_CONTIGUOUS};

impl Frame {
    /// Whether the frame on disk no longer matches this handle's view.
    /// Frames in memory never change behind a handle. A header that cannot
    /// be read (the file was truncated, e.g. by a program about to write a
    /// new frame into it) is no new state to take in: the handle keeps its
    /// view, answers what it holds in memory (as the reference does), and
    /// its reads of chunk data fail where the file no longer holds them.
    pub fn changed_on_disk(&self) -> Result<bool> {
        let Backing::File {
            offset, file, path, ..
        } = &self.backing
        else {
            return Ok(false);
        };
        // A file kept open may have been replaced under its name.
        if file.as_ref().is_some_and(|f| !f.still_at(path)) {
            return Ok(true);
        }
        let mut now = [0u8; HEADER_MINLEN];
        let at = *offset;
        if self.with_file(|f| f.read_at(at, &mut now)).is_err() {
            return Ok(false);
        }
        Ok(now[..] != self.head[..])
    }

    /// Read the frame again from where it lives (files only).
    pub fn reopen(&self) -> Result<OpenedFrame> {
        match (&self.backing, &self.sparse_dir) {
            (Backing::File { io, .. }, Some(dir)) => Frame::open_sparse(dir, io.clone()),
            (
                Backing::File {
                    io, path, offset, ..
                },
                None,
            ) => Frame::open_file_typed(path, *offset, io.clone(), TYPE_CONTIGUOUS, None),
            (Backing::Memory(_), _) => Err(Error::FrameType),
        }
    }

    /// Read the frame again and make sure the copy is of one state: the
    /// header on disk must still be the one the copy was read under (a
    /// writer publishes its header last). Without a lock a writer may be
    /// half way; up to `attempts` reads are tried, 1 ms apart, before giving
    /// up with an error.
    pub fn reopen_consistent(&self, attempts: u32) -> Result<OpenedFrame> {
        let mut last = Error::FileRead;
        for i in 0..attempts.max(1) {
            if i > 0 {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            match self.reopen() {
                Ok(o) => {
                    if !o.frame.changed_on_disk()? {
                        return Ok(o);
                    }
                }
                Err(e) => last = e,
            }
        }
        Err(last)
    }
}
