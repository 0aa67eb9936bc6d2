//! Just enough of the "b2nd" metalayer (msgpack, see the b2nd metalayer
//! format) for the plugins that work on N-dimensional blocks: the number of
//! dimensions and the shape, chunk shape and block shape.

/// `B2ND_MAX_DIM`.
pub const MAX_DIM: usize = 16;

/// The shapes of a b2nd array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct B2ndShapes {
    /// Array shape.
    pub shape: Vec<i64>,
    /// Chunk shape.
    pub chunkshape: Vec<i32>,
    /// Block shape.
    pub blockshape: Vec<i32>,
}

impl B2ndShapes {
    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }
}

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.b.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }
    fn byte(&mut self) -> Option<u8> {
        self.take(1).map(|s| s[0])
    }
    /// A fixarray header with exactly `n` elements.
    fn fixarray(&mut self, n: usize) -> Option<()> {
        (self.byte()? == 0x90 | n as u8).then_some(())
    }
}

/// Parse the shapes out of a serialized "b2nd" metalayer.  `None` when it is
/// malformed, has more than [`MAX_DIM`] dimensions or negative sizes.
pub fn parse(meta: &[u8]) -> Option<B2ndShapes> {
    let mut r = Reader { b: meta, pos: 0 };
    r.fixarray(7)?;
    let _version = r.byte().filter(|&v| v < 0x80)?;
    let ndim = r.byte().filter(|&v| v < 0x80)? as usize;
    if ndim > MAX_DIM {
        return None;
    }
    r.fixarray(ndim)?;
    let mut shape = Vec::with_capacity(ndim);
    for _ in 0..ndim {
        if r.byte()? != 0xd3 {
            return None;
        }
        let v = i64::from_be_bytes(r.take(8)?.try_into().ok()?);
        shape.push(v);
    }
    let mut i32s = || -> Option<Vec<i32>> {
        r.fixarray(ndim)?;
        let mut out = Vec::with_capacity(ndim);
        for _ in 0..ndim {
            if r.byte()? != 0xd2 {
                return None;
            }
            out.push(i32::from_be_bytes(r.take(4)?.try_into().ok()?));
        }
        Some(out)
    };
    let chunkshape = i32s()?;
    let blockshape = i32s()?;
    if shape.iter().any(|&v| v < 0)
        || chunkshape.iter().any(|&v| v < 0)
        || blockshape.iter().any(|&v| v < 0)
    {
        return None;
    }
    Some(B2ndShapes {
        shape,
        chunkshape,
        blockshape,
    })
}

/// Serialize shapes as a "b2nd" metalayer (version 0, dtype `|u1`); used by tests.
pub fn serialize(shape: &[i64], chunkshape: &[i32], blockshape: &[i32]) -> Vec<u8> {
    let nd = shape.len();
    let mut v = vec![0x97, 0, nd as u8, 0x90 | nd as u8];
    for &s in shape {
        v.push(0xd3);
        v.extend_from_slice(&s.to_be_bytes());
    }
    for part in [chunkshape, blockshape] {
        v.push(0x90 | nd as u8);
        for &s in part {
            v.push(0xd2);
            v.extend_from_slice(&s.to_be_bytes());
        }
    }
    let dtype = b"|u1";
    v.push(0);
    v.push(0xdb);
    v.extend_from_slice(&(dtype.len() as i32).to_be_bytes());
    v.extend_from_slice(dtype);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_rejects() {
        let m = serialize(&[100, 50], &[40, 20], &[16, 8]);
        let s = parse(&m).unwrap();
        assert_eq!(s.shape, vec![100, 50]);
        assert_eq!(s.chunkshape, vec![40, 20]);
        assert_eq!(s.blockshape, vec![16, 8]);
        for cut in 0..m.len() - 9 {
            assert!(parse(&m[..cut]).is_none(), "cut {cut}");
        }
        let mut bad = m.clone();
        bad[2] = 3; // lying ndim
        assert!(parse(&bad).is_none());
        let neg = serialize(&[-1, 2], &[1, 1], &[1, 1]);
        assert!(parse(&neg).is_none());
    }
}
