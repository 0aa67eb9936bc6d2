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

/// Read the shapes the way the reference's `b2nd_deserialize_meta` does when
/// the dtype is not asked for: only the lengths are checked (the msgpack
/// markers are skipped unread, the values are taken as they are, negative or
/// not), the number of dimensions must lie in `0..=MAX_DIM` and the trailing
/// dtype is ignored.  The plugins that work on N-dimensional blocks (ndcell,
/// ndmean) read the metalayer this way and validate the geometry themselves.
pub fn parse_lenient(meta: &[u8]) -> Option<B2ndShapes> {
    let mut r = Reader { b: meta, pos: 0 };
    // The outer array marker and the version.
    r.take(2)?;
    let ndim = r.byte()? as i8;
    if !(0..=MAX_DIM as i8).contains(&ndim) {
        return None;
    }
    let ndim = ndim as usize;
    r.take(1)?;
    let mut shape = Vec::with_capacity(ndim);
    for _ in 0..ndim {
        let v = r.take(9)?;
        shape.push(i64::from_be_bytes(v[1..].try_into().ok()?));
    }
    let mut i32s = || -> Option<Vec<i32>> {
        r.take(1)?;
        let mut out = Vec::with_capacity(ndim);
        for _ in 0..ndim {
            let v = r.take(5)?;
            out.push(i32::from_be_bytes(v[1..].try_into().ok()?));
        }
        Some(out)
    };
    let chunkshape = i32s()?;
    let blockshape = i32s()?;
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

    #[test]
    fn lenient_reads_like_the_reference() {
        let m = serialize(&[100, 50, 7], &[40, 20, 7], &[16, 8, 3]);
        let s = parse_lenient(&m).unwrap();
        assert_eq!(s.shape, vec![100, 50, 7]);
        assert_eq!(s.chunkshape, vec![40, 20, 7]);
        assert_eq!(s.blockshape, vec![16, 8, 3]);
        // The dtype is not needed: cut right after the block shape.
        let core = 4 + 3 * 9 + 2 * (1 + 3 * 5);
        assert_eq!(parse_lenient(&m[..core]), Some(s.clone()));
        for cut in 0..core {
            assert!(parse_lenient(&m[..cut]).is_none(), "cut {cut}");
        }
        // Markers are not checked; values are taken as they are.
        let mut odd = m.clone();
        odd[0] = 0;
        odd[3] = 0xff;
        odd[4] = 0;
        assert_eq!(parse_lenient(&odd), Some(s));
        let neg = serialize(&[-1, 2], &[1, -1], &[0, -3]);
        assert_eq!(parse_lenient(&neg).unwrap().blockshape, vec![0, -3]);
        // ndim out of range (as a signed byte).
        for nd in [17u8, 0x80, 0xff] {
            let mut bad = m.clone();
            bad[2] = nd;
            assert!(parse_lenient(&bad).is_none(), "ndim {nd}");
        }
        let zero = parse_lenient(&[0x97, 0, 0, 0x90, 0x90, 0x90]).unwrap();
        assert_eq!(zero.ndim(), 0);
    }
}
