//! The creation parameters of an array (what `b2nd_create_ctx` records):
//! its shapes, dtype and the extra metalayers a new super-chunk gets, the
//! defaults that fill what the caller left out, and the block size the
//! super-chunk's compression parameters must carry.

use super::array::{box_shape, buffer_nbytes};
use super::geometry::{Geometry, MAX_DIM};
use super::meta::ArrayMeta;
use crate::error::{Error, Result};

/// `B2ND_MAX_METALAYERS`: extra metalayers an array may be created with
/// (the "b2nd" metalayer takes one of the super-chunk's sixteen).
pub const MAX_METALAYERS: usize = 15;

/// The parameters new arrays are made with (the default: a
/// zero-dimensional array of dtype "", no extra metalayers).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArrayParams {
    /// Shape (one entry a dimension).
    pub shape: Vec<i64>,
    /// Chunk shape.
    pub chunkshape: Vec<i32>,
    /// Block shape.
    pub blockshape: Vec<i32>,
    /// The dtype string.
    pub dtype: String,
    /// The dtype convention (`DTYPE_NUMPY_FORMAT` is 0).
    pub dtype_format: i8,
    /// Extra fixed metalayers (name, content) written after "b2nd".
    pub metalayers: Vec<(String, Vec<u8>)>,
}

/// The number of extra metalayers a caller asks for, checked: not negative
/// and at most [`MAX_METALAYERS`] (`InvalidParam` otherwise).
pub fn metalayer_count(n: i32) -> Result<usize> {
    match usize::try_from(n) {
        Ok(n) if n <= MAX_METALAYERS => Ok(n),
        _ => Err(Error::InvalidParam),
    }
}

/// The number of dimensions a caller asks for, checked: 0 to [`MAX_DIM`]
/// (`InvalidParam` otherwise).
pub fn ndim_count(ndim: i8) -> Result<usize> {
    match usize::try_from(ndim) {
        Ok(n) if n <= MAX_DIM => Ok(n),
        _ => Err(Error::InvalidParam),
    }
}

/// The dtype of an array made without one: a byte string of one item
/// (NumPy's `|S<typesize>`).
pub fn default_dtype(typesize: i32) -> String {
    format!("|S{typesize}")
}

/// The number of items in a block of shape `blockshape`, when every
/// dimension has a chunk and a block size, none negative, a block size of
/// zero exactly where the chunk size is zero, and the count fits an `i32`
/// (`InvalidParam` otherwise).
///
/// These are the rules a context's shapes must follow when it is made.  Its
/// shape is only a proposal then (`b2nd_get_slice`, `b2nd_copy` and
/// `b2nd_concatenate` replace it, and c-blosc2's callers rely on contexts
/// whose proposed shape does not fit the chunks, e.g. shape 10 with chunk
/// 0 for an empty slice), so the rules that tie the shape to the chunks and
/// blocks wait for the array ([`Geometry::new`]).
pub fn partition_blocknitems(shape: &[i64], chunkshape: &[i32], blockshape: &[i32]) -> Result<i32> {
    let nd = shape.len();
    if nd > MAX_DIM || chunkshape.len() != nd || blockshape.len() != nd {
        return Err(Error::InvalidParam);
    }
    let mut n: i32 = 1;
    for i in 0..nd {
        let (s, c, b) = (shape[i], chunkshape[i], blockshape[i]);
        if s < 0 || c < 0 || b < 0 || (b == 0) != (c == 0) {
            return Err(Error::InvalidParam);
        }
        n = n.checked_mul(b).ok_or(Error::InvalidParam)?;
    }
    Ok(n)
}

impl ArrayParams {
    /// Checked parameters for arrays of `typesize`-byte items: the shapes
    /// must follow the rules of a context (see [`partition_blocknitems`];
    /// the arrays made check the rest), `dtype_format` must not be
    /// negative, at most [`MAX_METALAYERS`] extra metalayers; no dtype
    /// means [`default_dtype`]. Every refusal is `InvalidParam`.
    pub fn new(
        shape: &[i64],
        chunkshape: &[i32],
        blockshape: &[i32],
        dtype: Option<String>,
        dtype_format: i8,
        typesize: i32,
        metalayers: Vec<(String, Vec<u8>)>,
    ) -> Result<ArrayParams> {
        if dtype_format < 0 || metalayers.len() > MAX_METALAYERS {
            return Err(Error::InvalidParam);
        }
        partition_blocknitems(shape, chunkshape, blockshape)?;
        Ok(ArrayParams {
            shape: shape.to_vec(),
            chunkshape: chunkshape.to_vec(),
            blockshape: blockshape.to_vec(),
            dtype: dtype.unwrap_or_else(|| default_dtype(typesize)),
            dtype_format,
            metalayers,
        })
    }

    /// The parameters of a view of the array `meta` with other unit
    /// dimensions (`b2nd_expand_dims`, `b2nd_squeeze_index`): its dtype,
    /// the `(shape, chunkshape, blockshape)` given, no extra metalayers.
    pub fn view_of(meta: &ArrayMeta, shapes: (Vec<i64>, Vec<i32>, Vec<i32>)) -> ArrayParams {
        let (shape, chunkshape, blockshape) = shapes;
        ArrayParams {
            shape,
            chunkshape,
            blockshape,
            dtype: meta.dtype.clone(),
            dtype_format: meta.dtype_format,
            metalayers: Vec::new(),
        }
    }

    /// The geometry and dtype a new array gets.
    pub fn meta(&self) -> Result<ArrayMeta> {
        Ok(ArrayMeta {
            geom: Geometry::new(&self.shape, &self.chunkshape, &self.blockshape)?,
            dtype: self.dtype.clone(),
            dtype_format: self.dtype_format,
        })
    }

    /// The block size in bytes of a super-chunk holding these arrays with
    /// `typesize`-byte items (`InvalidParam` when it overflows).
    pub fn blocksize(&self, typesize: i32) -> Result<i32> {
        partition_blocknitems(&self.shape, &self.chunkshape, &self.blockshape)?
            .checked_mul(typesize)
            .ok_or(Error::InvalidParam)
    }

    /// Make `shape` the shape of the next array. As the reference, the shape
    /// is recorded even when refused: it must have as many dimensions as
    /// the chunk and block shapes (`InvalidParam` otherwise).
    pub fn set_shape(&mut self, shape: &[i64]) -> Result<()> {
        self.shape = shape.to_vec();
        if self.chunkshape.len() != shape.len() || self.blockshape.len() != shape.len() {
            return Err(Error::InvalidParam);
        }
        Ok(())
    }

    /// Make the shape of the next array that of the box `[start, stop)` of
    /// an array of geometry `g` (`b2nd_get_slice`): the box must lie inside
    /// `g`, and the new array's items (`typesize` bytes) must be as large
    /// as the source's (`src_typesize`); `InvalidParam` otherwise, in that
    /// order.  The shape is recorded as [`Self::set_shape`] records it.
    pub fn set_box_shape(
        &mut self,
        g: &Geometry,
        start: &[i64],
        stop: &[i64],
        typesize: i32,
        src_typesize: i32,
    ) -> Result<()> {
        let shape = box_shape(&g.shape, start, stop)?;
        if typesize != src_typesize {
            return Err(Error::InvalidParam);
        }
        self.set_shape(&shape)
    }

    /// The bytes of the items of an array made with these parameters
    /// (`typesize` bytes an item), which a caller's buffer of `buffersize`
    /// bytes must hold (see [`buffer_nbytes`]).
    pub fn buffer_nbytes(&self, typesize: i32, buffersize: i64) -> Result<i64> {
        buffer_nbytes(self.meta()?.geom.nitems, typesize, buffersize)
    }

    /// Whether an array of geometry `g` is cut into chunks and blocks as
    /// these parameters cut theirs (its chunks can then be copied as they
    /// are).
    pub fn partitions_like(&self, g: &Geometry) -> bool {
        self.chunkshape == g.chunkshape && self.blockshape == g.blockshape
    }

    /// How an array of geometry `g` with items of `src_typesize` bytes is
    /// copied into a new array made with these parameters and items of
    /// `typesize` bytes (`b2nd_copy`): chunk by chunk when both are cut
    /// alike (see [`Self::partitions_like`]; `g`'s shape is then recorded
    /// as [`Self::set_shape`] records it), otherwise item by item, which
    /// needs items of one size (`InvalidParam`).  In the second case the
    /// caller records the shape.
    pub fn copy_way(&mut self, g: &Geometry, typesize: i32, src_typesize: i32) -> Result<CopyWay> {
        if self.partitions_like(g) {
            self.set_shape(&g.shape)?;
            return Ok(CopyWay::Chunks);
        }
        if typesize != src_typesize {
            return Err(Error::InvalidParam);
        }
        Ok(CopyWay::Items)
    }
}

/// How [`ArrayParams::copy_way`] copies an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyWay {
    /// The compressed chunks as they are (the whole super-chunk is copied).
    Chunks,
    /// The items, into a new array cut as the parameters say.
    Items,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(dtype: Option<&str>, typesize: i32) -> Result<ArrayParams> {
        ArrayParams::new(
            &[10, 6],
            &[4, 6],
            &[2, 3],
            dtype.map(str::to_string),
            0,
            typesize,
            Vec::new(),
        )
    }

    #[test]
    fn defaults_and_block_size() {
        let p = params(None, 8).unwrap();
        assert_eq!(p.dtype, "|S8");
        assert_eq!(p.blocksize(8), Ok(48));
        assert_eq!(p.meta().unwrap().geom.nitems, 60);
        assert_eq!(params(Some("<f4"), 4).unwrap().dtype, "<f4");
        assert_eq!(p.blocksize(i32::MAX), Err(Error::InvalidParam));
    }

    #[test]
    fn refusals() {
        let bad_geometry = ArrayParams::new(&[10], &[4], &[0], None, 0, 1, Vec::new());
        assert_eq!(bad_geometry, Err(Error::InvalidParam));
        // A block larger than its chunk is a valid geometry.
        assert!(ArrayParams::new(&[10], &[4], &[8], None, 0, 1, Vec::new()).is_ok());
        let bad_format = ArrayParams::new(&[10], &[4], &[2], None, -1, 1, Vec::new());
        assert_eq!(bad_format, Err(Error::InvalidParam));
        let many = vec![(String::from("m"), vec![1u8]); MAX_METALAYERS + 1];
        let too_many = ArrayParams::new(&[10], &[4], &[2], None, 0, 1, many);
        assert_eq!(too_many, Err(Error::InvalidParam));
        assert_eq!(metalayer_count(-1), Err(Error::InvalidParam));
        assert_eq!(metalayer_count(15), Ok(15));
        assert_eq!(metalayer_count(16), Err(Error::InvalidParam));
        assert_eq!(ndim_count(-1), Err(Error::InvalidParam));
        assert_eq!(ndim_count(MAX_DIM as i8), Ok(MAX_DIM));
        assert_eq!(ndim_count(MAX_DIM as i8 + 1), Err(Error::InvalidParam));
    }

    #[test]
    fn a_context_checks_its_partition_and_an_array_its_shape() {
        for (s, c, b) in [(-1, 4, 2), (10, -4, 2), (10, 4, 0), (10, 0, 2)] {
            let bad = ArrayParams::new(&[s], &[c], &[b], None, 0, 1, Vec::new());
            assert_eq!(bad, Err(Error::InvalidParam));
        }
        let big_block = ArrayParams::new(&[1, 1], &[1, 1], &[65536, 65536], None, 0, 1, vec![]);
        assert_eq!(big_block, Err(Error::InvalidParam));
        // A proposed shape that does not fit the chunks (c-blosc2's empty
        // slices) is kept; an array of that shape is refused.
        let mut p = ArrayParams::new(&[20, 10], &[1, 0], &[1, 0], None, 0, 2, vec![]).unwrap();
        assert_eq!(p.blocksize(2), Ok(0));
        assert_eq!(p.meta(), Err(Error::InvalidParam));
        assert!(p.set_shape(&[1, 0]).is_ok());
        assert_eq!(p.meta().unwrap().geom.nitems, 0);
        // Blocks larger than chunks in an empty array.
        let e = ArrayParams::new(&[40, 0, 12], &[20, 0, 12], &[25, 0, 6], None, 0, 4, vec![]);
        assert_eq!(e.unwrap().meta().unwrap().geom.nitems, 0);
    }

    #[test]
    fn a_refused_shape_is_still_recorded() {
        let mut p = params(None, 1).unwrap();
        assert_eq!(p.set_shape(&[3]), Err(Error::InvalidParam));
        assert_eq!(p.shape, vec![3]);
        assert!(p.set_shape(&[3, 2]).is_ok());
        let g = Geometry::new(&[7, 7], &[4, 6], &[2, 3]).unwrap();
        assert!(p.partitions_like(&g));
        let other = Geometry::new(&[7, 7], &[4, 6], &[2, 2]).unwrap();
        assert!(!p.partitions_like(&other));
    }

    #[test]
    fn how_arrays_are_copied() {
        let mut p = params(None, 2).unwrap();
        let alike = Geometry::new(&[7, 7], &[4, 6], &[2, 3]).unwrap();
        assert_eq!(p.copy_way(&alike, 2, 4), Ok(CopyWay::Chunks));
        assert_eq!(p.shape, vec![7, 7]);
        let other = Geometry::new(&[5, 5], &[5, 5], &[5, 5]).unwrap();
        assert_eq!(p.copy_way(&other, 2, 2), Ok(CopyWay::Items));
        assert_eq!(p.copy_way(&other, 2, 4), Err(Error::InvalidParam));
        assert_eq!(p.shape, vec![7, 7]);
    }

    #[test]
    fn views_keep_the_dtype() {
        let meta = params(Some("<f8"), 8).unwrap().meta().unwrap();
        let shapes = (vec![1, 10, 6], vec![1, 4, 6], vec![1, 2, 3]);
        let v = ArrayParams::view_of(&meta, shapes);
        assert_eq!(
            (v.dtype.as_str(), v.shape.as_slice()),
            ("<f8", &[1, 10, 6][..])
        );
        assert!(v.metalayers.is_empty());
        assert_eq!(v.meta().unwrap().geom.nitems, 60);
    }

    #[test]
    fn slice_shapes_and_buffer_sizes() {
        let mut p = params(None, 2).unwrap();
        let g = Geometry::new(&[8, 6], &[4, 6], &[2, 3]).unwrap();
        assert!(p.set_box_shape(&g, &[1, 0], &[5, 6], 2, 2).is_ok());
        assert_eq!(p.shape, vec![4, 6]);
        let outside = p.set_box_shape(&g, &[1, 0], &[9, 6], 2, 2);
        assert_eq!(outside, Err(Error::InvalidParam));
        assert_eq!(p.shape, vec![4, 6]);
        let other_items = p.set_box_shape(&g, &[0, 0], &[2, 2], 2, 4);
        assert_eq!(other_items, Err(Error::InvalidParam));
        assert_eq!(p.shape, vec![4, 6]);
        assert_eq!(p.buffer_nbytes(2, 48), Ok(48));
        assert_eq!(p.buffer_nbytes(2, 47), Err(Error::InvalidParam));
    }
}
