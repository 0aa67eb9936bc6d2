//! The "b2nd" metalayer of an array: its bytes (read and written by
//! [`crate::format::b2nd_meta`]) and the array geometry they must describe.

use super::geometry::{Geometry, MAX_DIM};
use crate::error::{Error, Result};
use crate::format::b2nd_meta::{self, Markers, Reader};

/// `B2ND_METALAYER_VERSION`.
pub const VERSION: u8 = 0;
/// `B2ND_DEFAULT_DTYPE`.
pub const DEFAULT_DTYPE: &str = "|u1";

/// What the metalayer holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrayMeta {
    /// Shapes and their derived sizes.
    pub geom: Geometry,
    /// The dtype string (NumPy notation when `dtype_format` is 0).
    pub dtype: String,
    /// `DTYPE_NUMPY_FORMAT` (0) or another convention.
    pub dtype_format: i8,
}

/// Encode the metalayer (see [`b2nd_meta::write`]).
pub fn serialize(
    shape: &[i64],
    chunkshape: &[i32],
    blockshape: &[i32],
    dtype: &str,
    dtype_format: i8,
) -> Result<Vec<u8>> {
    b2nd_meta::write(shape, chunkshape, blockshape, dtype, dtype_format).ok_or(Error::InvalidParam)
}

/// The number of dimensions `b2nd_serialize_meta` encodes: `ndim` from 0
/// to [`MAX_DIM`] with a non-negative `dtype_format` (`Failure` otherwise,
/// as the reference answers).
pub fn serialized_ndim(ndim: i8, dtype_format: i8) -> Result<usize> {
    match usize::try_from(ndim) {
        Ok(n) if n <= MAX_DIM && dtype_format >= 0 => Ok(n),
        _ => Err(Error::Failure),
    }
}

/// The dtype a metalayer is written with: `dtype`, or [`DEFAULT_DTYPE`]
/// when the caller gives none.
pub fn dtype_or_default(dtype: Option<String>) -> String {
    dtype.unwrap_or_else(|| DEFAULT_DTYPE.to_string())
}

/// Decode and check a metalayer; also returns the number of bytes read.
///
/// Malformed bytes (wrong markers, truncation, a dtype that is not a str32)
/// give [`Error::Failure`]; well-formed bytes describing impossible shapes
/// (see [`Geometry::new`]) give [`Error::InvalidParam`].  A metalayer that
/// ends after the block shape (the older "caterva" form) has dtype
/// [`DEFAULT_DTYPE`].
pub fn deserialize(meta: &[u8]) -> Result<(ArrayMeta, usize)> {
    deserialize_parts(meta, true).map(|d| (d.meta, d.len))
}

/// A metalayer as [`deserialize_parts`] read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// What it describes.
    pub meta: ArrayMeta,
    /// The number of bytes read.
    pub len: usize,
    /// Whether a dtype section follows the block shape (read or not).
    pub has_dtype: bool,
}

impl Decoded {
    /// The dtype the metalayer names: `None` when it has no dtype section
    /// (the older "caterva" form).
    pub fn dtype(&self) -> Option<&str> {
        self.has_dtype.then_some(self.meta.dtype.as_str())
    }
}

/// As [`deserialize`]; without `with_dtype` the bytes after the block shape
/// are not looked at (the dtype is then [`DEFAULT_DTYPE`]) and the count
/// stops there, as `b2nd_deserialize_meta` does when asked for no dtype.
pub fn deserialize_parts(meta: &[u8], with_dtype: bool) -> Result<Decoded> {
    let mut r = Reader::new(meta, Markers::Checked).ok_or(Error::Failure)?;
    let shapes = r.shapes().ok_or(Error::Failure)?;
    let has_dtype = !r.at_end();
    let (dtype, dtype_format) = if with_dtype && has_dtype {
        r.dtype().ok_or(Error::Failure)?
    } else {
        (DEFAULT_DTYPE.to_string(), 0)
    };
    let geom = Geometry::new(&shapes.shape, &shapes.chunkshape, &shapes.blockshape)?;
    Ok(Decoded {
        meta: ArrayMeta {
            geom,
            dtype,
            dtype_format,
        },
        len: r.position(),
        has_dtype,
    })
}

/// The text `b2nd_print_meta` prints for a metalayer: the number of
/// dimensions, the shapes and the dtype, one to a line.
pub fn describe(meta: &ArrayMeta) -> String {
    fn list<T: ToString>(v: &[T]) -> String {
        v.iter().map(T::to_string).collect::<Vec<_>>().join(", ")
    }
    let g = &meta.geom;
    format!(
        "b2nd metalayer parameters:\n Ndim:       {}\n shape:      {}\n chunkshape: {}\n dtype: {}\n blockshape: {}\n",
        g.ndim(),
        list(&g.shape),
        list(&g.chunkshape),
        meta.dtype,
        list(&g.blockshape)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let m = serialize(&[10, 20, 3], &[5, 7, 3], &[2, 7, 1], "<f8", 0).unwrap();
        assert_eq!(m[0], 0x97);
        assert_eq!(m.len(), 3 + 1 + 27 + 1 + 15 + 1 + 15 + 6 + 3);
        let (a, used) = deserialize(&m).unwrap();
        assert_eq!(used, m.len());
        assert_eq!(a.geom.shape, vec![10, 20, 3]);
        assert_eq!(a.geom.chunkshape, vec![5, 7, 3]);
        assert_eq!(a.geom.blockshape, vec![2, 7, 1]);
        assert_eq!(a.dtype, "<f8");
        assert_eq!(a.dtype_format, 0);
    }

    #[test]
    fn every_truncation_and_flip_is_rejected_or_sane() {
        let m = serialize(&[100, 30], &[10, 30], &[5, 6], "|S12", 0).unwrap();
        for n in 0..m.len() {
            // Cutting inside the dtype section is an error; cutting exactly
            // after the block shape is the caterva form.
            let r = deserialize(&m[..n]);
            if n == 3 + 1 + 18 + 1 + 10 + 1 + 10 {
                assert!(r.is_ok());
            } else {
                assert!(r.is_err(), "truncated at {n}");
            }
        }
        for i in 0..m.len() {
            for bit in 0..8 {
                let mut b = m.clone();
                b[i] ^= 1 << bit;
                if let Ok((a, _)) = deserialize(&b) {
                    assert!(a.geom.ndim() <= MAX_DIM);
                    assert!(a.geom.nitems >= 0);
                }
            }
        }
    }

    #[test]
    fn lies_are_rejected() {
        // A block larger than its chunk is no lie: c-blosc2 writes such
        // arrays, and each padded chunk then holds one block.
        let m = serialize(&[10], &[4], &[8], "|u1", 0).unwrap();
        assert_eq!(deserialize(&m).unwrap().0.geom.extchunkshape, vec![8]);
        // chunk items overflow int32
        let m = serialize(&[1 << 20, 1 << 20], &[1 << 16, 1 << 16], &[1, 1], "|u1", 0).unwrap();
        assert!(deserialize(&m).is_err());
        // negative shape
        let m = serialize(&[-3], &[1], &[1], "|u1", 0).unwrap();
        assert!(deserialize(&m).is_err());
        // ndim says 3, arrays hold 2
        let mut m = serialize(&[4, 4], &[2, 2], &[1, 1], "|u1", 0).unwrap();
        m[2] = 3;
        assert!(deserialize(&m).is_err());
    }

    #[test]
    fn the_caterva_form_has_no_dtype() {
        let m = serialize(&[10, 20], &[5, 7], &[2, 7], "<f8", 0).unwrap();
        let shapes_end = 3 + 3 + 2 * (9 + 5 + 5);
        let full = deserialize_parts(&m, true).unwrap();
        assert!(full.has_dtype && full.len == m.len() && full.meta.dtype == "<f8");
        let shapes_only = deserialize_parts(&m, false).unwrap();
        assert!(shapes_only.has_dtype && shapes_only.len == shapes_end);
        assert_eq!(shapes_only.meta.dtype, DEFAULT_DTYPE);
        let caterva = deserialize_parts(&m[..shapes_end], true).unwrap();
        assert!(!caterva.has_dtype && caterva.len == shapes_end);
        assert_eq!((full.dtype(), caterva.dtype()), (Some("<f8"), None));
    }

    #[test]
    fn serialize_arguments() {
        assert_eq!(serialized_ndim(0, 0), Ok(0));
        assert_eq!(serialized_ndim(MAX_DIM as i8, 1), Ok(MAX_DIM));
        assert_eq!(serialized_ndim(MAX_DIM as i8 + 1, 0), Err(Error::Failure));
        assert_eq!(serialized_ndim(-1, 0), Err(Error::Failure));
        assert_eq!(serialized_ndim(2, -1), Err(Error::Failure));
        assert_eq!(dtype_or_default(None), DEFAULT_DTYPE);
        assert_eq!(dtype_or_default(Some("<i4".into())), "<i4");
    }

    #[test]
    fn description() {
        let m = serialize(&[10, 20], &[5, 7], &[2, 7], "<f8", 0).unwrap();
        let (a, _) = deserialize(&m).unwrap();
        assert_eq!(
            describe(&a),
            "b2nd metalayer parameters:\n Ndim:       2\n shape:      10, 20\n \
             chunkshape: 5, 7\n dtype: <f8\n blockshape: 2, 7\n"
        );
    }
}
