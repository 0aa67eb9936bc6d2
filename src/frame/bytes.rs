//! The bytes of a frame held in memory: the frame's own buffer, or bytes a
//! caller lends, read in place until the first change copies them.
//!
//! Opening a frame on a caller's buffer without copy
//! (`blosc2_schunk_from_buffer(..., false)`, python-blosc2's default) then
//! costs neither a copy nor a second frame's worth of memory.

use std::ops::Deref;

/// Bytes a caller lends to a frame; they stay valid and unchanged while
/// the frame holds them.
pub trait LentBytes: Send + Sync + std::fmt::Debug {
    /// The lent bytes.
    fn bytes(&self) -> &[u8];
}

/// The bytes of a frame in memory.
#[derive(Debug)]
pub enum FrameBytes {
    /// The frame's own buffer.
    Owned(Vec<u8>),
    /// A caller's bytes, read in place.
    Lent(Box<dyn LentBytes>),
}

impl FrameBytes {
    /// The buffer, to be changed: lent bytes are copied into one of the
    /// frame's own first.  `self` is left owning an empty buffer until the
    /// changed one is put back.
    pub fn take_owned(&mut self) -> Vec<u8> {
        match std::mem::replace(self, FrameBytes::Owned(Vec::new())) {
            FrameBytes::Owned(v) => v,
            FrameBytes::Lent(l) => l.bytes().to_vec(),
        }
    }

    /// The frame's own buffer; `None` for lent bytes, which stay the
    /// caller's.
    pub fn into_owned(self) -> Option<Vec<u8>> {
        match self {
            FrameBytes::Owned(v) => Some(v),
            FrameBytes::Lent(_) => None,
        }
    }
}

impl Deref for FrameBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            FrameBytes::Owned(v) => v,
            FrameBytes::Lent(l) => l.bytes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[derive(Debug)]
    struct Shared(Arc<Vec<u8>>);
    impl LentBytes for Shared {
        fn bytes(&self) -> &[u8] {
            &self.0
        }
    }

    #[test]
    fn lent_bytes_are_read_in_place_and_copied_for_a_change() {
        let caller = Arc::new(vec![1u8, 2, 3]);
        let mut b = FrameBytes::Lent(Box::new(Shared(caller.clone())));
        assert_eq!(b.as_ptr(), caller.as_ptr());
        let mut own = b.take_owned();
        own.push(4);
        assert_ne!(own.as_ptr(), caller.as_ptr());
        assert_eq!(caller.as_slice(), &[1, 2, 3]);
        assert_eq!(&*b, &[] as &[u8]);
        assert_eq!(FrameBytes::Owned(own).into_owned(), Some(vec![1, 2, 3, 4]));
        assert_eq!(
            FrameBytes::Lent(Box::new(Shared(caller))).into_owned(),
            None
        );
    }
}
