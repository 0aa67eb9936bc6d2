//! Writing a copy of an array's super-chunk to a path (`b2nd_save`): the
//! array stays where it is, the copy goes to a frame file or a sparse-frame
//! directory.

use crate::error::Result;
use crate::schunk::{Storage, SuperChunk};

/// Write a copy of `sc` (chunks, metalayers and vlmetalayers, compressed as
/// they are) to `urlpath`: a contiguous frame file when `contiguous`, a
/// sparse-frame directory otherwise.  The copy is closed before returning,
/// so everything is on disk.
pub fn save(sc: &SuperChunk, contiguous: bool, urlpath: &str) -> Result<()> {
    let storage = Storage::from_urlpath(contiguous, Some(urlpath));
    sc.copy_to(storage, None)?.close();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::b2nd::{Fill, NdArray};
    use crate::chunk::{CParams, DParams};
    use crate::format::header::Special;

    fn small_array() -> NdArray {
        let cp = CParams {
            typesize: 2,
            ..CParams::default()
        };
        let fill = Fill::Special(Special::Zero);
        let dp = DParams::default();
        NdArray::new(
            cp,
            dp,
            Storage::Memory,
            &[5, 4],
            &[3, 4],
            &[2, 2],
            "<i2",
            fill,
        )
        .unwrap()
    }

    #[test]
    fn a_saved_array_opens_with_the_same_items() {
        let dir = std::env::temp_dir().join(format!("b2nd-save-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut a = small_array();
        let data: Vec<u8> = (0..40u8).collect();
        crate::b2nd::array::from_buffer(&mut a.sc, &a.meta.geom, &data).unwrap();
        for (contiguous, name) in [(true, "a.b2nd"), (false, "a.b2frame")] {
            let path = dir.join(name);
            save(&a.sc, contiguous, path.to_str().unwrap()).unwrap();
            let b = NdArray::open(&path).unwrap();
            assert_eq!(b.meta, a.meta);
            assert_eq!(b.sc.is_sparse(), !contiguous);
            assert_eq!(
                crate::b2nd::array::to_buffer(&b.sc, &b.meta.geom).unwrap(),
                data
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
