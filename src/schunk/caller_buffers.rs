//! Who frees the frame buffers a super-chunk shares with a C caller.
//!
//! Two buffers can be shared. A caller may open a super-chunk on its own
//! frame buffer without copy (`blosc2_schunk_from_buffer(..., false)`): the
//! super-chunk reads it in place until its first change (then it works on a
//! copy: `frame::FrameBytes`), hands the caller's buffer back while the
//! frame is unchanged, and frees it at the end only when told to
//! (`blosc2_schunk_avoid_cframe_free(false)`). And a super-chunk holding its
//! frame in memory lends that buffer (`blosc2_schunk_to_buffer`); a caller
//! that asked to free it itself (`avoid_cframe_free(true)`) keeps it after
//! the super-chunk is gone.
//!
//! Buffers are named by address only: this module never reads or frees
//! them, it says which ones the C layer must free or keep.

use super::SuperChunk;
use crate::error::{Error, Result};
use crate::format::frame::HEADER_MINLEN;
use crate::frame::LentBytes;

/// The frame buffers a super-chunk shares with its C caller, and the
/// caller's choice of who frees them.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct CallerBuffers {
    /// Address and length of the caller's buffer the super-chunk was
    /// opened on without copy.
    opened_on: Option<(usize, usize)>,
    /// Address of the frame buffer lent to the caller last.
    lent: Option<usize>,
    /// Whether the caller frees the shared buffers itself.
    avoid_free: bool,
}

/// What freeing a super-chunk leaves to the C layer.
#[derive(Debug, PartialEq, Eq)]
pub struct Released {
    /// The caller's buffer (by address) to free now.
    pub free: Option<usize>,
    /// The super-chunk's own frame buffer, which the caller took and frees
    /// itself: it must not be dropped here.
    pub kept: Option<Vec<u8>>,
}

impl CallerBuffers {
    /// Open a super-chunk on a caller's contiguous frame
    /// (`blosc2_schunk_from_buffer`): with `copy` the bytes are copied
    /// and nothing is shared, without it the frame reads the caller's bytes
    /// in place. Bytes shorter than a frame header are `ReadBuffer`, before
    /// anything is read. Returns the super-chunk and the buffers it shares.
    pub fn open(frame: Box<dyn LentBytes>, copy: bool) -> Result<(SuperChunk, CallerBuffers)> {
        let b = frame.bytes();
        if b.len() < HEADER_MINLEN {
            return Err(Error::ReadBuffer);
        }
        let buffers = CallerBuffers::opened_on(b.as_ptr() as usize, b.len(), copy);
        let sc = if copy {
            SuperChunk::from_frame_bytes(b.to_vec(), true)?
        } else {
            SuperChunk::from_lent_frame(frame)?
        };
        Ok((sc, buffers))
    }

    /// A super-chunk opened on the caller's `len` bytes at `addr`: with
    /// `copy` nothing is shared; without, the super-chunk refers to the
    /// caller's buffer, which (as the reference) stays the caller's until it
    /// says otherwise.
    pub fn opened_on(addr: usize, len: usize, copy: bool) -> CallerBuffers {
        if copy {
            return CallerBuffers::default();
        }
        CallerBuffers {
            opened_on: Some((addr, len)),
            lent: None,
            avoid_free: true,
        }
    }

    /// The caller's buffer the super-chunk was opened on, if any.
    pub fn caller_buffer(&self) -> Option<(usize, usize)> {
        self.opened_on
    }

    /// Whether the caller frees the shared buffers itself
    /// (`blosc2_schunk_avoid_cframe_free`).
    pub fn set_avoid_free(&mut self, avoid: bool) {
        self.avoid_free = avoid;
    }

    /// Where an in-memory frame whose bytes are `frame` is handed to the
    /// caller from, as `(address, length)`: the caller's own buffer when the
    /// super-chunk was opened on it and its bytes (`caller`) still equal the
    /// frame, as the reference hands it back; the frame's own buffer
    /// otherwise, recorded as lent when no caller buffer is involved.
    pub fn lend(&mut self, frame: &[u8], caller: Option<&[u8]>) -> (usize, usize) {
        if let (Some((addr, len)), Some(c)) = (self.opened_on, caller) {
            if c == frame {
                return (addr, len);
            }
        }
        let at = frame.as_ptr() as usize;
        if self.opened_on.is_none() {
            self.lent = Some(at);
        }
        (at, frame.len())
    }

    /// Close `sc` and say what becomes of the shared buffers: the caller's
    /// buffer is freed unless the caller keeps it; the frame buffer lent
    /// last is kept for the caller when it asked to free it itself and the
    /// super-chunk still holds that very buffer.
    pub fn release(&self, sc: SuperChunk) -> Released {
        let free = self.opened_on.filter(|_| !self.avoid_free).map(|(a, _)| a);
        let taken = self.lent.filter(|_| self.avoid_free);
        let kept = sc.close().filter(|v| taken == Some(v.as_ptr() as usize));
        Released { free, kept }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::{CParams, DParams};
    use crate::schunk::Storage;

    fn frame_in_memory() -> SuperChunk {
        let cp = CParams {
            typesize: 4,
            ..CParams::default()
        };
        let mut sc = SuperChunk::new(cp, DParams::default(), Storage::FrameInMemory).unwrap();
        sc.append_buffer(&[7u8; 400]).unwrap();
        sc
    }

    #[test]
    fn an_unchanged_caller_buffer_is_handed_back_and_freed_only_when_asked() {
        let sc = frame_in_memory();
        let frame = sc.frame_buffer().unwrap().into_owned();
        assert_eq!(
            CallerBuffers::opened_on(0x1000, frame.len(), true),
            CallerBuffers::default()
        );
        let mut b = CallerBuffers::opened_on(0x1000, frame.len(), false);
        assert_eq!(b.lend(&frame, Some(&frame)), (0x1000, frame.len()));
        // Changed since: the frame's own bytes, not recorded as lent.
        let other = vec![0u8; 8];
        assert_eq!(b.lend(&frame, Some(&other)).0, frame.as_ptr() as usize);
        assert_eq!(b.lent, None);
        // The reference leaves the caller's buffer to the caller by default.
        assert_eq!(b.release(frame_in_memory()).free, None);
        b.set_avoid_free(false);
        let r = b.release(sc);
        assert_eq!(r.free, Some(0x1000));
        assert_eq!(r.kept, None);
    }

    /// A frame lent from a buffer the test owns.
    #[derive(Debug)]
    struct Lent(Vec<u8>);

    impl LentBytes for Lent {
        fn bytes(&self) -> &[u8] {
            &self.0
        }
    }

    #[test]
    fn a_caller_frame_is_shared_only_without_copy() {
        let frame = frame_in_memory().frame_buffer().unwrap().into_owned();
        let short = Box::new(Lent(frame[..HEADER_MINLEN - 1].to_vec()));
        assert_eq!(
            CallerBuffers::open(short, false).err(),
            Some(Error::ReadBuffer)
        );
        let (sc, b) = CallerBuffers::open(Box::new(Lent(frame.clone())), true).unwrap();
        assert_eq!((sc.nbytes, b), (400, CallerBuffers::default()));
        let lent = Box::new(Lent(frame.clone()));
        let at = lent.0.as_ptr() as usize;
        let (sc, b) = CallerBuffers::open(lent, false).unwrap();
        assert_eq!(sc.nbytes, 400);
        assert_eq!(b.caller_buffer(), Some((at, frame.len())));
        assert!(CallerBuffers::open(Box::new(Lent(vec![0; 200])), true).is_err());
    }

    #[test]
    fn a_lent_frame_is_kept_only_when_the_caller_frees_it() {
        let sc = frame_in_memory();
        let mut b = CallerBuffers::default();
        let at = match sc.frame_buffer().unwrap() {
            std::borrow::Cow::Borrowed(f) => b.lend(f, None).0,
            std::borrow::Cow::Owned(_) => panic!("a frame in memory is lent"),
        };
        assert_eq!(b.lent, Some(at));
        assert_eq!(b.clone().release(frame_in_memory()).kept, None);
        b.set_avoid_free(true);
        let r = b.release(sc);
        assert_eq!(r.free, None);
        assert_eq!(r.kept.map(|v| v.as_ptr() as usize), Some(at));
    }
}
