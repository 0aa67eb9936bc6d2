//! The byte layout of the "b2nd" metalayer, the one reader and writer of it
//! in the crate: a msgpack array of seven entries (format version, ndim,
//! shape as int64s, chunk shape and block shape as int32s, dtype format,
//! dtype as a str32), laid out as the b2nd metalayer document describes.
//! Older "caterva" metalayers stop after the block shape (array marker 0x96).
//!
//! Two ways of reading: [`Markers::Checked`] checks every msgpack marker;
//! [`Markers::Skipped`] skips them unread and takes the values as they are,
//! as the reference's `b2nd_deserialize_meta` does (the plugins that work on
//! n-dimensional blocks read the metalayer that way).  Whether the values
//! make a sensible array is for the caller to decide.

/// `B2ND_MAX_DIM`: the most dimensions an array may have.
pub const MAX_DIM: usize = 16;

/// The int64 marker of msgpack.
const INT64: u8 = 0xd3;
/// The int32 marker of msgpack.
const INT32: u8 = 0xd2;
/// The str32 marker of msgpack.
const STR32: u8 = 0xdb;
/// The array marker written for `nd` entries (`0x90 + nd`, as the reference
/// writes it, also for 16 dimensions).
fn array_marker(nd: usize) -> u8 {
    0x90 + nd as u8
}

/// How a reader treats the msgpack markers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Markers {
    /// Every marker must be the expected one; the version and ndim must be
    /// positive fixints.
    Checked,
    /// Markers are skipped unread; ndim is a signed byte in `0..=MAX_DIM`.
    Skipped,
}

/// The three shapes of an array, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shapes {
    /// Array shape.
    pub shape: Vec<i64>,
    /// Chunk shape.
    pub chunkshape: Vec<i32>,
    /// Block shape.
    pub blockshape: Vec<i32>,
}

impl Shapes {
    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Whether any size is negative.
    pub fn any_negative(&self) -> bool {
        self.shape.iter().any(|&v| v < 0)
            || self.chunkshape.iter().any(|&v| v < 0)
            || self.blockshape.iter().any(|&v| v < 0)
    }
}

/// A reader over the entries of a metalayer, in their order.
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    markers: Markers,
    ndim: usize,
}

impl<'a> Reader<'a> {
    /// Read the head (array marker, version, ndim); `None` when it is cut
    /// short or, with [`Markers::Checked`], malformed, and when ndim is
    /// above [`MAX_DIM`].
    pub fn new(bytes: &'a [u8], markers: Markers) -> Option<Reader<'a>> {
        let mut r = Reader {
            bytes,
            pos: 0,
            markers,
            ndim: 0,
        };
        let head = r.byte()?;
        let version = r.byte()?;
        let ndim = r.byte()?;
        match markers {
            Markers::Checked => {
                if (head != 0x97 && head != 0x96) || version >= 0x80 {
                    return None;
                }
            }
            Markers::Skipped => {
                if (ndim as i8) < 0 {
                    return None;
                }
            }
        }
        r.ndim = ndim as usize;
        (r.ndim <= MAX_DIM).then_some(r)
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.ndim
    }

    /// Bytes read so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Whether every byte has been read.
    pub fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let end = self.pos.checked_add(N)?;
        let s = self.bytes.get(self.pos..end)?;
        self.pos = end;
        s.try_into().ok()
    }

    fn byte(&mut self) -> Option<u8> {
        self.take::<1>().map(|b| b[0])
    }

    /// A marker byte: checked against `want` or skipped.
    fn marker(&mut self, want: u8) -> Option<()> {
        let got = self.byte()?;
        (self.markers == Markers::Skipped || got == want).then_some(())
    }

    /// The shape (ndim int64s).
    pub fn shape(&mut self) -> Option<Vec<i64>> {
        self.marker(array_marker(self.ndim))?;
        let mut out = Vec::with_capacity(self.ndim);
        for _ in 0..self.ndim {
            self.marker(INT64)?;
            out.push(i64::from_be_bytes(self.take::<8>()?));
        }
        Some(out)
    }

    /// The chunk shape or the block shape (ndim int32s).
    pub fn int32s(&mut self) -> Option<Vec<i32>> {
        self.marker(array_marker(self.ndim))?;
        let mut out = Vec::with_capacity(self.ndim);
        for _ in 0..self.ndim {
            self.marker(INT32)?;
            out.push(i32::from_be_bytes(self.take::<4>()?));
        }
        Some(out)
    }

    /// The three shapes.
    pub fn shapes(&mut self) -> Option<Shapes> {
        let shape = self.shape()?;
        let chunkshape = self.int32s()?;
        let blockshape = self.int32s()?;
        Some(Shapes {
            shape,
            chunkshape,
            blockshape,
        })
    }

    /// The dtype format (a positive fixint) and the dtype (a str32 of
    /// UTF-8 without NUL bytes).  Markers are always checked here.
    pub fn dtype(&mut self) -> Option<(String, i8)> {
        let format = self.byte()?;
        if format >= 0x80 || self.byte()? != STR32 {
            return None;
        }
        let len = usize::try_from(i32::from_be_bytes(self.take::<4>()?)).ok()?;
        let end = self.pos.checked_add(len)?;
        let text = self.bytes.get(self.pos..end)?;
        self.pos = end;
        if text.contains(&0) {
            return None;
        }
        let text = std::str::from_utf8(text).ok()?;
        Some((text.to_string(), format as i8))
    }
}

/// The three shapes of a metalayer (what follows them is not looked at).
pub fn read_shapes(meta: &[u8], markers: Markers) -> Option<Shapes> {
    Reader::new(meta, markers)?.shapes()
}

/// Encode a metalayer (version 0); `None` when the shapes differ in length
/// or have more than [`MAX_DIM`] dimensions, or the dtype format is
/// negative.
pub fn write(
    shape: &[i64],
    chunkshape: &[i32],
    blockshape: &[i32],
    dtype: &str,
    dtype_format: i8,
) -> Option<Vec<u8>> {
    let nd = shape.len();
    if nd > MAX_DIM || chunkshape.len() != nd || blockshape.len() != nd || dtype_format < 0 {
        return None;
    }
    let dlen = i32::try_from(dtype.len()).ok()?;
    let mut out = Vec::with_capacity(3 + 3 * (1 + nd * 9) + 6 + dtype.len());
    out.extend_from_slice(&[0x97, 0, nd as u8, array_marker(nd)]);
    for &s in shape {
        out.push(INT64);
        out.extend_from_slice(&s.to_be_bytes());
    }
    for part in [chunkshape, blockshape] {
        out.push(array_marker(nd));
        for &v in part {
            out.push(INT32);
            out.extend_from_slice(&v.to_be_bytes());
        }
    }
    out.push(dtype_format as u8);
    out.push(STR32);
    out.extend_from_slice(&dlen.to_be_bytes());
    out.extend_from_slice(dtype.as_bytes());
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_round_trip_and_truncations() {
        let m = write(&[100, 50], &[40, 20], &[16, 8], "<f4", 0).unwrap();
        let mut r = Reader::new(&m, Markers::Checked).unwrap();
        let s = r.shapes().unwrap();
        assert_eq!(s.shape, vec![100, 50]);
        assert_eq!(s.chunkshape, vec![40, 20]);
        assert_eq!(s.blockshape, vec![16, 8]);
        assert_eq!(r.dtype(), Some(("<f4".to_string(), 0)));
        assert!(r.at_end());
        for cut in 0..m.len() - 9 {
            assert!(
                read_shapes(&m[..cut], Markers::Checked).is_none(),
                "cut {cut}"
            );
        }
        let mut bad = m.clone();
        bad[2] = 3; // lying ndim
        assert!(read_shapes(&bad, Markers::Checked).is_none());
        assert!(write(&[1; 17], &[1; 17], &[1; 17], "|u1", 0).is_none());
        assert!(write(&[1], &[1, 1], &[1], "|u1", 0).is_none());
    }

    #[test]
    fn skipped_markers_read_like_the_reference() {
        let m = write(&[100, 50, 7], &[40, 20, 7], &[16, 8, 3], "|u1", 0).unwrap();
        let s = read_shapes(&m, Markers::Skipped).unwrap();
        assert_eq!(s.blockshape, vec![16, 8, 3]);
        let core = 4 + 3 * 9 + 2 * (1 + 3 * 5);
        assert_eq!(read_shapes(&m[..core], Markers::Skipped), Some(s.clone()));
        for cut in 0..core {
            assert!(
                read_shapes(&m[..cut], Markers::Skipped).is_none(),
                "cut {cut}"
            );
        }
        let mut odd = m.clone();
        odd[0] = 0;
        odd[3] = 0xff;
        odd[4] = 0;
        assert_eq!(read_shapes(&odd, Markers::Skipped), Some(s.clone()));
        assert!(read_shapes(&odd, Markers::Checked).is_none());
        for nd in [17u8, 0x80, 0xff] {
            let mut bad = m.clone();
            bad[2] = nd;
            assert!(read_shapes(&bad, Markers::Skipped).is_none(), "ndim {nd}");
        }
        let neg = write(&[-1, 2], &[1, -1], &[0, -3], "|u1", 0).unwrap();
        let s = read_shapes(&neg, Markers::Skipped).unwrap();
        assert!(s.any_negative());
        assert_eq!(s.blockshape, vec![0, -3]);
    }

    #[test]
    fn sixteen_dimensions() {
        let m = write(&[2; 16], &[1; 16], &[1; 16], "|u1", 0).unwrap();
        for markers in [Markers::Checked, Markers::Skipped] {
            assert_eq!(read_shapes(&m, markers).unwrap().ndim(), 16);
        }
    }
}
