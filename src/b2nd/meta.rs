//! The "b2nd" metalayer: a msgpack array of seven entries (format version,
//! ndim, shape as int64s, chunk shape and block shape as int32s, dtype
//! format, dtype string), laid out as the b2nd metalayer document describes.
//! Older "caterva" metalayers stop after the block shape.

use super::geometry::{Geometry, MAX_DIM};
use crate::error::{Error, Result};

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

/// Encode the metalayer.  `ndim` up to [`MAX_DIM`]; the array markers are
/// `0x90 + ndim` as the format document (and every writer) has them.
pub fn serialize(
    shape: &[i64],
    chunkshape: &[i32],
    blockshape: &[i32],
    dtype: &str,
    dtype_format: i8,
) -> Result<Vec<u8>> {
    let nd = shape.len();
    if nd > MAX_DIM || chunkshape.len() != nd || blockshape.len() != nd || dtype_format < 0 {
        return Err(Error::InvalidParam);
    }
    let dlen = i32::try_from(dtype.len()).map_err(|_| Error::InvalidParam)?;
    let mut out = Vec::with_capacity(3 + 3 * (1 + nd * 9) + 6 + dtype.len());
    out.push(0x97);
    out.push(VERSION);
    out.push(nd as u8);
    out.push(0x90 + nd as u8);
    for &s in shape {
        out.push(0xd3);
        out.extend_from_slice(&s.to_be_bytes());
    }
    for part in [chunkshape, blockshape] {
        out.push(0x90 + nd as u8);
        for &v in part {
            out.push(0xd2);
            out.extend_from_slice(&v.to_be_bytes());
        }
    }
    out.push(dtype_format as u8);
    out.push(0xdb);
    out.extend_from_slice(&dlen.to_be_bytes());
    out.extend_from_slice(dtype.as_bytes());
    Ok(out)
}

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N]> {
        let end = self.pos.checked_add(N).ok_or(Error::Failure)?;
        let s = self.b.get(self.pos..end).ok_or(Error::Failure)?;
        self.pos = end;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }
    fn byte(&mut self) -> Result<u8> {
        Ok(self.take::<1>()?[0])
    }
    fn expect(&mut self, v: u8) -> Result<()> {
        if self.byte()? == v {
            Ok(())
        } else {
            Err(Error::Failure)
        }
    }
}

/// Decode and check a metalayer; also returns the number of bytes read.
///
/// Malformed bytes (wrong markers, truncation, a dtype that is not a str32)
/// give [`Error::Failure`]; well-formed bytes describing impossible shapes
/// (see [`Geometry::new`]) give [`Error::InvalidParam`].  A metalayer that
/// ends after the block shape (the older "caterva" form) has dtype
/// [`DEFAULT_DTYPE`].
pub fn deserialize(meta: &[u8]) -> Result<(ArrayMeta, usize)> {
    deserialize_parts(meta, true)
}

/// As [`deserialize`]; without `with_dtype` the bytes after the block shape
/// are not looked at (the dtype is then [`DEFAULT_DTYPE`]) and the count
/// stops there, as `b2nd_deserialize_meta` does when asked for no dtype.
pub fn deserialize_parts(meta: &[u8], with_dtype: bool) -> Result<(ArrayMeta, usize)> {
    let mut r = Reader { b: meta, pos: 0 };
    let head = r.byte()?;
    if head != 0x97 && head != 0x96 {
        return Err(Error::Failure);
    }
    if r.byte()? >= 0x80 {
        return Err(Error::Failure);
    }
    let nd = r.byte()? as usize;
    if nd > MAX_DIM {
        return Err(Error::Failure);
    }
    let marker = 0x90 + nd as u8;
    r.expect(marker)?;
    let mut shape = Vec::with_capacity(nd);
    for _ in 0..nd {
        r.expect(0xd3)?;
        shape.push(i64::from_be_bytes(r.take::<8>()?));
    }
    let mut parts = [Vec::with_capacity(nd), Vec::with_capacity(nd)];
    for part in parts.iter_mut() {
        r.expect(marker)?;
        for _ in 0..nd {
            r.expect(0xd2)?;
            part.push(i32::from_be_bytes(r.take::<4>()?));
        }
    }
    let (dtype, dtype_format) = if with_dtype && r.pos < meta.len() {
        let fmt = r.byte()?;
        if fmt >= 0x80 {
            return Err(Error::Failure);
        }
        r.expect(0xdb)?;
        let len = i32::from_be_bytes(r.take::<4>()?);
        let len = usize::try_from(len).map_err(|_| Error::Failure)?;
        let end = r.pos.checked_add(len).ok_or(Error::Failure)?;
        let text = meta.get(r.pos..end).ok_or(Error::Failure)?;
        r.pos = end;
        if text.contains(&0) {
            return Err(Error::Failure);
        }
        let text = std::str::from_utf8(text).map_err(|_| Error::Failure)?;
        (text.to_string(), fmt as i8)
    } else {
        (DEFAULT_DTYPE.to_string(), 0)
    };
    let geom = Geometry::new(&shape, &parts[0], &parts[1])?;
    Ok((
        ArrayMeta {
            geom,
            dtype,
            dtype_format,
        },
        r.pos,
    ))
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
        // blockshape larger than chunkshape
        let m = serialize(&[10], &[4], &[8], "|u1", 0).unwrap();
        assert!(deserialize(&m).is_err());
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
}
