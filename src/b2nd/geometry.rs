//! The shapes of an n-dimensional array and what follows from them: the
//! shapes padded to whole chunks and blocks, item counts, and the chunk and
//! block grids.  Every product is checked, so a crafted metalayer can never
//! make a later division or allocation size wrap.

use crate::error::{Error, Result};

pub use crate::format::b2nd_meta::MAX_DIM;

/// The shapes of an array and their derived sizes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Geometry {
    /// Logical shape.
    pub shape: Vec<i64>,
    /// Chunk shape.
    pub chunkshape: Vec<i32>,
    /// Block shape.
    pub blockshape: Vec<i32>,
    /// Shape rounded up to whole chunks.
    pub extshape: Vec<i64>,
    /// Chunk shape rounded up to whole blocks.
    pub extchunkshape: Vec<i64>,
    /// Items in `shape`.
    pub nitems: i64,
    /// Items in `extshape`.
    pub extnitems: i64,
    /// Items in a chunk (`chunkshape`).
    pub chunknitems: i32,
    /// Items in a block.
    pub blocknitems: i32,
    /// Items in a padded chunk (`extchunkshape`): what one stored chunk holds.
    pub extchunknitems: i64,
}

fn round_up(v: i64, to: i64) -> Result<i64> {
    if to == 0 || v % to == 0 {
        return Ok(v);
    }
    v.checked_add(to - v % to).ok_or(Error::InvalidParam)
}

impl Geometry {
    /// Check the shapes and derive the rest.
    ///
    /// Rules: at most [`MAX_DIM`] dimensions; no negative size; a non-empty
    /// dimension needs positive chunk and block sizes; a zero chunk size
    /// (allowed with an empty dimension, as placeholder) needs a zero block
    /// size; no product overflows (`i64` for array and padded-chunk item
    /// counts, `i32` for chunk and block item counts).  A block larger than
    /// its chunk is valid (c-blosc2 creates and reads such arrays): the
    /// padded chunk is then one block along that dimension.
    pub fn new(shape: &[i64], chunkshape: &[i32], blockshape: &[i32]) -> Result<Geometry> {
        let nd = shape.len();
        if nd > MAX_DIM || chunkshape.len() != nd || blockshape.len() != nd {
            return Err(Error::InvalidParam);
        }
        let mut g = Geometry {
            shape: shape.to_vec(),
            chunkshape: chunkshape.to_vec(),
            blockshape: blockshape.to_vec(),
            extshape: Vec::with_capacity(nd),
            extchunkshape: Vec::with_capacity(nd),
            nitems: 1,
            extnitems: 1,
            chunknitems: 1,
            blocknitems: 1,
            extchunknitems: 1,
        };
        for i in 0..nd {
            let (s, c, b) = (shape[i], chunkshape[i], blockshape[i]);
            if s < 0 || c < 0 || b < 0 {
                return Err(Error::InvalidParam);
            }
            if (b == 0) != (c == 0) || (s > 0 && c == 0) {
                return Err(Error::InvalidParam);
            }
            let ext = if c == 0 { 0 } else { round_up(s, c as i64)? };
            let extchunk = round_up(c as i64, b as i64)?;
            g.extshape.push(ext);
            g.extchunkshape.push(extchunk);
            let ov = || Error::InvalidParam;
            g.nitems = g.nitems.checked_mul(s).ok_or_else(ov)?;
            g.extnitems = g.extnitems.checked_mul(ext).ok_or_else(ov)?;
            g.extchunknitems = g.extchunknitems.checked_mul(extchunk).ok_or_else(ov)?;
            g.chunknitems = g.chunknitems.checked_mul(c).ok_or_else(ov)?;
            g.blocknitems = g.blocknitems.checked_mul(b).ok_or_else(ov)?;
        }
        Ok(g)
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Chunks along each dimension.
    pub fn chunks_per_dim(&self) -> Vec<i64> {
        (0..self.ndim())
            .map(|i| match self.chunkshape[i] {
                0 => 0,
                c => self.extshape[i] / c as i64,
            })
            .collect()
    }

    /// Blocks along each dimension of a chunk.
    pub fn blocks_per_dim(&self) -> Vec<i64> {
        (0..self.ndim())
            .map(|i| match self.blockshape[i] {
                0 => 0,
                b => self.extchunkshape[i] / b as i64,
            })
            .collect()
    }

    /// Number of stored chunks (a 0-dimensional array has one).
    pub fn nchunks(&self) -> i64 {
        if self.nitems == 0 {
            return 0;
        }
        self.chunks_per_dim().iter().product()
    }

    /// Blocks in a stored chunk.
    pub fn nblocks(&self) -> i64 {
        if self.blocknitems == 0 {
            0
        } else {
            self.extchunknitems / self.blocknitems as i64
        }
    }

    /// Bytes of a stored (padded) chunk, checked against what one chunk can
    /// hold.
    pub fn chunk_nbytes(&self, typesize: i32) -> Result<i32> {
        if typesize <= 0 {
            return Err(Error::InvalidParam);
        }
        let n = self
            .extchunknitems
            .checked_mul(typesize as i64)
            .ok_or(Error::InvalidParam)?;
        if n > crate::format::header::MAX_BUFFERSIZE as i64 {
            return Err(Error::MaxBufsizeExceeded);
        }
        Ok(n as i32)
    }

    /// Bytes of the working buffer a slice or selection decompresses one
    /// chunk into: a padded chunk that does not fit in one buffer is an
    /// [`Error::InvalidParam`] there, as with the reference's slice and
    /// selection functions.
    pub fn chunk_buffer_nbytes(&self, typesize: i32) -> Result<usize> {
        self.chunk_nbytes(typesize)
            .map(|n| n as usize)
            .map_err(|_| Error::InvalidParam)
    }

    /// Check that the array's bytes, padded ones included, can be counted
    /// in an `i64`, and that a padded chunk fits in one chunk.
    pub fn check_bytes(&self, typesize: i32) -> Result<()> {
        self.chunk_nbytes(typesize)?;
        self.block_nbytes(typesize)?;
        self.extnitems
            .checked_mul(typesize as i64)
            .ok_or(Error::InvalidParam)?;
        Ok(())
    }

    /// Bytes of one block.
    pub fn block_nbytes(&self, typesize: i32) -> Result<i32> {
        (self.blocknitems)
            .checked_mul(typesize)
            .ok_or(Error::MaxBufsizeExceeded)
    }

    /// The same chunk and block shapes with another shape.
    pub fn with_shape(&self, shape: &[i64]) -> Result<Geometry> {
        Geometry::new(shape, &self.chunkshape, &self.blockshape)
    }
}

/// The strides `b2nd_array_t` publishes, one entry a dimension, in C
/// order: in items over the array, a chunk, a padded chunk and a block, in
/// blocks over a padded chunk and in chunks over the array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrayStrides {
    /// Items over the array (`item_array_strides`).
    pub item_array: Vec<i64>,
    /// Items over a chunk (`item_chunk_strides`).
    pub item_chunk: Vec<i64>,
    /// Items over a padded chunk (`item_extchunk_strides`).
    pub item_extchunk: Vec<i64>,
    /// Items over a block (`item_block_strides`).
    pub item_block: Vec<i64>,
    /// Blocks over a padded chunk (`block_chunk_strides`).
    pub block_chunk: Vec<i64>,
    /// Chunks over the padded array (`chunk_array_strides`).
    pub chunk_array: Vec<i64>,
}

impl Geometry {
    /// The strides the public array struct shows, computed as the
    /// reference does: a dimension followed by an empty one (or by a zero
    /// chunk or block size) keeps stride 0, and so does every dimension
    /// before it.
    pub fn array_strides(&self) -> ArrayStrides {
        let nd = self.ndim();
        let mut s = ArrayStrides {
            item_array: vec![0; nd],
            item_chunk: vec![0; nd],
            item_extchunk: vec![0; nd],
            item_block: vec![0; nd],
            block_chunk: vec![0; nd],
            chunk_array: vec![0; nd],
        };
        let Some(last) = nd.checked_sub(1) else {
            return s;
        };
        for v in [
            &mut s.item_array,
            &mut s.item_chunk,
            &mut s.item_extchunk,
            &mut s.item_block,
            &mut s.block_chunk,
            &mut s.chunk_array,
        ] {
            v[last] = 1;
        }
        for i in (0..last).rev() {
            let n = i + 1;
            let (chunk, block) = (self.chunkshape[n] as i64, self.blockshape[n] as i64);
            if self.shape[n] == 0 || chunk == 0 || block == 0 {
                continue;
            }
            s.item_array[i] = s.item_array[n].saturating_mul(self.shape[n]);
            s.item_chunk[i] = s.item_chunk[n] * chunk;
            s.item_extchunk[i] = s.item_extchunk[n] * self.extchunkshape[n];
            s.item_block[i] = s.item_block[n] * block;
            s.block_chunk[i] = s.block_chunk[n] * (self.extchunkshape[n] / block);
            s.chunk_array[i] = s.chunk_array[n].saturating_mul(self.extshape[n] / chunk);
        }
        s
    }
}

/// C-order strides (in elements) of a buffer of shape `shape`.
pub fn strides(shape: &[i64]) -> Vec<i64> {
    let mut s = vec![1i64; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1].saturating_mul(shape[i + 1]);
    }
    s
}

/// Linear index of `index` with `strides` (`blosc2_multidim_to_unidim`).
pub fn to_linear(index: &[i64], strides: &[i64]) -> i64 {
    index
        .iter()
        .zip(strides)
        .fold(0i64, |acc, (&i, &s)| acc.wrapping_add(i.wrapping_mul(s)))
}

/// The multidimensional index of linear position `i` in a C-order array of
/// `shape`.  Empty dimensions give 0.
pub fn from_linear(shape: &[i64], mut i: i64, out: &mut [i64]) {
    for d in (0..shape.len()).rev() {
        if shape[d] <= 0 {
            out[d] = 0;
            continue;
        }
        out[d] = i % shape[d];
        i /= shape[d];
    }
}

/// The multidimensional index of linear position `i` computed through the
/// C-order strides of `shape`, as `blosc2_unidim_to_multidim` does: the
/// first index is not reduced (a position past the end gives one past
/// `shape[0]`), a dimension whose stride or outer stride is 0 gives 0, and
/// the arithmetic wraps instead of failing.
pub fn from_linear_strided(shape: &[i64], i: i64, out: &mut [i64]) {
    let n = shape.len().min(out.len());
    if n == 0 {
        return;
    }
    let mut st = vec![1i64; n];
    for d in (0..n - 1).rev() {
        st[d] = shape[d + 1].wrapping_mul(st[d + 1]);
    }
    out[0] = if st[0] == 0 { 0 } else { i.wrapping_div(st[0]) };
    for d in 1..n {
        out[d] = if st[d - 1] == 0 || st[d] == 0 {
            0
        } else {
            i.wrapping_rem(st[d - 1]).wrapping_div(st[d])
        };
    }
}

/// Call `f` on every index of the box `[0, extent)` in C order (once, with
/// an empty index, for zero dimensions; never for an empty box).
pub(crate) fn for_each_index(
    extent: &[i64],
    mut f: impl FnMut(&[i64]) -> Result<()>,
) -> Result<()> {
    if extent.iter().any(|&e| e <= 0) {
        return Ok(());
    }
    let mut cur = vec![0i64; extent.len()];
    loop {
        f(&cur)?;
        let mut d = extent.len();
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            cur[d] += 1;
            if cur[d] < extent[d] {
                break;
            }
            cur[d] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_strides() {
        let g = Geometry::new(&[10, 7, 4], &[4, 3, 4], &[2, 2, 3]).unwrap();
        let s = g.array_strides();
        assert_eq!(s.item_array, vec![28, 4, 1]);
        assert_eq!(s.item_chunk, vec![12, 4, 1]);
        assert_eq!(s.item_extchunk, vec![24, 6, 1]);
        assert_eq!(s.item_block, vec![6, 3, 1]);
        assert_eq!(s.block_chunk, vec![4, 2, 1]);
        assert_eq!(s.chunk_array, strides(&g.chunks_per_dim()));
        // After an empty dimension every stride stays 0.
        let e = Geometry::new(&[3, 0, 2], &[2, 0, 2], &[1, 0, 1]).unwrap();
        let s = e.array_strides();
        assert_eq!(s.item_array, vec![0, 2, 1]);
        assert_eq!(s.block_chunk, vec![0, 2, 1]);
        assert!(Geometry::new(&[], &[], &[])
            .unwrap()
            .array_strides()
            .item_array
            .is_empty());
    }

    #[test]
    fn padded_shapes() {
        let g = Geometry::new(&[10, 7], &[4, 7], &[3, 2]).unwrap();
        assert_eq!(g.extshape, vec![12, 7]);
        assert_eq!(g.extchunkshape, vec![6, 8]);
        assert_eq!(g.nitems, 70);
        assert_eq!(g.extnitems, 84);
        assert_eq!(g.chunknitems, 28);
        assert_eq!(g.blocknitems, 6);
        assert_eq!(g.extchunknitems, 48);
        assert_eq!(g.chunks_per_dim(), vec![3, 1]);
        assert_eq!(g.blocks_per_dim(), vec![2, 4]);
        assert_eq!(g.nchunks(), 3);
        assert_eq!(g.nblocks(), 8);
    }

    #[test]
    fn blocks_larger_than_chunks_pad_the_chunk() {
        // One item a chunk, two a block: each stored chunk holds one block.
        let g = Geometry::new(&[3], &[1], &[2]).unwrap();
        assert_eq!(g.extchunkshape, vec![2]);
        assert_eq!(g.extchunknitems, 2);
        assert_eq!(g.chunks_per_dim(), vec![3]);
        assert_eq!(g.blocks_per_dim(), vec![1]);
        assert_eq!(g.nblocks(), 1);
        // Larger in one dimension only, not a multiple of the chunk.
        let g = Geometry::new(&[5, 5], &[2, 5], &[5, 2]).unwrap();
        assert_eq!(g.extchunkshape, vec![5, 6]);
        assert_eq!(g.blocks_per_dim(), vec![1, 3]);
        assert_eq!(g.chunk_nbytes(1).unwrap(), 30);
    }

    #[test]
    fn rejects_bad_shapes() {
        assert!(Geometry::new(&[-1], &[1], &[1]).is_err());
        assert!(Geometry::new(&[5], &[0], &[0]).is_err());
        assert!(Geometry::new(&[5], &[4], &[0]).is_err());
        assert!(Geometry::new(&[i64::MAX], &[3], &[1]).is_err());
        assert!(Geometry::new(&[1 << 20, 1 << 20], &[1 << 16, 1 << 16], &[1, 1]).is_err());
        assert!(Geometry::new(&[i64::MAX / 2, 4], &[1, 1], &[1, 1]).is_err());
        assert!(Geometry::new(&[0], &[0], &[0]).is_ok());
        assert!(Geometry::new(&[1; 17], &[1; 17], &[1; 17]).is_err());
        assert_eq!(Geometry::new(&[], &[], &[]).unwrap().nitems, 1);
    }

    #[test]
    fn strided_unravel_follows_the_reference() {
        let mut idx = [0i64; 3];
        for i in 0..60 {
            from_linear_strided(&[3, 4, 5], i, &mut idx);
            assert_eq!(to_linear(&idx, &[20, 5, 1]), i);
        }
        // Past the end only the first index grows.
        from_linear_strided(&[3, 4, 5], 61, &mut idx);
        assert_eq!(idx, [3, 0, 1]);
        // A zero extent zeroes the dimensions its stride reaches.
        from_linear_strided(&[3, 0, 5], 7, &mut idx);
        assert_eq!(idx, [0, 0, 2]);
        // Wrapping, not a panic.
        let mut two = [0i64; 2];
        from_linear_strided(&[1, -1], i64::MIN, &mut two);
        assert_eq!(two, [i64::MIN, 0]);
        from_linear_strided(&[], 5, &mut []);
    }

    #[test]
    fn empty_arrays_may_have_blocks_larger_than_chunks() {
        let e = Geometry::new(&[40, 0, 12], &[20, 0, 12], &[25, 0, 6]).unwrap();
        assert_eq!((e.nitems, e.nchunks()), (0, 0));
        assert_eq!(e.extchunkshape, vec![25, 0, 12]);
        assert_eq!(e.blocks_per_dim(), vec![1, 0, 2]);
    }

    #[test]
    fn linear_round_trip() {
        let shape = [3, 4, 5];
        let st = strides(&shape);
        assert_eq!(st, vec![20, 5, 1]);
        let mut idx = [0i64; 3];
        for i in 0..60 {
            from_linear(&shape, i, &mut idx);
            assert_eq!(to_linear(&idx, &st), i);
        }
    }
}
