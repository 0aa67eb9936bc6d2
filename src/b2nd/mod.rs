//! N-dimensional arrays on super-chunks (the b2nd layer of c-blosc2).
//!
//! An array is a super-chunk with a "b2nd" metalayer holding its shape,
//! chunk shape, block shape and dtype.  Chunks cover the array in C order
//! over the chunk grid; each chunk is stored padded to whole blocks, block
//! after block (see [`mod@array`]).  [`NdArray`] owns its super-chunk; the
//! free functions of [`mod@array`], [`select`] and [`reshape`] work on any
//! super-chunk and [`ArrayMeta`] pair (the C layer keeps the super-chunk
//! in its own `blosc2_schunk`).
//!
//! ```
//! use blosc2::b2nd::NdArray;
//! use blosc2::chunk::CParams;
//! use blosc2::schunk::Storage;
//! let cp = CParams { typesize: 4, ..CParams::default() };
//! let data: Vec<u8> = (0..60u32).flat_map(|v| v.to_le_bytes()).collect();
//! let a = NdArray::from_buffer(cp, Storage::Memory, &[6, 10], &[4, 5], &[2, 5], "<u4", &data).unwrap();
//! let mut out = vec![0u8; 2 * 3 * 4];
//! a.get_slice(&[1, 2], &[3, 5], &mut out, &[2, 3]).unwrap();
//! assert_eq!(&out[..4], &12u32.to_le_bytes());
//! ```

pub mod array;
pub mod copy;
pub mod geometry;
pub mod meta;
pub mod reshape;
pub mod select;

pub use array::Fill;
pub use geometry::{Geometry, MAX_DIM};
pub use meta::ArrayMeta;

use crate::chunk::{CParams, DParams};
use crate::error::{Error, Result};
use crate::format::header::Special;
use crate::schunk::{Storage, SuperChunk};
use std::path::Path;

/// An n-dimensional array that owns its super-chunk.
#[derive(Debug)]
pub struct NdArray {
    /// The super-chunk holding the chunks and the metalayers.
    pub sc: SuperChunk,
    /// Shapes and dtype (kept equal to the "b2nd" metalayer).
    pub meta: ArrayMeta,
}

impl NdArray {
    /// A new array with every item set as `fill` says.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        cparams: CParams,
        dparams: DParams,
        storage: Storage,
        shape: &[i64],
        chunkshape: &[i32],
        blockshape: &[i32],
        dtype: &str,
        fill: Fill<'_>,
    ) -> Result<NdArray> {
        let meta = ArrayMeta {
            geom: Geometry::new(shape, chunkshape, blockshape)?,
            dtype: dtype.to_string(),
            dtype_format: 0,
        };
        let mut sc = SuperChunk::new(cparams, dparams, storage)?;
        array::init_schunk(&mut sc, &meta, &[], fill)?;
        Ok(NdArray { sc, meta })
    }

    /// A new array holding `data` (C order, `nitems * typesize` bytes).
    #[allow(clippy::too_many_arguments)]
    pub fn from_buffer(
        cparams: CParams,
        storage: Storage,
        shape: &[i64],
        chunkshape: &[i32],
        blockshape: &[i32],
        dtype: &str,
        data: &[u8],
    ) -> Result<NdArray> {
        let mut a = NdArray::new(
            cparams,
            DParams::default(),
            storage,
            shape,
            chunkshape,
            blockshape,
            dtype,
            Fill::Special(Special::Zero),
        )?;
        let need = a.nbytes()?;
        if data.len() < need {
            return Err(Error::InvalidParam);
        }
        array::from_buffer(&mut a.sc, &a.meta.geom, &data[..need])?;
        Ok(a)
    }

    /// The array of a super-chunk with a "b2nd" metalayer.
    pub fn from_schunk(sc: SuperChunk) -> Result<NdArray> {
        let meta = array::read_meta(&sc)?;
        Ok(NdArray { sc, meta })
    }

    /// Open an array stored in a frame file or sparse-frame directory.
    pub fn open(path: &Path) -> Result<NdArray> {
        NdArray::from_schunk(SuperChunk::open(path, 0)?)
    }

    /// The array in a contiguous frame held in memory.
    pub fn from_frame_bytes(bytes: Vec<u8>) -> Result<NdArray> {
        NdArray::from_schunk(SuperChunk::from_frame_bytes(bytes, true)?)
    }

    /// Shape.
    pub fn shape(&self) -> &[i64] {
        &self.meta.geom.shape
    }

    /// Size in bytes of all items.
    pub fn nbytes(&self) -> Result<usize> {
        usize::try_from(self.meta.geom.nitems)
            .ok()
            .and_then(|n| n.checked_mul(self.sc.typesize() as usize))
            .ok_or(Error::InvalidParam)
    }

    /// All items in C order.
    pub fn to_buffer(&self) -> Result<Vec<u8>> {
        array::to_buffer(&self.sc, &self.meta.geom)
    }

    /// Read the box `[start, stop)` into `buf` (shape `bufshape`).
    pub fn get_slice(
        &self,
        start: &[i64],
        stop: &[i64],
        buf: &mut [u8],
        bufshape: &[i64],
    ) -> Result<()> {
        array::get_slice(&self.sc, &self.meta.geom, start, stop, buf, bufshape)
    }

    /// Write the box `[start, stop)` from `buf` (shape `bufshape`).
    pub fn set_slice(
        &mut self,
        start: &[i64],
        stop: &[i64],
        buf: &[u8],
        bufshape: &[i64],
    ) -> Result<()> {
        array::set_slice(&mut self.sc, &self.meta.geom, start, stop, buf, bufshape)
    }

    /// Read an orthogonal selection.
    pub fn get_orthogonal(
        &self,
        selection: &[&[i64]],
        buf: &mut [u8],
        bufshape: &[i64],
    ) -> Result<()> {
        select::get_orthogonal(&self.sc, &self.meta.geom, selection, buf, bufshape)
    }

    /// Write an orthogonal selection.
    pub fn set_orthogonal(
        &mut self,
        selection: &[&[i64]],
        buf: &[u8],
        bufshape: &[i64],
    ) -> Result<()> {
        select::set_orthogonal(&mut self.sc, &self.meta.geom, selection, buf, bufshape)
    }

    /// Resize (see [`reshape::resize`]).
    pub fn resize(&mut self, new_shape: &[i64], start: Option<&[i64]>) -> Result<()> {
        reshape::resize(&mut self.sc, &mut self.meta, new_shape, start)
    }

    /// Append whole slabs along `axis`.
    pub fn append(&mut self, buf: &[u8], axis: usize) -> Result<()> {
        let at = *self.meta.geom.shape.get(axis).ok_or(Error::InvalidParam)?;
        reshape::insert(&mut self.sc, &mut self.meta, buf, axis, at)
    }

    /// Insert whole slabs along `axis` before index `at`.
    pub fn insert(&mut self, buf: &[u8], axis: usize, at: i64) -> Result<()> {
        reshape::insert(&mut self.sc, &mut self.meta, buf, axis, at)
    }

    /// Delete `len` indexes of `axis` from `at`.
    pub fn delete(&mut self, axis: usize, at: i64, len: i64) -> Result<()> {
        reshape::delete(&mut self.sc, &mut self.meta, axis, at, len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_round_trip_keeps_the_array() {
        let cp = CParams {
            typesize: 8,
            ..CParams::default()
        };
        let data: Vec<u8> = (0..7 * 5 * 3u64)
            .flat_map(|v| (v * v).to_le_bytes())
            .collect();
        let a = NdArray::from_buffer(
            cp,
            Storage::FrameInMemory,
            &[7, 5, 3],
            &[3, 5, 2],
            &[2, 2, 2],
            "<u8",
            &data,
        )
        .unwrap();
        let frame = a.sc.to_frame_bytes().unwrap();
        let b = NdArray::from_frame_bytes(frame).unwrap();
        assert_eq!(b.meta, a.meta);
        assert_eq!(b.to_buffer().unwrap(), data);
    }

    #[test]
    fn zero_dimensional_and_empty_arrays() {
        let cp = CParams {
            typesize: 4,
            ..CParams::default()
        };
        let mut a = NdArray::from_buffer(
            cp.clone(),
            Storage::Memory,
            &[],
            &[],
            &[],
            "<i4",
            &7i32.to_le_bytes(),
        )
        .unwrap();
        assert_eq!(a.to_buffer().unwrap(), 7i32.to_le_bytes());
        a.set_slice(&[], &[], &9i32.to_le_bytes(), &[]).unwrap();
        assert_eq!(a.to_buffer().unwrap(), 9i32.to_le_bytes());
        let mut e =
            NdArray::from_buffer(cp, Storage::Memory, &[0, 4], &[2, 2], &[1, 2], "<i4", &[])
                .unwrap();
        assert_eq!(e.sc.nchunks(), 0);
        assert!(e.to_buffer().unwrap().is_empty());
        let row: Vec<u8> = (0..16).collect();
        e.append(&row, 0).unwrap();
        assert_eq!(e.shape(), &[1, 4]);
        assert_eq!(e.to_buffer().unwrap(), row);
    }

    /// Mutated "b2nd" metalayers inside a frame: opening either fails
    /// cleanly or gives an array whose every operation returns (no panic,
    /// no out-of-bounds access).
    #[test]
    fn mutated_metalayers_in_frames_never_panic() {
        let cp = CParams {
            typesize: 2,
            ..CParams::default()
        };
        let data: Vec<u8> = (0..9 * 7 * 2).map(|i| i as u8).collect();
        let a = NdArray::from_buffer(
            cp,
            Storage::FrameInMemory,
            &[9, 7],
            &[4, 3],
            &[2, 2],
            "<i2",
            &data,
        )
        .unwrap();
        let frame = a.sc.to_frame_bytes().unwrap();
        let meta = array::meta_bytes(&a.meta).unwrap();
        let at = frame
            .windows(meta.len())
            .position(|w| w == meta.as_slice())
            .expect("the metalayer is stored verbatim");
        let mut seed = 0x9e3779b97f4a7c15u64;
        let mut rnd = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut opened = 0;
        for _ in 0..3000 {
            let mut f = frame.clone();
            for _ in 0..1 + rnd(3) {
                let i = at + rnd(meta.len());
                f[i] = match rnd(4) {
                    0 => f[i] ^ (1 << rnd(8)),
                    1 => 0xff,
                    2 => 0,
                    _ => rnd(256) as u8,
                };
            }
            let Ok(mut b) = NdArray::from_frame_bytes(f) else {
                continue;
            };
            opened += 1;
            // Reading everything of a (lying) huge shape is only slow.
            if b.meta.geom.nitems > 1 << 16 {
                continue;
            }
            let _ = b.to_buffer();
            let nd = b.meta.geom.ndim();
            let mut out = vec![0u8; 64];
            let ones = vec![1i64; nd];
            let _ = b.get_slice(&vec![0; nd], &ones, &mut out, &ones);
            let _ = b.set_slice(&vec![0; nd], &ones, &[7u8; 64], &ones);
            let grown: Vec<i64> = b.shape().iter().map(|&s| s.saturating_add(1)).collect();
            let _ = b.resize(&grown, None);
        }
        assert!(opened > 0);
    }
}
