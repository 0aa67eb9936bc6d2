//! Following the changes other handles make to an array stored on disk:
//! when the super-chunk took in other handles' changes (its generation
//! moved), the array's metalayer is read again. Another handle may resize
//! the array; a different number of dimensions, chunk shape or block shape
//! is not the same array any more.

use super::array::read_meta;
use super::meta::ArrayMeta;
use crate::error::{Error, Result};
use crate::schunk::SuperChunk;

/// Take into `meta` the shape changes made since the super-chunk
/// generation `seen` (updated). Returns whether the description changed;
/// a changed ndim, chunk shape or block shape is `Error::Data`.
pub fn take_in_changes(sc: &SuperChunk, meta: &mut ArrayMeta, seen: &mut u64) -> Result<bool> {
    if sc.generation() == *seen {
        return Ok(false);
    }
    let fresh = read_meta(sc)?;
    if fresh.geom.ndim() != meta.geom.ndim()
        || fresh.geom.chunkshape != meta.geom.chunkshape
        || fresh.geom.blockshape != meta.geom.blockshape
    {
        return Err(Error::Data);
    }
    *seen = sc.generation();
    let changed = fresh != *meta;
    *meta = fresh;
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::b2nd::NdArray;
    use crate::chunk::CParams;
    use crate::schunk::Storage;

    #[test]
    fn a_resize_by_another_handle_is_taken_in() {
        let p = std::env::temp_dir().join(format!("b2nd-follow-{}.b2nd", std::process::id()));
        let cp = CParams {
            typesize: 4,
            ..CParams::default()
        };
        let data: Vec<u8> = (0..60u32).flat_map(|v| v.to_le_bytes()).collect();
        let storage = Storage::FrameFile(p.clone());
        let a =
            NdArray::from_buffer(cp, storage, &[6, 10], &[4, 5], &[2, 5], "<u4", &data).unwrap();
        drop(a);
        let mut other = NdArray::open(&p).unwrap();
        let mut sc = SuperChunk::open(&p, 0).unwrap();
        let mut meta = read_meta(&sc).unwrap();
        let mut seen = sc.generation();
        assert!(!take_in_changes(&sc, &mut meta, &mut seen).unwrap());
        other.resize(&[12, 10], None).unwrap();
        drop(other);
        assert!(sc.follow().unwrap());
        assert!(take_in_changes(&sc, &mut meta, &mut seen).unwrap());
        assert_eq!(meta.geom.shape, vec![12, 10]);
        // A description with another chunk shape is not this array.
        let mut wrong = meta.clone();
        wrong.geom.chunkshape[0] = 2;
        let mut stale = u64::MAX;
        assert_eq!(
            take_in_changes(&sc, &mut wrong, &mut stale),
            Err(Error::Data)
        );
        drop(sc);
        let _ = std::fs::remove_file(&p);
    }
}
